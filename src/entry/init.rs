//! `codeguard init` (placeholder while it is built).

use crate::cli::InitArgs;

/// Runs `init`.
pub fn run(_args: &InitArgs) -> anyhow::Result<u8> {
    Ok(crate::exit::PASS)
}
