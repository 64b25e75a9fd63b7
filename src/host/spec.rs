//! One [`HostSpec`] per host: every fact about a host that codeguard relies on, in one table.
//! Decoding (tool names), encoding (deny channel), the install matchers and event keys, `doctor`
//! (matcher coverage, settings location, trust mechanism) and `hook capabilities` read it;
//! tests check that they agree with it and with `hooks/__protocol__.md`.
//!
//! Facts come from the hosts' shipped code and from the e2e suite (`tests/e2e/`), which runs the
//! real host binaries against a scripted model.

use super::{Event, Host};

/// How a host compares a hook's `matcher` with a tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatcherRule {
    /// The host has no matchers: every hook sees every tool.
    None,
    /// A regex that must match the whole name (Claude Code, Codex, Gemini CLI); `*` or empty
    /// matches all.
    Anchored,
    /// A regex found anywhere in the name (`re.search`: Kimi CLI, Kimi Code).
    Search,
    /// Exact unless it holds a regex character, then an anchored regex (`OpenHands`).
    ExactOrAnchored,
}

impl MatcherRule {
    /// Whether `matcher` (absent: `None`) selects the tool `name` under this rule.
    pub(crate) fn covers(self, matcher: Option<&str>, name: &str) -> bool {
        let Some(matcher) = matcher.filter(|m| !m.is_empty() && *m != "*") else { return true };
        let anchored = || regex::Regex::new(&format!("^(?:{matcher})$")).is_ok_and(|r| r.is_match(name));
        match self {
            Self::None => true,
            Self::Anchored => anchored(),
            Self::Search => regex::Regex::new(matcher).is_ok_and(|r| r.is_match(name)),
            Self::ExactOrAnchored => {
                if matcher.chars().any(|c| "|.*+?[]()^$\\".contains(c)) {
                    anchored()
                } else {
                    matcher == name
                }
            }
        }
    }
}

/// How a pre-tool-use block reaches the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DenyChannel {
    /// Exit 2, the report on stderr.
    ExitTwo,
    /// Exit 0 with a JSON deny on stdout (exit codes do not block, or fail open).
    JsonDeny,
    /// The neutral contract's response with exit 1.
    Neutral,
    /// Exit 0 with stdout JSON that replaces the call by one that hands the report to the model
    /// (Cline's `overrideInput`: a command that prints it and fails).
    ReplaceCall,
}

/// How a host puts a tool call to its user for confirmation, where it can (verified with the
/// released binaries: a host that cannot ask headless refuses instead, never runs the call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AskChannel {
    /// No way that is known to hold: Codex marks an `"ask"` answer as a failed hook and runs the
    /// call; headless Gemini CLI ends the whole run silently; Kimi, `OpenHands` and the neutral
    /// contract have no such answer.
    None,
    /// `hookSpecificOutput.permissionDecision: "ask"` + `permissionDecisionReason` (Claude Code).
    PermissionDecision,
    /// Top-level `permissionDecision: "ask"` + `permissionDecisionReason` (Copilot CLI).
    TopLevelPermission,
    /// `permission: "ask"` with `user_message` and `agent_message` (Cursor).
    Permission,
}

/// What the host does with context codeguard prints for an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// It reaches the model.
    Model,
    /// It is shown to the user only.
    User,
    /// The host ignores it (or could only use it to continue the turn): codeguard prints nothing.
    Ignored,
}

/// What must be true, besides the settings file, for the host to run the hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trust {
    /// Nothing.
    None,
    /// Each hook must be recorded as reviewed in the user config (`[hooks.state]`), and a
    /// project's hooks need the project trusted.
    CodexHookState,
    /// A project's hooks load only in a trusted folder.
    GeminiFolder,
    /// The hooks file runs only when a patch layer inserts dsh's Claude-hooks bridge reading it
    /// (`crate::install::dsh`).
    DshBridge,
}

/// How the host's agent shell gets git's `core.hooksPath` naming codeguard's session hooks
/// directory (the backstop, see `crate::install::session_hooks`), verified with the released
/// binaries in `tests/e2e/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionEnv {
    /// No mechanism codeguard uses: the backstop there is `codeguard install --git-hooks`, per
    /// repository, and the gate fails closed on what it cannot predict.
    None,
    /// The settings file's `env` object, applied to the shell tool's commands and to hook
    /// commands alike (Claude Code).
    SettingsEnv,
    /// The user `config.toml`'s `[shell_environment_policy.set]`, applied to the shell tool's
    /// commands but not to hook commands (Codex): the gate reads the config to know.
    CodexShellPolicy,
}

/// How codeguard's hook entries sit in a host's settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HooksFile {
    /// A JSON object whose `hooks` object holds the entries, per event.
    Json,
    /// The same with a top-level `"version": 1`, which the host requires (Copilot CLI, Cursor).
    VersionedJson,
    /// A marked block of `[[hooks]]` tables in a TOML config, every other byte left alone (Kimi).
    TomlBlock,
    /// A marked block of `[[hooks.EVENT]]` tables in a TOML config (ari).
    TomlEventTables,
    /// A JavaScript plugin file of codeguard's own, which the host loads in its process and
    /// which runs the hook entries it carries (Claude's JSON shape, on one line) at the host's
    /// own plugin events (`crate::install::plugin`).
    JsPlugin(PluginApi),
    /// One script per event in the host's hooks directory, named as the event (Cline): each
    /// carries every entry and runs the one its own name names.
    EventScripts,
    /// None: the host runs no hook of its own, so its gate is codeguard's git hooks in each
    /// repository (`install --git-hooks`), which `install --host` writes there.
    GitHooksOnly,
}

/// Which plugin interface a host loads codeguard's JavaScript file through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PluginApi {
    /// opencode's plugin functions (`tool.execute.before`, `tool.execute.after`, `chat.message`,
    /// `event`): opencode and its fork Kilo.
    Opencode,
    /// pi's extension events (`tool_call`, `tool_result`, `input`, `session_start`, `agent_end`).
    Pi,
}

impl HooksFile {
    /// Whether the hooks sit in a TOML config.
    pub(crate) fn is_toml(self) -> bool {
        matches!(self, Self::TomlBlock | Self::TomlEventTables)
    }

    /// Whether the file is wholly codeguard's (a plugin or hook scripts it writes).
    pub(crate) fn is_ours_whole(self) -> bool {
        matches!(self, Self::JsPlugin(_) | Self::EventScripts)
    }
}

/// Which user settings files hold the hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UserFiles {
    /// One file.
    One,
    /// The config of each Kimi (`crate::install::settings::Kimi`): Kimi CLI and Kimi Code read
    /// the same format from different files, each moved by its own variable.
    EachKimi,
    /// A file per event, in one directory ([`HooksFile::EventScripts`]).
    EachEvent,
}

/// How a host's behaviour is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tested {
    /// Its released package, pinned in `tests/e2e/run.sh` under a variable.
    Pinned {
        /// The package's name on its registry.
        package: &'static str,
        /// The variable holding its version in `tests/e2e/run.sh`.
        var: &'static str,
    },
    /// No released binary here: what the tests rest on instead.
    Without(&'static str),
}

/// Everything codeguard relies on about one host.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostSpec {
    /// Its name for people.
    pub label: &'static str,
    /// Tool names of its shell tool(s), as the hook payload spells them.
    pub shell_tools: &'static [&'static str],
    /// Tool names of its file-writing tools.
    pub edit_tools: &'static [&'static str],
    /// Its own event names, in [`Event::ALL`] order (`None`: it has no such event).
    pub events: [Option<&'static str>; 5],
    /// How its matchers select tools.
    pub matcher: MatcherRule,
    /// The pre-tool-use matcher codeguard installs (`None`: no matcher, every tool): its shell
    /// tools, and its file-writing tools, whose writes to codeguard's own files are refused.
    pub shell_matcher: Option<&'static str>,
    /// The post-tool-use matcher codeguard installs.
    pub edit_matcher: Option<&'static str>,
    /// How a block reaches it.
    pub deny: DenyChannel,
    /// How it asks its user to confirm a tool call (an agent's one-shot lint bypass goes there).
    pub ask: AskChannel,
    /// What it does with context, per event in [`Event::ALL`] order.
    pub delivers: [Delivery; 5],
    /// What else decides whether it runs the hooks.
    pub trust: Trust,
    /// How the hook entries sit in its settings file.
    pub hooks_file: HooksFile,
    /// Which user settings files hold them.
    pub user_files: UserFiles,
    /// How its agent shell is given codeguard's session hooks directory.
    pub session_env: SessionEnv,
    /// Whether its prompts carry the context hooks gave earlier as `<hook_context>` blocks before
    /// the user's words (Gemini CLI), which the decoder takes off.
    pub prompt_hook_context: bool,
    /// The argument of its shell tools that names the directory the command runs in (Gemini
    /// CLI's `dir_path`, Qwen Code's `directory`, Codex's `workdir`): the command is judged
    /// there. Only the host's own: a host that ignores an argument its tool does not have must
    /// not make codeguard judge another directory than the one the command runs in.
    pub shell_dir_keys: &'static [&'static str],
    /// The longest it waits for a pre-tool-use hook whatever timeout the hook is given, past
    /// which it runs the call without the answer (`None`: the hook's own timeout holds): the
    /// gate's budget stays well under it.
    pub waits_at_most_secs: Option<u64>,
    /// How the end-to-end suite proves it (`tests/e2e/run.sh`): the pin variable of its released
    /// package there, or what stands in for one and why.
    pub tested: Tested,
    /// Whether it is one agent host's own dialect. The neutral contract is not: supervisors of
    /// any host call it, so its decoder accepts every host's tool names, and it is not listed
    /// among the providers `hook capabilities` reports.
    pub provider: bool,
}

impl HostSpec {
    /// The host's name for an event.
    pub(crate) fn event_name(&self, event: Event) -> Option<&'static str> {
        let index = Event::ALL.iter().position(|e| *e == event)?;
        self.events[index]
    }

    /// Whether the host can put a tool call to its user for confirmation.
    pub(crate) fn can_ask(&self) -> bool {
        self.ask != AskChannel::None
    }

    /// What the host does with context for an event.
    pub(crate) fn delivery(&self, event: Event) -> Delivery {
        let index = Event::ALL.iter().position(|e| *e == event).unwrap_or(0);
        self.delivers[index]
    }
}

const CLAUDE_EVENTS: [Option<&str>; 5] = [
    Some(Event::SessionStart.claude_name()),
    Some(Event::UserPromptSubmit.claude_name()),
    Some(Event::PreToolUse.claude_name()),
    Some(Event::PostToolUse.claude_name()),
    Some(Event::Stop.claude_name()),
];
/// opencode's file-writing tools (`patch`/`apply_patch` for models that write patches).
const OPENCODE_EDITS: &[&str] = &["edit", "write", "patch", "multiedit", "apply_patch"];
const CLAUDE_EDITS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];
use Delivery::{Ignored, Model, User};

/// Claude Code's spec (the default dialect; `ZCode`'s is the same under its own name).
const CLAUDE: HostSpec = HostSpec {
    label: "Claude Code",
    shell_tools: &["Bash", "PowerShell"],
    edit_tools: CLAUDE_EDITS,
    events: CLAUDE_EVENTS,
    matcher: MatcherRule::Anchored,
    shell_matcher: Some("Bash|PowerShell|Write|Edit|MultiEdit|NotebookEdit"),
    edit_matcher: Some("Write|Edit|MultiEdit|NotebookEdit"),
    deny: DenyChannel::ExitTwo,
    ask: AskChannel::PermissionDecision,
    delivers: [Model, Model, Model, Model, User],
    trust: Trust::None,
    hooks_file: HooksFile::Json,
    user_files: UserFiles::One,
    session_env: SessionEnv::SettingsEnv,
    prompt_hook_context: false,
    shell_dir_keys: &[],
    waits_at_most_secs: None,
    tested: Tested::Pinned { package: "@anthropic-ai/claude-code", var: "CLAUDE_CODE" },
    provider: true,
};

/// The spec of a host.
pub(crate) fn spec(host: Host) -> HostSpec {
    match host {
        Host::Claude => CLAUDE,
        // ZCode's payloads are Claude-shaped: the same facts under its own name.
        Host::Zcode => HostSpec {
            label: "ZCode",
            session_env: SessionEnv::None,
            tested: Tested::Without(
                "no released binary here: Claude-shaped payload fixtures from its documentation",
            ),
            ..CLAUDE
        },
        Host::Codex => HostSpec {
            label: "Codex CLI",
            shell_tools: &["Bash", "shell", "exec_command"],
            edit_tools: &["apply_patch", "Edit", "Write"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Anchored,
            shell_matcher: None,
            edit_matcher: Some("apply_patch|Edit|Write"),
            deny: DenyChannel::JsonDeny,
            ask: AskChannel::None,
            delivers: [Model, Model, Model, Model, User],
            trust: Trust::CodexHookState,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::CodexShellPolicy,
            prompt_hook_context: false,
            shell_dir_keys: &["workdir"],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@openai/codex", var: "CODEX" },
            provider: true,
        },
        Host::Gemini => HostSpec {
            label: "Gemini CLI",
            shell_tools: &["run_shell_command"],
            edit_tools: &["write_file", "replace"],
            events: [
                Some("SessionStart"),
                Some("BeforeAgent"),
                Some("BeforeTool"),
                Some("AfterTool"),
                Some("AfterAgent"),
            ],
            matcher: MatcherRule::Anchored,
            shell_matcher: Some("run_shell_command|write_file|replace"),
            edit_matcher: Some("write_file|replace"),
            deny: DenyChannel::ExitTwo,
            // It has `decision: "ask"`, but headless (`gemini -p`, 0.61.0) nothing answers it and
            // the whole run ends at once with exit 0 and no output: not a question, a silent stop.
            ask: AskChannel::None,
            delivers: [Model, Model, Model, Model, User],
            trust: Trust::GeminiFolder,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: true,
            shell_dir_keys: &["dir_path"],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@google/gemini-cli", var: "GEMINI_CLI" },
            provider: true,
        },
        Host::Kimi => HostSpec {
            label: "Kimi CLI / Kimi Code",
            shell_tools: &["Bash", "Shell"],
            edit_tools: &["Write", "Edit", "WriteFile", "StrReplaceFile"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Search,
            shell_matcher: Some("Bash|Shell|Write|Edit|WriteFile|StrReplaceFile"),
            edit_matcher: Some("Write|Edit|WriteFile|StrReplaceFile"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Ignored, Ignored, Model, Ignored, User],
            trust: Trust::None,
            hooks_file: HooksFile::TomlBlock,
            user_files: UserFiles::EachKimi,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "kimi-cli", var: "KIMI_CLI" },
            provider: true,
        },
        Host::Copilot => HostSpec {
            label: "GitHub Copilot CLI",
            shell_tools: &["bash", "powershell"],
            edit_tools: &["create", "edit", "apply_patch"],
            events: [
                Some("sessionStart"),
                Some("userPromptSubmitted"),
                Some("preToolUse"),
                Some("postToolUse"),
                Some("agentStop"),
            ],
            matcher: MatcherRule::None,
            shell_matcher: None,
            edit_matcher: None,
            deny: DenyChannel::JsonDeny,
            ask: AskChannel::TopLevelPermission,
            delivers: [Model, Model, Model, Model, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::VersionedJson,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@github/copilot", var: "COPILOT" },
            provider: true,
        },
        Host::Cursor => HostSpec {
            label: "Cursor",
            shell_tools: &["Shell"],
            edit_tools: &["Write", "Edit", "StrReplace"],
            events: [
                Some("sessionStart"),
                Some("beforeSubmitPrompt"),
                Some("beforeShellExecution"),
                Some("afterFileEdit"),
                Some("stop"),
            ],
            matcher: MatcherRule::None,
            shell_matcher: None,
            edit_matcher: None,
            deny: DenyChannel::JsonDeny,
            ask: AskChannel::Permission,
            delivers: [Ignored; 5],
            trust: Trust::None,
            hooks_file: HooksFile::VersionedJson,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Without("not on npm or PyPI: payload fixtures from its documentation"),
            provider: true,
        },
        Host::OpenHands => HostSpec {
            label: "OpenHands",
            shell_tools: &["terminal", "execute_bash", "bash"],
            edit_tools: &["file_editor", "str_replace_editor"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::ExactOrAnchored,
            shell_matcher: Some("terminal|execute_bash|bash|file_editor|str_replace_editor"),
            edit_matcher: Some("file_editor|str_replace_editor"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Model, Model, Model, User, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "openhands-sdk", var: "OPENHANDS_SDK" },
            provider: true,
        },
        // Verified in the bundle of 0.24.4 and with its released binary (tests/e2e): Claude-shaped
        // hooks in `settings.json`, matched by exact name (a `|` list) or an unanchored regex;
        // `monitor` runs shell commands too; `additionalContext` reaches the model at session
        // start, prompt submission and after a tool, never before one; a Stop output is shown
        // to the user; any exit but 2, and a hook its message bus waited on for 60 s, let the
        // call run.
        Host::Qwen => HostSpec {
            label: "Qwen Code",
            shell_tools: &["run_shell_command", "monitor"],
            edit_tools: &["write_file", "edit", "notebook_edit"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Search,
            shell_matcher: Some("run_shell_command|monitor|write_file|edit|notebook_edit"),
            edit_matcher: Some("write_file|edit|notebook_edit"),
            deny: DenyChannel::ExitTwo,
            // "ask" is a deny in headless runs (`qwen -p`), and the payload does not say which.
            ask: AskChannel::None,
            delivers: [Model, Model, Ignored, Model, User],
            trust: Trust::None,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &["directory"],
            waits_at_most_secs: Some(60),
            tested: Tested::Pinned { package: "@qwen-code/qwen-code", var: "QWEN_CODE" },
            provider: true,
        },
        // From its documented contract (seed 002, its `hook` package): Claude's event names; a
        // payload of its own (`event`, `tool`, `input`, `session`, `cwd`); a `|` list matcher is
        // an exact set, anything else a regex; exit 2 blocks with stderr as the message, any
        // other exit or a timeout only warns; stdout JSON is decoded strictly (an unknown key
        // turns it into plain text), `additionalContext` reaching the model at session start,
        // prompt submission and after a tool. User hooks (`~/.ari/config.toml`) always run.
        Host::Ari => HostSpec {
            label: "ari",
            shell_tools: &["sh"],
            edit_tools: &["edit", "write"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::ExactOrAnchored,
            shell_matcher: Some("sh|edit|write"),
            edit_matcher: Some("edit|write"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Model, Model, Ignored, Model, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::TomlEventTables,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Without(
                "a Go program on no registry reachable here: contract tests of its documented hook package (seed 002)",
            ),
            provider: true,
        },
        // Verified with the released 1.52.0 (tests/e2e) and its source: a plugin directory's
        // `hooks/hooks.json` (no manifest needed) in Claude's shape, run by `sh -c`, timeouts in
        // seconds; matchers are unanchored regexes, so codeguard's anchor themselves; the shell
        // tool is `shell` (older documents: `developer__shell`), edits `write`/`edit` with
        // `path`. Only exit 2 (or `{"decision":"block"}`) blocks, the reason reaching the model;
        // any other stdout than that or nothing is a hook failure, which lets the call run, and
        // no hook output reaches the model otherwise: codeguard prints nothing else there.
        Host::Goose => HostSpec {
            label: "goose",
            shell_tools: &["shell", "developer__shell"],
            edit_tools: &["write", "edit", "developer__text_editor"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Search,
            shell_matcher: Some("^(shell|developer__shell|write|edit|developer__text_editor)$"),
            edit_matcher: Some("^(write|edit|developer__text_editor)$"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Ignored; 5],
            trust: Trust::None,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@aaif/goose-binary-linux-x64", var: "GOOSE" },
            provider: true,
        },
        // Verified with the released 1.18.33 (tests/e2e): a plugin file in its plugin directory is
        // loaded in its process; codeguard's runs the hook entries it carries at opencode's own
        // plugin functions, a block thrown as an error whose message the model receives.
        Host::Opencode => HostSpec {
            label: "opencode",
            shell_tools: &["bash"],
            edit_tools: OPENCODE_EDITS,
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Anchored,
            shell_matcher: Some("bash|edit|write|patch|multiedit|apply_patch"),
            edit_matcher: Some("edit|write|patch|multiedit|apply_patch"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Model, Model, Model, Model, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::JsPlugin(PluginApi::Opencode),
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &["workdir"],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "opencode-ai", var: "OPENCODE" },
            provider: true,
        },
        // opencode's fork, with the same plugin interface under its own directories
        // (verified with the released 7.7.7, tests/e2e).
        Host::Kilo => HostSpec {
            label: "Kilo Code CLI",
            tested: Tested::Pinned { package: "@kilocode/cli", var: "KILO" },
            ..spec(Host::Opencode)
        },
        // Verified with the released 1.6.0 (tests/e2e): an extension file in its extensions
        // directory; a `tool_call` answered `{block, reason}` hands the reason to the model.
        Host::Pi => HostSpec {
            label: "pi",
            shell_tools: &["bash"],
            edit_tools: &["edit", "write"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Anchored,
            shell_matcher: Some("bash|edit|write"),
            edit_matcher: Some("edit|write"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Model, Model, Model, Model, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::JsPlugin(PluginApi::Pi),
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@earendil-works/pi-coding-agent", var: "PI" },
            provider: true,
        },
        // Verified with the released 3.0.65 (tests/e2e) and its SDK (`@cline/core` 0.0.86): a
        // file per event in `~/.cline/hooks` run with its `#!` interpreter, no matchers (every
        // tool fires PreToolUse), exit codes ignored. Only stdout JSON acts: `overrideInput`
        // replaces the call's whole input — a command that prints the reason and fails is how
        // a block reaches the model (`cancel` ends the run, and nobody is told why);
        // `contextModification` reaches the model after a tool. TaskStart and UserPromptSubmit
        // run detached (their output is dropped; the latter never fired in a headless run). The shell tool
        // `run_commands` takes an array of commands, run at once, each in the session's
        // directory.
        Host::Cline => HostSpec {
            label: "Cline CLI",
            shell_tools: &["run_commands"],
            edit_tools: &["editor", "apply_patch"],
            events: [
                Some("TaskStart"),
                Some("UserPromptSubmit"),
                Some("PreToolUse"),
                Some("PostToolUse"),
                Some("TaskComplete"),
            ],
            matcher: MatcherRule::None,
            shell_matcher: None,
            edit_matcher: None,
            deny: DenyChannel::ReplaceCall,
            ask: AskChannel::None,
            delivers: [Ignored, Ignored, Model, Model, Ignored],
            trust: Trust::None,
            hooks_file: HooksFile::EventScripts,
            user_files: UserFiles::EachEvent,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: Some(120),
            tested: Tested::Pinned { package: "cline", var: "CLINE" },
            provider: true,
        },
        // Read in the bundle of 1.5.47 and with its released binary (tests/e2e): it loads
        // Claude-shaped hooks (`~/.claude/settings.json`, `~/.continue/settings.json`, a project's
        // `.claude/` and `.continue/`) but never runs them — the module that fires them is not in
        // its build. Its tools are Claude's names; its gate is git's own hooks.
        Host::Continue => HostSpec {
            label: "Continue CLI",
            shell_tools: &["Bash"],
            edit_tools: &["Edit", "MultiEdit", "Write"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::Anchored,
            shell_matcher: Some("Bash|Edit|MultiEdit|Write"),
            edit_matcher: Some("Edit|MultiEdit|Write"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Ignored; 5],
            trust: Trust::None,
            hooks_file: HooksFile::GitHooksOnly,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &[],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@continuedev/cli", var: "CONTINUE_CLI" },
            provider: true,
        },
        // Verified with the released 0.1.0-rc.8 and its bridge 0.0.1-rc.5 (tests/e2e) and the
        // bridge's source: Claude's hooks file and payload; the matcher is a literal name set
        // when it holds only letters, digits, `_` and `|` (dsh's tool names are lower-case:
        // `Bash` never matches), else a regex; exit 2 blocks with stderr, which the model gets
        // as "Error: …"; a JSON deny counts only with `hookEventName`; `systemMessage` and a
        // Stop's output are not passed on.
        Host::Dsh => HostSpec {
            label: "dsh (DeepSeek Harness)",
            shell_tools: &["bash"],
            edit_tools: &["write", "edit", "str_replace_editor"],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::ExactOrAnchored,
            shell_matcher: Some("bash|write|edit|str_replace_editor"),
            edit_matcher: Some("write|edit|str_replace_editor"),
            deny: DenyChannel::ExitTwo,
            ask: AskChannel::None,
            delivers: [Model, Model, Model, Model, Ignored],
            trust: Trust::DshBridge,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &["workdir"],
            waits_at_most_secs: None,
            tested: Tested::Pinned { package: "@deepseek-ai/dsh", var: "DSH" },
            provider: true,
        },
        Host::Neutral => HostSpec {
            label: "neutral contract (coding-ethos.hook/v1)",
            // Supervisors of any host call it: the decoder accepts every host's tool names.
            shell_tools: &[],
            edit_tools: &[],
            events: CLAUDE_EVENTS,
            matcher: MatcherRule::None,
            shell_matcher: None,
            edit_matcher: None,
            deny: DenyChannel::Neutral,
            ask: AskChannel::None,
            delivers: [Model; 5],
            trust: Trust::None,
            hooks_file: HooksFile::Json,
            user_files: UserFiles::One,
            session_env: SessionEnv::None,
            prompt_hook_context: false,
            shell_dir_keys: &["dir_path", "directory", "workdir"],
            waits_at_most_secs: None,
            tested: Tested::Without("a contract, not a program: its own schema tests"),
            provider: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_matchers_cover_every_tool_the_decoder_accepts() {
        for host in Host::ALL {
            let s = spec(host);
            for name in s.shell_tools {
                assert!(s.matcher.covers(s.shell_matcher, name), "{host:?} shell matcher misses {name}");
            }
            for name in s.edit_tools {
                assert!(s.matcher.covers(s.edit_matcher, name), "{host:?} edit matcher misses {name}");
                assert!(
                    s.matcher.covers(s.shell_matcher, name),
                    "{host:?} pre-tool-use matcher misses {name}: its writes to codeguard's files would pass"
                );
            }
        }
    }

    #[test]
    fn matcher_rules_follow_the_hosts() {
        assert!(!MatcherRule::ExactOrAnchored.covers(Some("terminal"), "execute_bash"));
        assert!(MatcherRule::ExactOrAnchored.covers(Some("terminal|execute_bash"), "execute_bash"));
        assert!(!MatcherRule::Anchored.covers(Some("Bash"), "BashOutput"));
        assert!(MatcherRule::Search.covers(Some("Shell"), "Shell"));
        assert!(MatcherRule::Anchored.covers(None, "anything"));
    }

    #[test]
    fn every_event_has_a_name_where_the_host_has_it() {
        for host in Host::ALL {
            for event in Event::ALL {
                assert!(spec(host).event_name(event).is_some(), "{host:?} {event:?}");
                assert_eq!(Event::from_name(spec(host).event_name(event).unwrap_or("")), Some(event));
            }
        }
    }
}
