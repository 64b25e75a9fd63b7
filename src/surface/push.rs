//! The push range: files changed in `upstream...HEAD`, or — for git's pre-push hook — in the
//! commits of one pushed ref that the remote does not have yet.
//!
//! The upstream ([`crate::git::upstream`]) is the branch's configured tracking ref, else `origin/<branch>`, else
//! `origin/HEAD`. Without any of them every file at `HEAD` counts (a first push is never
//! "nothing to check"). The base of the range is where `HEAD`'s unpushed commits meet the
//! upstream (the boundary of `rev-list upstream..HEAD`), which is git's three-dot merge base
//! for ordinary histories. [`pushed`] measures the same way from a given commit: against the
//! remote's current commit when git knows it and it exists locally, else against every
//! remote-tracking ref (a new branch carries only the commits no remote already has).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use gix::bstr::ByteSlice;

use super::view::Source;
use super::view::{self, RepoView};
use super::{Base, Lanes, Mode, Surface, SurfaceError};
use crate::git;

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
    /// The commit the remote ref points to now (git's pre-push input).
    Remote {
        /// Its id, in hex.
        id: String,
    },
    /// The remote ref is new: the commits that none of the refs the remote itself advertises
    /// (`git ls-remote`, asked by the pre-push hook) reaches are pushed — what the remote really
    /// has, whatever the local remote-tracking refs say.
    Advertised {
        /// How many advertised commits exist here.
        refs: usize,
    },
    /// The remote ref is new (or its commit is unknown here): the commits that no
    /// remote-tracking ref reaches are pushed.
    RemoteTracking {
        /// How many remote-tracking refs were found (0: every commit is new).
        refs: usize,
    },
    /// A local branch or tag moves (git's reference-transaction hook): the commits no local
    /// branch, tag or remote-tracking ref reaches yet, nor the ref's old commit.
    LocalRefs {
        /// How many refs (and the old commit) bound the range.
        refs: usize,
    },
}

/// What a pushed commit is compared with, from one line of git's pre-push input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PushAgainst {
    /// The remote ref points at this commit now.
    Remote(gix::ObjectId),
    /// The remote ref does not exist yet.
    NewRef,
    /// A local ref moves from this commit (`None`: it is created): what lands is what no local
    /// branch, tag or remote-tracking ref reaches yet (git's reference-transaction hook, run
    /// before any ref of the transaction moved).
    Landing(Option<gix::ObjectId>),
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
    /// The one commit the pushed range grows from, when there is exactly one (the remote's
    /// commit or the upstream's, usually): the baseline pre-existing findings are measured on.
    pub baseline: Option<gix::ObjectId>,
    /// Every blob a pushed commit adds or changes, against each of its parents: the history
    /// the safety scan reads, so content added in one commit and removed in a later one is
    /// still seen. One entry per distinct blob (the first commit that introduced it).
    pub introduced: Vec<Introduced>,
    /// The commits (and annotated tags) whose messages the safety scan reads: a message is
    /// published with the commit like its files.
    pub messages: Vec<gix::ObjectId>,
}

/// A blob that one pushed commit adds or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introduced {
    /// Its path in that commit.
    pub path: String,
    /// The blob.
    pub blob: gix::ObjectId,
    /// The commit that introduced it.
    pub commit: gix::ObjectId,
    /// A symlink (the blob is its target text).
    pub link: bool,
}

/// Computes the push range of the repository's current branch.
pub(crate) fn range(repo: &gix::Repository, view: &RepoView) -> Result<PushRange, SurfaceError> {
    let (Some(head), Some(head_tree)) = (view.observed.head, view.head_tree) else {
        return Ok(PushRange {
            base: PushBase::NoUpstream,
            commits: 0,
            changed: Vec::new(),
            deleted: Vec::new(),
            baseline: None,
            introduced: Vec::new(),
            messages: Vec::new(),
        });
    };
    let Some((reference, upstream)) = git::upstream(repo)? else {
        // A new branch: the commits no remote-tracking ref reaches (every file without any).
        let (hidden, _) = already_on_remote(repo, PushAgainst::NewRef, None)?;
        let walked = unpushed(repo, head, &hidden)?;
        let (changed, deleted) = if hidden.is_empty() {
            (view.head.keys().cloned().collect(), Vec::new())
        } else {
            files_between(repo, &walked.boundary, head_tree, &view.head)?
        };
        let introduced = introduced(repo, &walked.commits)?;
        return Ok(PushRange {
            base: PushBase::NoUpstream,
            commits: 0,
            changed,
            deleted,
            baseline: None,
            introduced,
            messages: walked.ids(),
        });
    };
    let walked = unpushed(repo, head, &[upstream])?;
    let (changed, deleted) = files_between(repo, &walked.boundary, head_tree, &view.head)?;
    let introduced = introduced(repo, &walked.commits)?;
    Ok(PushRange {
        base: PushBase::Upstream { reference },
        commits: walked.commits.len(),
        changed,
        deleted,
        baseline: walked.single_boundary(),
        introduced,
        messages: walked.ids(),
    })
}

/// The surface of pushing commit `tip` (what git's pre-push hook is told): the content is the
/// tree of `tip`, the changed files are those the commits not yet on the remote touch.
///
/// `remote` is the remote git pushes to (its name, or a URL). A new ref, or one whose remote
/// commit is not here, carries the commits that none of the objects the remote `advertised`
/// reaches (asked only then; the remote's own word beats its tracking refs, which anyone can
/// move); when it cannot be asked, the commits that remote's own tracking refs do not reach —
/// never another remote's.
pub(crate) fn pushed(
    repo_root: &Path,
    tip: gix::ObjectId,
    against: PushAgainst,
    remote: Option<&str>,
    advertised: &dyn Fn() -> Option<Vec<gix::ObjectId>>,
) -> Result<Surface, SurfaceError> {
    let repo = git::open_worktree(repo_root)?;
    let base_unknown = match against {
        PushAgainst::NewRef => true,
        PushAgainst::Remote(id) => repo.find_commit(id).is_err(),
        PushAgainst::Landing(_) => false,
    };
    let (hidden, base) = match base_unknown.then(advertised).flatten() {
        Some(ids) => {
            let mut tips: Vec<gix::ObjectId> = ids
                .iter()
                .filter_map(|id| repo.find_object(*id).ok()?.peel_to_commit().ok().map(|c| c.id))
                .collect();
            tips.sort();
            tips.dedup();
            let refs = tips.len();
            (tips, PushBase::Advertised { refs })
        }
        _ => already_on_remote(&repo, against, remote)?,
    };
    let walked = unpushed(&repo, tip, &hidden)?;
    surface_of(&repo, tip, base, &walked, Sides::Any)
}

/// The surface of a local branch or tag moving to commit `tip` from `old` (git's
/// reference-transaction hook) through the annotated `tags` (their objects, when a tag moves):
/// the commits no local branch, tag or remote-tracking ref reaches yet, and the tags' messages.
/// `None` when the move lands nothing new (a new branch at a known commit, a reset back, a
/// fast-forward to fetched commits, a lightweight tag) — nothing read beyond the walk.
pub(crate) fn landing(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    old: Option<gix::ObjectId>,
    tags: Vec<gix::ObjectId>,
) -> Result<Option<Surface>, SurfaceError> {
    let (hidden, base) = already_on_remote(repo, PushAgainst::Landing(old), None)?;
    let walked = unpushed(repo, tip, &hidden)?;
    if walked.commits.is_empty() && tags.is_empty() {
        return Ok(None);
    }
    let mut surface = surface_of(repo, tip, base, &walked, Sides::Every)?;
    if let Some(range) = surface.push.as_mut() {
        range.messages.extend(tags);
    }
    Ok(Some(surface))
}

/// Which changes of a commit with several parents (a merge) are new: against any parent (what a
/// push carries to a remote that lacks some side), or against every parent (what lands locally:
/// a clean merge of commits that already landed or were fetched brings nothing new, only what
/// differs from every side — a conflict resolution, an evil merge — does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sides {
    Any,
    Every,
}

/// The content is the tree of `tip`; the changed files are those the `walked` commits touch.
fn surface_of(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    base: PushBase,
    walked: &Walked,
    sides: Sides,
) -> Result<Surface, SurfaceError> {
    let workdir = git::workdir(repo)?.to_owned();
    let commit = repo.find_object(tip).and_then(gix::Object::peel_to_commit).map_err(|e| {
        SurfaceError::Git { context: "the pushed object is not a commit", message: e.to_string() }
    })?;
    let tree = commit.tree_id().map_err(SurfaceError::git("reading a commit's tree"))?.detach();
    let mut unverified = Vec::new();
    let (changed, deleted) = match sides {
        Sides::Any => files_between_in_tree(repo, &walked.boundary, tree, &mut unverified)?,
        Sides::Every => files_new_to_every(repo, &walked.boundary, tree, &mut unverified)?,
    };
    let introduced = introduced_on(repo, &walked.commits, sides)?;
    let commits = walked.commits.len();
    let baseline = walked.single_boundary();
    let messages = walked.ids();
    let index = git::load_index(repo, None)?;
    Ok(Surface {
        root: workdir,
        mode: Mode::Push { pending_commit: false },
        lanes: Lanes::default(),
        paths: changed.clone(),
        deleted: deleted.clone(),
        base: Base::Tree(tree),
        overlays: Vec::new(),
        push: Some(PushRange { base, commits, changed, deleted, baseline, introduced, messages }),
        unverified,
        block: None,
        grows_from: super::GrowsFrom::Head,
        observed: git::fingerprint(repo, &index)?,
        index_file: None,
        non_utf8_worktree: Vec::new(),
    })
}

/// What one `git push` names beyond the current branch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PushRefs<'a> {
    /// The remote operand (a configured name, or a URL/path), if given.
    pub remote: Option<&'a str>,
    /// The refspecs as written.
    pub refspecs: &'a [String],
    /// `--all`/`--branches`/`--mirror`.
    pub all_refs: bool,
    /// `--tags`/`--follow-tags`/`--mirror`.
    pub tags: bool,
}

/// What one `git push` sends beyond the range: see [`pushed_history`].
#[derive(Debug, Clone, Default)]
pub(crate) struct PushedHistory {
    /// Every blob its commits introduce.
    pub introduced: Vec<Introduced>,
    /// Its commits (their messages are published).
    pub messages: Vec<gix::ObjectId>,
    /// Refspecs that could not be resolved to a commit.
    pub unresolved: Vec<String>,
}

/// Every blob the commits of one `git push` introduce, for the safety scan: for each local ref
/// the push sends (its refspecs' sources, globs matched against local refs, `--all`, `--tags`;
/// the current branch when it names none), the commits the target remote's own tracking refs do
/// not reach; also those commits (whose messages are published too) and the refspecs that could
/// not be resolved (git would refuse them).
pub(crate) fn pushed_history(repo_root: &Path, refs: PushRefs<'_>) -> Result<PushedHistory, SurfaceError> {
    let repo = git::open_worktree(repo_root)?;
    let mut tips = Vec::new();
    let mut unresolved = Vec::new();
    let local = local_refs(&repo)?;
    for spec in refs.refspecs {
        let src = spec.trim_start_matches('+').split(':').next().unwrap_or("");
        if src.is_empty() {
            continue;
        }
        if src.contains('*') {
            tips.extend(local.iter().filter(|(name, _)| ref_glob(src, name)).map(|(_, id)| *id));
        } else {
            match resolve_source(&repo, src, &local) {
                Some(commit) => tips.push(commit),
                None => unresolved.push(spec.clone()),
            }
        }
    }
    if refs.all_refs {
        tips.extend(local.iter().filter(|(n, _)| n.starts_with("refs/heads/")).map(|(_, id)| *id));
    }
    if refs.tags {
        tips.extend(local.iter().filter(|(n, _)| n.starts_with("refs/tags/")).map(|(_, id)| *id));
    }
    if refs.refspecs.is_empty()
        && !refs.all_refs
        && !refs.tags
        && let Some(head) = git::head_commit(&repo)?
    {
        tips.push(head);
    }
    tips.sort();
    tips.dedup();
    let hidden = remote_tips(&repo, refs.remote)?;
    let mut all = Vec::new();
    let mut messages = Vec::new();
    for tip in tips {
        let walked = unpushed(&repo, tip, &hidden)?;
        all.extend(introduced(&repo, &walked.commits)?);
        messages.extend(walked.ids());
    }
    Ok(PushedHistory { introduced: all, messages, unresolved })
}

/// The commit a refspec source names, or one whose history contains it: `name~N`, `name^` and
/// `@{…}` forms resolve to the named ref (or `HEAD`) itself, a superset of what git sends.
fn resolve_source(
    repo: &gix::Repository,
    src: &str,
    local: &[(String, gix::ObjectId)],
) -> Option<gix::ObjectId> {
    let base = src.split(['~', '^']).next().unwrap_or(src);
    let base = base.split("@{").next().unwrap_or(base);
    if base.is_empty() || base == "@" || base == "HEAD" {
        return repo.head_id().ok().map(gix::Id::detach);
    }
    let candidates =
        [base.to_owned(), format!("refs/{base}"), format!("refs/heads/{base}"), format!("refs/tags/{base}")];
    if let Some((_, id)) = candidates.iter().find_map(|c| local.iter().find(|(n, _)| n == c)) {
        return Some(*id);
    }
    if let Some(id) = candidates.iter().find_map(|c| repo.try_find_reference(c.as_str()).ok().flatten()) {
        let mut id = id;
        return id.peel_to_id().ok()?.object().ok()?.peel_to_commit().ok().map(|c| c.id);
    }
    let id = gix::ObjectId::from_hex(base.as_bytes()).ok()?;
    repo.find_object(id).ok()?.peel_to_commit().ok().map(|c| c.id)
}

/// Local refs (branches, tags, and the rest) peeled to commits, by full name.
fn local_refs(repo: &gix::Repository) -> Result<Vec<(String, gix::ObjectId)>, SurfaceError> {
    let platform = repo.references().map_err(SurfaceError::git("listing refs"))?;
    let mut out = Vec::new();
    for reference in platform.all().map_err(SurfaceError::git("listing refs"))? {
        let Ok(mut reference) = reference else { continue };
        let name = reference.name().as_bstr().to_string();
        if name.starts_with("refs/remotes/") || !name.starts_with("refs/") {
            continue;
        }
        let Ok(id) = reference.peel_to_id() else { continue };
        let Ok(commit) = id.object().and_then(gix::Object::peel_to_commit) else { continue };
        out.push((name, commit.id));
    }
    Ok(out)
}

/// The commits every local branch, tag and remote-tracking ref points at now: content already
/// judged when it landed there (or published by a remote), which a moving ref does not carry
/// anew.
fn landed_tips(repo: &gix::Repository) -> Result<Vec<gix::ObjectId>, SurfaceError> {
    let platform = repo.references().map_err(SurfaceError::git("listing refs"))?;
    let mut tips = Vec::new();
    for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] {
        for reference in platform.prefixed(prefix).map_err(SurfaceError::git("listing refs"))? {
            let Ok(mut reference) = reference else { continue };
            let Ok(id) = reference.peel_to_id() else { continue };
            if let Ok(commit) = id.object().and_then(gix::Object::peel_to_commit) {
                tips.push(commit.id);
            }
        }
    }
    Ok(tips)
}

/// Whether a refspec source with one `*` matches a full ref name, as git expands it
/// (`feature/*` means `refs/heads/feature/*`).
fn ref_glob(pattern: &str, name: &str) -> bool {
    let full =
        if pattern.starts_with("refs/") { pattern.to_owned() } else { format!("refs/heads/{pattern}") };
    let Some((before, after)) = full.split_once('*') else { return full == name };
    name.len() >= before.len() + after.len() && name.starts_with(before) && name.ends_with(after)
}

/// The tips the target remote is known to have: its own remote-tracking refs (the branch's
/// configured remote, or `origin`, when none is named). A URL or path has none here, so every
/// commit of the pushed refs counts.
fn remote_tips(repo: &gix::Repository, remote: Option<&str>) -> Result<Vec<gix::ObjectId>, SurfaceError> {
    let name = match remote {
        Some(r) => r.to_owned(),
        None => repo
            .head_name()
            .ok()
            .flatten()
            .and_then(|h| repo.branch_remote_name(h.shorten(), gix::remote::Direction::Push))
            .map_or_else(|| "origin".to_owned(), |n| n.as_bstr().to_string()),
    };
    if name.contains(['/', ':']) {
        return Ok(Vec::new());
    }
    let prefix = format!("refs/remotes/{name}/");
    let platform = repo.references().map_err(SurfaceError::git("listing refs"))?;
    let mut tips = Vec::new();
    for reference in platform.prefixed(prefix.as_str()).map_err(SurfaceError::git("listing remote refs"))? {
        let Ok(mut reference) = reference else { continue };
        if let Ok(id) = reference.peel_to_id() {
            tips.push(id.detach());
        }
    }
    tips.sort();
    tips.dedup();
    Ok(tips)
}

/// The commits the remote already has: the remote's commit when it exists here, else the tips
/// of that remote's tracking refs (see [`remote_tips`]).
fn already_on_remote(
    repo: &gix::Repository,
    against: PushAgainst,
    remote: Option<&str>,
) -> Result<(Vec<gix::ObjectId>, PushBase), SurfaceError> {
    if let PushAgainst::Remote(id) = against
        && repo.find_commit(id).is_ok()
    {
        return Ok((vec![id], PushBase::Remote { id: id.to_string() }));
    }
    if let PushAgainst::Landing(old) = against {
        let mut tips = landed_tips(repo)?;
        tips.extend(old.filter(|id| repo.find_commit(*id).is_ok()));
        tips.sort();
        tips.dedup();
        let refs = tips.len();
        return Ok((tips, PushBase::LocalRefs { refs }));
    }
    let tips = remote_tips(repo, remote)?;
    let refs = tips.len();
    Ok((tips, PushBase::RemoteTracking { refs }))
}

/// The files the commits from `boundary` to `tip_tree` change (present in the tip) and delete
/// (absent from it), against each boundary commit (a root: the empty tree), with the tip's
/// listing `tip` at hand.
fn files_between(
    repo: &gix::Repository,
    boundary: &[Option<gix::ObjectId>],
    tip_tree: gix::ObjectId,
    tip: &BTreeMap<String, Source>,
) -> Result<(Vec<String>, Vec<String>), SurfaceError> {
    let (changed, deleted) = diffed(repo, boundary, tip_tree)?;
    let changed = changed.into_iter().filter(|p| tip.contains_key(p)).collect();
    let deleted = deleted.into_iter().filter(|p| !tip.contains_key(p)).collect();
    Ok((changed, deleted))
}

/// [`files_between`] without the tip's listing: whether a path is a file in the tip is read
/// from the directories the changes are in, so a few changed files in a large tree read a few
/// tree objects. A name that is not UTF-8 is named, not checked, as everywhere else.
fn files_between_in_tree(
    repo: &gix::Repository,
    boundary: &[Option<gix::ObjectId>],
    tip_tree: gix::ObjectId,
    unverified: &mut Vec<String>,
) -> Result<(Vec<String>, Vec<String>), SurfaceError> {
    let (changed, deleted) = diffed(repo, boundary, tip_tree)?;
    let paths: Vec<String> = changed.iter().chain(&deleted).cloned().collect();
    let (tip, _) = git::tree::dirs_index(repo, tip_tree, &git::tree::ancestor_dirs(&paths))?;
    let present = |p: &String| tip.entry_by_path(p.as_bytes().as_bstr()).is_some();
    for path in paths.iter().filter(|p| p.contains('\u{fffd}')) {
        unverified.push(format!("path is not valid UTF-8 and is not checked: {path}"));
    }
    let changed = changed.into_iter().filter(|p| !p.contains('\u{fffd}') && present(p)).collect();
    let deleted = deleted.into_iter().filter(|p| !p.contains('\u{fffd}') && !present(p)).collect();
    Ok((changed, deleted))
}

/// Every path the tree diffs from each boundary commit to `tip_tree` add or change, and delete.
fn diffed(
    repo: &gix::Repository,
    boundary: &[Option<gix::ObjectId>],
    tip_tree: gix::ObjectId,
) -> Result<(BTreeSet<String>, BTreeSet<String>), SurfaceError> {
    let mut changed = BTreeSet::new();
    let mut deleted = BTreeSet::new();
    for base in boundary {
        let base_tree = match base {
            Some(commit) => Some(git::commit_tree(repo, *commit)?),
            None => None,
        };
        crate::git::diff_trees(repo, base_tree, tip_tree, &mut changed, &mut deleted)?;
    }
    Ok((changed, deleted))
}

/// Like [`files_between`], but a path counts only when it differs from every boundary commit
/// (with one boundary, the same answer).
fn files_new_to_every(
    repo: &gix::Repository,
    boundary: &[Option<gix::ObjectId>],
    tip_tree: gix::ObjectId,
    unverified: &mut Vec<String>,
) -> Result<(Vec<String>, Vec<String>), SurfaceError> {
    let mut common: Option<(BTreeSet<String>, BTreeSet<String>)> = None;
    for base in boundary {
        let (changed, deleted) =
            files_between_in_tree(repo, std::slice::from_ref(base), tip_tree, unverified)?;
        let (changed, deleted): (BTreeSet<String>, BTreeSet<String>) =
            (changed.into_iter().collect(), deleted.into_iter().collect());
        common = Some(match common {
            None => (changed, deleted),
            Some((c, d)) => (&c & &changed, &d & &deleted),
        });
    }
    let (changed, deleted) = common.unwrap_or_default();
    Ok((changed.into_iter().collect(), deleted.into_iter().collect()))
}

/// The commits of a push range and where their history meets the outside.
struct Walked {
    /// Each commit inside the range with its parents.
    commits: Vec<(gix::ObjectId, Vec<gix::ObjectId>)>,
    /// The commits the range's history meets outside it (`None` for a root commit inside the
    /// range, meaning "compare with the empty tree").
    boundary: Vec<Option<gix::ObjectId>>,
}

impl Walked {
    /// The commits inside the range.
    fn ids(&self) -> Vec<gix::ObjectId> {
        self.commits.iter().map(|(id, _)| *id).collect()
    }

    /// The boundary commit when the range grows from exactly one.
    fn single_boundary(&self) -> Option<gix::ObjectId> {
        match self.boundary.as_slice() {
            [Some(one)] => Some(*one),
            _ => None,
        }
    }
}

/// The commits reachable from `head` but from none of `hidden`, and their boundary.
fn unpushed(
    repo: &gix::Repository,
    head: gix::ObjectId,
    hidden: &[gix::ObjectId],
) -> Result<Walked, SurfaceError> {
    let walk = repo
        .rev_walk([head])
        .with_hidden(hidden.iter().copied())
        .all()
        .map_err(SurfaceError::git("walking history"))?;
    let mut inside = HashSet::new();
    let mut commits = Vec::new();
    let mut roots = false;
    for info in walk {
        let info = info.map_err(SurfaceError::git("walking history"))?;
        inside.insert(info.id);
        let parents: Vec<gix::ObjectId> = info.parent_ids().map(gix::Id::detach).collect();
        roots |= parents.is_empty();
        commits.push((info.id, parents));
    }
    let mut boundary: Vec<Option<gix::ObjectId>> = Vec::new();
    for parent in commits.iter().flat_map(|(_, p)| p).filter(|p| !inside.contains(*p)) {
        if !boundary.contains(&Some(*parent)) {
            boundary.push(Some(*parent));
        }
    }
    if roots {
        boundary.push(None);
    }
    Ok(Walked { commits, boundary })
}

/// The blobs each commit adds or changes against each of its parents (a root commit: against
/// the empty tree), one entry per distinct blob, oldest commit first.
fn introduced(
    repo: &gix::Repository,
    commits: &[(gix::ObjectId, Vec<gix::ObjectId>)],
) -> Result<Vec<Introduced>, SurfaceError> {
    introduced_on(repo, commits, Sides::Any)
}

/// [`introduced`], where with [`Sides::Every`] a merge commit's blob counts only when it differs
/// from what every parent holds at that path.
fn introduced_on(
    repo: &gix::Repository,
    commits: &[(gix::ObjectId, Vec<gix::ObjectId>)],
    sides: Sides,
) -> Result<Vec<Introduced>, SurfaceError> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (commit, parents) in commits.iter().rev() {
        let tree = git::commit_tree(repo, *commit)?;
        let bases: Vec<Option<gix::ObjectId>> = if parents.is_empty() {
            vec![None]
        } else {
            parents.iter().map(|p| git::commit_tree(repo, *p).map(Some)).collect::<Result<_, _>>()?
        };
        let mut blobs: Option<Vec<(String, gix::ObjectId, bool)>> = None;
        for base in bases {
            let found = blobs_added(repo, base, tree)?;
            blobs = Some(match (blobs, sides) {
                (None, _) => found,
                (Some(mut all), Sides::Any) => {
                    all.extend(found);
                    all
                }
                (Some(mut common), Sides::Every) => {
                    let found: HashSet<_> = found.into_iter().collect();
                    common.retain(|blob| found.contains(blob));
                    common
                }
            });
        }
        for (path, blob, link) in blobs.unwrap_or_default() {
            if seen.insert(blob) {
                out.push(Introduced { path, blob, commit: *commit, link });
            }
        }
    }
    Ok(out)
}

/// The blobs (and symlinks) `tree` adds or changes against `base` (or the empty tree): path,
/// object, whether it is a link.
fn blobs_added(
    repo: &gix::Repository,
    base: Option<gix::ObjectId>,
    tree: gix::ObjectId,
) -> Result<Vec<(String, gix::ObjectId, bool)>, SurfaceError> {
    use gix::diff::tree::recorder::Change;
    let mut out = Vec::new();
    for change in crate::git::tree_changes(repo, base, tree)? {
        let (Change::Addition { entry_mode, oid, path, .. }
        | Change::Modification { entry_mode, oid, path, .. }) = change
        else {
            continue;
        };
        if entry_mode.is_blob_or_symlink() {
            out.push((path.to_str_lossy().into_owned(), oid, entry_mode.is_link()));
        }
    }
    Ok(out)
}

/// One `git push` of a command, owned (the surface's view of [`crate::bash::GitOp::Push`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PushCall {
    /// The remote operand (a configured name, or a URL/path), if given.
    pub remote: Option<String>,
    /// The refspecs as written.
    pub refspecs: Vec<String>,
    /// `--all`/`--branches`/`--mirror`.
    pub all_refs: bool,
    /// `--tags`/`--follow-tags`/`--mirror`.
    pub tags: bool,
    /// The command words, for messages.
    pub text: String,
}

/// What the pushes send besides the current branch's range: the content each other pushed ref
/// carries for the files its own unpushed commits change.
#[derive(Debug, Default)]
pub(crate) struct OtherRefs {
    /// Some push sends the current branch (its range is measured by [`range_to`]).
    pub current: bool,
    /// The remote the current branch is pushed to, when a push names one.
    pub current_remote: Option<String>,
    /// Changed files of the other refs with their content there.
    pub files: BTreeMap<String, Source>,
    /// Files the other refs' ranges delete.
    pub deleted: BTreeSet<String>,
    /// Why the prediction is not exact.
    pub unverified: Vec<String>,
}

/// A local commit one push sends: its tip, the remote, and the branch it updates there.
struct Sent {
    tip: gix::ObjectId,
    remote: String,
    dst: Option<String>,
}

/// Splits the pushes of a command into the current branch (measured as before: its upstream
/// range) and the other refs, whose changed files are read from their own tips.
pub(crate) fn other_refs(
    repo: &gix::Repository,
    view: &RepoView,
    calls: &[PushCall],
) -> Result<OtherRefs, SurfaceError> {
    let mut out = OtherRefs::default();
    if calls.is_empty() {
        out.current = true;
        return Ok(out);
    }
    let head_name = repo.head_name().ok().flatten();
    let current_short = head_name.as_ref().map(|n| n.shorten().to_string());
    let local = local_refs(repo)?;
    let mut sent = Vec::new();
    for call in calls {
        let remote = call.remote.clone().unwrap_or_else(|| default_remote(repo));
        let mut sources: Vec<(String, Option<String>)> = Vec::new();
        // Without refspecs on the command line, git pushes the remote's configured ones.
        let configured = if call.refspecs.is_empty() && !call.all_refs && !remote.contains(['/', ':']) {
            git::config::strings(repo, &format!("remote.{remote}.push"))
        } else {
            Vec::new()
        };
        for spec in call.refspecs.iter().chain(&configured) {
            let spec = spec.trim_start_matches('+');
            let (src, dst) = match spec.split_once(':') {
                Some((s, d)) => (s, Some(d)),
                None => (spec, None),
            };
            if src.is_empty() {
                continue; // a deletion carries no content
            }
            if src.contains('*') {
                for (name, _) in local.iter().filter(|(n, _)| ref_glob(src, n)) {
                    let short = name.trim_start_matches("refs/heads/").trim_start_matches("refs/tags/");
                    sources.push((name.clone(), Some(short.to_owned())));
                }
                continue;
            }
            let dst = dst.map(|d| d.trim_start_matches("refs/heads/").to_owned());
            sources.push((src.to_owned(), dst));
        }
        if call.all_refs {
            sources.extend(
                local.iter().filter_map(|(n, _)| {
                    n.strip_prefix("refs/heads/").map(|s| (n.clone(), Some(s.to_owned())))
                }),
            );
        }
        if call.tags {
            sources.extend(
                local.iter().filter(|(n, _)| n.starts_with("refs/tags/")).map(|(n, _)| (n.clone(), None)),
            );
        }
        // `--follow-tags` pushes the current branch too (`--tags` alone does not: a superset).
        if call.refspecs.is_empty() && configured.is_empty() && !call.all_refs {
            sources.push(("HEAD".to_owned(), None));
            if push_default(repo).as_deref() == Some("matching") {
                let prefix = format!("refs/remotes/{remote}/");
                for (name, _) in &local {
                    let Some(short) = name.strip_prefix("refs/heads/") else { continue };
                    if repo.try_find_reference(format!("{prefix}{short}").as_str()).ok().flatten().is_some() {
                        sources.push((name.clone(), Some(short.to_owned())));
                    }
                }
            }
        }
        for (src, dst) in sources {
            let is_current = src == "HEAD"
                || src == "@"
                || current_short.as_deref().is_some_and(|c| src == c || src == format!("refs/heads/{c}"));
            let dst_is_current = dst.is_none() || dst.as_deref() == current_short.as_deref();
            if is_current && dst_is_current {
                out.current = true;
                if call.remote.is_some() || out.current_remote.is_none() {
                    out.current_remote = Some(remote.clone());
                }
                continue;
            }
            if let Some(tip) = super::revs::resolve(repo, &src) {
                let dst = dst.or_else(|| {
                    (!src.starts_with("refs/tags/") && !src.contains(['~', '^']))
                        .then(|| src.trim_start_matches("refs/heads/").to_owned())
                });
                let dst = if is_current && dst.is_none() { current_short.clone() } else { dst };
                sent.push(Sent { tip, remote: remote.clone(), dst });
            } else {
                // Most likely a ref an earlier step creates (`git tag v1 && git push origin v1`,
                // `git branch b && …`): measured as `HEAD`, which it most often is. (The push
                // gate blocks a source it cannot resolve; git refuses one nothing creates.)
                if let Some(tip) = view.observed.head {
                    sent.push(Sent { tip, remote: remote.clone(), dst: Some(src.clone()) });
                }
            }
        }
    }
    for one in sent {
        if Some(one.tip) == view.observed.head
            && out.current
            && one.dst.as_deref() == current_short.as_deref()
        {
            continue;
        }
        add_sent(repo, &one, &mut out)?;
    }
    Ok(out)
}

/// Adds one sent ref's changed files (against the remote branch it updates when that is known
/// here, else against every tracking ref of that remote) with their content at its tip.
fn add_sent(repo: &gix::Repository, one: &Sent, out: &mut OtherRefs) -> Result<(), SurfaceError> {
    let tracking = one
        .dst
        .as_ref()
        .filter(|_| !one.remote.contains(['/', ':']))
        .and_then(|d| super::revs::resolve(repo, &format!("refs/remotes/{}/{d}", one.remote)));
    let hidden = match tracking {
        Some(id) => vec![id],
        None => remote_tips(repo, Some(&one.remote))?,
    };
    let tree = git::commit_tree(repo, one.tip)?;
    let listing = view::tree_listing(repo, tree, &mut out.unverified)?;
    let walked = unpushed(repo, one.tip, &hidden)?;
    let mut boundary = walked.boundary.clone();
    if let Some(old) = tracking
        && !boundary.contains(&Some(old))
        && !walked.commits.is_empty()
    {
        boundary.push(Some(old)); // a forced update: what the remote loses counts too
    }
    let (changed, deleted) = files_between(repo, &boundary, tree, &listing)?;
    for path in changed {
        let Some(source) = listing.get(&path) else { continue };
        match out.files.get(&path) {
            Some(existing) if existing != source => out
                .unverified
                .push(format!("{path} differs between the refs pushed; it is checked as in one of them")),
            Some(_) => {}
            None => {
                out.files.insert(path, source.clone());
            }
        }
    }
    out.deleted.extend(deleted);
    Ok(())
}

/// The remote a push without a remote operand goes to: the current branch's push remote
/// (`branch.<name>.pushRemote`, `remote.pushDefault`, `branch.<name>.remote`), else `origin`.
fn default_remote(repo: &gix::Repository) -> String {
    repo.head_name()
        .ok()
        .flatten()
        .and_then(|h| repo.branch_remote_name(h.shorten(), gix::remote::Direction::Push))
        .map_or_else(|| "origin".to_owned(), |n| n.as_bstr().to_string())
}

/// `push.default`, lower-cased.
fn push_default(repo: &gix::Repository) -> Option<String> {
    git::config::string(repo, "push.default").map(|v| v.to_ascii_lowercase())
}

/// The range of the current branch when it is pushed to `remote`: the upstream range when the
/// upstream lives on that remote (or no remote is named), else the commits that remote's
/// tracking refs do not reach.
pub(crate) fn range_to(
    repo: &gix::Repository,
    view: &RepoView,
    remote: Option<&str>,
) -> Result<PushRange, SurfaceError> {
    let upstream_remote = git::upstream(repo)?.and_then(|(r, _)| {
        r.strip_prefix("refs/remotes/").and_then(|r| r.split('/').next()).map(str::to_owned)
    });
    let (Some(remote), Some(head), Some(head_tree)) = (remote, view.observed.head, view.head_tree) else {
        return range(repo, view);
    };
    if upstream_remote.as_deref() == Some(remote) {
        return range(repo, view);
    }
    let hidden = remote_tips(repo, Some(remote))?;
    let walked = unpushed(repo, head, &hidden)?;
    let (changed, deleted) = files_between(repo, &walked.boundary, head_tree, &view.head)?;
    let introduced = introduced(repo, &walked.commits)?;
    Ok(PushRange {
        base: PushBase::RemoteTracking { refs: hidden.len() },
        commits: walked.commits.len(),
        changed,
        deleted,
        baseline: walked.single_boundary(),
        introduced,
        messages: walked.ids(),
    })
}
