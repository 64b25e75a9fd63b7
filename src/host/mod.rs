//! Host dialects: decode an agent host's hook payload into one [`HookEvent`], and encode
//! codeguard's [`Answer`] through the channel that host honours.
//!
//! In: raw stdin bytes (≤ [`MAX_PAYLOAD_BYTES`]). Out: a [`HookEvent`], or an encoded answer ([`crate::output::Output`])
//! (stdout, stderr, exit code). The encoder is the only producer of hook stdout (delivered by `crate::output`).
//! Payloads are read tolerantly (hosts rename fields between versions; unknown fields are
//! ignored), except the neutral contract's declared-strict requests.
//! Never: decides anything about the command — that is the pipeline's job.

mod decode;
mod encode;
mod neutral;
mod patch_files;
pub(crate) mod spec;

use std::path::PathBuf;

pub(crate) use encode::{encode, fail_closed_stop};
pub(crate) use neutral::capabilities;
pub(crate) use patch_files::written_paths;
pub(crate) use spec::spec;

/// Payloads larger than this are ignored (fail-open).
pub(crate) const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;

/// The agent hosts codeguard speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// Claude Code (the default dialect).
    Claude,
    /// `OpenAI` Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Kimi Code CLI (and the older Kimi CLI).
    Kimi,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cursor.
    Cursor,
    /// `OpenHands`.
    OpenHands,
    /// Qwen Code (`@qwen-code/qwen-code`).
    Qwen,
    /// ari (a Go agent; its hook contract, seed 002).
    Ari,
    /// goose (its plugin hooks).
    Goose,
    /// opencode (`opencode-ai`): codeguard's own JS plugin.
    Opencode,
    /// Kilo Code CLI (`@kilocode/cli`, an opencode fork): the same plugin.
    Kilo,
    /// pi (`@earendil-works/pi-coding-agent`): codeguard's own JS extension.
    Pi,
    /// Cline CLI (`cline`): a hook script per event in its hooks directory.
    Cline,
    /// Continue CLI (`@continuedev/cli`): its hooks never run; git's own hooks gate it.
    Continue,
    /// dsh (the `DeepSeek` Harness, `@deepseek-ai/dsh`) through its Claude-hooks bridge.
    Dsh,
    /// `ZCode` (Claude/Codex-shaped payloads).
    Zcode,
    /// The provider-neutral contract (`coding-ethos.hook/v1`).
    Neutral,
}

impl Host {
    /// Every host, for tables and coverage tests.
    pub(crate) const ALL: [Self; 18] = [
        Self::Claude,
        Self::Codex,
        Self::Gemini,
        Self::Kimi,
        Self::Copilot,
        Self::Cursor,
        Self::OpenHands,
        Self::Qwen,
        Self::Ari,
        Self::Goose,
        Self::Opencode,
        Self::Kilo,
        Self::Pi,
        Self::Cline,
        Self::Continue,
        Self::Dsh,
        Self::Zcode,
        Self::Neutral,
    ];

    /// The host's command-line name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Kimi => "kimi",
            Self::Copilot => "copilot",
            Self::Cursor => "cursor",
            Self::OpenHands => "openhands",
            Self::Qwen => "qwen",
            Self::Ari => "ari",
            Self::Goose => "goose",
            Self::Opencode => "opencode",
            Self::Kilo => "kilo",
            Self::Pi => "pi",
            Self::Cline => "cline",
            Self::Continue => "continue",
            Self::Dsh => "dsh",
            Self::Zcode => "zcode",
            Self::Neutral => "neutral",
        }
    }

    /// Parses a host name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.name().eq_ignore_ascii_case(name))
    }
}

/// The hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// A session starts.
    SessionStart,
    /// The user submitted a prompt.
    UserPromptSubmit,
    /// Before the agent runs a tool.
    PreToolUse,
    /// After the agent ran a tool (file edits).
    PostToolUse,
    /// The agent finished its turn.
    Stop,
}

impl Event {
    /// Every event, for tables and coverage tests.
    pub(crate) const ALL: [Self; 5] =
        [Self::SessionStart, Self::UserPromptSubmit, Self::PreToolUse, Self::PostToolUse, Self::Stop];

    /// The canonical command-line name (`pre-tool-use`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "session-start",
            Self::UserPromptSubmit => "user-prompt-submit",
            Self::PreToolUse => "pre-tool-use",
            Self::PostToolUse => "post-tool-use",
            Self::Stop => "stop",
        }
    }

    /// The Claude-style event name (`PreToolUse`).
    pub(crate) const fn claude_name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
        }
    }

    /// Parses a canonical name or any host's own name for the event (`BeforeTool`,
    /// `beforeShellExecution`, `agentStop`, …), case-insensitively.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        let key: String =
            name.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
        let event = match key.as_str() {
            "sessionstart" | "taskstart" => Self::SessionStart,
            "userpromptsubmit" | "userpromptsubmitted" | "beforeagent" | "beforesubmitprompt" => {
                Self::UserPromptSubmit
            }
            "pretooluse" | "beforetool" | "beforeshellexecution" => Self::PreToolUse,
            "posttooluse" | "aftertool" | "afterfileedit" => Self::PostToolUse,
            "stop" | "afteragent" | "agentstop" | "taskcomplete" => Self::Stop,
            _ => return None,
        };
        Some(event)
    }
}

/// The tool call a hook is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolCall {
    /// No tool (session, prompt and stop events).
    None,
    /// A shell command.
    Shell {
        /// The command text.
        command: String,
    },
    /// Files written or edited (absolute, or relative to the event's `cwd`).
    Edit {
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// Any other tool (by name); codeguard has nothing to say about it.
    Other(String),
    /// A shell call whose input is in no shape codeguard can read (why, in words): what it would
    /// run cannot be judged, so before it runs it is refused.
    Unreadable(String),
}

/// A decoded hook payload, host-independent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookEvent {
    /// Which host sent it.
    pub host: Host,
    /// Which event.
    pub event: Event,
    /// The working directory of the agent, if given.
    pub cwd: Option<PathBuf>,
    /// The host's session id, if given.
    pub session_id: Option<String>,
    /// The host's tool-call id, if given.
    pub tool_use_id: Option<String>,
    /// The tool name as the host spelled it (empty when none).
    pub tool_name: String,
    /// The tool call.
    pub tool: ToolCall,
    /// The user's prompt (prompt events).
    pub prompt: Option<String>,
    /// The host says a Stop hook already continued the turn once.
    pub stop_hook_active: bool,
    /// The neutral contract's correlation id.
    pub correlation_id: Option<String>,
    /// The provider a neutral request names (its response names it back).
    pub provider: Option<String>,
}

impl HookEvent {
    /// The directory the agent works in: the payload's `cwd`, else the hook's own current
    /// directory (hosts start hooks there), else `.`.
    pub(crate) fn dir(&self) -> PathBuf {
        self.cwd.clone().or_else(|| crate::env::current_dir().ok()).unwrap_or_else(|| PathBuf::from("."))
    }

    /// An event with nothing but its host and kind (used when a payload cannot be read).
    pub(crate) fn bare(host: Host, event: Event) -> Self {
        Self {
            host,
            event,
            cwd: None,
            session_id: None,
            tool_use_id: None,
            tool_name: String::new(),
            tool: ToolCall::None,
            prompt: None,
            stop_hook_active: false,
            correlation_id: None,
            provider: None,
        }
    }
}

/// A payload that cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DecodeError {
    /// Not JSON, or not an object.
    #[error("payload is not a JSON object: {0}")]
    NotJson(String),
    /// A field has the wrong type.
    #[error("payload field `{0}` has the wrong type")]
    BadField(&'static str),
    /// A declared-strict neutral request broke the contract.
    #[error("neutral request rejected: {0}")]
    Contract(String),
}

/// What codeguard has to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Nothing: let the call proceed silently.
    Allow,
    /// Let it proceed, and tell the agent (and optionally the user) this.
    Context {
        /// For the agent.
        text: String,
        /// A short line for the user, where the host shows one.
        user: Option<String>,
    },
    /// Refuse the tool call, with this report (pre-tool-use only; other events never block).
    Block(String),
    /// Put the tool call to the user, who allows or refuses it, with this report saying why
    /// (pre-tool-use only). Only for a host whose spec names an ask channel
    /// ([`spec::HostSpec::ask`]); any other host is given it as a block — never an allow.
    Ask(String),
}

impl Answer {
    /// Context for the agent only.
    pub(crate) fn context(text: impl Into<String>) -> Self {
        Self::Context { text: text.into(), user: None }
    }
}

/// Decodes a payload for a host and event.
pub(crate) fn decode(host: Host, event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    match host {
        Host::Neutral => neutral::decode(event, payload),
        Host::Claude
        | Host::Codex
        | Host::Gemini
        | Host::Kimi
        | Host::Copilot
        | Host::Cursor
        | Host::OpenHands
        | Host::Qwen
        | Host::Ari
        | Host::Goose
        | Host::Opencode
        | Host::Kilo
        | Host::Pi
        | Host::Cline
        | Host::Continue
        | Host::Dsh
        | Host::Zcode => decode::decode(host, event, payload),
    }
}
