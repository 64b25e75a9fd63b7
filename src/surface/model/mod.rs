//! The staging simulation: git's index and `HEAD` modelled as maps from path to content source.
//!
//! In: the listings read from the repository ([`RepoView`]) and the staging actions. Out: the
//! predicted content of the last commit point ([`Outcome`]), and the comparisons the surface
//! needs (overlays against the snapshot's base, changed and deleted paths against `HEAD`).
//! No I/O besides asking whether a destination directory (`git mv`) or a worktree file (an
//! index entry rewritten under it) exists, and reading the objects of the revisions and patch
//! files the actions name (through `surface/revs.rs`).

mod replays;
mod revisions;

use std::collections::{BTreeMap, BTreeSet};

use super::view::{Pending, RepoView, Source, walk_both};
use super::{GrowsFrom, Lanes, Overlay, OverlaySource, Pathspecs, Replay, StagingAction, revs};

impl Pending {
    fn is_dir(&self) -> bool {
        matches!(self, Pending::NestedRepo)
    }
}

/// The result of simulating the actions.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The content of the predicted commit.
    pub content: BTreeMap<String, Source>,
    /// The lanes it draws from.
    pub lanes: Lanes,
    /// Why it is not exact.
    pub unverified: Vec<String>,
    /// `git commit --only` was used: the content derives from `HEAD`, not from the index.
    pub only: bool,
    /// Other listings the new commits grow from besides `HEAD` (the amended commit's parent,
    /// the target of `reset --soft`): their differences with the content are carried too.
    pub grows_from: Vec<BTreeMap<String, Source>>,
    /// Paths that replayed commits (rebase, cherry-pick, merge …) change, whether or not the
    /// final content differs from `HEAD` there.
    pub carried: BTreeSet<String>,
    /// Why what lands cannot be predicted at all (see `Surface::block`).
    pub block: Option<String>,
    /// The commit the new commit grows from when it is not `HEAD` (see `Surface::grows_from`).
    pub grows_from_commit: GrowsFrom,
}

/// The virtual repository the actions act on.
struct Model<'a> {
    view: &'a RepoView,
    index: BTreeMap<String, Source>,
    head: BTreeMap<String, Source>,
    pending: BTreeMap<String, Pending>,
    lanes: Lanes,
    unverified: Vec<String>,
    only: bool,
    repo: &'a gix::Repository,
    /// The commit `HEAD` points to while no commit of the chain has been made (`None` after one,
    /// or when unborn): what revisions relative to `HEAD` are measured from.
    head_id: Option<gix::ObjectId>,
    grows_from: Vec<BTreeMap<String, Source>>,
    carried: BTreeSet<String>,
    block: Option<String>,
    grows_from_commit: GrowsFrom,
    /// The branch `HEAD` is on (`None`: detached or unknown).
    branch: Option<String>,
    /// Branches this command commits on, with their content after its last commit there.
    committed: BTreeMap<String, BTreeMap<String, Source>>,
    /// Stashes made earlier in the command: the index and the pending changes they saved.
    stashes: Vec<(BTreeMap<String, Source>, BTreeMap<String, Pending>)>,
    /// Paths a commit of this command made that a later branch switch replaced: the branch
    /// switched to and the committed content.
    displaced: BTreeMap<String, (String, Option<Source>)>,
    /// Every path a commit of this command changed, with the content it committed.
    made: BTreeMap<String, Option<Source>>,
}

/// Runs `actions` against the repository view; a commit is implied after the last action.
pub(crate) fn simulate(repo: &gix::Repository, view: &RepoView, actions: &[StagingAction]) -> Outcome {
    if actions.iter().all(|a| matches!(a, StagingAction::Commit)) {
        // A plain `git commit`: the content is the index (the implied commit below, without the
        // model's copies of every listing — the largest cost of a one-file commit at 100k files).
        return Outcome {
            content: view.index.clone(),
            lanes: Lanes { staged: true, ..Lanes::default() },
            unverified: Vec::new(),
            only: false,
            grows_from: Vec::new(),
            carried: BTreeSet::new(),
            block: None,
            grows_from_commit: GrowsFrom::Head,
        };
    }
    let mut model = Model {
        view,
        index: view.index.clone(),
        head: view.head.clone(),
        pending: view.pending.clone(),
        lanes: Lanes { staged: true, ..Lanes::default() },
        unverified: Vec::new(),
        only: false,
        repo,
        head_id: view.observed.head,
        grows_from: Vec::new(),
        carried: BTreeSet::new(),
        block: None,
        grows_from_commit: GrowsFrom::Head,
        stashes: Vec::new(),
        branch: repo.head_name().ok().flatten().map(|n| n.shorten().to_string()),
        committed: BTreeMap::new(),
        displaced: BTreeMap::new(),
        made: BTreeMap::new(),
    };
    for action in actions {
        model.apply(action);
    }
    if !actions.last().is_some_and(StagingAction::is_commit) {
        model.commit();
    }
    if model.only {
        model.lanes.staged = false;
    }
    if model.block.is_none()
        && let Some((path, (rev, _))) =
            model.displaced.iter().find(|(path, (_, made))| model.head.get(*path) != made.as_ref())
    {
        model.block = Some(format!(
            "this call commits {path} and then switches to `{rev}`, which replaces it; the committed content cannot be checked with what follows: commit in one call, then switch in another"
        ));
    }
    Outcome {
        content: model.head,
        lanes: model.lanes,
        unverified: model.unverified,
        only: model.only,
        grows_from: model.grows_from,
        carried: model.carried,
        block: model.block,
        grows_from_commit: model.grows_from_commit,
    }
}

impl Model<'_> {
    fn apply(&mut self, action: &StagingAction) {
        match action {
            StagingAction::Add { specs, all, update, force } => self.add(specs, *all, *update, *force),
            StagingAction::Commit => self.commit(),
            StagingAction::CommitAll => {
                self.stage_matching(None, true, false);
                self.lanes.unstaged = true;
                self.commit();
            }
            StagingAction::CommitOnly(specs) => self.commit_only(specs),
            StagingAction::CommitInclude(specs) => {
                if let Some(mut matcher) = self.matcher(specs) {
                    self.stage_matching(Some(&mut matcher), true, false);
                }
                self.commit();
            }
            StagingAction::Rm { specs, cached } => self.rm(specs, *cached),
            StagingAction::Mv { cwd_rel, from, to } => self.mv(cwd_rel, from, to),
            StagingAction::Unverifiable(reason) => self.unverified.push(reason.clone()),
            StagingAction::IntentToAdd(specs) => self.intent_to_add(specs),
            StagingAction::CheckoutPaths { rev, specs, index, overlay } => {
                self.checkout_paths(rev.as_deref(), specs, *index, *overlay);
            }
            StagingAction::ResetIndex { rev, specs } => self.reset_index(rev, specs),
            StagingAction::Reset { rev, index, worktree } => self.reset(rev, *index, *worktree),
            StagingAction::Switch { rev } => self.switch(rev.as_deref()),
            StagingAction::Chmod { specs, executable } => self.chmod(specs, *executable),
            StagingAction::CacheInfo { path, id, mode } => self.cache_info(path, id, mode),
            StagingAction::Amend => self.amend(),
            StagingAction::StashPush { untracked, keep_index } => self.stash_push(*untracked, *keep_index),
            StagingAction::StashApply { index } => self.stash_apply(*index),
            StagingAction::Replay { replay, commit, text } => self.replay(replay, *commit, text),
        }
    }

    fn commit(&mut self) {
        self.made.extend(revs::diff(&self.head, &self.index));
        self.head = self.index.clone();
        self.head_id = None;
        if let Some(branch) = &self.branch {
            self.committed.insert(branch.clone(), self.head.clone());
        }
    }

    fn add(&mut self, specs: &Pathspecs, all: bool, update: bool, force: bool) {
        if specs.specs.is_empty() {
            if all || update {
                self.lanes.unstaged = true;
                self.lanes.untracked |= !update;
                self.stage_matching(None, update, force);
            }
            return;
        }
        let Some(mut matcher) = self.matcher(specs) else { return };
        if matcher.covers_everything() {
            self.lanes.unstaged = true;
            self.lanes.untracked |= !update;
        }
        self.stage_matching(Some(&mut matcher), update, force);
    }

    /// Stages the pending changes `matcher` selects (all of them without a matcher): tracked
    /// changes always, untracked files unless `tracked_only`, ignored files only when `force`.
    fn stage_matching(
        &mut self,
        mut matcher: Option<&mut crate::git::Matcher>,
        tracked_only: bool,
        force: bool,
    ) {
        let selected: Vec<String> = self
            .pending
            .iter()
            .filter(|(path, pending)| matcher.as_mut().is_none_or(|m| m.matches(path, pending.is_dir())))
            .map(|(path, _)| path.clone())
            .collect();
        for path in selected {
            self.stage(&path, tracked_only, force);
        }
    }

    fn stage(&mut self, path: &str, tracked_only: bool, force: bool) {
        let Some(pending) = self.pending.get(path) else { return };
        match pending {
            Pending::Modified { real } => {
                self.lanes.unstaged = true;
                let source = Source::Worktree { real: real.clone() };
                self.index.insert(path.to_owned(), source);
            }
            Pending::Deleted => {
                self.lanes.unstaged = true;
                self.index.remove(path);
            }
            Pending::Untracked { real } if !tracked_only => {
                self.lanes.untracked = true;
                let source = Source::Worktree { real: real.clone() };
                self.index.insert(path.to_owned(), source);
            }
            Pending::Ignored { real } if force && !tracked_only => {
                self.lanes.untracked = true;
                let source = Source::Worktree { real: real.clone() };
                self.index.insert(path.to_owned(), source);
            }
            Pending::NestedRepo if !tracked_only => {
                self.unverified.push(format!(
                    "`git add` would record the nested repository {path}/ as a gitlink; its content is not checked"
                ));
            }
            Pending::Blob { id, mode } => {
                self.lanes.unstaged = true;
                let source = Source::Object { id: *id, mode: *mode };
                self.index.insert(path.to_owned(), source);
            }
            Pending::Untracked { .. } | Pending::Ignored { .. } | Pending::NestedRepo => return,
        }
        self.pending.remove(path);
    }

    /// `git commit --only <paths>`: `HEAD` plus the worktree state of the matching tracked paths.
    fn commit_only(&mut self, specs: &Pathspecs) {
        let Some(mut matcher) = self.matcher(specs) else { return self.commit() };
        let tracked: Vec<String> = self.index.keys().filter(|p| matcher.matches(p, false)).cloned().collect();
        for path in tracked {
            let content = match self.pending.remove(&path) {
                Some(Pending::Modified { real }) => Some(Source::Worktree { real }),
                Some(Pending::Blob { id, mode }) => Some(Source::Object { id, mode }),
                Some(Pending::Deleted) => None,
                Some(other) => {
                    self.pending.insert(path.clone(), other);
                    self.index.get(&path).cloned()
                }
                None => self.index.get(&path).cloned(),
            };
            if let Some(source) = content.filter(|c| *c != Source::IntentToAdd) {
                self.index.insert(path.clone(), source.clone());
                self.head.insert(path, source);
            } else {
                self.index.remove(&path);
                self.head.remove(&path);
            }
        }
        self.lanes.unstaged = true;
        self.only = true;
    }

    fn rm(&mut self, specs: &Pathspecs, cached: bool) {
        let Some(mut matcher) = self.matcher(specs) else { return };
        let tracked: Vec<String> = self.index.keys().filter(|p| matcher.matches(p, false)).cloned().collect();
        for path in tracked {
            self.index.remove(&path);
            let left_on_disk = match self.pending.remove(&path) {
                Some(Pending::Deleted) => None,
                Some(
                    Pending::Modified { real } | Pending::Untracked { real } | Pending::Ignored { real },
                ) => Some(real),
                Some(Pending::NestedRepo | Pending::Blob { .. }) | None => Some(path.clone()),
            };
            if let (true, Some(real)) = (cached, left_on_disk) {
                self.pending.insert(path, Pending::Untracked { real });
            }
        }
    }

    fn mv(&mut self, cwd_rel: &str, from: &str, to: &str) {
        let (Some(from), Some(to)) = (join_rel(cwd_rel, from), join_rel(cwd_rel, to)) else {
            self.unverified.push(format!("`git mv {from} {to}` leaves the repository"));
            return;
        };
        let moved: Vec<String> = self.index.keys().filter(|k| is_at_or_under(k, &from)).cloned().collect();
        if moved.is_empty() {
            self.unverified.push(format!("`git mv {from} {to}`: {from} is not tracked"));
            return;
        }
        let dest = if self.is_directory(&to) {
            let name = from.rsplit('/').next().unwrap_or(&from);
            format!("{to}/{name}")
        } else {
            to
        };
        for key in moved {
            let renamed = format!("{dest}{}", &key[from.len()..]);
            if let Some(source) = self.index.remove(&key) {
                self.index.insert(renamed, source);
            }
        }
        let pending: Vec<String> =
            self.pending.keys().filter(|k| is_at_or_under(k, &from)).cloned().collect();
        for key in pending {
            let renamed = format!("{dest}{}", &key[from.len()..]);
            if let Some(p) = self.pending.remove(&key) {
                self.pending.insert(renamed, p);
            }
        }
    }

    /// Whether a file (or symlink) exists at a repo-relative worktree path.
    fn on_disk(&self, path: &str) -> bool {
        self.view.workdir.join(path).symlink_metadata().is_ok()
    }

    /// Sets (or removes) one index entry. With `worktree`, the worktree file is written the same
    /// way (nothing stays to stage); else what the worktree now differs by becomes pending.
    fn put(&mut self, path: &str, source: Option<Source>, worktree: bool) {
        let tracked = source.is_some();
        match source {
            Some(s) => self.index.insert(path.to_owned(), s),
            None => self.index.remove(path),
        };
        if worktree {
            self.pending.remove(path);
            return;
        }
        if matches!(self.pending.get(path), Some(Pending::Blob { .. })) {
            return;
        }
        let real = path.to_owned();
        match (self.on_disk(path), tracked) {
            (true, true) => self.pending.insert(real.clone(), Pending::Modified { real }),
            (true, false) => self.pending.insert(real.clone(), Pending::Untracked { real }),
            (false, true) => self.pending.insert(real, Pending::Deleted),
            (false, false) => self.pending.remove(path),
        };
    }

    fn intent_to_add(&mut self, specs: &Pathspecs) {
        let Some(mut matcher) = self.matcher(specs) else { return };
        let untracked: Vec<(String, String)> = self
            .pending
            .iter()
            .filter(|(p, pending)| matches!(pending, Pending::Untracked { .. }) && matcher.matches(p, false))
            .filter_map(|(p, pending)| match pending {
                Pending::Untracked { real } => Some((p.clone(), real.clone())),
                _ => None,
            })
            .collect();
        for (path, real) in untracked {
            self.index.insert(path.clone(), Source::IntentToAdd);
            self.pending.insert(path, Pending::Modified { real });
        }
    }

    fn chmod(&mut self, specs: &Pathspecs, executable: bool) {
        let Some(mut matcher) = self.matcher(specs) else { return };
        let mode =
            if executable { gix::index::entry::Mode::FILE_EXECUTABLE } else { gix::index::entry::Mode::FILE };
        for (path, source) in &mut self.index {
            if let Source::Object { mode: m, .. } = source
                && matcher.matches(path, false)
                && (*m == gix::index::entry::Mode::FILE || *m == gix::index::entry::Mode::FILE_EXECUTABLE)
            {
                *m = mode;
            }
        }
    }

    fn cache_info(&mut self, path: &str, id: &str, mode: &str) {
        let parsed = gix::ObjectId::from_hex(id.as_bytes()).ok().zip(match mode {
            "100644" => Some(gix::index::entry::Mode::FILE),
            "100755" => Some(gix::index::entry::Mode::FILE_EXECUTABLE),
            "120000" => Some(gix::index::entry::Mode::SYMLINK),
            _ => None,
        });
        match parsed {
            Some((id, mode)) if self.repo.find_object(id).is_ok() => {
                let kept = self.pending.remove(path);
                self.index.insert(path.to_owned(), Source::Object { id, mode });
                if kept.is_some() || self.on_disk(path) {
                    self.pending.insert(path.to_owned(), Pending::Modified { real: path.to_owned() });
                }
            }
            Some(_) | None => {
                self.unverified.push(format!(
                    "`git update-index --cacheinfo {mode},{id},{path}` names a blob codeguard cannot read"
                ));
                self.carried.insert(path.to_owned());
            }
        }
    }

    fn is_directory(&self, path: &str) -> bool {
        let prefix = format!("{path}/");
        self.index.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix))
            || self.view.workdir.join(path).is_dir()
    }

    /// The compiled pathspecs; `None` when there are none or they cannot be interpreted.
    fn matcher(&mut self, specs: &Pathspecs) -> Option<crate::git::Matcher> {
        if specs.specs.is_empty() {
            return None;
        }
        match specs.matcher(&self.view.workdir) {
            Ok(m) => Some(m),
            Err(reason) => {
                self.unverified.push(reason);
                None
            }
        }
    }
}

/// The repo-relative paths one line of a patch names (`diff --git a/X b/Y`, `+++ b/Y`, `--- a/X`).
fn patch_paths(line: &str) -> Vec<String> {
    let strip = |p: &str| p.strip_prefix("a/").or_else(|| p.strip_prefix("b/")).map(str::to_owned);
    if let Some(rest) = line.strip_prefix("diff --git ") {
        return rest.split(' ').filter_map(strip).collect();
    }
    line.strip_prefix("+++ ")
        .or_else(|| line.strip_prefix("--- "))
        .and_then(|p| strip(p.trim_end()))
        .into_iter()
        .collect()
}

/// `cwd_rel/path`, normalised; `None` when it leaves the repository.
fn join_rel(cwd_rel: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let joined = if path.starts_with('/') { path.to_owned() } else { format!("{cwd_rel}/{path}") };
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

fn is_at_or_under(path: &str, dir: &str) -> bool {
    path == dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `path` has committed content in `content` (intent-to-add is not content).
pub(crate) fn present(content: &BTreeMap<String, Source>, path: &str) -> bool {
    content.get(path).is_some_and(|s| *s != Source::IntentToAdd)
}

/// The overlays that turn `base` into `content`; unresolved conflicts that `base` cannot show
/// become unverified reasons.
pub(crate) fn overlays(
    base: &BTreeMap<String, Source>,
    content: &BTreeMap<String, Source>,
    unverified: &mut Vec<String>,
) -> Vec<Overlay> {
    let mut out = Vec::new();
    walk_both(base, content, |path, in_base, source| {
        let wanted = match source {
            None => Some(OverlaySource::Absent),
            Some(Source::Worktree { real }) => Some(OverlaySource::Worktree { from: real.clone() }),
            Some(source @ Source::Object { id, mode }) if in_base != Some(source) => {
                Some(OverlaySource::Blob { id: *id, mode: *mode })
            }
            Some(Source::IntentToAdd) if in_base.is_some_and(|b| *b != Source::IntentToAdd) => {
                Some(OverlaySource::Absent)
            }
            Some(source @ Source::Conflicted) if in_base != Some(source) => {
                unverified.push(format!("{path} has an unresolved merge conflict"));
                Some(OverlaySource::Absent)
            }
            Some(Source::Object { .. } | Source::IntentToAdd | Source::Conflicted) => None,
        };
        if let Some(source) = wanted {
            out.push(Overlay { path: path.clone(), source });
        }
    });
    out
}

/// Paths `content` changes compared with `head` (present ones) and paths it deletes.
pub(crate) fn changes(
    head: &BTreeMap<String, Source>,
    content: &BTreeMap<String, Source>,
) -> (Vec<String>, Vec<String>) {
    let (mut changed, mut deleted) = (Vec::new(), Vec::new());
    walk_both(head, content, |path, in_head, source| {
        let Some(source) = source else {
            deleted.push(path.clone());
            return;
        };
        let differs = match source {
            Source::Worktree { .. } | Source::Conflicted => true,
            Source::Object { .. } => in_head != Some(source),
            Source::IntentToAdd => false,
        };
        if differs {
            changed.push(path.clone());
        }
        if in_head.is_some() && *source == Source::IntentToAdd {
            deleted.push(path.clone());
        }
    });
    (changed, deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_rel_normalises_and_refuses_to_leave_the_repo() {
        assert_eq!(join_rel("", "a/b").as_deref(), Some("a/b"));
        assert_eq!(join_rel("src", "../x").as_deref(), Some("x"));
        assert_eq!(join_rel("src", "./y/").as_deref(), Some("src/y"));
        assert_eq!(join_rel("", "../x"), None);
        assert_eq!(join_rel("src", ".."), None);
    }

    #[test]
    fn at_or_under_respects_component_boundaries() {
        assert!(is_at_or_under("a/b", "a"));
        assert!(is_at_or_under("a", "a"));
        assert!(!is_at_or_under("ab", "a"));
    }

    #[test]
    fn overlays_and_changes_agree_on_a_small_example() {
        let id = gix::ObjectId::empty_blob(gix::hash::Kind::Sha1);
        let obj = Source::Object { id, mode: gix::index::entry::Mode::FILE };
        let head: BTreeMap<_, _> = [("a".to_owned(), obj.clone()), ("gone".to_owned(), obj.clone())].into();
        let content: BTreeMap<_, _> =
            [("a".to_owned(), obj), ("new".to_owned(), Source::Worktree { real: "new".into() })].into();
        let mut unverified = Vec::new();
        let o = overlays(&head, &content, &mut unverified);
        assert_eq!(
            o,
            vec![
                Overlay { path: "gone".into(), source: OverlaySource::Absent },
                Overlay { path: "new".into(), source: OverlaySource::Worktree { from: "new".into() } },
            ]
        );
        assert_eq!(changes(&head, &content), (vec!["new".to_owned()], vec!["gone".to_owned()]));
        assert!(unverified.is_empty());
    }
}
