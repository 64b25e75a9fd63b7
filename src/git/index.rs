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
        *last = Some(Loaded { path: path.to_owned(), identity, index: index.clone(), facts: None });
    }
    Ok(index)
}

/// The repository's index as gix finds it (its own path resolution, `GIT_INDEX_FILE` as gix
/// reads it when the repository was discovered), empty when there is none: what the content
/// identity of a worktree covers.
pub(crate) fn default_index(repo: &gix::Repository) -> Result<gix::worktree::Index, Error> {
    repo.index_or_empty().map_err(|e| Error::Index { path: repo.index_path(), message: e.to_string() })
}

/// The UTF-8 paths of the regular files the index of the repository at `root` tracks (stage 0):
/// where planning looks for files that are not in a snapshot of changed files.
pub(crate) fn tracked_files(root: &Path) -> Result<Vec<String>, Error> {
    let repo = super::open_worktree(root)?;
    let index = default_index(&repo)?;
    Ok(index
        .entries()
        .iter()
        .filter(|e| {
            matches!(e.mode, gix::index::entry::Mode::FILE | gix::index::entry::Mode::FILE_EXECUTABLE)
        })
        .filter_map(|e| std::str::from_utf8(e.path(&index)).ok().map(str::to_owned))
        .collect())
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

/// The index this process read last, with its facts once taken: predicting, scanning,
/// materialising and re-verifying read the same file, and decoding a large index (and hashing
/// its entries) is most of what a one-file commit costs in a large repository. A file whose
/// identity changed is read again.
struct Loaded {
    path: PathBuf,
    identity: FileIdentity,
    index: gix::worktree::Index,
    facts: Option<Facts>,
}

/// What one pass over an index's entries tells.
#[derive(Debug, Clone, Copy)]
struct Facts {
    /// See [`index_digest`].
    digest: [u8; 32],
    /// The position of the first entry in conflict (stages 1–3).
    first_conflict: Option<usize>,
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
    facts(index).digest
}

/// The position of the first entry of `index` in conflict (stages 1–3), taken in the same pass
/// as [`index_digest`] (one walk over a large index, not two).
pub(crate) fn first_conflict(index: &gix::index::State) -> Option<usize> {
    facts(index).first_conflict
}

fn facts(index: &gix::index::State) -> Facts {
    let same = |l: &Loaded| std::ptr::eq::<gix::index::State>(std::ptr::from_ref(&***l.index), index);
    if let Some(known) = LOADED.lock().ok().and_then(|l| l.as_ref().filter(|l| same(l)).and_then(|l| l.facts))
    {
        return known;
    }
    let facts = walk_entries(index);
    if let Ok(mut last) = LOADED.lock()
        && let Some(last) = last.as_mut().filter(|l| same(l))
    {
        last.facts = Some(facts);
    }
    facts
}

/// Entries per part of the digest: the digest of an index is the digest of its parts' digests,
/// so the parts of a large index are hashed on several cores, and the result does not depend
/// on how many there are.
const DIGEST_PART: usize = 16 * 1024;

fn walk_entries(index: &gix::index::State) -> Facts {
    let entries = index.entries();
    let parts: Vec<&[gix::index::Entry]> = entries.chunks(DIGEST_PART).collect();
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(parts.len());
    let walked: Vec<([u8; 32], Option<usize>)> = if threads <= 1 {
        parts.iter().map(|part| walk_part(index, part)).collect()
    } else {
        let per = parts.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = parts
                .chunks(per)
                .map(|group| {
                    s.spawn(move || group.iter().map(|part| walk_part(index, part)).collect::<Vec<_>>())
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    };
    let mut hasher = blake3::Hasher::new();
    let mut first_conflict = None;
    for (n, (digest, conflict)) in walked.iter().enumerate() {
        hasher.update(digest);
        first_conflict = first_conflict.or(conflict.map(|at| n * DIGEST_PART + at));
    }
    Facts { digest: *hasher.finalize().as_bytes(), first_conflict }
}

/// The digest of one part of the entries, and the position in it of its first conflict: the
/// fixed-size fields of every entry (path length, mode, stage, content flags, id), then the
/// paths one after the other. A freshly read index keeps its paths in entry order in one
/// buffer, so they are hashed where they lie, without copying.
fn walk_part(index: &gix::index::State, part: &[gix::index::Entry]) -> ([u8; 32], Option<usize>) {
    let mut fields: Vec<u8> = Vec::with_capacity(part.len() * 32);
    let mut first_conflict = None;
    // The paths' place in memory while they follow one another: (start, end) addresses.
    let mut run: Option<(usize, usize)> = None;
    let mut contiguous = true;
    for (at, entry) in part.iter().enumerate() {
        let flags =
            entry.flags & (gix::index::entry::Flags::INTENT_TO_ADD | gix::index::entry::Flags::SKIP_WORKTREE);
        let stage = entry.stage_raw();
        if stage != 0 && first_conflict.is_none() {
            first_conflict = Some(at);
        }
        let path = entry.path(index);
        let start = path.as_ptr() as usize;
        run = match run {
            None => Some((start, start + path.len())),
            Some((first, end)) => {
                contiguous &= end == start;
                Some((first, start + path.len()))
            }
        };
        let len = u32::try_from(path.len()).unwrap_or(u32::MAX);
        fields.extend_from_slice(&len.to_le_bytes());
        fields.extend_from_slice(&entry.mode.bits().to_le_bytes());
        fields.extend_from_slice(&stage.to_le_bytes());
        fields.extend_from_slice(&flags.bits().to_le_bytes());
        fields.extend_from_slice(entry.id.as_bytes());
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(&fields);
    let backing: &[u8] = index.path_backing();
    let base = backing.as_ptr() as usize;
    match run
        .filter(|_| contiguous)
        .and_then(|(first, end)| backing.get(first.checked_sub(base)?..end.checked_sub(base)?))
    {
        Some(paths) => {
            hasher.update(paths);
        }
        None => {
            for entry in part {
                hasher.update(entry.path(index));
            }
        }
    }
    (*hasher.finalize().as_bytes(), first_conflict)
}

/// Lookups in an index by binary search (gix's own), as ranges of entry positions. Entries are
/// sorted by path bytes, then stage, so the entries of one path, and the entries below one
/// directory, each form one contiguous run: finding them costs a logarithm of the index, not a
/// walk over it.
pub(crate) mod sorted {
    use std::ops::Range;

    use gix::bstr::ByteSlice;
    use gix::index::State;

    /// The entries at exactly `path` (one per stage; empty when there is none).
    pub(crate) fn at(index: &State, path: &[u8]) -> Range<usize> {
        index.entry_range(path.as_bstr()).unwrap_or(0..0)
    }

    /// The entries below the directory `prefix` (`a/b/`; the empty prefix is the root, all of
    /// them; empty when there is none).
    pub(crate) fn below(index: &State, prefix: &[u8]) -> Range<usize> {
        index.prefixed_entries_range(prefix.as_bstr()).unwrap_or(0..0)
    }

    /// The entries directly in the directory `prefix` (`a/b/`, the empty prefix for the root),
    /// in order: each subdirectory is stepped over in one search.
    pub(crate) fn direct(index: &State, prefix: &[u8]) -> Vec<usize> {
        let Range { mut start, end } = below(index, prefix);
        let mut out = Vec::new();
        while start < end {
            let path = &**index.entries()[start].path(index);
            if let Some(slash) = path[prefix.len()..].iter().position(|b| *b == b'/') {
                start = below(index, &path[..=prefix.len() + slash]).end.max(start + 1);
            } else {
                out.push(start);
                start += 1;
            }
        }
        out
    }
}
/// Whether git's ignore rules (`.gitignore` files of the worktree, `info/exclude`,
/// `core.excludesFile`) ignore `path` (repository-relative; `is_dir`: it is a directory).
/// Unreadable rules ignore nothing.
pub(crate) fn is_ignored(
    repo: &gix::Repository,
    index: &gix::index::State,
    path: &str,
    is_dir: bool,
) -> bool {
    let source = gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped;
    let Ok(mut stack) = repo.excludes(index, None, source) else { return false };
    let mode = if is_dir { gix::index::entry::Mode::DIR } else { gix::index::entry::Mode::FILE };
    stack.at_path(path, Some(mode)).is_ok_and(|p| p.is_excluded())
}

/// The untracked, not ignored entries of the worktree (git's own walk, not entering nested
/// repositories): each path, and whether it is a nested repository (which git would add as a
/// gitlink) rather than a file or symlink.
pub(crate) fn untracked(
    repo: &gix::Repository,
    index: &gix::index::State,
) -> Result<Vec<(gix::bstr::BString, bool)>, Error> {
    use gix::dir::entry::{Kind, Status};
    let options = repo
        .dirwalk_options()
        .map_err(Error::object("preparing the worktree walk"))?
        .emit_untracked(gix::dir::walk::EmissionMode::Matching)
        .emit_ignored(None)
        .emit_pruned(false)
        .emit_tracked(false)
        .recurse_repositories(false);
    let mut collect = gix::dir::walk::delegate::Collect::default();
    let interrupt = std::sync::atomic::AtomicBool::new(false);
    repo.dirwalk(index, Vec::<gix::bstr::BString>::new(), &interrupt, options, &mut collect)
        .map_err(Error::object("walking the worktree"))?;
    Ok(collect
        .unorded_entries
        .into_iter()
        .filter_map(|(entry, _)| match (entry.status, entry.disk_kind) {
            (Status::Untracked, Some(Kind::Repository)) => Some((entry.rela_path, true)),
            (Status::Untracked, Some(_)) => Some((entry.rela_path, false)),
            (Status::Untracked, None) | (Status::Ignored(_) | Status::Pruned | Status::Tracked, _) => None,
        })
        .collect())
}
