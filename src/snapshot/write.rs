//! Writes validated items into the snapshot directory, in parallel: blobs from the object
//! database (no filters), symlinks checked to stay inside, worktree files copied without
//! following symlinks.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use gix::bstr::{BStr, ByteSlice};
use gix::prelude::FindExt;
use rayon::prelude::*;

use super::SnapshotError;
use super::layout::{Item, What};

/// What a copied worktree file looked like, to notice later changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    mode: u32,
}

/// The stamp of `path` now (not following a final symlink); `None` when it is gone.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|m| stamp_of(&m))
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    Stamp {
        len: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
        ino: m.ino(),
        mode: m.mode(),
    }
}

/// What writing produced.
pub(crate) struct Outcome {
    /// Bytes of content written.
    pub bytes: u64,
    /// Worktree files copied, with their stamps.
    pub copied: Vec<(PathBuf, Stamp)>,
    /// Symlinks not written because they lead out of the snapshot (repo-relative paths).
    pub escaping_links: Vec<String>,
}

/// Shared state of one parallel write.
struct Ctx<'a> {
    workdir: &'a Path,
    workdir_real: PathBuf,
    dest: &'a Path,
    max_bytes: u64,
    bytes: AtomicU64,
    copied: Mutex<Vec<(PathBuf, Stamp)>>,
    escaping: Mutex<Vec<String>>,
}

/// Fewest items written in parallel.
const PARALLEL_FROM: usize = 64;

/// Writes every item below `dest`.
pub(crate) fn all(
    repo: &gix::ThreadSafeRepository,
    workdir: &Path,
    dest: &Path,
    items: &[Item],
    max_bytes: u64,
) -> Result<Outcome, SnapshotError> {
    make_dirs(dest, items)?;
    let workdir_real = workdir.canonicalize().map_err(SnapshotError::io("resolving the worktree root"))?;
    let ctx = Ctx {
        workdir,
        workdir_real,
        dest,
        max_bytes,
        bytes: AtomicU64::new(0),
        copied: Mutex::new(Vec::new()),
        escaping: Mutex::new(Vec::new()),
    };
    if items.len() < PARALLEL_FROM {
        // A handful of changed files: starting a thread pool costs more than writing them.
        let (repo, mut buf) = (repo.to_thread_local(), Vec::with_capacity(64 * 1024));
        items.iter().try_for_each(|item| ctx.write(&repo, &mut buf, item))?;
    } else {
        items.par_iter().try_for_each_init(
            || (repo.to_thread_local(), Vec::with_capacity(64 * 1024)),
            |(repo, buf), item| ctx.write(repo, buf, item),
        )?;
    }
    let copied = ctx.copied.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut escaping_links = ctx.escaping.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    escaping_links.sort();
    Ok(Outcome { bytes: ctx.bytes.into_inner(), copied, escaping_links })
}

/// Creates every parent directory once, parents first.
fn make_dirs(dest: &Path, items: &[Item]) -> Result<(), SnapshotError> {
    let dirs: BTreeSet<&BStr> =
        items.iter().filter_map(|i| i.path.rfind_byte(b'/').map(|end| BStr::new(&i.path[..end]))).collect();
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true).mode(0o755);
    for dir in dirs {
        let path = dest.join(OsStr::from_bytes(dir));
        builder.create(&path).map_err(SnapshotError::io(format!("creating {}", path.display())))?;
    }
    Ok(())
}

impl Ctx<'_> {
    fn write(&self, repo: &gix::Repository, buf: &mut Vec<u8>, item: &Item) -> Result<(), SnapshotError> {
        let target = self.dest.join(OsStr::from_bytes(&item.path));
        match &item.what {
            What::Blob { id, executable } => {
                let data = read_blob(repo, id, buf)?;
                self.count(data.len())?;
                write_file(&target, data, *executable)
            }
            What::Link { id } => {
                let data = read_blob(repo, id, buf)?;
                self.link(item.path.as_ref(), &target, data)
            }
            What::Copy { from } => self.copy(from, item.path.as_ref(), &target, buf),
            What::Bytes(data) => {
                self.count(data.len())?;
                write_file(&target, data, false)
            }
            What::Hardlink { id, executable, from } => {
                if std::fs::hard_link(from, &target).is_ok() {
                    return Ok(());
                }
                let data = read_blob(repo, id, buf)?;
                self.count(data.len())?;
                write_file(&target, data, *executable)
            }
        }
    }

    /// Recreates a symlink; one leading out of the snapshot is left out and remembered (git
    /// commits the link itself, never what it points to, so nothing is lost for the scan).
    fn link(&self, path: &BStr, target: &Path, link: &[u8]) -> Result<(), SnapshotError> {
        match make_link(path, target, link) {
            Err(SnapshotError::SymlinkEscapes { path, .. }) => {
                if let Ok(mut escaping) = self.escaping.lock() {
                    escaping.push(path);
                }
                Ok(())
            }
            other => other,
        }
    }

    fn count(&self, len: usize) -> Result<(), SnapshotError> {
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        let total = self.bytes.fetch_add(len, Ordering::Relaxed).saturating_add(len);
        if total > self.max_bytes { Err(SnapshotError::TooLarge { limit: self.max_bytes }) } else { Ok(()) }
    }

    /// Copies a worktree file (or recreates a worktree symlink) without following symlinks.
    fn copy(&self, from: &str, path: &BStr, target: &Path, buf: &mut Vec<u8>) -> Result<(), SnapshotError> {
        let source = self.workdir.join(from);
        self.check_parents(from, &source)?;
        let meta = match std::fs::symlink_metadata(&source) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SnapshotError::Changed(format!("{from} disappeared from the worktree")));
            }
            Err(e) => return Err(SnapshotError::io(format!("reading {from}"))(e)),
        };
        if meta.file_type().is_symlink() {
            let link =
                std::fs::read_link(&source).map_err(SnapshotError::io(format!("reading link {from}")))?;
            self.remember(source, &meta);
            return self.link(path, target, link.as_os_str().as_bytes());
        }
        if !meta.is_file() {
            return Err(SnapshotError::UnsupportedFile(from.to_owned()));
        }
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&source)
            .map_err(SnapshotError::io(format!("opening {from}")))?;
        buf.clear();
        file.read_to_end(buf).map_err(SnapshotError::io(format!("reading {from}")))?;
        let after = file.metadata().map_err(SnapshotError::io(format!("reading {from}")))?;
        if stamp_of(&after) != stamp_of(&meta) || u64::try_from(buf.len()).ok() != Some(after.size()) {
            return Err(SnapshotError::Changed(format!("{from} changed while it was copied")));
        }
        self.count(buf.len())?;
        self.remember(source, &meta);
        write_file(target, buf, meta.mode() & 0o100 != 0)
    }

    /// Refuses worktree paths whose directories are symlinks leading elsewhere.
    fn check_parents(&self, from: &str, source: &Path) -> Result<(), SnapshotError> {
        let Some(parent) = source.parent() else { return Ok(()) };
        let real = parent.canonicalize().map_err(|_| SnapshotError::UnsupportedFile(from.to_owned()))?;
        let expected = self.workdir_real.join(Path::new(from).parent().unwrap_or(Path::new("")));
        if real == expected { Ok(()) } else { Err(SnapshotError::UnsupportedFile(from.to_owned())) }
    }

    fn remember(&self, source: PathBuf, meta: &std::fs::Metadata) {
        if let Ok(mut copied) = self.copied.lock() {
            copied.push((source, stamp_of(meta)));
        }
    }
}

fn read_blob<'b>(
    repo: &gix::Repository,
    id: &gix::ObjectId,
    buf: &'b mut Vec<u8>,
) -> Result<&'b [u8], SnapshotError> {
    repo.objects
        .find_blob(id, buf)
        .map(|blob| blob.data)
        .map_err(|e| SnapshotError::Git { context: "reading a blob", message: format!("{id}: {e}") })
}

fn write_file(target: &Path, data: &[u8], executable: bool) -> Result<(), SnapshotError> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if executable { 0o755 } else { 0o644 })
        .open(target)
        .map_err(SnapshotError::io(format!("creating {}", target.display())))?;
    file.write_all(data).map_err(SnapshotError::io(format!("writing {}", target.display())))
}

fn make_link(path: &BStr, target: &Path, link: &[u8]) -> Result<(), SnapshotError> {
    if !link_stays_inside(path, link) {
        return Err(SnapshotError::SymlinkEscapes {
            path: path.to_str_lossy().into_owned(),
            target: link.to_str_lossy().into_owned(),
        });
    }
    std::os::unix::fs::symlink(OsStr::from_bytes(link), target)
        .map_err(SnapshotError::io(format!("creating symlink {}", target.display())))
}

/// Whether a symlink at `path` (repo-relative) with target `link` resolves inside the root.
/// Only leading `..` components are allowed, at most as many as the link's directory depth,
/// so no symlink met along the way can redirect a later `..` out of the snapshot.
fn link_stays_inside(path: &BStr, link: &[u8]) -> bool {
    if link.is_empty() || link.starts_with(b"/") || link.contains(&0) {
        return false;
    }
    let mut depth = path.split(|b| *b == b'/').count().saturating_sub(1);
    let mut descending = false;
    for component in link.split(|b| *b == b'/') {
        match component {
            b"" | b"." => {}
            b".." if !descending && depth > 0 => depth -= 1,
            b".." => return false,
            _ => descending = true,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_must_stay_inside() {
        let inside =
            [("a", "b"), ("d/a", "../b"), ("d/e/a", "../../x/y"), ("a", "./b"), ("d/a", "."), ("a", "b/c")];
        for (path, link) in inside {
            assert!(link_stays_inside(BStr::new(path), link.as_bytes()), "{path} -> {link}");
        }
        let outside = [
            ("a", "/etc/passwd"),
            ("a", "../x"),
            ("d/a", "../../x"),
            ("a", "b/../c"),
            ("a", ""),
            ("a", "b/../../x"),
        ];
        for (path, link) in outside {
            assert!(!link_stays_inside(BStr::new(path), link.as_bytes()), "{path} -> {link}");
        }
    }
}
