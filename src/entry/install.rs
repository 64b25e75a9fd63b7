//! `codeguard install` / `codeguard uninstall`: write or remove codeguard's hooks where the user
//! asked (`--git-hooks`: the current repository's git hooks), then say what changed.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;

use crate::cli::{InstallArgs, UninstallArgs};
use crate::exit;
use crate::install::git_hooks::{self, Action, Change};

/// Runs `install`.
pub fn install(args: &InstallArgs) -> anyhow::Result<u8> {
    debug_assert!(args.git_hooks, "clap requires a target");
    let dir = git_hooks::hooks_dir(&current_dir()?)?;
    let exe = std::env::current_exe().context("locating the codeguard binary")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let changes = git_hooks::install(&dir, &exe, args.force)?;
    print(&dir, &changes)
}

/// Runs `uninstall`.
pub fn uninstall(args: &UninstallArgs) -> anyhow::Result<u8> {
    debug_assert!(args.git_hooks, "clap requires a target");
    let dir = git_hooks::hooks_dir(&current_dir()?)?;
    let changes = git_hooks::uninstall(&dir)?;
    print(&dir, &changes)
}

fn current_dir() -> anyhow::Result<std::path::PathBuf> {
    std::env::current_dir().context("reading the current directory")
}

fn print(dir: &Path, changes: &[Change]) -> anyhow::Result<u8> {
    let mut out = format!("codeguard: git hooks in {}\n", dir.display());
    for change in changes {
        let _ = writeln!(out, "  {}: {}", change.hook.file_name(), describe(&change.action));
    }
    std::io::stdout().write_all(out.as_bytes()).context("writing to stdout")?;
    Ok(exit::PASS)
}

fn describe(action: &Action) -> String {
    let name = |p: &Path| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match action {
        Action::Installed => "installed".to_owned(),
        Action::Unchanged => "already installed".to_owned(),
        Action::Updated => "updated".to_owned(),
        Action::Chained(kept) => {
            format!("installed; the existing hook is kept as {} and runs first", name(kept))
        }
        Action::Replaced(kept) => {
            format!("installed; the existing hook no longer runs (kept as {})", name(kept))
        }
        Action::Removed => "removed".to_owned(),
        Action::Restored(from) => format!("removed; the earlier hook is back (from {})", name(from)),
        Action::NotInstalled => "not installed".to_owned(),
        Action::NotOurs => "left alone: it is not codeguard's".to_owned(),
    }
}
