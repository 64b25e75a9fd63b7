//! Binds the git operations of an [`Analysis`] to repositories.
//!
//! **In:** an [`Analysis`] and the directory the command starts in. **Out:** an [`Intent`]: per
//! repository (canonical worktree root, linked worktrees included) the mode, the operations in
//! command order with the absolute directory each runs in, the bypass that applies (inline
//! `-c codeguard.skipGate=true`, an `&&` chain `git config codeguard.skipGate true`, or the
//! persisted config value), and the reasons the prediction is not exact or must block.
//! **I/O:** repository discovery and config through the git layer (`crate::git`; never a `git`
//! process), reading the scripts the command runs (≤ [`MAX_SCRIPT_BYTES`], one level), and looking up `alias.NAME` in the git config
//! (repository, user, system) for a git call whose sub-command is none of git's own. A command that cannot commit or push returns
//! at once, without opening a repository. **Never:** writes anything or runs anything.

mod bind;
mod programs;
mod runs;
mod writes;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

pub(crate) use crate::bash::GitOp;
use crate::bash::{
    self, AliasCall, Analysis, DirPart, FileWrite, GitCall, Interpreter, Opaque, Program, ProgramRun,
    ScriptRun, Severity, Step, WriteKind,
};
use crate::mode::Mode;
/// How the language gate is bypassed; intent finds the `codeguard.skipGate` kinds (`Inline`,
/// `Chain`, `Persisted`), the gate itself the others.
pub(crate) use crate::state::audit::BypassKind;

/// Largest script read to follow one level of indirection.
pub(crate) const MAX_SCRIPT_BYTES: u64 = 1_000_000;

/// Longest chain of scripts and project-file programs followed from one command.
const MAX_HOPS: u8 = 4;

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
    /// The command writes a file outside every repository (codeguard's own hooks directory and
    /// the hosts' settings live there): git's session backstop cannot be counted on after it.
    pub writes_outside: bool,
    /// Every file the command writes, moves, removes or `chmod`s whose place is known (absolute,
    /// in command order): what `crate::install::protected` checks against codeguard's own files.
    pub write_targets: Vec<PathBuf>,
}

/// What the gate must do with a resolved command — the one reading of [`Intent`]'s fields, in
/// the order that decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateCase<'a> {
    /// Nothing commits or pushes: allow at once.
    Unguarded,
    /// The command must be blocked as uncheckable, for this reason.
    Uncheckable(&'a str),
    /// Code that exists only at run time with nothing that looks like a commit or push: say it
    /// could not be checked, never block.
    RunTimeOnly,
    /// A commit or push with no repository to bind it to.
    NoRepository,
    /// Check these repositories.
    Repositories(&'a [RepoIntent]),
}

impl Intent {
    /// What the gate must do (see [`GateCase`]).
    pub fn gate_case(&self) -> GateCase<'_> {
        if !self.guarded {
            GateCase::Unguarded
        } else if let Some(reason) = &self.block {
            GateCase::Uncheckable(reason)
        } else if self.repos.is_empty() && self.mode.is_none() {
            GateCase::RunTimeOnly
        } else if self.repos.is_empty() {
            GateCase::NoRepository
        } else {
            GateCase::Repositories(&self.repos)
        }
    }
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
    /// Of those, one is arbitrary code (not a known program such as a release tool): it may run
    /// git with an environment of its own, without the agent session's hooks path.
    pub opaque_env: bool,
    /// Files of this repository the command writes, changes or deletes, in command order.
    pub writes: Vec<BoundWrite>,
    /// The command writes or deletes something inside this repository's `.git` directory (its
    /// hooks, config, …) or writes git configuration (`git config …`, any scope): not content a
    /// commit carries, but it can change what git runs.
    pub writes_git_dir: bool,
}

/// A file written by the command, bound to the repository it lies in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundWrite {
    /// The path relative to the repository root; `None` when only known at run time.
    pub path: Option<String>,
    /// How many of the repository's [`RepoIntent::ops`] come before it.
    pub before_op: usize,
    /// The file is deleted (only a tracked path's deletion can land).
    pub delete: bool,
    /// The command words, for messages (empty: the command could not be parsed exactly, and
    /// what it writes is unknown).
    pub text: String,
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
    /// Configuration given to this call from outside the repository's config may move its
    /// hooks: `GIT_CONFIG_*` in its environment, or `core.hooksPath` by `-c`/`--config-env`.
    pub config_env: bool,
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
        written: HashMap::new(),
        program_level: 0,
        hops: 0,
        unplaced_writes: Vec::new(),
        opaque_roots: Vec::new(),
    };
    r.expand(analysis, &r.cwd.clone(), None);
    r.bind(analysis.parse_error.as_deref());
    r.intent
}

/// A step after scripts are read: a git call, a file write or an opaque construct, with its
/// base directory.
enum Event {
    Git { call: GitCall, base: PathBuf, indirect: bool },
    Write { write: FileWrite, base: PathBuf },
    Opaque { opaque: Opaque, base: PathBuf },
}

/// What the command has written to a file so far, for a script it runs later.
#[derive(Debug, Clone)]
enum Written {
    /// The whole content, spelt out by the command.
    Known(String),
    /// Written in a way only run time knows.
    Unknown(String),
    /// Deleted.
    Deleted,
}

/// What discovery found for a directory.
#[derive(Debug, Clone)]
struct Repo {
    root: PathBuf,
    skip_gate: bool,
    /// The repository's own `post-commit` hook pushes: a commit there is a push too.
    commit_pushes: bool,
}

/// Why a directory has no repository to bind a git operation to (read after the directory:
/// "… which is not inside a git repository").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoRepository {
    /// The directory does not exist.
    #[error("does not exist")]
    Missing,
    /// No repository contains it.
    #[error("is not inside a git repository")]
    Outside,
    /// Only a bare repository contains it: nothing to commit from.
    #[error("is inside a bare repository")]
    Bare,
}

/// Why the directory a command runs in is not known before it runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unlocated {
    /// `cd "$(git rev-parse --show-toplevel)"` from a directory without a repository.
    #[error("`git rev-parse --show-toplevel` in {}: {why}", dir.display())]
    Toplevel {
        /// Where it was asked.
        dir: PathBuf,
        /// Why it has no top level.
        why: NoRepository,
    },
    /// A directory only known at run time, described for people (`"$DIR"`).
    #[error("{0}")]
    Unknown(String),
}

/// Why a script or config file the command reads could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unreadable {
    /// The file system said no (missing, permissions).
    #[error("{0}")]
    Io(std::io::ErrorKind),
    /// A directory, device or other non-file.
    #[error("not a regular file")]
    NotAFile,
    /// Past [`MAX_SCRIPT_BYTES`].
    #[error("larger than {MAX_SCRIPT_BYTES} bytes")]
    TooLarge,
    /// An earlier part of the same command deletes it.
    #[error("deleted earlier in this command")]
    Deleted,
}

struct Resolver {
    cwd: PathBuf,
    repos: HashMap<PathBuf, Result<Repo, NoRepository>>,
    events: Vec<Event>,
    intent: Intent,
    /// Files written by the command so far (absolute path), for scripts it runs later.
    written: HashMap<PathBuf, Written>,
    /// Program files (package.json, Makefile) being followed: how many levels deep.
    program_level: u8,
    /// Scripts and project-file programs being followed around the current step, whatever
    /// led to them: a bound on every chain of hops (a script that runs `npm run` of a script
    /// that runs it again would otherwise never end).
    hops: u8,
    /// Writes whose directory is only known at run time (they may land in any repository).
    unplaced_writes: Vec<String>,
    /// Repositories an opaque construct runs in.
    /// Repositories unseen code runs in, and whether that code keeps git's environment.
    opaque_roots: Vec<(PathBuf, bool)>,
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
                Step::Program(run) => self.program(run, base),
                Step::Write(write) => self.write(write, base),
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
        let opaque = Opaque { reason, looks_like, dir: dir.to_vec(), severity, env_kept: false };
        self.events.push(Event::Opaque { opaque, base: base.to_path_buf() });
    }

    /// Drops repositories that neither commit nor push, sets per-repository bypasses and the
    /// overall mode.
    fn finish(&mut self, parse_error: Option<&str>) {
        let found: HashMap<PathBuf, Repo> = self
            .repos
            .values()
            .filter_map(|r| r.as_ref().ok())
            .map(|r| (r.root.clone(), r.clone()))
            .collect();
        self.intent.repos.retain(|r| r.ops.iter().any(|o| o.op.mode().is_some()) || !r.unverified.is_empty());
        for text in &self.unplaced_writes {
            for r in &mut self.intent.repos {
                r.writes
                    .insert(0, BoundWrite { path: None, before_op: 0, delete: false, text: text.clone() });
            }
        }
        for r in &mut self.intent.repos {
            if found.get(&r.root).is_some_and(|f| f.commit_pushes)
                && r.ops.iter().any(|o| matches!(o.op, GitOp::Commit { .. }))
            {
                r.mode = r.mode.max(Mode::Push);
                push_unique(
                    &mut r.unverified,
                    "the repository's post-commit hook pushes: the commit is judged as a push".to_owned(),
                );
            }
            if r.writes_git_dir {
                // `.git/info/exclude` (or config) written by the command: the ignore rules the
                // view reads now may not be the ones `git add` uses.
                for op in &mut r.ops {
                    if let GitOp::Add { force, .. } = &mut op.op
                        && !*force
                    {
                        *force = true;
                        push_unique(
                            &mut r.unverified,
                            "the command writes inside .git before staging: ignored files are counted as staged".to_owned(),
                        );
                    }
                }
            }
            let guarded: Vec<_> = r.ops.iter().filter(|o| o.op.mode().is_some()).collect();
            r.bypass = if found.get(&r.root).is_some_and(|f| f.skip_gate) {
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
                // The lexical reading may miss what the command writes before it commits.
                r.writes
                    .insert(0, BoundWrite { path: None, before_op: 0, delete: false, text: String::new() });
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
pub(crate) fn repository_at(dir: &Path) -> Option<(PathBuf, bool)> {
    discover(dir).ok().map(|repo| (repo.root, repo.skip_gate))
}

/// Discovers the repository containing `dir` with gix.
fn discover(dir: &Path) -> Result<Repo, NoRepository> {
    if !dir.is_dir() {
        return Err(NoRepository::Missing);
    }
    let repo = crate::git::discover(dir).map_err(|_| NoRepository::Outside)?;
    let Some(workdir) = repo.workdir() else { return Err(NoRepository::Bare) };
    let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
    let skip_gate = crate::git::config::boolean(&repo, "codeguard.skipGate").unwrap_or(false);
    let commit_pushes = post_commit_pushes(&repo);
    Ok(Repo { root, skip_gate, commit_pushes })
}

/// Whether the `post-commit` hook git runs in `repo` mentions a push (husky's stub is followed
/// to the script it runs).
fn post_commit_pushes(repo: &gix::Repository) -> bool {
    let Ok(dir) = crate::git::config::hooks_dir(repo) else { return false };
    let read = |p: &Path| read_script(p).ok();
    let Some(text) = read(&dir.join("post-commit")) else { return false };
    let text = if text.contains("/h\"") && dir.ends_with("_") {
        dir.parent().and_then(|d| read(&d.join("post-commit"))).unwrap_or(text)
    } else {
        text
    };
    bash::looks_like(&text) == Some(Mode::Push)
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

fn read_script(path: &Path) -> Result<String, Unreadable> {
    let meta = std::fs::metadata(path).map_err(|e| Unreadable::Io(e.kind()))?;
    if !meta.is_file() {
        return Err(Unreadable::NotAFile);
    }
    if meta.len() > MAX_SCRIPT_BYTES {
        return Err(Unreadable::TooLarge);
    }
    let bytes = std::fs::read(path).map_err(|e| Unreadable::Io(e.kind()))?;
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
    fn the_gate_case_reads_the_fields_in_one_order() {
        let unguarded = Intent { block: Some("x".into()), ..Intent::default() };
        assert_eq!(unguarded.gate_case(), GateCase::Unguarded, "nothing commits: the block does not matter");
        let guarded = Intent { guarded: true, ..Intent::default() };
        assert_eq!(guarded.gate_case(), GateCase::RunTimeOnly);
        let commit = Intent { mode: Some(Mode::Commit), ..guarded.clone() };
        assert_eq!(commit.gate_case(), GateCase::NoRepository);
        let blocked = Intent { block: Some("why".into()), ..commit.clone() };
        assert_eq!(
            blocked.gate_case(),
            GateCase::Uncheckable("why"),
            "a block wins over a missing repository"
        );
        // With repositories bound it is `Repositories` (the gate tests bind real ones).
    }

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
