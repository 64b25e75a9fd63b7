//! Materialises the staged content of a repository (what a plain `git commit` would carry) into
//! a scratch directory, and reports time, size and peak memory.
//!
//! `cargo run --release --example materialise -- REPO DEST [RUNS]`
//!
//! `DEST` is the parent directory for the snapshot (use a tmpfs such as `/dev/shm` to compare
//! with `git checkout-index -a --prefix=DEST/x/`). Each run prints the time to predict the
//! surface, the time to materialise it, their sum (`ready`: the snapshot exists and is
//! complete) and, separately, the time the `Drop` guard takes to remove it. The last line is
//! `VmHWM` from `/proc/self/status`: the peak resident set of this process.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use codeguard::stages::snapshot::{Snapshot, SnapshotOptions};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let usage = "usage: materialise REPO DEST [RUNS]";
    let repo = PathBuf::from(args.next().context(usage)?);
    let dest = PathBuf::from(args.next().context(usage)?);
    let runs: usize = args.next().map(|r| r.to_string_lossy().parse()).transpose()?.unwrap_or(1);
    let options = SnapshotOptions { scratch_dirs: vec![dest], ..SnapshotOptions::default() };
    for run in 1..=runs {
        let start = Instant::now();
        let surface = codeguard::stages::surface::staged_only(&repo)?;
        let predicted = start.elapsed();
        let snapshot = Snapshot::materialise_whole(&surface, &options)?;
        let ready = start.elapsed();
        let (files, bytes) = (snapshot.file_count(), snapshot.byte_count());
        let removing = Instant::now();
        drop(snapshot);
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "run {run}: {files} files, {bytes} bytes, predict {:.1} ms, materialise {:.1} ms, ready {:.1} ms, drop {:.1} ms",
            ms(predicted),
            ms(ready.saturating_sub(predicted)),
            ms(ready),
            ms(removing.elapsed()),
        );
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: unknown");
    println!("{}", peak.split_whitespace().collect::<Vec<_>>().join(" "));
    Ok(())
}
