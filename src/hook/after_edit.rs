//! `PostToolUse` of an edit (and an `apply_patch` run through the shell, after it ran): lints
//! each edited file with its language's per-file command, and auto-fixes what a trusted
//! project's formatter may fix. Never blocks; a failure is told to the agent.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::findings::{histogram, histogram_line};
use crate::host::Answer;
use crate::lint::{self, LintRequest};
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::registry::{ProjectConfig, Registry};
use crate::report;
use crate::run::RunOptions;
use crate::safety;
use crate::state::session::Scope;

/// Files larger than this are not linted on save.
const MAX_SAVE_BYTES: u64 = 1024 * 1024;
/// Deadline for the per-file lint after an edit.
const SAVE_DEADLINE: Duration = Duration::from_secs(60);
/// Lines of linter output shown after a failed save check.
const SAVE_LINES: usize = 5;

/// Lints each edited file with its language's command; project-level languages are checked at
/// commit time; markdown, artefacts, dot-paths, unknown languages, large files and EJS-style
/// templates are skipped silently.
pub(super) fn after_edit(paths: &[PathBuf], cwd: &Path, env: &Env, session: Option<&str>) -> Answer {
    saved_files(paths, cwd, env, session, Loud::Always)
        .map_or(Answer::Allow, |(text, user)| Answer::Context { text, user: Some(user) })
}

/// Lints the files an `apply_patch` run through the shell wrote (the edits seen only as a
/// pre-tool-use): like [`after_edit`], but silent about what passed, since the result arrives
/// with an unrelated later event.
pub(super) fn after_patch(paths: &[PathBuf], cwd: &Path, env: &Env, session: Option<&str>) -> Answer {
    saved_files(paths, cwd, env, session, Loud::Problems).map_or(Answer::Allow, |(text, user)| {
        Answer::Context {
            text: format!("codeguard: the files your last apply_patch wrote, linted after it ran:\n{text}"),
            user: Some(user),
        }
    })
}

/// Whether a save check reports a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loud {
    /// Every result.
    Always,
    /// Only failures, UNVERIFIED results and safety findings.
    Problems,
}

fn saved_files(
    paths: &[PathBuf],
    cwd: &Path,
    env: &Env,
    session: Option<&str>,
    loud: Loud,
) -> Option<(String, String)> {
    let mut texts = Vec::new();
    let mut users = Vec::new();
    for path in paths {
        let absolute = if path.is_absolute() { path.clone() } else { cwd.join(path) };
        if let Some((text, user)) = check_saved_file(&absolute, env, session, loud) {
            texts.push(text);
            users.push(user);
        }
    }
    (!texts.is_empty()).then(|| (texts.join("\n"), users.join("; ")))
}

fn check_saved_file(path: &Path, env: &Env, session: Option<&str>, loud: Loud) -> Option<(String, String)> {
    let dir = path.parent()?;
    let repository = crate::intent::repository_at(dir).map(|(root, _)| root);
    let canonical = path.canonicalize().ok()?;
    let root = repository.clone().unwrap_or_else(|| dir.to_path_buf());
    let rel = canonical.strip_prefix(&root).ok()?.to_str()?.to_owned();
    let saved = Saved { root, canonical, rel };
    let safety = repository.and_then(|_| saved_file_safety(&saved));
    let lint = lint_saved_file(path, &saved, env, session, loud);
    match (safety, lint) {
        (None, lint) => lint,
        (Some(note), None) => Some((note, "codeguard: a secret was written".to_owned())),
        (Some(note), Some((text, user))) => Some((format!("{note}\n{text}"), user)),
    }
}

/// A file an edit wrote: its project root (the repository, else its directory), its canonical
/// path and its path relative to the root — found once for the scan and the lint.
struct Saved {
    root: PathBuf,
    canonical: PathBuf,
    rel: String,
}

/// The content-safety scan of a file just written, so the agent hears at once what would block
/// its commit later (the same rules as the gate; the secret itself is never shown).
fn saved_file_safety(saved: &Saved) -> Option<String> {
    let (root, rel) = (&saved.root, &saved.rel);
    let findings = safety::scan(root, std::slice::from_ref(rel), &safety::committed_allow_list(root));
    let blocking: Vec<&crate::secrets::Finding> = findings.iter().filter(|f| !f.allowed).collect();
    if blocking.is_empty() {
        return None;
    }
    let mut text = format!("codeguard: {rel} would be refused at commit:\n");
    for f in blocking {
        let place = f.line.map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
        let _ = writeln!(text, "- {place}: {} — {}", f.rule, f.message);
    }
    Some(text.trim_end().to_owned())
}

fn lint_saved_file(
    path: &Path,
    saved: &Saved,
    env: &Env,
    session: Option<&str>,
    loud: Loud,
) -> Option<(String, String)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SAVE_BYTES {
        return None;
    }
    let Saved { root, canonical, rel } = saved;
    let (root, canonical, rel) = (root.clone(), canonical.clone(), rel.clone());
    if crate::files::is_out_of_lint_scope(&rel) {
        return None;
    }
    let config = ProjectConfig::load(&root).ok()?;
    let registry = Registry::builtin().ok()?.with_project(&config).ok()?;
    let interpreter =
        registry.reads_interpreter(&rel).then(|| crate::files::interpreter(&canonical)).flatten();
    let lang = registry.language_of_file(&rel, interpreter.as_deref())?;
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    let vendored = crate::files::LintScope::load(&root, config.exclude_vendored()).excludes(&rel);
    if lang.id == "markdown" || vendored || config.is_excluded(&rel) || is_template(&canonical, &lang.id) {
        return None;
    }
    if lang.is_project_level() {
        if loud == Loud::Problems {
            return None;
        }
        return Some((
            format!(
                "codeguard: {} is checked as a whole project when you commit ({}); {name} was not linted on save.",
                lang.id,
                lang.lint_program().unwrap_or("its linter")
            ),
            format!("codeguard: {} checked at commit", lang.id),
        ));
    }
    let files = vec![rel.clone()];
    let options = RunOptions { deadline: SAVE_DEADLINE, jobs: 1, reuse: true };
    let prefix = format!("save-{}", report::path_key(&canonical));
    let request = LintRequest::worktree_files(&root, &files, std::slice::from_ref(&lang.id), options, prefix);
    let mut result = lint::lint(&request, env, &|_| {}).ok()?.into_iter().next()?;
    let mut fixed = None;
    // Fixing on save rewrites the agent's files: only a trusted workspace's configuration may
    // turn it on (an untrusted repository's `codeguard.json` says nothing here).
    if result.status == Status::Fail
        && config.auto_fix_on_save()
        && crate::trust::is_trusted(env, &root, &config)
    {
        fixed = auto_fix(lang, &config, &root, &canonical, &rel, env);
        if fixed.as_ref().is_some_and(|f| f.changed) {
            result = lint::lint(&request, env, &|_| {}).ok()?.into_iter().next()?;
        }
    }
    let changed = fixed.as_ref().is_some_and(|f| f.changed);
    let _ = crate::state::session::record(
        env,
        &Scope::new(session, &root),
        &result.language,
        result.status,
        changed,
    );
    if loud == Loud::Problems && result.status == Status::Pass && fixed.is_none() {
        return None;
    }
    let Some(fixed) = fixed else { return save_message(&result, name) };
    let (text, user) = save_message(&result, name).unwrap_or_default();
    Some((format!("{}\n{text}", fixed.note(name)).trim_end().to_owned(), user))
}

/// What the save-time formatter did.
struct AutoFix {
    argv: Vec<String>,
    changed: bool,
    failed: Option<String>,
}

impl AutoFix {
    fn note(&self, name: &str) -> String {
        let command = self.argv.join(" ");
        match (&self.failed, self.changed) {
            (Some(why), _) => format!(
                "codeguard: auto-fix on save: `{command}` failed ({why}); {name} may be partly rewritten."
            ),
            (None, true) => format!(
                "codeguard: auto-fix on save: `{command}` rewrote {name} (auto_fix_on_save in codeguard.json); re-checked below."
            ),
            (None, false) => format!("codeguard: auto-fix on save: `{command}` left {name} unchanged."),
        }
    }
}

/// Runs the language's formatter on the one saved file (never a project-level formatter, never
/// a repository-defined formatter in an untrusted workspace) and reports by content, not by
/// exit code, whether the file changed.
fn auto_fix(
    lang: &crate::registry::Language,
    config: &ProjectConfig,
    root: &Path,
    file: &Path,
    rel: &str,
    env: &Env,
) -> Option<AutoFix> {
    let format = lang.format.as_ref()?;
    let own = config.overridden_languages().any(|l| l == lang.id)
        || crate::plan::Job::runs_repo_code(lang, crate::registry::CommandField::Format);
    if own && !crate::trust::is_trusted(env, root, config) {
        return None;
    }
    let argv = crate::plan::scoped(format, &[rel.to_owned()]).into_iter().next()?;
    let before = std::fs::read(file).ok().map(|b| blake3::hash(&b));
    let vars: Vec<(String, std::ffi::OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let done = crate::process::Cmd::new(argv.clone(), root.to_path_buf(), vars, SAVE_DEADLINE).run();
    let after = std::fs::read(file).ok().map(|b| blake3::hash(&b));
    let failed = match &done.ending {
        crate::process::Ending::Exited(0 | 1) => None,
        other => Some(format!("{other:?}")),
    };
    Some(AutoFix { argv, changed: before != after, failed })
}

/// EJS-style templates (`<%`) in HTML are not linted: htmlhint cannot parse them.
fn is_template(path: &Path, language: &str) -> bool {
    language == "html" && std::fs::read(path).is_ok_and(|b| b.windows(2).take(8192).any(|w| w == b"<%"))
}

fn save_message(result: &LanguageResult, name: &str) -> Option<(String, String)> {
    let lang = &result.language;
    match result.status {
        Status::Skipped => None,
        Status::Pass => Some((
            format!("codeguard: {lang} lint passed for {name}."),
            format!("codeguard: {lang} lint passed"),
        )),
        Status::Unverified | Status::Planned => Some((
            format!("codeguard: UNVERIFIED [{lang}] {name}: {} (not a pass).", result.reason),
            format!("codeguard: {lang} check UNVERIFIED"),
        )),
        Status::Fail => {
            let mut text = format!("codeguard: [{lang}] {name} has lint problems");
            let histogram = histogram(&result.findings);
            if !histogram.is_empty() {
                let _ = write!(text, " ({})", histogram_line(&histogram[..histogram.len().min(6)]));
            }
            text.push_str(":\n");
            let lines: Vec<&str> = result.output.lines().filter(|l| !l.trim().is_empty()).collect();
            for line in lines.iter().take(SAVE_LINES) {
                let _ = writeln!(text, "  {}", line.chars().take(200).collect::<String>());
            }
            if lines.len() > SAVE_LINES {
                let _ = writeln!(text, "  … {} lines in all", lines.len());
            }
            if let Some(fix) = &result.fix {
                let _ = writeln!(text, "How to fix: {}", fix.join(" "));
            }
            if let Some(log) = &result.log_path {
                let _ = writeln!(text, "Full output: {}", log.display());
            }
            let user: String = format!("codeguard: {lang} lint FAILED: {name}").chars().take(60).collect();
            Some((text, user))
        }
    }
}
