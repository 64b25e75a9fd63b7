//! codeguard — a commit/push quality gate for AI coding agents.
//!
//! The pipeline (see `ARCHITECTURE.md` §1) flows top to bottom and never back up:
//!
//! ```text
//! host payload / CLI args
//!   → bash::analyse      (pure: does this shell command commit or push, and where?)
//!   → intent::resolve    (bind each git operation to a repository)
//!   → surface::predict   (which lanes and paths the commit/push would carry)
//!   → snapshot           (materialise exactly that content from git blobs, never touching the repo)
//!   → safety::scan       (path and secret rules over the content)
//!   → plan::build        (which linters run on which files, and why others are skipped)
//!   → run::execute       (parallel, deadline per job, process-group kill)
//!   → verdict            (exit code + output → PASS / FAIL / UNVERIFIED / SKIPPED / PLANNED)
//!   → report             (agent-facing text, capped, full logs on disk)
//!   → host encoder       (the only writer of stdout)
//! ```
//!
//! Every stage lives in its own module; the analysis stages are pure and I/O sits at the edges.

mod baseline;
pub mod bash;
pub mod cache;
mod cli;
mod commands;
mod content;
pub mod env;
mod exit;
mod files;
mod fix_plan;
mod fs;
mod git;
mod hook;
mod host;
mod install;
pub mod intent;
mod lint;
mod lint_plan;
pub mod outcome;
mod output;
mod process;
pub mod registry;
pub mod report;
pub mod run;
pub mod safety;
mod setup_plan;
pub mod snapshot;
pub mod state;
mod static_regex;
pub mod surface;
mod tools;
mod trust;
mod verdict;

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs codeguard with the given command-line arguments (the first one is the program name)
/// and returns the process exit code. All exit decisions are made in [`exit`].
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let env = env::Env::from_process();
    ExitCode::from(commands::dispatch(args, &env))
}
