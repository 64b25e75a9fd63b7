//! The staging simulation: git's index and `HEAD` modelled as maps from path to content source.
//!
//! In: the listings read from the repository ([`RepoView`]) and the staging actions. Out: the
//! predicted content of the last commit point ([`Outcome`]), and the comparisons the surface
//! needs (overlays against the snapshot's base, changed and deleted paths against `HEAD`).
//! No I/O besides asking whether a destination directory (`git mv`) or a worktree file (an
//! index entry rewritten under it) exists, and reading the objects of the revisions and patch
//! files the actions name (through `surface/revs.rs`).

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
    fn stage_matching(&mut self, mut matcher: Option<&mut Matcher>, tracked_only: bool, force: bool) {
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

    /// The listing of a revision, or an unverified reason naming it.
    fn rev_listing(&mut self, rev: &str, text: &str) -> Option<(gix::ObjectId, BTreeMap<String, Source>)> {
        let found = self.resolve(rev).and_then(|id| revs::listing(self.repo, id).map(|l| (id, l)));
        if found.is_none() {
            self.unverified.push(format!("`{text}`: `{rev}` cannot be resolved to a commit here"));
        }
        found
    }

    /// A revision relative to the real repository; `HEAD` forms only while no commit of the
    /// chain moved `HEAD` (after one they name a commit that does not exist yet).
    fn resolve(&self, rev: &str) -> Option<gix::ObjectId> {
        let relative_to_head = rev.starts_with("HEAD") || rev.starts_with('@') || rev.is_empty();
        if relative_to_head && self.head_id != self.view.observed.head {
            let head = self.head_id?;
            let steps = rev.trim_start_matches("HEAD").trim_start_matches('@');
            return revs::resolve(self.repo, &format!("{head}{steps}"));
        }
        revs::resolve(self.repo, rev)
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

    fn checkout_paths(&mut self, rev: Option<&str>, specs: &Pathspecs, index: bool, overlay: bool) {
        let text = format!("git checkout {} -- {}", rev.unwrap_or(""), specs.specs.join(" "));
        let Some(mut matcher) = self.matcher(specs) else { return };
        let Some(rev) = rev else {
            // From the index to the worktree: what was pending there is gone.
            let paths: Vec<String> =
                self.pending.keys().filter(|p| matcher.matches(p, false)).cloned().collect();
            for path in paths {
                if !matches!(
                    self.pending.get(&path),
                    Some(Pending::Untracked { .. } | Pending::Ignored { .. })
                ) {
                    self.pending.remove(&path);
                }
            }
            return;
        };
        let Some((_, listing)) = self.rev_listing(rev, &text) else { return };
        // Tracked paths the revision lacks: `git restore` removes them (no overlay); `git
        // checkout` keeps them.
        let missing: Vec<String> = if overlay {
            Vec::new()
        } else {
            self.index
                .keys()
                .filter(|p| !listing.contains_key(*p) && matcher.matches(p, false))
                .cloned()
                .collect()
        };
        for path in missing {
            if index {
                self.put(&path, None, true);
            } else {
                self.pending.insert(path, Pending::Deleted);
            }
        }
        for (path, source) in listing.into_iter().filter(|(p, _)| matcher.matches(p, false)) {
            if index {
                self.put(&path, Some(source), true);
            } else if let Source::Object { id, mode } = source {
                self.pending.insert(path, Pending::Blob { id, mode });
            }
        }
    }

    fn reset_index(&mut self, rev: &str, specs: &Pathspecs) {
        let text = format!("git reset {rev} -- {}", specs.specs.join(" "));
        let Some((_, listing)) = self.rev_listing(rev, &text) else { return };
        let mut matcher = if specs.specs.is_empty() { None } else { self.matcher(specs) };
        if !specs.specs.is_empty() && matcher.is_none() {
            return;
        }
        let mut selected = |p: &str| matcher.as_mut().is_none_or(|m| m.matches(p, false));
        let paths: BTreeSet<String> =
            listing.keys().chain(self.index.keys()).filter(|p| selected(p)).cloned().collect();
        for path in paths {
            let source = listing.get(&path).cloned();
            if self.index.get(&path) != source.as_ref() {
                self.put(&path, source, false);
            }
        }
    }

    fn reset(&mut self, rev: &str, index: bool, worktree: bool) {
        let Some((id, listing)) = self.rev_listing(rev, &format!("git reset {rev}")) else { return };
        if worktree {
            let paths: BTreeSet<String> = listing.keys().chain(self.index.keys()).cloned().collect();
            for path in paths {
                self.put(&path, listing.get(&path).cloned(), true);
            }
        } else if index {
            self.reset_index(rev, &Pathspecs::default());
        }
        self.grows_from.push(listing.clone());
        self.grows_from_commit = GrowsFrom::Commit(id);
        self.head = listing;
        self.head_id = Some(id);
    }

    fn switch(&mut self, rev: Option<&str>) {
        let Some(rev) = rev else {
            self.grows_from.push(BTreeMap::new());
            self.grows_from_commit = GrowsFrom::Nothing;
            self.head = BTreeMap::new();
            self.head_id = None;
            return;
        };
        let is_branch =
            self.repo.try_find_reference(format!("refs/heads/{rev}").as_str()).ok().flatten().is_some();
        self.branch = is_branch.then(|| rev.to_owned());
        let Some((id, listing)) = self.rev_listing(rev, &format!("git checkout {rev}")) else { return };
        // Content committed here that the switch replaces: unless a later step brings it back
        // (a merge of that branch), one snapshot cannot check it with what follows.
        for (path, made) in &self.made {
            if listing.get(path) != made.as_ref() && self.index.get(path) == self.head.get(path) {
                self.displaced.entry(path.clone()).or_insert_with(|| (rev.to_owned(), made.clone()));
            }
        }
        for (path, source) in revs::diff(&self.head, &listing) {
            if self.index.get(&path) == self.head.get(&path) {
                self.put(&path, source, true);
            }
        }
        self.grows_from.push(listing.clone());
        self.grows_from_commit = GrowsFrom::Commit(id);
        self.head = listing;
        self.head_id = Some(id);
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

    fn stash_push(&mut self, untracked: bool, keep_index: bool) {
        let saved_pending: BTreeMap<String, Pending> = self
            .pending
            .iter()
            .filter(|(_, p)| untracked || !matches!(p, Pending::Untracked { .. }))
            .filter(|(_, p)| !matches!(p, Pending::Ignored { .. } | Pending::NestedRepo))
            .map(|(k, p)| (k.clone(), p.clone()))
            .collect();
        if saved_pending.is_empty() && self.index == self.head {
            return; // "No local changes to save": nothing is stashed
        }
        self.stashes.push((self.index.clone(), saved_pending.clone()));
        for path in saved_pending.keys() {
            self.pending.remove(path);
        }
        if keep_index {
            // The worktree becomes the index: what was staged is still staged.
            return;
        }
        self.index = self.head.clone();
    }

    fn stash_apply(&mut self, with_index: bool) {
        if let Some((index, pending)) = self.stashes.pop() {
            // A stash of this command: its worktree changes come back as they were; staged
            // content comes back as worktree content (staged again only with `--index`, or
            // when the file is new).
            for (path, source) in &index {
                if self.head.get(path) == Some(source) {
                    continue;
                }
                if with_index || !self.head.contains_key(path) {
                    self.index.insert(path.clone(), source.clone());
                } else if let (Source::Object { id, mode }, false) = (source, pending.contains_key(path)) {
                    self.pending.insert(path.clone(), Pending::Blob { id: *id, mode: *mode });
                }
            }
            for path in self.head.keys().filter(|p| !index.contains_key(*p)).cloned().collect::<Vec<_>>() {
                if with_index {
                    self.index.remove(&path);
                }
                self.pending.entry(path).or_insert(Pending::Deleted);
            }
            self.pending.extend(pending);
            return;
        }
        let text = "git stash pop";
        let Some(stash) = revs::resolve(self.repo, "refs/stash") else {
            self.unverified.push(format!("`{text}`: there is no stash to apply"));
            return;
        };
        let parents = revs::parents(self.repo, stash).unwrap_or_default();
        let listing = |id: Option<&gix::ObjectId>| id.and_then(|c| revs::listing(self.repo, *c));
        let (Some(base), Some(worktree)) = (listing(parents.first()), revs::listing(self.repo, stash)) else {
            self.unverified.push(format!("`{text}`: the stash cannot be read"));
            return;
        };
        let staged = listing(parents.get(1)).unwrap_or_else(|| base.clone());
        let untracked = listing(parents.get(2)).unwrap_or_default();
        if with_index {
            for (path, to) in revs::diff(&base, &staged) {
                self.put(&path, to, true);
            }
        }
        for (path, to) in revs::diff(&base, &worktree) {
            match to {
                Some(source) if !base.contains_key(&path) => self.put(&path, Some(source), true),
                Some(Source::Object { id, mode }) => {
                    self.pending.insert(path, Pending::Blob { id, mode });
                }
                Some(_) => {}
                None => {
                    self.pending.insert(path, Pending::Deleted);
                }
            }
        }
        for (path, source) in untracked {
            if let Source::Object { id, mode } = source {
                self.pending.insert(path, Pending::Blob { id, mode });
            }
        }
    }

    /// `--amend`: the new commit replaces `HEAD`, so what `HEAD` changed against its first
    /// parent lands again (when `HEAD` is still the repository's; after a commit of the same
    /// chain, that commit's changes are already measured against the real `HEAD`).
    fn amend(&mut self) {
        let Some(head) = self.head_id.filter(|_| self.head_id == self.view.observed.head) else { return };
        let parent = revs::parents(self.repo, head).and_then(|p| p.first().copied());
        let listing = match parent {
            Some(parent) => revs::listing(self.repo, parent),
            None => Some(BTreeMap::new()),
        };
        match listing {
            Some(listing) => {
                self.grows_from.push(listing);
                self.grows_from_commit = parent.map_or(GrowsFrom::Nothing, GrowsFrom::Commit);
            }
            None => self.unverified.push("the amended commit's parent cannot be read".to_owned()),
        }
    }

    fn replay(&mut self, replay: &Replay, commit: bool, text: &str) {
        match replay {
            Replay::Merge(revs) => {
                for rev in revs {
                    self.merge(rev, text);
                }
            }
            Replay::Pick(revs) | Replay::Revert(revs) => {
                let reverse = matches!(replay, Replay::Revert(_));
                for rev in revs {
                    self.pick(rev, reverse, text);
                    if commit {
                        self.commit();
                    }
                }
                return;
            }
            Replay::Rebase { upstream, onto } => {
                self.rebase(upstream.as_deref(), onto.as_deref(), text);
                return;
            }
            Replay::Patches(files) => self.patches(files, commit, text),
            Replay::CommitTree => self.unverified.push(format!(
                "`{text}` writes a commit object from a tree: predicted as the index; what lands depends on the ref later moved to it"
            )),
        }
        if commit {
            self.commit();
        }
    }

    /// Applies one change to the index and the worktree, noting a path both sides changed.
    fn apply_change(&mut self, path: &str, from: Option<&Source>, to: Option<Source>, text: &str) {
        if self.index.get(path) != from && self.index.get(path) != to.as_ref() {
            self.unverified.push(format!(
                "`{text}`: {path} changed on both sides; the merged content is predicted from the incoming side"
            ));
        }
        self.carried.insert(path.to_owned());
        self.put(path, to, true);
    }

    fn merge(&mut self, rev: &str, text: &str) {
        let Some(head) = self.head_id else {
            self.unverified.push(format!("`{text}` merges into a commit this command makes first"));
            return;
        };
        let Some((tip, mut theirs)) = self.rev_listing(rev, text) else { return };
        // A branch this command committed on carries those commits too.
        if let Some(listing) = self.committed.get(rev.trim_start_matches("refs/heads/")) {
            let made: Vec<String> = revs::diff(&theirs, listing).into_iter().map(|(p, _)| p).collect();
            self.carried.extend(made);
            theirs = listing.clone();
        }
        let base = revs::merge_base(self.repo, head, tip);
        let base_listing = match base {
            Some(b) => revs::listing(self.repo, b).unwrap_or_default(),
            None => BTreeMap::new(),
        };
        if let Some(paths) = revs::changed_by_commits(self.repo, tip, &[head]) {
            self.carried.extend(paths);
        }
        for (path, to) in revs::diff(&base_listing, &theirs) {
            let from = base_listing.get(&path).cloned();
            self.apply_change(&path, from.as_ref(), to, text);
        }
    }

    fn pick(&mut self, rev: &str, reverse: bool, text: &str) {
        if let Some((from, to)) = rev.split_once("..") {
            let (Some(from_id), Some(to_id)) = (self.resolve(from.trim_start_matches('.')), self.resolve(to))
            else {
                self.unverified.push(format!("`{text}`: `{rev}` cannot be resolved here"));
                return;
            };
            if let Some(paths) = revs::changed_by_commits(self.repo, to_id, &[from_id]) {
                self.carried.extend(paths);
            }
            let (Some(a), Some(b)) = (revs::listing(self.repo, from_id), revs::listing(self.repo, to_id))
            else {
                return;
            };
            let (a, b) = if reverse { (b, a) } else { (a, b) };
            for (path, to) in revs::diff(&a, &b) {
                let from = a.get(&path).cloned();
                self.apply_change(&path, from.as_ref(), to, text);
            }
            return;
        }
        if let Some(made) = self.committed.get(rev.trim_start_matches("refs/heads/")).cloned() {
            // The branch's tip is a commit this command makes: picking it applies that commit
            // (measured from the tip before this command, a superset when it made several).
            let Some((_, before)) = self.rev_listing(rev, text) else { return };
            let (a, b) = if reverse { (made, before) } else { (before, made) };
            for (path, to) in revs::diff(&a, &b) {
                let from = a.get(&path).cloned();
                self.apply_change(&path, from.as_ref(), to, text);
            }
            return;
        }
        let Some((id, after)) = self.rev_listing(rev, text) else { return };
        let before = match revs::parents(self.repo, id).and_then(|p| p.first().copied()) {
            Some(parent) => revs::listing(self.repo, parent).unwrap_or_default(),
            None => BTreeMap::new(),
        };
        let (a, b) = if reverse { (after, before) } else { (before, after) };
        for (path, to) in revs::diff(&a, &b) {
            let from = a.get(&path).cloned();
            self.apply_change(&path, from.as_ref(), to, text);
        }
    }

    fn rebase(&mut self, upstream: Option<&str>, onto: Option<&str>, text: &str) {
        let Some(head) = self.head_id else {
            self.unverified.push(format!("`{text}` rebases a commit this command makes first"));
            return;
        };
        let upstream = upstream.unwrap_or("@{upstream}");
        let Some((up, _)) = self.rev_listing(upstream, text) else { return };
        let onto_rev = onto.unwrap_or(upstream);
        let Some((onto_id, onto_listing)) = self.rev_listing(onto_rev, text) else { return };
        self.grows_from_commit = GrowsFrom::Commit(onto_id);
        if let Some(paths) = revs::changed_by_commits(self.repo, head, &[up]) {
            self.carried.extend(paths);
        }
        let base = revs::merge_base(self.repo, head, up)
            .and_then(|b| revs::listing(self.repo, b))
            .unwrap_or_default();
        let ours = self.head.clone();
        let mut result = onto_listing.clone();
        for (path, to) in revs::diff(&base, &ours) {
            match to {
                Some(s) => result.insert(path, s),
                None => result.remove(&path),
            };
        }
        self.grows_from.push(onto_listing);
        for (path, source) in revs::diff(&self.index, &result) {
            self.put(&path, source, true);
        }
        self.commit();
    }

    /// Patch files: the paths their `diff --git` headers name are carried; their new content is
    /// only known once they apply.
    fn patches(&mut self, files: &[std::path::PathBuf], commits: bool, text: &str) {
        // `git am` makes its own commits from a mail (replayed content, checked again on push);
        // `git apply --index` stages content a later plain commit takes: unknown paths block.
        let unknown = |model: &mut Self, why: String| {
            if commits {
                model.unverified.push(why);
            } else if model.block.is_none() {
                model.block = Some(format!(
                    "{why}; apply it in a separate call first, then commit (the staged result is then checked)"
                ));
            }
        };
        if files.is_empty() {
            unknown(self, format!("`{text}` reads a patch from stdin: the paths it touches are not known"));
            return;
        }
        self.unverified.push(format!(
            "`{text}` applies patches: the paths they touch are checked with their current content, not the patched one"
        ));
        for file in files {
            let body = std::fs::metadata(file)
                .ok()
                .filter(|m| m.is_file() && m.len() <= crate::intent::MAX_SCRIPT_BYTES)
                .and_then(|_| std::fs::read(file).ok());
            let Some(body) = body else {
                unknown(
                    self,
                    format!("`{text}`: the patch {} cannot be read before it runs", file.display()),
                );
                continue;
            };
            for line in String::from_utf8_lossy(&body).lines() {
                for name in patch_paths(line) {
                    self.carried.insert(name);
                }
            }
        }
    }

    fn is_directory(&self, path: &str) -> bool {
        let prefix = format!("{path}/");
        self.index.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix))
            || self.view.workdir.join(path).is_dir()
    }

    /// The compiled pathspecs; `None` when there are none or they cannot be interpreted.
    fn matcher(&mut self, specs: &Pathspecs) -> Option<Matcher> {
        if specs.specs.is_empty() {
            return None;
        }
        match Matcher::new(specs, &self.view.workdir) {
            Ok(m) => Some(m),
            Err(reason) => {
                self.unverified.push(reason);
                None
            }
        }
    }
}

/// A compiled set of pathspecs.
pub(crate) struct Matcher {
    search: gix::pathspec::Search,
}

impl Matcher {
    /// Parses `specs` relative to their working directory; an error is an unverified reason.
    pub(crate) fn new(specs: &Pathspecs, workdir: &std::path::Path) -> Result<Self, String> {
        let defaults = gix::pathspec::Defaults {
            signature: gix::pathspec::MagicSignature::empty(),
            search_mode: if specs.literal {
                gix::pathspec::SearchMode::Literal
            } else {
                gix::pathspec::SearchMode::ShellGlob
            },
            literal: specs.literal,
        };
        let prefix = std::path::Path::new(specs.cwd_rel.trim_matches('/'));
        let patterns = specs
            .specs
            .iter()
            .map(|s| normalised(s, defaults, prefix, workdir).map_err(|e| bad_spec(s, &e)))
            .collect::<Result<Vec<_>, _>>()?;
        let search = gix::pathspec::Search::from_specs(patterns, None, workdir)
            .map_err(|e| bad_spec(&specs.specs.join(" "), &e))?;
        Ok(Self { search })
    }

    /// Whether `path` (repo-relative) is selected and not excluded.
    pub(crate) fn matches(&mut self, path: &str, is_dir: bool) -> bool {
        let no_attributes = &mut |_: &gix::bstr::BStr, _, _, _: &mut _| false;
        self.search
            .pattern_matching_relative_path(path.into(), Some(is_dir), no_attributes)
            .is_some_and(|m| !m.is_excluded())
    }

    /// Whether the pathspecs select the whole tree (`.` at the root, `:/`).
    fn covers_everything(&self) -> bool {
        self.search.patterns().all(|p| !p.is_excluded() && p.path().is_empty())
    }
}

/// Parses one pathspec and makes it relative to the root. A pathspec naming the root itself
/// (`.` at the root, `sub/..`) becomes `:/`, which gix's search matches everything with.
fn normalised(
    spec: &str,
    defaults: gix::pathspec::Defaults,
    prefix: &std::path::Path,
    workdir: &std::path::Path,
) -> Result<gix::pathspec::Pattern, gix::Error> {
    let mut pattern = gix::pathspec::parse(spec.as_bytes(), defaults)?;
    pattern.normalize(prefix, workdir)?;
    if pattern.path() == "." {
        let top = if pattern.is_excluded() { ":(top,exclude)" } else { ":/" };
        pattern = gix::pathspec::parse(top.as_bytes(), defaults)?;
    }
    Ok(pattern)
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

fn bad_spec(spec: &str, error: &dyn std::fmt::Display) -> String {
    format!("cannot interpret pathspec `{spec}`: {error}")
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
