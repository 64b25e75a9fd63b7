//! Binds the git operations of an [`Analysis`] to repositories.
//!
//! **In:** an [`Analysis`] and the directory the command starts in. **Out:** an [`Intent`]: per
//! repository (canonical worktree root, linked worktrees included) the mode, the operations in
//! command order with the absolute directory each runs in, the bypass that applies (inline
//! `-c codeguard.skipGate=true`, an `&&` chain `git config codeguard.skipGate true`, or the
//! persisted config value), and the reasons the prediction is not exact or must block.
//! **I/O:** repository discovery and config through the git layer (`crate::git`; never a `git`
//! process), reading the scripts the command runs (≤ 1 MiB, one level), and looking up `alias.NAME` in the git config
//! (repository, user, system) for a git call whose sub-command is none of git's own. A command that cannot commit or push returns
//! at once, without opening a repository. **Never:** writes anything or runs anything.

mod programs;

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
        let path = normalise(&dir.join(&run.path));
        let from_command = match self.written.get(&path) {
            Some(Written::Known(body)) => Some(Ok(body.clone())),
            Some(Written::Unknown(how)) => {
                let reason = format!(
                    "script `{}` is written by this same command ({how}) with content only known at run time",
                    path.display()
                );
                self.unknown_code(reason, &dir);
                return;
            }
            Some(Written::Deleted) => Some(Err(Unreadable::Deleted)),
            None => None,
        };
        let body = match from_command.unwrap_or_else(|| read_script(&path)) {
            Ok(body) => body,
            Err(why) => {
                // A binary, or a file not readable as text: it may write any file.
                self.unseen_writes(&run.path, &dir);
                if text_looks.is_some() {
                    let reason = format!("script `{}` could not be read ({why})", path.display());
                    self.opaque_event(reason, text_looks, &[], &dir, Severity::Unverified);
                }
                return;
            }
        };
        let interpreter = match run.interpreter {
            // A file without a `#!` line is run by the shell (execve fails, the shell reads it).
            Interpreter::Shebang if !body.starts_with("#!") => Some(Interpreter::Shell),
            Interpreter::Shebang => Interpreter::from_shebang(body.lines().next().unwrap_or_default()),
            known @ (Interpreter::Shell | Interpreter::Python | Interpreter::Node) => Some(known),
        };
        let body_looks = if body.contains("git") { bash::looks_like(&body) } else { None };
        // A script run by a project file's command line (`"release": "./release.sh"`) is the
        // one level that is read; deeper ones are not.
        let from_program = self.program_level > 0 && run.depth <= 1;
        if run.depth >= 1 && !from_program {
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
        if self.hops >= MAX_HOPS {
            let reason = format!(
                "script `{}` is reached through {MAX_HOPS} scripts and project-file programs: deeper chains are not followed",
                path.display()
            );
            self.unknown_code(reason, &dir);
            return;
        }
        if let Some(kind) = interpreter {
            let inner = bash::analyse_script(&body, kind);
            let level = std::mem::replace(&mut self.program_level, 0);
            self.hops += 1;
            self.expand(&inner, &dir, Some(&path));
            self.hops -= 1;
            self.program_level = level;
            if inner.parse_error.is_some() && inner.mode().is_some() {
                let reason = format!("script `{}` could not be parsed exactly", path.display());
                self.opaque_event(reason, inner.mode(), &[], &dir, Severity::Unverified);
            }
        } else {
            // Not read into: it may write any file before a later step stages it.
            self.unseen_writes(&run.path, &dir);
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

    /// A program run from `dir` whose writes cannot be named (`program`, for messages).
    fn unseen_writes(&mut self, program: &str, dir: &Path) {
        let write =
            FileWrite { path: None, dir: Vec::new(), kind: WriteKind::Modify, text: program.to_owned() };
        self.write(&write, dir);
    }

    /// Code that runs in `dir` but cannot be seen (a program's script named at run time, a
    /// script the command writes with content only known at run time): it may stage anything,
    /// commit and push. Unverified with `reason`; in a repository, the surface takes every
    /// change and the branch's unpushed commits.
    fn unknown_code(&mut self, reason: String, dir: &Path) {
        // Bound in a repository, the opaque event marks it `opaque`: its surface then takes every
        // change first and, the mode being push, the branch's unpushed commits too.
        self.opaque_event(reason, Some(crate::mode::Mode::Push), &[], dir, Severity::Unverified);
    }

    /// A program that runs commands from a project file: reads the file (one level, bounded)
    /// and follows the command lines it would run, from the directory they run in.
    fn program(&mut self, run: &ProgramRun, base: &Path) {
        let dir = match self.locate(base, &run.dir) {
            Ok(d) => d,
            Err(why) => {
                let reason = format!("`{}` runs from a directory only known at run time ({why})", run.text);
                self.unknown_code(reason, base);
                return;
            }
        };
        if self.program_level >= 2 || self.hops >= MAX_HOPS {
            let reason = format!(
                "`{}` is run by a command of a project file run by another one: more than two levels are not followed",
                run.text
            );
            self.unknown_code(reason, &dir);
            return;
        }
        self.program_level += 1;
        self.hops += 1;
        let unreadable = |why: String| format!("`{}` cannot be followed: {why}", run.text);
        match &run.program {
            Program::PackageScript { script, .. } => match programs::package_script(&dir, script) {
                Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                Ok(None) => {}
                Err(why) => {
                    self.unknown_code(unreadable(why), &dir);
                }
            },
            Program::PackageLifecycle { event, .. } => match programs::package_lifecycle(&dir, event) {
                Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                Ok(None) => {}
                Err(why) => self.unknown_code(unreadable(why), &dir),
            },
            Program::PackageVersion { manager, git_tag, no_commit_hooks } => {
                match programs::package_version(&dir, *manager, *git_tag) {
                    Ok(Some(plan)) => self.version(run, &plan, *no_commit_hooks),
                    Ok(None) => {}
                    Err(why) => {
                        self.unknown_code(unreadable(why), &dir);
                    }
                }
            }
            Program::Make { file, targets, overrides, dry_run } => {
                match programs::make(&dir, file.as_deref(), targets, overrides, *dry_run) {
                    Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                    Ok(None) => {}
                    Err(why) => {
                        self.unknown_code(unreadable(why), &dir);
                    }
                }
            }
            Program::Just { file, recipes, dry_run } => {
                if !*dry_run {
                    match programs::just(&dir, file.as_deref(), recipes) {
                        Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                        Ok(None) => {}
                        Err(why) => self.unknown_code(unreadable(why), &dir),
                    }
                }
            }
            Program::Dynamic(why) => {
                let reason = format!("{why}: what it runs is only known at run time");
                self.unknown_code(reason, &dir);
            }
        }
        self.hops -= 1;
        self.program_level -= 1;
    }

    /// `npm version`: its `preversion`/`version` scripts, the rewrite of `package.json`, its own
    /// `git add` + `git commit` (unless git tagging is off), then `postversion`.
    fn version(&mut self, run: &ProgramRun, plan: &programs::VersionPlan, no_commit_hooks: bool) {
        let root = plan.before_commit.dir.clone();
        let file = plan.before_commit.file.clone();
        for f in &plan.files {
            let write = FileWrite {
                path: Some(f.clone()),
                dir: Vec::new(),
                kind: WriteKind::Modify,
                text: format!("{} (rewrites {f})", run.text),
            };
            self.write(&write, &root);
        }
        self.run_plan(&plan.before_commit.lines, &root, &file);
        if plan.commits {
            let call = |op: bash::GitOp, what: &str| GitCall {
                op,
                dir: Vec::new(),
                chain: run.chain,
                depth: 1,
                inline_skip_gate: false,
                notes: Vec::new(),
                env: bash::GitEnv::default(),
                text: format!("{} ({what})", run.text),
            };
            let add = bash::GitOp::Add {
                pathspecs: plan.files.clone(),
                all: false,
                update: false,
                force: false,
                interactive: false,
                pathspec_from_file: false,
                dry_run: false,
                intent_to_add: false,
                dynamic: false,
            };
            let commit = bash::GitOp::Commit {
                all: false,
                only_paths: Vec::new(),
                include: false,
                amend: false,
                no_verify: no_commit_hooks,
                interactive: false,
                pathspec_from_file: false,
                dynamic: false,
            };
            for (op, what) in [(add, "its own git add"), (commit, "its own git commit and tag")] {
                self.events.push(Event::Git { call: call(op, what), base: root.clone(), indirect: true });
            }
        }
        self.run_plan(&plan.after_commit, &root, &file);
    }

    /// Follows the command lines of a project file, each as its own shell, from `dir`.
    fn run_plan(&mut self, lines: &[(String, String)], dir: &Path, file: &Path) {
        for (label, line) in lines {
            let inner = bash::analyse_script(line, Interpreter::Shell);
            self.expand(&inner, dir, Some(file));
            if inner.parse_error.is_some() && inner.mode().is_some() {
                let reason = format!("the {label} in {} could not be parsed exactly", file.display());
                self.opaque_event(reason, inner.mode(), &[], dir, Severity::Unverified);
            }
        }
    }

    /// The absolute path a write lands on, when it is known.
    fn write_target(&mut self, w: &FileWrite, base: &Path) -> Option<PathBuf> {
        let dir = self.locate(base, &w.dir).ok()?;
        let mut abs = normalise(&dir.join(w.path.as_ref()?));
        if let WriteKind::Copy(from) = &w.kind {
            if abs.is_dir() {
                abs = abs.join(Path::new(from).file_name()?);
            }
        } else if abs.is_dir() && w.kind != WriteKind::Delete {
            return None;
        }
        Some(abs)
    }

    /// Records a write in command order, and what it leaves in the file for a script the
    /// command runs later.
    fn write(&mut self, w: &FileWrite, base: &Path) {
        if let Some(abs) = self.write_target(w, base) {
            let unknown = || Written::Unknown(format!("`{}`", w.text));
            let known_or_disk = |this: &Self, path: &Path| match this.written.get(path) {
                Some(Written::Known(c)) => Some(c.clone()),
                Some(Written::Unknown(_) | Written::Deleted) => None,
                None => match read_script(path) {
                    Ok(c) => Some(c),
                    Err(_) if !path.exists() => Some(String::new()),
                    Err(_) => None,
                },
            };
            let now = match &w.kind {
                WriteKind::Content(Some(c)) => Some(Written::Known(c.clone())),
                WriteKind::Append(Some(c)) => {
                    Some(known_or_disk(self, &abs).map_or_else(unknown, |old| Written::Known(old + c)))
                }
                WriteKind::Copy(from) => {
                    let src = self.locate(base, &w.dir).map(|d| normalise(&d.join(from)));
                    let content = src.ok().filter(|s| s.exists() || self.written.contains_key(s));
                    Some(content.and_then(|s| known_or_disk(self, &s)).map_or_else(unknown, Written::Known))
                }
                WriteKind::Mode => None,
                WriteKind::Delete => Some(Written::Deleted),
                WriteKind::Content(None) | WriteKind::Append(None) | WriteKind::Modify => Some(unknown()),
            };
            if let Some(now) = now {
                self.written.insert(abs, now);
            }
        }
        self.events.push(Event::Write { write: w.clone(), base: base.to_path_buf() });
    }

    /// Binds a write to the repository its file lies in (none: it cannot land). A write whose
    /// directory is only known at run time may land in any repository of the command.
    fn bind_write(&mut self, w: &FileWrite, base: &Path) {
        let Ok(dir) = self.locate(base, &w.dir) else {
            self.unplaced_writes.push(w.text.clone());
            self.intent.writes_outside = true;
            return;
        };
        let target = if w.path.is_some() { self.write_target(w, base) } else { None };
        if w.path.is_some() && target.is_none() && !matches!(w.kind, WriteKind::Copy(_)) {
            return; // a directory written as a file: the write fails
        }
        let probe_from = target.as_deref().and_then(Path::parent).unwrap_or(&dir).to_path_buf();
        let Some(existing) = probe_from.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf) else {
            return;
        };
        let Ok(repo) = self.repo(&existing) else {
            self.intent.writes_outside = true;
            return;
        };
        let canonical = std::fs::canonicalize(&existing).unwrap_or_else(|_| existing.clone());
        let path = match &target {
            Some(abs) => {
                let full = match abs.strip_prefix(&existing) {
                    Ok(rest) => canonical.join(rest),
                    Err(_) => abs.clone(),
                };
                let Ok(rel) = full.strip_prefix(&repo.root) else {
                    self.intent.writes_outside = true;
                    return;
                };
                let rel = rel.to_string_lossy().into_owned();
                if rel == ".git" || rel.starts_with(".git/") {
                    let idx = self.entry(&repo.root, false);
                    self.intent.repos[idx].writes_git_dir = true;
                    return;
                }
                if rel.is_empty() {
                    return;
                }
                Some(rel)
            }
            // A path only known at run time, or copies into a directory under names not known.
            None => None,
        };
        let idx = self.entry(&repo.root, false);
        let entry = &mut self.intent.repos[idx];
        let before_op = entry.ops.len();
        let delete = w.kind == WriteKind::Delete;
        entry.writes.push(BoundWrite { path, before_op, delete, text: w.text.clone() });
    }

    /// `git NAME` where NAME is no git command: the alias `alias.NAME` from the git config git
    /// would read there (the repository's, the user's, the system's), expanded and followed;
    /// without one it is an external `git-NAME` program or a typo, which may commit or push:
    /// UNVERIFIED, never a silent pass.
    fn alias(&mut self, call: &AliasCall, base: &Path, script: Option<&Path>) {
        let value = self
            .locate(base, &call.config_dir)
            .ok()
            .and_then(|dir| crate::git::config::alias(&dir, &call.name));
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
    fn locate(&mut self, base: &Path, parts: &[DirPart]) -> Result<PathBuf, Unlocated> {
        let mut dir = base.to_path_buf();
        for part in parts {
            match part {
                DirPart::Path(p) => dir = normalise(&dir.join(p)),
                DirPart::Toplevel => match self.repo(&dir) {
                    Ok(repo) => dir = repo.root,
                    Err(why) => return Err(Unlocated::Toplevel { dir, why }),
                },
                DirPart::Unknown(what) => return Err(Unlocated::Unknown(what.clone())),
            }
        }
        Ok(dir)
    }

    /// Discovers (and caches) the repository containing `dir`.
    fn repo(&mut self, dir: &Path) -> Result<Repo, NoRepository> {
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
            writes: Vec::new(),
            writes_git_dir: false,
            opaque: false,
            opaque_env: false,
        });
        self.intent.repos.len() - 1
    }

    fn bind_opaque(&mut self, o: &Opaque, base: &Path) {
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
                    config_env: call.env.config.is_some(),
                };
                self.add_op(&repo.root, op, vec![note.clone()], true);
            }
        }
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
    let commit_pushes = post_commit_pushes(&repo, &root);
    Ok(Repo { root, skip_gate, commit_pushes })
}

/// Whether the `post-commit` hook git runs in `repo` mentions a push (husky's stub is followed
/// to the script it runs).
fn post_commit_pushes(repo: &gix::Repository, root: &Path) -> bool {
    let dir = match crate::git::config::hooks_path(repo) {
        Ok(Some(p)) if p.is_absolute() => p,
        Ok(Some(p)) => root.join(p),
        _ => repo.common_dir().join("hooks"),
    };
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
