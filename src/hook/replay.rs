//! Dedup for doubly installed copies of the hooks (two plugin copies, a user and a project
//! install): the second copy of an event within the window does not do the work again.
//!
//! - `PreToolUse`: only a delivered *block* for the same tool call (tool-use id, command, host,
//!   session, directory) is replayed — a pass is never replayed, since it must be re-decided on
//!   the current content. The report is stored, not its encoding, so the second copy encodes it
//!   for its own request.
//! - `SessionStart` and `Stop`: once per session.
//! - `PostToolUse`: once per edited file content (path + content stamp).
//!
//! Completion is recorded only after the answer was delivered. A record or lookup that fails
//! (unreadable state, a lock not had in time) means no dedup: the hook simply runs.

use crate::env::Env;
use crate::host::{Answer, Event, HookEvent, ToolCall};
use crate::state::dedup::{self, EventKey, Replay};
use crate::state::session::Scope;

/// How a firing is deduplicated.
pub(super) enum Dedup {
    /// Replay a delivered block (pre-tool-use).
    Block(EventKey),
    /// Answer once; a second copy stays silent.
    Once(EventKey),
}

/// The dedup key of a hook firing, when it has one.
pub(super) fn key(event: &HookEvent, env: &Env) -> Option<Dedup> {
    let dir = event.dir();
    let scope = Scope::new(event.session_id.as_deref(), &dir);
    match (event.event, &event.tool) {
        (Event::PreToolUse, ToolCall::Shell { command }) => {
            EventKey::pre_tool_use(&scope, event.host.name(), event.tool_use_id.as_deref(), command)
                .map(Dedup::Block)
        }
        (Event::SessionStart, _) => EventKey::session_start(&scope).map(Dedup::Once),
        (Event::Stop, _) => EventKey::stop(&scope).map(Dedup::Once),
        (Event::PostToolUse, ToolCall::Edit { paths }) if event.session_id.is_some() => {
            let stamps: Vec<String> =
                paths.iter().map(|p| crate::cache::file_stamp(&dir.join(p)).unwrap_or_default()).collect();
            let first = paths.first()?;
            Some(Dedup::Once(EventKey::post_tool_use(&scope, first, &stamps.join(","), "lint")))
        }
        (Event::UserPromptSubmit, _) => prompt_key(event, &scope, &dir, env).map(Dedup::Once),
        (
            Event::PreToolUse,
            ToolCall::None | ToolCall::Edit { .. } | ToolCall::Other(_) | ToolCall::Unreadable(_),
        )
        | (Event::PostToolUse, _) => None,
    }
}

/// A prompt that triggers the soft gate, keyed by session, prompt text and the content identity
/// of the worktree it would check (so an edit in between runs it again).
fn prompt_key(event: &HookEvent, scope: &Scope, dir: &std::path::Path, env: &Env) -> Option<EventKey> {
    event.session_id.as_ref()?;
    let prompt = event.prompt.as_deref()?;
    super::prompt_intent::prompt_intent(prompt)?;
    let budget = crate::cache::identity::Budget::from_env(env);
    let identity = crate::cache::identity::worktree(dir, &budget, None).ok()?;
    Some(EventKey::user_prompt(scope, prompt, &identity.identity.hex()))
}

/// What a first copy already delivered for this firing, if anything.
pub(super) fn lookup(env: &Env, key: &Dedup) -> Option<Answer> {
    match key {
        Dedup::Block(key) => {
            let replay = dedup::recent(env, key)?.replay?;
            Some(Answer::Block(replay.report))
        }
        Dedup::Once(key) => dedup::recent(env, key).map(|_| Answer::Allow),
    }
}

/// Records a delivered answer for a second copy.
pub(super) fn record(env: &Env, key: &Dedup, answer: &Answer) {
    match (key, answer) {
        (Dedup::Block(key), Answer::Block(report)) => {
            let _ = dedup::complete_with(env, key, &Replay { report: report.clone() });
        }
        // An asked call is asked again: the user's answer is the host's, not recorded here.
        (Dedup::Block(_), Answer::Allow | Answer::Context { .. } | Answer::Ask(_)) => {}
        (Dedup::Once(key), _) => {
            let _ = dedup::complete(env, key);
        }
    }
}
