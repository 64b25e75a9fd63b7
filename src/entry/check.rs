//! `codeguard check`.
use crate::cli::CheckArgs;
use crate::env::Env;

/// Runs `check`.
pub fn run(_args: &CheckArgs, _env: &Env) -> anyhow::Result<u8> {
    anyhow::bail!("check is not implemented yet")
}
