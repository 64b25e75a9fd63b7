//! Spawns a program N times in a row the way an agent host runs a hook: the payload written to
//! its stdin through a pipe, stdout and stderr discarded, each run awaited before the next.
//! `scripts/bench.sh` times this under hyperfine for `codeguard hook pre-tool-use` and for
//! `/bin/true`, so both sides pay the same spawn and pipe costs and the ratio is the hook's own.
//!
//! `cargo run --release --example spawn_loop -- PAYLOAD_FILE N PROGRAM [ARGS…]`
//!
//! Exits 1 (after all runs) when any run did not exit 0: a benchmark of a failing command
//! would measure the wrong thing.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// A benchmark harness outside codeguard: it spawns directly, on purpose (not through
// codeguard's process layer, whose supervision would be part of what it measures).
#![allow(clippy::disallowed_methods)]

use std::io::Write as _;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let usage = "usage: spawn_loop PAYLOAD_FILE N PROGRAM [ARGS…]";
    let payload = std::fs::read(args.next().context(usage)?).context("reading the payload")?;
    let runs: usize = args.next().context(usage)?.to_string_lossy().parse().context(usage)?;
    let program = args.next().context(usage)?;
    let rest: Vec<_> = args.collect();
    let mut failed = 0usize;
    for _ in 0..runs {
        let mut child = Command::new(&program)
            .args(&rest)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("spawning {}", program.to_string_lossy()))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A program that does not read its stdin (`/bin/true`) may be gone already.
            let _ = stdin.write_all(&payload);
        }
        if !child.wait().context("waiting")?.success() {
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {runs} runs did not exit 0");
    }
    Ok(())
}
