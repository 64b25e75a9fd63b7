//! The one way codeguard writes a file in place, makes a private directory and takes a file lock.
//!
//! **In:** a path and the bytes, with how to write them ([`Atomic`]: the file's mode, what its
//! directory must be, whether the bytes reach the disk before the rename). **Out:** the file
//! replaced in one step — written to a temp file in the same directory, given its mode, flushed
//! when asked, renamed over the old one — so a concurrent reader sees the old content or the new,
//! never half of it, and a write that fails leaves the old file as it was. Private directories
//! are created 0700 (parents too); exclusive locks live on a sidecar `<file>.lock` that is never
//! replaced, and a lock not had within the caller's wait is a [`std::io::ErrorKind::TimedOut`]
//! error, never a hang. **Never:** writes through a symlink: the rename replaces a link at the
//! path itself, and a private directory (the state directory's, [`Parent::Private`]) that is a
//! symlink is refused.
//!
//! Policies (which mode, which directory, which wait) belong to the callers: `crate::state` (0600
//! state files in 0700 directories), `crate::install` (settings files keeping their mode, git
//! hooks 0755), `crate::run::warm` (the stable tree), `crate::tools` (install locks).

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// What the directory of a file written by [`write_atomic`] must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parent {
    /// It must exist already (a git hooks directory, a tree being synced).
    Existing,
    /// Created with its parents when missing, with the default mode (a host's settings directory).
    Create,
    /// Created private (0700) with its parents when missing, and refused when it is a symlink
    /// ([`ensure_private_dir`]): the state directory's files.
    Private,
}

/// How [`write_atomic`] writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Atomic {
    /// The permission bits the new file gets (umask does not apply).
    pub mode: u32,
    /// What its directory must be.
    pub parent: Parent,
    /// Whether the bytes are flushed to disk before the rename (a crash then leaves the old file
    /// or the new one); without it a crash may lose or empty the newest file.
    pub durable: bool,
}

impl Atomic {
    /// A state file: 0600 in a private directory, flushed (it must survive a crash).
    pub(crate) const PRIVATE: Self = Self { mode: 0o600, parent: Parent::Private, durable: true };

    /// A file with `mode` in a directory that must exist, flushed.
    pub(crate) const fn with_mode(mode: u32) -> Self {
        Self { mode, parent: Parent::Existing, durable: true }
    }

    /// The same, with its directory as `parent` says.
    #[must_use]
    pub(crate) const fn parent(self, parent: Parent) -> Self {
        Self { parent, ..self }
    }

    /// The same, not flushed before the rename (files that only report, or are rebuilt when lost).
    #[must_use]
    pub(crate) const fn unsynced(self) -> Self {
        Self { durable: false, ..self }
    }
}

/// Replaces `path` with `bytes` in one step, as `how` says (see the module contract). On any
/// error the old file, if any, is unchanged and no temp file is left behind.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], how: Atomic) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    match how.parent {
        Parent::Existing => {}
        Parent::Create => std::fs::create_dir_all(dir)?,
        Parent::Private => ensure_private_dir(dir)?,
    }
    // Created 0600; the wanted mode is given by descriptor once the bytes are in.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(how.mode))?;
    if how.durable {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// [`write_atomic`] as a state file ([`Atomic::PRIVATE`]): 0600, private directory, flushed.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic(path, bytes, Atomic::PRIVATE)
}

/// [`write_private`] without the flush, for files that only report (logs, manifests rebuilt when
/// lost): a crash may lose or empty the newest one, and a gate does not wait for the disk.
pub(crate) fn write_private_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic(path, bytes, Atomic::PRIVATE.unsynced())
}

/// The permission bits of the file at `path` (following a link), `default` when there is none:
/// what a rewrite that keeps a file's mode gives the new file.
pub(crate) fn mode_or(path: &Path, default: u32) -> u32 {
    std::fs::metadata(path).map_or(default, |m| m.permissions().mode() & 0o7777)
}

/// Creates a private directory (0700) and its parents, refusing a symlink at `dir` itself. An
/// existing directory keeps its mode.
pub(crate) fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(format!("refusing symlinked directory {}", dir.display())));
    }
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A new private (0700) directory `<prefix>XXXXXX` in `parent`, removed when the handle drops
/// (unless kept).
pub(crate) fn private_temp_dir(parent: &Path, prefix: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(parent)
}

/// The sidecar file whose lock stands for `path`'s: `<path>.lock`.
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// An exclusive lock on `<path>.lock`, released when dropped (the descriptor closes).
#[derive(Debug)]
pub(crate) struct Lock {
    _file: std::fs::File,
}

/// Opens (creating, 0600, in a private directory) the sidecar lock file of `path`.
fn open_lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    ensure_private_dir(dir)?;
    std::fs::OpenOptions::new().create(true).truncate(false).write(true).mode(0o600).open(lock_path(path))
}

/// Takes the exclusive lock of `path` (its sidecar `<path>.lock`), waiting at most `wait`.
///
/// An uncontended lock costs one `flock`. A contended one is waited for by a helper thread in a
/// blocking `flock`, so the kernel hands the lock over as soon as it is released (no polling
/// interval to lose the race with a busy writer); when `wait` runs out the caller gets a
/// [`std::io::ErrorKind::TimedOut`] error, and the helper drops the lock unused if it ever gets it
/// (so for an instant after the holder lets go, that abandoned helper may hold it: a
/// [`try_lock`] then can see it busy, a waiting [`lock`] cannot miss it).
pub(crate) fn lock(path: &Path, wait: Duration) -> std::io::Result<Lock> {
    use rustix::fs::{FlockOperation, flock};
    let file = open_lock_file(path)?;
    match flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => return Ok(Lock { _file: file }),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => {}
        Err(e) => return Err(e.into()),
    }
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new().name("codeguard-lock".into()).spawn(move || {
        let locked = flock(&file, FlockOperation::LockExclusive).map(|()| file);
        // A receiver that gave up is gone: the file (and its lock) is dropped here.
        let _ = tx.send(locked);
    })?;
    match rx.recv_timeout(wait) {
        Ok(Ok(file)) => Ok(Lock { _file: file }),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("{} is locked by another codeguard process", path.display()),
        )),
    }
}

/// The exclusive lock of `path` if nobody holds it now (never waits); `None` otherwise.
pub(crate) fn try_lock(path: &Path) -> Option<Lock> {
    use rustix::fs::{FlockOperation, flock};
    let file = open_lock_file(path).ok()?;
    flock(&file, FlockOperation::NonBlockingLockExclusive).ok()?;
    Some(Lock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).expect("meta").permissions().mode() & 0o7777
    }

    #[test]
    fn a_write_replaces_the_file_with_the_mode_asked_for() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("hook");
        write_atomic(&path, b"one", Atomic::with_mode(0o755)).expect("write");
        assert_eq!((std::fs::read(&path).expect("read"), mode(&path)), (b"one".to_vec(), 0o755));
        write_atomic(&path, b"two", Atomic::with_mode(0o640).unsynced()).expect("rewrite");
        assert_eq!((std::fs::read(&path).expect("read"), mode(&path)), (b"two".to_vec(), 0o640));
        assert_eq!(mode_or(&path, 0o644), 0o640);
        assert_eq!(mode_or(&tmp.path().join("none"), 0o644), 0o644);
        let entries = std::fs::read_dir(tmp.path()).expect("list").count();
        assert_eq!(entries, 1, "no temp file is left beside it");
    }

    #[test]
    fn a_failed_write_keeps_the_old_content() {
        let tmp = tempfile::tempdir().expect("tmp");
        // The rename cannot replace a non-empty directory: the write fails after the temp file.
        let path = tmp.path().join("busy");
        std::fs::create_dir(&path).expect("dir");
        std::fs::write(path.join("inside"), b"old").expect("write");
        assert!(write_atomic(&path, b"new", Atomic::with_mode(0o644)).is_err());
        assert_eq!(std::fs::read(path.join("inside")).expect("read"), b"old");
        assert_eq!(std::fs::read_dir(tmp.path()).expect("list").count(), 1, "the temp file is gone");
        // A directory that must exist and does not: nothing is created.
        let missing = tmp.path().join("missing/file");
        assert!(write_atomic(&missing, b"x", Atomic::with_mode(0o644)).is_err());
        assert!(!tmp.path().join("missing").exists());
        write_atomic(&missing, b"x", Atomic::with_mode(0o644).parent(Parent::Create)).expect("created");
        assert_eq!(std::fs::read(&missing).expect("read"), b"x");
    }

    #[test]
    fn private_writes_are_0600_in_0700_directories_and_refuse_symlinked_ones() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("logs/deeper/a.log");
        write_private(&file, b"hello").expect("write");
        assert_eq!(std::fs::read(&file).expect("read"), b"hello");
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&tmp.path().join("logs")), 0o700);
        assert_eq!(mode(&tmp.path().join("logs/deeper")), 0o700);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(tmp.path().join("logs"), &link).expect("symlink");
        let err = write_private_unsynced(&link.join("b.log"), b"x").expect_err("through a link");
        assert!(err.to_string().contains("refusing symlinked directory"), "{err}");
        assert!(!tmp.path().join("logs/b.log").exists());
        assert!(ensure_private_dir(&link).is_err());
        assert!(lock(&link.join("c"), Duration::from_millis(10)).is_err());
    }

    #[test]
    fn a_write_replaces_a_symlink_at_the_path_instead_of_writing_through_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let target = tmp.path().join("target");
        std::fs::write(&target, b"theirs").expect("write");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        write_private(&link, b"ours").expect("write");
        assert_eq!(std::fs::read(&target).expect("read"), b"theirs");
        assert!(std::fs::symlink_metadata(&link).expect("meta").is_file());
    }

    #[test]
    fn a_private_temp_dir_is_0700() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = private_temp_dir(tmp.path(), "x-").expect("dir");
        assert_eq!(mode(dir.path()), 0o700);
        assert!(dir.path().file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("x-")));
    }

    #[test]
    fn a_held_lock_times_out_within_the_bound_and_is_then_free() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("x.json");
        let held = lock(&path, Duration::from_secs(2)).expect("first");
        assert!(lock_path(&path).is_file());
        let started = std::time::Instant::now();
        let err = lock(&path, Duration::from_millis(200)).expect_err("busy");
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(try_lock(&path).is_none());
        drop(held);
        // The waiter that gave up may take the lock for an instant when it is released (its
        // blocking flock returns, finds nobody to hand the lock to, and closes): a new caller
        // that waits gets it; one that does not wait may not, so it is not asked here.
        drop(lock(&path, Duration::from_secs(2)).expect("free again"));
    }

    #[test]
    fn two_threads_never_hold_the_lock_at_once() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("x.json");
        let inside = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for _ in 0..20 {
                        let _held = lock(&path, Duration::from_secs(5)).expect("lock");
                        assert_eq!(inside.fetch_add(1, std::sync::atomic::Ordering::SeqCst), 0, "shared");
                        std::thread::sleep(Duration::from_millis(1));
                        inside.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    }
                });
            }
        });
    }

    #[test]
    fn a_waiter_gets_the_lock_as_soon_as_it_is_released() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("x.json");
        let held = lock(&path, Duration::from_secs(2)).expect("first");
        std::thread::scope(|s| {
            let waiter = s.spawn(|| lock(&path, Duration::from_secs(2)).map(drop));
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
            waiter.join().expect("join").expect("handed over");
        });
    }
}
