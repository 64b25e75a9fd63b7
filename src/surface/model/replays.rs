//! Commits and staged changes replayed from content committed elsewhere: `--amend`, merge,
//! cherry-pick, revert, rebase, and patches (`am`, `apply --index`).

use std::collections::BTreeMap;

use super::{GrowsFrom, Model, Replay, Source, patch_paths, revs};

impl Model<'_> {
    /// `--amend`: the new commit replaces `HEAD`, so what `HEAD` changed against its first
    /// parent lands again (when `HEAD` is still the repository's; after a commit of the same
    /// chain, that commit's changes are already measured against the real `HEAD`).
    pub(super) fn amend(&mut self) {
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

    pub(super) fn replay(&mut self, replay: &Replay, commit: bool, text: &str) {
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
    pub(super) fn apply_change(&mut self, path: &str, from: Option<&Source>, to: Option<Source>, text: &str) {
        if self.index.get(path) != from && self.index.get(path) != to.as_ref() {
            self.unverified.push(format!(
                "`{text}`: {path} changed on both sides; the merged content is predicted from the incoming side"
            ));
        }
        self.carried.insert(path.to_owned());
        self.put(path, to, true);
    }

    pub(super) fn merge(&mut self, rev: &str, text: &str) {
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

    pub(super) fn pick(&mut self, rev: &str, reverse: bool, text: &str) {
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

    pub(super) fn rebase(&mut self, upstream: Option<&str>, onto: Option<&str>, text: &str) {
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
    pub(super) fn patches(&mut self, files: &[std::path::PathBuf], commits: bool, text: &str) {
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
}
