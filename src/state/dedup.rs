//! Event dedup for doubly installed copies: the second copy of a hook that fires for the same
//! event within [`WINDOW_MS`] stays silent, or replays the first copy's block.
//!
//! **In:** an [`EventKey`] built from the event's identity (see the constructors) and the
//! [`Scope`]. **Out:** three small JSON maps in the state directory, one per event family, of
//! `hash(scope, key) → {ts_ms, replay}`; entries older than [`PURGE_MS`] are dropped on every
//! write. Completion is recorded by the caller only after its answer was delivered, so a copy
//! that dies half-way never silences the other. Lookups read without the lock (files are
//! replaced atomically); a record that cannot get the lock in time is skipped: no dedup, never
//! a hang.
//! **Never:** stores a pass for `PreToolUse` (a pass must be re-decided: the content may have
//! changed), or any key text (only hashes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::session::Scope;
use crate::env::Env;

/// A completed event suppresses (or replays to) a second copy for this long.
pub(crate) const WINDOW_MS: u64 = 2_000;

/// Entries older than this are dropped.
pub(crate) const PURGE_MS: u64 = 60_000;

/// Once-per-firing events (`SessionStart`, `Stop`, `UserPromptSubmit`).
pub(crate) const EVENTS_FILE: &str = "event_dedup.json";
/// Completed `PreToolUse` blocks.
pub(crate) const RESULTS_FILE: &str = "gate_event_results.json";
/// Completed `PostToolUse` checks.
pub(crate) const FILES_FILE: &str = "file_dedup.json";

/// Which store an event family uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Store {
    Events,
    Results,
    Files,
}

impl Store {
    fn file(self) -> &'static str {
        match self {
            Self::Events => EVENTS_FILE,
            Self::Results => RESULTS_FILE,
            Self::Files => FILES_FILE,
        }
    }
}

/// The identity of one hook firing, hashed with its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventKey {
    store: Store,
    hash: String,
}

impl EventKey {
    fn new(store: Store, scope: &Scope, parts: &[&[u8]]) -> Self {
        let scope_key = scope.key();
        let mut all: Vec<&[u8]> = vec![scope_key.as_bytes()];
        all.extend_from_slice(parts);
        Self { store, hash: super::key_of(&all) }
    }

    /// `SessionStart` of a session; `None` without a session id (nothing to dedup on).
    pub(crate) fn session_start(scope: &Scope) -> Option<Self> {
        scope.session().map(|_| Self::new(Store::Events, scope, &[b"start"]))
    }

    /// `Stop` of a session; `None` without a session id.
    pub(crate) fn stop(scope: &Scope) -> Option<Self> {
        scope.session().map(|_| Self::new(Store::Events, scope, &[b"stop"]))
    }

    /// `PreToolUse` of one tool call for one host dialect (the replayed answer is encoded for
    /// it); `None` without a tool-use id, since a command alone is not one firing.
    pub(crate) fn pre_tool_use(
        scope: &Scope,
        host: &str,
        tool_use_id: Option<&str>,
        command: &str,
    ) -> Option<Self> {
        let id = tool_use_id.filter(|id| !id.trim().is_empty())?;
        Some(Self::new(Store::Results, scope, &[b"pre", host.as_bytes(), id.as_bytes(), command.as_bytes()]))
    }

    /// `PostToolUse` of a saved file: its path, its content stamp (content and mode, see
    /// `crate::cache::file_stamp`) and the identity of the check that would run on it.
    pub(crate) fn post_tool_use(
        scope: &Scope,
        file: &Path,
        content_stamp: &str,
        check_identity: &str,
    ) -> Self {
        Self::new(
            Store::Files,
            scope,
            &[
                b"post",
                file.as_os_str().as_encoded_bytes(),
                content_stamp.as_bytes(),
                check_identity.as_bytes(),
            ],
        )
    }

    /// `UserPromptSubmit`: the prompt text and the content identity of the worktree it gates.
    pub(crate) fn user_prompt(scope: &Scope, prompt: &str, content_identity: &str) -> Self {
        Self::new(Store::Events, scope, &[b"ups", prompt.as_bytes(), content_identity.as_bytes()])
    }
}

/// A delivered block, replayed to a second copy (which encodes it for its own host request).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Replay {
    /// The block's report.
    pub report: String,
}

/// A recorded completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Completed {
    /// When (ms since the epoch).
    pub ts_ms: u64,
    /// The answer to replay, for events that replay one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
}

type Table = BTreeMap<String, Completed>;

fn path(env: &Env, store: Store) -> PathBuf {
    super::home(env).join(store.file())
}

/// The completion of `key` within the window, if one was recorded.
pub(crate) fn recent(env: &Env, key: &EventKey) -> Option<Completed> {
    recent_at(env, key, super::now_ms())
}

fn recent_at(env: &Env, key: &EventKey, now: u64) -> Option<Completed> {
    let table: Table = super::read_json(&path(env, key.store));
    table.get(&key.hash).filter(|c| c.ts_ms <= now && now - c.ts_ms <= WINDOW_MS).cloned()
}

/// Records that `key` completed (call only after the answer was delivered).
pub(crate) fn complete(env: &Env, key: &EventKey) -> std::io::Result<()> {
    complete_at(env, key, None, super::now_ms())
}

/// Records that `key` completed with an answer a second copy should replay (for `PreToolUse`,
/// only ever a block).
pub(crate) fn complete_with(env: &Env, key: &EventKey, replay: &Replay) -> std::io::Result<()> {
    complete_at(env, key, Some(replay.clone()), super::now_ms())
}

fn complete_at(env: &Env, key: &EventKey, replay: Option<Replay>, now: u64) -> std::io::Result<()> {
    super::update_json(&path(env, key.store), |table: &mut Table| {
        table.retain(|_, c| {
            c.ts_ms <= now.saturating_add(WINDOW_MS) && now.saturating_sub(c.ts_ms) <= PURGE_MS
        });
        table.insert(key.hash.clone(), Completed { ts_ms: now, replay });
    })
}

/// Entries currently held per store file (for `codeguard state show`).
pub(crate) fn counts(env: &Env) -> Vec<(&'static str, usize)> {
    [Store::Events, Store::Results, Store::Files]
        .into_iter()
        .map(|s| (s.file(), super::read_json::<Table>(&path(env, s)).len()))
        .collect()
}

/// Forgets every recorded completion.
pub(crate) fn clear(env: &Env) -> std::io::Result<()> {
    for store in [Store::Events, Store::Results, Store::Files] {
        super::remove(&path(env, store))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_env as env;

    #[test]
    fn a_completion_is_seen_within_the_window_only() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let scope = Scope::new(Some("s"), Path::new("/w"));
        let key = EventKey::session_start(&scope).expect("key");
        assert!(recent(&env, &key).is_none());
        complete_at(&env, &key, None, 10_000).expect("complete");
        assert!(recent_at(&env, &key, 10_500).is_some());
        assert!(recent_at(&env, &key, 12_000).is_some());
        assert!(recent_at(&env, &key, 12_001).is_none(), "outside the window");
        assert!(recent_at(&env, &key, 9_000).is_none(), "a completion from the future is ignored");
        let other = EventKey::stop(&scope).expect("key");
        assert!(recent_at(&env, &other, 10_500).is_none(), "keys differ by event");
        let elsewhere = EventKey::session_start(&Scope::new(Some("s"), Path::new("/v"))).expect("key");
        assert!(recent_at(&env, &elsewhere, 10_500).is_none(), "keys differ by worktree");
    }

    #[test]
    fn old_entries_are_purged_on_write() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let scope = Scope::new(Some("s"), Path::new("/w"));
        for (i, t) in [(0, 1_000), (1, 50_000), (2, 70_000)] {
            let key = EventKey::user_prompt(&scope, &format!("commit {i}"), "id");
            complete_at(&env, &key, None, t).expect("complete");
        }
        assert_eq!(counts(&env)[0], (EVENTS_FILE, 2), "the entry from 1 s was purged at 70 s");
    }

    #[test]
    fn keys_need_their_ids_and_replays_round_trip() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        let anonymous = Scope::new(None, Path::new("/w"));
        assert!(EventKey::session_start(&anonymous).is_none());
        assert!(EventKey::stop(&anonymous).is_none());
        assert!(EventKey::pre_tool_use(&anonymous, "claude", None, "git commit").is_none());
        assert!(EventKey::pre_tool_use(&anonymous, "claude", Some(" "), "git commit").is_none());
        let key = EventKey::pre_tool_use(&anonymous, "claude", Some("t1"), "git commit").expect("key");
        let block = Replay { report: "blocked\n".into() };
        complete_with(&env, &key, &block).expect("record");
        assert_eq!(recent(&env, &key).and_then(|c| c.replay), Some(block));
        let other_command =
            EventKey::pre_tool_use(&anonymous, "claude", Some("t1"), "git push").expect("key");
        assert!(recent(&env, &other_command).is_none());
        let a = EventKey::post_tool_use(&anonymous, Path::new("a.py"), "stamp1", "check");
        let b = EventKey::post_tool_use(&anonymous, Path::new("a.py"), "stamp2", "check");
        complete(&env, &a).expect("a");
        assert!(recent(&env, &a).is_some() && recent(&env, &b).is_none(), "new content is checked again");
        clear(&env).expect("clear");
        assert!(recent(&env, &a).is_none());
    }
}
