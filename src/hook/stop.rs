//! `Stop`: the end-of-turn summary — what was checked in this session, the bypasses since the
//! last summary, and a warning while linters are still bypassed. Never continues the turn.

use std::fmt::Write as _;
use std::path::Path;

use crate::env::Env;
use crate::host::{Answer, HookEvent};
use crate::state::session::Scope;

/// The end-of-turn summary: what was checked in this session (per language), the bypasses since
/// the last summary, and a warning when linters are still bypassed in this repository. Never
/// continues the turn (and says nothing when the host reports a Stop hook already ran).
pub(super) fn run(event: &HookEvent, cwd: &Path, env: &Env) -> Answer {
    if event.stop_hook_active {
        return Answer::Allow;
    }
    let Some((root, skip_gate)) = crate::intent::repository_at(cwd) else { return Answer::Allow };
    let scope = Scope::new(event.session_id.as_deref(), &root);
    let stats = crate::state::session::take(env, &scope).unwrap_or_default();
    let (bypasses, rules) = since_last_stop(env, &scope);
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
        let mut kinds: std::collections::BTreeMap<&str, (usize, &str)> = std::collections::BTreeMap::new();
        for b in &bypasses {
            kinds.entry(b.kind.as_str()).or_insert((0, b.kind.meaning())).0 += 1;
        }
        let _ = writeln!(
            text,
            "[codeguard] gate bypassed {} time(s) this session (the safety scan still ran, except for CODEGUARD_SKIP_GATE):",
            bypasses.len()
        );
        for (kind, (n, meaning)) in &kinds {
            let _ = writeln!(text, "- {kind} ×{n}: {meaning}");
        }
    }
    if !rules.is_empty() {
        let _ = writeln!(
            text,
            "[codeguard] the agent committed changes to the linters' configuration this session — review them: {}",
            rules.join(", ")
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

/// The file holding when the scope's last summary was given (or its session started).
fn cursor(env: &Env, scope: &Scope) -> std::path::PathBuf {
    crate::state::home(env).join("sessions").join(format!("{}.stop-cursor", scope.key()))
}

/// Opens the session's summary window at its start (`SessionStart`): the first Stop summary then
/// also lists the bypasses git's own hooks honoured in this repository since the session began
/// (they carry no session id: the agent's `git` ran them), not those of earlier sessions.
pub(super) fn open_window(session: Option<&str>, cwd: &Path, env: &Env) {
    let Some((root, _)) = crate::intent::repository_at(cwd) else { return };
    let scope = Scope::new(session, &root);
    if scope.session().is_some() {
        let cursor = cursor(env, &scope);
        if let Some(dir) = cursor.parent() {
            crate::state::sweep(
                dir,
                std::time::Duration::from_secs(crate::state::SESSION_RECORD_DAYS * 86_400),
            );
        }
        let _ = crate::fs::write_private(&cursor, crate::state::now_ms().to_string().as_bytes());
    }
}

/// Bypasses since the previous summary (a per-scope cursor in the state directory), so each is
/// reported once: the ones recorded for this session, and — once the session's start opened the
/// window — the ones git's own hooks honoured in this repository (`CODEGUARD_SKIP_GATE`,
/// `codeguard.skipGate`), which carry no session id.
///
/// With them, the files of the agent's commits and pushes that changed lint rule configuration
/// and were let through since the previous summary (each file once).
fn since_last_stop(env: &Env, scope: &Scope) -> (Vec<crate::state::audit::Bypass>, Vec<String>) {
    let Some(session) = scope.session() else { return (Vec::new(), Vec::new()) };
    let cursor = cursor(env, scope);
    let opened: Option<u64> = std::fs::read_to_string(&cursor).ok().and_then(|t| t.trim().parse().ok());
    let since = opened.unwrap_or(0);
    let mut rules: Vec<String> = Vec::new();
    for r in crate::state::audit::rule_changes(env, Some(session)) {
        if r.ts_ms > since && r.repo.starts_with(scope.worktree()) {
            for file in r.files {
                if !rules.contains(&file) {
                    rules.push(file);
                }
            }
        }
    }
    let mut found: Vec<crate::state::audit::Bypass> = Vec::new();
    for b in crate::state::audit::bypasses(env, None) {
        let ours = match b.session.as_deref() {
            Some(s) => s == session,
            None => opened.is_some(),
        };
        if !ours || b.ts_ms <= since || !b.repo.starts_with(scope.worktree()) {
            continue;
        }
        // One commit passes git's pre-commit hook and then its backstop, and both record the
        // same environment bypass: a record of the same kind in the same repository within
        // seconds of the previous one is that same commit.
        let same_commit = found.last().is_some_and(|last| {
            b.session.is_none()
                && last.kind == b.kind
                && last.repo == b.repo
                && b.ts_ms.saturating_sub(last.ts_ms) < 5_000
        });
        if !same_commit {
            found.push(b);
        }
    }
    let _ = crate::fs::write_private(&cursor, crate::state::now_ms().to_string().as_bytes());
    (found, rules)
}
