//! Content identity of a git worktree: one blake3 digest that changes whenever anything a check
//! could see changes.
//!
//! It covers the worktree root, `HEAD`, the index entries (path, mode, blob id, stage, flags),
//! the upstream ref and its commit, and every file git considers part of the project — tracked
//! files on disk and untracked, not-ignored ones — by content and mode (a symlink by its target,
//! a missing tracked file by its absence, a nested repository by its path). Files are stat'ed
//! and hashed in parallel; a file whose stat data is unchanged since this process (or an earlier
//! one) hashed it under the rule of [`super::stat`] is not read again.
//! Over the [`Budget`] (files or bytes) there is no identity: the caller checks without caching.
//! A file that changes while it is read also yields no identity.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use gix::bstr::BString;
use rayon::prelude::*;

use super::stat::{StatCache, StatKey};
use crate::env::Env;

/// Limits beyond which no identity is computed (the check still runs, uncached).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most files (tracked plus untracked).
    pub max_files: usize,
    /// Most bytes over all files.
    pub max_bytes: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self { max_files: 20_000, max_bytes: 256 * 1024 * 1024 }
    }
}

impl Budget {
    /// The defaults, overridden by `CODEGUARD_IDENTITY_MAX_FILES` and
    /// `CODEGUARD_IDENTITY_MAX_BYTES` when they hold numbers.
    pub fn from_env(env: &Env) -> Self {
        let number = |key| env.text(key).and_then(|v| v.trim().parse::<u64>().ok());
        let default = Self::default();
        Self {
            max_files: number("CODEGUARD_IDENTITY_MAX_FILES")
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(default.max_files),
            max_bytes: number("CODEGUARD_IDENTITY_MAX_BYTES").unwrap_or(default.max_bytes),
        }
    }
}

/// A 256-bit content identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identity(pub [u8; 32]);

impl Identity {
    /// Lowercase hex.
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

/// Why there is no identity (and so no caching).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoIdentity {
    /// The directory is not inside a git worktree.
    #[error("not a git worktree: {0}")]
    NotARepository(String),
    /// Reading git data failed.
    #[error("cannot read the repository: {0}")]
    Git(String),
    /// The tree is larger than the budget.
    #[error("{files} files / {bytes} bytes is over the identity budget")]
    OverBudget {
        /// Files counted (so far).
        files: usize,
        /// Bytes counted (so far).
        bytes: u64,
    },
    /// A file changed while it was read.
    #[error("{0} changed while it was read")]
    Unstable(String),
    /// A file could not be read.
    #[error("cannot read {path}: {message}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

/// The identity of a worktree and what computing it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The canonical worktree root.
    pub root: PathBuf,
    /// The identity.
    pub identity: Identity,
    /// Files covered.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Files whose content was read (the others came from the stat cache).
    pub read: usize,
}

/// What one path contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// Tracked but not on disk.
    Missing,
    /// A directory where a file is tracked, or a nested repository.
    Directory,
    /// A symlink: the hash of its target.
    Symlink([u8; 32]),
    /// A regular file: its stat data and content hash.
    File(StatKey, [u8; 32]),
    /// Anything else (fifo, socket, device): its type only.
    Special(u32),
}

/// Computes the identity of the worktree containing `dir`, reusing and refreshing the stat
/// cache at `stat_cache` when given.
pub fn worktree(dir: &Path, budget: &Budget, stat_cache: Option<&Path>) -> Result<Worktree, NoIdentity> {
    let began = SystemTime::now();
    let repo = crate::git::discover_worktree(dir).map_err(|e| match e {
        crate::git::Error::Bare(_) => {
            NoIdentity::NotARepository(format!("{} has no worktree", dir.display()))
        }
        e => NoIdentity::NotARepository(e.cause().unwrap_or_default().to_owned()),
    })?;
    let root = crate::git::workdir(&repo)
        .map_err(|e| NoIdentity::NotARepository(e.to_string()))?
        .canonicalize()
        .map_err(|e| NoIdentity::NotARepository(e.to_string()))?;
    let index = crate::git::default_index(&repo)
        .map_err(|e| NoIdentity::Git(e.cause().unwrap_or_default().to_owned()))?;
    let observed = crate::git::fingerprint(&repo, &index).map_err(|e| NoIdentity::Git(e.to_string()))?;
    let upstream = crate::git::upstream(&repo).map_err(|e| NoIdentity::Git(e.to_string()))?;
    let paths = listing(&repo, &index)?;
    if paths.len() > budget.max_files {
        return Err(NoIdentity::OverBudget { files: paths.len(), bytes: 0 });
    }
    let stats: Vec<Stat> = paths.par_iter().map(|(path, _)| stat(&root, path)).collect();
    let bytes = stats.iter().map(Stat::size).sum::<u64>();
    if bytes > budget.max_bytes {
        return Err(NoIdentity::OverBudget { files: paths.len(), bytes });
    }
    let cache = stat_cache.map(StatCache::load).unwrap_or_default();
    let contents: Vec<(Content, Read)> = paths
        .par_iter()
        .zip(stats)
        .map(|((path, _), stat)| content(&root, path, stat, &cache, began))
        .collect::<Result<_, _>>()?;
    if let Some(file) = stat_cache {
        refresh(&cache, file, &paths, &contents);
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"codeguard content identity 1\0");
    field(&mut hasher, root.as_os_str().as_encoded_bytes());
    field(&mut hasher, observed.head.map(|id| id.to_string()).unwrap_or_default().as_bytes());
    field(&mut hasher, &observed.index_digest);
    let upstream = upstream.map(|(name, id)| format!("{name} {id}")).unwrap_or_default();
    field(&mut hasher, upstream.as_bytes());
    for ((path, origin), (content, _)) in paths.iter().zip(&contents) {
        field(&mut hasher, path);
        hasher.update(&[*origin as u8]);
        digest_content(&mut hasher, content);
    }
    let read = contents.iter().filter(|(_, r)| *r != Read::Cached).count();
    Ok(Worktree { root, identity: Identity(*hasher.finalize().as_bytes()), files: paths.len(), bytes, read })
}

/// Where a path comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Tracked = 1,
    Untracked = 2,
    NestedRepository = 3,
}

/// Tracked paths (one per path, whatever its stages; gitlinks and sparse directories are
/// covered by the index digest alone) and untracked, not-ignored files, sorted by path.
fn listing(repo: &gix::Repository, index: &gix::index::State) -> Result<Vec<(BString, Origin)>, NoIdentity> {
    let mut paths: Vec<(BString, Origin)> = Vec::with_capacity(index.entries().len());
    for entry in index.entries() {
        if entry.mode.is_submodule() || entry.mode.is_sparse() {
            continue;
        }
        let path = entry.path(index);
        if paths.last().is_none_or(|(last, _)| last.as_slice() != path.as_ref() as &[u8]) {
            paths.push((path.to_owned(), Origin::Tracked));
        }
    }
    let untracked = crate::git::untracked(repo, index).map_err(|e| NoIdentity::Git(e.to_string()))?;
    for (path, nested) in untracked {
        paths.push((path, if nested { Origin::NestedRepository } else { Origin::Untracked }));
    }
    paths.sort();
    paths.dedup_by(|a, b| a.0 == b.0);
    Ok(paths)
}

/// The result of `lstat` on one path.
enum Stat {
    Missing,
    Found(std::fs::Metadata),
    Error(String),
}

impl Stat {
    fn size(&self) -> u64 {
        match self {
            Self::Found(meta) if meta.is_file() => meta.len(),
            Self::Found(_) | Self::Missing | Self::Error(_) => 0,
        }
    }
}

fn stat(root: &Path, path: &BString) -> Stat {
    match std::fs::symlink_metadata(on_disk(root, path)) {
        Ok(meta) => Stat::Found(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Stat::Missing,
        Err(e) => Stat::Error(e.to_string()),
    }
}

/// A repository-relative path on disk (paths are bytes on unix).
fn on_disk(root: &Path, path: &BString) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    root.join(std::ffi::OsStr::from_bytes(path.as_ref()))
}

/// How a file's hash was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// From the stat cache.
    Cached,
    /// Read now; the hash may be recorded.
    Settled,
    /// Read now; too recent to record.
    Unsettled,
}

fn content(
    root: &Path,
    path: &BString,
    stat: Stat,
    cache: &StatCache,
    began: SystemTime,
) -> Result<(Content, Read), NoIdentity> {
    let display = || path.to_string();
    let meta = match stat {
        Stat::Missing => return Ok((Content::Missing, Read::Unsettled)),
        Stat::Error(message) => return Err(NoIdentity::Unreadable { path: display(), message }),
        Stat::Found(meta) => meta,
    };
    let full = on_disk(root, path);
    let kind = meta.file_type();
    if kind.is_dir() {
        return Ok((Content::Directory, Read::Unsettled));
    }
    if kind.is_symlink() {
        let target = std::fs::read_link(&full)
            .map_err(|e| NoIdentity::Unreadable { path: display(), message: e.to_string() })?;
        return Ok((
            Content::Symlink(*blake3::hash(target.as_os_str().as_encoded_bytes()).as_bytes()),
            Read::Unsettled,
        ));
    }
    if !kind.is_file() {
        return Ok((
            Content::Special(std::os::unix::fs::MetadataExt::mode(&meta) & 0o170_000),
            Read::Unsettled,
        ));
    }
    let before = StatKey::of(&meta);
    if let Some(hash) = cache.get(path.as_ref(), &before) {
        return Ok((Content::File(before, hash), Read::Cached));
    }
    let hash = hash_file(&full, &before).map_err(|e| match e {
        HashError::Changed => NoIdentity::Unstable(display()),
        HashError::Io(e) => NoIdentity::Unreadable { path: display(), message: e.to_string() },
    })?;
    let read = if before.settled(began) { Read::Settled } else { Read::Unsettled };
    Ok((Content::File(before, hash), read))
}

/// Why a file could not be hashed.
pub(super) enum HashError {
    /// Its stat data changed while it was read.
    Changed,
    /// It could not be read.
    Io(std::io::Error),
}

/// Hashes a file's content, failing when its stat data after reading differs from `before`.
pub(super) fn hash_file(path: &Path, before: &StatKey) -> Result<[u8; 32], HashError> {
    let mut file = std::fs::File::open(path).map_err(HashError::Io)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(&mut file).map_err(HashError::Io)?;
    let after = StatKey::of(&file.metadata().map_err(HashError::Io)?);
    if after == *before { Ok(*hasher.finalize().as_bytes()) } else { Err(HashError::Changed) }
}

/// Rewrites the stat cache with the hashes that may be kept: those it already had and those
/// read now whose stat data is settled. Written only when something changed; a failure to write
/// costs only re-reading next time.
fn refresh(old: &StatCache, file: &Path, paths: &[(BString, Origin)], contents: &[(Content, Read)]) {
    let kept = paths.iter().zip(contents).filter_map(|((path, _), (content, read))| match (content, read) {
        (Content::File(stat, hash), Read::Cached | Read::Settled) => Some((path.to_vec(), *stat, *hash)),
        (Content::File(..), Read::Unsettled)
        | (Content::Missing | Content::Directory | Content::Symlink(_) | Content::Special(_), _) => None,
    });
    let new = StatCache::from_entries(kept);
    if !new.same_as(old) {
        let _ = new.save(file);
    }
}

fn field(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

fn digest_content(hasher: &mut blake3::Hasher, content: &Content) {
    match content {
        Content::Missing => {
            hasher.update(b"m");
        }
        Content::Directory => {
            hasher.update(b"d");
        }
        Content::Symlink(hash) => {
            hasher.update(b"l");
            hasher.update(hash);
        }
        Content::File(stat, hash) => {
            hasher.update(b"f");
            hasher.update(&(stat.mode & 0o170_777).to_le_bytes());
            hasher.update(hash);
        }
        Content::Special(kind) => {
            hasher.update(b"s");
            hasher.update(&kind.to_le_bytes());
        }
    }
}
