//! The index and the fingerprint of the index and `HEAD`.
//!
//! **In:** an opened repository and, when git named one (`GIT_INDEX_FILE` in a hook, or on a
//! command line), the index file to read. **Out:** the index ([`load_index`]) and an
//! [`Observed`] fingerprint: equal fingerprints mean a commit would get the same content.
//! The index this process read last is kept with its digest, so predicting, scanning,
//! materialising and re-verifying decode (and hash) one large index once.
//! **Never:** writes the index, refreshes its stat data, or reads `GIT_INDEX_FILE` itself.

use std::path::{Path, PathBuf};

use super::Error;

/// A fingerprint of the index content (paths, modes, ids, stages, flags — not stat data) and the
/// commit `HEAD` points to. Equal fingerprints mean a commit would get the same content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed {
    /// The commit `HEAD` points to (`None` on an unborn branch).
    pub head: Option<gix::ObjectId>,
    /// blake3 over the index entries.
    pub index_digest: [u8; 32],
}

/// Re-reads the fingerprint of the repository at `root` (used to detect changes after
/// predicting), reading the index from `index_file` when given (git's `GIT_INDEX_FILE`).
pub(crate) fn observe_index(root: &Path, index_file: Option<&Path>) -> Result<Observed, Error> {
    let repo = super::open_worktree(root)?;
    let index = load_index(&repo, index_file)?;
    fingerprint(&repo, &index)
}

/// The fingerprint of an already opened repository and its loaded index.
pub(crate) fn fingerprint(repo: &gix::Repository, index: &gix::index::State) -> Result<Observed, Error> {
    Ok(Observed { head: head_commit(repo)?, index_digest: index_digest(index) })
}

/// The commit `HEAD` points to, `None` when the branch is unborn.
pub(crate) fn head_commit(repo: &gix::Repository) -> Result<Option<gix::ObjectId>, Error> {
    let head = repo.head().map_err(Error::reference("reading HEAD"))?;
    Ok(head.id().map(gix::Id::detach))
}

/// The index to read: the repository's own (`<git dir>/index`, empty when there is none yet),
/// or the file git pointed a hook at (`git commit -a` and `git commit <paths>` commit a
/// temporary index). The caller decides: gix's own reading of `GIT_INDEX_FILE` from the process
/// environment is deliberately not used, so the environment is read in one place (`env.rs`).
/// A relative `index_file` is taken as given (relative to the process's directory, as git
/// takes it); callers that know the worktree anchor it there first.
pub(crate) fn load_index(
    repo: &gix::Repository,
    index_file: Option<&Path>,
) -> Result<gix::worktree::Index, Error> {
    let own = repo.git_dir().join("index");
    let path = index_file.unwrap_or(&own);
    let identity = FileIdentity::of(path);
    if let Some(index) = identity.as_ref().and_then(|id| loaded(path, id)) {
        return Ok(index);
    }
    // A missing index is an empty one, as git reads it (`GIT_INDEX_FILE=new git add x` starts
    // a new index file). The trailing checksum is not verified (git's `index.skipHash` reading):
    // hashing the whole file with collision detection cost more than the rest of a one-file
    // commit in a large repository, and what the gate relies on is its own digest of the
    // entries (`index_digest`), taken when predicting and again after linting.
    let file = if path.exists() {
        gix::index::File::at(path, repo.object_hash(), true, gix::index::decode::Options::default())
            .map_err(|e| Error::Index { path: path.to_owned(), message: e.to_string() })?
    } else {
        gix::index::File::from_state(gix::index::State::new(repo.object_hash()), path.to_owned())
    };
    let index = gix::worktree::Index::new(gix::fs::FileSnapshot::new(file));
    if let Some(identity) = identity
        && let Ok(mut last) = LOADED.lock()
    {
        *last = Some(Loaded { path: path.to_owned(), identity, index: index.clone(), digest: None });
    }
    Ok(index)
}

/// The repository's index as gix finds it (its own path resolution, `GIT_INDEX_FILE` as gix
/// reads it when the repository was discovered), empty when there is none: what the content
/// identity of a worktree covers.
pub(crate) fn default_index(repo: &gix::Repository) -> Result<gix::worktree::Index, Error> {
    repo.index_or_empty().map_err(|e| Error::Index { path: repo.index_path(), message: e.to_string() })
}

/// What identifies one version of an index file: git replaces the file on every write (a lock
/// file renamed into place: a new inode), and any write in place changes its size or times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileIdentity {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(Self {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// The index this process read last, with its digest once taken: predicting, scanning,
/// materialising and re-verifying read the same file, and decoding a large index (and hashing
/// its entries) is most of what a one-file commit costs in a large repository. A file whose
/// identity changed is read again.
struct Loaded {
    path: PathBuf,
    identity: FileIdentity,
    index: gix::worktree::Index,
    digest: Option<[u8; 32]>,
}

static LOADED: std::sync::Mutex<Option<Loaded>> = std::sync::Mutex::new(None);

fn loaded(path: &Path, identity: &FileIdentity) -> Option<gix::worktree::Index> {
    let last = LOADED.lock().ok()?;
    let last = last.as_ref()?;
    (last.path == path && last.identity == *identity).then(|| last.index.clone())
}

/// A blake3 digest of the index entries' identity (path, mode, id, stage, content flags).
/// The bytes are gathered into blocks first: one hasher call per field cost more than the rest
/// of reading a large index. The digest of the index [`load_index`] read last is remembered.
pub(crate) fn index_digest(index: &gix::index::State) -> [u8; 32] {
    let same = |l: &Loaded| std::ptr::eq::<gix::index::State>(std::ptr::from_ref(&***l.index), index);
    if let Some(known) =
        LOADED.lock().ok().and_then(|l| l.as_ref().filter(|l| same(l)).and_then(|l| l.digest))
    {
        return known;
    }
    let digest = digest_entries(index);
    if let Ok(mut last) = LOADED.lock()
        && let Some(last) = last.as_mut().filter(|l| same(l))
    {
        last.digest = Some(digest);
    }
    digest
}

fn digest_entries(index: &gix::index::State) -> [u8; 32] {
    const BLOCK: usize = 64 * 1024;
    let mut hasher = blake3::Hasher::new();
    let mut block: Vec<u8> = Vec::with_capacity(BLOCK + 512);
    for entry in index.entries() {
        let flags =
            entry.flags & (gix::index::entry::Flags::INTENT_TO_ADD | gix::index::entry::Flags::SKIP_WORKTREE);
        block.extend_from_slice(entry.path(index));
        block.push(0);
        block.extend_from_slice(&entry.mode.bits().to_le_bytes());
        block.extend_from_slice(&entry.stage_raw().to_le_bytes());
        block.extend_from_slice(&flags.bits().to_le_bytes());
        block.extend_from_slice(entry.id.as_bytes());
        if block.len() >= BLOCK {
            hasher.update(&block);
            block.clear();
        }
    }
    hasher.update(&block);
    *hasher.finalize().as_bytes()
}
