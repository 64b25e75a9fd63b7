//! Host dialects: decode an agent host's hook payload into one [`HookEvent`], and encode
//! codeguard's [`Answer`] through the channel that host honours.
//!
//! In: raw stdin bytes (≤ [`MAX_PAYLOAD_BYTES`]). Out: a [`HookEvent`], or an [`Encoded`] answer
//! (stdout, stderr, exit code). The encoder is the only producer of hook stdout.
//! Never: decides anything about the command — that is the pipeline's job.

mod claude;

use std::path::PathBuf;

use clap::ValueEnum;

/// Payloads larger than this are ignored (fail-open).
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;

/// The agent hosts codeguard speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Host {
    /// Claude Code (the default dialect).
    Claude,
}

/// The hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Event {
    /// Before the agent runs a tool.
    PreToolUse,
}

impl Event {
    /// The event's name in Claude-style payloads.
    pub fn claude_name(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
        }
    }
}

/// The tool call a hook is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCall {
    /// A shell command.
    Shell {
        /// The command text.
        command: String,
    },
    /// Any other tool (by name); codeguard has nothing to say about it.
    Other(String),
}

/// A decoded hook payload, host-independent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEvent {
    /// Which event.
    pub event: Event,
    /// The working directory of the agent, if given.
    pub cwd: Option<PathBuf>,
    /// The host's session id, if given.
    pub session_id: Option<String>,
    /// The host's tool-call id, if given.
    pub tool_use_id: Option<String>,
    /// The tool call.
    pub tool: ToolCall,
}

/// A payload that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON, or not an object.
    #[error("payload is not a JSON object: {0}")]
    NotJson(String),
    /// A field has the wrong type.
    #[error("payload field `{0}` has the wrong type")]
    BadField(&'static str),
}

/// What codeguard has to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing: let the call proceed silently.
    Allow,
    /// Let it proceed, and tell the agent this.
    Context(String),
    /// Refuse the call, with this report.
    Block(String),
}

/// An answer encoded for a host.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Encoded {
    /// What to print on stdout.
    pub stdout: String,
    /// What to print on stderr.
    pub stderr: String,
    /// The exit code.
    pub exit: u8,
}

/// Decodes a payload for a host and event.
pub fn decode(host: Host, event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    match host {
        Host::Claude => claude::decode(event, payload),
    }
}

/// Encodes an answer for a host and event.
pub fn encode(host: Host, event: Event, answer: &Answer) -> Encoded {
    match host {
        Host::Claude => claude::encode(event, answer),
    }
}
