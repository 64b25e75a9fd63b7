//! `SessionStart`: a short summary of what codeguard checks in this project and what is missing
//! (linters not installed, languages without a config). Never blocks.

use std::fmt::Write as _;
use std::path::Path;

use crate::env::Env;
use crate::host::Answer;
use crate::project::Inventory;
use crate::surface::{self};

/// A short summary of what codeguard checks in this project; silent when no language is found.
pub(super) fn run(cwd: &Path, env: &Env) -> Answer {
    let Some((root, skip_gate)) = crate::intent::repository_at(cwd) else { return Answer::Allow };
    let listing = surface::listing(&root).unwrap_or_default();
    let Some((project, config_error)) = Inventory::or_builtin(&root, &listing) else { return Answer::Allow };
    let (registry, facts, detected) = (&project.project.registry, &project.facts, &project.detected);
    if detected.is_empty() {
        return Answer::Allow;
    }
    let mut text = format!("## codeguard\nRepository: {}\n", root.display());
    let inventory = crate::run::toolchain_inventory(registry, detected, env);
    let _ = writeln!(text, "Languages: {}", inventory.join("; "));
    let configs: Vec<&str> = registry
        .languages()
        .iter()
        .flat_map(|l| &l.linter_config_files)
        .filter(|f| facts.names.contains(*f))
        .map(String::as_str)
        .collect();
    if !configs.is_empty() {
        let _ = writeln!(text, "Linter configs: {}", dedup(configs).join(", "));
    }
    text.push_str("Every git commit and push is checked before it runs (linters on the exact content, plus a secret and artifact scan). Keep fixes and git commands in separate Bash calls: a blocked call runs none of its steps.\n");
    if let Some(e) = &config_error {
        let _ = writeln!(text, "Warning: {e} — checks of this repository are UNVERIFIED until it is fixed.");
    } else {
        let config = &project.project.config;
        let own: Vec<&str> = config.overridden_languages().collect();
        let repo_code = crate::lint::repo_code_linters(registry, detected);
        if (!own.is_empty() || !repo_code.is_empty()) && !crate::trust::is_trusted(env, &root, config) {
            if !own.is_empty() {
                let _ = writeln!(
                    text,
                    "Workspace untrusted: codeguard.json defines its own commands for {}; they do not run (those checks are UNVERIFIED) until a person runs: {}",
                    own.join(", "),
                    crate::trust::hint(&root)
                );
            }
            if !repo_code.is_empty() {
                let _ = writeln!(
                    text,
                    "Workspace untrusted: the linters of {} execute this repository's own code, so they do not run (those checks are UNVERIFIED) until a person runs: {}",
                    repo_code.join(", "),
                    crate::trust::hint(&root)
                );
            }
        }
    }
    if skip_gate {
        text.push_str("Warning: codeguard.skipGate is set in this repository, so linters are skipped at commit (the safety scan still runs). Remove it with `git config --unset codeguard.skipGate`.\n");
    }
    Answer::context(text)
}

fn dedup(mut items: Vec<&str>) -> Vec<&str> {
    let mut seen = std::collections::BTreeSet::new();
    items.retain(|i| seen.insert(*i));
    items
}
