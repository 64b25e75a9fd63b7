//! `HEAD`, commit and tree reads, and blobs by path.
//!
//! **In:** an opened repository (or a worktree root, for [`head_file`]) and object ids.
//! **Out:** a commit's tree, `HEAD`'s tree, a tree listed as index entries ([`tree_index`]),
//! a tree's blob at a path. **Never:** writes objects.

use std::path::Path;

use gix::bstr::ByteSlice;

use super::Error;

/// The tree of a commit.
pub(crate) fn commit_tree(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::ObjectId, Error> {
    let commit = repo.find_commit(commit).map_err(Error::object("reading a commit"))?;
    commit.tree_id().map(gix::Id::detach).map_err(Error::object("reading a commit's tree"))
}

/// The tree of the commit `HEAD` points to, `None` when the branch is unborn.
pub(crate) fn head_tree(repo: &gix::Repository) -> Result<Option<gix::ObjectId>, Error> {
    match super::head_commit(repo)? {
        Some(head) => commit_tree(repo, head).map(Some),
        None => Ok(None),
    }
}

/// Every non-tree entry of `tree`, recursively, as index entries (stage 0, sorted by path).
pub(crate) fn tree_index(repo: &gix::Repository, tree: gix::ObjectId) -> Result<gix::index::State, Error> {
    Ok(repo.index_from_tree(&tree).map_err(Error::object("listing a tree"))?.into())
}

/// The directories holding each of `paths` and all their ancestors, the root (`""`) included.
pub(crate) fn ancestor_dirs(paths: &[String]) -> std::collections::BTreeSet<&[u8]> {
    let mut dirs: std::collections::BTreeSet<&[u8]> = std::collections::BTreeSet::from([&b""[..]]);
    for path in paths {
        let bytes = path.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'/' {
                dirs.insert(&bytes[..i]);
            }
        }
    }
    dirs
}

/// Part of `tree` as index entries (stage 0, sorted by path): the direct non-tree entries of each
/// directory in `dirs` (repo-relative without a trailing slash, `""` the root; a directory is
/// reached only through its parent, so each one's parents must be in `dirs` too), and the names
/// of the root's entries that are not submodules. Only those directories' tree objects are read:
/// what it costs follows the directories a change touches, not the size of the tree.
pub(crate) fn dirs_index(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    dirs: &std::collections::BTreeSet<&[u8]>,
) -> Result<(gix::index::State, std::collections::BTreeSet<String>), Error> {
    use gix::index::entry::{Flags, Mode, Stat};
    use gix::object::tree::EntryKind;
    let mut state = gix::index::State::new(repo.object_hash());
    let mut root_names = std::collections::BTreeSet::new();
    let mut pending: Vec<(Vec<u8>, gix::ObjectId)> = Vec::new();
    if dirs.contains(&b""[..]) {
        pending.push((Vec::new(), tree));
    }
    while let Some((dir, id)) = pending.pop() {
        let object = repo.find_tree(id).map_err(Error::object("reading a tree"))?;
        for entry in object.iter() {
            let entry = entry.map_err(Error::object("reading a tree"))?;
            let mut path = dir.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(entry.filename());
            let kind = entry.mode().kind();
            if dir.is_empty() && kind != EntryKind::Commit {
                root_names.insert(entry.filename().to_str_lossy().into_owned());
            }
            let mode = match kind {
                EntryKind::Tree => {
                    if dirs.contains(path.as_slice()) {
                        pending.push((path, entry.oid().to_owned()));
                    }
                    continue;
                }
                EntryKind::Blob => Mode::FILE,
                EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
                EntryKind::Link => Mode::SYMLINK,
                EntryKind::Commit => Mode::COMMIT,
            };
            state.dangerously_push_entry(
                Stat::default(),
                entry.oid().to_owned(),
                Flags::empty(),
                mode,
                path.as_bstr(),
            );
        }
    }
    state.sort_entries();
    Ok((state, root_names))
}

/// The entry at `path` (repo-relative) in `tree` that is not a tree: its object and mode.
pub(crate) fn entry_at(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    path: &str,
) -> Result<Option<(gix::ObjectId, gix::index::entry::Mode)>, Error> {
    use gix::index::entry::Mode;
    use gix::object::tree::EntryKind;
    let tree = repo.find_tree(tree).map_err(Error::object("reading a tree"))?;
    let Some(entry) = tree.lookup_entry_by_path(path).map_err(Error::object("looking up a path"))? else {
        return Ok(None);
    };
    let mode = match entry.mode().kind() {
        EntryKind::Tree => return Ok(None),
        EntryKind::Blob => Mode::FILE,
        EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
    };
    Ok(Some((entry.object_id(), mode)))
}

/// The blob at `path` (repo-relative) in `tree`: `None` when there is no such entry or it is
/// not a blob (a tree, a submodule). A symlink's blob is its target.
pub(crate) fn blob_at(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    path: &str,
) -> Result<Option<Vec<u8>>, Error> {
    let tree = repo.find_tree(tree).map_err(Error::object("reading a tree"))?;
    let Some(entry) = tree.lookup_entry_by_path(path).map_err(Error::object("looking up a path"))? else {
        return Ok(None);
    };
    if !entry.mode().is_blob() {
        return Ok(None);
    }
    let object = entry.object().map_err(Error::object("reading a blob"))?;
    Ok(Some(object.detach().data))
}

/// Which of `paths` are regular files (not links, trees or submodules) in `tree`.
pub(crate) fn regular_files_in(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    paths: Vec<String>,
) -> Result<Vec<String>, Error> {
    let tree = repo.find_tree(tree).map_err(Error::object("reading a tree"))?;
    Ok(paths
        .into_iter()
        .filter(|p| {
            tree.lookup_entry_by_path(p)
                .ok()
                .flatten()
                .is_some_and(|e| e.mode().is_blob() && !e.mode().is_link())
        })
        .collect())
}

/// The content of `path` (repo-relative) in the commit `HEAD` points to in the repository at
/// `root`: `None` when `HEAD` is unborn or has no such blob. For files whose committed version
/// is what counts (the safety allow list takes effect only once a human committed it).
pub(crate) fn head_file(root: &Path, path: &str) -> Result<Option<Vec<u8>>, Error> {
    let repo = super::open_worktree(root)?;
    let Some(tree) = head_tree(&repo)? else { return Ok(None) };
    blob_at(&repo, tree, path)
}
/// Adds the blob paths that differ between `old` (or the empty tree) and `new`.
pub(crate) fn diff_trees(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    changed: &mut std::collections::BTreeSet<String>,
    deleted: &mut std::collections::BTreeSet<String>,
) -> Result<(), Error> {
    use gix::diff::tree::recorder::Change;
    for change in tree_changes(repo, old, new)? {
        match change {
            Change::Addition { entry_mode, path, .. } | Change::Modification { entry_mode, path, .. } => {
                if !entry_mode.is_tree() {
                    changed.insert(path.to_str_lossy().into_owned());
                }
            }
            Change::Deletion { entry_mode, path, .. } => {
                if !entry_mode.is_tree() {
                    deleted.insert(path.to_str_lossy().into_owned());
                }
            }
        }
    }
    Ok(())
}

/// The recorded changes from `old` (or the empty tree) to `new`.
pub(crate) fn tree_changes(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
) -> Result<Vec<gix::diff::tree::recorder::Change>, Error> {
    let new_tree = repo.find_tree(new).map_err(Error::object("reading a tree"))?;
    let old_data = match old {
        Some(id) => repo.find_tree(id).map_err(Error::object("reading a tree"))?.data.clone(),
        None => Vec::new(),
    };
    let mut recorder = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old_data, repo.object_hash()),
        gix::objs::TreeRefIter::from_bytes(&new_tree.data, repo.object_hash()),
        &mut gix::diff::tree::State::default(),
        &repo.objects,
        &mut recorder,
    )
    .map_err(Error::object("diffing trees"))?;
    Ok(recorder.records)
}
