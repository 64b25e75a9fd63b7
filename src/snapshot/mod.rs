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

mod layout;
mod scratch;
mod trees;
mod write;

use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::registry::SupportFiles;
use crate::surface::{Base, Surface};

pub(crate) use layout::Source;
pub(crate) use scratch::ScratchDir;
pub(crate) use trees::TreeCache;

/// The base listing of a surface, read once for both the safety scan ([`Content::sources`])
/// and the snapshot ([`Snapshot::from_content`]).
pub(crate) struct Content {
    repo: gix::Repository,
    listing: layout::Listing,
}

impl Content {
    /// Opens the repository and reads the listing `surface` was predicted from.
    pub(crate) fn read(surface: &Surface) -> Result<Self, SnapshotError> {
        let repo = crate::git::open_worktree(&surface.root)?;
        let listing = layout::Listing::read(&repo, surface)?;
        Ok(Self { repo, listing })
    }

    /// The content source of each of `paths` in the content the surface predicts (see
    /// [`layout::sources`]): what the safety scan reads, whether or not the snapshot can be made.
    /// Entries whose names are not UTF-8 (which the surface leaves out of its paths) and whose
    /// content differs from `HEAD` come last, under their lossy names.
    pub(crate) fn sources(&self, surface: &Surface, paths: &[String]) -> Vec<(String, Source)> {
        let mut sources = layout::sources(&self.listing, Some(&self.repo), surface, paths);
        sources.extend(layout::non_utf8_changes(&self.repo, &self.listing));
        sources
    }

    /// The bytes `path` holds in the content `surface` predicts: `None` when it is absent there
    /// or cannot be read (a worktree file is read as it is now).
    pub(crate) fn file(&self, surface: &Surface, path: &str) -> Option<Vec<u8>> {
        let sources = layout::sources(&self.listing, Some(&self.repo), surface, &[path.to_owned()]);
        match sources.into_iter().find(|(p, _)| p == path)?.1 {
            Source::Blob(id) => self.repo.find_object(id).ok().map(|o| o.detach().data),
            Source::Worktree(from) => std::fs::read(surface.root.join(from)).ok(),
            Source::Gitlink | Source::Unknown(_) => None,
        }
    }

    /// The bytes of the blob at `path` in the tree of `commit` (`None`: no such blob).
    pub(crate) fn file_at(&self, commit: gix::ObjectId, path: &str) -> Option<Vec<u8>> {
        let tree = crate::git::commit_tree(&self.repo, commit).ok()?;
        crate::git::tree::blob_at(&self.repo, tree, path).ok().flatten()
    }
}

/// Default limit on the number of files one snapshot writes (`CODEGUARD_SNAPSHOT_MAX_FILES`).
/// Only a plan that needs the whole tree (a project-level linter) writes more than the changed
/// files and their configuration, so this bounds whole-tree materialisations only.
pub(crate) const DEFAULT_MAX_FILES: usize = 250_000;
/// Default limit on the total bytes one snapshot writes (`CODEGUARD_SNAPSHOT_MAX_BYTES`, 2 GiB).
pub(crate) const DEFAULT_MAX_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Where and how large a snapshot may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Parent directories to create the snapshot in, tried in order (tmpfs ones first).
    pub scratch_dirs: Vec<PathBuf>,
    /// At most this many files (and symlinks).
    pub max_files: usize,
    /// At most this many bytes of file content.
    pub max_bytes: u64,
    /// The base-tree cache whole-tree snapshots link unchanged files from (none: every file is
    /// written from its blob).
    pub tree_cache: Option<PathBuf>,
    /// The cache is used for contents of at least this many entries; smaller trees are written
    /// whole, which costs less than the cache's bookkeeping (`CODEGUARD_TREE_CACHE_FROM`).
    pub tree_cache_from: usize,
}

/// Default for [`SnapshotOptions::tree_cache_from`].
pub(crate) const DEFAULT_TREE_CACHE_FROM: usize = 2_000;

impl Default for SnapshotOptions {
    /// `/dev/shm`, then `/tmp`, with the default limits. Prefer [`SnapshotOptions::from_env`].
    fn default() -> Self {
        Self {
            scratch_dirs: vec![PathBuf::from("/dev/shm"), PathBuf::from("/tmp")],
            max_files: DEFAULT_MAX_FILES,
            max_bytes: DEFAULT_MAX_BYTES,
            tree_cache: None,
            tree_cache_from: DEFAULT_TREE_CACHE_FROM,
        }
    }
}

impl SnapshotOptions {
    /// Scratch candidates from the environment: `/dev/shm`, `$XDG_RUNTIME_DIR`, then `$TMPDIR`
    /// (or `/tmp`), with the limits of `CODEGUARD_SNAPSHOT_MAX_FILES` and
    /// `CODEGUARD_SNAPSHOT_MAX_BYTES` (else the defaults), and the base-tree cache in the state
    /// directory (`<state>/cache/trees`).
    pub fn from_env(env: &Env) -> Self {
        let mut scratch_dirs = vec![PathBuf::from("/dev/shm")];
        scratch_dirs.extend(env.get("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()).map(PathBuf::from));
        scratch_dirs
            .push(env.get("TMPDIR").filter(|v| !v.is_empty()).map_or_else(|| "/tmp".into(), PathBuf::from));
        let number = |name: &str| env.get(name).and_then(|v| v.to_str()?.trim().parse::<u64>().ok());
        Self {
            scratch_dirs,
            max_files: number("CODEGUARD_SNAPSHOT_MAX_FILES")
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(DEFAULT_MAX_FILES),
            max_bytes: number("CODEGUARD_SNAPSHOT_MAX_BYTES").unwrap_or(DEFAULT_MAX_BYTES),
            tree_cache: Some(crate::state::home(env).join("cache").join("trees")),
            tree_cache_from: number("CODEGUARD_TREE_CACHE_FROM")
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(DEFAULT_TREE_CACHE_FROM),
        }
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
    #[error(
        "the content needs {count} files written, more than the limit of {limit} (CODEGUARD_SNAPSHOT_MAX_FILES)"
    )]
    TooManyFiles {
        /// Files in the content.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// More bytes than allowed.
    #[error("the content is larger than the limit of {limit} bytes (CODEGUARD_SNAPSHOT_MAX_BYTES)")]
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
    /// The repository could not be opened or read.
    #[error(transparent)]
    Repository(#[from] crate::git::Error),
}

impl SnapshotError {
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
///
/// It starts as the changed files and their configuration ([`Snapshot::materialise`]), which is
/// all per-file linters read; [`Snapshot::complete`] adds the rest of the tree for linters that
/// read the whole project.
pub struct Snapshot {
    dir: ScratchDir,
    surface: Surface,
    listing: layout::Listing,
    support: SupportFiles,
    options: SnapshotOptions,
    whole: bool,
    root_names: std::collections::BTreeSet<String>,
    copied: Vec<Copied>,
    files: usize,
    bytes: u64,
    notes: Vec<String>,
    /// The base-tree cache entry a whole snapshot links from, and its links.
    shared: Option<(PathBuf, Vec<trees::Linked>)>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("dir", &self.dir)
            .field("whole", &self.whole)
            .field("files", &self.files)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl Snapshot {
    /// Writes the changed files of the content `surface` predicts, and the `support` files
    /// beside them (see [`SupportFiles`]), into a new private directory.
    pub fn materialise(
        surface: &Surface,
        options: &SnapshotOptions,
        support: &SupportFiles,
    ) -> Result<Self, SnapshotError> {
        Self::from_content(Content::read(surface)?, surface, options, support)
    }

    /// [`Snapshot::materialise`] from a listing already read.
    pub(crate) fn from_content(
        content: Content,
        surface: &Surface,
        options: &SnapshotOptions,
        support: &SupportFiles,
    ) -> Result<Self, SnapshotError> {
        let Content { repo, mut listing } = content;
        if !is_immutable(surface.base) && listing.observed != surface.observed {
            return Err(SnapshotError::Changed("the index or HEAD moved after the prediction".into()));
        }
        let mut notes = Vec::new();
        let items = layout::items(&listing, surface, layout::Extent::Changed { support }, &mut notes)?;
        let mut root_names = layout::root_names(&listing, surface);
        let sync = repo.into_sync();
        let mut tried = Vec::new();
        for parent in &options.scratch_dirs {
            let Some(dir) = ScratchDir::create_in(parent) else {
                tried.push(parent.display().to_string());
                continue;
            };
            let mut snapshot = Self {
                dir,
                surface: surface.clone(),
                listing,
                support: support.clone(),
                options: options.clone(),
                whole: false,
                root_names,
                copied: Vec::new(),
                files: 0,
                bytes: 0,
                notes,
                shared: None,
            };
            match snapshot.write(&sync, &items) {
                Ok(()) => return Ok(snapshot),
                Err(e) if e.is_out_of_space() => {
                    tried.push(format!("{} (full)", parent.display()));
                    (listing, root_names, notes) = (snapshot.listing, snapshot.root_names, snapshot.notes);
                }
                Err(e) => return Err(e),
            }
        }
        Err(SnapshotError::NoScratchDir(tried.join(", ")))
    }

    /// Writes the whole content `surface` predicts (what [`Snapshot::materialise`] followed by
    /// [`Snapshot::complete`] gives).
    pub fn materialise_whole(surface: &Surface, options: &SnapshotOptions) -> Result<Self, SnapshotError> {
        let mut snapshot = Self::materialise(surface, options, &SupportFiles::default())?;
        snapshot.complete()?;
        Ok(snapshot)
    }

    /// Adds every entry of the content not written yet, for linters that read the whole tree.
    /// Nothing happens when it is whole already. With a base-tree cache, the whole content is
    /// made anew beside the cache entry of `HEAD`'s tree, every unchanged file a hard link to it
    /// (the directory moves: plan again on [`Snapshot::root`]); without one, or when the cache
    /// cannot be used, the missing files are written from their blobs.
    pub fn complete(&mut self) -> Result<(), SnapshotError> {
        if self.whole {
            return Ok(());
        }
        self.listing.whole(&crate::git::open_worktree(&self.surface.root)?)?;
        if let Some(cache) = self.options.tree_cache.clone().map(TreeCache::new)
            && self.listing.len() >= self.options.tree_cache_from
            && self.complete_from(&cache).is_ok()
        {
            self.whole = true;
            return Ok(());
        }
        let repo = crate::git::open_worktree(&self.surface.root)?;
        let mut notes = Vec::new();
        let extent = layout::Extent::Rest { support: &self.support };
        let items = layout::items(&self.listing, &self.surface, extent, &mut notes)?;
        self.notes.extend(notes);
        self.write(&repo.into_sync(), &items)?;
        self.whole = true;
        Ok(())
    }

    /// Makes the whole content in a new directory beside the cache entry of `HEAD`'s tree.
    fn complete_from(&mut self, cache: &TreeCache) -> Result<(), SnapshotError> {
        let repo = crate::git::open_worktree(&self.surface.root)?;
        let head = self.surface.observed.head.ok_or_else(|| SnapshotError::Changed("no HEAD".into()))?;
        let tree = crate::git::commit_tree(&repo, head)?;
        let base = crate::git::tree_index(&repo, tree)?;
        let mut notes = Vec::new();
        let mut items = layout::items(&self.listing, &self.surface, layout::Extent::Whole, &mut notes)?;
        if items.len() > self.options.max_files {
            return Err(SnapshotError::TooManyFiles { count: items.len(), limit: self.options.max_files });
        }
        let sync = repo.into_sync();
        let cached = cache.ensure(
            &sync,
            &self.surface.root,
            tree,
            || layout::tree_items(&base),
            self.options.max_bytes,
        )?;
        let dir = ScratchDir::create_in(&cache.work_dir()?).ok_or_else(|| {
            SnapshotError::NoScratchDir(cache.work_dir().map(|d| d.display().to_string()).unwrap_or_default())
        })?;
        let linked = TreeCache::link_unchanged(&cached, &base, &mut items);
        let outcome = write::all(&sync, &self.surface.root, dir.path(), &items, self.options.max_bytes)?;
        self.dir = dir;
        self.files = items.len();
        self.bytes = outcome.bytes;
        self.copied = outcome.copied.into_iter().map(|(path, stamp)| Copied { path, stamp }).collect();
        for note in notes {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        self.shared = Some((cached, linked));
        Ok(())
    }

    /// After the linters ran: whether every file linked from the base-tree cache is unchanged
    /// (a linter that wrote through a link changed the cache entry, which is then evicted).
    /// True when nothing is linked.
    pub fn shared_intact(&self) -> bool {
        self.shared.as_ref().is_none_or(|(cached, linked)| TreeCache::verify(cached, linked))
    }

    /// Writes `items` (within the limits), remembering what was copied from the worktree.
    fn write(
        &mut self,
        repo: &gix::ThreadSafeRepository,
        items: &[layout::Item],
    ) -> Result<(), SnapshotError> {
        let files = self.files + items.len();
        if files > self.options.max_files {
            return Err(SnapshotError::TooManyFiles { count: files, limit: self.options.max_files });
        }
        let room = self.options.max_bytes.saturating_sub(self.bytes);
        let outcome = write::all(repo, &self.surface.root, self.dir.path(), items, room)?;
        self.files = files;
        self.bytes += outcome.bytes;
        self.copied.extend(outcome.copied.into_iter().map(|(path, stamp)| Copied { path, stamp }));
        let surface = &self.surface;
        self.notes.extend(outcome.escaping_links.iter().filter(|l| surface.paths.contains(l)).map(|l| {
            format!("{l} is a symlink leading out of the repository: it is committed as a link, and linters do not see it")
        }));
        Ok(())
    }

    /// The names in the root of the content (all of them, also those not written): what
    /// planning reads as the project's root markers.
    pub fn root_names(&self) -> &std::collections::BTreeSet<String> {
        &self.root_names
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
        &self.surface.paths
    }

    /// Files the commit/push deletes (absent from the snapshot).
    pub fn deleted(&self) -> &[String] {
        &self.surface.deleted
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
        if is_immutable(self.surface.base) {
            return Ok(());
        }
        let now = crate::git::observe_index(&self.surface.root, self.surface.index_file.as_deref())?;
        if now.head != self.surface.observed.head {
            return Err(SnapshotError::Changed("HEAD moved".into()));
        }
        if now.index_digest != self.surface.observed.index_digest {
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
