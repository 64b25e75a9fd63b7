//! Binding git operations to repositories: the directory each runs in (`cd`, `-C`, `GIT_DIR`,
//! `GIT_WORK_TREE`, `GIT_INDEX_FILE`), the repository there, the monorepo fallback for what has
//! no place, and the notes that make a repository unverified.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{
    BoundOp, BoundWrite, BypassKind, ChainSkip, DirPart, Event, GitCall, GitOp, Mode, NoRepository, Opaque,
    Repo, RepoIntent, Resolver, Severity, Unlocated, bash, bypass_for, child_repos, discover, normalise,
    push_unique,
};

impl Resolver {
    /// The absolute directory `parts` lead to from `base`.
    pub(super) fn locate(&mut self, base: &Path, parts: &[DirPart]) -> Result<PathBuf, Unlocated> {
        let mut dir = base.to_path_buf();
        for part in parts {
            match part {
                DirPart::Path(p) => dir = normalise(&dir.join(p)),
                DirPart::Toplevel => match self.repo(&dir) {
                    Ok(repo) => dir = repo.root,
                    Err(why) => return Err(Unlocated::Toplevel { dir, why }),
                },
                DirPart::Unknown(what) => return Err(Unlocated::Unknown(what.clone())),
                DirPart::Home(rest) => {
                    let shown = if rest.is_empty() { "~".to_owned() } else { format!("~/{rest}") };
                    return Err(Unlocated::Unknown(format!("`{shown}` (home directory)")));
                }
            }
        }
        Ok(dir)
    }

    /// Discovers (and caches) the repository containing `dir`.
    pub(super) fn repo(&mut self, dir: &Path) -> Result<Repo, NoRepository> {
        if let Some(found) = self.repos.get(dir) {
            return found.clone();
        }
        let found = discover(dir);
        self.repos.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// Binds every event to a repository and fills in the intent.
    pub(super) fn bind(&mut self, parse_error: Option<&str>) {
        let events = std::mem::take(&mut self.events);
        let mut chains: HashMap<PathBuf, ChainSkip> = HashMap::new();
        let mut unbound: Vec<(GitCall, bool)> = Vec::new();
        for event in events {
            match event {
                Event::Git { call, base, indirect } => {
                    self.bind_call(call, &base, indirect, &mut chains, &mut unbound);
                }
                Event::Write { write, base } => self.bind_write(&write, &base),
                Event::Opaque { opaque, base } => self.bind_opaque(&opaque, &base),
            }
        }
        self.fallback(&unbound);
        for repo in &mut self.intent.repos {
            for (root, env_kept) in &self.opaque_roots {
                if *root == repo.root {
                    repo.opaque = true;
                    repo.opaque_env |= !env_kept;
                }
            }
        }
        self.finish(parse_error);
    }

    pub(super) fn bind_call(
        &mut self,
        call: GitCall,
        base: &Path,
        indirect: bool,
        chains: &mut HashMap<PathBuf, ChainSkip>,
        unbound: &mut Vec<(GitCall, bool)>,
    ) {
        let mode = call.op.mode();
        let dir = match self.locate(base, &call.dir) {
            Ok(d) => d,
            Err(why) => {
                if let Some(m) = mode {
                    self.unbindable(
                        format!("`{}` runs in a directory only known at run time ({why})", call.text),
                        m,
                    );
                }
                return;
            }
        };
        let (found, index_file) = if call.env.is_default() {
            (self.repo(&dir), None)
        } else {
            match self.redirected(&call.env, &dir) {
                Ok((repo, index_file)) => (Ok(repo), index_file),
                Err(why) => {
                    if let Some(m) = mode {
                        self.unbindable(format!("`{}` {why}", call.text), m);
                    }
                    return;
                }
            }
        };
        let repo = match found {
            Ok(repo) => repo,
            Err(why) => {
                if call.dir.is_empty() && base == self.cwd {
                    unbound.push((call, indirect));
                } else if let Some(m) = mode {
                    self.unbindable(format!("`{}` runs in {}, which {why}", call.text, dir.display()), m);
                }
                return;
            }
        };
        if matches!(call.op, GitOp::ConfigWrite) {
            // It may move git's hooks (`core.hooksPath`, `include.path`): none of them can be
            // counted on for a commit later in this command.
            let idx = self.entry(&repo.root, false);
            self.intent.repos[idx].writes_git_dir = true;
            return;
        }
        let mut notes = call.notes.clone();
        let bypass = match (&call.op, mode) {
            (GitOp::SetSkipGate { enabled }, _) => {
                let state = if indirect {
                    notes.push(format!(
                        "codeguard.skipGate is changed inside an indirect command (`{}`)",
                        call.text
                    ));
                    Some(ChainSkip::Uncertain)
                } else {
                    enabled.then_some(ChainSkip::Set(call.chain))
                };
                match state {
                    Some(s) => chains.insert(repo.root.clone(), s),
                    None => chains.remove(&repo.root),
                };
                None
            }
            (_, None) => None,
            (_, Some(_)) => bypass_for(&call, indirect, &repo, chains.get(&repo.root).copied(), &mut notes),
        };
        let text = call.text.clone();
        // A worktree named from outside it: git resolves paths against its top.
        let cwd = if dir.starts_with(&repo.root) { dir } else { repo.root.clone() };
        let config_env = call.env.config.is_some();
        let mut op = call.op;
        if config_env && let GitOp::Add { force, .. } = &mut op {
            // Ignore rules come from configuration this call replaces (`GIT_CONFIG_GLOBAL=`,
            // `HOME=`, `-c core.excludesFile=`): ignored files may be staged too.
            *force = true;
            notes.push(format!(
                "`{}` reads its ignore rules from configuration the command sets: ignored files are counted as staged",
                call.text
            ));
        }
        let op = BoundOp { cwd, op, bypass, indirect, text: call.text, config_env };
        self.add_op(&repo.root, op, notes, false);
        self.bind_index(&repo.root, index_file, &text);
    }

    /// Records the index a repository's operations use; two different ones in one command
    /// cannot be modelled as one commit and block.
    pub(super) fn bind_index(&mut self, root: &Path, index_file: Option<PathBuf>, text: &str) {
        let idx = self.entry(root, false);
        let entry = &mut self.intent.repos[idx];
        let first = entry.ops.len() == 1;
        if first {
            entry.index_file = index_file;
        } else if entry.index_file != index_file {
            entry.block.get_or_insert(format!(
                "`{text}` uses a different index file (GIT_INDEX_FILE) than other git steps of this command in the same repository"
            ));
        }
    }

    /// The repository and index a call names through `GIT_DIR`/`--git-dir`, `GIT_WORK_TREE`/
    /// `--work-tree` and `GIT_INDEX_FILE`, run from `dir`. It binds only when the named git
    /// directory and worktree are one repository's own (then the content is exactly what
    /// codeguard reads); anything else is a reason to block (`Err`), because a commit is known
    /// to happen in content that cannot be checked.
    pub(super) fn redirected(
        &mut self,
        env: &bash::GitEnv,
        dir: &Path,
    ) -> Result<(Repo, Option<PathBuf>), String> {
        let literal = |value: &Option<bash::EnvValue>, what: &str| -> Result<Option<PathBuf>, String> {
            match value {
                None => Ok(None),
                Some(bash::EnvValue::Literal(v)) if v.is_empty() => Ok(None),
                Some(bash::EnvValue::Literal(v)) => Ok(Some(normalise(&dir.join(v)))),
                Some(bash::EnvValue::Dynamic(raw)) => {
                    Err(format!("names its {what} with `{raw}`, a value only known at run time"))
                }
            }
        };
        let git_dir = literal(&env.git_dir, "repository (GIT_DIR / --git-dir)")?;
        let work_tree = literal(&env.work_tree, "worktree (GIT_WORK_TREE / --work-tree)")?;
        let index = literal(&env.index_file, "index (GIT_INDEX_FILE)")?;
        let repo = if git_dir.is_none() && work_tree.is_none() {
            self.repo(dir).map_err(|why| format!("runs in {}, which {why}", dir.display()))?
        } else {
            let top = work_tree.clone().unwrap_or_else(|| dir.to_path_buf());
            let repo = self
                .repo(&top)
                .map_err(|why| format!("names the worktree {}, which {why}", top.display()))?;
            let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            if canonical(&top) != repo.root {
                return Err(format!(
                    "treats {} as the top of the worktree of the repository at {}: content codeguard cannot rebuild",
                    top.display(),
                    repo.root.display()
                ));
            }
            if let Some(git_dir) = &git_dir {
                let own = crate::git::discover(&repo.root).ok().map(|r| canonical(r.git_dir()));
                if own.as_deref() != Some(canonical(git_dir).as_path()) {
                    return Err(format!(
                        "commits with the git directory {} over the worktree {}, which is not that worktree's own repository",
                        git_dir.display(),
                        repo.root.display()
                    ));
                }
            }
            repo
        };
        // git resolves a relative GIT_INDEX_FILE against the top of the worktree.
        let index = match (&env.index_file, index) {
            (Some(bash::EnvValue::Literal(v)), Some(_)) if !Path::new(v).is_absolute() => {
                Some(normalise(&repo.root.join(v)))
            }
            (_, index) => index,
        };
        Ok((repo, index))
    }

    pub(super) fn unbindable(&mut self, reason: String, mode: Mode) {
        self.note_mode(mode);
        self.intent.unverified.push(reason.clone());
        self.intent.block.get_or_insert(reason);
    }

    pub(super) fn note_mode(&mut self, mode: Mode) {
        self.intent.mode = self.intent.mode.max(Some(mode));
    }

    /// Adds an operation to its repository's entry (created on first use).
    pub(super) fn add_op(&mut self, root: &Path, op: BoundOp, notes: Vec<String>, fallback: bool) {
        let idx = self.entry(root, fallback);
        let entry = &mut self.intent.repos[idx];
        if let Some(m) = op.op.mode() {
            entry.mode = entry.mode.max(m);
        }
        for n in notes {
            push_unique(&mut entry.unverified, n);
        }
        if let GitOp::Writer(w) = &op.op
            && w.dynamic
            && matches!(w.kind, crate::bash::Writer::UpdateIndex | crate::bash::Writer::ReadTree)
        {
            // Plumbing that stages objects named at run time (`hash-object -w` + `update-index
            // --cacheinfo $blob`, `read-tree $tree`): content that cannot be read now.
            let text = op.text.clone();
            entry.writes.push(BoundWrite { path: None, before_op: entry.ops.len(), delete: false, text });
        }
        entry.ops.push(op);
    }

    pub(super) fn entry(&mut self, root: &Path, fallback: bool) -> usize {
        if let Some(i) = self.intent.repos.iter().position(|r| r.root == root) {
            return i;
        }
        self.intent.repos.push(RepoIntent {
            root: root.to_path_buf(),
            mode: Mode::Commit,
            ops: Vec::new(),
            bypass: None,
            unverified: Vec::new(),
            block: None,
            fallback,
            index_file: None,
            writes: Vec::new(),
            writes_git_dir: false,
            opaque: false,
            opaque_env: false,
        });
        self.intent.repos.len() - 1
    }

    pub(super) fn bind_opaque(&mut self, o: &Opaque, base: &Path) {
        if let Ok(dir) = self.locate(base, &o.dir)
            && let Ok(repo) = self.repo(&dir)
        {
            self.opaque_roots.push((repo.root, o.env_kept));
        }
        let Some(mode) = o.looks_like else {
            push_unique(&mut self.intent.unverified, o.reason.clone());
            if o.severity == Severity::Block {
                self.intent.block.get_or_insert(o.reason.clone());
            }
            return;
        };
        let repo = self.locate(base, &o.dir).ok().and_then(|dir| self.repo(&dir).ok());
        if let Some(repo) = repo {
            let idx = self.entry(&repo.root, false);
            let entry = &mut self.intent.repos[idx];
            entry.mode = entry.mode.max(mode);
            push_unique(&mut entry.unverified, o.reason.clone());
            if o.severity == Severity::Block {
                entry.block.get_or_insert(o.reason.clone());
            }
        } else {
            self.note_mode(mode);
            push_unique(&mut self.intent.unverified, o.reason.clone());
            if o.severity == Severity::Block {
                self.intent.block.get_or_insert(o.reason.clone());
            }
        }
    }

    /// The monorepo fallback: operations typed in a directory that is no repository bind to
    /// the immediate children holding a `.git` entry, but only when nothing else bound.
    pub(super) fn fallback(&mut self, unbound: &[(GitCall, bool)]) {
        let Some(mode) = unbound.iter().filter_map(|(c, _)| c.op.mode()).max() else { return };
        let here = self.cwd.display().to_string();
        if self.intent.repos.iter().any(|r| !r.ops.is_empty()) {
            for (call, _) in unbound.iter().filter(|(c, _)| c.op.mode().is_some()) {
                self.unbindable(
                    format!("`{}` runs in {here}, which is not inside a git repository", call.text),
                    mode,
                );
            }
            return;
        }
        let children = child_repos(&self.cwd);
        if children.is_empty() {
            self.unbindable(
                format!("{here} is not inside a git repository and has no child repositories"),
                mode,
            );
            return;
        }
        for child in children {
            let Ok(repo) = self.repo(&child) else { continue };
            let note = format!(
                "{here} is not a git repository: checking child repository {} (monorepo fallback)",
                repo.root.display()
            );
            for (call, indirect) in unbound {
                let bypass = if call.op.mode().is_some() && call.inline_skip_gate {
                    Some(BypassKind::Inline)
                } else {
                    None
                };
                let op = BoundOp {
                    cwd: repo.root.clone(),
                    op: call.op.clone(),
                    bypass,
                    indirect: *indirect,
                    text: call.text.clone(),
                    config_env: call.env.config.is_some(),
                };
                self.add_op(&repo.root, op, vec![note.clone()], true);
            }
        }
    }
}
