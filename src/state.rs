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
    fn home_prefers_codeguard_home_then_xdg_then_home() {
        let env = Env::from_pairs([("CODEGUARD_HOME", "/a"), ("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/a"));
        let env = Env::from_pairs([("XDG_STATE_HOME", "/b"), ("HOME", "/c")]);
        assert_eq!(home(&env), PathBuf::from("/b/codeguard"));
        assert_eq!(home(&Env::from_pairs([("HOME", "/c")])), PathBuf::from("/c/.codeguard"));
    }
}
