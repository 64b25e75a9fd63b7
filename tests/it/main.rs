//! The integration-test binary: real git repositories, the real `codeguard` binary, real linters
//! where behaviour depends on them.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// The house rules (clippy.toml) are for codeguard's own code: tests drive real processes and read
// the environment they run in.
#![allow(clippy::disallowed_methods)]

mod advice;
mod analyser;
mod baseline;
mod bounds;
mod cache;
mod check;
mod content;
mod corpus;
mod detect;
mod dialects;
mod explain;
mod file_results;
mod fix;
mod gate;
mod git_hooks;
mod hook_managers;
mod hostile_repo;
mod hosts;
mod in_place;
mod init;
mod install;
mod inventory;
mod layers;
mod lifecycle;
mod mcp;
mod oracle;
mod patch_shell;
mod path_options;
mod pre_commit_hooks;
mod programs;
mod properties;
mod release_flags;
mod repo_code;
mod sarif;
mod scale;
mod snapshot;
mod snapshots;
mod state;
mod supervision;
mod support;
mod surface;
mod surface_exact;
mod tools;
mod trust;
mod verdicts;
