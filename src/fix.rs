//! Fix planning (pure): which formatter runs on which files, and why every other language is
//! left alone.
//!
//! In: the same [`PlanInput`] the lint plan takes — the registry with project overrides, the
//! project's files, the files selected for fixing (already vetted by the caller: regular files
//! inside the project, never reached through a link), root facts, the whole-tree flag and the
//! language filter.
//! Out: a [`FixPlan`] — per language, the registry's `format` command scoped to exactly the
//! selected files of that language, or a skip with its status and reason.
//! Never: runs a command or touches a file. Whether a file changed is proven afterwards by the
//! caller from content identities, never inferred from a formatter's exit code.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::plan::{PlanInput, UnknownLanguage, scoped, with_default_config};
use crate::registry::{Argv, DetectedLanguage, Language, detect_project};
use crate::verdict::Status;

/// The fix plan for one run.
#[derive(Debug, Clone, Serialize)]
pub struct FixPlan {
    /// One entry per detected language, in registry order.
    pub entries: Vec<FixEntry>,
}

/// The plan for one language.
#[derive(Debug, Clone, Serialize)]
pub struct FixEntry {
    /// Registry id.
    pub language: String,
    /// Display name.
    pub name: String,
    /// What happens.
    pub action: FixAction,
}

/// Run the formatter, or leave the language alone.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FixAction {
    /// Run the formatter.
    Run(FixJob),
    /// Do not run it.
    Skip {
        /// SKIPPED (nothing to do, not integrated, needs `--all`, no formatter).
        status: Status,
        /// Why.
        reason: String,
    },
}

/// A formatter run for one language.
#[derive(Debug, Clone, Serialize)]
pub struct FixJob {
    /// The program the invocations run (for the availability check).
    pub program: String,
    /// Concrete argv lists, run one after another in the project root.
    pub invocations: Vec<Argv>,
    /// The files handed to the formatter (empty for a project-level formatter, which rewrites
    /// whatever it decides to: it runs only for a whole-project fix).
    pub files: Vec<String>,
    /// Whether the formatter is project-level (`append_files: false`).
    pub project_level: bool,
    /// Explicit availability check from the registry.
    pub probe: Option<Argv>,
    /// How to install the tool.
    pub install_hint: String,
}

/// Builds the fix plan. Unknown ids in the language filter are an error (a usage problem).
pub fn build(input: &PlanInput<'_>) -> Result<FixPlan, UnknownLanguage> {
    if let Some(unknown) = input.only.iter().find(|id| input.registry.get(id).is_none()) {
        return Err(UnknownLanguage(unknown.clone()));
    }
    let detected = detect_project(input.registry, input.project_files, &input.facts.names);
    let selected: BTreeSet<&str> = input.selected.iter().map(String::as_str).collect();
    let entries = detected
        .iter()
        .filter(|d| input.only.is_empty() || input.only.contains(&d.id))
        .filter_map(|d| input.registry.get(&d.id).map(|lang| (lang, d)))
        .map(|(lang, d)| FixEntry {
            language: lang.id.clone(),
            name: lang.name.clone(),
            action: plan_language(input, lang, d, &selected),
        })
        .collect();
    Ok(FixPlan { entries })
}

fn plan_language(
    input: &PlanInput<'_>,
    lang: &Language,
    detected: &DetectedLanguage,
    selected: &BTreeSet<&str>,
) -> FixAction {
    let skip = |reason: String| FixAction::Skip { status: Status::Skipped, reason };
    let files: Vec<String> =
        detected.files.iter().filter(|f| selected.contains(f.as_str())).cloned().collect();
    let project_level = lang.is_project_level();
    if files.is_empty() && !(input.whole_tree && project_level) {
        let reason =
            if input.whole_tree { "no files of this language" } else { "no changed files of this language" };
        return skip(reason.into());
    }
    let Some(format) = &lang.format else {
        return skip("no formatter in the registry for this language".into());
    };
    if let Some(required) = lang.requires_config.as_ref().filter(|r| !input.facts.has_any(r)) {
        return skip(format!("not integrated: none of {} found at the project root", required.join(", ")));
    }
    if project_level && !input.whole_tree {
        return skip(format!(
            "project-level formatter `{}` rewrites the whole project, so it runs only with --all",
            format.join(" ")
        ));
    }
    let invocations = if project_level { vec![format.clone()] } else { scoped(format, &files) };
    FixAction::Run(FixJob {
        program: format.first().cloned().unwrap_or_default(),
        invocations: invocations.into_iter().map(|argv| with_default_config(argv, input.facts)).collect(),
        files: if project_level { Vec::new() } else { files },
        project_level,
        probe: lang.probe.clone(),
        install_hint: lang.install_hint.clone(),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::plan::RootFacts;
    use crate::registry::Registry;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn plan(files: &[&str], selected: &[&str], whole_tree: bool, names: &[&str]) -> FixPlan {
        let registry = Registry::builtin().expect("registry");
        let facts =
            RootFacts { names: names.iter().map(|s| (*s).to_owned()).collect(), ..RootFacts::default() };
        let (files, selected) = (strings(files), strings(selected));
        let input = PlanInput {
            registry: &registry,
            root: PathBuf::from("/r"),
            project_files: &files,
            selected: &selected,
            whole_tree,
            facts: &facts,
            only: &[],
        };
        build(&input).expect("plan")
    }

    fn action<'p>(plan: &'p FixPlan, id: &str) -> &'p FixAction {
        &plan.entries.iter().find(|e| e.language == id).expect("entry").action
    }

    #[test]
    fn formatters_get_exactly_the_selected_files() {
        let p = plan(&["a.py", "b.py", "run.sh"], &["b.py"], false, &[]);
        let FixAction::Run(py) = action(&p, "python") else { panic!("python runs") };
        assert_eq!(py.files, ["b.py"]);
        assert_eq!(py.invocations.len(), 1);
        let argv = &py.invocations[0];
        assert_eq!(&argv[..3], ["ruff", "check", "--config"], "same pinned rules as the lint: {argv:?}");
        assert_eq!(argv.last().map(String::as_str), Some("b.py"));
        assert!(!argv.iter().any(|a| a == "a.py" || a == "."), "{argv:?}");
        let FixAction::Skip { reason, .. } = action(&p, "shell") else { panic!("shell unchanged") };
        assert_eq!(reason, "no changed files of this language");
    }

    #[test]
    fn project_level_formatters_run_only_for_the_whole_project() {
        let partial = plan(&["src/main.rs"], &["src/main.rs"], false, &["Cargo.toml"]);
        let FixAction::Skip { status, reason } = action(&partial, "rust") else { panic!("not run") };
        assert_eq!(*status, Status::Skipped);
        assert!(reason.contains("cargo fmt") && reason.contains("--all"), "{reason}");
        let whole = plan(&["src/main.rs"], &["src/main.rs"], true, &["Cargo.toml"]);
        let FixAction::Run(rust) = action(&whole, "rust") else { panic!("runs with --all") };
        assert_eq!(rust.invocations, [strings(&["cargo", "fmt"])]);
        assert!(rust.files.is_empty() && rust.project_level);
    }

    #[test]
    fn languages_without_formatter_or_integration_are_skipped_with_reasons() {
        let p = plan(&["x.yml", "a.ts"], &["x.yml", "a.ts"], false, &[".yamllint"]);
        let FixAction::Skip { reason, .. } = action(&p, "yaml") else { panic!("no formatter") };
        assert!(reason.starts_with("no formatter"), "{reason}");
        let FixAction::Skip { reason, .. } = action(&p, "typescript") else { panic!("no eslint config") };
        assert!(reason.starts_with("not integrated"), "{reason}");
    }
}
