//! `codeguard hook <event> [--host H]`: the entry point agent hosts call.
//!
//! Reads the payload (≤ 1 MiB) from stdin, decodes it for the host, runs the event's handler and
//! writes the host-encoded answer. Fail-open: a bad or oversized payload, an internal error or a
//! panic never blocks — it exits the host's "no opinion" way with one line on stderr.
//! A second copy of the hook firing for the same tool call replays the first copy's delivered
//! block (`super::replay`).

use std::io::{Read, Write};
use std::path::PathBuf;

use crate::cli::HookArgs;
use crate::env::Env;
use crate::host::{self, Answer, Encoded, Event, HookEvent, ToolCall};

/// Runs a hook and returns the exit code. Never fails: every error is encoded fail-open.
pub fn run(args: &HookArgs, env: &Env) -> u8 {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(|| handle(args, env));
    std::panic::set_hook(previous);
    let (encoded, delivered) = match outcome {
        Ok(Ok(Handled::Replayed(encoded))) => (encoded, None),
        Ok(Ok(Handled::Answered(answer, key))) => {
            let encoded = host::encode(args.host, args.event, &answer);
            (encoded, key.map(|key| (key, answer)))
        }
        Ok(Err(err)) => (fail_open(&format!("{err:#}")), None),
        Err(panic) => (fail_open(&panic_text(&panic)), None),
    };
    if !deliver(&encoded) {
        return crate::exit::PASS;
    }
    if let Some((key, answer)) = delivered {
        super::replay::record(env, &key, &answer, &encoded);
    }
    encoded.exit
}

/// What handling produced: a fresh answer (with its replay key), or a first copy's replayed one.
enum Handled {
    Answered(Answer, Option<crate::state::dedup::EventKey>),
    Replayed(Encoded),
}

fn handle(args: &HookArgs, env: &Env) -> anyhow::Result<Handled> {
    let payload = read_payload()?;
    let event = host::decode(args.host, args.event, &payload)?;
    let key = super::replay::key(args, &event);
    if let Some(encoded) = key.as_ref().and_then(|k| super::replay::lookup(env, k)) {
        return Ok(Handled::Replayed(encoded));
    }
    Ok(Handled::Answered(dispatch(&event, env), key))
}

fn dispatch(event: &HookEvent, env: &Env) -> Answer {
    match event.event {
        Event::PreToolUse => match &event.tool {
            ToolCall::Shell { command } if !command.trim().is_empty() => {
                let cwd = event
                    .cwd
                    .clone()
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_else(|| PathBuf::from("."));
                super::gate::evaluate(command, &cwd, env, event.session_id.as_deref())
            }
            ToolCall::Shell { .. } | ToolCall::Other(_) => Answer::Allow,
        },
    }
}

/// Reads stdin up to the payload limit; more than that is an error (ignored fail-open).
fn read_payload() -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let limit = u64::try_from(host::MAX_PAYLOAD_BYTES).unwrap_or(u64::MAX) + 1;
    std::io::stdin().lock().take(limit).read_to_end(&mut buf)?;
    if buf.len() > host::MAX_PAYLOAD_BYTES {
        anyhow::bail!("payload larger than {} bytes", host::MAX_PAYLOAD_BYTES);
    }
    Ok(buf)
}

fn fail_open(reason: &str) -> Encoded {
    let line: String = reason.lines().next().unwrap_or("").chars().take(300).collect();
    Encoded {
        stderr: format!("[codeguard] internal error ignored (fail-open): {line}\n"),
        ..Encoded::default()
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .map_or_else(|| "panic".to_owned(), |s| format!("panic: {s}"))
}

/// Writes the encoded answer (the only writer of hook stdout); whether all of it was written.
/// An answer that could not be delivered exits as a pass and is never recorded for replay.
fn deliver(encoded: &Encoded) -> bool {
    let mut ok = std::io::stdout()
        .write_all(encoded.stdout.as_bytes())
        .and_then(|()| std::io::stdout().flush())
        .is_ok();
    ok &= std::io::stderr()
        .write_all(encoded.stderr.as_bytes())
        .and_then(|()| std::io::stderr().flush())
        .is_ok();
    ok
}
