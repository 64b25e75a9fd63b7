//! Command-line types (clap derive). Parsing only: no I/O, no decisions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// codeguard: a commit/push quality gate for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "codeguard", version, about, disable_help_subcommand = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The sub-commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint a project: the whole tree (default), the working-tree changes, or the staged snapshot.
    Check(CheckArgs),
    /// Show what the gate predicts for a shell command, without linting.
    Explain(ExplainArgs),
    /// List the language registry.
    Languages(LanguagesArgs),
    /// Hook entry point for agent hosts: reads the host's payload on stdin.
    Hook(HookArgs),
    /// Allow a repository's own commands (its codeguard.json lint/format/gate) to run.
    Trust(TrustArgs),
    /// Revoke `codeguard trust`: the repository's own commands stop running.
    Untrust(TrustArgs),
    /// Inspect or reset codeguard's state (sessions, dedup, audit, caches, trust).
    State(StateArgs),
}

/// Arguments of `codeguard trust` and `codeguard untrust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// A directory of the workspace (default: the current directory); the decision applies to
    /// the whole git worktree containing it.
    pub dir: Option<PathBuf>,
}

/// Arguments of `codeguard state`.
#[derive(Debug, Args)]
pub struct StateArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: StateAction,
}

/// The `codeguard state` actions.
#[derive(Debug, Subcommand)]
pub enum StateAction {
    /// Print the state directory's content: sessions, bypasses, dedup, caches, trust.
    Show {
        /// Only this host session.
        #[arg(long)]
        session: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Delete session statistics, dedup records and caches (never trust decisions or the audit
    /// log).
    Clear {
        /// Only this host session's statistics.
        #[arg(long)]
        session: Option<String>,
    },
}

/// Arguments of `codeguard hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook event.
    #[arg(value_enum)]
    pub event: crate::host::Event,
    /// The host whose payload and answer format to use.
    #[arg(long, value_enum, default_value = "claude")]
    pub host: crate::host::Host,
}

/// Output formats for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for people.
    Human,
    /// Exactly one JSON document.
    Json,
}

/// Which content `check` looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every file of the project.
    All,
    /// Working-tree changes against HEAD (tracked changes plus untracked, not ignored files).
    Changed,
    /// Exactly the content of the index, as `git commit` would record it.
    Staged,
}

/// Arguments of `codeguard check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The project directory (default: the current directory).
    pub path: Option<PathBuf>,
    /// Check the whole tree (the default).
    #[arg(long, conflicts_with_all = ["changed", "staged"])]
    pub all: bool,
    /// Check only files changed in the working tree against HEAD.
    #[arg(long, conflicts_with = "staged")]
    pub changed: bool,
    /// Check exactly what is staged (the index snapshot), as the commit gate does.
    #[arg(long)]
    pub staged: bool,
    /// Only these languages (comma-separated registry ids).
    #[arg(long, value_delimiter = ',')]
    pub lang: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Deadline per linter, in seconds.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// Linters run at once (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub jobs: Option<u64>,
    /// Run the linters even when an identical check (same content, configuration and tools)
    /// has a complete result in the soft cache.
    #[arg(long)]
    pub no_cache: bool,
}

impl CheckArgs {
    /// The selected scope.
    pub fn scope(&self) -> Scope {
        if self.staged {
            Scope::Staged
        } else if self.changed {
            Scope::Changed
        } else {
            Scope::All
        }
    }
}

/// Arguments of `codeguard explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The directory the command would run in (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// The shell command, after `--`.
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

/// Arguments of `codeguard languages`.
#[derive(Debug, Args)]
pub struct LanguagesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}
