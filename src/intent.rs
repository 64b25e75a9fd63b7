//! Binds the git operations of an [`Analysis`] to repositories.
//!
//! **In:** an [`Analysis`] and the directory the command starts in. **Out:** an [`Intent`]: per
//! repository (canonical worktree root, linked worktrees included) the mode, the operations in
//! command order with the absolute directory each runs in, the bypass that applies (inline
//! `-c codeguard.skipGate=true`, an `&&` chain `git config codeguard.skipGate true`, or the
//! persisted config value), and the reasons the prediction is not exact or must block.
//! **I/O:** repository discovery and config through gix (never a `git` process), reading the
//! scripts the command runs (≤ 1 MiB, one level), and looking up `alias.NAME` in the git config
//! (repository, user, system) for a git call whose sub-command is none of git's own. A command that cannot commit or push returns
//! at once, without opening a repository. **Never:** writes anything or runs anything.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::bash::{
    self, AliasCall, Analysis, DirPart, GitCall, Interpreter, Opaque, ScriptRun, Severity, Step,
};
pub use crate::bash::{GitOp, Mode};

/// Largest script read to follow one level of indirection.
pub const MAX_SCRIPT_BYTES: u64 = 1_000_000;

/// What a command will do to which repositories.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    /// Some git commit/push is (or may be) run.
    pub guarded: bool,
    /// The strongest mode over everything found: push wins over commit.
    pub mode: Option<Mode>,
    /// Repositories that would receive a commit or push, in order of first appearance.
    pub repos: Vec<RepoIntent>,
    /// Reasons the prediction is not exact that belong to no single repository.
    pub unverified: Vec<String>,
    /// Set when the command must be blocked as uncheckable and no repository carries the reason
    /// (a commit in a directory that is not a repository, or only known at run time).
    pub block: Option<String>,
}

/// One repository's share of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoIntent {
    /// Canonical worktree root (for a linked worktree, that worktree's directory).
    pub root: PathBuf,
    /// Push if any operation pushes, else commit.
    pub mode: Mode,
    /// Every operation bound to this repository, in command order.
    pub ops: Vec<BoundOp>,
    /// The bypass that covers every commit/push of this repository, if one does.
    pub bypass: Option<BypassKind>,
    /// Why the prediction for this repository is not exact.
    pub unverified: Vec<String>,
    /// Why the command must be blocked as uncheckable for this repository.
    pub block: Option<String>,
    /// Bound by the monorepo fallback (the command's directory is not a repository).
    pub fallback: bool,
    /// The index the command names (`GIT_INDEX_FILE=`), absolute; `None`: the repository's own.
    pub index_file: Option<PathBuf>,
    /// A construct that cannot be seen into (`$g add …`, `eval "$x"`, `env $(…) git …`) runs in
    /// this repository: it may stage anything before the commit.
    pub opaque: bool,
}

/// An operation bound to a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundOp {
    /// The absolute directory git runs in, after `cd` and `-C`.
    pub cwd: PathBuf,
    /// What it does.
    pub op: GitOp,
    /// The bypass covering this operation.
    pub bypass: Option<BypassKind>,
    /// Found inside `bash -c`, `eval`, a here-doc or a script rather than typed directly.
    pub indirect: bool,
    /// The command words, for messages.
    pub text: String,
}

/// How the language gate is bypassed (the safety scan always runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BypassKind {
    /// `git -c codeguard.skipGate=true commit …`.
    Inline,
    /// `git config codeguard.skipGate true && … git commit` in the same `&&` chain.
    Chain,
    /// `codeguard.skipGate` is true in the repository's config.
    Persisted,
}

impl BypassKind {
    /// `"inline"`, `"chain"` or `"persisted"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Inline => "inline",
            Self::Chain => "chain",
            Self::Persisted => "persisted",
        }
    }
}

/// Binds `analysis` to repositories, starting from `cwd` (absolute).
pub fn resolve(analysis: &Analysis, cwd: &Path) -> Intent {
    if !analysis.needs_resolution() {
        return Intent::default();
    }
    let mut r = Resolver {
        cwd: normalise(cwd),
        repos: HashMap::new(),
        events: Vec::new(),
        intent: Intent::default(),
        opaque_roots: Vec::new(),
    };
    r.expand(analysis, &r.cwd.clone(), None);
    r.bind(analysis.parse_error.as_deref());
    r.intent
}

/// A step after scripts are read: a git call or an opaque construct, with its base directory.
enum Event {
    Git { call: GitCall, base: PathBuf, indirect: bool },
    Opaque { opaque: Opaque, base: PathBuf },
}

/// What discovery found for a directory.
#[derive(Debug, Clone)]
struct Repo {
    root: PathBuf,
    skip_gate: bool,
}

struct Resolver {
    cwd: PathBuf,
    repos: HashMap<PathBuf, Result<Repo, String>>,
    events: Vec<Event>,
    intent: Intent,
    /// Repositories an opaque construct runs in.
    opaque_roots: Vec<PathBuf>,
}

/// Per-repository chain state of `git config codeguard.skipGate`.
#[derive(Debug, Clone, Copy)]
enum ChainSkip {
    /// Set at this chain segment.
    Set(u32),
    /// Changed in a way we cannot follow (inside a script).
    Uncertain,
}

impl Resolver {
    /// Flattens steps into events, reading scripts one level deep.
    fn expand(&mut self, analysis: &Analysis, base: &Path, script: Option<&Path>) {
        for step in &analysis.steps {
            match step {
                Step::Git(call) => {
                    let indirect = script.is_some() || call.depth > 0;
                    self.events.push(Event::Git { call: call.clone(), base: base.to_path_buf(), indirect });
                }
                Step::Script(run) => self.script(run, base),
                Step::Alias(call) => self.alias(call, base, script),
            }
        }
        for o in &analysis.opaque {
            self.events.push(Event::Opaque { opaque: o.clone(), base: base.to_path_buf() });
        }
    }

    fn opaque_event(
        &mut self,
        reason: String,
        looks_like: Option<Mode>,
        dir: &[DirPart],
        base: &Path,
        severity: Severity,
    ) {
        let opaque = Opaque { reason, looks_like, dir: dir.to_vec(), severity };
        self.events.push(Event::Opaque { opaque, base: base.to_path_buf() });
    }

    fn script(&mut self, run: &ScriptRun, base: &Path) {
        let text_looks = bash::looks_like(&run.text);
        let dir = match self.locate(base, &run.dir) {
            Ok(d) => d,
            Err(why) => {
                let reason =
                    format!("script `{}` runs from a directory only known at run time ({why})", run.path);
                self.opaque_event(reason, text_looks, &[], base, Severity::Unverified);
                return;
            }
        };
        let path = dir.join(&run.path);
        let body = match read_script(&path) {
            Ok(body) => body,
            Err(why) => {
                if text_looks.is_some() {
                    let reason = format!("script `{}` could not be read ({why})", path.display());
                    self.opaque_event(reason, text_looks, &[], &dir, Severity::Unverified);
                }
                return;
            }
        };
        let interpreter = match run.interpreter {
            Interpreter::Shebang => Interpreter::from_shebang(body.lines().next().unwrap_or_default()),
            known @ (Interpreter::Shell | Interpreter::Python | Interpreter::Node) => Some(known),
        };
        let body_looks = if body.contains("git") { bash::looks_like(&body) } else { None };
        if run.depth >= 1 {
            if let Some(mode) = body_looks {
                let reason = format!(
                    "script `{}` is run from inside an indirect command and mentions git {}: more than one level of indirection is not modelled",
                    path.display(),
                    mode.as_str()
                );
                self.opaque_event(reason, Some(mode), &[], &dir, Severity::Block);
            }
            return;
        }
        match interpreter {
            Some(kind) => {
                let inner = bash::analyse_script(&body, kind);
                self.expand(&inner, &dir, Some(&path));
                if inner.parse_error.is_some() && inner.mode().is_some() {
                    let reason = format!("script `{}` could not be parsed exactly", path.display());
                    self.opaque_event(reason, inner.mode(), &[], &dir, Severity::Unverified);
                }
            }
            None => {
                if let Some(mode) = body_looks {
                    let reason = format!(
                        "script `{}` is not a shell, Python or Node script and mentions git {}: it cannot be modelled",
                        path.display(),
                        mode.as_str()
                    );
                    self.opaque_event(reason, Some(mode), &[], &dir, Severity::Unverified);
                }
            }
        }
    }

    /// `git NAME` where NAME is no git command: the alias `alias.NAME` from the git config git
    /// would read there (the repository's, the user's, the system's), expanded and followed;
    /// without one it is an external `git-NAME` program or a typo, which may commit or push:
    /// UNVERIFIED, never a silent pass.
    fn alias(&mut self, call: &AliasCall, base: &Path, script: Option<&Path>) {
        let value = self.locate(base, &call.config_dir).ok().and_then(|dir| alias_value(&dir, &call.name));
        if let Some(value) = value {
            let inner = bash::expand_alias(call, &value);
            self.expand(&inner, base, script);
            return;
        }
        let reason = format!(
            "`{}`: `{}` is neither a git command nor an alias in the git config; it may run a program that commits or pushes",
            call.text, call.name
        );
        let looks = bash::looks_like(&call.text);
        self.opaque_event(reason, looks, &call.config_dir, base, Severity::Unverified);
    }

    /// The absolute directory `parts` lead to from `base`.
    fn locate(&mut self, base: &Path, parts: &[DirPart]) -> Result<PathBuf, String> {
        let mut dir = base.to_path_buf();
        for part in parts {
            match part {
                DirPart::Path(p) => dir = normalise(&dir.join(p)),
                DirPart::Toplevel => match self.repo(&dir) {
                    Ok(repo) => dir = repo.root,
                    Err(why) => {
                        return Err(format!("`git rev-parse --show-toplevel` in {}: {why}", dir.display()));
                    }
                },
                DirPart::Unknown(what) => return Err(what.clone()),
            }
        }
        Ok(dir)
    }

    /// Discovers (and caches) the repository containing `dir`.
    fn repo(&mut self, dir: &Path) -> Result<Repo, String> {
        if let Some(found) = self.repos.get(dir) {
            return found.clone();
        }
        let found = discover(dir);
        self.repos.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// Binds every event to a repository and fills in the intent.
    fn bind(&mut self, parse_error: Option<&str>) {
        let events = std::mem::take(&mut self.events);
        let mut chains: HashMap<PathBuf, ChainSkip> = HashMap::new();
        let mut unbound: Vec<(GitCall, bool)> = Vec::new();
        for event in events {
            match event {
                Event::Git { call, base, indirect } => {
                    self.bind_call(call, &base, indirect, &mut chains, &mut unbound);
                }
                Event::Opaque { opaque, base } => self.bind_opaque(&opaque, &base),
            }
        }
        self.fallback(&unbound);
        for repo in &mut self.intent.repos {
            repo.opaque |= self.opaque_roots.contains(&repo.root);
        }
        self.finish(parse_error);
    }

    fn bind_call(
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
        let op = BoundOp { cwd, op: call.op, bypass, indirect, text: call.text };
        self.add_op(&repo.root, op, notes, false);
        self.bind_index(&repo.root, index_file, &text);
    }

    /// Records the index a repository's operations use; two different ones in one command
    /// cannot be modelled as one commit and block.
    fn bind_index(&mut self, root: &Path, index_file: Option<PathBuf>, text: &str) {
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
    fn redirected(&mut self, env: &bash::GitEnv, dir: &Path) -> Result<(Repo, Option<PathBuf>), String> {
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
                let own = gix::discover(&repo.root).ok().map(|r| canonical(r.git_dir()));
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

    fn unbindable(&mut self, reason: String, mode: Mode) {
        self.note_mode(mode);
        self.intent.unverified.push(reason.clone());
        self.intent.block.get_or_insert(reason);
    }

    fn note_mode(&mut self, mode: Mode) {
        self.intent.mode = self.intent.mode.max(Some(mode));
    }

    /// Adds an operation to its repository's entry (created on first use).
    fn add_op(&mut self, root: &Path, op: BoundOp, notes: Vec<String>, fallback: bool) {
        let idx = self.entry(root, fallback);
        let entry = &mut self.intent.repos[idx];
        if let Some(m) = op.op.mode() {
            entry.mode = entry.mode.max(m);
        }
        for n in notes {
            push_unique(&mut entry.unverified, n);
        }
        entry.ops.push(op);
    }

    fn entry(&mut self, root: &Path, fallback: bool) -> usize {
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
            opaque: false,
        });
        self.intent.repos.len() - 1
    }

    fn bind_opaque(&mut self, o: &Opaque, base: &Path) {
        if let Ok(dir) = self.locate(base, &o.dir)
            && let Ok(repo) = self.repo(&dir)
        {
            self.opaque_roots.push(repo.root);
        }
        let Some(mode) = o.looks_like else {
            push_unique(&mut self.intent.unverified, o.reason.clone());
            if o.severity == Severity::Block {
                self.intent.block.get_or_insert(o.reason.clone());
            }
            return;
        };
        let repo = self.locate(base, &o.dir).and_then(|dir| self.repo(&dir));
        if let Ok(repo) = repo {
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
    fn fallback(&mut self, unbound: &[(GitCall, bool)]) {
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
                };
                self.add_op(&repo.root, op, vec![note.clone()], true);
            }
        }
    }

    /// Drops repositories that neither commit nor push, sets per-repository bypasses and the
    /// overall mode.
    fn finish(&mut self, parse_error: Option<&str>) {
        let persisted: HashMap<PathBuf, bool> = self
            .repos
            .values()
            .filter_map(|r| r.as_ref().ok())
            .map(|r| (r.root.clone(), r.skip_gate))
            .collect();
        self.intent.repos.retain(|r| r.ops.iter().any(|o| o.op.mode().is_some()) || !r.unverified.is_empty());
        for r in &mut self.intent.repos {
            let guarded: Vec<_> = r.ops.iter().filter(|o| o.op.mode().is_some()).collect();
            r.bypass = if persisted.get(&r.root).copied().unwrap_or(false) {
                Some(BypassKind::Persisted)
            } else if !guarded.is_empty() && guarded.iter().all(|o| o.bypass.is_some()) {
                guarded[0].bypass
            } else {
                None
            };
            if let Some(err) = parse_error {
                push_unique(
                    &mut r.unverified,
                    format!("the command could not be parsed ({err}); a conservative reading was used"),
                );
            }
        }
        let repo_mode = self.intent.repos.iter().map(|r| r.mode).max();
        self.intent.mode = self.intent.mode.max(repo_mode);
        self.intent.guarded =
            self.intent.mode.is_some() || !self.intent.unverified.is_empty() || self.intent.block.is_some();
        if let Some(err) = parse_error.filter(|_| self.intent.guarded && self.intent.repos.is_empty()) {
            push_unique(&mut self.intent.unverified, format!("the command could not be parsed ({err})"));
        }
    }
}

/// The bypass of one commit/push, and a note when a chain bypass may not have run.
fn bypass_for(
    call: &GitCall,
    indirect: bool,
    repo: &Repo,
    chain: Option<ChainSkip>,
    notes: &mut Vec<String>,
) -> Option<BypassKind> {
    if call.inline_skip_gate {
        return Some(BypassKind::Inline);
    }
    match chain {
        Some(ChainSkip::Set(segment)) if segment == call.chain && !indirect => return Some(BypassKind::Chain),
        Some(ChainSkip::Set(_)) => notes.push(format!(
            "codeguard.skipGate is set earlier in the command, but not joined by `&&` to `{}`: it may not be in effect",
            call.text
        )),
        Some(ChainSkip::Uncertain) => notes.push(format!("codeguard.skipGate state before `{}` is unknown", call.text)),
        None => {}
    }
    repo.skip_gate.then_some(BypassKind::Persisted)
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// The repository containing `dir`, if any: its canonical worktree root, and whether
/// `codeguard.skipGate` is persisted in its config.
pub fn repository_at(dir: &Path) -> Option<(PathBuf, bool)> {
    discover(dir).ok().map(|repo| (repo.root, repo.skip_gate))
}

/// Discovers the repository containing `dir` with gix.
fn discover(dir: &Path) -> Result<Repo, String> {
    if !dir.is_dir() {
        return Err("does not exist".into());
    }
    let repo = gix::discover(dir).map_err(|_| "is not inside a git repository".to_owned())?;
    let Some(workdir) = repo.workdir() else { return Err("is inside a bare repository".into()) };
    let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
    let skip_gate = repo.config_snapshot().boolean("codeguard.skipGate").unwrap_or(false);
    Ok(Repo { root, skip_gate })
}

/// The value of `alias.NAME` as git would read it in `dir`: the repository's config with the
/// user's and the system config under it, or only those two outside a repository.
fn alias_value(dir: &Path, name: &str) -> Option<String> {
    let value = match gix::discover(dir) {
        Ok(repo) => repo.config_snapshot().plumbing().string_by("alias", None, name),
        Err(_) => gix::config::File::from_globals().ok()?.string_by("alias", None, name),
    };
    value.map(|v| v.to_string())
}

/// Immediate children of `dir` that have their own `.git` entry, sorted.
fn child_repos(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.join(".git").exists())
        .collect();
    out.sort();
    out
}

fn read_script(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.kind().to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_SCRIPT_BYTES {
        return Err(format!("larger than {MAX_SCRIPT_BYTES} bytes"));
    }
    let bytes = std::fs::read(path).map_err(|e| e.kind().to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Lexical normalisation: drops `.`, resolves `..` against the path so far.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => out.push(c.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_git_commands_resolve_without_a_repository() {
        let intent = resolve(&bash::analyse("ls -la && echo 'git push'"), Path::new("/nonexistent/dir"));
        assert_eq!(intent, Intent::default());
    }

    #[test]
    fn normalise_is_lexical() {
        assert_eq!(normalise(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
    }

    #[test]
    fn commit_outside_any_repository_is_unverified_and_blocks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let intent = resolve(&bash::analyse("cd sub && git commit -m x"), dir.path());
        assert!(intent.guarded);
        assert_eq!(intent.mode, Some(Mode::Commit));
        assert!(intent.repos.is_empty());
        assert!(intent.block.as_deref().unwrap_or_default().contains("sub"), "{intent:?}");
    }
}
