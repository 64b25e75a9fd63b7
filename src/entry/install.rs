//! `codeguard install` / `codeguard uninstall`: write or remove codeguard's hooks where the user
//! asked (`--git-hooks`: the current repository's git hooks; `--host H`: the host's settings,
//! with `--mcp` its MCP server registration too), then say what changed.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::{InstallArgs, UninstallArgs};
use crate::env::Env;
use crate::exit;
use crate::host::Host;
use crate::install::git_hooks::{self, Action, Change};
use crate::install::settings::{self, Kind, Outcome};

/// Runs `install`.
pub fn install(args: &InstallArgs, env: &Env) -> anyhow::Result<u8> {
    if let Some(name) = &args.host {
        let project = project_dir(args.scope.project.as_deref())?;
        let (host, path) = host_settings(name, project.as_deref(), env)?;
        let mcp_path = args.mcp.then(|| mcp_settings(host, project.as_deref(), env)).transpose()?;
        let exe = current_exe()?;
        let outcome = settings::install(Kind::Hooks, host, &path, &exe, args.dry_run)?;
        print_settings(host, &path, &outcome, "settings")?;
        if let Some(mcp_path) = mcp_path {
            let outcome = settings::install(Kind::Mcp, host, &mcp_path, &exe, args.dry_run)?;
            print_settings(host, &mcp_path, &outcome, "MCP server registration")?;
        }
        return Ok(exit::PASS);
    }
    if args.dry_run {
        return Err(
            super::UsageError("--dry-run goes with --host (git hooks are installed or not)".into()).into()
        );
    }
    let dir = git_hooks::hooks_dir(&current_dir()?)?;
    let changes = git_hooks::install(&dir, &current_exe()?, args.force)?;
    print(&dir, &changes)
}

/// Runs `uninstall`.
pub fn uninstall(args: &UninstallArgs, env: &Env) -> anyhow::Result<u8> {
    if let Some(name) = &args.host {
        let project = project_dir(args.scope.project.as_deref())?;
        let (host, path) = host_settings(name, project.as_deref(), env)?;
        let mcp_path = args.mcp.then(|| mcp_settings(host, project.as_deref(), env)).transpose()?;
        if let Some(mcp_path) = mcp_path {
            let outcome = settings::uninstall(Kind::Mcp, host, &mcp_path)?;
            print_settings(host, &mcp_path, &outcome, "MCP server registration")?;
        }
        let outcome = settings::uninstall(Kind::Hooks, host, &path)?;
        print_settings(host, &path, &outcome, "settings")?;
        return Ok(exit::PASS);
    }
    let dir = git_hooks::hooks_dir(&current_dir()?)?;
    let changes = git_hooks::uninstall(&dir)?;
    print(&dir, &changes)
}

/// The `--project` directory, canonical; a missing one is a usage error.
fn project_dir(project: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    Ok(project
        .map(|p| p.canonicalize().map_err(|e| super::UsageError(format!("{}: {e}", p.display()))))
        .transpose()?)
}

/// The host and its settings file; an unknown host or an unsupported scope is a usage error.
fn host_settings(name: &str, project: Option<&Path>, env: &Env) -> anyhow::Result<(Host, PathBuf)> {
    let host = Host::from_name(name).ok_or_else(|| {
        super::UsageError(format!(
            "unknown host `{name}` (claude, codex, gemini, kimi, copilot, cursor, openhands)"
        ))
    })?;
    let path = settings::path(host, project, env).map_err(|e| super::UsageError(e.to_string()))?;
    Ok((host, path))
}

/// The file the host reads MCP servers from; a host without one is a usage error.
fn mcp_settings(host: Host, project: Option<&Path>, env: &Env) -> anyhow::Result<PathBuf> {
    Ok(settings::mcp_path(host, project, env).map_err(|e| super::UsageError(e.to_string()))?)
}

fn current_exe() -> anyhow::Result<std::path::PathBuf> {
    let exe = std::env::current_exe().context("locating the codeguard binary")?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

fn print_settings(host: Host, path: &Path, outcome: &Outcome, what: &str) -> anyhow::Result<()> {
    let change = match outcome {
        Outcome::Written => "updated".to_owned(),
        Outcome::Unchanged => "already as it should be; nothing changed".to_owned(),
        Outcome::Restored => "restored to how it was before codeguard was installed".to_owned(),
        Outcome::Removed => "removed (it held only codeguard's entries)".to_owned(),
        Outcome::WouldChange(diff) => format!("would change (dry run, nothing written):\n{diff}"),
    };
    let text = format!("codeguard: {} {what} {}: {change}\n", host.name(), path.display());
    std::io::stdout().write_all(text.as_bytes()).context("writing to stdout")
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
