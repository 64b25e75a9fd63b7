//! Shell command analysis: does a command commit or push, and with which git operations?
//!
//! **In:** the text of one shell command, exactly as an agent would hand it to a shell.
//! **Out:** an [`Analysis`]: the git operations that change what a commit or push contains
//! (`add`, `commit`, `push`, `rm`, `mv`, `stash`, skipGate `config`) in command order, each with
//! the directory it runs in *relative to where the command starts* ([`DirPart`]s from `cd`,
//! `pushd`, `git -C`, `env -C`), the scripts the command runs ([`ScriptRun`], for
//! [`crate::intent`] to read), the git aliases to look up in the git config ([`AliasCall`]: a
//! sub-command that is none of git's own and that the command does not define), and the
//! constructs that cannot be seen into ([`Opaque`]).
//! **Never:** reads files, the environment or the clock, runs anything, or fails: [`analyse`] is
//! total. Input brush-parser rejects goes through a conservative tokenizer and is flagged in
//! [`Analysis::parse_error`]. Imports only lower layers'
//! pure helpers (`mode`, `static_regex`, `git::config::parse_boolean`,
//! `registry::shebang_interpreter`).
//!
//! The parser sits behind [`ShellParser`] (one adapter, [`BrushParser`]); everything else works on
//! our own small syntax tree in [`syntax`].

mod apply_patch;
mod bounds;
mod braces;
mod brush;
mod command;
mod effects;
mod expand;
mod fallback;
mod git;
mod program;
pub(crate) mod syntax;
mod walk;

pub(crate) use apply_patch::{apply_patch_calls, envelope_files};
pub(crate) use brush::BrushParser;
pub(crate) use syntax::ShellParser;

use crate::mode::Mode;

/// One step of the directory a command runs in, relative to where the command started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirPart {
    /// A literal directory (relative to the previous step, or absolute).
    Path(String),
    /// `"$(git rev-parse --show-toplevel)"`: the root of the repository at the previous step.
    Toplevel,
    /// The home directory, and a relative path under it (empty: the home directory itself):
    /// `cd`, `cd ~`, `cd ~/x`, `cd "$HOME"/x`. Where it lies is the environment's; repositories
    /// are not bound through it (the analysis reads no environment), but codeguard's own files
    /// under it are found there (`crate::install::protected`).
    Home(String),
    /// A directory only known when the command runs; the text says which.
    Unknown(String),
}

/// A git operation that decides what a commit or push contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitOp {
    /// `git add`.
    Add {
        /// Pathspecs as written (quote-removed).
        pathspecs: Vec<String>,
        /// `-A` / `--all`.
        all: bool,
        /// `-u` / `--update`.
        update: bool,
        /// `-f` / `--force`.
        force: bool,
        /// `-p`, `-i`, `-e` and their long forms: what lands depends on answers.
        interactive: bool,
        /// `--pathspec-from-file`.
        pathspec_from_file: bool,
        /// `-n` / `--dry-run`: stages nothing.
        dry_run: bool,
        /// `-N` / `--intent-to-add`.
        intent_to_add: bool,
        /// A path contains `$` or a backtick, or paths come from stdin (`xargs`).
        dynamic: bool,
    },
    /// `git commit`.
    Commit {
        /// `-a` / `--all`.
        all: bool,
        /// Paths given to commit (`--only` is git's default with paths).
        only_paths: Vec<String>,
        /// `-i` / `--include`.
        include: bool,
        /// `--amend`.
        amend: bool,
        /// `-n` / `--no-verify` (for commit, `-n` is *not* dry-run).
        no_verify: bool,
        /// `-p` / `--interactive`.
        interactive: bool,
        /// `--pathspec-from-file`.
        pathspec_from_file: bool,
        /// A path contains `$` or a backtick, or paths come from stdin.
        dynamic: bool,
    },
    /// `git push` (a dry run is recorded but pushes nothing).
    Push {
        /// `-n` / `--dry-run`.
        dry_run: bool,
        /// Refspecs after the remote.
        refspecs: Vec<String>,
        /// The remote (first operand or `--repo`).
        remote: Option<String>,
        /// `--no-verify`.
        no_verify: bool,
        /// `-d` / `--delete`.
        delete: bool,
        /// `--all` / `--branches` / `--mirror`: every local branch (`--mirror`: every ref).
        all_refs: bool,
        /// `--tags` / `--follow-tags` / `--mirror`: tags too.
        tags: bool,
        /// `--recurse-submodules=on-demand|only` (the last one given; `Some(false)` for `check`
        /// or `no`, `None` when not given: `push.recurseSubmodules` decides).
        submodules: Option<bool>,
    },
    /// `git rm`.
    Rm {
        /// Pathspecs as written.
        pathspecs: Vec<String>,
        /// `--cached`: the file stays in the worktree.
        cached: bool,
        /// `-f`.
        force: bool,
        /// `-r`.
        recursive: bool,
        /// `-n` / `--dry-run`.
        dry_run: bool,
        /// A path contains `$` or a backtick, or paths come from stdin.
        dynamic: bool,
    },
    /// `git mv`.
    Mv {
        /// Sources.
        from: Vec<String>,
        /// Destination.
        to: String,
        /// `-n` / `--dry-run`.
        dry_run: bool,
        /// A path contains `$` or a backtick, or paths come from stdin.
        dynamic: bool,
    },
    /// `git stash [action]`: changes the worktree and index a later commit sees.
    Stash {
        /// `push` (the default), `pop`, `apply`, `save`, `drop`, `list` …
        action: String,
        /// All words after `stash`.
        args: Vec<String>,
    },
    /// Another sub-command that writes commits or the index (merge, rebase, cherry-pick, revert,
    /// am, commit-tree, pull; checkout/switch, restore, reset, apply, read-tree, update-index).
    /// What it does to the content is decided by the surface stage, which can read revisions.
    Writer(Box<WriterOp>),
    /// `git config codeguard.skipGate VALUE` (or `--unset`) in the repository's own config.
    SetSkipGate {
        /// Whether the gate is now skipped.
        enabled: bool,
    },
    /// Any other `git config` write (local, `--global`, `--system`, `--file`, `--edit`): it may
    /// move what git runs (`core.hooksPath`, `include.path`), so git's hooks cannot be counted on
    /// for a commit later in the same command.
    ConfigWrite,
}

/// The parsed words of a [`GitOp::Writer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterOp {
    /// Which sub-command.
    pub kind: Writer,
    /// Flags as written (long names; short letters one by one).
    pub flags: Vec<String>,
    /// Values of value-taking options, keyed by the flag as written.
    pub values: Vec<(String, String)>,
    /// Operands before `--`, as written.
    pub operands: Vec<String>,
    /// Operands after `--` (paths), as written.
    pub paths: Vec<String>,
    /// It makes commits (false for `--no-commit`, `--squash`, `-n`, `--abort`, and for the
    /// sub-commands that only write the index or move `HEAD`).
    pub commits: bool,
    /// Some operand or value is known only at run time (or comes from stdin).
    pub dynamic: bool,
}

/// The sub-commands [`GitOp::Writer`] stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// `git merge`.
    Merge,
    /// `git rebase`.
    Rebase,
    /// `git cherry-pick`.
    CherryPick,
    /// `git revert`.
    Revert,
    /// `git am`.
    Am,
    /// `git commit-tree`.
    CommitTree,
    /// `git pull`.
    Pull,
    /// `git checkout` / `git switch`.
    Checkout,
    /// `git restore`.
    Restore,
    /// `git reset`.
    Reset,
    /// `git apply`.
    Apply,
    /// `git read-tree`.
    ReadTree,
    /// `git update-index`.
    UpdateIndex,
}

impl Writer {
    /// The sub-command name, as printed by `explain`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Merge => "merge",
            Self::Rebase => "rebase",
            Self::CherryPick => "cherry-pick",
            Self::Revert => "revert",
            Self::Am => "am",
            Self::CommitTree => "commit-tree",
            Self::Pull => "pull",
            Self::Checkout => "checkout",
            Self::Restore => "restore",
            Self::Reset => "reset",
            Self::Apply => "apply",
            Self::ReadTree => "read-tree",
            Self::UpdateIndex => "update-index",
        }
    }
}

impl GitOp {
    /// The sub-command name: `add`, `commit`, `push`, `rm`, `mv`, `stash`, `config`, or a
    /// [`Writer`]'s name (`merge`, `rebase`, `cherry-pick`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Writer(w) => w.kind.as_str(),
            Self::Add { .. } => "add",
            Self::Commit { .. } => "commit",
            Self::Push { .. } => "push",
            Self::Rm { .. } => "rm",
            Self::Mv { .. } => "mv",
            Self::Stash { .. } => "stash",
            Self::SetSkipGate { .. } | Self::ConfigWrite => "config",
        }
    }

    /// The mode this operation guards: commit, push (not a dry run), or none.
    pub fn mode(&self) -> Option<Mode> {
        match self {
            Self::Commit { .. } => Some(Mode::Commit),
            Self::Push { dry_run: false, .. } => Some(Mode::Push),
            Self::Writer(w) => w.commits.then_some(Mode::Commit),
            Self::Push { dry_run: true, .. }
            | Self::Add { .. }
            | Self::Rm { .. }
            | Self::Mv { .. }
            | Self::Stash { .. }
            | Self::SetSkipGate { .. }
            | Self::ConfigWrite => None,
        }
    }
}

/// One git invocation found in the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitCall {
    /// What it does.
    pub op: GitOp,
    /// Where git runs: `cd`/`pushd` steps, then `env -C`, then `git -C` (relative to the start).
    pub dir: Vec<DirPart>,
    /// Chain segment: two steps share it only when joined by `&&` alone (skipGate chains).
    pub chain: u32,
    /// Indirection level: 0 typed directly, 1 inside `bash -c`, `eval`, a here-doc or a script.
    pub depth: u8,
    /// `git -c codeguard.skipGate=true …`.
    pub inline_skip_gate: bool,
    /// Why the binding or content may be inexact.
    pub notes: Vec<String>,
    /// The repository, worktree and index the command names for this call (`GIT_DIR=`,
    /// `GIT_WORK_TREE=`, `GIT_INDEX_FILE=` prefixes or exports, `--git-dir`, `--work-tree`).
    pub env: GitEnv,
    /// The command words, for messages.
    pub text: String,
}

/// Where a git call's repository, worktree and index come from, when the command says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitEnv {
    /// `GIT_DIR` or `--git-dir`.
    pub git_dir: Option<EnvValue>,
    /// `GIT_WORK_TREE` or `--work-tree`.
    pub work_tree: Option<EnvValue>,
    /// `GIT_INDEX_FILE`.
    pub index_file: Option<EnvValue>,
    /// A `GIT_CONFIG*` variable (`GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`, `GIT_CONFIG_PARAMETERS`,
    /// `GIT_CONFIG_GLOBAL`, …) set or unset, `HOME`/`XDG_CONFIG_HOME` (where the global config
    /// is), or an environment cleared (`env -i`, `sudo`): configuration git reads for this call
    /// is not what the repository's and the session's say.
    pub config: Option<EnvValue>,
}

impl GitEnv {
    /// Whether the command names no repository, worktree or index (git finds the repository
    /// from its directory); configuration from the environment does not name one.
    pub fn is_default(&self) -> bool {
        self.git_dir.is_none() && self.work_tree.is_none() && self.index_file.is_none()
    }

    /// Sets the variable `name` (a git name; others are ignored).
    pub(crate) fn set(&mut self, name: &str, value: Option<EnvValue>) {
        match name {
            "GIT_DIR" => self.git_dir = value,
            "GIT_WORK_TREE" => self.work_tree = value,
            "GIT_INDEX_FILE" => self.index_file = value,
            // Unsetting counts too: the agent session's backstop is named by GIT_CONFIG_COUNT
            // and its entries, and HOME/XDG_CONFIG_HOME move the global config (its hooks path).
            _ if name.starts_with("GIT_CONFIG") || name == "HOME" || name == "XDG_CONFIG_HOME" => {
                self.config = Some(value.unwrap_or_else(|| EnvValue::Dynamic(format!("unset {name}"))));
            }
            _ => {}
        }
    }

    /// `self` with every value `over` sets replacing ours.
    pub(crate) fn overlaid(&self, over: &Self) -> Self {
        Self {
            git_dir: over.git_dir.clone().or_else(|| self.git_dir.clone()),
            work_tree: over.work_tree.clone().or_else(|| self.work_tree.clone()),
            index_file: over.index_file.clone().or_else(|| self.index_file.clone()),
            config: over.config.clone().or_else(|| self.config.clone()),
        }
    }
}

/// The value of one of those settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    /// A literal path, as written (relative paths are resolved as git resolves them).
    Literal(String),
    /// A value only known at run time; the text is how it was written.
    Dynamic(String),
}

impl EnvValue {
    /// The value of a word.
    pub(crate) fn of(word: &syntax::Word) -> Self {
        Self::from_parts(word.literal, &word.text, &word.raw)
    }

    /// A value written as `raw` whose quote-removed text is `text`: literal when the shell
    /// passes it unchanged (no expansion, no leading `~`).
    pub(crate) fn from_parts(literal: bool, text: &str, raw: &str) -> Self {
        if literal && !text.starts_with('~') {
            Self::Literal(text.to_owned())
        } else {
            Self::Dynamic(raw.to_owned())
        }
    }
}

/// How a script is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpreter {
    /// `bash`, `sh`, `zsh`, `dash`, `ksh`, `source`, `.`.
    Shell,
    /// `python`, `python3`.
    Python,
    /// `node`.
    Node,
    /// Run directly (`./x.sh`): decided by the file's `#!` line.
    Shebang,
}

impl Interpreter {
    /// The interpreter a `#!` line names, if it is one we model.
    pub fn from_shebang(first_line: &str) -> Option<Self> {
        crate::registry::shebang_interpreter(first_line).and_then(|program| command::interpreter_of(&program))
    }
}

/// A script the command runs; [`crate::intent`] reads it (I/O) and analyses its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptRun {
    /// The script path as written.
    pub path: String,
    /// The directory it is run from (relative to the start), against which `path` resolves.
    pub dir: Vec<DirPart>,
    /// How it is run.
    pub interpreter: Interpreter,
    /// Chain segment (see [`GitCall::chain`]).
    pub chain: u32,
    /// Indirection level of the *caller*; a script run at level 1 is not read again.
    pub depth: u8,
    /// The command words, for messages.
    pub text: String,
}

/// A step of the command, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A git invocation.
    Git(GitCall),
    /// A script to read.
    Script(ScriptRun),
    /// A program that runs commands from a project file ([`crate::intent`] reads it).
    Program(ProgramRun),
    /// A file the command writes, changes or deletes before the steps after it run.
    Write(FileWrite),
    /// A git sub-command that is not one of git's own: an alias to look up in the git config.
    Alias(AliasCall),
}

/// A program that runs commands written in a project file: `package.json` scripts, `npm version`,
/// Makefile recipes. The analyser only records the call; [`crate::intent`] reads the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramRun {
    /// Which program and what it is asked to run.
    pub program: Program,
    /// The directory it runs from (relative to the start), after `--prefix`, `-C`, `--cwd`.
    pub dir: Vec<DirPart>,
    /// Chain segment (see [`GitCall::chain`]).
    pub chain: u32,
    /// Indirection level of the caller.
    pub depth: u8,
    /// The command words, for messages.
    pub text: String,
}

/// The package managers whose scripts and `version` command are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    /// `npm`.
    Npm,
    /// `yarn`.
    Yarn,
    /// `pnpm`.
    Pnpm,
}

impl PackageManager {
    /// The program name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Yarn => "yarn",
            Self::Pnpm => "pnpm",
        }
    }
}

/// What a [`ProgramRun`] is asked to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// `npm run X`, `npm test`, `yarn X`, `pnpm run X`: the script `X` with its `preX`/`postX`.
    PackageScript {
        /// The package manager.
        manager: PackageManager,
        /// The script name.
        script: String,
    },
    /// `npm install`/`ci`/`publish`/`pack` (and yarn's, pnpm's): the project's lifecycle
    /// scripts for that event (`preinstall`, `postinstall`, `prepare`, `prepack` …).
    PackageLifecycle {
        /// The package manager.
        manager: PackageManager,
        /// `install`, `publish` or `pack`.
        event: String,
    },
    /// `npm version …`, `yarn version`, `pnpm version`: rewrites `package.json`, runs the
    /// `preversion`/`version`/`postversion` scripts, and commits and tags unless told not to.
    PackageVersion {
        /// The package manager.
        manager: PackageManager,
        /// `Some(false)` for `--no-git-tag-version` (or `--git-tag-version=false`),
        /// `Some(true)` when asked for explicitly, `None` when the config decides.
        git_tag: Option<bool>,
        /// `--no-commit-hooks`: git's hooks do not run for its commit.
        no_commit_hooks: bool,
    },
    /// `make [-f FILE] [TARGET…]`.
    Make {
        /// `-f FILE`, as written.
        file: Option<String>,
        /// The targets named (empty: the default target).
        targets: Vec<String>,
        /// `VAR=value` overrides on the command line.
        overrides: Vec<(String, String)>,
        /// `-n` / `--dry-run`: only `+` lines and `$(MAKE)` lines run.
        dry_run: bool,
    },
    /// `just [-f FILE] [RECIPE…]`: recipes found in the nearest justfile upward.
    Just {
        /// `-f FILE` / `--justfile FILE`, as written.
        file: Option<String>,
        /// The words after the options: recipes (and their arguments; names that are not
        /// recipes are ignored). Empty: the first recipe.
        recipes: Vec<String>,
        /// `-n` / `--dry-run`: nothing runs.
        dry_run: bool,
    },
    /// A program whose target is only known at run time (`npm run "$X"`); the text says which.
    Dynamic(String),
}

/// A file written, changed or deleted by the command (a redirection, `tee`, `sed -i`, `cp`,
/// `mv`, `rm`, `touch`, `chmod` …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// The path as written (relative to `dir`), `None` when only known at run time.
    pub path: Option<String>,
    /// The directory it is written from (relative to the start).
    pub dir: Vec<DirPart>,
    /// What happens to the file.
    pub kind: WriteKind,
    /// The command words, for messages.
    pub text: String,
    /// For a path written `~/rest`, `$HOME/rest` or `${HOME}/rest` (under the home directory,
    /// which only the environment knows): `rest`, as written (a glob in it is left to the
    /// protected-files check, which expands it).
    pub home_rest: Option<String>,
}

impl FileWrite {
    /// Where the write lands relative to the home directory, when that is where it lands: a
    /// `~/…`, `$HOME/…` target, or one after a `cd` into the home directory (with only relative
    /// directories since). A target whose name is only known at run time (a glob) stands for the
    /// directory it is in.
    pub fn home_relative(&self) -> Option<std::path::PathBuf> {
        if let Some(rest) = &self.home_rest {
            return Some(std::path::PathBuf::from(rest));
        }
        let at = self.dir.iter().rposition(|d| matches!(d, DirPart::Home(_)))?;
        let mut out = std::path::PathBuf::new();
        for part in &self.dir[at..] {
            match part {
                DirPart::Home(rest) | DirPart::Path(rest) => out.push(rest),
                DirPart::Toplevel | DirPart::Unknown(_) => return None,
            }
        }
        if let Some(path) = &self.path {
            out.push(path);
        }
        Some(out)
    }
}

/// What a [`FileWrite`] does to its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteKind {
    /// Replaced; the whole new content when the command spells it out (`cat > f <<'E'`).
    Content(Option<String>),
    /// Appended to (`>>`, `tee -a`); the appended text when literal.
    Append(Option<String>),
    /// A copy of another file (`cp a b`, `mv a b`): the source as written, relative to the
    /// same directory.
    Copy(String),
    /// Changed in place in a way not spelt out (`sed -i`, `perl -pi`, `patch`).
    Modify,
    /// Only its mode or times change (`chmod`, `touch` of an existing file).
    Mode,
    /// Deleted (`rm`, the source of `mv`).
    Delete,
}

/// `git NAME …` where NAME is no git command and the command itself does not define it:
/// [`crate::intent`] looks `alias.NAME` up in the repository's, the user's and the system git
/// config and hands the value back to [`expand_alias`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasCall {
    /// The alias name, lower case.
    pub name: String,
    /// Every word after `git` (global options, the name, its arguments).
    pub words: Vec<syntax::Word>,
    /// Index of the name in `words`.
    pub sub: usize,
    /// Where git runs before its own `-C` options (relative to the start).
    pub dir: Vec<DirPart>,
    /// Where git reads its config: `dir` followed by the call's `-C` options.
    pub config_dir: Vec<DirPart>,
    /// Chain segment (see [`GitCall::chain`]).
    pub chain: u32,
    /// Indirection level of the call.
    pub depth: u8,
    /// The git location variables the call inherits or is given.
    pub env: GitEnv,
    /// Arguments are appended from stdin (`xargs`).
    pub from_stdin: bool,
    /// Aliases already being expanded around this call (cycle guard).
    pub seen: Vec<String>,
    /// Notes about the binding.
    pub notes: Vec<String>,
    /// The command words, for messages.
    pub text: String,
}

/// How serious an [`Opaque`] construct is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The prediction is not exact; say so.
    Unverified,
    /// The command cannot be checked at all (a program commits in ways we cannot model).
    Block,
}

/// Something the analyser cannot see into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opaque {
    /// Why, naming the construct.
    pub reason: String,
    /// The mode its text suggests (`$g push` → push), if any.
    pub looks_like: Option<Mode>,
    /// Where it runs (relative to the start).
    pub dir: Vec<DirPart>,
    /// How serious it is.
    pub severity: Severity,
    /// It is a known program that runs git with the environment it was given (a release tool,
    /// git's external command); other unseen code may run git with an environment of its own.
    pub env_kept: bool,
}

/// The result of analysing one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Git invocations and script runs, in command order.
    pub steps: Vec<Step>,
    /// Constructs that cannot be seen into.
    pub opaque: Vec<Opaque>,
    /// Set when the parser rejected the text and the conservative tokenizer was used.
    pub parse_error: Option<String>,
    /// codeguard's own controls the command would loosen (`codeguard trust .`): the user's to
    /// change, never the agent's (see `effects::codeguard_control`).
    pub control: Vec<String>,
}

impl Analysis {
    /// The strongest mode of the direct git operations and opaque constructs (scripts are not
    /// read here). Push wins.
    pub fn mode(&self) -> Option<Mode> {
        let ops = self.git_calls().filter_map(|c| c.op.mode());
        let opaque = self.opaque.iter().filter_map(|o| o.looks_like);
        ops.chain(opaque).max()
    }

    /// Whether anything may commit or push, or must be looked into (a script, an opaque
    /// construct). When false, nothing needs a repository.
    pub fn needs_resolution(&self) -> bool {
        self.mode().is_some()
            || !self.opaque.is_empty()
            || !self.control.is_empty()
            || self.steps.iter().any(|s| matches!(s, Step::Script(_) | Step::Program(_) | Step::Alias(_)))
            || self.may_write_codeguards_own()
    }

    /// Whether a file the command writes, moves, removes or `chmod`s is named like one of
    /// codeguard's own: its state directory or program, git's hooks directory, an agent host's
    /// settings or hooks file. Only the name is read here (pure); where it really lands and
    /// whether codeguard's entries are in it is judged on the file system
    /// (`crate::install::protected`).
    pub fn may_write_codeguards_own(&self) -> bool {
        let named = |p: &str| may_name_codeguards_own(p);
        self.steps.iter().any(|s| match s {
            Step::Write(w) => {
                w.dir.iter().any(|d| matches!(d, DirPart::Path(p) | DirPart::Home(p) if named(p)))
                    || w.path.as_deref().is_some_and(named)
                    || w.home_rest.as_deref().is_some_and(|r| r.is_empty() || named(r))
            }
            Step::Git(_) | Step::Script(_) | Step::Program(_) | Step::Alias(_) => false,
        })
    }

    /// The git invocations, in order.
    pub fn git_calls(&self) -> impl Iterator<Item = &GitCall> {
        self.steps.iter().filter_map(|s| match s {
            Step::Git(c) => Some(c),
            Step::Script(_) | Step::Program(_) | Step::Alias(_) | Step::Write(_) => None,
        })
    }
}

/// Analyses a command typed by the agent.
pub fn analyse(command: &str) -> Analysis {
    analyse_with(&BrushParser, command, 0)
}

/// Analyses `source` with a given parser at an indirection `depth` (0 = typed by the agent).
pub(crate) fn analyse_with(parser: &dyn ShellParser, source: &str, depth: u8) -> Analysis {
    walk::Walker::run(parser, source, depth)
}

/// Expands the alias call `call` whose value [`crate::intent`] read from the git config: a
/// plain alias is analysed as git with the alias words in place of its name, a `!` alias as
/// shell code run from the top of the worktree, one indirection level down.
pub(crate) fn expand_alias(call: &AliasCall, value: &str) -> Analysis {
    let mut w = walk::Walker::new(&BrushParser, value, call.depth);
    w.resolved_alias(call, value);
    w.finish(value)
}

/// Analyses the body of a script [`crate::intent`] has read. Shell bodies are walked at depth 1
/// (their own indirections are not read again); Python and Node bodies are scanned for git call
/// forms only, and a commit or push there is an [`Opaque`] block: it cannot be modelled.
pub(crate) fn analyse_script(body: &str, interpreter: Interpreter) -> Analysis {
    match interpreter {
        Interpreter::Shell | Interpreter::Shebang => analyse_with(&BrushParser, body, 1),
        Interpreter::Python | Interpreter::Node => {
            let mut w = walk::Walker::new(&BrushParser, body, 1);
            w.program(body, interpreter, "script");
            // What the program writes is not modelled: if it may write at all, it may write
            // anything.
            w.inline_code_writes(body, "script");
            w.finish(body)
        }
    }
}

/// Whether the text of a command suggests a commit or push: it contains the word `push` or
/// `commit`. Used only for constructs that cannot be analysed.
pub(crate) fn looks_like(text: &str) -> Option<Mode> {
    let mut mode = None;
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        match word {
            "push" => return Some(Mode::Push),
            "commit" => mode = Some(Mode::Commit),
            _ => {}
        }
    }
    mode
}

/// Whether a written path's name could be one of codeguard's own files (`crate::install::protected`
/// decides): its state directory or program (`codeguard`), a git hook (`hooks`, `.git/`, a bare
/// `.git`, not `.github` or `.gitignore`) or an agent host's settings. What cannot be one costs a
/// write nothing more.
pub(crate) fn may_name_codeguards_own(path: &str) -> bool {
    const HINTS: [&str; 18] = [
        "codeguard",
        "plugin",
        "extensions",
        "cordis.patch",
        "gitconfig",
        "git/config",
        "hooks",
        ".claude",
        ".codex",
        ".gemini",
        ".kimi",
        ".qwen",
        ".cursor",
        ".copilot",
        ".openhands",
        "opencode",
        "settings.json",
        ".git/",
    ];
    // Directories of hosts whose files of codeguard's are named otherwise (pi's extension, Cline's
    // scripts, dsh's patch layer), and the config directory opencode's and Kilo's live in.
    const DIRS: [&str; 9] =
        [".pi", ".cline", ".clinerules", ".dsh", "kilo", ".kilo", ".kilocode", ".config", ".agents"];
    let p = path.to_ascii_lowercase();
    let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    last == ".git" || HINTS.iter().any(|h| p.contains(h)) || p.split('/').any(|c| DIRS.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chains(cmd: &str) -> Vec<u32> {
        analyse(cmd).git_calls().map(|c| c.chain).collect()
    }

    #[test]
    fn a_function_defined_in_the_call_shadows_the_program_of_its_name() {
        assert_eq!(analyse("git() { echo not git; }; git commit -m x").mode(), None);
        assert_eq!(analyse("git() { command git \"$@\"; }; git commit -m x").mode(), Some(Mode::Commit));
        assert_eq!(
            analyse("git() { :; }; command git push").mode(),
            Some(Mode::Push),
            "`command` runs the program"
        );
        assert_eq!(analyse("git commit -m x; git() { :; }").mode(), Some(Mode::Commit), "defined after");
    }

    #[test]
    fn programs_that_commit_by_themselves_and_runners_are_guarded() {
        for cmd in [
            "cz bump --yes",
            "bump-my-version bump patch",
            "git-flow release finish 1",
            "parallel git commit -am ::: x",
            "parallel ::: 'git push'",
            "npx -c 'git commit -am x'",
            "npm exec -c 'git push'",
            "echo commit -am x | xargs git",
            "git submodule foreach 'git commit -am x'",
            "perl release.pl",
        ] {
            assert!(analyse(cmd).needs_resolution(), "{cmd}");
        }
        for cmd in ["git-lfs push origin main", "parallel echo ::: a b", "npx prettier --check ."] {
            assert_eq!(analyse(cmd).mode(), None, "{cmd}");
            assert!(analyse(cmd).opaque.is_empty(), "{cmd}");
        }
    }

    #[test]
    fn only_and_keeps_a_chain_segment() {
        let c = chains("git config codeguard.skipGate true && git commit -m x");
        assert_eq!(c[0], c[1]);
        for sep in ["; ", " || ", " | ", " & ", "\n"] {
            let c = chains(&format!("git config codeguard.skipGate true{sep}git commit -m x"));
            assert_ne!(c[0], c[1], "{sep:?}");
        }
        let c = chains("if git config codeguard.skipGate true; then git commit -m x; fi");
        assert_eq!(c[0], c[1]);
    }

    #[test]
    fn sub_shells_scope_directories_and_groups_share_them() {
        let last_dir = |cmd: &str| analyse(cmd).git_calls().last().map(|c| c.dir.clone()).unwrap_or_default();
        assert!(last_dir("(cd a) && git push").is_empty());
        assert_eq!(last_dir("{ cd a; } && git push"), [DirPart::Path("a".into())]);
        assert!(last_dir("echo $(cd a) && git push").is_empty());
        assert!(last_dir("bash -c 'cd a' && git push").is_empty());
    }

    #[test]
    fn indirection_depth_is_recorded() {
        let depth = |cmd: &str| analyse(cmd).git_calls().map(|c| c.depth).collect::<Vec<_>>();
        assert_eq!(depth("git push"), [0]);
        assert_eq!(depth("bash -c 'git push'"), [1]);
        assert_eq!(depth("echo $(git push)"), [0]);
    }

    #[test]
    fn shebang_lines_name_interpreters() {
        assert_eq!(Interpreter::from_shebang("#!/bin/bash -e"), Some(Interpreter::Shell));
        assert_eq!(Interpreter::from_shebang("#!/usr/bin/env -S python3 -u"), Some(Interpreter::Python));
        assert_eq!(Interpreter::from_shebang("#!/usr/bin/env node"), Some(Interpreter::Node));
        assert_eq!(Interpreter::from_shebang("#!/usr/bin/env ruby"), None);
        assert_eq!(Interpreter::from_shebang("echo hi"), None);
    }

    #[test]
    fn looks_like_uses_whole_words() {
        assert_eq!(looks_like("$g push origin"), Some(Mode::Push));
        assert_eq!(looks_like("commit then push"), Some(Mode::Push));
        assert_eq!(looks_like("$EDITOR commit_msg pushed"), None);
    }

    /// Only writes named like codeguard's own files leave the pass-through.
    #[test]
    fn writes_named_like_codeguards_own_files_need_resolution() {
        for own in [
            "rm -rf .git/hooks",
            "mv .git x",
            "echo '{}' > ~/.claude/settings.json",
            "chmod -x .githooks/pre-commit",
            "rm -rf ~/.codeguard",
            "rm -rf $HOME/.codeguard",
            "rm -rf \"${HOME}/.codeguard\"",
        ] {
            let a = analyse(own);
            assert!(a.may_write_codeguards_own() && a.needs_resolution(), "{own}");
        }
        for other in [
            "echo x > .github/workflows/ci.yml",
            "echo '*.log' >> .gitignore",
            "echo x > notes.txt",
            "rm -rf build",
        ] {
            let a = analyse(other);
            assert!(!a.may_write_codeguards_own() && !a.needs_resolution(), "{other}");
        }
    }
}
