//! Revisions named by a command, read through gix: what `topic`, `HEAD~2`, `v0.1^`, `@{u}` or a
//! full commit id point to, the trees they hold, merge bases and the paths a run of commits
//! changes.
//!
//! In: an opened repository and revision text as written on the command line. Out: commit ids,
//! tree listings and path sets. Never writes, never spawns `git`. Forms it does not know (short
//! ids, `:/text`, `@{-1}`, reflog dates) resolve to `None`, which callers turn into an
//! UNVERIFIED reason: a guess is never presented as exact.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use gix::bstr::ByteSlice;

use super::view;
use super::view::Source;
use crate::git;

/// The commit `spec` names: a ref (`HEAD`, `@`, a branch, a tag, `origin/main`, a full name), a
/// full hex id, optionally followed by `~N`, `^`, `^N` steps, or `@{u}`/`@{upstream}`/`@{push}`
/// after a branch (or alone, for the current one).
pub(crate) fn resolve(repo: &gix::Repository, spec: &str) -> Option<gix::ObjectId> {
    let spec = spec.strip_suffix("^{commit}").unwrap_or(spec);
    let cut = spec.find(['~', '^']).unwrap_or(spec.len());
    let (base, steps) = spec.split_at(cut);
    let mut id = resolve_base(repo, base)?;
    let mut rest = steps;
    while let Some(c) = rest.chars().next() {
        rest = &rest[1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        rest = &rest[digits.len()..];
        let n: usize = if digits.is_empty() { 1 } else { digits.parse().ok()? };
        match c {
            '~' => {
                for _ in 0..n {
                    id = parents(repo, id)?.first().copied()?;
                }
            }
            '^' if n == 0 => {}
            '^' => id = parents(repo, id)?.get(n - 1).copied()?,
            _ => return None,
        }
    }
    Some(id)
}

fn resolve_base(repo: &gix::Repository, base: &str) -> Option<gix::ObjectId> {
    if let Some((branch, suffix)) = base.split_once("@{") {
        let suffix = suffix.strip_suffix('}')?;
        if !matches!(suffix.to_ascii_lowercase().as_str(), "u" | "upstream" | "push") {
            return None;
        }
        let name = if branch.is_empty() {
            repo.head_name().ok().flatten()?
        } else {
            gix::refs::FullName::try_from(format!("refs/heads/{branch}")).ok()?
        };
        let direction =
            if suffix == "push" { gix::remote::Direction::Push } else { gix::remote::Direction::Fetch };
        let tracking = repo.branch_remote_tracking_ref_name(name.as_ref(), direction)?.ok()?;
        return peel(repo, tracking.as_bstr().to_str().ok()?);
    }
    if base.is_empty() || base == "@" || base == "HEAD" {
        return repo.head_id().ok().map(gix::Id::detach);
    }
    if (base.len() == 40 || base.len() == 64)
        && let Ok(id) = gix::ObjectId::from_hex(base.as_bytes())
    {
        return repo.find_object(id).ok()?.peel_to_commit().ok().map(|c| c.id);
    }
    let candidates = [
        base.to_owned(),
        format!("refs/{base}"),
        format!("refs/tags/{base}"),
        format!("refs/heads/{base}"),
        format!("refs/remotes/{base}"),
        format!("refs/remotes/{base}/HEAD"),
    ];
    candidates.iter().find_map(|c| peel(repo, c))
}

/// The commit a full or partial ref name points to (peeled through tags).
fn peel(repo: &gix::Repository, name: &str) -> Option<gix::ObjectId> {
    let mut reference = repo.try_find_reference(name).ok().flatten()?;
    let id = reference.peel_to_id().ok()?;
    id.object().ok()?.peel_to_commit().ok().map(|c| c.id)
}

/// The parents of a commit, in order.
pub(crate) fn parents(repo: &gix::Repository, commit: gix::ObjectId) -> Option<Vec<gix::ObjectId>> {
    let commit = repo.find_commit(commit).ok()?;
    Some(commit.parent_ids().map(gix::Id::detach).collect())
}

/// The listing (path → blob) of a commit's tree; an unreadable tree is `None`.
pub(crate) fn listing(repo: &gix::Repository, commit: gix::ObjectId) -> Option<BTreeMap<String, Source>> {
    let tree = git::commit_tree(repo, commit).ok()?;
    let mut ignored = Vec::new();
    view::tree_listing(repo, tree, &mut ignored).ok()
}

/// A merge base of `a` and `b`: the first commit reachable from `b` (in walk order) that `a`
/// reaches too. It may be older than git's best merge base, which only widens what is measured.
pub(crate) fn merge_base(
    repo: &gix::Repository,
    a: gix::ObjectId,
    b: gix::ObjectId,
) -> Option<gix::ObjectId> {
    let mut from_a = HashSet::new();
    for info in repo.rev_walk([a]).all().ok()? {
        from_a.insert(info.ok()?.id);
    }
    for info in repo.rev_walk([b]).all().ok()? {
        let id = info.ok()?.id;
        if from_a.contains(&id) {
            return Some(id);
        }
    }
    None
}

/// Every path that any commit reachable from `tip` but not from `hidden` changes against each of
/// its parents (a root commit: against the empty tree).
pub(crate) fn changed_by_commits(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    hidden: &[gix::ObjectId],
) -> Option<BTreeSet<String>> {
    let walk = repo.rev_walk([tip]).with_hidden(hidden.iter().copied()).all().ok()?;
    let mut out = BTreeSet::new();
    for info in walk {
        let info = info.ok()?;
        let tree = git::commit_tree(repo, info.id).ok()?;
        let parents: Vec<gix::ObjectId> = info.parent_ids().map(gix::Id::detach).collect();
        let bases: Vec<Option<gix::ObjectId>> = if parents.is_empty() {
            vec![None]
        } else {
            parents.iter().map(|p| git::commit_tree(repo, *p).ok().map(Some)).collect::<Option<_>>()?
        };
        for base in bases {
            let mut deleted = BTreeSet::new();
            crate::git::diff_trees(repo, base, tree, &mut out, &mut deleted).ok()?;
            out.extend(deleted);
        }
    }
    Some(out)
}

/// The differences from `from` to `to`: each path whose entry differs, with its entry in `to`
/// (`None`: `to` does not have it).
pub(crate) fn diff(
    from: &BTreeMap<String, Source>,
    to: &BTreeMap<String, Source>,
) -> Vec<(String, Option<Source>)> {
    let mut out = Vec::new();
    super::view::walk_both(from, to, |path, was, now| {
        if was != now {
            out.push((path.clone(), now.cloned()));
        }
    });
    out
}
