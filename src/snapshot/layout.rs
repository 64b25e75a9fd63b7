//! Turns a surface into the exact list of things to write, validating every entry first: no
//! file is written before the whole content is known to be materialisable.

use std::collections::BTreeSet;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode};

use super::SnapshotError;
use crate::git::Observed;
use crate::surface::{Base, OverlaySource, Surface};

/// One thing to write into the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// Repo-relative path, validated by [`safe_path`].
    pub path: BString,
    /// What to write there.
    pub what: What,
}

/// The content of an [`Item`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum What {
    /// A blob written as a regular file.
    Blob { id: gix::ObjectId, executable: bool },
    /// A blob whose content is a symlink target.
    Link { id: gix::ObjectId },
    /// The worktree file at this repo-relative path, copied.
    Copy { from: String },
    /// These bytes, written as a regular file (configuration codeguard judges with instead of
    /// the commit's, see `crate::config_change`).
    Bytes(Vec<u8>),
    /// A hard link to `from`, a base-tree cache file holding this blob (written from the blob
    /// when the link cannot be made).
    Hardlink { id: gix::ObjectId, executable: bool, from: std::path::PathBuf },
}

/// The base listing read from the repository, with the fingerprint taken alongside it.
pub(crate) struct Listing {
    pub observed: Observed,
    state: ListingState,
}

/// The entries of a listing: the index as loaded (shared, not copied), a tree's, or the part of
/// a tree the changed files are in.
enum ListingState {
    Index(gix::worktree::Index),
    Tree(Box<gix::index::State>),
    /// The direct entries of every directory holding a changed path and of each directory above
    /// it (what the changed extent takes from), and the names in the tree's root: a commit or
    /// push of a few files in a large tree reads a few tree objects. [`Listing::whole`] reads the
    /// rest when the whole content is wanted.
    Partial {
        tree: gix::ObjectId,
        state: Box<gix::index::State>,
        root_names: BTreeSet<String>,
    },
}

impl Listing {
    /// How many entries it has.
    pub(crate) fn len(&self) -> usize {
        self.state().entries().len()
    }

    /// The entries.
    fn state(&self) -> &gix::index::State {
        match &self.state {
            ListingState::Index(index) => index,
            ListingState::Tree(state) | ListingState::Partial { state, .. } => state,
        }
    }

    /// Reads the whole tree of a partial listing (a no-op for the others): before every use
    /// that takes entries outside the changed extent.
    pub(crate) fn whole(&mut self, repo: &gix::Repository) -> Result<(), SnapshotError> {
        if let ListingState::Partial { tree, .. } = self.state {
            self.state = ListingState::Tree(Box::new(crate::git::tree_index(repo, tree)?));
        }
        Ok(())
    }

    /// Whether the listing holds every entry at `path`'s directory (a partial listing only the
    /// changed extent's directories).
    fn covers(&self, path: &str) -> bool {
        match &self.state {
            ListingState::Index(_) | ListingState::Tree(_) => true,
            ListingState::Partial { state, .. } => {
                let dir = path.rfind('/').map_or("", |end| &path[..end]);
                dir.is_empty() || !crate::git::sorted::below(state, format!("{dir}/").as_bytes()).is_empty()
            }
        }
    }

    /// Reads the index the surface was predicted from (and `HEAD`'s tree for a `HeadTree`
    /// base, the given tree for a `Tree` base).
    pub(crate) fn read(repo: &gix::Repository, surface: &Surface) -> Result<Self, SnapshotError> {
        let index = crate::git::load_index(repo, surface.index_file.as_deref())?;
        let observed = crate::git::fingerprint(repo, &index)?;
        let state = match surface.base {
            Base::Index => ListingState::Index(index),
            Base::HeadTree => ListingState::Tree(Box::new(match crate::git::head_tree(repo) {
                Ok(Some(tree)) => crate::git::tree_index(repo, tree)?,
                Ok(None) | Err(_) => gix::index::State::new(repo.object_hash()),
            })),
            // A tree's content is immutable: only the part the changed extent takes is read
            // now (with overlays, which may sit anywhere, the whole of it).
            Base::Tree(tree) if surface.overlays.is_empty() => {
                let dirs = crate::git::tree::ancestor_dirs(&surface.paths);
                let (state, root_names) = crate::git::tree::dirs_index(repo, tree, &dirs)?;
                ListingState::Partial { tree, state: Box::new(state), root_names }
            }
            Base::Tree(tree) => ListingState::Tree(Box::new(crate::git::tree_index(repo, tree)?)),
        };
        Ok(Self { observed, state })
    }
}

/// Which entries of the content to write.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Extent<'a> {
    /// Every entry.
    Whole,
    /// The changed paths, and the entries named like a support file (`names`) in the root or in
    /// a directory above a changed path.
    Changed { support: &'a crate::registry::SupportFiles },
    /// Every entry the `Changed` extent with the same support files left out.
    Rest { support: &'a crate::registry::SupportFiles },
}

/// The positions of the entries the `Changed` extent takes, ascending, found by search (a
/// one-file commit in a large index looks at the entries on that file's path, not at every
/// entry): each changed path's, and each entry named like a support file in the root or a
/// directory above a changed path. What [`Selector::in_changed_extent`] takes, entry by entry.
fn changed_extent(
    state: &gix::index::State,
    surface: &Surface,
    support: &crate::registry::SupportFiles,
) -> Vec<usize> {
    use crate::git::sorted;
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    for path in &surface.paths {
        taken.extend(sorted::at(state, path.as_bytes()));
    }
    let mut at = Vec::new();
    for dir in crate::git::tree::ancestor_dirs(&surface.paths) {
        if dir.is_empty() {
            // The root: suffix patterns count here too, so its entries are all asked.
            let direct = sorted::direct(state, b"");
            taken.extend(
                direct.into_iter().filter(|&i| support.matches(state.entries()[i].path(state), true)),
            );
            continue;
        }
        for name in support.names() {
            at.clear();
            at.extend_from_slice(dir);
            at.push(b'/');
            at.extend_from_slice(name);
            taken.extend(sorted::at(state, &at));
        }
    }
    taken.into_iter().collect()
}

/// Whether the extent takes the unchanged listing entry at `path`. Asked about paths in
/// ascending order (the listing's), so the changed paths are found by one walk along them.
struct Selector<'a> {
    extent: Extent<'a>,
    dirs: BTreeSet<&'a [u8]>,
    changed: &'a [String],
    next: std::cell::Cell<usize>,
}

impl<'a> Selector<'a> {
    fn new(extent: Extent<'a>, surface: &'a Surface) -> Self {
        let next = std::cell::Cell::new(0);
        Self { extent, dirs: crate::git::tree::ancestor_dirs(&surface.paths), changed: &surface.paths, next }
    }

    fn is_changed(&self, path: &[u8]) -> bool {
        let mut i = self.next.get();
        while self.changed.get(i).is_some_and(|c| c.as_bytes() < path) {
            i += 1;
        }
        self.next.set(i);
        self.changed.get(i).is_some_and(|c| c.as_bytes() == path)
    }

    fn in_changed_extent(&self, support: &crate::registry::SupportFiles, path: &BStr) -> bool {
        let (dir, name) = match path.rfind_byte(b'/') {
            Some(end) => (&path.as_bytes()[..end], &path.as_bytes()[end + 1..]),
            None => (&b""[..], path.as_bytes()),
        };
        let changed = self.is_changed(path.as_bytes());
        changed || (support.matches(name, dir.is_empty()) && self.dirs.contains(dir))
    }

    fn takes(&self, path: &BStr) -> bool {
        match self.extent {
            Extent::Whole => true,
            Extent::Changed { support } => self.in_changed_extent(support, path),
            Extent::Rest { support } => !self.in_changed_extent(support, path),
        }
    }
}

/// The names of the root directory of the content: the first component of every entry that has
/// content (what the root of a whole snapshot holds), for planning.
pub(crate) fn root_names(listing: &Listing, surface: &Surface) -> BTreeSet<String> {
    let overlays: BTreeSet<&[u8]> = surface.overlays.iter().map(|o| o.path.as_bytes()).collect();
    let first = |path: &[u8]| {
        let end = path.find_byte(b'/').unwrap_or(path.len());
        String::from_utf8_lossy(&path[..end]).into_owned()
    };
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut next = 0;
    let state = listing.state();
    let entries = match &listing.state {
        // The root's own names, submodules left out (a directory holding only submodules
        // counts, which only widens the planning); the overlays below still add theirs (the
        // base's rule file put back where a commit deletes it).
        ListingState::Partial { root_names, .. } => {
            names.extend(root_names.iter().cloned());
            &[][..]
        }
        ListingState::Index(_) | ListingState::Tree(_) => state.entries(),
    };
    // One run of entries per root name (a file, or everything below a directory), stepped over
    // in one search once one entry of it has content.
    while let Some(entry) = entries.get(next) {
        let path = entry.path(state);
        let run = match path.find_byte(b'/') {
            Some(slash) => crate::git::sorted::below(state, &path[..=slash]),
            None => crate::git::sorted::at(state, path),
        };
        let has_content = entries[run.clone()].iter().any(|e| {
            !(e.flags.contains(Flags::INTENT_TO_ADD)
                || e.mode == Mode::COMMIT
                || (!overlays.is_empty() && overlays.contains(e.path(state).as_bytes())))
        });
        if has_content {
            names.insert(first(path));
        }
        next = run.end.max(next + 1);
    }
    for overlay in &surface.overlays {
        let absent = matches!(overlay.source, OverlaySource::Absent)
            || matches!(overlay.source, OverlaySource::Blob { mode, .. } if mode == Mode::COMMIT);
        if !absent {
            names.insert(first(overlay.path.as_bytes()));
        }
    }
    names
}

/// The validated items of `extent` for `surface` over `listing`, sorted by path. Submodules
/// (gitlinks) have no content here: they are left out, and `notes` names the changed ones.
pub(crate) fn items(
    listing: &Listing,
    surface: &Surface,
    extent: Extent<'_>,
    notes: &mut Vec<String>,
) -> Result<Vec<Item>, SnapshotError> {
    let overlays: BTreeSet<&[u8]> = surface.overlays.iter().map(|o| o.path.as_bytes()).collect();
    let state = listing.state();
    let overlaid = |path: &BStr| !overlays.is_empty() && overlays.contains(path.as_bytes());
    // A conflict anywhere (git refuses such a commit) refuses the snapshot. Only an index has
    // stages; where its first conflict is comes with its digest.
    let from = match &listing.state {
        ListingState::Index(index) => crate::git::first_conflict(index),
        ListingState::Tree(_) | ListingState::Partial { .. } => None,
    };
    debug_assert!(
        matches!(extent, Extent::Changed { .. }) || !matches!(listing.state, ListingState::Partial { .. }),
        "the whole content is listed from a whole listing"
    );
    let conflict = from.and_then(|from| {
        state.entries()[from..].iter().find(|e| {
            e.stage_raw() != 0 && !e.flags.contains(Flags::INTENT_TO_ADD) && !overlaid(e.path(state))
        })
    });
    if let Some(entry) = conflict {
        return Err(SnapshotError::Conflict(entry.path(state).to_str_lossy().into_owned()));
    }
    let taken: Vec<usize> = match extent {
        Extent::Changed { support } => changed_extent(state, surface, support),
        Extent::Whole | Extent::Rest { .. } => {
            let selector = Selector::new(extent, surface);
            (0..state.entries().len()).filter(|&i| selector.takes(state.entries()[i].path(state))).collect()
        }
    };
    let mut out = Vec::new();
    for entry in taken.into_iter().map(|i| &state.entries()[i]) {
        let path = entry.path(state);
        if overlaid(path) || entry.flags.contains(Flags::INTENT_TO_ADD) {
            continue;
        }
        if entry.mode == Mode::COMMIT {
            gitlink_note(surface, path, notes);
            continue;
        }
        if let Some(what) = object_item(path, entry.id, entry.mode)? {
            push_item(&mut out, path, what)?;
        }
    }
    let overlays = surface.overlays.iter().filter(|_| !matches!(extent, Extent::Rest { .. }));
    for overlay in overlays {
        let path = BStr::new(overlay.path.as_bytes());
        let what = match &overlay.source {
            OverlaySource::Worktree { from } => {
                safe_path(BStr::new(from.as_bytes()))?;
                Some(What::Copy { from: from.clone() })
            }
            OverlaySource::Blob { mode, .. } if *mode == Mode::COMMIT => {
                gitlink_note(surface, path, notes);
                None
            }
            OverlaySource::Blob { id, mode } => object_item(path, *id, *mode)?,
            OverlaySource::Bytes(data) => Some(What::Bytes(data.clone())),
            OverlaySource::Absent => None,
        };
        if let Some(what) = what {
            push_item(&mut out, path, what)?;
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The validated items of a tree's listing (a base-tree cache entry): gitlinks have no content
/// here and are left out.
pub(crate) fn tree_items(state: &gix::index::State) -> Result<Vec<Item>, SnapshotError> {
    let mut out = Vec::with_capacity(state.entries().len());
    for entry in state.entries() {
        if entry.mode == Mode::COMMIT {
            continue;
        }
        let path = entry.path(state);
        if let Some(what) = object_item(path, entry.id, entry.mode)? {
            push_item(&mut out, path, what)?;
        }
    }
    Ok(out)
}

/// Where the content of one changed path comes from, for the safety scan: found without
/// failing on the first problem, so one unmaterialisable entry hides nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A blob in the object database (a symlink's blob is its target text).
    Blob(gix::ObjectId),
    /// The worktree file at this repo-relative path.
    Worktree(String),
    /// A submodule commit: no content in this repository.
    Gitlink,
    /// The content cannot be determined; the text says why.
    Unknown(String),
}

/// The content source of every path in `paths` (sorted; deletions have none and are skipped),
/// keyed by the same lossy names the surface uses, so names that are not UTF-8 are found too.
pub(crate) fn sources(
    listing: &Listing,
    repo: Option<&gix::Repository>,
    surface: &Surface,
    paths: &[String],
) -> Vec<(String, Source)> {
    let wanted: std::collections::BTreeSet<&str> = paths.iter().map(String::as_str).collect();
    let mut found: std::collections::BTreeMap<String, Source> = std::collections::BTreeMap::new();
    let state = listing.state();
    // A name is found by search, unless it may be the lossy form of a name that is not UTF-8:
    // then every entry is asked, by its lossy name.
    let (exact, lossy): (Vec<&str>, Vec<&str>) = wanted.iter().partition(|p| !p.contains('\u{fffd}'));
    // A partial listing holds the changed extent's directories; a path elsewhere is looked up in
    // the tree itself.
    let (exact, elsewhere): (Vec<&str>, Vec<&str>) = exact.into_iter().partition(|p| listing.covers(p));
    if let (ListingState::Partial { tree, .. }, false) = (&listing.state, elsewhere.is_empty())
        && let Some(repo) = repo
    {
        for path in elsewhere {
            if let Ok(Some((id, mode))) = crate::git::tree::entry_at(repo, *tree, path) {
                found.insert(path.to_owned(), object_source(id, mode));
            }
        }
    }
    let searched = exact.iter().flat_map(|p| crate::git::sorted::at(state, p.as_bytes()));
    let scanned = if lossy.is_empty() { 0..0 } else { 0..state.entries().len() };
    for entry in searched.chain(scanned).map(|i| &state.entries()[i]) {
        let name = entry.path(state).to_str_lossy();
        if !wanted.contains(name.as_ref()) || entry.flags.contains(Flags::INTENT_TO_ADD) {
            continue;
        }
        let source = if entry.stage_raw() != 0 {
            Source::Unknown("the entry is in conflict".into())
        } else {
            object_source(entry.id, entry.mode)
        };
        found.insert(name.into_owned(), source);
    }
    for overlay in surface.overlays.iter().filter(|o| wanted.contains(o.path.as_str())) {
        let source = match &overlay.source {
            OverlaySource::Worktree { from } => Source::Worktree(from.clone()),
            OverlaySource::Blob { id, mode } => object_source(*id, *mode),
            OverlaySource::Bytes(_) => {
                Source::Unknown("configuration codeguard substitutes to judge with".into())
            }
            OverlaySource::Absent => {
                found.remove(&overlay.path);
                continue;
            }
        };
        found.insert(overlay.path.clone(), source);
    }
    found.into_iter().collect()
}

/// Entries of the listing whose names are not UTF-8 and whose content differs from `HEAD`'s
/// entry of the same name (the surface leaves such names out of its paths): lossy name and
/// source, for the safety scan. Reads `HEAD`'s tree only when there is such a name.
pub(crate) fn non_utf8_changes(repo: &gix::Repository, listing: &Listing) -> Vec<(String, Source)> {
    let state = listing.state();
    // All names ASCII, the common case, is one pass over the names' storage.
    if state.path_backing().is_ascii() {
        return Vec::new();
    }
    let odd: Vec<&gix::index::Entry> =
        state.entries().iter().filter(|e| e.path(state).to_str().is_err() && e.stage_raw() == 0).collect();
    if odd.is_empty() {
        return Vec::new();
    }
    let head =
        crate::git::head_tree(repo).ok().flatten().and_then(|tree| crate::git::tree_index(repo, tree).ok());
    odd.into_iter()
        .filter(|entry| {
            let path = entry.path(state);
            head.as_ref().and_then(|h| h.entry_by_path(path)).is_none_or(|h| h.id != entry.id)
        })
        .map(|entry| (entry.path(state).to_str_lossy().into_owned(), object_source(entry.id, entry.mode)))
        .collect()
}

fn object_source(id: gix::ObjectId, mode: Mode) -> Source {
    if mode == Mode::FILE || mode == Mode::FILE_EXECUTABLE || mode == Mode::SYMLINK {
        Source::Blob(id)
    } else if mode == Mode::COMMIT {
        Source::Gitlink
    } else {
        Source::Unknown("a sparse-index directory entry".into())
    }
}

fn gitlink_note(surface: &Surface, path: &BStr, notes: &mut Vec<String>) {
    let name = path.to_str_lossy();
    if surface.paths.iter().any(|p| *p == name) {
        notes.push(format!("{name} is a submodule: its content is not linted here"));
    }
}

fn push_item(out: &mut Vec<Item>, path: &BStr, what: What) -> Result<(), SnapshotError> {
    safe_path(path)?;
    out.push(Item { path: path.to_owned(), what });
    Ok(())
}

/// What to write for an object entry of `mode`; gitlinks and sparse directories are errors.
fn object_item(path: &BStr, id: gix::ObjectId, mode: Mode) -> Result<Option<What>, SnapshotError> {
    let name = || path.to_str_lossy().into_owned();
    if mode == Mode::FILE {
        Ok(Some(What::Blob { id, executable: false }))
    } else if mode == Mode::FILE_EXECUTABLE {
        Ok(Some(What::Blob { id, executable: true }))
    } else if mode == Mode::SYMLINK {
        Ok(Some(What::Link { id }))
    } else if mode == Mode::COMMIT {
        Err(SnapshotError::Submodule(name()))
    } else if mode == Mode::DIR {
        Err(SnapshotError::SparseIndex(name()))
    } else {
        Err(SnapshotError::UnsafePath(name()))
    }
}

/// Accepts only relative paths made of normal components, none of them `.git`.
pub(crate) fn safe_path(path: &BStr) -> Result<(), SnapshotError> {
    let bad = path.is_empty()
        || path.contains(&0)
        || path.starts_with(b"/")
        || path
            .split(|b| *b == b'/')
            .any(|c| c.is_empty() || c == b"." || c == b".." || c.eq_ignore_ascii_case(b".git"));
    if bad { Err(SnapshotError::UnsafePath(path.to_str_lossy().into_owned())) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_paths_are_refused() {
        for bad in
            ["", "/etc/passwd", "a/../b", "..", "./a", "a//b", ".git/config", "x/.GIT/hooks", "a/", "a\0b"]
        {
            assert!(safe_path(BStr::new(bad)).is_err(), "{bad:?} should be refused");
        }
        for good in ["a", "a/b.txt", ".gitignore", "dir/.github/x", "with space/f"] {
            assert!(safe_path(BStr::new(good)).is_ok(), "{good:?} should be accepted");
        }
    }
}
