//! `codeguard hook <event> [--host H]`: the entry point agent hosts call.
//!
//! Reads the payload (≤ 1 MiB; up to 16 MiB for a shell command that may commit, which the
//! analyser then denies as too large) from stdin, decodes it for the host, runs the event's handler
//! and returns the host-encoded answer (`commands::dispatch` delivers it through `crate::output`). Fail-open: an unknown host or event, a bad or oversized
//! payload, an internal error or a panic never blocks — it exits the host's "no opinion" way
//! with one line on stderr. So does a SIGTERM/SIGINT/SIGHUP while checks run
//! ([`crate::process::arm`]): every child is killed first. A second copy of the hook firing for
//! the same tool call replays the first copy's delivered block (`replay`).
//! `codeguard hook capabilities` prints what the neutral contract offers (JSON) and reads nothing.

mod after_edit;
mod patch_edits;
mod pre_tool;
mod prompt;
mod prompt_intent;
mod replay;
mod session_start;
mod stop;

use std::io::Read;
use std::time::Instant;

use crate::bash;
use crate::cli::HookArgs;
use crate::env::Env;
use crate::host::{self, Answer, Event, HookEvent, Host, ToolCall};
use crate::output::Output;

/// The most stdin a hook reads: past [`host::MAX_PAYLOAD_BYTES`] a shell command that may commit
/// is still decoded, so padding cannot turn a commit into a fail-open.
const HARD_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// A hook's answer, and what to record once it was delivered.
pub(crate) struct HookOutcome {
    /// What to print and the exit code, encoded for the host.
    pub output: Output,
    /// A fresh answer's replay key: recorded only after the answer reached the host.
    fresh: Option<(replay::Dedup, Answer)>,
}

impl HookOutcome {
    fn unrecorded(output: Output) -> Self {
        Self { output, fresh: None }
    }

    /// Records a delivered fresh answer for a second copy of the hook to replay.
    pub(crate) fn delivered(self, env: &Env) {
        if let Some((key, answer)) = self.fresh {
            replay::record(env, &key, &answer);
        }
    }
}

/// Runs a hook. Never fails: every error is encoded fail-open. The caller delivers the output
/// (`crate::output::deliver`), exits 0 when it could not (rather than block without a reason),
/// and calls [`HookOutcome::delivered`] when it could.
pub(crate) fn run(args: &HookArgs, env: &Env) -> HookOutcome {
    let started = Instant::now();
    if args.event == "capabilities" {
        // Read-only discovery for supervisors: no stdin, no repository.
        return HookOutcome::unrecorded(Output::stdout(
            format!("{}\n", host::capabilities()),
            crate::exit::EntryPoint::Hook.internal_error_code(),
        ));
    }
    let (Some(host), Some(event)) = (Host::from_name(&args.host), Event::from_name(&args.event)) else {
        return HookOutcome::unrecorded(note(&format!(
            "unknown hook `{}` for host `{}`; nothing to do",
            args.event, args.host
        )));
    };
    // A signal while checks run (the host's timeout) kills them all and fails open.
    crate::process::arm(crate::exit::EntryPoint::Hook.internal_error_code(), move || {
        let encoded = fail_open(host, event, "stopped by a signal");
        (encoded.stdout, encoded.stderr)
    });
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(|| handle(host, event, env));
    std::panic::set_hook(previous);
    let runtime_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (output, fresh) = match outcome {
        Ok(Ok((decoded, answer, key))) => {
            let encoded = host::encode(&decoded, &answer, runtime_ms);
            (encoded, key.map(|key| (key, answer)))
        }
        Ok(Err(err)) => (fail_open(host, event, &format!("{err:#}")), None),
        Err(panic) => (fail_open(host, event, &panic_text(&panic)), None),
    };
    crate::process::decided(output.code);
    HookOutcome { output, fresh }
}

/// Decodes and answers; a first copy's delivered block is replayed instead of checking again.
/// The replay key comes back only with a fresh answer (to be recorded once delivered).
fn handle(host: Host, event: Event, env: &Env) -> anyhow::Result<(HookEvent, Answer, Option<replay::Dedup>)> {
    let (payload, oversized) = read_payload()?;
    let decoded = host::decode(host, event, &payload)?;
    let triage = triage(&decoded);
    if oversized && !matches!(triage, Triage::Gate(_)) {
        // Past the normal limit only a shell command that may commit is answered (the analyser
        // bounds it and denies it as uncheckable); anything else fails open as before.
        anyhow::bail!("payload larger than {} bytes", host::MAX_PAYLOAD_BYTES);
    }
    if let Triage::PassThrough = triage {
        // The pass-through path: analysed once, no repository, no state directory (unless the
        // command is an `apply_patch`, whose files are recorded to lint after it ran); one
        // `lstat` finds whether an earlier patch's files wait to be linted.
        let answer = patch_edits::around(&decoded, Answer::Allow, env);
        return Ok((decoded, answer, None));
    }
    let key = replay::key(&decoded, env);
    if let Some(answer) = key.as_ref().and_then(|k| replay::lookup(env, k)) {
        return Ok((decoded, answer, None));
    }
    let answer = patch_edits::around(&decoded, dispatch(&decoded, &triage, env), env);
    Ok((decoded, answer, key))
}

/// What a hook firing needs.
enum Triage {
    /// A pre-tool-use call that cannot commit or push: allowed at once.
    PassThrough,
    /// A pre-tool-use shell command that may commit or push (or hides code that could).
    Gate(bash::Analysis),
    /// A pre-tool-use file write (the host's edit tool) to a path named like codeguard's own.
    OwnFiles,
    /// A pre-tool-use shell call whose input cannot be read (why): refused unjudged.
    Unreadable(String),
    /// Any other event.
    Lifecycle,
}

fn triage(event: &HookEvent) -> Triage {
    match (event.event, &event.tool) {
        (Event::PreToolUse, ToolCall::Shell { command }) => {
            let analysis = bash::analyse(command);
            if analysis.needs_resolution() { Triage::Gate(analysis) } else { Triage::PassThrough }
        }
        // The host's own file-writing tool never reaches the shell gate: a write to a file
        // named like one of codeguard's own is judged (`pre_tool::edit`), any other passes.
        (Event::PreToolUse, ToolCall::Edit { paths })
            if paths.iter().any(|p| bash::may_name_codeguards_own(&p.to_string_lossy())) =>
        {
            Triage::OwnFiles
        }
        (Event::PreToolUse, ToolCall::Unreadable(why)) => Triage::Unreadable(why.clone()),
        (Event::PreToolUse, ToolCall::Edit { .. } | ToolCall::Other(_) | ToolCall::None) => {
            Triage::PassThrough
        }
        (Event::SessionStart | Event::UserPromptSubmit | Event::PostToolUse | Event::Stop, _) => {
            Triage::Lifecycle
        }
    }
}

fn dispatch(event: &HookEvent, triage: &Triage, env: &Env) -> Answer {
    let cwd = event.dir();
    match event.event {
        Event::PreToolUse => match triage {
            Triage::Gate(analysis) => {
                pre_tool::evaluate(analysis, &cwd, env, event.host, event.session_id.as_deref())
            }
            Triage::OwnFiles => match &event.tool {
                ToolCall::Edit { paths } => pre_tool::edit(paths, &cwd, env),
                ToolCall::Shell { .. } | ToolCall::Other(_) | ToolCall::None | ToolCall::Unreadable(_) => {
                    Answer::Allow
                }
            },
            Triage::Unreadable(why) => pre_tool::unreadable_call(why),
            Triage::PassThrough | Triage::Lifecycle => Answer::Allow,
        },
        Event::SessionStart => {
            crate::install::session_hooks::record_start(event.host, env, event.session_id.as_deref());
            stop::open_window(event.session_id.as_deref(), &cwd, env);
            session_start::run(&cwd, env)
        }
        Event::UserPromptSubmit => prompt::run(event.prompt.as_deref().unwrap_or(""), &cwd, env),
        Event::PostToolUse => match &event.tool {
            ToolCall::Edit { paths } => after_edit::after_edit(paths, &cwd, env, event.session_id.as_deref()),
            ToolCall::Shell { .. } | ToolCall::Other(_) | ToolCall::None | ToolCall::Unreadable(_) => {
                Answer::Allow
            }
        },
        Event::Stop => stop::run(event, &cwd, env),
    }
}

/// Reads stdin up to the hard payload limit; whether it is past [`host::MAX_PAYLOAD_BYTES`]
/// (then only a shell command that may commit is answered). More than the hard limit is an error
/// (ignored fail-open).
fn read_payload() -> anyhow::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    let limit = u64::try_from(HARD_PAYLOAD_BYTES).unwrap_or(u64::MAX) + 1;
    std::io::stdin().lock().take(limit).read_to_end(&mut buf)?;
    if buf.len() > HARD_PAYLOAD_BYTES {
        anyhow::bail!("payload larger than {HARD_PAYLOAD_BYTES} bytes");
    }
    let oversized = buf.len() > host::MAX_PAYLOAD_BYTES;
    Ok((buf, oversized))
}

/// The fail-open answer: the host's "no opinion" (the neutral contract still answers in JSON),
/// plus one line on stderr.
fn fail_open(host: Host, event: Event, reason: &str) -> Output {
    let line: String = reason.lines().next().unwrap_or("").chars().take(300).collect();
    let mut encoded = host::encode(&HookEvent::bare(host, event), &Answer::Allow, 0);
    encoded.stderr = format!("[codeguard] internal error ignored (fail-open): {line}\n");
    encoded
}

fn note(text: &str) -> Output {
    Output { stderr: format!("[codeguard] {text}\n"), ..Output::default() }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .map_or_else(|| "panic".to_owned(), |s| format!("panic: {s}"))
}
