//! The repository as the staging simulation sees it ([`RepoView`]), read once through the git
//! layer: the index listing, the `HEAD` listing, the worktree differences (status with untracked
//! and, on demand, ignored files) and the fingerprint of the index and `HEAD`. Read-only: the
//! status is never written back, and no program the repository configures (filter driver,
//! textconv, external diff, fsmonitor) ever runs: worktree content is compared as raw bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, ByteSlice};

use super::SurfaceError;
use crate::git::{self, Observed};

/// Where a path's content in the virtual index or `HEAD` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// An object already in the database (a listing entry, possibly moved by `git mv`).
    Object { id: gix::ObjectId, mode: gix::index::entry::Mode },
    /// The worktree file at `real` (repo-relative), as it will be when git reads it.
    Worktree { real: String },
    /// An intent-to-add entry: present in the index, never committed as content.
    IntentToAdd,
    /// An unresolved conflict (stages 1–3).
    Conflicted,
}

/// A difference between the worktree and the virtual index, waiting to be staged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pending {
    /// A tracked path whose worktree file differs (content, mode, type; or intent-to-add).
    Modified { real: String },
    /// A tracked path missing from the worktree.
    Deleted,
    /// An untracked, not-ignored file or symlink.
    Untracked { real: String },
    /// An ignored file or symlink (only listed when some `add -f` could take it).
    Ignored { real: String },
    /// An untracked directory holding its own repository (git would add it as a gitlink).
    NestedRepo,
    /// A worktree file an earlier step of the command writes from a known blob (`git restore
    /// --source=REV` without `--staged`, a stash being applied).
    Blob { id: gix::ObjectId, mode: gix::index::entry::Mode },
}

/// At most this many ignored files are listed from inside ignored directories for `add -f`.
const MAX_IGNORED_EXPANSION: usize = 100_000;

/// How much of the worktree to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorktreeScan {
    /// Nothing: no action stages from the worktree.
    Skip,
    /// Tracked changes and untracked, not-ignored files.
    Changes,
    /// Also ignored files (for `add -f`).
    WithIgnored,
}

/// Everything the simulation reads from the repository, taken once.
pub(crate) struct RepoView {
    pub workdir: PathBuf,
    pub index: BTreeMap<String, Source>,
    pub head: BTreeMap<String, Source>,
    pub pending: BTreeMap<String, Pending>,
    pub observed: Observed,
    pub head_tree: Option<gix::ObjectId>,
    pub unverified: Vec<String>,
    /// Changed or untracked worktree files whose names are not UTF-8 (left out of `pending`),
    /// repo-relative, raw: the safety scan reads them all.
    pub non_utf8_worktree: Vec<PathBuf>,
}

/// What every view starts from: the worktree root, the index, `HEAD` and its tree.
struct Basics {
    workdir: PathBuf,
    index: gix::worktree::Index,
    head: Option<gix::ObjectId>,
    head_tree: Option<gix::ObjectId>,
}

impl Basics {
    fn read(repo: &gix::Repository, index_file: Option<&Path>) -> Result<Self, SurfaceError> {
        let workdir = git::workdir(repo)?.to_owned();
        let index = git::load_index(repo, index_file)?;
        let head = git::head_commit(repo)?;
        let head_tree = match head {
            Some(id) => Some(git::commit_tree(repo, id)?),
            None => None,
        };
        Ok(Self { workdir, index, head, head_tree })
    }
}

impl RepoView {
    /// Reads the listings and, as far as `scan` asks, the worktree differences; the index comes
    /// from `index_file` when given.
    pub(crate) fn load(
        repo: &gix::Repository,
        scan: WorktreeScan,
        index_file: Option<&Path>,
    ) -> Result<Self, SurfaceError> {
        let Basics { workdir, index, head, head_tree } = Basics::read(repo, index_file)?;
        let mut unverified = Vec::new();
        let index_listing = index_listing(&index, &mut unverified);
        let head_listing = match head_tree {
            Some(tree) => tree_listing(repo, tree, &mut unverified)?,
            None => BTreeMap::new(),
        };
        let observed = Observed { head, index_digest: git::index_digest(&index) };
        let mut non_utf8 = Vec::new();
        let pending = match scan {
            WorktreeScan::Skip => BTreeMap::new(),
            WorktreeScan::Changes => worktree_changes(repo, &index, false, &mut unverified, &mut non_utf8)?,
            WorktreeScan::WithIgnored => {
                let mut pending = worktree_changes(repo, &index, true, &mut unverified, &mut non_utf8)?;
                expand_ignored_dirs(&workdir, &mut pending, &mut unverified);
                pending
            }
        };
        Ok(Self {
            workdir,
            index: index_listing,
            head: head_listing,
            pending,
            observed,
            head_tree,
            unverified,
            non_utf8_worktree: non_utf8,
        })
    }
}

impl RepoView {
    /// The view a plain commit of the index needs (no staging actions, no worktree scan): the
    /// index and `HEAD`'s tree listed only outside the directories the index's cache tree shows
    /// unchanged — a valid cache-tree node whose id is `HEAD`'s tree at that path, exactly what
    /// `git commit` itself reuses without looking inside. Both listings leave out the same
    /// directories, so every difference between them is a difference of the whole content;
    /// the fingerprint covers the whole index. A one-file commit in a large repository reads the
    /// trees on that file's path, not every tree.
    pub(crate) fn load_for_plain_commit(
        repo: &gix::Repository,
        index_file: Option<&Path>,
    ) -> Result<Self, SurfaceError> {
        let Basics { workdir, index, head, head_tree } = Basics::read(repo, index_file)?;
        let mut unchanged: Vec<Vec<u8>> = Vec::new();
        if let (Some(tree), Some(cache)) = (head_tree, index.tree()) {
            unchanged_dirs(repo, cache, tree, Vec::new(), &mut unchanged)?;
        }
        unchanged.sort();
        // The directory of `unchanged` that holds `path`, if one does (they do not nest).
        let unchanged_dir = |path: &[u8]| {
            let at = unchanged.partition_point(|d| d.as_slice() <= path);
            unchanged.get(at.wrapping_sub(1)).filter(|d| path.starts_with(d))
        };
        let mut unverified = Vec::new();
        let mut index_listing = BTreeMap::new();
        let mut next = 0;
        while let Some(entry) = index.entries().get(next) {
            let path = entry.path(&index);
            if let Some(dir) = unchanged_dir(path) {
                // The whole directory is stepped over in one search.
                next = git::sorted::below(&index, dir).end.max(next + 1);
                continue;
            }
            next += 1;
            let Some(path) = utf8(path, &mut unverified) else { continue };
            index_listing.insert(path, index_source(entry));
        }
        let mut head_listing = BTreeMap::new();
        if let Some(tree) = head_tree {
            partial_tree_listing(
                repo,
                tree,
                &mut Vec::new(),
                &unchanged,
                &mut head_listing,
                &mut unverified,
            )?;
        }
        let observed = Observed { head, index_digest: git::index_digest(&index) };
        Ok(Self {
            workdir,
            index: index_listing,
            head: head_listing,
            pending: BTreeMap::new(),
            observed,
            head_tree,
            unverified,
            non_utf8_worktree: Vec::new(),
        })
    }
}

/// Collects into `out` the directories (`prefix` form: `a/b/`, the root as the empty prefix) whose cache-tree
/// node is valid and names the same tree as `HEAD` has there.
fn unchanged_dirs(
    repo: &gix::Repository,
    node: &gix::index::extension::Tree,
    tree: gix::ObjectId,
    prefix: Vec<u8>,
    out: &mut Vec<Vec<u8>>,
) -> Result<(), SurfaceError> {
    if node.num_entries.is_some() && node.id == tree {
        out.push(prefix);
        return Ok(());
    }
    if node.children.is_empty() {
        return Ok(());
    }
    let object = repo.find_tree(tree).map_err(SurfaceError::git("reading a tree"))?;
    let mut subtrees: BTreeMap<Vec<u8>, gix::ObjectId> = BTreeMap::new();
    for entry in object.iter() {
        let entry = entry.map_err(SurfaceError::git("reading a tree"))?;
        if entry.mode().is_tree() {
            subtrees.insert(entry.filename().to_vec(), entry.oid().to_owned());
        }
    }
    for child in &node.children {
        if let Some(id) = subtrees.get(child.name.as_slice()) {
            let mut path = prefix.clone();
            path.extend_from_slice(&child.name);
            path.push(b'/');
            unchanged_dirs(repo, child, *id, path, out)?;
        }
    }
    Ok(())
}

/// The non-tree entries of `tree` (at `prefix`), except below the `unchanged` directories.
fn partial_tree_listing(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    prefix: &mut Vec<u8>,
    unchanged: &[Vec<u8>],
    out: &mut BTreeMap<String, Source>,
    unverified: &mut Vec<String>,
) -> Result<(), SurfaceError> {
    use gix::object::tree::EntryKind;
    if unchanged.binary_search(prefix).is_ok() {
        return Ok(());
    }
    let object = repo.find_tree(tree).map_err(SurfaceError::git("reading a tree"))?;
    for entry in object.iter() {
        let entry = entry.map_err(SurfaceError::git("reading a tree"))?;
        let len = prefix.len();
        prefix.extend_from_slice(entry.filename());
        let mode = match entry.mode().kind() {
            EntryKind::Tree => {
                prefix.push(b'/');
                partial_tree_listing(repo, entry.oid().to_owned(), prefix, unchanged, out, unverified)?;
                prefix.truncate(len);
                continue;
            }
            EntryKind::Blob => gix::index::entry::Mode::FILE,
            EntryKind::BlobExecutable => gix::index::entry::Mode::FILE_EXECUTABLE,
            EntryKind::Link => gix::index::entry::Mode::SYMLINK,
            EntryKind::Commit => gix::index::entry::Mode::COMMIT,
        };
        if let Some(path) = utf8(BStr::new(prefix.as_slice()), unverified) {
            out.insert(path, Source::Object { id: entry.oid().to_owned(), mode });
        }
        prefix.truncate(len);
    }
    Ok(())
}

/// How the index lists an entry: conflicts collapse to one entry, intent-to-add is marked.
fn index_source(entry: &gix::index::Entry) -> Source {
    if entry.stage_raw() != 0 {
        Source::Conflicted
    } else if entry.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD) {
        Source::IntentToAdd
    } else {
        Source::Object { id: entry.id, mode: entry.mode }
    }
}

/// All non-tree entries of a tree, by path.
pub(crate) fn tree_listing(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    unverified: &mut Vec<String>,
) -> Result<BTreeMap<String, Source>, SurfaceError> {
    let state = git::tree_index(repo, tree)?;
    let mut out = BTreeMap::new();
    for entry in state.entries() {
        if let Some(path) = utf8(entry.path(&state), unverified) {
            out.insert(path, Source::Object { id: entry.id, mode: entry.mode });
        }
    }
    Ok(out)
}

/// The index as path → source: conflicts collapse to one entry, intent-to-add is marked.
fn index_listing(index: &gix::index::State, unverified: &mut Vec<String>) -> BTreeMap<String, Source> {
    let mut out = BTreeMap::new();
    for entry in index.entries() {
        let Some(path) = utf8(entry.path(index), unverified) else { continue };
        out.insert(path, index_source(entry));
    }
    out
}

/// Index-vs-worktree differences plus untracked (and optionally ignored) files.
///
/// gix's own status would hash a changed-looking file through the repository's filter
/// pipeline, which spawns the `filter.<driver>.clean`/`process` programs that `.git/config`
/// names — code from the repository, run by a gate. Here the status is
/// [`git::worktree_status`]: the file's raw bytes hashed as a blob, so no driver ever runs
/// (textconv, external diff and fsmonitor are never consulted either). A file that a clean filter or an
/// end-of-line conversion would make equal to its index entry counts as modified, which only
/// widens what is checked.
fn worktree_changes(
    repo: &gix::Repository,
    index: &gix::worktree::Index,
    with_ignored: bool,
    unverified: &mut Vec<String>,
    non_utf8: &mut Vec<PathBuf>,
) -> Result<BTreeMap<String, Pending>, SurfaceError> {
    use git::WorktreeChange as Change;
    let mut out = BTreeMap::new();
    for (rela_path, change) in git::worktree_status(repo, index, with_ignored)? {
        let Some(path) = utf8(rela_path.as_ref(), unverified) else {
            use std::os::unix::ffi::OsStrExt;
            if matches!(change, Change::Modified | Change::Untracked) {
                non_utf8.push(PathBuf::from(std::ffi::OsStr::from_bytes(&rela_path)));
            }
            continue;
        };
        let real = path.clone();
        let pending = match change {
            Change::Modified => Pending::Modified { real },
            Change::Deleted => Pending::Deleted,
            Change::Untracked => Pending::Untracked { real },
            Change::Ignored => Pending::Ignored { real },
            Change::NestedRepo => Pending::NestedRepo,
        };
        out.insert(path, pending);
    }
    Ok(out)
}

/// Replaces ignored directories by the files inside them (skipping nested repositories), so that
/// `git add -f dir/file` can be matched.
fn expand_ignored_dirs(
    workdir: &Path,
    pending: &mut BTreeMap<String, Pending>,
    unverified: &mut Vec<String>,
) {
    let dirs: Vec<String> = pending
        .iter()
        .filter(|(path, p)| matches!(p, Pending::Ignored { .. }) && workdir.join(path).is_dir())
        .map(|(path, _)| path.clone())
        .collect();
    let mut budget = MAX_IGNORED_EXPANSION;
    for dir in dirs {
        pending.remove(&dir);
        let walk = walkdir::WalkDir::new(workdir.join(&dir))
            .into_iter()
            .filter_entry(|e| !(e.file_type().is_dir() && e.path().join(".git").exists()));
        for entry in walk.filter_map(Result::ok).filter(|e| !e.file_type().is_dir()) {
            let Some(rel) = entry.path().strip_prefix(workdir).ok().and_then(Path::to_str) else { continue };
            if budget == 0 {
                unverified.push(format!("too many ignored files under {dir}/ to predict `git add -f`"));
                return;
            }
            budget -= 1;
            pending.insert(rel.to_owned(), Pending::Ignored { real: rel.to_owned() });
        }
    }
}

/// A path as UTF-8; other paths are reported and left out.
fn utf8(path: &BStr, unverified: &mut Vec<String>) -> Option<String> {
    if let Ok(s) = path.to_str() {
        Some(s.to_owned())
    } else {
        unverified.push(format!("path is not valid UTF-8 and is not checked: {}", path.to_str_lossy()));
        None
    }
}
/// Calls `f` with every path of `a` or `b`, in order, and its entry in each: one walk over both
/// sorted listings (a lookup per entry cost more than the rest in a large repository).
pub(crate) fn walk_both<'m>(
    a: &'m BTreeMap<String, Source>,
    b: &'m BTreeMap<String, Source>,
    mut f: impl FnMut(&'m String, Option<&'m Source>, Option<&'m Source>),
) {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (None, None) => return,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some((pa, _)), Some((pb, _))) => pa.cmp(pb),
        };
        match order {
            std::cmp::Ordering::Less => {
                if let Some((path, s)) = a.next() {
                    f(path, Some(s), None);
                }
            }
            std::cmp::Ordering::Greater => {
                if let Some((path, s)) = b.next() {
                    f(path, None, Some(s));
                }
            }
            std::cmp::Ordering::Equal => {
                if let (Some((path, sa)), Some((_, sb))) = (a.next(), b.next()) {
                    f(path, Some(sa), Some(sb));
                }
            }
        }
    }
}
