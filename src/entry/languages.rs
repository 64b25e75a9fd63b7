//! `codeguard languages`.
use crate::cli::LanguagesArgs;

/// Runs `languages`.
pub fn run(_args: &LanguagesArgs) -> anyhow::Result<u8> {
    anyhow::bail!("languages is not implemented yet")
}
