//! `codeguard fix`: run each language's formatter on the files changed against `HEAD` (or, with
//! `--all`, on the whole project), prove by content identity which files changed, then re-check
//! the fixed languages with the lint engine and say what still fails.
//!
//! In: a project directory, a language filter, the scope, dry-run. Out: a [`FixReport`].
//! Never: hands a formatter a file that is a symbolic link, lies behind one, or is outside the
//! project; runs a project-level formatter (one that rewrites whatever it likes) unless the whole
//! project was asked for; runs a formatter that the project's `codeguard.json` defines unless
//! the user trusted the workspace (it is UNVERIFIED with the trust hint instead); writes anything
//! in a dry run; reformats a file with a formatter the project has not adopted (no config of it
//! at the root — registry `format_adopted_by` — and the file's `HEAD` version is not already
//! formatted by it, checked by running the formatter on a copy of that version in a scratch
//! directory): such files are left as they are and reported "not adopted here". A new file (no
//! `HEAD` version) has no layout to keep and is formatted. After an edit (not `--all`), a
//! formatter's rewrite is kept only where it meets the lines the edit changed against `HEAD`
//! (`crate::hunks`); the rest of the file keeps its bytes, and a note says so.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use rayon::prelude::*;

use super::UsageError;
use crate::cli::{FixArgs, Format};
use crate::env::Env;
use crate::lint::{self, LintRequest};
use crate::mode::Scope;
use crate::outcome::Status;
use crate::output::Output;
use crate::plan::{Action, Job, PlanInput};
use crate::process::{Cmd, Ending};
use crate::project::Project;
use crate::registry::Registry;
use crate::report::{self, FixReport, FormatterResult, Refusal};
use crate::run::RunOptions;

/// What to fix (the CLI's arguments, or an MCP tool call's).
#[derive(Debug, Clone)]
pub(crate) struct FixRequest {
    /// The project directory (default: the current directory).
    pub path: Option<PathBuf>,
    /// Only these languages (empty = all).
    pub lang: Vec<String>,
    /// The whole project instead of the changed files.
    pub all: bool,
    /// Show the commands, run nothing.
    pub dry_run: bool,
    /// Deadline per formatter or linter invocation.
    pub timeout: Duration,
}

/// Runs `fix` and returns its exit code.
pub(super) fn run(args: &FixArgs, env: &Env) -> anyhow::Result<Output> {
    let request = FixRequest {
        path: args.path.clone(),
        lang: args.lang.clone(),
        all: args.all,
        dry_run: args.dry_run,
        timeout: Duration::from_secs(args.timeout),
    };
    let report = fix(&request, env)?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        // `fix` parses `--format` as human or json only.
        Format::Human | Format::Sarif => report::render_fix(&report),
    };
    Ok(Output::stdout(text, report.exit_code()))
}

/// Plans, runs and re-checks; usage problems are [`UsageError`]s.
pub(crate) fn fix(request: &FixRequest, env: &Env) -> anyhow::Result<FixReport> {
    let root = super::project_root(request.path.as_deref())?;
    let project = Project::load(&root).map_err(|e| UsageError(e.to_string()))?;
    let files = Files::gather(&root, request.all)?;
    let project_files = project.in_scope(&files.project);
    let (accepted, refused) = vet_targets(&root, &project.in_scope(&files.selected), &project.registry);
    let facts = crate::files::lint_facts(&root, None, &project_files, &project_files, &project.registry);
    let input = PlanInput {
        registry: &project.registry,
        root: root.clone(),
        project_files: &project_files,
        selected: &accepted,
        whole_tree: request.all,
        facts: &facts,
        only: &request.lang,
        parallelism: 1,
    };
    let mut plan = crate::plan::fix::build(&input).map_err(|e| UsageError(e.to_string()))?;
    lint::withhold_untrusted(&mut plan, &project.config, &root, env);
    let mut report =
        FixReport::new(root.clone(), if request.all { Scope::All } else { Scope::Changed }, request.dry_run);
    report.refused = refused;
    let adoption =
        Adoption { registry: &project.registry, facts: &facts, root: &root, env, deadline: request.timeout };
    adoption.respect(&mut plan, request.dry_run, &mut report.notes);
    let own = crate::tools::trusted_own_tools(&plan, &project.registry, &root, env, &project.config);
    crate::tools::resolve(&mut plan, &project.registry, env, &own);
    if files.selected.is_empty() {
        report.notes.push(if request.all {
            "nothing to fix: the project has no files".to_owned()
        } else {
            "nothing to fix: no file changed against HEAD (use --all for the whole project)".to_owned()
        });
    }
    if request.dry_run {
        report.formatters = plan.entries.iter().map(|e| planned(&e.language, &e.name, &e.action)).collect();
        return Ok(report.conclude());
    }
    let log_prefix = format!("fix-{}", report::path_key(&root));
    let mut identities = Identities::take(&root, &files.project);
    for entry in &plan.entries {
        let result = match &entry.action {
            Action::Skip { .. } => planned(&entry.language, &entry.name, &entry.action),
            Action::Run(job) => {
                // After an edit, the formatter's rewrite is kept only where it meets the edit.
                let before = if request.all { Vec::new() } else { contents(&root, &job.files) };
                let mut result = run_job(&entry.language, &entry.name, job, &root, env, request.timeout);
                if let Some(note) = keep_to_the_change(&root, &before, &entry.language, &job.program) {
                    report.notes.push(note);
                }
                let now = Identities::take(&root, &files.project);
                result.changed = identities.changed_since(&now);
                identities = now;
                if !job.files.is_empty() {
                    report
                        .changed_outside_selection
                        .extend(result.changed.iter().filter(|f| !job.files.contains(f)).cloned());
                }
                report::write_logs(
                    std::slice::from_mut(&mut result.run),
                    &crate::state::log_dir(env),
                    &log_prefix,
                );
                result
            }
        };
        report.changed.extend(result.changed.iter().cloned());
        report.formatters.push(result);
    }
    report.changed.sort();
    report.changed.dedup();
    let ran: Vec<String> = plan
        .entries
        .iter()
        .filter(|e| matches!(e.action, Action::Run(_)))
        .map(|e| e.language.clone())
        .collect();
    if !ran.is_empty() {
        let lint = LintRequest {
            dir: &root,
            workspace: &root,
            project_files: &files.project,
            selected: &accepted,
            whole_tree: request.all,
            only: &ran,
            options: RunOptions { deadline: request.timeout, jobs: crate::run::default_jobs(), reuse: true },
            log_prefix: format!("{log_prefix}-recheck"),
            root_names: None,
            stable: false,
        };
        let results = lint::lint(&lint, env, &|_| {}).map_err(|e| UsageError(e.to_string()))?;
        report.recheck = results.into_iter().filter(|r| r.status != Status::Skipped).collect();
    }
    Ok(report.conclude())
}

/// Keeps formatters to the files of projects that adopted them (see the module header).
struct Adoption<'a> {
    registry: &'a Registry,
    facts: &'a crate::files::RootFacts,
    root: &'a Path,
    env: &'a Env,
    deadline: Duration,
}

/// The texts of a root-relative file, or of the files a `dir/*` pattern names (regular files
/// only, never through a link, the first 64 KiB of each): what adoption is read from.
fn root_texts(root: &Path, name: &str) -> Vec<String> {
    const MAX: u64 = 64 * 1024;
    let read = |path: &Path| crate::files::read_prefix(path, MAX);
    match name.strip_suffix("/*") {
        Some(dir) => {
            let dir = root.join(dir);
            if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
                return Vec::new();
            }
            let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
            entries.flatten().take(200).filter_map(|e| read(&e.path())).collect()
        }
        None => read(&root.join(name)).into_iter().collect(),
    }
}

impl Adoption<'_> {
    /// Narrows every formatter job of an unadopted formatter to the files whose `HEAD` version
    /// it leaves unchanged (and new files); a job left with none becomes SKIPPED "not adopted
    /// here". In a dry run nothing is run: a note says the check will happen.
    fn respect(&self, plan: &mut crate::plan::fix::FixPlan, dry_run: bool, notes: &mut Vec<String>) {
        for entry in &mut plan.entries {
            let Action::Run(job) = &mut entry.action else { continue };
            let Some(lang) = self.registry.get(&entry.language) else { continue };
            let Some(why) =
                crate::plan::fix::unadopted(lang, self.facts, &|name| root_texts(self.root, name))
            else {
                continue;
            };
            let program = job.program.clone();
            if job.files.is_empty() {
                let reason =
                    format!("not adopted here: `{program}` is not configured ({why}); left as it is");
                entry.action = Action::Skip { status: Status::Skipped, reason };
                continue;
            }
            if dry_run {
                notes.push(format!(
                    "{}: `{program}` is not configured ({why}): only files whose HEAD version it already formats would be formatted",
                    entry.language
                ));
                continue;
            }
            let (mut adopted, mut not) = (Vec::new(), Vec::new());
            let (verdicts, doubt) = self.baseline_formatted(lang, &job.files);
            for (file, ok) in verdicts {
                if ok { adopted.push(file) } else { not.push(file) }
            }
            if !not.is_empty() {
                let layout = match &doubt {
                    None => format!("is not `{program}`-formatted"),
                    Some(failed) => format!("could not be checked ({failed})"),
                };
                let reason = format!(
                    "not adopted here: `{program}` is not configured ({why}) and the HEAD version of {} {layout}; left as it is",
                    not.join(", ")
                );
                if adopted.is_empty() {
                    entry.action = Action::Skip { status: Status::Skipped, reason };
                    continue;
                }
                notes.push(format!("{}: {reason}", entry.language));
            }
            crate::plan::fix::narrow(job, lang, adopted, self.facts);
        }
    }

    /// For each file: whether the formatter may rewrite it — it is new (no `HEAD` version), or
    /// the formatter leaves its `HEAD` version byte for byte as it is. Any doubt (no scratch
    /// space, the formatter failing on the copy) means no.
    /// The second value says why the check itself failed, when it did.
    fn baseline_formatted(
        &self,
        lang: &crate::registry::Language,
        files: &[String],
    ) -> (Vec<(String, bool)>, Option<String>) {
        let mut doubt = None;
        let mut verdicts: BTreeMap<String, bool> = BTreeMap::new();
        let mut baseline: Vec<(String, Vec<u8>)> = Vec::new();
        for file in files {
            match crate::git::head_file(self.root, file) {
                Ok(None) => {
                    verdicts.insert(file.clone(), true);
                }
                Ok(Some(bytes)) => baseline.push((file.clone(), bytes)),
                Err(e) => {
                    doubt = Some(format!("reading its HEAD version: {e}"));
                    verdicts.insert(file.clone(), false);
                }
            }
        }
        if !baseline.is_empty() {
            let unchanged = match lang.format.as_ref().map(|f| self.unchanged_by_formatter(f, &baseline)) {
                Some(Ok(unchanged)) => unchanged,
                Some(Err(why)) => {
                    doubt = Some(why);
                    Vec::new()
                }
                None => Vec::new(),
            };
            for (file, _) in &baseline {
                verdicts.insert(file.clone(), unchanged.contains(file));
            }
        }
        (files.iter().map(|f| (f.clone(), verdicts.get(f).copied().unwrap_or(false))).collect(), doubt)
    }

    /// Runs the job's formatter on copies of `baseline` in a scratch directory and returns the
    /// files it left byte for byte unchanged; why not, when it cannot run or fails.
    fn unchanged_by_formatter(
        &self,
        format: &crate::registry::Argv,
        baseline: &[(String, Vec<u8>)],
    ) -> Result<Vec<String>, String> {
        let options = crate::snapshot::SnapshotOptions::from_env(self.env);
        let Some(scratch) =
            options.scratch_dirs.iter().find_map(|d| crate::snapshot::ScratchDir::create_in(d))
        else {
            return Err("no usable scratch directory".to_owned());
        };
        for (file, bytes) in baseline {
            let path = scratch.path().join(file);
            let written = path.parent().is_some_and(|p| std::fs::create_dir_all(p).is_ok())
                && std::fs::write(&path, bytes).is_ok();
            if !written {
                return Err(format!("cannot copy {file} to a scratch directory"));
            }
        }
        let files: Vec<String> = baseline.iter().map(|(f, _)| f.clone()).collect();
        let child_env: Vec<(String, OsString)> =
            self.env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
        for mut argv in crate::plan::scoped(format, &files) {
            crate::tools::resolve_argv(&mut argv, self.registry, self.env);
            let shown = argv.join(" ");
            let done = Cmd::new(argv, scratch.path().to_path_buf(), child_env.clone(), self.deadline).run();
            match &done.ending {
                Ending::Exited(0) => {}
                Ending::Exited(code) => return Err(format!("`{shown}` exited with {code} on it")),
                Ending::Signalled(_) | Ending::TimedOut | Ending::NotFound | Ending::CannotStart(_) => {
                    return Err(format!("`{shown}` did not run to an end on it"));
                }
            }
        }
        Ok(baseline
            .iter()
            .filter(|(file, bytes)| std::fs::read(scratch.path().join(file)).is_ok_and(|now| now == *bytes))
            .map(|(file, _)| file.clone())
            .collect())
    }
}

/// The project's files and the ones selected for fixing.
struct Files {
    project: Vec<String>,
    selected: Vec<String>,
}

impl Files {
    fn gather(root: &Path, all: bool) -> anyhow::Result<Self> {
        if all {
            let project = crate::surface::listing(root)
                .with_context(|| format!("listing files under {}", root.display()))?;
            return Ok(Self { selected: project.clone(), project });
        }
        let surface = crate::surface::working_changes(root).map_err(|e| {
            UsageError(format!(
                "fixing the changed files needs a git repository ({e}); use --all for a whole directory"
            ))
        })?;
        let project = crate::surface::project_files(root).unwrap_or_else(|_| surface.paths.clone());
        Ok(Self { project, selected: surface.paths })
    }
}

/// Splits the selected files into those a formatter may rewrite and those it must not: a file
/// that is a symbolic link, lies behind a symlinked directory, resolves outside the project or
/// is not a regular file is refused. Files of no known language are of no formatter's concern
/// and are passed through silently (no formatter is planned for them).
fn vet_targets(root: &Path, selected: &[String], registry: &Registry) -> (Vec<String>, Vec<Refusal>) {
    let mut accepted = Vec::new();
    let mut refused = Vec::new();
    for rel in selected {
        if registry.language_of(rel).is_none() {
            accepted.push(rel.clone());
            continue;
        }
        match refusal_reason(root, rel) {
            Ok(()) => accepted.push(rel.clone()),
            Err(Some(reason)) => {
                refused.push(Refusal { path: rel.clone(), status: Status::Unverified, reason });
            }
            Err(None) => {}
        }
    }
    (accepted, refused)
}

/// `Ok` when the file may be rewritten; `Err(None)` when it is gone; `Err(Some(why))` when it
/// must not be touched.
fn refusal_reason(root: &Path, rel: &str) -> Result<(), Option<String>> {
    let path = root.join(rel);
    let Ok(meta) = path.symlink_metadata() else { return Err(None) };
    let resolved = path.canonicalize().ok();
    let outside = resolved.as_ref().is_none_or(|r| !r.starts_with(root));
    let whereto = if outside { " outside the project" } else { "" };
    if meta.file_type().is_symlink() {
        return Err(Some(format!(
            "not fixed: a symbolic link{}; codeguard never writes through links (fix the file it points to directly)",
            if outside { " to a file outside the project" } else { "" }
        )));
    }
    if resolved.as_deref() != Some(path.as_path()) {
        return Err(Some(format!(
            "not fixed: reached through a symlinked directory{whereto}; codeguard never writes through links"
        )));
    }
    if !meta.is_file() {
        return Err(Some("not fixed: not a regular file".to_owned()));
    }
    Ok(())
}

/// A formatter entry that was not run (a skip, or a dry run's plan).
fn planned(language: &str, name: &str, action: &Action) -> FormatterResult {
    let mut run = match action {
        Action::Run(job) => {
            let mut run = crate::outcome::LanguageResult::skipped(language, name, Status::Planned, "");
            run.argv.clone_from(&job.invocations);
            run.files.clone_from(&job.files);
            run.install_hint.clone_from(&job.install_hint);
            run
        }
        Action::Skip { status, reason } => {
            crate::outcome::LanguageResult::skipped(language, name, *status, reason)
        }
    };
    run.fix = None;
    FormatterResult { run, changed: Vec::new() }
}

/// Runs a formatter's invocations one after another in the project root. A non-zero exit, a
/// timeout or a crash is FAIL with the output kept; a missing tool is UNVERIFIED.
fn run_job(
    language: &str,
    name: &str,
    job: &Job,
    root: &Path,
    env: &Env,
    deadline: Duration,
) -> FormatterResult {
    let mut result = planned(language, name, &Action::Run(job.clone()));
    result.run.status = Status::Pass;
    if let Some(reason) =
        crate::run::missing_tool(&job.program, job.probe.as_ref(), &job.install_hint, root, env)
    {
        result.run.status = Status::Unverified;
        result.run.reason = reason;
        return result;
    }
    let child_env: Vec<(String, OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    for argv in &job.invocations {
        let done = Cmd::new(argv.clone(), root.to_path_buf(), child_env.clone(), deadline).run();
        result.run.duration += done.duration;
        result.run.output.push_str(&done.text());
        let failure = match &done.ending {
            Ending::Exited(0) => None,
            Ending::Exited(code) => {
                result.run.exit_code = Some(*code);
                Some(format!("the formatter exited with {code}"))
            }
            Ending::Signalled(signal) => Some(format!("the formatter was killed by signal {signal}")),
            Ending::TimedOut => Some(format!("the formatter ran past its {}s deadline", deadline.as_secs())),
            Ending::NotFound => Some(format!("`{}` not found", job.program)),
            Ending::CannotStart(why) => Some(format!("`{}` could not start: {why}", job.program)),
        };
        if result.run.exit_code.is_none() && failure.is_none() {
            result.run.exit_code = Some(0);
        }
        if let Some(reason) = failure.filter(|_| result.run.status == Status::Pass) {
            result.run.status = Status::Fail;
            result.run.reason = reason;
        }
    }
    result
}

/// The bytes of each of `files` that is a regular file (never through a link).
fn contents(root: &Path, files: &[String]) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .filter(|f| std::fs::symlink_metadata(root.join(f)).is_ok_and(|m| m.is_file()))
        .filter_map(|f| Some((f.clone(), std::fs::read(root.join(f)).ok()?)))
        .collect()
}

/// Puts back the formatter's hunks that do not meet the edit (`crate::hunks`): in each file of
/// `before` the formatter changed and that has a `HEAD` version, only the rewrite of lines the edit
/// changed (or that border them) stays. A note says what was left out, and how to format whole
/// files. A file that is not UTF-8, or whose `HEAD` version cannot be read, keeps the formatter's
/// bytes.
fn keep_to_the_change(
    root: &Path,
    before: &[(String, Vec<u8>)],
    language: &str,
    program: &str,
) -> Option<String> {
    let mut left: Vec<String> = Vec::new();
    for (file, old) in before {
        let path = root.join(file);
        let Ok(new) = std::fs::read(&path) else { continue };
        if new == *old {
            continue;
        }
        let Ok(Some(head)) = crate::git::head_file(root, file) else { continue };
        let Some((kept, left_out)) = crate::hunks::limit_to_change(&head, old, &new) else { continue };
        // Replaced in one step with its mode kept: never a half-written file, never through a link.
        let how = crate::fs::Atomic::with_mode(crate::fs::mode_or(&path, 0o644));
        if left_out > 0
            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && crate::fs::write_atomic(&path, &kept, how).is_ok()
        {
            left.push(format!("{file} ({left_out} hunk{})", if left_out == 1 { "" } else { "s" }));
        }
    }
    let tool = program.rsplit('/').next().unwrap_or(program);
    (!left.is_empty()).then(|| {
        format!(
            "{language}: `{tool}` also rewrote lines the edit did not touch; those were left as they were in {} (to format whole files: codeguard fix --all)",
            left.join(", ")
        )
    })
}

/// Content identities of the project's files (what a symlink points to, for a link), taken
/// before and after each formatter so every change is attributed to the formatter that made it.
struct Identities(BTreeMap<String, Option<blake3::Hash>>);

impl Identities {
    fn take(root: &Path, files: &[String]) -> Self {
        Self(files.par_iter().map(|rel| (rel.clone(), identity(&root.join(rel)))).collect())
    }

    /// The files whose identity differs in `now`, sorted.
    fn changed_since(&self, now: &Self) -> Vec<String> {
        self.0
            .iter()
            .filter(|(rel, before)| now.0.get(*rel) != Some(before))
            .map(|(rel, _)| rel.clone())
            .collect()
    }
}

fn identity(path: &Path) -> Option<blake3::Hash> {
    let meta = path.symlink_metadata().ok()?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).ok()?;
        return Some(blake3::hash(target.as_os_str().as_encoded_bytes()));
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(std::fs::File::open(path).ok()?).ok()?;
    Some(hasher.finalize())
}
