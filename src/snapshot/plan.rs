//! Turns a surface into the exact list of things to write, validating every entry first: no
//! file is written before the whole content is known to be materialisable.

use std::collections::BTreeSet;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode};

use super::SnapshotError;
use crate::surface::{Base, Observed, OverlaySource, Surface};

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
}

/// The base listing read from the repository, with the fingerprint taken alongside it.
pub(crate) struct Listing {
    pub observed: Observed,
    state: gix::index::State,
}

impl Listing {
    /// Reads the index the surface was predicted from (and `HEAD`'s tree for a `HeadTree`
    /// base, the given tree for a `Tree` base).
    pub(crate) fn read(repo: &gix::Repository, surface: &Surface) -> Result<Self, SnapshotError> {
        let index = crate::surface::load_index(repo, surface.index_file.as_deref())?;
        let observed = crate::surface::fingerprint(repo, &index)?;
        let state = match surface.base {
            Base::Index => (**index).clone().into(),
            Base::HeadTree => match repo.head_tree_id() {
                Ok(tree) => {
                    repo.index_from_tree(&tree).map_err(SnapshotError::git("listing HEAD's tree"))?.into()
                }
                Err(_) => gix::index::State::new(repo.object_hash()),
            },
            Base::Tree(tree) => {
                repo.index_from_tree(&tree).map_err(SnapshotError::git("listing the pushed tree"))?.into()
            }
        };
        Ok(Self { observed, state })
    }
}

/// The validated items for `surface` over `listing`, sorted by path.
pub(crate) fn items(listing: &Listing, surface: &Surface) -> Result<Vec<Item>, SnapshotError> {
    let overlays: BTreeSet<&[u8]> = surface.overlays.iter().map(|o| o.path.as_bytes()).collect();
    let mut out = Vec::with_capacity(listing.state.entries().len());
    let state = &listing.state;
    for entry in state.entries() {
        let path = entry.path(state);
        if overlays.contains(path.as_bytes()) || entry.flags.contains(Flags::INTENT_TO_ADD) {
            continue;
        }
        if entry.stage_raw() != 0 {
            return Err(SnapshotError::Conflict(path.to_str_lossy().into_owned()));
        }
        if let Some(what) = object_item(path, entry.id, entry.mode)? {
            push_item(&mut out, path, what)?;
        }
    }
    for overlay in &surface.overlays {
        let path = BStr::new(overlay.path.as_bytes());
        let what = match &overlay.source {
            OverlaySource::Worktree { from } => {
                safe_path(BStr::new(from.as_bytes()))?;
                Some(What::Copy { from: from.clone() })
            }
            OverlaySource::Blob { id, mode } => object_item(path, *id, *mode)?,
            OverlaySource::Absent => None,
        };
        if let Some(what) = what {
            push_item(&mut out, path, what)?;
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
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
