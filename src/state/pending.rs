//! Edits a shell command is about to make, waiting to be linted once they happened: Codex runs
//! `apply_patch` through its shell tool and sends no `PostToolUse` for it, so the files it writes
//! are recorded at pre-tool-use and linted at the next event whose output reaches the model.
//!
//! **In:** a host session id and the files a patch will write, each with its content stamp
//! from before the patch ran (`crate::cache::file_stamp`). **Out:** `pending/s-<id>.json` (or `<hash>.json`, see [`file`]) per session (at most
//! [`MAX_FILES`] entries; an entry older than [`EXPIRY_MS`] whose file never changed is
//! dropped), changed under the file's lock and removed when it empties.
//! **Never:** written by a command that applies no patch; [`any`] is the only cost every other
//! hook pays, one `lstat` of one file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::env::Env;

/// Sub-directory of the state directory holding one file per session with pending edits.
pub(crate) const DIR: &str = "pending";
/// The most files kept pending per session (the newest win).
pub(crate) const MAX_FILES: usize = 256;
/// A pending file that has not changed for this long is dropped (its patch never applied).
pub(crate) const EXPIRY_MS: u64 = 10 * 60 * 1000;

/// One file a patch will write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PendingFile {
    /// Its absolute path.
    pub path: PathBuf,
    /// Its content stamp before the patch ran (`None`: it did not exist).
    pub before: Option<String>,
    /// For a file that did not exist: its directory's modification time then (`None`: no such
    /// directory). A file still absent once the directory changed was added and removed again;
    /// one absent in an unchanged directory is still to be written.
    #[serde(default)]
    pub dir_before: Option<(i64, i64)>,
    /// The tool call that will write it.
    pub tool_use_id: Option<String>,
    /// When it was recorded (ms since the epoch).
    pub ts_ms: u64,
}

/// Everything pending for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Pending {
    /// The files, oldest first.
    pub files: Vec<PendingFile>,
}

/// The file holding a session's pending edits: `s-<id>.json` for an id of plain lowercase
/// characters (a host's UUID; one file per id on case-insensitive file systems too; no hash to compute on the path every shell command takes — hashing starts
/// blake3's CPU-feature detection, which costs more than the rest of a pass-through), else
/// `<hash>.json` (hex digits: never `s-…`).
pub(crate) fn file(env: &Env, session: &str) -> PathBuf {
    let plain = (1..=128).contains(&session.len())
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'));
    let name = if plain {
        format!("s-{session}.json")
    } else {
        format!("{}.json", super::key_of(&[session.as_bytes()]))
    };
    super::home(env).join(DIR).join(name)
}

/// Whether anything is pending for the session: one `lstat`, creating nothing (through rustix:
/// `std`'s first `statx` that fails adds a probe call).
pub(crate) fn any(env: &Env, session: &str) -> bool {
    rustix::fs::statat(rustix::fs::CWD, file(env, session), rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok()
}

/// Records files a patch will write (a file already pending is replaced by the new entry).
pub(crate) fn add(env: &Env, session: &str, files: Vec<PendingFile>) -> std::io::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    super::update_json(&file(env, session), |pending: &mut Pending| {
        pending.files.retain(|old| files.iter().all(|new| new.path != old.path));
        pending.files.extend(files);
        let excess = pending.files.len().saturating_sub(MAX_FILES);
        pending.files.drain(..excess);
    })
}

/// The pending files (empty when none).
pub(crate) fn read(env: &Env, session: &str) -> Pending {
    super::read_json(&file(env, session))
}

/// Under the lock, lets `settle` keep the files that are still pending (it returns whatever it
/// decided about the others); the file is removed when nothing is left.
pub(crate) fn settle<R>(
    env: &Env,
    session: &str,
    settle: impl FnOnce(&mut Vec<PendingFile>) -> R,
) -> std::io::Result<R> {
    let path = file(env, session);
    super::with_lock(&path, || {
        let mut pending: Pending = super::read_json(&path);
        let out = settle(&mut pending.files);
        if pending.files.is_empty() {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        } else {
            crate::fs::write_private(&path, &serde_json::to_vec(&pending).map_err(std::io::Error::other)?)?;
        }
        Ok(out)
    })
}

#[cfg(test)]
/// How many sessions have pending edits (for `codeguard state show`).
pub(crate) fn count(env: &Env) -> usize {
    std::fs::read_dir(super::home(env).join(DIR)).map_or(0, |dir| {
        dir.filter_map(Result::ok).filter(|e| e.path().extension().is_some_and(|x| x == "json")).count()
    })
}

/// Forgets every pending edit.
pub(crate) fn clear(env: &Env) -> std::io::Result<()> {
    match std::fs::remove_dir_all(super::home(env).join(DIR)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        Ok(()) | Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_env as env;

    fn entry(path: &str, id: &str) -> PendingFile {
        PendingFile {
            path: path.into(),
            before: None,
            dir_before: None,
            tool_use_id: Some(id.into()),
            ts_ms: 1,
        }
    }

    #[test]
    fn plain_session_ids_name_their_file_and_others_are_hashed() {
        let home = tempfile::tempdir().expect("home");
        let env = env(home.path());
        let name = |id: &str| file(&env, id).file_name().and_then(|n| n.to_str()).map(str::to_owned);
        assert_eq!(name("0f3c-11aa_b.2").as_deref(), Some("s-0f3c-11aa_b.2.json"));
        for odd in ["../x", ".hidden", "a/b", "", "é", "ABC", &"x".repeat(129)] {
            let got = name(odd).expect("name");
            assert!(!got.starts_with("s-") && got.len() == 32 + 5, "{odd:?} → {got}");
        }
    }

    #[test]
    fn pending_files_are_per_session_bounded_and_removed_when_settled() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = env(tmp.path());
        assert!(!any(&env, "s") && !tmp.path().join(DIR).exists(), "checking creates nothing");
        add(&env, "s", vec![entry("/r/a.py", "1"), entry("/r/b.py", "1")]).expect("add");
        add(&env, "s", vec![entry("/r/a.py", "2")]).expect("add");
        assert!(any(&env, "s") && !any(&env, "t"));
        let ids: Vec<_> = read(&env, "s").files.iter().map(|f| f.tool_use_id.clone()).collect();
        assert_eq!(ids, [Some("1".into()), Some("2".into())], "a re-patched file is replaced");
        let many: Vec<_> = (0..MAX_FILES + 5).map(|i| entry(&format!("/r/{i}.py"), "3")).collect();
        add(&env, "s", many).expect("add");
        assert_eq!(read(&env, "s").files.len(), MAX_FILES);
        assert_eq!(count(&env), 1);
        let n = settle(&env, "s", |files| std::mem::take(files).len()).expect("settle");
        assert_eq!(n, MAX_FILES);
        assert!(!any(&env, "s"), "an empty set is removed");
        add(&env, "s", vec![entry("/r/a.py", "4")]).expect("add");
        clear(&env).expect("clear");
        assert!(!any(&env, "s"));
    }
}
