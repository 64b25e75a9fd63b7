//! The snapshot's private directory and the guard that removes it (also when a signal ends the
//! run: see [`crate::process::remove_on_signal`]).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A private (`0700`) directory removed, with everything in it, when dropped. Removal makes
/// read-only directories writable first (linters create such caches); a failure to remove is
/// ignored, never a panic.
#[derive(Debug)]
pub(crate) struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Creates `codeguard-snapshot-XXXXXX` in `parent`; `None` when `parent` is unusable.
    pub(crate) fn create_in(parent: &Path) -> Option<Self> {
        if !parent.is_dir() {
            return None;
        }
        let dir = crate::fs::private_temp_dir(parent, "codeguard-snapshot-").ok()?;
        let path = dir.keep();
        // A signal that ends the run removes it too (the `Drop` below never runs then).
        crate::process::remove_on_signal(&path, true);
        Some(Self { path })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        crate::process::remove_on_signal(&self.path, false);
        if std::fs::remove_dir_all(&self.path).is_ok() || !self.path.exists() {
            return;
        }
        for entry in walkdir::WalkDir::new(&self.path).into_iter().filter_map(Result::ok) {
            if entry.file_type().is_dir() {
                let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o700));
            }
        }
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
