//! The content engine: one verdict on the content a commit or push would carry, for every entry
//! point (the agent gate, git's pre-commit and pre-push hooks, `check --staged` (and, for its safety scan only, `check --changed`) and
//! the MCP `check` tool).
//!
//! **In:** a [`Surface`] (what lands) and a [`Policy`] (the only things that differ per entry
//! point: whether the linters run, their deadline, the languages).
//! **Out:** a [`ContentVerdict`]: per-language results, safety findings, and the reasons the
//! verdict is incomplete. Entry points only pick a policy and render; whether an incomplete
//! verdict blocks is theirs to say (`crate::exit` and their own policy), never the engine's.
//!
//! Order and guarantees: the safety scan runs first and reads every blob of the surface from
//! the object database (worktree files for content `git add` would take, read raw), plus every
//! blob each pushed commit introduces. No policy turns it off, and nothing that happens later —
//! a snapshot that cannot be made, linters that cannot start, a repository that changes
//! meanwhile — removes its findings. Then, unless the policy bypasses them, the linters run on
//! the materialised snapshot, and the snapshot is re-verified.
//! **Never:** runs git, filters or hooks; writes to the repository.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::config_change;
use crate::env::Env;
use crate::lint;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::registry::GateScope;
use crate::run::RunOptions;
use crate::safety::{self, AllowList, Scanner};
use crate::secrets::Finding;
use crate::snapshot::{self, Snapshot, SnapshotOptions, Source};
use crate::surface::Surface;

/// Total bytes the scan reads for one surface before the rest is reported as unscannable.
const SCAN_BUDGET_BYTES: u64 = 4 * 1024 * 1024 * 1024;

/// Time the scan may take for one surface (well inside the gate's budget and the hosts' hook
/// timeouts); what is left then is reported as unscannable, which blocks — never a silent pass
/// by the host's timeout.
const SCAN_TIME: std::time::Duration = std::time::Duration::from_secs(60);

/// What differs between entry points.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    /// Whether the linters run.
    pub linters: Linters,
    /// Deadline for each linter run.
    pub deadline: Duration,
    /// Log files are named `<log_prefix>-<language>.log`.
    pub log_prefix: String,
    /// Only these languages (empty: all).
    pub only: Vec<String>,
    /// The content comes from an agent: a change to the allow list blocks (only a person may
    /// allow a finding, so an agent cannot commit an allowance and then the secret).
    pub agent: bool,
    /// Work out the change's identity ([`ContentVerdict::change`]): git's pre-commit hook hands
    /// it to the backstop. ([`Linters::UnlessJudged`] works it out whatever this says.)
    pub identify: bool,
    /// Files whose clean result is known are not linted again (`crate::cache::file_results`).
    pub reuse: bool,
}

/// Whether the linters run (the safety scan always does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Linters {
    /// They run.
    Run,
    /// A bypass the user or agent is allowed to use skips them; the text names it.
    Bypassed(String),
    /// They run unless they already ran on exactly this change (this is its
    /// [`ContentVerdict::change`]: the same parent, the same blobs at the same paths) and let it
    /// through; then only the safety scan runs, and nothing is said about the linters again.
    /// git's reference-transaction backstop after codeguard's own pre-commit hook.
    UnlessJudged(String),
}

/// The engine's verdict on one surface.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContentVerdict {
    /// Per-language lint results (empty when the linters did not run).
    pub languages: Vec<LanguageResult>,
    /// Safety findings, allowed ones included.
    pub findings: Vec<Finding>,
    /// Why the verdict is not complete, beyond UNVERIFIED languages.
    pub incomplete: Vec<String>,
    /// The agent's changes to rule configuration (agent policies only), each saying whether the
    /// linters ran with the base's rules instead.
    pub rule_changes: Vec<crate::config_change::RuleChange>,
    /// The identity of the change judged, when the policy asked for it: the commit it grows
    /// from and every changed path with its blob, and the deleted paths (`None` when some
    /// content is not a blob yet, e.g. worktree files `git add` would take).
    pub change: Option<String>,
}

impl ContentVerdict {
    /// A confirmed lint failure or a blocking safety finding.
    pub(crate) fn fails(&self) -> bool {
        self.languages.iter().any(|l| l.status == Status::Fail) || safety::blocks(&self.findings)
    }

    /// Every reason the verdict is incomplete: the engine's notes, then each language that
    /// reached no conclusion (`language: reason`).
    pub(crate) fn incomplete_reasons(&self) -> Vec<String> {
        let languages = self.languages.iter().filter_map(|l| match l.status {
            Status::Unverified | Status::Planned => {
                Some(format!("{} {}: {}", l.language, l.status, language_reason(l)))
            }
            Status::Pass | Status::Fail | Status::Skipped => None,
        });
        self.incomplete.iter().cloned().chain(languages).collect()
    }
}

fn language_reason(lang: &LanguageResult) -> String {
    let mut reason = if lang.reason.is_empty() { "no conclusion".to_owned() } else { lang.reason.clone() };
    // A tool-missing reason already names the install command (`run` writes it there); a tool
    // that ran and said what went wrong (its configuration, the environment, a dialect) is not
    // helped by installing it again: only one that could not be executed is.
    if !lang.install_hint.is_empty() && lang.cause == Some(crate::outcome::Reason::CannotRun) {
        let _ = write!(reason, " (install: {})", lang.install_hint);
    }
    reason
}

/// Judges the content `surface` predicts under `policy`.
pub(crate) fn judge(surface: &Surface, policy: &Policy, env: &Env) -> ContentVerdict {
    let allow = safety::committed_allow_list(&surface.root);
    let mut verdict = ContentVerdict { incomplete: surface.unverified.clone(), ..ContentVerdict::default() };
    let content = snapshot::Content::read(surface);
    verdict.findings = scan_with(surface, &allow, content.as_ref());
    if policy.identify || matches!(policy.linters, Linters::UnlessJudged(_)) {
        verdict.change = content.as_ref().ok().and_then(|content| change_identity(surface, content));
    }
    if policy.agent {
        let touched = surface.paths.iter().chain(&surface.deleted).any(|p| p == safety::ALLOW_FILE);
        if touched {
            verdict.findings.push(safety::allow_list_change());
        }
    }
    let support = crate::registry::Registry::builtin().map(|r| r.support_files());
    // An agent's change to the rules is named, and linted with the base's rules (see
    // `config_change`); the safety scan above read the real content.
    let (lint_surface, rules) = match (content.as_ref(), support.as_ref()) {
        (Ok(content), Ok(support)) if policy.agent => config_change::plan(surface, content, support),
        _ => (Cow::Borrowed(surface), Vec::new()),
    };
    verdict.rule_changes = rules;
    let surface = lint_surface.as_ref();
    if surface.paths.is_empty() {
        return verdict;
    }
    match &policy.linters {
        Linters::UnlessJudged(change) if verdict.change.as_ref() == Some(change) => return verdict,
        Linters::Run | Linters::UnlessJudged(_) => {}
        Linters::Bypassed(why) => {
            verdict.incomplete.push(format!("language linters skipped by {why}; the safety scan ran"));
            return verdict;
        }
    }
    let support = match support {
        Ok(support) => support,
        Err(e) => {
            verdict
                .incomplete
                .push(format!("the language registry could not be read ({e}); linters did not run"));
            return verdict;
        }
    };
    match snapshot_with(surface, content, &support, env) {
        Err(e) => verdict.incomplete.push(e),
        Ok(mut snapshot) => {
            let options = RunOptions {
                deadline: policy.deadline,
                jobs: crate::run::default_jobs(),
                reuse: policy.reuse,
            };
            let linted = lint::lint_snapshot(
                &mut snapshot,
                &surface.root,
                &policy.only,
                options,
                &policy.log_prefix,
                true,
                env,
            );
            match linted {
                Ok(results) => verdict.languages = results,
                Err(e) => verdict.incomplete.push(format!("linting could not start: {e}")),
            }
            verdict.incomplete.extend(snapshot.notes().iter().cloned());
            let project = crate::project::Project::load(snapshot.root()).ok();
            if let Some(project) = project.filter(|p| p.config.gate_scope() == GateScope::Delta) {
                crate::baseline::exempt(
                    &project.registry,
                    &mut verdict.languages,
                    &snapshot,
                    surface,
                    policy.deadline,
                    &policy.log_prefix,
                    env,
                );
            }
            if let Err(e) = snapshot.reverify() {
                verdict.incomplete.push(format!("{e}; the result may not match what lands"));
            }
        }
    }
    verdict
}

/// The content `surface` predicts, written for the linters with the configuration they read
/// (`content` is its listing, read once for the scan too); the note why not, when it cannot be.
/// The gate lints it; `explain` plans on it and runs nothing.
pub(crate) fn snapshot_for_linters(
    surface: &Surface,
    content: Result<snapshot::Content, crate::snapshot::SnapshotError>,
    env: &Env,
) -> Result<Snapshot, String> {
    let support = crate::registry::Registry::builtin()
        .map_err(|e| format!("the language registry could not be read ({e}); linters did not run"))?
        .support_files();
    snapshot_with(surface, content, &support, env)
}

/// [`snapshot_for_linters`] with the registry's support files already read.
fn snapshot_with(
    surface: &Surface,
    content: Result<snapshot::Content, crate::snapshot::SnapshotError>,
    support: &crate::registry::SupportFiles,
    env: &Env,
) -> Result<Snapshot, String> {
    let options = SnapshotOptions::from_env(env);
    content
        .and_then(|content| Snapshot::from_content(content, surface, &options, support))
        .map_err(|e| format!("the exact content could not be rebuilt ({e}); linters did not run"))
}

/// The identity of the change `surface` carries (see [`ContentVerdict::change`]): a staged
/// commit grows from `HEAD`, a landed range of exactly one commit from its parent; every
/// changed path must come from a blob.
fn change_identity(surface: &Surface, content: &snapshot::Content) -> Option<String> {
    let parent = match &surface.push {
        None => surface.observed.head,
        Some(range) if range.commits == 1 => range.baseline,
        Some(_) => return None,
    };
    let mut parts: Vec<Vec<u8>> = vec![parent.map(|id| id.as_bytes().to_vec()).unwrap_or_default()];
    let mut blobs = Vec::new();
    for (path, source) in content.sources(surface, &surface.paths) {
        let Source::Blob(id) = source else { return None };
        blobs.push((path, id));
    }
    blobs.sort();
    for (path, id) in blobs {
        parts.push(path.into_bytes());
        parts.push(id.as_bytes().to_vec());
    }
    parts.push(b"deleted".to_vec());
    parts.extend(surface.deleted.iter().map(|p| p.as_bytes().to_vec()));
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    Some(crate::state::key_of(&parts))
}

/// The safety scan of everything `surface` would carry: the path rules over every changed
/// path, the content rules over every changed file's bytes, and over every blob a pushed commit
/// introduces. What cannot be read is an unscannable finding. A submodule carries no content of
/// this repository (only a commit id), so there is nothing to scan in it.
pub(crate) fn scan_surface(surface: &Surface, allow: &AllowList) -> Vec<Finding> {
    scan_with(surface, allow, snapshot::Content::read(surface).as_ref())
}

/// [`scan_surface`] over a listing already read (or the reason it could not be).
fn scan_with(
    surface: &Surface,
    allow: &AllowList,
    content: Result<&snapshot::Content, &snapshot::SnapshotError>,
) -> Vec<Finding> {
    let mut scanner = Scanner::new(allow);
    let mut budget = Budget { bytes: SCAN_BUDGET_BYTES, until: std::time::Instant::now() + SCAN_TIME };
    for path in &surface.paths {
        scanner.path(path);
    }
    let repo = match crate::git::open_worktree(&surface.root) {
        Ok(repo) => repo,
        Err(e) => {
            for path in &surface.paths {
                scanner.unscannable(path, &format!("the repository could not be opened: {e}"));
            }
            return scanner.finish();
        }
    };
    let mut seen = std::collections::HashSet::new();
    match content.map(|c| c.sources(surface, &surface.paths)) {
        Ok(sources) => {
            let listed: std::collections::BTreeSet<&str> = sources.iter().map(|(p, _)| p.as_str()).collect();
            for path in surface.paths.iter().filter(|p| !listed.contains(p.as_str())) {
                scanner.unscannable(path, "it is not in the content the prediction read");
            }
            for (path, source) in &sources {
                if surface.paths.binary_search(path).is_err() {
                    scanner.path(path);
                }
                match source {
                    Source::Blob(id) => {
                        seen.insert(*id);
                        scan_blob(&repo, &mut scanner, &mut budget, path, *id, None);
                    }
                    Source::Worktree(from) => {
                        scan_file(&mut scanner, &mut budget, path, &surface.root.join(from), None);
                    }
                    Source::Gitlink => {}
                    Source::Unknown(why) => scanner.unscannable(path, why),
                }
            }
        }
        Err(e) => {
            for path in &surface.paths {
                scanner.unscannable(path, &format!("the content listing could not be read: {e}"));
            }
        }
    }
    for raw in &surface.non_utf8_worktree {
        let name = raw.to_string_lossy().into_owned();
        scanner.path(&name);
        let origin = Some("a worktree file whose name is not UTF-8");
        scan_file(&mut scanner, &mut budget, &name, &surface.root.join(raw), origin);
    }
    if let Some(range) = &surface.push {
        for intro in range.introduced.iter().filter(|i| seen.insert(i.blob)) {
            scanner.path(&intro.path);
            let origin = format!("added in commit {}, part of this push", short(intro.commit));
            scan_blob(&repo, &mut scanner, &mut budget, &intro.path, intro.blob, Some(&origin));
        }
        let mut read = std::collections::HashSet::new();
        for id in range.messages.iter().filter(|id| read.insert(**id)) {
            scan_message(&repo, &mut scanner, *id);
        }
    }
    scanner.finish()
}

/// Scans the message of the commit or annotated tag `id` (its author, committer and tagger
/// lines too: all of it is published). An object that cannot be read is unscannable.
fn scan_message(repo: &gix::Repository, scanner: &mut Scanner<'_>, id: gix::ObjectId) {
    match repo.find_object(id) {
        Ok(object) => {
            let (label, what) = match object.kind {
                gix::object::Kind::Tag => {
                    (format!("tag {}", short(id)), format!("the tag object {}", short(id)))
                }
                _ => (format!("commit {}", short(id)), format!("the message of commit {}", short(id))),
            };
            scanner.message(&label, &what, &object.data);
        }
        Err(e) => scanner
            .unscannable(&format!("object {}", short(id)), &format!("its message could not be read: {e}")),
    }
}

/// Bytes the scan may still read.
struct Budget {
    bytes: u64,
    until: std::time::Instant,
}

impl Budget {
    fn take(&mut self, len: u64) -> Result<(), String> {
        if len > self.bytes {
            return Err(format!(
                "the scan already read {} MiB for this commit/push, its limit",
                SCAN_BUDGET_BYTES >> 20
            ));
        }
        if std::time::Instant::now() >= self.until {
            return Err(format!(
                "the scan ran past its {} s for this commit/push; retry, or commit fewer large files at once",
                SCAN_TIME.as_secs()
            ));
        }
        self.bytes -= len;
        Ok(())
    }
}

fn scan_blob(
    repo: &gix::Repository,
    scanner: &mut Scanner<'_>,
    budget: &mut Budget,
    path: &str,
    id: gix::ObjectId,
    origin: Option<&str>,
) {
    let size = match repo.find_header(id) {
        Ok(header) => header.size(),
        Err(e) => return scanner.unscannable(path, &format!("blob {id} could not be read: {e}")),
    };
    if size > safety::MAX_FILE_SCAN_BYTES {
        return scanner.unscannable(path, &safety::too_large(size));
    }
    if let Err(why) = budget.take(size) {
        return scanner.unscannable(path, &why);
    }
    match repo.find_blob(id) {
        Ok(blob) => scanner.content(path, &blob.data, origin),
        Err(e) => scanner.unscannable(path, &format!("blob {id} could not be read: {e}")),
    }
}

/// Scans the worktree file `file`, the content of `path` (raw bytes, a symlink as its target).
fn scan_file(scanner: &mut Scanner<'_>, budget: &mut Budget, path: &str, file: &Path, origin: Option<&str>) {
    match safety::read_worktree_file(file) {
        Ok(Some(bytes)) => match budget.take(bytes.len() as u64) {
            Ok(()) => scanner.content(path, &bytes, origin),
            Err(why) => scanner.unscannable(path, &why),
        },
        Ok(None) => {}
        Err(why) => scanner.unscannable(path, &why),
    }
}

fn short(id: gix::ObjectId) -> String {
    id.to_hex_with_len(10).to_string()
}
