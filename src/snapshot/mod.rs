//! Materialises predicted content from git blobs into a private temporary directory.
//!
//! **In:** a [`Surface`](crate::surface::Surface) (a base listing — the index or `HEAD`'s tree —
//! plus overlays) and [`SnapshotOptions`] (where scratch space may go, size limits).
//! **Out:** a [`Snapshot`]: a directory holding exactly the content that would be committed or
//! pushed, the list of changed files the linters should run on, and [`Snapshot::reverify`] to
//! prove after linting that the repository did not change in between.
//! **Never:** touches the user's index, worktree, refs, stash or config; never runs filter
//! drivers, hooks or `git`; never follows a symlink out of the snapshot. Every failure is a
//! [`SnapshotError`], which callers report as UNVERIFIED — never a crash.
//!
//! Rules: intent-to-add entries are skipped (git does not commit them); skip-worktree entries
//! are written from their blob; conflicted entries, gitlinks (submodules), sparse-directory
//! entries, symlinks leaving the snapshot, unsafe paths (`..`, absolute, `.git`) and the size
//! limits are errors. The directory is created `0700` in the first usable scratch directory
//! (tmpfs first), falling back to the next one when a disk fills up, and removed by a `Drop`
//! guard even on error or panic.

mod plan;
mod scratch;
mod write;

use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::surface::{Base, Observed, Surface, SurfaceError};

pub(crate) use plan::Source;
pub use scratch::ScratchDir;

/// The content source of each of `paths` in the content `surface` predicts (see
/// [`plan::sources`]): what the safety scan reads, whether or not the snapshot can be made.
/// Entries whose names are not UTF-8 (which the surface leaves out of its paths) and whose
/// content differs from `HEAD` come last, under their lossy names.
pub(crate) fn sources(surface: &Surface, paths: &[String]) -> Result<Vec<(String, Source)>, SnapshotError> {
    let repo = crate::surface::open_repo(&surface.root)?;
    let listing = plan::Listing::read(&repo, surface)?;
    let mut sources = plan::sources(&listing, surface, paths);
    sources.extend(plan::non_utf8_changes(&repo, &listing));
    Ok(sources)
}

/// Default limit on the number of files in a snapshot.
pub const DEFAULT_MAX_FILES: usize = 20_000;
/// Default limit on the total bytes written into a snapshot (256 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Where and how large a snapshot may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Parent directories to create the snapshot in, tried in order (tmpfs ones first).
    pub scratch_dirs: Vec<PathBuf>,
    /// At most this many files (and symlinks).
    pub max_files: usize,
    /// At most this many bytes of file content.
    pub max_bytes: u64,
}

impl Default for SnapshotOptions {
    /// `/dev/shm`, then `/tmp`, with the default limits. Prefer [`SnapshotOptions::from_env`].
    fn default() -> Self {
        Self {
            scratch_dirs: vec![PathBuf::from("/dev/shm"), PathBuf::from("/tmp")],
            max_files: DEFAULT_MAX_FILES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl SnapshotOptions {
    /// Scratch candidates from the environment: `/dev/shm`, `$XDG_RUNTIME_DIR`, then `$TMPDIR`
    /// (or `/tmp`), with the default limits.
    pub fn from_env(env: &Env) -> Self {
        let mut scratch_dirs = vec![PathBuf::from("/dev/shm")];
        scratch_dirs.extend(env.get("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()).map(PathBuf::from));
        scratch_dirs
            .push(env.get("TMPDIR").filter(|v| !v.is_empty()).map_or_else(|| "/tmp".into(), PathBuf::from));
        Self { scratch_dirs, ..Self::default() }
    }
}

/// Why a snapshot could not be made or trusted. Every variant means UNVERIFIED: the exact
/// content could not be checked, and the message says why.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The index, `HEAD` or an overlaid worktree file changed since the prediction.
    #[error("the repository changed while checking ({0})")]
    Changed(String),
    /// An index entry is in conflict (stages 1–3).
    #[error("{0} has an unresolved merge conflict")]
    Conflict(String),
    /// A gitlink (submodule) is part of the content.
    #[error("{0} is a submodule; its content cannot be checked from this repository")]
    Submodule(String),
    /// The index is sparse (directory entries).
    #[error("{0} is a sparse-index directory entry; sparse checkouts are not supported")]
    SparseIndex(String),
    /// A symlink points outside the snapshot.
    #[error("symlink {path} points outside the repository ({target})")]
    SymlinkEscapes {
        /// The link's path.
        path: String,
        /// Its target.
        target: String,
    },
    /// A path is absolute, has `..`/`.`/empty components, or a `.git` component.
    #[error("unsafe path in the content: {0:?}")]
    UnsafePath(String),
    /// A worktree file to overlay is neither a regular file nor a symlink, or sits behind a
    /// symlinked directory.
    #[error("{0} is not a regular file or symlink inside the worktree")]
    UnsupportedFile(String),
    /// More files than allowed.
    #[error("the content has {count} files, more than the limit of {limit}")]
    TooManyFiles {
        /// Files in the content.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// More bytes than allowed.
    #[error("the content is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// No scratch directory could hold the snapshot.
    #[error("no usable scratch directory (tried: {0})")]
    NoScratchDir(String),
    /// Reading git data failed.
    #[error("{context}: {message}")]
    Git {
        /// What was being read.
        context: &'static str,
        /// gix's explanation.
        message: String,
    },
    /// Writing or reading files failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The repository could not be read.
    #[error(transparent)]
    Surface(#[from] SurfaceError),
}

impl SnapshotError {
    fn git(context: &'static str) -> impl FnOnce(gix::Error) -> Self {
        move |e| SnapshotError::Git { context, message: e.to_string() }
    }

    fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        move |source| SnapshotError::Io { context: context.into(), source }
    }

    /// Whether retrying in another scratch directory may help (the disk filled up).
    fn is_out_of_space(&self) -> bool {
        matches!(self, SnapshotError::Io { source, .. } if source.kind() == std::io::ErrorKind::StorageFull)
    }
}

/// A worktree file copied into the snapshot, with what it looked like when copied.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Copied {
    path: PathBuf,
    stamp: write::Stamp,
}

/// Materialised content, removed from disk when dropped.
#[derive(Debug)]
pub struct Snapshot {
    dir: ScratchDir,
    repo_root: PathBuf,
    index_file: Option<PathBuf>,
    /// The content is a commit's tree: nothing in the repository can change it.
    immutable: bool,
    observed: Observed,
    changed: Vec<String>,
    deleted: Vec<String>,
    copied: Vec<Copied>,
    files: usize,
    bytes: u64,
    notes: Vec<String>,
}

impl Snapshot {
    /// Writes the content `surface` predicts into a new private directory.
    pub fn materialise(surface: &Surface, options: &SnapshotOptions) -> Result<Self, SnapshotError> {
        let repo = crate::surface::open_repo(&surface.root)?;
        let listing = plan::Listing::read(&repo, surface)?;
        if !is_immutable(surface.base) && listing.observed != surface.observed {
            return Err(SnapshotError::Changed("the index or HEAD moved after the prediction".into()));
        }
        let mut notes = Vec::new();
        let items = plan::items(&listing, surface, &mut notes)?;
        if items.len() > options.max_files {
            return Err(SnapshotError::TooManyFiles { count: items.len(), limit: options.max_files });
        }
        let sync = repo.into_sync();
        let mut tried = Vec::new();
        for parent in &options.scratch_dirs {
            let Some(dir) = ScratchDir::create_in(parent) else {
                tried.push(parent.display().to_string());
                continue;
            };
            let written = write::all(&sync, &surface.root, dir.path(), &items, options.max_bytes);
            match written {
                Ok(outcome) => return Ok(Self::new(dir, surface, outcome, items.len(), notes)),
                Err(e) if e.is_out_of_space() => tried.push(format!("{} (full)", parent.display())),
                Err(e) => return Err(e),
            }
        }
        Err(SnapshotError::NoScratchDir(tried.join(", ")))
    }

    fn new(
        dir: ScratchDir,
        surface: &Surface,
        outcome: write::Outcome,
        files: usize,
        mut notes: Vec<String>,
    ) -> Self {
        let copied = outcome.copied.into_iter().map(|(path, stamp)| Copied { path, stamp }).collect();
        notes.extend(outcome.escaping_links.iter().filter(|l| surface.paths.contains(l)).map(|l| {
            format!("{l} is a symlink leading out of the repository: it is committed as a link, and linters do not see it")
        }));
        Self {
            dir,
            repo_root: surface.root.clone(),
            index_file: surface.index_file.clone(),
            immutable: is_immutable(surface.base),
            observed: surface.observed,
            changed: surface.paths.clone(),
            deleted: surface.deleted.clone(),
            copied,
            files,
            bytes: outcome.bytes,
            notes,
        }
    }

    /// What the snapshot left out that a changed path needed (submodules, symlinks leading out
    /// of the repository): reasons the lint result is incomplete.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The directory holding the content (the repository root inside the snapshot).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The changed files the linters should run on: repo-relative, sorted, present in the snapshot.
    pub fn changed(&self) -> &[String] {
        &self.changed
    }

    /// Files the commit/push deletes (absent from the snapshot).
    pub fn deleted(&self) -> &[String] {
        &self.deleted
    }

    /// How many files and symlinks were written.
    pub fn file_count(&self) -> usize {
        self.files
    }

    /// How many bytes of content were written.
    pub fn byte_count(&self) -> u64 {
        self.bytes
    }

    /// Checks that the index, `HEAD` and every copied worktree file are still what the snapshot
    /// was made from; call it after linting. A difference is [`SnapshotError::Changed`]. The
    /// tree of a commit cannot change, so a snapshot of one always re-verifies.
    pub fn reverify(&self) -> Result<(), SnapshotError> {
        if self.immutable {
            return Ok(());
        }
        let now = crate::surface::observe_index(&self.repo_root, self.index_file.as_deref())?;
        if now.head != self.observed.head {
            return Err(SnapshotError::Changed("HEAD moved".into()));
        }
        if now.index_digest != self.observed.index_digest {
            return Err(SnapshotError::Changed("the index was modified".into()));
        }
        for copied in &self.copied {
            if write::stamp(&copied.path).as_ref() != Some(&copied.stamp) {
                return Err(SnapshotError::Changed(format!("{} was modified", copied.path.display())));
            }
        }
        Ok(())
    }
}

/// Whether content from `base` is fixed by its object id (then the index and `HEAD` may move
/// without affecting it).
fn is_immutable(base: Base) -> bool {
    match base {
        Base::Tree(_) => true,
        Base::Index | Base::HeadTree => false,
    }
}
