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
    let _ = crate::fs::write_private(&cursor, crate::state::now_ms().to_string().as_bytes());
    found
}
