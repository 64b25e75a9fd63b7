//! Bash analysis speed over the corpus (`tests/corpus/bash.txt`). Budget: median ≤ 20 µs per
//! command (ARCHITECTURE.md §6).
//!
//! `cargo bench --bench bash_analysis` runs criterion on the whole corpus and on a few typical
//! commands, then prints the median over commands of each command's own mean analysis time.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// A benchmark outside codeguard's code: it sets up fixtures with git and reads its knobs from
// the environment directly (the house rules of clippy.toml are for codeguard itself).
#![allow(clippy::disallowed_methods)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use codeguard::stages::bash;
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/corpus/format.rs"]
#[expect(dead_code, reason = "the bench reads the corpus's commands only, not its expectations")]
mod format;

fn corpus() -> Vec<String> {
    format::cases().into_iter().map(|c| c.command).collect()
}

fn whole_corpus(c: &mut Criterion) {
    let commands = corpus();
    c.bench_function("analyse whole corpus", |b| {
        b.iter(|| {
            for cmd in &commands {
                black_box(bash::analyse(black_box(cmd)));
            }
        });
    });
    for cmd in ["ls -la", "git status", "git add -A && git commit -m wip && git push", "cd app && npm test"] {
        c.bench_function(&format!("analyse `{cmd}`"), |b| {
            b.iter(|| black_box(bash::analyse(black_box(cmd))));
        });
    }
}

/// The median over commands of each command's mean time, measured after a warm-up.
fn median_per_command(_: &mut Criterion) {
    let commands = corpus();
    let mut means: Vec<Duration> = commands
        .iter()
        .map(|cmd| {
            for _ in 0..20 {
                black_box(bash::analyse(cmd));
            }
            let runs = 200u32;
            let start = Instant::now();
            for _ in 0..runs {
                black_box(bash::analyse(black_box(cmd)));
            }
            start.elapsed() / runs
        })
        .collect();
    means.sort();
    let median = means[means.len() / 2];
    let p90 = means[means.len() * 9 / 10];
    let max = means[means.len() - 1];
    println!(
        "bash analysis over {} corpus commands: median {:.1} µs, p90 {:.1} µs, max {:.1} µs per command (budget: median ≤ 20 µs)",
        means.len(),
        median.as_secs_f64() * 1e6,
        p90.as_secs_f64() * 1e6,
        max.as_secs_f64() * 1e6
    );
}

criterion_group!(benches, whole_corpus, median_per_command);
criterion_main!(benches);
