//! Staging actions that take content from revisions rather than the worktree: `checkout`/
//! `restore` of paths, `reset` (of paths or of `HEAD`), `switch`, and `stash` push and apply.

use std::collections::{BTreeMap, BTreeSet};

use super::{GrowsFrom, Model, Pathspecs, Pending, Source, revs};

impl Model<'_> {
    /// The listing of a revision, or an unverified reason naming it.
    pub(super) fn rev_listing(
        &mut self,
        rev: &str,
        text: &str,
    ) -> Option<(gix::ObjectId, BTreeMap<String, Source>)> {
        let found = self.resolve(rev).and_then(|id| revs::listing(self.repo, id).map(|l| (id, l)));
        if found.is_none() {
            self.unverified.push(format!("`{text}`: `{rev}` cannot be resolved to a commit here"));
        }
        found
    }

    /// A revision relative to the real repository; `HEAD` forms only while no commit of the
    /// chain moved `HEAD` (after one they name a commit that does not exist yet).
    pub(super) fn resolve(&self, rev: &str) -> Option<gix::ObjectId> {
        let relative_to_head = rev.starts_with("HEAD") || rev.starts_with('@') || rev.is_empty();
        if relative_to_head && self.head_id != self.view.observed.head {
            let head = self.head_id?;
            let steps = rev.trim_start_matches("HEAD").trim_start_matches('@');
            return revs::resolve(self.repo, &format!("{head}{steps}"));
        }
        revs::resolve(self.repo, rev)
    }

    pub(super) fn checkout_paths(
        &mut self,
        rev: Option<&str>,
        specs: &Pathspecs,
        index: bool,
        overlay: bool,
    ) {
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

    pub(super) fn reset_index(&mut self, rev: &str, specs: &Pathspecs) {
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

    pub(super) fn reset(&mut self, rev: &str, index: bool, worktree: bool) {
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

    pub(super) fn switch(&mut self, rev: Option<&str>) {
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

    pub(super) fn stash_push(&mut self, untracked: bool, keep_index: bool) {
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

    pub(super) fn stash_apply(&mut self, with_index: bool) {
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
}
