//! Planning (pure): which linter runs on which files, and why each other language is skipped.
//!
//! In: the registry (with project overrides), the files in scope, facts about the project root.
//! Out: a [`Plan`] — one entry per language, either a [`Job`] with concrete argv lists or a
//! skip with its status and reason. Serialisable, deterministic, no I/O.
//!
//! File paths are never read as options: a path that starts with `-` is handed to a command as
//! `./<path>` (the same file), whatever the tool. A job whose commands the registry marks
//! `runs_repo_code` says so, so the caller can withhold it in an untrusted workspace.

pub(crate) mod fix;
pub(crate) mod setup;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Serialize;

use crate::files::RootFacts;
use crate::outcome::Status;
use crate::registry::{Argv, CommandField, FormatFixes, Language, Registry, detect_with_interpreters};

/// Upper bound on the bytes of file arguments in one invocation (well below `ARG_MAX`).
const MAX_ARG_BYTES: usize = 96 * 1024;

/// Ruff's rule selection when a project has no ruff configuration, pinned so results do not
/// change with ruff's own defaults.
/// Only rules that find bugs: syntax and I/O errors (E9), unused or broken imports (F401, F402,
/// F404, F406, F407), malformed format strings (F50, F52), repeated dict keys (F60), broken
/// star assignments (F62), comparisons and asserts that are always true or false (F63),
/// statements outside their context (F7), redefinitions, undefined names and unused variables
/// (F811, F82, F841), `raise NotImplemented` (F901). Style rules (E4, E7, F541, …) are the
/// project's to choose in its own ruff configuration.
const RUFF_DEFAULT_SELECT: &str = r#"lint.select = ["E9", "F401", "F402", "F404", "F406", "F407", "F50", "F52", "F60", "F62", "F63", "F7", "F811", "F82", "F841", "F901"]"#;

/// What is being checked.
#[derive(Debug, Clone)]
pub(crate) struct PlanInput<'a> {
    /// The registry with project overrides applied.
    pub registry: &'a Registry,
    /// The directory linters run in (the project root or a snapshot of it).
    pub root: PathBuf,
    /// Every file of the project in lint scope (used for detection).
    pub project_files: &'a [String],
    /// The files to lint (equal to `project_files` for a whole-tree check).
    pub selected: &'a [String],
    /// Whether this is a whole-tree check (project-level gates run even without changes).
    pub whole_tree: bool,
    /// Facts about the root.
    pub facts: &'a RootFacts,
    /// Only these languages (empty = all).
    pub only: &'a [String],
    /// Linters that may run at once: a long file list is split into this many invocations
    /// (they run in parallel), so one slow single-threaded linter does not hold up the run.
    pub parallelism: usize,
}

/// The plan for one run (of linters; the fix plan uses the same shape with its own actions).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Plan<A = Action> {
    /// One entry per language, in registry order.
    pub entries: Vec<Entry<A>>,
}

/// The plan for one language.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Entry<A = Action> {
    /// Registry id.
    pub language: String,
    /// Display name.
    pub name: String,
    /// What happens.
    pub action: A,
}

/// Run a job, or skip with a status and reason.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Action {
    /// Run the linter.
    Run(Job),
    /// Do not run it.
    Skip {
        /// SKIPPED, PLANNED or UNVERIFIED.
        status: Status,
        /// Why.
        reason: String,
    },
}

/// A linter run for one language.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Job {
    /// The program the invocations run (for probing and verdicts).
    pub program: String,
    /// Concrete argv lists: independent parts of one file list (the run may start them at once).
    pub invocations: Vec<Argv>,
    /// Where they run.
    pub cwd: PathBuf,
    /// The files checked (empty for project-level commands).
    pub files: Vec<String>,
    /// Explicit availability check from the registry.
    pub probe: Option<Argv>,
    /// How to install the tool.
    pub install_hint: String,
    /// The formatter, scoped to the files, for "how to fix" advice.
    pub fix: Option<Argv>,
    /// Which findings that formatter resolves (absent: any); the advice is kept only when it
    /// resolves at least one of the findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixes: Option<FormatFixes>,
    /// Failures are reported but never block.
    pub advisory: bool,
    /// The job's commands (or its probe) can execute repository content: it runs only in a
    /// trusted workspace.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub runs_repo_code: bool,
    /// The program is codeguard's managed copy of the tool (`crate::tools::resolve`), not the
    /// one on `PATH`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub managed: bool,
    /// What the tool's endings mean (its registry `verdict`).
    #[serde(skip)]
    pub behaviour: Box<crate::registry::Behaviour>,
    /// How its output names findings, when it does.
    #[serde(skip)]
    pub format: Option<crate::findings::Format>,
}

impl Job {
    /// Whether a job running `used` (and the language's probe, when it has one) of `lang` can
    /// execute repository content.
    pub(crate) fn runs_repo_code(lang: &Language, used: CommandField) -> bool {
        lang.runs_repo_code(used) || (lang.probe.is_some() && lang.runs_repo_code(CommandField::Probe))
    }
}

impl Plan {
    /// The same plan run in `root` instead: every job's working directory (a plan names files
    /// relative to the content, so a copy of the same content needs no planning again).
    pub(crate) fn relocate(&mut self, root: &std::path::Path) {
        for entry in &mut self.entries {
            if let Action::Run(job) = &mut entry.action {
                root.clone_into(&mut job.cwd);
            }
        }
    }

    /// Whether any entry would run a job that can execute repository content.
    pub(crate) fn runs_repo_code(&self) -> bool {
        self.entries.iter().any(|e| matches!(&e.action, Action::Run(job) if job.runs_repo_code))
    }

    /// Withholds the runs of `languages`: each entry of theirs that would run becomes UNVERIFIED
    /// with `reason` (used for a repository's own commands in an untrusted workspace). Entries
    /// that would not run anyway keep their skip.
    pub(crate) fn withhold(&mut self, languages: &BTreeSet<String>, reason: &str) {
        for entry in self.entries.iter_mut().filter(|e| languages.contains(&e.language)) {
            if matches!(entry.action, Action::Run(_)) {
                entry.action = Action::Skip { status: Status::Unverified, reason: reason.to_owned() };
            }
        }
    }

    /// Withholds every job that can execute repository content: each becomes UNVERIFIED with a
    /// reason naming its program, followed by `hint` (used in an untrusted workspace).
    pub(crate) fn withhold_repo_code(&mut self, hint: &str) {
        for entry in &mut self.entries {
            let Action::Run(job) = &entry.action else { continue };
            if !job.runs_repo_code {
                continue;
            }
            let reason = format!(
                "not run: `{}` can execute this repository's own code and the workspace is not trusted; {hint}",
                job.program
            );
            entry.action = Action::Skip { status: Status::Unverified, reason };
        }
    }
}

/// An unknown language id in `--lang`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language `{0}` (see `codeguard languages`)")]
pub(crate) struct UnknownLanguage(pub String);

/// A detected language that passes the language filter, with its selected files.
pub(crate) struct Candidate<'a> {
    /// The registry entry.
    pub lang: &'a Language,
    /// The selected files of this language, sorted.
    pub files: Vec<String>,
}

/// The detected languages of a run that pass the language filter, in registry order, with their
/// selected files (shared by the lint plan and the fix plan).
pub(crate) fn candidates<'a>(input: &PlanInput<'a>) -> Result<Vec<Candidate<'a>>, UnknownLanguage> {
    if let Some(unknown) = input.only.iter().find(|id| input.registry.get(id).is_none()) {
        return Err(UnknownLanguage(unknown.clone()));
    }
    let detected = detect_with_interpreters(
        input.registry,
        input.project_files,
        &input.facts.names,
        &input.facts.interpreters,
    );
    let selected: BTreeSet<&str> = input.selected.iter().map(String::as_str).collect();
    Ok(detected
        .into_iter()
        .filter(|d| input.only.is_empty() || input.only.contains(&d.id))
        .filter_map(|d| {
            let lang = input.registry.get(&d.id)?;
            // A template of the language (a Helm chart's `templates/*.yaml`) is not the language.
            let files = d
                .files
                .into_iter()
                .filter(|f| selected.contains(f.as_str()) && !input.facts.templates.contains(f))
                .collect();
            Some(Candidate { lang, files })
        })
        .collect())
}

/// Why a language has nothing to do in this run (no selected files and not a whole-tree
/// project-level run, or a required config missing at the root), if it has not.
pub(crate) fn nothing_to_do(input: &PlanInput<'_>, candidate: &Candidate<'_>) -> Option<String> {
    let lang = candidate.lang;
    if candidate.files.is_empty() && !(input.whole_tree && lang.is_project_level()) {
        let reason =
            if input.whole_tree { "no files of this language" } else { "no changed files of this language" };
        return Some(reason.into());
    }
    let required = lang.requires_config.as_ref().filter(|r| !input.facts.has_any(r))?;
    Some(format!("not integrated: none of {} found at the project root", required.join(", ")))
}

/// Builds the plan.
pub(crate) fn build(input: &PlanInput<'_>) -> Result<Plan, UnknownLanguage> {
    plan_each(input, plan_language)
}

/// A plan with one entry per candidate language, its action decided by `decide`.
pub(crate) fn plan_each<A>(
    input: &PlanInput<'_>,
    decide: impl Fn(&PlanInput<'_>, &Candidate<'_>) -> A,
) -> Result<Plan<A>, UnknownLanguage> {
    let entries = candidates(input)?
        .into_iter()
        .map(|c| Entry { language: c.lang.id.clone(), name: c.lang.name.clone(), action: decide(input, &c) })
        .collect();
    Ok(Plan { entries })
}

fn plan_language(input: &PlanInput<'_>, candidate: &Candidate<'_>) -> Action {
    let skip = |status, reason: String| Action::Skip { status, reason };
    if let Some(reason) = nothing_to_do(input, candidate) {
        return skip(Status::Skipped, reason);
    }
    let (lang, files) = (candidate.lang, &candidate.files);
    let Some(lint) = &lang.lint else {
        return skip(Status::Skipped, "format-only language: no lint command".into());
    };
    let mut used = CommandField::Lint;
    let invocations = if lang.is_project_level() {
        vec![lint.clone()]
    } else if input.whole_tree && lint.iter().any(|a| a == "{file}") {
        match &lang.gate {
            Some(gate) => {
                used = CommandField::Gate;
                vec![gate.clone()]
            }
            None => per_file(lint, files),
        }
    } else {
        by_dialect(lang, files, input.facts)
            .into_iter()
            .flat_map(|(lint, files)| split(&lint, &files, input.parallelism))
            .collect()
    };
    let invocations = invocations.into_iter().map(|argv| with_default_config(argv, input.facts)).collect();
    let program = lint.first().cloned().unwrap_or_default();
    Action::Run(Job {
        program,
        invocations,
        cwd: input.root.clone(),
        files: if lang.is_project_level() { Vec::new() } else { files.clone() },
        probe: lang.probe.clone(),
        install_hint: lang.install_advice(input.registry),
        fix: lang.format.as_ref().map(|f| fix_command(f, files, lang.is_project_level())),
        fixes: lang.format_fixes.clone(),
        advisory: lang.advisory,
        runs_repo_code: Job::runs_repo_code(lang, used),
        managed: false,
        behaviour: Box::new(lang.verdict.clone()),
        format: lang.findings_format,
    })
}

/// The lint command per dialect group of `files`: with a `dialect_option`, each group of files of
/// one dialect gets `<option><dialect>` after the program (files of no known dialect get none);
/// otherwise one group holding every file.
fn by_dialect(lang: &Language, files: &[String], facts: &RootFacts) -> Vec<(Argv, Vec<String>)> {
    let Some(lint) = &lang.lint else { return Vec::new() };
    let Some(option) = &lang.dialect_option else { return vec![(lint.clone(), files.to_vec())] };
    let mut groups: std::collections::BTreeMap<Option<&str>, Vec<String>> = std::collections::BTreeMap::new();
    for file in files {
        let dialect = if facts.directed.contains(file) {
            None
        } else {
            lang.dialect_of(file, facts.interpreters.get(file).map(String::as_str))
        };
        groups.entry(dialect).or_default().push(file.clone());
    }
    groups
        .into_iter()
        .map(|(dialect, files)| {
            let mut argv = lint.clone();
            if let Some(dialect) = dialect {
                argv.insert(1.min(argv.len()), format!("{option}{dialect}"));
            }
            (argv, files)
        })
        .collect()
}

/// First characters that make tools read an argument as something other than a path: an option
/// (`-`, `+`), a response file (`@`, LLVM and others), a negated glob (`!`, `#`, for tools that
/// take globs).
const NOT_A_PATH_START: [char; 5] = ['-', '+', '@', '!', '#'];

/// A path as a command argument: one that starts with a character in [`NOT_A_PATH_START`] is
/// given as `./<path>` (the same file), so it is never read as an option.
pub(crate) fn path_arg(path: &str) -> String {
    if path.starts_with(NOT_A_PATH_START) { format!("./{path}") } else { path.to_owned() }
}

/// One invocation per file for `{file}` commands.
fn per_file(lint: &Argv, files: &[String]) -> Vec<Argv> {
    files.iter().map(|f| lint.iter().map(|a| a.replace("{file}", &path_arg(f))).collect()).collect()
}

/// Scopes a command to files: `{file}` → one call per file; `{files}` → batched calls; a scan
/// token (`.` or a `**` glob) → replaced by the files; otherwise the files are appended.
pub(crate) fn scoped(lint: &Argv, files: &[String]) -> Vec<Argv> {
    if lint.iter().any(|a| a == "{file}") {
        return per_file(lint, files);
    }
    let is_slot = |a: &String| a == "{files}" || a == "." || a.contains("**");
    let slot = lint.iter().position(is_slot);
    batches(files)
        .into_iter()
        .map(|batch| {
            let mut argv = Vec::with_capacity(lint.len() + batch.len());
            for (i, arg) in lint.iter().enumerate() {
                if Some(i) == slot {
                    argv.extend(batch.iter().map(|f| path_arg(f)));
                } else if !(is_slot(arg) || arg.starts_with('#')) {
                    argv.push(arg.clone());
                }
            }
            if slot.is_none() {
                argv.extend(batch.iter().map(|f| path_arg(f)));
            }
            argv
        })
        .collect()
}

/// Fewest files in a list that is split across cores ([`split`]): below it, a second process
/// start costs more than the work it takes over.
const SPLIT_MIN_FILES: usize = 64;

/// Fewest files in one part of a split list.
const SPLIT_MIN_PART: usize = SPLIT_MIN_FILES / 2;

/// [`scoped`], with a list of at least [`SPLIT_MIN_FILES`] files cut into about equal
/// invocations: twice as many as `cores` while each keeps [`SPLIT_MIN_PART`] files. The run
/// hands them out longest first as workers come free, so parts finer than one per core pack
/// the cores tighter when linters of different speeds share them; a process start per part is
/// the price.
pub(crate) fn split(lint: &Argv, files: &[String], cores: usize) -> Vec<Argv> {
    if cores < 2 || files.len() < SPLIT_MIN_FILES || lint.iter().any(|a| a == "{file}") {
        return scoped(lint, files);
    }
    let parts = (cores * 2).min(files.len() / SPLIT_MIN_PART).max(2);
    files.chunks(files.len().div_ceil(parts)).flat_map(|chunk| scoped(lint, chunk)).collect()
}

/// Splits files into batches whose argument bytes stay under [`MAX_ARG_BYTES`].
fn batches(files: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, file) in files.iter().enumerate() {
        if i > start && bytes + file.len() + 1 > MAX_ARG_BYTES {
            out.push(&files[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += file.len() + 1;
    }
    if start < files.len() || files.is_empty() {
        out.push(&files[start..]);
    }
    out
}

/// Pins ruff's rule selection when the project has no ruff configuration of its own.
pub(crate) fn with_default_config(mut argv: Argv, facts: &RootFacts) -> Argv {
    let is_ruff_check =
        argv.first().is_some_and(|p| p == "ruff") && argv.get(1).is_some_and(|a| a == "check");
    if is_ruff_check && !facts.has_ruff_config() {
        argv.splice(2..2, ["--config".to_owned(), RUFF_DEFAULT_SELECT.to_owned()]);
    }
    argv
}

/// The formatter command shown as "how to fix", scoped like the lint.
fn fix_command(format: &Argv, files: &[String], project_level: bool) -> Argv {
    if project_level {
        return format.clone();
    }
    let shown: Vec<String> = files.iter().take(20).cloned().collect();
    scoped(format, &shown).into_iter().next().unwrap_or_else(|| format.clone())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn plan(files: &[&str], selected: &[&str], whole_tree: bool, names: &[&str], only: &[&str]) -> Plan {
        with_input(files, selected, whole_tree, names, only, |input| build(input).expect("plan"))
    }

    /// Runs `f` on a plan input over the built-in registry, rooted at `/r` (shared with the fix
    /// plan's tests).
    pub(crate) fn with_input<T>(
        files: &[&str],
        selected: &[&str],
        whole_tree: bool,
        names: &[&str],
        only: &[&str],
        f: impl FnOnce(&PlanInput<'_>) -> T,
    ) -> T {
        let registry = Registry::builtin().expect("registry");
        let facts =
            RootFacts { names: names.iter().map(|s| (*s).to_owned()).collect(), ..RootFacts::default() };
        let (files, selected, only) = (strings(files), strings(selected), strings(only));
        f(&PlanInput {
            registry: &registry,
            root: PathBuf::from("/r"),
            project_files: &files,
            selected: &selected,
            whole_tree,
            facts: &facts,
            only: &only,
            parallelism: 1,
        })
    }

    fn action<'p>(plan: &'p Plan, id: &str) -> &'p Action {
        &plan.entries.iter().find(|e| e.language == id).expect("entry").action
    }

    #[test]
    fn file_commands_get_exactly_the_selected_files() {
        let p = plan(&["a.py", "b.py", "run.sh"], &["b.py", "run.sh"], false, &[], &[]);
        let Action::Run(py) = action(&p, "python") else { panic!("python runs") };
        assert_eq!(py.files, ["b.py"]);
        let argv = &py.invocations[0];
        assert_eq!(argv.last().map(String::as_str), Some("b.py"));
        assert!(
            argv.contains(&RUFF_DEFAULT_SELECT.to_owned()),
            "no ruff config → pinned selection: {argv:?}"
        );
        let Action::Run(sh) = action(&p, "shell") else { panic!("shell runs") };
        assert_eq!(
            sh.invocations,
            [strings(&["shellcheck", "--shell=sh", "--severity=warning", "--format=gcc", "run.sh"])]
        );
    }

    #[test]
    fn shell_files_are_checked_per_dialect_and_zsh_and_fish_by_their_own_shells() {
        let files = ["a.sh", "b.bash", "c.ksh", "bin/tool", "bin/zt", "x.zsh", "y.fish", "d.sh"];
        with_input(&files, &files, false, &[], &[], |input| {
            let mut facts = input.facts.clone();
            facts.interpreters = [("bin/tool", "bash"), ("bin/zt", "zsh"), ("d.sh", "dash")]
                .into_iter()
                .map(|(f, i)| (f.to_owned(), i.to_owned()))
                .collect();
            let p = build(&PlanInput { facts: &facts, ..input.clone() }).expect("plan");
            let Action::Run(sh) = action(&p, "shell") else { panic!("shell runs") };
            let calls: Vec<String> = sh.invocations.iter().map(|a| a.join(" ")).collect();
            assert_eq!(
                calls,
                [
                    "shellcheck --shell=bash --severity=warning --format=gcc b.bash bin/tool",
                    "shellcheck --shell=dash --severity=warning --format=gcc d.sh",
                    "shellcheck --shell=ksh --severity=warning --format=gcc c.ksh",
                    "shellcheck --shell=sh --severity=warning --format=gcc a.sh",
                ]
            );
            let Action::Run(zsh) = action(&p, "zsh") else { panic!("zsh runs") };
            assert_eq!(
                zsh.invocations,
                [strings(&["zsh", "-f", "-n", "bin/zt"]), strings(&["zsh", "-f", "-n", "x.zsh"])]
            );
            let Action::Run(fish) = action(&p, "fish") else { panic!("fish runs") };
            assert_eq!(fish.invocations, [strings(&["fish", "--no-config", "--no-execute", "y.fish"])]);
        });
    }

    #[test]
    fn a_project_ruff_config_is_respected() {
        let p = plan(&["a.py"], &["a.py"], true, &["ruff.toml"], &[]);
        let Action::Run(py) = action(&p, "python") else { panic!("python runs") };
        assert!(!py.invocations[0].contains(&"--config".to_owned()));
    }

    #[test]
    fn unchanged_languages_and_unintegrated_ones_are_skipped_with_reasons() {
        let p = plan(&["a.py", "x.yml"], &["x.yml"], false, &[], &[]);
        let Action::Skip { status, reason } = action(&p, "python") else { panic!("skipped") };
        assert_eq!((*status, reason.as_str()), (Status::Skipped, "no changed files of this language"));
        let Action::Skip { reason, .. } = action(&p, "yaml") else { panic!("yaml needs a config") };
        assert!(reason.starts_with("not integrated: none of .yamllint"), "{reason}");
    }

    #[test]
    fn project_level_commands_never_get_paths() {
        let p = plan(&["src/main.rs"], &["src/main.rs"], false, &["Cargo.toml"], &[]);
        let Action::Run(rust) = action(&p, "rust") else { panic!("rust runs") };
        let has_rs = rust.invocations[0]
            .iter()
            .any(|a| std::path::Path::new(a).extension().is_some_and(|e| e == "rs"));
        assert!(!has_rs);
        assert!(rust.files.is_empty());
    }

    #[test]
    fn language_filter_and_unknown_ids() {
        let p = plan(&["a.py", "run.sh"], &["a.py", "run.sh"], true, &[], &["shell"]);
        assert_eq!(p.entries.len(), 1);
        let registry = Registry::builtin().expect("registry");
        let facts = RootFacts::default();
        let only = strings(&["klingon"]);
        let input = PlanInput {
            registry: &registry,
            root: PathBuf::from("/r"),
            project_files: &[],
            selected: &[],
            whole_tree: true,
            facts: &facts,
            only: &only,
            parallelism: 1,
        };
        assert_eq!(build(&input).expect_err("unknown"), UnknownLanguage("klingon".into()));
    }

    #[test]
    fn jobs_that_run_repository_content_are_marked_and_withheld() {
        let files = ["src/App.kt", "app.py", "a.js"];
        let mut p = plan(&files, &files, true, &["build.gradle", "eslint.config.js", "package.json"], &[]);
        let marked: Vec<&str> = p
            .entries
            .iter()
            .filter(|e| matches!(&e.action, Action::Run(job) if job.runs_repo_code))
            .map(|e| e.language.as_str())
            .collect();
        assert_eq!(marked, ["java", "typescript", "kotlin"]);
        assert!(p.runs_repo_code());
        p.withhold_repo_code("HINT");
        let Action::Skip { status, reason } = action(&p, "kotlin") else { panic!("withheld") };
        assert_eq!(*status, Status::Unverified);
        assert_eq!(
            reason,
            "not run: `./gradlew` can execute this repository's own code and the workspace is not trusted; HINT"
        );
        assert!(matches!(action(&p, "python"), Action::Run(_)), "ruff runs no repository code");
        assert!(!p.runs_repo_code());
    }

    #[test]
    fn scan_tokens_and_batches() {
        let argv = strings(&["markdownlint", "**/*.md", "#node_modules"]);
        assert_eq!(scoped(&argv, &strings(&["a.md"])), [strings(&["markdownlint", "a.md"])]);
        let many: Vec<String> = (0..20_000).map(|i| format!("dir/file-{i}.py")).collect();
        let calls = scoped(&strings(&["ruff", "check", "{files}"]), &many);
        assert!(calls.len() > 1);
        assert_eq!(calls.iter().map(|c| c.len() - 2).sum::<usize>(), many.len(), "every file exactly once");
    }

    #[test]
    fn long_file_lists_are_split_across_cores_and_short_ones_are_not() {
        let lint = strings(&["shellcheck", "{files}"]);
        let files: Vec<String> = (0..300).map(|i| format!("s/{i}.sh")).collect();
        let parts = split(&lint, &files, 2);
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [76, 76, 76, 76], "two parts a core");
        let mut seen: Vec<&String> = parts.iter().flat_map(|p| &p[1..]).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), files.len(), "every file exactly once");
        assert_eq!(split(&lint, &files[..SPLIT_MIN_FILES - 1], 2).len(), 1, "a short list is one call");
        assert_eq!(split(&lint, &files, 1).len(), 1, "one core, one call");
        let halves = split(&lint, &files[..SPLIT_MIN_FILES], 2);
        assert_eq!(halves.iter().map(Vec::len).collect::<Vec<_>>(), [33, 33], "parts keep their minimum");
    }
}
