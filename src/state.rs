//! Where codeguard keeps its files, and the one way it writes them: private (0600 in 0700
//! directories), atomic (temp file in the same directory, fsync, rename), never through a
//! symlinked directory.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::env::Env;

/// The state directory: `CODEGUARD_HOME`, else `$XDG_STATE_HOME/codeguard`, else `~/.codeguard`,
/// else a per-user directory under the system temp dir.
pub fn home(env: &Env) -> PathBuf {
    if let Some(dir) = env.get("CODEGUARD_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = env.get("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir).join("codeguard");
    }
    env.home().map_or_else(|| std::env::temp_dir().join("codeguard-state"), |h| h.join(".codeguard"))
}

/// The directory holding full linter logs.
pub fn log_dir(env: &Env) -> PathBuf {
    home(env).join("logs")
}

/// Creates a private directory (0700) and its parents, refusing a symlink at `dir` itself.
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(format!("refusing symlinked directory {}", dir.display())));
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Writes `bytes` to `path` privately and atomically.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("path has no parent"))?;
    ensure_private_dir(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o600))?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The bypass and decision audit log (JSON lines, bounded).
pub const AUDIT_FILE: &str = "audit.jsonl";

/// Lines kept in the audit log.
const AUDIT_KEEP: usize = 500;

/// Runs `f` while holding an exclusive lock on `<path>.lock` (a sidecar that is never replaced).
pub fn with_lock<T>(path: &Path, f: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("path has no parent"))?;
    ensure_private_dir(dir)?;
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode_private()
        .open(lock_name)?;
    let mut lock = fd_lock::RwLock::new(file);
    let _guard = lock.write()?;
    f()
}

/// Appends one record to the audit log, keeping the last lines only.
pub fn audit(env: &Env, record: &serde_json::Value) -> std::io::Result<()> {
    let path = home(env).join(AUDIT_FILE);
    with_lock(&path, || {
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines: Vec<&str> = existing.lines().filter(|l| !l.trim().is_empty()).collect();
        let new_line = record.to_string();
        lines.push(&new_line);
        let start = lines.len().saturating_sub(AUDIT_KEEP);
        let mut text = lines[start..].join("\n");
        text.push('\n');
        write_private(&path, text.as_bytes())
    })
}

/// Opening files readable by their owner only.
trait PrivateOpen {
    fn mode_private(&mut self) -> &mut Self;
}

impl PrivateOpen for std::fs::OpenOptions {
    fn mode_private(&mut self) -> &mut Self {
        std::os::unix::fs::OpenOptionsExt::mode(self, 0o600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_private_and_refuse_symlinked_dirs() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("logs/a.log");
        write_private(&file, b"hello").expect("write");
        assert_eq!(std::fs::read(&file).expect("read"), b"hello");
        assert_eq!(std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777, 0o600);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(tmp.path().join("logs"), &link).expect("symlink");
        assert!(write_private(&link.join("b.log"), b"x").is_err());
    }

    #[test]
    fn audit_is_bounded_and_survives_concurrent_writers() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = Env::from_pairs([("CODEGUARD_HOME", tmp.path().as_os_str())]);
        std::thread::scope(|scope| {
            for t in 0..4 {
                let env = &env;
                scope.spawn(move || {
                    for i in 0..100 {
                        audit(env, &serde_json::json!({"t": t, "i": i})).expect("audit");
                    }
                });
            }
        });
        let text = std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("log");
        assert_eq!(text.lines().count(), 400, "no update lost under the lock");
        assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
        for i in 0..150 {
            audit(&env, &serde_json::json!({"more": i})).expect("audit");
        }
        let text = std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("log");
        assert_eq!(text.lines().count(), AUDIT_KEEP, "bounded");
        assert!(text.ends_with("{\"more\":149}\n"));
    }

    #[test]
    fn home_prefers_codeguard_home_then_xdg_then_home() {
        let env = Env::from_pairs([("CODEGUARD_HOME", "/a"), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/a"));
        let env = Env::from_pairs([("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/b/codeguard"));
        assert_eq!(home(&Env::from_pairs([("HOME", "/c")])), PathBuf::from("/c/.codeguard"));
    }
}
