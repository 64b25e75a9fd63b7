//! `codeguard trust [DIR]` / `codeguard untrust [DIR]`: the user's decision whether a
//! repository's own commands may run. The only place trust is ever granted.

use std::path::PathBuf;

use anyhow::Context;

use super::UsageError;
use crate::cli::TrustArgs;
use crate::env::Env;
use crate::output::Output;

/// Records the decision (`trusted` for `trust`, not for `untrust`) and prints it.
pub(super) fn run(args: &TrustArgs, trusted: bool, env: &Env) -> anyhow::Result<Output> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !dir.is_dir() {
        return Err(UsageError(format!("{} is not a directory", dir.display())).into());
    }
    let root = if trusted { crate::trust::trust(env, &dir) } else { crate::trust::untrust(env, &dir) }
        .with_context(|| format!("recording the decision for {}", dir.display()))?;
    let text = if trusted {
        format!(
            "codeguard: trusted {}: the commands its codeguard.json defines may now run\n",
            root.display()
        )
    } else {
        format!(
            "codeguard: untrusted {}: the commands its codeguard.json defines will not run\n",
            root.display()
        )
    };
    Ok(Output::stdout(text, crate::exit::success()))
}
