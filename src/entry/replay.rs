//! `PreToolUse` replay for doubly installed copies: when a second copy of the hook fires for
//! the same tool call (same tool-use id and command, same host, session and directory) within
//! the dedup window, it answers with the first copy's *block* instead of checking again. The
//! block's report is stored, not its encoding, so the second copy encodes it for its own
//! request (correlation ids, timings).
//!
//! Only a block that was delivered is recorded — a pass or a context answer is never replayed,
//! since a pass must be re-decided on the current content. A record or a lookup that fails
//! (unreadable state, a lock not had in time) means no replay: the hook simply runs.

use std::path::PathBuf;

use crate::env::Env;
use crate::host::{Answer, Event, HookEvent, ToolCall};
use crate::state::dedup::{self, EventKey, Replay};
use crate::state::session::Scope;

/// The replay key of a hook firing: only `PreToolUse` shell calls with a tool-use id have one.
pub(super) fn key(event: &HookEvent) -> Option<EventKey> {
    match (event.event, &event.tool) {
        (Event::PreToolUse, ToolCall::Shell { command }) => {
            let dir = event
                .cwd
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            let scope = Scope::new(event.session_id.as_deref(), &dir);
            EventKey::pre_tool_use(&scope, event.host.name(), event.tool_use_id.as_deref(), command)
        }
        (Event::PreToolUse, ToolCall::None | ToolCall::Edit { .. } | ToolCall::Other(_))
        | (Event::SessionStart | Event::UserPromptSubmit | Event::PostToolUse | Event::Stop, _) => None,
    }
}

/// The block a first copy delivered for `key` within the window, if any.
pub(super) fn lookup(env: &Env, key: &EventKey) -> Option<Answer> {
    let replay = dedup::recent(env, key)?.replay?;
    Some(Answer::Block(replay.report))
}

/// Records a delivered block for a second copy to replay; any other answer is not recorded.
pub(super) fn record(env: &Env, key: &EventKey, answer: &Answer) {
    match answer {
        Answer::Block(report) => {
            let _ = dedup::complete_with(env, key, &Replay { report: report.clone() });
        }
        Answer::Allow | Answer::Context { .. } => {}
    }
}
