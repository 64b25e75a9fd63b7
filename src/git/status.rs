//! The worktree against the index, as git's status sees it but without running anything the
//! repository configures: a file is compared with its index entry by hashing its raw bytes (a
//! symlink's target) as a blob — no filter, textconv or fsmonitor — and submodules are not
//! looked into. Untracked files are listed (ignored ones on demand); nothing is written back.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, BString};
use gix::dir::entry::{Kind as DiskKind, Status as DirStatus};
use gix::status::index_worktree::Item;
use gix_status_types::{Change, CompareBlobs, Entry, EntryStatus, ReadData, SubmoduleStatus, VisitEntry};

use super::Error;

/// Re-exported so the match arms below stay readable.
mod gix_status_types {
    pub(super) use gix::status::plumbing::index_as_worktree::traits::{
        CompareBlobs, ReadData, SubmoduleStatus,
    };
    pub(super) use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
    pub(super) use gix::status::plumbing::index_as_worktree_with_renames::{Entry, VisitEntry};
}

/// How a path of the worktree differs from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorktreeChange {
    /// A tracked path whose worktree file differs (content, mode, type; or intent-to-add, or a
    /// conflict).
    Modified,
    /// A tracked path missing from the worktree.
    Deleted,
    /// An untracked, not-ignored file or symlink.
    Untracked,
    /// An ignored file, symlink or directory (listed only when asked for).
    Ignored,
    /// An untracked directory holding its own repository.
    NestedRepo,
}

/// Every path of the worktree that differs from `index` (repository-relative, raw bytes), with
/// how; ignored files too when `with_ignored`.
pub(crate) fn worktree_status(
    repo: &gix::Repository,
    index: &gix::worktree::Index,
    with_ignored: bool,
) -> Result<Vec<(BString, WorktreeChange)>, Error> {
    let ignored = with_ignored.then_some(gix::dir::walk::EmissionMode::Matching);
    let workdir = super::workdir(repo)?;
    let dirwalk = repo
        .dirwalk_options()
        .map_err(Error::object("preparing the status"))?
        .emit_untracked(gix::dir::walk::EmissionMode::Matching)
        .emit_ignored(ignored);
    let options = gix::status::index_worktree::Options {
        sorting: None,
        dirwalk_options: Some(dirwalk),
        rewrites: None,
        thread_limit: None,
    };
    let compare =
        RawBlobs { workdir: Arc::new(workdir.to_owned()), paths: Arc::new(index.path_backing().to_vec()) };
    let mut collect = Collect::default();
    repo.index_worktree_status(
        index,
        Vec::<BString>::new(),
        &mut collect,
        compare,
        NoSubmodules,
        &mut gix::progress::Discard,
        &AtomicBool::new(false),
        options,
    )
    .map_err(Error::object("computing the status"))?;
    Ok(collect
        .items
        .into_iter()
        .filter_map(|item| Some((item.rela_path().to_owned(), classify(&item)?)))
        .collect())
}

/// Compares a worktree file with its index entry by hashing the file's raw bytes (a symlink's
/// target) as a blob of the repository's hash kind — never through a filter pipeline.
#[derive(Clone)]
struct RawBlobs {
    workdir: Arc<PathBuf>,
    /// The index's path backing, to name the entry being compared.
    paths: Arc<Vec<u8>>,
}

impl CompareBlobs for RawBlobs {
    type Output = ();

    fn compare_blobs<'a, 'b>(
        &mut self,
        entry: &gix::index::Entry,
        worktree_blob_size: u64,
        _data: impl ReadData<'a>,
        _buf: &mut Vec<u8>,
    ) -> gix::Result<Option<()>> {
        let Ok(rel) = gix::path::from_bstr(entry.path_in(&self.paths)) else { return Ok(Some(())) };
        let path = self.workdir.join(rel);
        let kind = entry.id.kind();
        let id = if entry.mode == gix::index::entry::Mode::SYMLINK {
            std::fs::read_link(&path).ok().and_then(|target| {
                let target = target.into_os_string().into_encoded_bytes();
                gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &target).ok()
            })
        } else {
            if u64::from(entry.stat.size) != worktree_blob_size && entry.stat.size != 0 {
                return Ok(Some(()));
            }
            raw_file_id(&path, kind)
        };
        // Unreadable or changing while read: modified, so the snapshot step names the problem.
        Ok((id != Some(entry.id)).then_some(()))
    }
}

/// The blob id of a file's raw bytes, streamed (`None` when it cannot be read, or its length
/// changed while it was read).
fn raw_file_id(path: &Path, kind: gix::hash::Kind) -> Option<gix::ObjectId> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    gix::objs::compute_stream_hash(
        kind,
        gix::objs::Kind::Blob,
        &mut file,
        len,
        &mut gix::progress::Discard,
        &AtomicBool::new(false),
    )
    .ok()
}

/// Submodules are not looked into (their content is never part of this repository's commit).
#[derive(Clone)]
struct NoSubmodules;

impl SubmoduleStatus for NoSubmodules {
    type Output = gix::submodule::Status;

    fn status(&mut self, _entry: &gix::index::Entry, _rela_path: &BStr) -> gix::Result<Option<Self::Output>> {
        Ok(None)
    }
}

/// Collects the status items.
#[derive(Default)]
struct Collect {
    items: Vec<Item>,
}

impl<'index> VisitEntry<'index> for Collect {
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(&mut self, entry: Entry<'index, (), gix::submodule::Status>) {
        self.items.push(entry.into());
    }
}

/// Maps one status item to a pending change (`None`: nothing git would stage).
fn classify(item: &Item) -> Option<WorktreeChange> {
    let modified = || Some(WorktreeChange::Modified);
    match item {
        Item::Modification { status, .. } => match status {
            EntryStatus::Conflict { .. }
            | EntryStatus::IntentToAdd
            | EntryStatus::Change(Change::Type { .. } | Change::Modification { .. }) => modified(),
            EntryStatus::Change(Change::Removed) => Some(WorktreeChange::Deleted),
            EntryStatus::Change(Change::SubmoduleModification(_)) | EntryStatus::NeedsUpdate(_) => None,
        },
        Item::DirectoryContents { entry, .. } => dir_entry(entry.status, entry.disk_kind),
        Item::Rewrite { dirwalk_entry, .. } => dir_entry(dirwalk_entry.status, dirwalk_entry.disk_kind),
    }
}

fn dir_entry(status: DirStatus, kind: Option<DiskKind>) -> Option<WorktreeChange> {
    match (status, kind?) {
        (DirStatus::Untracked, DiskKind::File | DiskKind::Symlink) => Some(WorktreeChange::Untracked),
        (DirStatus::Untracked, DiskKind::Repository) => Some(WorktreeChange::NestedRepo),
        (DirStatus::Ignored(_), DiskKind::File | DiskKind::Symlink | DiskKind::Directory) => {
            Some(WorktreeChange::Ignored)
        }
        (DirStatus::Untracked | DirStatus::Ignored(_) | DirStatus::Pruned | DirStatus::Tracked, _) => None,
    }
}
