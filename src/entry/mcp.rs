//! `codeguard mcp` (placeholder while it is built).

use crate::env::Env;

/// Runs the MCP server.
pub fn run(_env: &Env) -> anyhow::Result<u8> {
    Ok(crate::exit::PASS)
}
