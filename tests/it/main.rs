//! The integration-test binary: real git repositories, the real `codeguard` binary, real linters
//! where behaviour depends on them.

mod bounds;
mod cache;
mod check;
mod corpus;
mod detect;
mod explain;
mod fix;
mod gate;
mod git_hooks;
mod hosts;
mod init;
mod install;
mod lifecycle;
mod mcp;
mod properties;
mod sarif;
mod snapshot;
mod state;
mod supervision;
mod support;
mod surface;
mod trust;
