//! Per-session lint statistics, scoped by the host's session id and the worktree root.
//!
//! **In:** a [`Scope`] and per-language outcomes (from `PostToolUse` saves and gate runs).
//! **Out:** `sessions/<key>.json` (or `session_state.json` when the host gives no session id,
//! which then has no isolation between sessions), read by `codeguard state show` and consumed
//! atomically by the Stop hook ([`take`]). Every field has a default, so a partial entry (say,
//! one holding only a notification time) reads as zeros instead of failing the hook.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::outcome::Status;

/// Sub-directory of the state directory holding one file per session and worktree.
pub(crate) const SESSIONS_DIR: &str = "sessions";

/// The file used when the host gives no session id.
pub(crate) const SHARED_FILE: &str = "session_state.json";

/// Who an event belongs to: a host session working in one worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    session: Option<String>,
    worktree: PathBuf,
}

impl Scope {
    /// A scope for `session` (an empty id counts as none) in `worktree` (the worktree root when
    /// known, else the directory the host reported).
    pub fn new(session: Option<&str>, worktree: &Path) -> Self {
        Self {
            session: session.filter(|s| !s.trim().is_empty()).map(str::to_owned),
            worktree: worktree.to_path_buf(),
        }
    }

    /// The host's session id, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The worktree.
    pub fn worktree(&self) -> &Path {
        &self.worktree
    }

    /// The stable key of this scope (session id and worktree, hashed).
    pub fn key(&self) -> String {
        super::key_of(&[
            self.session.as_deref().unwrap_or("").as_bytes(),
            self.worktree.as_os_str().as_encoded_bytes(),
        ])
    }
}

/// Counters of one language within a session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LanguageStats {
    /// Checks recorded.
    pub total: u64,
    /// Of which passed.
    pub passed: u64,
    /// Of which failed.
    pub failed: u64,
    /// Of which reached no conclusion (UNVERIFIED or PLANNED).
    pub unverified: u64,
    /// Failures a formatter fixed on save.
    pub auto_fixed: u64,
    /// When the user was last notified about this language (ms since the epoch, 0 = never).
    pub last_notify_ms: u64,
}

/// Everything recorded for one session in one worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionStats {
    /// The host's session id (absent in the shared file).
    pub session: Option<String>,
    /// The worktree.
    pub worktree: Option<PathBuf>,
    /// Per-language counters, by registry id.
    pub languages: BTreeMap<String, LanguageStats>,
    /// When the last update happened (ms since the epoch).
    pub updated_ms: u64,
}

/// The file holding a scope's statistics.
pub fn file(env: &Env, scope: &Scope) -> PathBuf {
    let home = super::home(env);
    match scope.session() {
        Some(_) => home.join(SESSIONS_DIR).join(format!("{}.json", scope.key())),
        None => home.join(SHARED_FILE),
    }
}

/// Records one check of `language` with `status`; `auto_fixed` when a formatter fixed it.
/// A SKIPPED check is not counted (and writes nothing).
pub(crate) fn record(
    env: &Env,
    scope: &Scope,
    language: &str,
    status: Status,
    auto_fixed: bool,
) -> std::io::Result<()> {
    let bump = |stats: &mut LanguageStats| match status {
        Status::Pass => stats.passed += 1,
        Status::Fail => stats.failed += 1,
        Status::Unverified | Status::Planned => stats.unverified += 1,
        Status::Skipped => {}
    };
    if status == Status::Skipped {
        return Ok(());
    }
    update(env, scope, |s| {
        let counters = s.languages.entry(language.to_owned()).or_default();
        counters.total += 1;
        bump(counters);
        counters.auto_fixed += u64::from(auto_fixed);
    })
}

/// Locked read-modify-write of a scope's statistics.
pub fn update(env: &Env, scope: &Scope, f: impl FnOnce(&mut SessionStats)) -> std::io::Result<()> {
    let path = file(env, scope);
    super::update_json(&path, |s: &mut SessionStats| {
        s.session = scope.session().map(str::to_owned);
        s.worktree = Some(scope.worktree().to_path_buf());
        f(s);
        s.updated_ms = super::now_ms();
    })
}

/// The statistics of a scope (empty when none were recorded).
pub fn read(env: &Env, scope: &Scope) -> SessionStats {
    super::read_json(&file(env, scope))
}

/// Reads and deletes a scope's statistics atomically (the Stop summary): updates recorded after
/// this call start a new file and are not lost.
pub(crate) fn take(env: &Env, scope: &Scope) -> std::io::Result<SessionStats> {
    super::take_json(&file(env, scope))
}

/// Every recorded session (the shared file included), most recently updated first.
pub(crate) fn list(env: &Env) -> Vec<(PathBuf, SessionStats)> {
    let home = super::home(env);
    let mut files: Vec<PathBuf> = std::fs::read_dir(home.join(SESSIONS_DIR))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.push(home.join(SHARED_FILE));
    let mut out: Vec<(PathBuf, SessionStats)> =
        files.into_iter().filter(|p| p.is_file()).map(|p| (p.clone(), super::read_json(&p))).collect();
    out.sort_by(|a, b| b.1.updated_ms.cmp(&a.1.updated_ms).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Deletes the statistics of every session, or only of the sessions with id `session`.
/// Returns how many files were removed.
pub(crate) fn clear(env: &Env, session: Option<&str>) -> std::io::Result<usize> {
    let mut removed = 0;
    for (path, stats) in list(env) {
        if session.is_none() || stats.session.as_deref() == session {
            super::remove(&path)?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_env as env;

    #[test]
    fn sessions_are_isolated_by_id_and_worktree() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let a = Scope::new(Some("s1"), Path::new("/repo/a"));
        let b = Scope::new(Some("s1"), Path::new("/repo/b"));
        let c = Scope::new(Some("s2"), Path::new("/repo/a"));
        record(&env, &a, "python", Status::Pass, false).expect("a");
        record(&env, &a, "python", Status::Fail, true).expect("a");
        record(&env, &b, "python", Status::Unverified, false).expect("b");
        record(&env, &c, "shell", Status::Skipped, false).expect("c");
        let got = read(&env, &a).languages["python"];
        assert_eq!((got.total, got.passed, got.failed, got.auto_fixed), (2, 1, 1, 1));
        assert_eq!(read(&env, &b).languages["python"].unverified, 1);
        assert!(read(&env, &c).languages.is_empty(), "skipped is not counted");
        assert_eq!(list(&env).len(), 2);
        let taken = take(&env, &a).expect("take");
        assert_eq!(taken.session.as_deref(), Some("s1"));
        assert!(read(&env, &a).languages.is_empty(), "consumed");
        assert_eq!(clear(&env, Some("s1")).expect("clear"), 1);
        assert!(list(&env).is_empty());
    }

    #[test]
    fn a_partial_entry_reads_as_zeros() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let scope = Scope::new(Some("s"), Path::new("/w"));
        let path = file(&env, &scope);
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(&path, r#"{"languages": {"python": {"last_notify_ms": 5}}}"#).expect("write");
        assert_eq!(read(&env, &scope).languages["python"].total, 0);
        record(&env, &scope, "python", Status::Pass, false).expect("record");
        let got = read(&env, &scope).languages["python"];
        assert_eq!((got.total, got.passed, got.last_notify_ms), (1, 1, 5));
    }

    #[test]
    fn no_session_id_uses_the_shared_file() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let scope = Scope::new(Some("  "), Path::new("/w"));
        assert_eq!(scope.session(), None);
        assert_eq!(file(&env, &scope), tmp.path().join(SHARED_FILE));
    }
}
