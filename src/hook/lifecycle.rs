//! The non-blocking hooks: session start (what is checked here, what is missing), the prompt
//! reminder (a soft gate when the user asks to commit, push or deploy), the per-file lint after
//! an edit, and the stop summary. None of them ever blocks or forces the agent to continue.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::host::{Answer, HookEvent};
use crate::lint::{self, LintRequest};
use crate::registry::{ProjectConfig, Registry};
use crate::report::{self, histogram_line, rule_histogram};
use crate::run::{LanguageResult, RunOptions};
use crate::safety;
use crate::state::session::Scope;
use crate::surface::{self, Pathspecs, StagingAction, SurfaceOptions};
use crate::verdict::Status;

/// Files larger than this are not linted on save.
const MAX_SAVE_BYTES: u64 = 1024 * 1024;
/// Deadline for the per-file lint after an edit.
const SAVE_DEADLINE: Duration = Duration::from_secs(60);
/// Deadline for the prompt-time soft gate.
const PROMPT_DEADLINE: Duration = Duration::from_secs(100);
/// Lines of linter output shown after a failed save check.
const SAVE_LINES: usize = 5;

// ---------------------------------------------------------------------------------------------
// Session start

/// A short summary of what codeguard checks in this project; silent when no language is found.
pub fn session_start(cwd: &Path, env: &Env) -> Answer {
    let Some((root, skip_gate)) = crate::intent::repository_at(cwd) else { return Answer::Allow };
    let Ok(registry) = Registry::builtin() else { return Answer::Allow };
    let config = ProjectConfig::load(&root);
    let files = surface::project_files(&root).unwrap_or_default();
    let facts = crate::files::root_facts(&root);
    let detected = crate::registry::detect_project(&registry, &in_lint_scope(&files), &facts.names);
    if detected.is_empty() {
        return Answer::Allow;
    }
    let mut text = format!("## codeguard\nRepository: {}\n", root.display());
    let inventory = crate::run::toolchain_inventory(&registry, &detected, env);
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
    match &config {
        Err(e) => {
            let _ =
                writeln!(text, "Warning: {e} — checks of this repository are UNVERIFIED until it is fixed.");
        }
        Ok(config) => {
            let own: Vec<&str> = config.overridden_languages().collect();
            let repo_code = repo_code_linters(&registry, &detected);
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
    }
    if skip_gate {
        text.push_str("Warning: codeguard.skipGate is set in this repository, so linters are skipped at commit (the safety scan still runs). Remove it with `git config --unset codeguard.skipGate`.\n");
    }
    Answer::context(text)
}

fn in_lint_scope(files: &[String]) -> Vec<String> {
    files.iter().filter(|f| !crate::files::is_out_of_lint_scope(f)).cloned().collect()
}

fn dedup(mut items: Vec<&str>) -> Vec<&str> {
    let mut seen = std::collections::BTreeSet::new();
    items.retain(|i| seen.insert(*i));
    items
}

// ---------------------------------------------------------------------------------------------
// Prompt reminder

/// What a prompt asks for, when it asks to commit, push or deploy now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptIntent {
    /// Commit (or deploy, which commits first).
    Commit,
    /// Push.
    Push,
}

const QUESTION_MARKERS: &[&str] =
    &["么", "吗", "如何", "怎么", "有没有", "是不是", "什么是", "哪些", "能否", "可以吗"];
const QUESTION_OPENERS: &[&str] = &[
    "should", "can", "could", "would", "do", "does", "did", "is", "are", "was", "how", "what", "why", "when",
    "where", "which", "shall", "may",
];
const NEGATIONS: &[&str] = &[
    "don't", "dont", "do not", "never", "not", "without", "no", "stop", "avoid", "别", "不要", "不", "未",
    "没", "勿", "无需",
];
const PREFIXES: &[&str] = &[
    "",
    "git",
    "to",
    "then",
    "and",
    "now",
    "please",
    "pls",
    "ok",
    "okay",
    "帮我",
    "请",
    "请帮我",
    "现在",
    "然后",
    "再",
    "并",
];
const ACTION_PHRASES: &[&str] = &[
    "please",
    "now",
    "next",
    "proceed",
    "go ahead",
    "commit this",
    "push this",
    "deploy this",
    "帮我",
    "请",
    "马上",
    "立刻",
    "现在",
    "下一步",
    "继续",
];

/// Decides whether a prompt asks to commit, push or deploy now (English and Chinese). Questions,
/// negations, past tense and discussion do not trigger.
pub fn prompt_intent(prompt: &str) -> Option<PromptIntent> {
    let lower = prompt.to_lowercase();
    let sentences = lower.split_inclusive(['.', '。', '!', '！', '?', '？', '\n', ';', '；']);
    for sentence in sentences {
        let Some((before, word)) = keyword(sentence) else { continue };
        if is_question(sentence) || is_negated(before) {
            continue;
        }
        let prefix = before.trim().trim_end_matches([',', '，', ':', '：']).trim();
        let last_word = prefix.rsplit(char::is_whitespace).next().unwrap_or("");
        if PREFIXES.contains(&prefix)
            || PREFIXES.contains(&last_word)
            || ACTION_PHRASES.iter().any(|p| lower.contains(p))
        {
            return Some(if word == "push" || word == "推送" {
                PromptIntent::Push
            } else {
                PromptIntent::Commit
            });
        }
    }
    None
}

/// The first trigger keyword of a sentence: (text before it, the keyword).
fn keyword(sentence: &str) -> Option<(&str, &str)> {
    let english =
        ["commit", "push", "deploy"].into_iter().filter_map(|w| find_word(sentence, w).map(|i| (i, w)));
    let chinese =
        ["提交", "推送", "发布", "部署"].into_iter().filter_map(|w| sentence.find(w).map(|i| (i, w)));
    english.chain(chinese).min_by_key(|(i, _)| *i).map(|(i, w)| (&sentence[..i], w))
}

/// The byte index of `word` as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn is_question(sentence: &str) -> bool {
    let trimmed = sentence.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    trimmed.ends_with(['?', '？'])
        || QUESTION_MARKERS.iter().any(|m| trimmed.contains(m))
        || QUESTION_OPENERS.contains(&first)
}

fn is_negated(before: &str) -> bool {
    let tail: String =
        before.trim_end().chars().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect();
    NEGATIONS.iter().any(|n| {
        let n_is_ascii = n.is_ascii();
        if n_is_ascii { find_word(&tail, n).is_some() } else { tail.contains(n) }
    })
}

/// The soft gate at prompt time: when the user asks to commit or push, check the wide surface
/// (staged, unstaged and untracked; plus the unpushed range for a push) and say what would fail.
pub fn prompt(prompt: &str, cwd: &Path, env: &Env) -> Answer {
    let Some(intent) = prompt_intent(prompt) else { return Answer::Allow };
    if env.is_truthy("CODEGUARD_SKIP_GATE") {
        return Answer::Allow;
    }
    let Some((root, _)) = crate::intent::repository_at(cwd) else {
        return Answer::context(
            "codeguard: this directory is not inside a git repository, so the commit gate was skipped here.",
        );
    };
    let mode = match intent {
        PromptIntent::Commit => surface::Mode::Commit,
        PromptIntent::Push => surface::Mode::Push { pending_commit: true },
    };
    let add_all = StagingAction::Add { specs: Pathspecs::default(), all: true, update: false, force: false };
    let surface =
        match surface::predict(&root, mode, &[add_all, StagingAction::Commit], &SurfaceOptions::default()) {
            Ok(surface) => surface,
            Err(e) => {
                return Answer::context(format!("codeguard: UNVERIFIED — cannot read the repository: {e}"));
            }
        };
    let mut files = surface.paths.clone();
    if let Some(push) = &surface.push {
        files.extend(push.changed.iter().cloned());
        files.sort();
        files.dedup();
    }
    files.retain(|f| root.join(f).is_file());
    let only = mentioned_languages(prompt);
    let options = RunOptions { deadline: PROMPT_DEADLINE, jobs: crate::run::default_jobs() };
    let prefix = format!("prompt-{}", report::path_key(&root));
    let request = LintRequest::worktree_files(&root, &files, &only, options, prefix);
    let results = match lint::lint(&request, env, &|_| {}) {
        Ok(results) => results,
        Err(e) => return Answer::context(format!("codeguard: UNVERIFIED — {e}")),
    };
    let allow = safety::committed_allow_list(&root);
    let findings = safety::scan(&root, &files, &allow);
    Answer::context(prompt_summary(&root, intent, &files, &results, &findings, &surface.unverified))
}

/// Registry ids named as whole words in the prompt (e.g. "commit the rust change").
fn mentioned_languages(prompt: &str) -> Vec<String> {
    let lower = prompt.to_lowercase();
    Registry::builtin()
        .map(|r| {
            r.languages()
                .iter()
                .filter(|l| find_word(&lower, &l.id).is_some())
                .map(|l| l.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn prompt_summary(
    root: &Path,
    intent: PromptIntent,
    files: &[String],
    results: &[LanguageResult],
    findings: &[safety::Finding],
    unverified: &[String],
) -> String {
    let action = match intent {
        PromptIntent::Commit => "commit",
        PromptIntent::Push => "push",
    };
    let failed: Vec<&LanguageResult> = results.iter().filter(|r| r.status == Status::Fail).collect();
    let blocking: Vec<&safety::Finding> = findings.iter().filter(|f| !f.allowed).collect();
    let incomplete: Vec<String> = results
        .iter()
        .filter(|r| matches!(r.status, Status::Unverified | Status::Planned))
        .map(|r| format!("{}: {}", r.language, r.reason))
        .chain(unverified.iter().cloned())
        .collect();
    let mut text = String::new();
    if failed.is_empty() && blocking.is_empty() && incomplete.is_empty() {
        let langs: Vec<&str> =
            results.iter().filter(|r| r.status == Status::Pass).map(|r| r.language.as_str()).collect();
        let _ = writeln!(
            text,
            "codeguard: the {} changed file(s) in {} pass {} and the safety scan; the {action} will be checked again when it runs.",
            files.len(),
            root.display(),
            if langs.is_empty() { "(no linted language)".to_owned() } else { langs.join(", ") }
        );
        return text;
    }
    let _ = writeln!(text, "codeguard: before you {action} in {}, this would block:", root.display());
    for lang in &failed {
        let histogram = rule_histogram(&lang.output);
        let _ = write!(text, "- {} FAIL", lang.language);
        if !histogram.is_empty() {
            let _ = write!(text, " ({})", histogram_line(&histogram[..histogram.len().min(6)]));
        }
        if let Some(fix) = &lang.fix {
            let _ = write!(text, "; fix: {}", fix.join(" "));
        }
        if let Some(log) = &lang.log_path {
            let _ = write!(text, "; full output: {}", log.display());
        }
        text.push('\n');
    }
    for finding in &blocking {
        let _ = writeln!(text, "- {}: {} (must not be committed)", finding.path, finding.rule);
    }
    for note in &incomplete {
        let _ = writeln!(text, "- UNVERIFIED: {note} (not a pass)");
    }
    text.push_str("Fix these in one Bash call, then run the git command in a separate call.\n");
    text
}

// ---------------------------------------------------------------------------------------------
// After an edit

/// Lints each edited file with its language's command; project-level languages are checked at
/// commit time; markdown, artefacts, dot-paths, unknown languages, large files and EJS-style
/// templates are skipped silently.
pub fn after_edit(paths: &[PathBuf], cwd: &Path, env: &Env, session: Option<&str>) -> Answer {
    saved_files(paths, cwd, env, session, Loud::Always)
        .map_or(Answer::Allow, |(text, user)| Answer::Context { text, user: Some(user) })
}

/// Lints the files an `apply_patch` run through the shell wrote (the edits seen only as a
/// pre-tool-use): like [`after_edit`], but silent about what passed, since the result arrives
/// with an unrelated later event.
pub fn after_patch(paths: &[PathBuf], cwd: &Path, env: &Env, session: Option<&str>) -> Answer {
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
    let blocking: Vec<&safety::Finding> = findings.iter().filter(|f| !f.allowed).collect();
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
    let options = RunOptions { deadline: SAVE_DEADLINE, jobs: 1 };
    let prefix = format!("save-{}", report::path_key(&canonical));
    let request = LintRequest::worktree_files(&root, &files, std::slice::from_ref(&lang.id), options, prefix);
    let mut result = lint::lint(&request, env, &|_| {}).ok()?.into_iter().next()?;
    let mut fixed = None;
    if result.status == Status::Fail && config.auto_fix_on_save() {
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

/// The detected languages whose lint (or its probe) executes repository content, as
/// `id (program)`.
fn repo_code_linters(registry: &Registry, detected: &[crate::registry::DetectedLanguage]) -> Vec<String> {
    use crate::registry::CommandField;
    detected
        .iter()
        .filter_map(|d| registry.get(&d.id))
        .filter(|l| crate::lint_plan::Job::runs_repo_code(l, CommandField::Lint))
        .map(|l| format!("{} ({})", l.id, l.lint_program().unwrap_or("its linter")))
        .collect()
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
        || crate::lint_plan::Job::runs_repo_code(lang, crate::registry::CommandField::Format);
    if own && !crate::trust::is_trusted(env, root, config) {
        return None;
    }
    let argv = crate::lint_plan::scoped(format, &[rel.to_owned()]).into_iter().next()?;
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
            let histogram = rule_histogram(&result.output);
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

// ---------------------------------------------------------------------------------------------
// Stop

/// The end-of-turn summary: what was checked in this session (per language), the bypasses since
/// the last summary, and a warning when linters are still bypassed in this repository. Never
/// continues the turn (and says nothing when the host reports a Stop hook already ran).
pub fn stop(event: &HookEvent, cwd: &Path, env: &Env) -> Answer {
    if event.stop_hook_active {
        return Answer::Allow;
    }
    let Some((root, skip_gate)) = crate::intent::repository_at(cwd) else { return Answer::Allow };
    let scope = Scope::new(event.session_id.as_deref(), &root);
    let stats = crate::state::session::take(env, &scope).unwrap_or_default();
    let bypasses = bypasses_since_last_stop(env, &scope);
    let mut text = String::new();
    if !stats.languages.is_empty() {
        let _ = writeln!(text, "[codeguard] lint checks this session in {}:", root.display());
        for (lang, s) in &stats.languages {
            let _ = writeln!(
                text,
                "- {lang}: {} checked, {} passed, {} failed, {} unverified, {} auto-fixed",
                s.total, s.passed, s.failed, s.unverified, s.auto_fixed
            );
        }
    }
    if !bypasses.is_empty() {
        let mut kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for b in &bypasses {
            *kinds.entry(b.kind.as_str()).or_default() += 1;
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
        let _ = writeln!(
            text,
            "[codeguard] gate bypassed {} time(s) this session ({}); bypassed commits skipped the linters (the safety scan still ran, except for env).",
            bypasses.len(),
            kinds.join(", ")
        );
    }
    if skip_gate {
        let _ = writeln!(
            text,
            "[codeguard] codeguard.skipGate is still set in {}: linters are skipped for every commit in this repository (all branches). Remove it with `git -C {} config --unset codeguard.skipGate`.",
            root.display(),
            root.display()
        );
    }
    if text.is_empty() { Answer::Allow } else { Answer::context(text.trim_end().to_owned()) }
}

/// Bypasses recorded for this session since the previous summary (a per-scope cursor in the
/// state directory), so each is reported once.
fn bypasses_since_last_stop(env: &Env, scope: &Scope) -> Vec<crate::state::audit::Bypass> {
    let Some(session) = scope.session() else { return Vec::new() };
    let cursor = crate::state::home(env).join("sessions").join(format!("{}.stop-cursor", scope.key()));
    let since: u64 = std::fs::read_to_string(&cursor).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
    let found: Vec<_> = crate::state::audit::bypasses(env, Some(session))
        .into_iter()
        .filter(|b| b.ts_ms > since && b.repo.starts_with(scope.worktree()))
        .collect();
    let _ = crate::state::write_private(&cursor, crate::state::now_ms().to_string().as_bytes());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_that_ask_to_commit_or_push_now() {
        for (prompt, expected) in [
            ("commit this", PromptIntent::Commit),
            ("Please commit the changes.", PromptIntent::Commit),
            ("git push", PromptIntent::Push),
            ("Fix the tests, then push.", PromptIntent::Push),
            ("ok, deploy it now", PromptIntent::Commit),
            ("帮我提交代码", PromptIntent::Commit),
            ("请推送到远程", PromptIntent::Push),
            ("现在发布", PromptIntent::Commit),
        ] {
            assert_eq!(prompt_intent(prompt), Some(expected), "{prompt}");
        }
    }

    #[test]
    fn questions_negations_past_tense_and_discussion_do_not_trigger() {
        for prompt in [
            "Should I commit this?",
            "can you explain what git push does",
            "我刚才 pushed 了",
            "别提交这些文件",
            "不要推送",
            "don't commit yet",
            "I already pushed the branch",
            "the commit message looks wrong",
            "what does this deploy script do?",
            "提交了吗",
            "refactor the deployment module",
        ] {
            assert_eq!(prompt_intent(prompt), None, "{prompt}");
        }
    }
}
