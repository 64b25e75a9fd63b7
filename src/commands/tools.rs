//! `codeguard tools install|list|update|remove`: the managed tools of languages or of a project
//! (`crate::tools`); installing them, and the provisioning `check` and `install` ask for, is
//! `crate::tools::provision`.
//!
//! In: languages (`--lang`) or a project (`--detected`). Out: one progress line per tool on
//! stderr, a listing on stdout; exit 0, 1 when an install failed, 2 on usage errors.
//! Never: called by a hook (hooks never install), or installs a system toolchain.

use std::fmt::Write as _;

use anyhow::Context;
use serde::Serialize;

use super::UsageError;
use crate::cli::{Format, ToolsAction, ToolsArgs};
use crate::env::Env;
use crate::outcome::Status;
use crate::output::Output;
use crate::registry::{ManagedTool, Registry};
use crate::tools::provision::{provision, select};
use crate::tools::{self};

/// Runs `codeguard tools …`.
pub(super) fn run(args: &ToolsArgs, env: &Env) -> anyhow::Result<Output> {
    Output::gather(|out| run_into(args, env, out))
}

fn run_into(args: &ToolsArgs, env: &Env, out: &mut Output) -> anyhow::Result<u8> {
    let registry = Registry::builtin()?;
    match &args.action {
        ToolsAction::Install { lang, detected, path } => {
            if lang.is_empty() && !detected {
                return Err(UsageError(
                    "tools install needs --lang a,b (those languages' tools) or --detected (the project's)"
                        .into(),
                )
                .into());
            }
            let ids = if *detected {
                super::inventory(path.as_deref())?.integrated().map(|l| l.id.clone()).collect()
            } else {
                lang.clone()
            };
            let (chosen, notes) = select(&registry, &ids).map_err(UsageError)?;
            for note in notes {
                let _ = writeln!(out.stderr, "codeguard: {note}");
            }
            if chosen.is_empty() {
                let _ = writeln!(out.stderr, "codeguard: no managed tools to install");
                return Ok(done(true));
            }
            crate::output::flush(out);
            Ok(done(provision(&chosen, env)))
        }
        ToolsAction::List { lang, format } => {
            let chosen = if lang.is_empty() {
                registry.managed_tools().iter().collect()
            } else {
                select(&registry, lang).map_err(UsageError)?.0
            };
            let listing = listing(&registry, &chosen, env);
            let text = match format {
                Format::Json => serde_json::to_string_pretty(&listing)? + "\n",
                Format::Human | Format::Sarif => human(&listing),
            };
            out.stdout.push_str(&text);
            Ok(done(true))
        }
        ToolsAction::Update => Ok(update(&registry, env, out)),
        ToolsAction::Remove { lang } => {
            let chosen = if lang.is_empty() {
                registry.managed_tools().iter().collect()
            } else {
                select(&registry, lang).map_err(UsageError)?.0
            };
            let mut removed = 0;
            for tool in chosen {
                let paths = tools::remove(env, tool).with_context(|| format!("removing {}", tool.name))?;
                for path in paths {
                    let _ = writeln!(out.stderr, "codeguard: removed {}", path.display());
                    removed += 1;
                }
            }
            if removed == 0 {
                let _ = writeln!(out.stderr, "codeguard: nothing to remove");
            }
            Ok(done(true))
        }
    }
}

/// `tools update`: every tool with an installed version gets the pinned one; older versions go.
fn update(registry: &Registry, env: &Env, out: &mut Output) -> u8 {
    let mut ok = true;
    let mut any = false;
    for tool in registry.managed_tools() {
        let stale = tools::stale_versions(env, tool);
        if stale.is_empty() && !tools::is_installed(env, tool) {
            continue;
        }
        any = true;
        crate::output::flush(out);
        if !provision(&[tool], env) {
            ok = false;
            continue;
        }
        for path in stale {
            match tools::remove_install(&path) {
                Ok(()) => {
                    let _ = writeln!(out.stderr, "codeguard: removed {}", path.display());
                }
                Err(e) => {
                    let _ = writeln!(out.stderr, "codeguard: cannot remove {}: {e}", path.display());
                    ok = false;
                }
            }
        }
    }
    if !any {
        let _ = writeln!(out.stderr, "codeguard: no managed tools installed; nothing to update");
    }
    done(ok)
}

/// `tools list` as data.
#[derive(Debug, Serialize)]
struct Listing {
    /// Always `1`.
    schema_version: &'static str,
    /// Where managed tools live.
    dir: std::path::PathBuf,
    /// One entry per tool, in registry order.
    tools: Vec<ListedTool>,
}

#[derive(Debug, Serialize)]
struct ListedTool {
    name: String,
    version: String,
    /// `pypi` or `npm`.
    registry: &'static str,
    /// The pinned requirement (`ruff==0.17.6`).
    requirement: String,
    /// The languages whose commands run it.
    languages: Vec<String>,
    /// Installed, complete and verified.
    ready: bool,
    /// Where it is (or would be) installed.
    path: std::path::PathBuf,
    /// Installed versions other than the pinned one (`tools update` removes them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stale: Vec<std::path::PathBuf>,
}

fn listing(registry: &Registry, chosen: &[&ManagedTool], env: &Env) -> Listing {
    let tools = chosen
        .iter()
        .map(|tool| ListedTool {
            name: tool.name.clone(),
            version: tool.version.clone(),
            registry: match tool.source() {
                crate::registry::ToolSource::Pypi(_) => "pypi",
                crate::registry::ToolSource::Npm(_) => "npm",
            },
            requirement: tool.requirement(),
            languages: registry
                .languages()
                .iter()
                .filter(|l| {
                    l.status.is_active() && registry.managed_tools_of(l).iter().any(|t| t.name == tool.name)
                })
                .map(|l| l.id.clone())
                .collect(),
            ready: tools::is_installed(env, tool),
            path: tools::install_dir(env, tool),
            stale: tools::stale_versions(env, tool),
        })
        .collect();
    Listing { schema_version: crate::report::SCHEMA_VERSION, dir: tools::dir(env), tools }
}

fn human(listing: &Listing) -> String {
    let mut out = format!("codeguard tools: {}\n", listing.dir.display());
    for tool in &listing.tools {
        let state = if tool.ready { "ready" } else { "missing" };
        let _ = write!(
            out,
            "  {:<18} {:<10} {:<5} {:<32} {:<8}",
            tool.name, tool.version, tool.registry, tool.requirement, state
        );
        if tool.ready {
            let _ = write!(out, " {}", tool.path.display());
        } else if let Some(lang) = tool.languages.first() {
            let _ = write!(out, " (codeguard tools install --lang {lang})");
        }
        out.push('\n');
        for stale in &tool.stale {
            let _ =
                writeln!(out, "      older version: {} (codeguard tools update removes it)", stale.display());
        }
    }
    out
}

/// The exit code of a `tools` action: whether everything asked for was done.
fn done(ok: bool) -> u8 {
    crate::exit::EntryPoint::Tools.status_code(if ok { Status::Pass } else { Status::Fail })
}
