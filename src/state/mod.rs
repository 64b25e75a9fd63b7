//! Where codeguard keeps its files, and how they are read and updated.
//!
//! **In:** the state directory from the environment ([`home`]). **Out:** private files (0600 in
//! 0700 directories) written atomically by `crate::fs` ([`crate::fs::write_private`]: temp file in
//! the same directory, fsync, rename), so a concurrent reader sees the old or the new content,
//! never half of it. Every read-modify-write ([`update_json`], [`take_json`], the audit log) holds
//! the exclusive lock of its file ([`crate::fs::lock`], a sidecar `<file>.lock` that is never
//! replaced); a lock not had within [`LOCK_WAIT`] is an error the caller degrades on (a hook then
//! works without dedup), never a hang. A missing, corrupt or wrongly shaped file reads as empty
//! and is replaced on the next write; it never fails a hook.
//! **Never:** writes through a symlinked directory, or keeps a lock longer than one update.
//!
//! Layout of the state directory:
//!
//! | path | content |
//! |---|---|
//! | `sessions/<key>.json` | per-session, per-worktree lint stats ([`session`]) |
//! | `session_state.json` | the same when the host gives no session id |
//! | `event_dedup.json` | completed once-per-firing events ([`dedup`]) |
//! | `gate_event_results.json` | completed `PreToolUse` blocks, replayed to a second copy |
//! | `file_dedup.json` | completed `PostToolUse` checks per file, content and check identity |
//! | `pending/s-<id>.json`, `pending/<key>.json` | files an `apply_patch` run through the shell will write, per session ([`pending`]) |
//! | `audit.jsonl` | bypasses and decisions, last [`audit::KEEP`] lines ([`audit`]) |
//! | `trust.json` | trusted workspaces (`crate::trust`) |
//! | `soft-cache/<key>.json`, `stat-cache/<key>.tsv` | the soft result cache (`crate::cache`) |
//! | `cache/baseline/<key>.json` | project-level linters' results on a baseline tree (`crate::baseline`) |
//! | `cache/trees/`, `cache/build/` | the base-tree cache (`crate::snapshot`), build caches (`crate::run::warm`) |
//! | `logs/` | full linter output |
//! | `<file>.lock` | the sidecar lock of each file above |

pub(crate) mod audit;
pub(crate) mod caches;
pub(crate) mod dedup;
pub(crate) mod pending;
pub(crate) mod session;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) use audit::audit;

use crate::env::Env;

/// How long an update waits for another process's lock before giving up.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The state directory: `CODEGUARD_HOME`, else `$XDG_STATE_HOME/codeguard`, else `~/.codeguard`,
/// else a per-user directory under the system temp dir.
pub(crate) fn home(env: &Env) -> PathBuf {
    if let Some(dir) = env.get("CODEGUARD_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = env.get("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir).join("codeguard");
    }
    env.home().map_or_else(|| crate::env::temp_dir().join("codeguard-state"), |h| h.join(".codeguard"))
}

/// The directory holding full linter logs.
pub(crate) fn log_dir(env: &Env) -> PathBuf {
    home(env).join("logs")
}

/// Milliseconds since the Unix epoch (0 when the clock is before it).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A short, stable, file-name-safe key for any text (blake3, hex, 32 characters).
pub(crate) fn key_of(parts: &[&[u8]]) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().to_hex()[..32].to_owned()
}

/// Runs `f` while holding the exclusive lock of `path` (waiting at most [`LOCK_WAIT`]).
pub(crate) fn with_lock<T>(path: &Path, f: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let _lock = crate::fs::lock(path, LOCK_WAIT)?;
    f()
}

/// Reads a JSON state file. Missing, unreadable, corrupt or wrongly shaped → `T::default()`.
pub(crate) fn read_json<T: DeserializeOwned + Default>(path: &Path) -> T {
    std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
}

/// Locked read-modify-write of a JSON state file: reads it (as [`read_json`]), lets `f` change
/// it, writes it back atomically and returns what `f` returned.
pub(crate) fn update_json<T, R>(path: &Path, f: impl FnOnce(&mut T) -> R) -> std::io::Result<R>
where
    T: Serialize + DeserializeOwned + Default,
{
    with_lock(path, || {
        let mut value: T = read_json(path);
        let out = f(&mut value);
        crate::fs::write_private(path, &serde_json::to_vec(&value).map_err(std::io::Error::other)?)?;
        Ok(out)
    })
}

/// Locked read-and-delete of a JSON state file (consumption: writes that come after it survive).
pub(crate) fn take_json<T: DeserializeOwned + Default>(path: &Path) -> std::io::Result<T> {
    with_lock(path, || {
        let value = read_json(path);
        match std::fs::remove_file(path) {
            Ok(()) => Ok(value),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(value),
            Err(e) => Err(e),
        }
    })
}

/// The files directly in `dir` whose extension is `ext` (none when `dir` cannot be read).
pub(crate) fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default()
}

/// Removes a state file and its sidecar lock; a missing file is not an error.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    for file in [path.to_path_buf(), crate::fs::lock_path(path)] {
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// How long a per-session record (a session's start, its summary cursor) is kept: sessions
/// that old are over.
pub(crate) const SESSION_RECORD_DAYS: u64 = 30;

/// Removes the regular files directly in `dir` last written more than `max_age` ago, looking at
/// no more than [`SWEEP_LIMIT`] entries: per-session records that nobody removes otherwise stay
/// bounded. Best effort (a file that cannot be read or removed is left).
pub(crate) fn sweep(dir: &Path, max_age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    for entry in entries.filter_map(Result::ok).take(SWEEP_LIMIT) {
        let old = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .is_some_and(|at| now.duration_since(at).is_ok_and(|age| age > max_age));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Most entries one [`sweep`] looks at.
const SWEEP_LIMIT: usize = 4096;

/// An environment whose state directory is `home` (for unit tests).
#[cfg(test)]
pub(crate) fn test_env(home: &Path) -> Env {
    Env::from_pairs([("CODEGUARD_HOME", home.as_os_str())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_removes_only_what_is_older_than_the_age() {
        let dir = tempfile::tempdir().expect("dir");
        let (old, fresh) = (dir.path().join("old"), dir.path().join("fresh"));
        std::fs::write(&old, "1").expect("old");
        std::fs::write(&fresh, "1").expect("fresh");
        let forty_days = std::time::Duration::from_secs(40 * 86_400);
        let file = std::fs::File::options().write(true).open(&old).expect("open");
        file.set_modified(std::time::SystemTime::now() - forty_days).expect("mtime");
        std::fs::create_dir(dir.path().join("sub")).expect("sub");
        sweep(dir.path(), std::time::Duration::from_secs(SESSION_RECORD_DAYS * 86_400));
        assert!(!old.exists() && fresh.exists() && dir.path().join("sub").exists());
        sweep(&dir.path().join("missing"), forty_days);
    }

    #[test]
    fn home_prefers_codeguard_home_then_xdg_then_home() {
        let env = Env::from_pairs([("CODEGUARD_HOME", "/a"), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/a"));
        let env = Env::from_pairs([("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/b/codeguard"));
        assert_eq!(home(&Env::from_pairs([("HOME", "/c")])), PathBuf::from("/c/.codeguard"));
    }

    #[test]
    fn corrupt_and_wrongly_shaped_files_read_as_empty_and_are_replaced() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("s.json");
        for junk in [&b"{ not json"[..], b"[1, 2]", b"42", b"", b"\xff\xfe"] {
            std::fs::write(&path, junk).expect("write");
            let read: std::collections::BTreeMap<String, u32> = read_json(&path);
            assert!(read.is_empty());
            let n = update_json(&path, |m: &mut std::collections::BTreeMap<String, u32>| {
                *m.entry("n".into()).or_default() += 1;
                m["n"]
            })
            .expect("update");
            assert_eq!(n, 1, "{junk:?} was treated as empty");
        }
        let taken: std::collections::BTreeMap<String, u32> = take_json(&path).expect("take");
        assert_eq!(taken.get("n"), Some(&1));
        assert!(!path.exists());
    }
}
