//! The integration-test binary: real git repositories, the real `codeguard` binary, real linters
//! where behaviour depends on them.

mod cache;
mod check;
mod corpus;
mod explain;
mod gate;
mod git_hooks;
mod hosts;
mod install;
mod lifecycle;
mod properties;
mod sarif;
mod snapshot;
mod state;
mod support;
mod surface;
mod trust;
