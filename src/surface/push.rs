//! The push range: files changed in `upstream...HEAD`.
//!
//! The upstream is the branch's configured tracking ref, else `origin/<branch>`, else
//! `origin/HEAD`. Without any of them every file at `HEAD` counts (a first push is never
//! "nothing to check"). The base of the range is where `HEAD`'s unpushed commits meet the
//! upstream (the boundary of `rev-list upstream..HEAD`), which is git's three-dot merge base
//! for ordinary histories.

use std::collections::{BTreeSet, HashSet};

use gix::bstr::ByteSlice;

use super::SurfaceError;
use super::read::RepoView;

/// What a push's file list was computed against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushBase {
    /// The remote-tracking ref found for the current branch (e.g. `refs/remotes/origin/main`).
    Upstream {
        /// Its full name.
        reference: String,
    },
    /// No upstream exists: every file at `HEAD` is part of the push.
    NoUpstream,
}

/// The commits and files a push would send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRange {
    /// What the range is measured against.
    pub base: PushBase,
    /// How many commits are unpushed (0 without an upstream, where it is not measured).
    pub commits: usize,
    /// Files changed in the range and present at `HEAD`, sorted.
    pub changed: Vec<String>,
    /// Files the range deletes, sorted.
    pub deleted: Vec<String>,
}

/// Computes the push range of the repository's current branch.
pub(crate) fn range(repo: &gix::Repository, view: &RepoView) -> Result<PushRange, SurfaceError> {
    let (Some(head), Some(head_tree)) = (view.observed.head, view.head_tree) else {
        return Ok(PushRange {
            base: PushBase::NoUpstream,
            commits: 0,
            changed: Vec::new(),
            deleted: Vec::new(),
        });
    };
    let Some((reference, upstream)) = upstream(repo)? else {
        let changed = view.head.keys().cloned().collect();
        return Ok(PushRange { base: PushBase::NoUpstream, commits: 0, changed, deleted: Vec::new() });
    };
    let (commits, boundary) = unpushed(repo, head, upstream)?;
    let mut changed = BTreeSet::new();
    let mut deleted = BTreeSet::new();
    for base in boundary {
        let base_tree = match base {
            Some(commit) => Some(super::read::commit_tree(repo, commit)?),
            None => None,
        };
        diff_trees(repo, base_tree, head_tree, &mut changed, &mut deleted)?;
    }
    deleted.retain(|p| !view.head.contains_key(p));
    Ok(PushRange {
        base: PushBase::Upstream { reference },
        commits,
        changed: changed.into_iter().filter(|p| view.head.contains_key(p)).collect(),
        deleted: deleted.into_iter().collect(),
    })
}

/// The first upstream candidate that resolves to a commit: its name and id.
pub(crate) fn upstream(repo: &gix::Repository) -> Result<Option<(String, gix::ObjectId)>, SurfaceError> {
    let head_name = repo.head_name().map_err(SurfaceError::git("reading HEAD"))?;
    let mut candidates = Vec::new();
    if let Some(name) = &head_name {
        if let Some(Ok(tracking)) =
            repo.branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)
        {
            candidates.push(tracking.as_bstr().to_string());
        }
        candidates.push(format!("refs/remotes/origin/{}", name.shorten()));
    }
    candidates.push("refs/remotes/origin/HEAD".to_owned());
    for candidate in candidates {
        let found =
            repo.try_find_reference(candidate.as_str()).map_err(SurfaceError::git("reading a ref"))?;
        if let Some(mut reference) = found {
            let id = reference.peel_to_id().map_err(SurfaceError::git("peeling the upstream ref"))?;
            return Ok(Some((candidate, id.detach())));
        }
    }
    Ok(None)
}

/// The number of commits in `upstream..head` and the commits their history meets outside the
/// range (`None` for a root commit inside the range, meaning "compare with the empty tree").
fn unpushed(
    repo: &gix::Repository,
    head: gix::ObjectId,
    upstream: gix::ObjectId,
) -> Result<(usize, Vec<Option<gix::ObjectId>>), SurfaceError> {
    let walk =
        repo.rev_walk([head]).with_hidden([upstream]).all().map_err(SurfaceError::git("walking history"))?;
    let mut inside = HashSet::new();
    let mut parents = Vec::new();
    let mut roots = false;
    for info in walk {
        let info = info.map_err(SurfaceError::git("walking history"))?;
        inside.insert(info.id);
        let before = parents.len();
        parents.extend(info.parent_ids().map(gix::Id::detach));
        roots |= parents.len() == before;
    }
    let mut boundary: Vec<Option<gix::ObjectId>> = Vec::new();
    for parent in parents.into_iter().filter(|p| !inside.contains(p)) {
        if !boundary.contains(&Some(parent)) {
            boundary.push(Some(parent));
        }
    }
    if roots {
        boundary.push(None);
    }
    Ok((inside.len(), boundary))
}

/// Adds the blob paths that differ between `old` (or the empty tree) and `new`.
fn diff_trees(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    changed: &mut BTreeSet<String>,
    deleted: &mut BTreeSet<String>,
) -> Result<(), SurfaceError> {
    use gix::diff::tree::recorder::Change;
    let new_tree = repo.find_tree(new).map_err(SurfaceError::git("reading a tree"))?;
    let old_data = match old {
        Some(id) => repo.find_tree(id).map_err(SurfaceError::git("reading a tree"))?.data.clone(),
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
    .map_err(|e| SurfaceError::Git { context: "diffing trees", message: e.to_string() })?;
    for change in recorder.records {
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
