//! `codeguard explain`: show what the gate predicts for a shell command, without linting.

use crate::cli::ExplainArgs;
use crate::env::Env;

/// Runs `explain`.
pub fn run(_args: &ExplainArgs, _env: &Env) -> anyhow::Result<u8> {
    anyhow::bail!("explain is not implemented yet")
}
