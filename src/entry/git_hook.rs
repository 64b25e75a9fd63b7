//! placeholder
use crate::cli::GitHookArgs;
use crate::env::Env;
pub fn run(_args: &GitHookArgs, _env: &Env) -> anyhow::Result<u8> {
    Ok(0)
}
