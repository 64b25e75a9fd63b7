//! Fix planning (pure): which formatter runs on which files, and why every other language is
//! left alone.
//!
//! In: the same [`PlanInput`] the lint plan takes — the registry with project overrides, the
//! project's files, the files selected for fixing (already vetted by the caller: regular files
//! inside the project, never reached through a link), root facts, the whole-tree flag and the
//! language filter.
//! Out: a [`FixPlan`] — per language, the registry's `format` command scoped to exactly the
//! selected files of that language, or a skip with its status and reason.
//! Adoption: a formatter whose registry entry names `format_adopted_by` files is the project's
//! only when one of them is at the root ([`unadopted`] says which are missing); otherwise the
//! caller keeps, per file, only those whose `HEAD` version the formatter leaves as it is (or
//! that are new), and [`narrow`]s the job to them.
//! Never: runs a command or touches a file. Whether a file changed is proven afterwards by the
//! caller from content identities, never inferred from a formatter's exit code.

use crate::files::RootFacts;
use crate::outcome::Status;
use crate::plan::{
    Action, Candidate, Job, Plan, PlanInput, UnknownLanguage, nothing_to_do, plan_each, scoped,
    with_default_config,
};
use crate::registry::Language;

/// The fix plan for one run: one entry per detected language, in registry order, in the lint
/// plan's shape — a [`Job`] whose invocations are the scoped formatter (its `files` empty for a
/// project-level formatter), or a skip with its status and reason.
pub(crate) type FixPlan = Plan<Action>;

/// Builds the fix plan. Unknown ids in the language filter are an error (a usage problem).
pub(crate) fn build(input: &PlanInput<'_>) -> Result<FixPlan, UnknownLanguage> {
    plan_each(input, plan_language)
}

fn plan_language(input: &PlanInput<'_>, candidate: &Candidate<'_>) -> Action {
    let skip = |reason: String| Action::Skip { status: Status::Skipped, reason };
    if let Some(reason) = nothing_to_do(input, candidate) {
        return skip(reason);
    }
    let (lang, files) = (candidate.lang, &candidate.files);
    let Some(format) = &lang.format else {
        return skip("no formatter in the registry for this language".into());
    };
    let project_level = lang.is_project_level();
    if project_level && !input.whole_tree {
        return skip(format!(
            "project-level formatter `{}` rewrites the whole project, so it runs only with --all",
            format.join(" ")
        ));
    }
    let invocations = if project_level { vec![format.clone()] } else { scoped(format, files) };
    Action::Run(Job {
        program: format.first().cloned().unwrap_or_default(),
        invocations: invocations.into_iter().map(|argv| with_default_config(argv, input.facts)).collect(),
        cwd: input.root.clone(),
        files: if project_level { Vec::new() } else { files.clone() },
        probe: lang.probe.clone(),
        install_hint: lang.install_advice(input.registry),
        fix: None,
        fixes: None,
        advisory: false,
        runs_repo_code: Job::runs_repo_code(lang, crate::registry::CommandField::Format),
        managed: false,
        behaviour: Box::new(lang.verdict.clone()),
        format: lang.findings_format,
    })
}

/// Root files whose text names the tools a project runs in its CI or its hooks: a formatter named
/// there is adopted (the project runs it itself), whatever config files it has.
pub(crate) const RUNS_TOOLS_IN: &[&str] = &[
    ".pre-commit-config.yaml",
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Justfile",
    ".gitlab-ci.yml",
    "package.json",
    ".github/workflows/*",
];

/// Why the project has not adopted `lang`'s formatter (the config files and settings that would
/// have said it did), or `None` when it has: the registry names no adoption rule, one of its
/// `format_adopted_by` files is at the root, a `format_adopted_when` file holds the settings it
/// names, or the formatter's program is named in a CI or hook file ([`RUNS_TOOLS_IN`]).
/// `text` reads a root-relative file (globs in [`RUNS_TOOLS_IN`] are expanded by the caller).
pub(crate) fn unadopted(
    lang: &Language,
    facts: &RootFacts,
    text: &dyn Fn(&str) -> Vec<String>,
) -> Option<String> {
    let names = lang.format_adopted_by.as_deref()?;
    if facts.has_any(names) {
        return None;
    }
    for when in &lang.format_adopted_when {
        if text(&when.file).iter().any(|t| when.contains.is_match(t)) {
            return None;
        }
    }
    let program = lang.format.as_ref().and_then(|f| crate::registry::command_tool(f))?;
    let word = regex::Regex::new(&format!(r"(^|[^\w-]){}([^\w-]|$)", regex::escape(program))).ok()?;
    if RUNS_TOOLS_IN.iter().flat_map(|file| text(file)).any(|t| word.is_match(&t)) {
        return None;
    }
    let mut says: Vec<String> = names.to_vec();
    says.extend(lang.format_adopted_when.iter().map(|w| format!("its settings in {}", w.file)));
    says.push(format!("`{program}` in CI or hooks"));
    Some(format!("none of {} found", says.join(", ")))
}

/// Narrows a formatter job to `files` (a subset of its own), scoping its command anew.
pub(crate) fn narrow(job: &mut Job, lang: &Language, files: Vec<String>, facts: &RootFacts) {
    let Some(format) = &lang.format else { return };
    job.invocations =
        scoped(format, &files).into_iter().map(|argv| with_default_config(argv, facts)).collect();
    job.files = files;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::with_input;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn plan(files: &[&str], selected: &[&str], whole_tree: bool, names: &[&str]) -> FixPlan {
        with_input(files, selected, whole_tree, names, &[], |input| build(input).expect("plan"))
    }

    fn action<'p>(plan: &'p FixPlan, id: &str) -> &'p Action {
        &plan.entries.iter().find(|e| e.language == id).expect("entry").action
    }

    #[test]
    fn a_formatter_is_adopted_by_its_settings_or_its_use_in_ci_and_not_by_an_editorconfig() {
        let registry = crate::registry::Registry::builtin().expect("registry");
        let shell = registry.get("shell").expect("shell");
        let none = RootFacts::default();
        let files = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().filter(|(n, _)| *n == name).map(|(_, t)| (*t).to_owned()).collect()
        };
        let editorconfig_only = files(&[(".editorconfig", "root = true\n[*]\nindent_style = tab\n")]);
        let why = unadopted(shell, &none, &editorconfig_only).expect("an .editorconfig alone adopts nothing");
        assert!(why.contains(".editorconfig") && why.contains("`shfmt` in CI"), "{why}");
        let shfmt_keys = files(&[(".editorconfig", "[*.sh]\nswitch_case_indent = true\n")]);
        assert_eq!(unadopted(shell, &none, &shfmt_keys), None, "shfmt's own settings adopt it");
        let ci = files(&[(".github/workflows/*", "steps:\n  - run: shfmt -d .\n")]);
        assert_eq!(unadopted(shell, &none, &ci), None, "a CI step running it adopts it");
        let other = files(&[("Makefile", "lint:\n\tshfmtx -d .\n")]);
        assert!(unadopted(shell, &none, &other).is_some(), "a word, not a substring");
        assert_eq!(
            unadopted(registry.get("python").expect("python"), &none, &editorconfig_only),
            None,
            "ruff's fixer needs no adoption"
        );
    }

    #[test]
    fn formatters_get_exactly_the_selected_files() {
        let p = plan(&["a.py", "b.py", "run.sh"], &["b.py"], false, &[]);
        let Action::Run(py) = action(&p, "python") else { panic!("python runs") };
        assert_eq!(py.files, ["b.py"]);
        assert_eq!(py.invocations.len(), 1);
        let argv = &py.invocations[0];
        assert_eq!(&argv[..3], ["ruff", "check", "--config"], "same pinned rules as the lint: {argv:?}");
        assert_eq!(argv.last().map(String::as_str), Some("b.py"));
        assert!(!argv.iter().any(|a| a == "a.py" || a == "."), "{argv:?}");
        let Action::Skip { reason, .. } = action(&p, "shell") else { panic!("shell unchanged") };
        assert_eq!(reason, "no changed files of this language");
    }

    #[test]
    fn project_level_formatters_run_only_for_the_whole_project() {
        let partial = plan(&["src/main.rs"], &["src/main.rs"], false, &["Cargo.toml"]);
        let Action::Skip { status, reason } = action(&partial, "rust") else { panic!("not run") };
        assert_eq!(*status, Status::Skipped);
        assert!(reason.contains("cargo fmt") && reason.contains("--all"), "{reason}");
        let whole = plan(&["src/main.rs"], &["src/main.rs"], true, &["Cargo.toml"]);
        let Action::Run(rust) = action(&whole, "rust") else { panic!("runs with --all") };
        assert_eq!(rust.invocations, [strings(&["cargo", "fmt"])]);
        assert!(rust.files.is_empty(), "a project-level formatter gets no paths");
    }

    #[test]
    fn languages_without_formatter_or_integration_are_skipped_with_reasons() {
        let p = plan(&["x.yml", "a.ts"], &["x.yml", "a.ts"], false, &[".yamllint"]);
        let Action::Skip { reason, .. } = action(&p, "yaml") else { panic!("no formatter") };
        assert!(reason.starts_with("no formatter"), "{reason}");
        let Action::Skip { reason, .. } = action(&p, "typescript") else { panic!("no eslint config") };
        assert!(reason.starts_with("not integrated"), "{reason}");
    }

    /// For every language of the registry, a file named like an option reaches its lint, its
    /// formatter and its "how to fix" hint only as `./<name>`, never as a bare `-…` argument.
    #[test]
    fn paths_are_never_handed_over_as_options_for_any_language() {
        let registry = crate::registry::Registry::builtin().expect("registry");
        let mut checked = 0;
        for lang in registry.languages().iter().filter(|l| l.status.is_active() && !l.is_project_level()) {
            let ext = lang.extensions.first().cloned().unwrap_or_default();
            let names = [
                format!("-x{ext}"),
                format!("--stdin-filename=z{ext}"),
                format!("--help{ext}"),
                format!("@args{ext}"),
                format!("+x{ext}"),
            ];
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let only = [lang.id.as_str()];
            for whole_tree in [false, true] {
                let lint = with_input(&names, &names, whole_tree, &[], &only, |input| {
                    crate::plan::build(input).expect("plan")
                });
                let fixes = with_input(&names, &names, whole_tree, &[], &only, |input| {
                    build(input).expect("fix plan")
                });
                for entry in lint.entries.iter().chain(&fixes.entries) {
                    let Action::Run(job) = &entry.action else { continue };
                    for argv in job.invocations.iter().chain(job.fix.as_ref()) {
                        for name in &names {
                            assert!(
                                !argv.iter().any(|a| a == name || a.starts_with(&format!("{name} "))),
                                "{}: {name} handed over as an option: {argv:?}",
                                lang.id
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 40, "every file-taking language was planned ({checked} commands)");
        let p = with_input(&["-x.py"], &["-x.py"], false, &[], &["python"], |input| {
            crate::plan::build(input).expect("plan")
        });
        let Some(Action::Run(py)) = p.entries.iter().find(|e| e.language == "python").map(|e| &e.action)
        else {
            panic!("python runs")
        };
        assert_eq!(py.invocations[0].last().map(String::as_str), Some("./-x.py"));
        assert_eq!(py.files, ["-x.py"], "reports keep the real path");
    }
}
