//! The base-tree cache: a read-only materialisation of a tree, by tree id, that whole-tree
//! snapshots hard-link their unchanged files from, so a project-level linter pays for writing
//! the whole tree once per base, not once per commit.
//!
//! **Layout** (under `<state>/cache/trees`): `<tree id>/` holds the tree's files, each read-only
//! (`0444`, `0555` when executable) with one fixed modification time, and `.complete` (its size in
//! bytes) and `.last-used` (milliseconds since the epoch); `work/` holds the whole-tree snapshots
//! (same file system, so links work); `.tmp-*` are entries being written.
//! **Concurrency:** an entry is written into a private `.tmp-*` directory and renamed into place
//! in one step; when another process got there first, its entry is used and ours removed. An
//! entry is evicted by renaming it away first, so no reader ever sees half an entry; a snapshot
//! already linked from an evicted entry keeps its files (links share the inode).
//! **Bounds:** at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] of content (least recently used
//! go first), unfinished `.tmp-*` and `work/` directories older than [`STALE`] are removed.
//! **Safety:** a linter that writes through a link would change the cache: after the run every
//! linked file is checked against its mode, size and fixed time ([`Linked::intact`]), and a
//! changed entry is evicted. **Never:** touches the user's repository; reads blobs only.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::SnapshotError;
use super::layout::{Item, What};
use crate::state::caches;

/// Entries kept at most.
pub(crate) const MAX_ENTRIES: usize = 4;
/// Bytes of content kept at most, all entries together (4 GiB).
pub(crate) const MAX_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// Unfinished entries and left-over snapshots older than this are removed.
pub(crate) const STALE: Duration = Duration::from_secs(24 * 3600);

const COMPLETE: &str = ".complete";

/// The modification time of every cached file (2001-09-09): a change through a link shows.
fn fixed_time() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
}

/// The cache at `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeCache {
    root: PathBuf,
}

/// A file of a snapshot that is a link to a cache entry's file, with what it must still be.
#[derive(Debug, Clone)]
pub(crate) struct Linked {
    path: PathBuf,
    len: u64,
    mode: u32,
}

impl Linked {
    /// Whether the file is still the cached one, unchanged.
    fn intact(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| {
            m.len() == self.len
                && m.mode() & 0o7777 == self.mode
                && m.modified().is_ok_and(|t| t == fixed_time())
        })
    }
}

impl TreeCache {
    /// The cache in `root` (created on first use).
    pub(crate) fn new(root: PathBuf) -> Self {
        Self { root }
    }

    /// Where whole-tree snapshots are made (beside the entries, for hard links).
    pub(crate) fn work_dir(&self) -> Result<PathBuf, SnapshotError> {
        let dir = self.root.join("work");
        std::fs::create_dir_all(&dir).map_err(SnapshotError::io(format!("creating {}", dir.display())))?;
        Ok(dir)
    }

    /// The directory holding `tree`'s files, written first when no entry has it. `items` gives
    /// the tree's validated entries (asked for only then).
    pub(crate) fn ensure(
        &self,
        repo: &gix::ThreadSafeRepository,
        workdir: &Path,
        tree: gix::ObjectId,
        items: impl FnOnce() -> Result<Vec<Item>, SnapshotError>,
        max_bytes: u64,
    ) -> Result<PathBuf, SnapshotError> {
        let dir = self.root.join(tree.to_hex().to_string());
        if dir.join(COMPLETE).is_file() {
            let _ = caches::mark_used(&dir);
            return Ok(dir);
        }
        std::fs::create_dir_all(&self.root)
            .map_err(SnapshotError::io(format!("creating {}", self.root.display())))?;
        let tmp = crate::fs::private_temp_dir(&self.root, ".tmp-")
            .map_err(SnapshotError::io("creating a tree cache entry"))?;
        let items = items()?;
        let outcome = super::write::all(repo, workdir, tmp.path(), &items, max_bytes)?;
        for item in &items {
            if let What::Blob { executable, .. } = item.what {
                seal(&tmp.path().join(std::ffi::OsStr::from_bytes(&item.path)), executable)?;
            }
        }
        std::fs::write(tmp.path().join(COMPLETE), outcome.bytes.to_string())
            .map_err(SnapshotError::io("finishing a tree cache entry"))?;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(SnapshotError::io("finishing a tree cache entry"))?;
        let tmp = tmp.keep();
        if std::fs::rename(&tmp, &dir).is_err() {
            // Another process wrote the same tree first: use its entry.
            remove(&tmp);
            if !dir.join(COMPLETE).is_file() {
                return Err(SnapshotError::Changed(format!(
                    "the tree cache entry {} could not be made",
                    dir.display()
                )));
            }
        }
        let _ = caches::mark_used(&dir);
        self.evict(&dir);
        Ok(dir)
    }

    /// Items of a whole content: each blob that `cached` (an entry's directory) holds with the
    /// same id and mode, according to `base` (the entry's tree listing, sorted like `items`), is
    /// linked instead of written. Returns the links to check after the run.
    pub(crate) fn link_unchanged(cached: &Path, base: &gix::index::State, items: &mut [Item]) -> Vec<Linked> {
        use gix::index::entry::Mode;
        let mut linked = Vec::new();
        let entries = base.entries();
        let mut at = 0;
        for item in items.iter_mut() {
            let What::Blob { id, executable } = item.what else { continue };
            while at < entries.len() && entries[at].path(base) < item.path.as_slice() {
                at += 1;
            }
            let Some(entry) = entries.get(at).filter(|e| e.path(base) == item.path.as_slice()) else {
                continue;
            };
            let mode = if executable { Mode::FILE_EXECUTABLE } else { Mode::FILE };
            if entry.id != id || entry.mode != mode || entry.stage_raw() != 0 {
                continue;
            }
            let rel = std::ffi::OsStr::from_bytes(&item.path);
            let Ok(meta) = std::fs::symlink_metadata(cached.join(rel)) else { continue };
            item.what = What::Hardlink { id, executable, from: cached.join(rel) };
            // The cache's own file is what must stay intact: a link that could not be made (the
            // file is written instead) or a tool replacing the snapshot's file by a rename leaves
            // it untouched; a write through a link does not.
            linked.push(Linked { path: cached.join(rel), len: meta.len(), mode: sealed_mode(executable) });
        }
        linked
    }

    /// Checks every link of a snapshot after the run; an entry a linter changed through a link
    /// is evicted (its content is no longer the tree's). Returns whether all were intact.
    pub(crate) fn verify(cached: &Path, linked: &[Linked]) -> bool {
        if linked.iter().all(Linked::intact) {
            return true;
        }
        caches::retire(cached);
        false
    }

    /// Removes stale unfinished entries and snapshots, then the least recently used entries
    /// beyond the bounds; `current` is kept.
    fn evict(&self, current: &Path) {
        let Ok(read) = std::fs::read_dir(&self.root) else { return };
        let now = SystemTime::now();
        let old = |p: &Path| {
            std::fs::symlink_metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > STALE))
        };
        let mut entries: Vec<caches::Entry> = Vec::new();
        for path in read.flatten().map(|e| e.path()) {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with(".tmp-") || name.starts_with(".evict-") {
                if old(&path) {
                    remove(&path);
                }
            } else if name == "work" {
                for snapshot in std::fs::read_dir(&path).into_iter().flatten().flatten().map(|e| e.path()) {
                    if old(&snapshot) {
                        remove(&snapshot);
                    }
                }
            } else if path != current && path.join(COMPLETE).is_file() {
                let bytes = caches::read_number(&path.join(COMPLETE));
                entries.push(caches::Entry { used: caches::last_used(&path), bytes, path });
            }
        }
        let kept = (1, caches::read_number(&current.join(COMPLETE)));
        for entry in caches::beyond_bounds(entries, kept, MAX_ENTRIES, MAX_BYTES) {
            caches::retire(&entry.path);
        }
    }
}

use std::os::unix::ffi::OsStrExt as _;

fn sealed_mode(executable: bool) -> u32 {
    if executable { 0o555 } else { 0o444 }
}

/// Gives a cached file its fixed time and makes it read-only.
fn seal(path: &Path, executable: bool) -> Result<(), SnapshotError> {
    let file = std::fs::File::open(path).map_err(SnapshotError::io(format!("sealing {}", path.display())))?;
    file.set_modified(fixed_time()).map_err(SnapshotError::io(format!("sealing {}", path.display())))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(sealed_mode(executable)))
        .map_err(SnapshotError::io(format!("sealing {}", path.display())))
}

fn remove(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}
