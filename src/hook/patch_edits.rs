//! The files an `apply_patch` run through the shell writes, linted after it ran.
//!
//! Codex's model edits files with `apply_patch` as a shell command; the hook sees it only as a
//! pre-tool-use of that command, and Codex sends no `PostToolUse` for it. So the pre-tool-use
//! records the files the patch adds, updates or moves to as pending for the session
//! (`crate::state::pending`), and the next event of that session whose output reaches the model
//! (the `PostToolUse` of the call where a host sends one, else the next pre-tool-use, prompt or
//! session start) lints those that changed, says what failed and clears them. A file that no
//! longer exists is dropped; one not yet changed (a parallel call, a patch still to run) stays
//! pending until its own call is over or [`pending::EXPIRY_MS`] passed.
//!
//! Cost on every other hook firing: one `lstat` of the session's pending file. Nothing here
//! blocks, and nothing changes the answer of the patch command itself.

use std::path::Path;

use crate::env::Env;
use crate::host::{self, Answer, Event, HookEvent, ToolCall, spec::Delivery};
use crate::state::pending::{self, PendingFile};

/// `answer` with the lint of the session's applied pending edits added where the host shows it
/// to the model, after recording the edits this event's command is about to make.
pub(super) fn around(event: &HookEvent, answer: Answer, env: &Env) -> Answer {
    let Some(session) = event.session_id.as_deref().filter(|s| !s.trim().is_empty()) else { return answer };
    if matches!(answer, Answer::Block(_) | Answer::Ask(_)) {
        // A blocked call runs nothing (an asked one may not); what is pending is said at the
        // next event.
        return answer;
    }
    let spec = host::spec(event.host);
    let cwd = || event.dir();
    let answer = if spec.delivery(event.event) == Delivery::Model && pending::any(env, session) {
        merge(answer, flush(event, session, &cwd(), env))
    } else {
        answer
    };
    if let (Event::PreToolUse, ToolCall::Shell { command }) = (event.event, &event.tool)
        && spec.delivers.contains(&Delivery::Model)
    {
        record(event, session, command, &cwd(), env);
    }
    answer
}

/// Records the files the command's `apply_patch` invocations will write.
fn record(event: &HookEvent, session: &str, command: &str, cwd: &Path, env: &Env) {
    let calls = crate::bash::apply_patch_calls(command);
    if calls.is_empty() {
        return;
    }
    let now = crate::state::now_ms();
    let files: Vec<PendingFile> = calls
        .iter()
        .flat_map(|call| {
            let base = call.dir.as_ref().map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
            host::written_paths(&call.patch).into_iter().map(move |p| base.join(p))
        })
        .map(|path| PendingFile {
            before: crate::cache::file_stamp(&path),
            dir_before: dir_time(&path),
            path,
            tool_use_id: event.tool_use_id.clone(),
            ts_ms: now,
        })
        .collect();
    let _ = pending::add(env, session, files);
}

/// Lints the pending files the patch has changed and clears them (and the ones gone or given up
/// on); the rest stay pending.
fn flush(event: &HookEvent, session: &str, cwd: &Path, env: &Env) -> Answer {
    let now = crate::state::now_ms();
    let decide = |file: &PendingFile| -> Fate {
        let own_call = file.tool_use_id.is_some() && file.tool_use_id == event.tool_use_id;
        if own_call && event.event == Event::PreToolUse {
            // A second copy of the patch command's own pre-tool-use: the patch has not run yet.
            return Fate::Keep;
        }
        match crate::cache::file_stamp(&file.path) {
            // Gone: a file the patch updated, or one it added whose directory changed since (the
            // patch ran); a file to be added in an unchanged directory has not been written yet.
            None if !file.path.exists()
                && (file.before.is_some() || dir_time(&file.path) != file.dir_before) =>
            {
                Fate::Drop
            }
            now_stamp if now_stamp != file.before => Fate::Lint,
            _ if own_call || now.saturating_sub(file.ts_ms) > pending::EXPIRY_MS => Fate::Drop,
            _ => Fate::Keep,
        }
    };
    // Read first without the lock: while every file is still waiting nothing is written.
    if pending::read(env, session).files.iter().all(|f| decide(f) == Fate::Keep) {
        return Answer::Allow;
    }
    let ready = pending::settle(env, session, |files| {
        let mut ready = Vec::new();
        files.retain(|f| match decide(f) {
            Fate::Keep => true,
            Fate::Lint => {
                ready.push(f.path.clone());
                false
            }
            Fate::Drop => false,
        });
        ready
    })
    .unwrap_or_default();
    if ready.is_empty() {
        return Answer::Allow;
    }
    super::after_edit::after_patch(&ready, cwd, env, Some(session))
}

/// The modification time of the directory holding `path` (`None`: there is none).
fn dir_time(path: &Path) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path.parent()?).ok()?;
    Some((meta.mtime(), meta.mtime_nsec()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Keep,
    Lint,
    Drop,
}

/// Both answers' context in one (a block stays a block).
fn merge(first: Answer, second: Answer) -> Answer {
    match (first, second) {
        (answer, Answer::Allow) | (Answer::Allow, answer) => answer,
        (Answer::Block(report), _) | (Answer::Context { .. } | Answer::Ask(_), Answer::Block(report)) => {
            Answer::Block(report)
        }
        (Answer::Ask(report), _) | (Answer::Context { .. }, Answer::Ask(report)) => Answer::Ask(report),
        (Answer::Context { text, user }, Answer::Context { text: more, user: more_user }) => {
            Answer::Context {
                text: format!("{text}\n{more}"),
                user: match (user, more_user) {
                    (Some(a), Some(b)) => Some(format!("{a}; {b}")),
                    (a, b) => a.or(b),
                },
            }
        }
    }
}
