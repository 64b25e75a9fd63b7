//! `codeguard install` / `codeguard uninstall`: write or remove codeguard's hooks where the user
//! asked (`--git-hooks`: the current repository's git hooks; `--host H`: the host's settings,
//! with `--mcp` its MCP server registration too), then say what changed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::{InstallArgs, UninstallArgs};
use crate::env::Env;
use crate::exit;
use crate::host::Host;
use crate::host::spec::{HooksFile, SessionEnv, Trust, UserFiles};
use crate::install::git_hooks::{self, Action, Change};
use crate::install::hook_managers::Owner;
use crate::install::settings::{self, Kind, Outcome};
use crate::install::{codex, gemini, hosts, session_hooks};
use crate::outcome::Status;
use crate::output::Output;

/// Runs `install`. What was written before an error is still reported.
pub(super) fn install(args: &InstallArgs, env: &Env) -> anyhow::Result<Output> {
    Output::gather(|out| install_into(args, env, out))
}

fn install_into(args: &InstallArgs, env: &Env, out: &mut Output) -> anyhow::Result<u8> {
    if let Some(name) = &args.host {
        let project = project_dir(args.scope.project.as_deref())?;
        if let Some(host) = git_gated(name) {
            return git_gate(host, project.as_deref(), args.dry_run, args.force, true, env, out);
        }
        let (host, _) = host_settings(name, project.as_deref(), env)?;
        let trust = crate::host::spec(host).trust;
        if args.trust_folder && (trust != Trust::GeminiFolder || project.is_none()) {
            return Err(
                super::UsageError("--trust-folder goes with --host gemini --project DIR".into()).into()
            );
        }
        let paths =
            settings::paths(host, project.as_deref(), env).map_err(|e| super::UsageError(e.to_string()))?;
        // dsh runs the hooks only through its bridge plugin: found first, or nothing is written.
        let bridge = match trust {
            Trust::DshBridge => Some(
                crate::install::dsh::bridge(env)
                    .ok_or_else(|| super::UsageError(crate::install::dsh::no_bridge()))?,
            ),
            Trust::CodexHookState | Trust::GeminiFolder | Trust::None => None,
        };
        let mcp_path = args.mcp.then(|| mcp_settings(host, project.as_deref(), env)).transpose()?;
        let exe = current_exe()?;
        let session_dir = session_hooks::dir(env);
        let mut backstop_refused = None;
        for path in &paths {
            let in_settings =
                crate::host::spec(host).session_env == SessionEnv::SettingsEnv && path == &paths[0];
            // The backstop's `env` entries go in with the hooks, in one write: the backup keeps
            // the file as it was before codeguard, and uninstall can restore it.
            let outcome = settings::write_change(path, args.dry_run, |old| {
                let hooks = hosts::merged(host, old, &exe)?;
                if !in_settings {
                    return Ok(hooks);
                }
                Ok(session_hooks::json_merged(&hooks, &session_dir).unwrap_or_else(|e| {
                    backstop_refused = Some(e.to_string());
                    hooks
                }))
            })?;
            print_settings(out, host, path, &outcome, "settings");
            match trust {
                Trust::CodexHookState => codex_trust(path, &exe, project.as_deref(), env, args.dry_run, out)?,
                Trust::DshBridge => {
                    let patch =
                        crate::install::dsh::patch_path(env).ok_or(settings::SettingsError::NoHome)?;
                    let bridge = bridge.as_deref().unwrap_or(Path::new(""));
                    let outcome = settings::write_change(&patch, args.dry_run, |old| {
                        Ok(crate::install::dsh::merged(old.unwrap_or(""), bridge, path))
                    })?;
                    print_settings(out, host, &patch, &outcome, "bridge entry (every profile's patch layer)");
                }
                Trust::GeminiFolder | Trust::None => {}
            }
        }
        if let (Trust::GeminiFolder, Some(dir)) = (trust, project.as_deref()) {
            gemini_folder(dir, env, args.trust_folder, args.dry_run, out)?;
        }
        if let Some(mcp_path) = mcp_path {
            let outcome = settings::install(Kind::Mcp, host, &mcp_path, &exe, args.dry_run)?;
            print_settings(out, host, &mcp_path, &outcome, "MCP server registration");
        }
        backstop(host, &exe, env, args.dry_run, backstop_refused, out)?;
        if !args.dry_run {
            crate::output::flush(out);
            provision_tools(
                project.as_deref().map_or_else(current_dir, |p| Ok(p.to_path_buf()))?.as_path(),
                env,
            );
        }
        return Ok(exit::EntryPoint::Install.status_code(Status::Pass));
    }
    if args.dry_run {
        return Err(
            super::UsageError("--dry-run goes with --host (git hooks are installed or not)".into()).into()
        );
    }
    let layout = git_hooks::layout(&current_dir()?)?;
    let changes = git_hooks::install(&layout, &current_exe()?, args.force)?;
    crate::install::hook_reach::record(&crate::state::home(env), &layout, true)
        .context("recording the install")?;
    print(out, &layout.hooks, &changes);
    crate::output::flush(out);
    provision_tools(&current_dir()?, env);
    Ok(exit::EntryPoint::Install.status_code(Status::Pass))
}

/// A host that runs no hook of its own (`HooksFile::GitHooksOnly`), named on the command line.
fn git_gated(name: &str) -> Option<Host> {
    Host::from_name(name).filter(|h| crate::host::spec(*h).hooks_file == HooksFile::GitHooksOnly)
}

/// `install`/`uninstall --host H` for a host whose gate is codeguard's git hooks: they go into
/// (or out of) the repository at `project`, else the one the command runs in.
fn git_gate(
    host: Host,
    project: Option<&Path>,
    dry_run: bool,
    force: bool,
    install: bool,
    env: &Env,
    out: &mut Output,
) -> anyhow::Result<u8> {
    let dir = project.map_or_else(current_dir, |p| Ok(p.to_path_buf()))?;
    let label = crate::host::spec(host).label;
    let layout = git_hooks::layout(&dir).map_err(|e| {
        super::UsageError(format!(
            "{label} runs no hook of its own, so its gate is codeguard's git hooks in each repository, and {} is not in one ({e}): run this in the repository, or with --project DIR",
            dir.display()
        ))
    })?;
    if let Err(why) = hosts::merged(host, None, Path::new("codeguard")) {
        let _ = writeln!(out.stdout, "codeguard: {why}");
    }
    if dry_run {
        let _ = writeln!(
            out.stdout,
            "codeguard: would {} codeguard's git hooks in {} (dry run, nothing written)",
            if install { "install" } else { "remove" },
            layout.hooks.display()
        );
        return Ok(exit::EntryPoint::Install.status_code(Status::Pass));
    }
    let changes = if install {
        git_hooks::install(&layout, &current_exe()?, force)?
    } else {
        let _ = writeln!(
            out.stdout,
            "codeguard: the git hooks removed here gated every commit and push in {}, whoever made them (you, and every agent), not only {label}'s",
            layout.hooks.display()
        );
        git_hooks::uninstall(&layout)?
    };
    crate::install::hook_reach::record(&crate::state::home(env), &layout, install)
        .context("recording the install")?;
    print(out, &layout.hooks, &changes);
    if install {
        crate::output::flush(out);
        provision_tools(&dir, env);
    }
    Ok(exit::EntryPoint::Install.status_code(Status::Pass))
}

/// Installs the managed tools the repository at `dir` needs and has nowhere (its detected
/// languages' tools that are neither managed nor on `PATH`), so the hooks just installed find
/// them: the hooks themselves never install. Off with `CODEGUARD_NO_INSTALL=1`; outside a git
/// repository there is nothing to detect. A failed install is reported and does not undo the
/// hooks (those languages stay UNVERIFIED with the install command).
fn provision_tools(dir: &Path, env: &Env) {
    if env.is_truthy("CODEGUARD_NO_INSTALL") {
        return;
    }
    if let Some((root, _)) = crate::intent::repository_at(dir) {
        let _ = crate::tools::provision::provision_missing(&root, &[], env);
    }
}

/// Runs `uninstall`. What was removed before an error is still reported.
pub(super) fn uninstall(args: &UninstallArgs, env: &Env) -> anyhow::Result<Output> {
    Output::gather(|out| uninstall_into(args, env, out))
}

fn uninstall_into(args: &UninstallArgs, env: &Env, out: &mut Output) -> anyhow::Result<u8> {
    if let Some(name) = &args.host {
        let project = project_dir(args.scope.project.as_deref())?;
        if let Some(host) = git_gated(name) {
            return git_gate(host, project.as_deref(), false, false, false, env, out);
        }
        let (host, path) = host_settings(name, project.as_deref(), env)?;
        let mcp_path = args.mcp.then(|| mcp_settings(host, project.as_deref(), env)).transpose()?;
        if let Some(mcp_path) = mcp_path {
            let outcome = settings::uninstall(Kind::Mcp, host, &mcp_path)?;
            print_settings(out, host, &mcp_path, &outcome, "MCP server registration");
        }
        let paths = match (crate::host::spec(host).user_files, project.as_deref()) {
            (UserFiles::EachKimi, None) => {
                settings::Kimi::ALL.iter().filter_map(|k| settings::kimi_path(*k, env)).collect()
            }
            (UserFiles::EachEvent, _) => settings::paths(host, project.as_deref(), env)
                .map_err(|e| super::UsageError(e.to_string()))?,
            _ => vec![path],
        };
        let session_dir = session_hooks::dir(env);
        for path in &paths {
            let outcome =
                if crate::host::spec(host).session_env == SessionEnv::SettingsEnv && path == &paths[0] {
                    settings::remove_change(path, false, |current| match hosts::stripped(host, current)? {
                        Some(text) => {
                            Ok(hosts::skeleton_to_none(&session_hooks::json_stripped(&text, &session_dir)?))
                        }
                        None => Ok(None),
                    })?
                } else {
                    settings::uninstall(Kind::Hooks, host, path)?
                };
            print_settings(out, host, path, &outcome, "settings");
        }
        remove_backstop(host, project.as_deref(), env, out)?;
        if crate::host::spec(host).trust == Trust::CodexHookState
            && let Some(config) = codex::config_path(env)
        {
            let outcome = settings::remove_change(&config, true, |c| {
                Ok(paths.iter().try_fold(c.to_owned(), |text, file| codex::stripped(&text, file)))
            })?;
            print_settings(out, host, &config, &outcome, "hook trust");
        }
        if crate::host::spec(host).trust == Trust::DshBridge
            && let Some(patch) = crate::install::dsh::patch_path(env)
        {
            let outcome = settings::remove_change(&patch, true, |c| Ok(crate::install::dsh::stripped(c)))?;
            print_settings(out, host, &patch, &outcome, "bridge entry (every profile's patch layer)");
        }
        return Ok(exit::EntryPoint::Install.status_code(Status::Pass));
    }
    let layout = git_hooks::layout(&current_dir()?)?;
    let changes = git_hooks::uninstall(&layout)?;
    crate::install::hook_reach::record(&crate::state::home(env), &layout, false)
        .context("forgetting the install")?;
    print(out, &layout.hooks, &changes);
    Ok(exit::EntryPoint::Install.status_code(Status::Pass))
}

/// Arranges the git backstop for the host's agent shell (see [`session_hooks`]): writes the
/// session hooks directory and names it in the host's shell environment. A host without a
/// mechanism, or a user setting codeguard must not overwrite, is said, not failed: the hooks
/// installed above still gate, and the gate fails closed on what it cannot predict.
fn backstop(
    host: Host,
    exe: &Path,
    env: &Env,
    dry_run: bool,
    refused: Option<String>,
    out: &mut Output,
) -> anyhow::Result<()> {
    let dir = session_hooks::dir(env);
    let arranged = match crate::host::spec(host).session_env {
        SessionEnv::None => {
            let _ = writeln!(
                out.stdout,
                "codeguard: {} gives codeguard no way to set git's environment for its shell, so the git backstop is not arranged for it; run `codeguard install --git-hooks` in each repository for it",
                crate::host::spec(host).label
            );
            return Ok(());
        }
        // Written with the hooks, in the same settings file.
        SessionEnv::SettingsEnv => refused.map_or(Ok(()), Err),
        SessionEnv::CodexShellPolicy => {
            let config = codex::config_path(env).ok_or(settings::SettingsError::NoHome)?;
            let outcome = settings::write_change(&config, dry_run, |old| {
                Ok(session_hooks::codex_merged(old.unwrap_or(""), &dir)?)
            });
            match outcome {
                Ok(outcome) => {
                    print_settings(out, host, &config, &outcome, "git backstop environment");
                    Ok(())
                }
                Err(settings::SettingsError::Host(e)) => Err(e.to_string()),
                Err(e) => return Err(e.into()),
            }
        }
    };
    match arranged {
        Ok(()) => {
            if !dry_run {
                session_hooks::write(&dir, exe).with_context(|| format!("writing {}", dir.display()))?;
            }
            let _ = writeln!(
                out.stdout,
                "codeguard: git backstop: the agent's shell {} {} as git's core.hooksPath, so git itself judges every commit and tag before a branch moves, and every push, whatever program runs git; each repository's own hooks still run from there",
                if dry_run { "would name" } else { "names" },
                dir.display()
            );
        }
        Err(why) => {
            let _ = writeln!(
                out.stdout,
                "codeguard: WARNING: the git backstop is not arranged: {why}. The gate still checks what it can predict and denies a commit after what it cannot"
            );
        }
    }
    Ok(())
}

/// Takes the backstop's environment entries out of Codex's config (Claude's go with the hooks;
/// the hooks directory stays: another host may name it, and unnamed it is never run).
fn remove_backstop(host: Host, project: Option<&Path>, env: &Env, out: &mut Output) -> anyhow::Result<()> {
    if crate::host::spec(host).session_env != SessionEnv::CodexShellPolicy {
        return Ok(());
    }
    // The entries are user-wide: a project's uninstall leaves them to the user install.
    let user_install = settings::path(host, None, env)
        .ok()
        .and_then(|p| settings::read(&p).ok().flatten())
        .is_some_and(|t| !hosts::declared(host, &t).is_empty());
    if project.is_some() && user_install {
        return Ok(());
    }
    let Some(config) = codex::config_path(env) else { return Ok(()) };
    let outcome = settings::remove_change(&config, true, |current| {
        let text = session_hooks::codex_stripped(current);
        Ok((!text.trim().is_empty()).then_some(text))
    })?;
    print_settings(out, host, &config, &outcome, "git backstop environment");
    Ok(())
}

/// Records codeguard's Codex hooks (declared in `hooks_file`) as reviewed in the user's
/// `config.toml`, the way Codex persists a hook the user trusted; Codex skips unreviewed hooks
/// silently. Says that the install is the consent, and when a project install stays inactive
/// because Codex does not trust the project.
fn codex_trust(
    hooks_file: &Path,
    exe: &Path,
    project: Option<&Path>,
    env: &Env,
    dry_run: bool,
    out: &mut Output,
) -> anyhow::Result<()> {
    let config = codex::config_path(env).ok_or(settings::SettingsError::NoHome)?;
    let hooks_text = hosts::merged(Host::Codex, settings::read(hooks_file)?.as_deref(), exe)?;
    let records = codex::records(hooks_file, &hooks_text);
    let outcome =
        settings::write_change(&config, dry_run, |old| Ok(codex::merged(old, hooks_file, &records)))?;
    print_settings(out, Host::Codex, &config, &outcome, "hook trust");
    let mut text = format!(
        "codeguard: codex runs only hooks the user has reviewed; codeguard's {} hooks are recorded as trusted ([hooks.state] trusted_hash) because running `codeguard install --host codex` is your consent, given in place of Codex's own review. `codeguard uninstall --host codex` removes the records.\n",
        records.len()
    );
    if let Some(dir) = project {
        let trusted = settings::read(&config)?.is_some_and(|c| codex::project_trusted(&c, dir));
        if !trusted {
            let _ = writeln!(
                text,
                "codeguard: WARNING: these hooks are inactive: Codex loads nothing from {}/.codex until the project is trusted (`[projects.\"{}\"] trust_level = \"trusted\"` in {}, or accept Codex's trust prompt); or install user-wide with `codeguard install --host codex --user`.",
                dir.display(),
                dir.display(),
                config.display()
            );
        }
    }
    out.stdout.push_str(&text);
    Ok(())
}

/// A Gemini project install: trusts the folder when asked (`--trust-folder`), else says that an
/// untrusted folder's hooks stay inactive and how to fix that.
fn gemini_folder(dir: &Path, env: &Env, trust: bool, dry_run: bool, out: &mut Output) -> anyhow::Result<()> {
    if trust {
        let file = gemini::trusted_folders_path(env).ok_or(settings::SettingsError::NoHome)?;
        let outcome = settings::write_change(&file, dry_run, |old| Ok(gemini::trusted_merged(old, dir)?))?;
        print_settings(out, Host::Gemini, &file, &outcome, "trusted folders");
        if dry_run {
            return Ok(());
        }
    }
    if let gemini::FolderTrust::Untrusted(why) = gemini::folder_trust(env, dir) {
        let text = format!(
            "codeguard: WARNING: these hooks are inactive: Gemini CLI ignores the hooks of a folder it does not trust ({why}). Install user-wide with `codeguard install --host gemini --user`, or trust the folder with `codeguard install --host gemini --project {} --trust-folder`.\n",
            dir.display()
        );
        out.stdout.push_str(&text);
    }
    Ok(())
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
        let known: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
        super::UsageError(format!("unknown host `{name}` ({})", known.join(", ")))
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

fn print_settings(out: &mut Output, host: Host, path: &Path, outcome: &Outcome, what: &str) {
    let change = match outcome {
        Outcome::Written => "updated".to_owned(),
        Outcome::Unchanged => "already as it should be; nothing changed".to_owned(),
        Outcome::Restored => "restored to how it was before codeguard was installed".to_owned(),
        Outcome::Removed => "removed (it held only codeguard's entries)".to_owned(),
        Outcome::WouldChange(diff) => format!("would change (dry run, nothing written):\n{diff}"),
    };
    let _ = writeln!(out.stdout, "codeguard: {} {what} {}: {change}", host.name(), path.display());
}

fn current_dir() -> anyhow::Result<std::path::PathBuf> {
    crate::env::current_dir().context("reading the current directory")
}

fn print(out: &mut Output, dir: &Path, changes: &[Change]) {
    let _ = writeln!(out.stdout, "codeguard: git hooks in {}", dir.display());
    for change in changes {
        let place = match change.via {
            Owner::Codeguard if change.path.parent() == Some(dir) => String::new(),
            Owner::Codeguard => format!(" ({})", change.path.display()),
            via => format!(" ({}: {})", via.label(), change.path.display()),
        };
        let _ = writeln!(out.stdout, "  {}: {}{place}", change.hook.file_name(), describe(&change.action));
    }
    for note in git_hooks::notes(changes) {
        let _ = writeln!(out.stdout, "codeguard: note: {note}");
    }
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
