//! `PreToolUse` replay for doubly installed copies: when a second copy of the hook fires for
//! the same tool call (same tool-use id and command, same host, session and directory) within
//! the dedup window, it answers with the first copy's *block* instead of checking again.
//!
//! Only a block that was delivered is recorded — a pass or a context answer is never replayed,
//! since a pass must be re-decided on the current content. A record or a lookup that fails
//! (unreadable state, a lock not had in time) means no replay: the hook simply runs.

use std::path::PathBuf;

use crate::cli::HookArgs;
use crate::env::Env;
use crate::host::{Answer, Encoded, Event, HookEvent, ToolCall};
use crate::state::dedup::{self, EventKey, Replay};
use crate::state::session::Scope;

/// The replay key of a hook firing, for events that replay (only `PreToolUse` shell calls
/// with a tool-use id).
pub(super) fn key(args: &HookArgs, event: &HookEvent) -> Option<EventKey> {
    match (event.event, &event.tool) {
        (Event::PreToolUse, ToolCall::Shell { command }) => {
            let dir = event
                .cwd
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            let scope = Scope::new(event.session_id.as_deref(), &dir);
            let host = format!("{:?}", args.host).to_ascii_lowercase();
            EventKey::pre_tool_use(&scope, &host, event.tool_use_id.as_deref(), command)
        }
        (Event::PreToolUse, ToolCall::Other(_)) => None,
    }
}

/// The answer a first copy delivered for `key` within the window, if it was a block.
pub(super) fn lookup(env: &Env, key: &EventKey) -> Option<Encoded> {
    let replay = dedup::recent(env, key)?.replay?;
    Some(Encoded { stdout: replay.stdout, stderr: replay.stderr, exit: replay.exit })
}

/// Records a delivered block for a second copy to replay; anything else is not recorded.
pub(super) fn record(env: &Env, key: &EventKey, answer: &Answer, encoded: &Encoded) {
    match answer {
        Answer::Block(_) => {
            let replay =
                Replay { exit: encoded.exit, stdout: encoded.stdout.clone(), stderr: encoded.stderr.clone() };
            let _ = dedup::complete_with(env, key, &replay);
        }
        Answer::Allow | Answer::Context(_) => {}
    }
}
