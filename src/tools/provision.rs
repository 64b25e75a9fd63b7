//! Provisioning: installing the managed tools a set of languages, or a project, needs — with
//! one progress line per tool on stderr (downloads take a while). Asked by `tools install` and by
//! the entry points that provision before they run (`check` on a terminal, `install`).

use std::fmt::Write as _;
use std::path::Path;

use super::Installed;
use crate::env::Env;
use crate::registry::{ManagedTool, Registry};
use crate::tools;

/// The managed tools of the languages `ids` (each once), and a note for each language whose
/// tools come from the system; an unknown id is an error.
/// The managed tools of the languages `ids`, without repeats, and a note for each language
/// codeguard manages no tool of. An unknown id is a usage error.
pub(crate) fn select<'r>(
    registry: &'r Registry,
    ids: &[String],
) -> Result<(Vec<&'r ManagedTool>, Vec<String>), String> {
    let mut chosen: Vec<&ManagedTool> = Vec::new();
    let mut notes = Vec::new();
    for id in ids {
        let lang =
            registry.get(id).ok_or_else(|| format!("unknown language `{id}` (see `codeguard languages`)"))?;
        let managed = registry.managed_tools_of(lang);
        if managed.is_empty() {
            let how =
                if lang.install_hint.is_empty() { String::new() } else { format!(": {}", lang.install_hint) };
            notes.push(format!("{id}: no managed tool (its tools come from the system{how})"));
        }
        for tool in managed {
            if !chosen.iter().any(|t| t.name == tool.name) {
                chosen.push(tool);
            }
        }
    }
    Ok((chosen, notes))
}

/// Installs `chosen`, one progress line each on stderr at once (downloads take a while); false when any install failed (each
/// failure is one line, and leaves nothing behind).
pub(crate) fn provision(chosen: &[&ManagedTool], env: &Env) -> bool {
    let mut ok = true;
    let mut err = String::new();
    let say = |err: &mut String| crate::output::progress(&std::mem::take(err));
    for tool in chosen {
        let place = tools::install_dir(env, tool);
        if tools::is_installed(env, tool) {
            let _ = writeln!(
                err,
                "codeguard: {} {} already installed ({})",
                tool.name,
                tool.version,
                place.display()
            );
            say(&mut err);
            continue;
        }
        let _ = writeln!(
            err,
            "codeguard: installing {} {} from {} into {} …",
            tool.name,
            tool.version,
            tools::registry_name(tool),
            place.display()
        );
        say(&mut err);
        match tools::install(env, tool) {
            Ok(Installed::New) => {
                let _ = writeln!(err, "codeguard: installed {} {}", tool.name, tool.version);
                say(&mut err);
            }
            Ok(Installed::Already) => {
                let _ = writeln!(
                    err,
                    "codeguard: {} {} already installed (by another process)",
                    tool.name, tool.version
                );
                say(&mut err);
            }
            Err(e) => {
                let _ = writeln!(err, "codeguard: {e}");
                say(&mut err);
                ok = false;
            }
        }
    }
    ok
}

/// Installs the managed tools the project at `root` needs and has nowhere: the tools of its
/// detected languages (only those in `only`, when given) that are neither installed by codeguard
/// nor on `PATH`. Nothing to do costs one detection; failures are reported and do not stop the
/// caller. Returns whether every install succeeded.
pub(crate) fn provision_missing(root: &Path, only: &[String], env: &Env) -> bool {
    let Ok(registry) = Registry::builtin() else { return false };
    let Ok(listing) = crate::surface::listing(root) else { return true };
    let Ok(inventory) = crate::project::Inventory::of(root, &listing) else { return true };
    let mut ids: Vec<String> = inventory.integrated().map(|l| l.id.clone()).collect();
    if !only.is_empty() {
        ids.retain(|id| only.contains(id));
    }
    let Ok((chosen, _)) = select(&registry, &ids) else { return true };
    let missing: Vec<&ManagedTool> = chosen
        .into_iter()
        .filter(|t| !tools::is_installed(env, t) && t.bins.iter().all(|b| env.which(b).is_none()))
        .collect();
    missing.is_empty() || provision(&missing, env)
}
