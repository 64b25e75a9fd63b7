//! Command-line types (clap derive). Parsing only: no I/O, no decisions.

use std::path::PathBuf;

use crate::mode::{GitHook, Scope};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

/// codeguard: a commit/push quality gate for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "codeguard", version, about, disable_help_subcommand = true)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The sub-commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lint a project: the whole tree (default), the working-tree changes, or the staged snapshot.
    Check(CheckArgs),
    /// Show what the gate predicts for a shell command, without linting.
    Explain(ExplainArgs),
    /// List the language registry.
    Languages(LanguagesArgs),
    /// Hook entry point for agent hosts: reads the host's payload on stdin.
    Hook(HookArgs),
    /// Called by git's own hooks: check exactly what the commit or push carries (0 pass, 1 block).
    GitHook(GitHookArgs),
    /// Install codeguard's hooks (`--git-hooks`: git's pre-commit, pre-push and reference-transaction).
    Install(InstallArgs),
    /// Remove what `install` wrote, restoring the hooks it chained to.
    Uninstall(UninstallArgs),
    /// Check that hosts run codeguard, linters are reachable and the state directory works.
    Doctor(DoctorArgs),
    /// Run the formatters on the changed files (`--all`: the whole project), then re-check.
    Fix(FixArgs),
    /// Propose (or, with `--apply`, write) missing linter configs and an AGENTS.md block.
    Init(InitArgs),
    /// Show the languages of a project, with the evidence and whether their linters are ready.
    Detect(DetectArgs),
    /// Serve codeguard's tools (check, explain, fix, languages) over MCP on stdin/stdout.
    Mcp,
    /// Allow a repository's own commands (its codeguard.json lint/format/gate) to run.
    Trust(TrustArgs),
    /// Revoke `codeguard trust`: the repository's own commands stop running.
    Untrust(TrustArgs),
    /// Inspect or reset codeguard's state (sessions, dedup, audit, caches, trust).
    State(StateArgs),
    /// Install, list, update or remove the linters codeguard manages for you
    /// (`CODEGUARD_HOME/tools`).
    Tools(ToolsArgs),
}

/// Arguments of `codeguard tools`.
#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ToolsAction,
}

/// The `codeguard tools` actions.
#[derive(Debug, Subcommand)]
pub(crate) enum ToolsAction {
    /// Install the pinned tools of some languages (`--lang`) or of the project's languages
    /// (`--detected`); tools already installed are left as they are.
    #[command(group(ArgGroup::new("which").args(["lang", "detected"])))]
    Install {
        /// These languages' tools (comma-separated registry ids).
        #[arg(long, value_delimiter = ',')]
        lang: Vec<String>,
        /// The tools of the languages the project at PATH (default: the current directory) is
        /// checked for.
        #[arg(long)]
        detected: bool,
        /// The project for `--detected`.
        #[arg(requires = "detected")]
        path: Option<PathBuf>,
    },
    /// List the managed tools: name, version, package, where, ready or not.
    List {
        /// Only these languages' tools.
        #[arg(long, value_delimiter = ',')]
        lang: Vec<String>,
        /// Output format.
        #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
        format: Format,
    },
    /// Bring installed tools to the versions this codeguard pins, removing older versions.
    Update,
    /// Remove installed tools (every version): these languages' (`--lang`), or all.
    Remove {
        /// Only these languages' tools.
        #[arg(long, value_delimiter = ',')]
        lang: Vec<String>,
    },
}

/// Arguments of `codeguard fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// The project directory (default: the current directory).
    pub path: Option<PathBuf>,
    /// Only these languages (comma-separated registry ids).
    #[arg(long, value_delimiter = ',')]
    pub lang: Vec<String>,
    /// Fix the whole project (also runs project-level formatters such as `cargo fmt`), not only
    /// the files changed against HEAD.
    #[arg(long)]
    pub all: bool,
    /// Print the commands that would run; run and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
    pub format: Format,
    /// Deadline per formatter (and per linter of the re-check), in seconds.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
}

/// Arguments of `codeguard init`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The project directory (default: the current directory).
    pub path: Option<PathBuf>,
    /// Show what would be written (the default).
    #[arg(long, conflicts_with = "apply")]
    pub dry_run: bool,
    /// Write the missing files and the AGENTS.md block (never overwrites a file of yours).
    #[arg(long)]
    pub apply: bool,
}

/// Arguments of `codeguard detect`.
#[derive(Debug, Args)]
pub(crate) struct DetectArgs {
    /// The project directory (default: the current directory).
    pub path: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
    pub format: Format,
}

/// Arguments of `codeguard doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Only this host (default: every host whose settings mention codeguard).
    #[arg(long)]
    pub host: Option<String>,
    /// Output format.
    #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
    pub format: Format,
}

/// Arguments of `codeguard trust` and `codeguard untrust`.
#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// A directory of the workspace (default: the current directory); the decision applies to
    /// the whole git worktree containing it.
    pub dir: Option<PathBuf>,
}

/// Arguments of `codeguard state`.
#[derive(Debug, Args)]
pub(crate) struct StateArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: StateAction,
}

/// The `codeguard state` actions.
#[derive(Debug, Subcommand)]
pub(crate) enum StateAction {
    /// Print the state directory's content: sessions, bypasses, dedup, caches, trust.
    Show {
        /// Only this host session.
        #[arg(long)]
        session: Option<String>,
        /// Output format.
        #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
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
pub(crate) struct HookArgs {
    /// The hook event: session-start, user-prompt-submit, pre-tool-use, post-tool-use or stop (a
    /// host's own names such as `BeforeTool` are accepted too; unknown events are ignored), or
    /// `capabilities` (what the neutral contract offers, as JSON; reads nothing).
    pub event: String,
    /// The host whose payload and answer format to use: claude, codex, gemini, kimi, copilot,
    /// cursor, openhands, zcode or neutral.
    #[arg(long, default_value = "claude")]
    pub host: String,
}

/// Output formats for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Text for people.
    Human,
    /// Exactly one JSON document.
    Json,
    /// SARIF 2.1.0 (only `check`): one run per linter, the safety scan as its own run.
    Sarif,
}

impl Format {
    /// The parser for commands that print text or JSON only (SARIF describes lint results).
    fn text_or_json() -> impl TypedValueParser<Value = Format> {
        PossibleValuesParser::new(["human", "json"])
            .map(|value| if value == "json" { Format::Json } else { Format::Human })
    }
}

/// Arguments of `codeguard check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
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
    /// has a complete result in the soft cache, or a file's clean result is known.
    #[arg(long)]
    pub no_cache: bool,
    /// Install the missing managed tools of the detected languages before checking, also where
    /// that is off by default (not a terminal, or `CI` set).
    #[arg(long, conflicts_with = "no_install")]
    pub install: bool,
    /// Never install missing tools (also `CODEGUARD_NO_INSTALL=1`).
    #[arg(long)]
    pub no_install: bool,
}

impl CheckArgs {
    /// The selected scope.
    pub(crate) fn scope(&self) -> Scope {
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
pub(crate) struct ExplainArgs {
    /// The directory the command would run in (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
    pub format: Format,
    /// The shell command, after `--`.
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

/// Arguments of `codeguard languages`.
#[derive(Debug, Args)]
pub(crate) struct LanguagesArgs {
    /// Output format.
    #[arg(long, default_value = "human", value_parser = Format::text_or_json())]
    pub format: Format,
}

/// Arguments of `codeguard git-hook`.
#[derive(Debug, Args)]
pub(crate) struct GitHookArgs {
    /// Which hook git is running.
    #[arg(value_enum)]
    pub hook: GitHook,
    /// What git passes to the hook (pre-push: the remote's name and URL, shown, not needed;
    /// reference-transaction: the transaction's state, of which only `prepared` is judged).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub git_args: Vec<String>,
}

/// Arguments of `codeguard install`: exactly one target.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["git_hooks", "host"])))]
pub(crate) struct InstallArgs {
    /// Install git's pre-commit, pre-push and reference-transaction hooks in the current repository.
    #[arg(long)]
    pub git_hooks: bool,
    /// Register codeguard's hooks in an agent host's settings: claude, codex, gemini, kimi,
    /// copilot, cursor or openhands.
    #[arg(long)]
    pub host: Option<String>,
    /// Which settings file (user-wide by default, or a project's).
    #[command(flatten)]
    pub scope: SettingsScope,
    /// Also register codeguard's MCP server (`codeguard mcp`) with the host (claude, codex,
    /// gemini).
    #[arg(long, requires = "host")]
    pub mcp: bool,
    /// Gemini with `--project`: also add the folder to Gemini's trusted folders
    /// (`~/.gemini/trustedFolders.json`); Gemini ignores an untrusted folder's hooks.
    #[arg(long, requires = "host")]
    pub trust_folder: bool,
    /// Show what would change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace an existing git hook instead of chaining to it (the original is kept as a backup
    /// that `uninstall` restores).
    #[arg(long, requires = "git_hooks")]
    pub force: bool,
}

/// Which of a host's settings files to change.
#[derive(Debug, Args)]
pub(crate) struct SettingsScope {
    /// The user's settings (the default).
    #[arg(long, conflicts_with = "project", requires = "host")]
    pub user: bool,
    /// A project's settings, in this directory.
    #[arg(long, value_name = "DIR", requires = "host")]
    pub project: Option<PathBuf>,
}

/// Arguments of `codeguard uninstall`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["git_hooks", "host"])))]
pub(crate) struct UninstallArgs {
    /// Remove codeguard's git hooks from the current repository and restore what they chained to.
    #[arg(long)]
    pub git_hooks: bool,
    /// Remove codeguard's entries from an agent host's settings (restoring the file as it was).
    #[arg(long)]
    pub host: Option<String>,
    /// Also remove codeguard's MCP server registration.
    #[arg(long, requires = "host")]
    pub mcp: bool,
    /// Which settings file.
    #[command(flatten)]
    pub scope: SettingsScope,
}
