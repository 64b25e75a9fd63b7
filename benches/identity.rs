//! Content-identity benchmark: the identity of a generated, committed 10,000-file (~40 MiB)
//! worktree, cold (no stat cache: every file is read and hashed) and warm (the stat cache holds
//! every file, which is settled: only stat data is read).
//!
//! `cargo bench --bench identity` (set `IDENTITY_BENCH_FILES` for another size).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// A benchmark outside codeguard's code: it sets up fixtures with git and reads its knobs from
// the environment directly (the house rules of clippy.toml are for codeguard itself).
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use codeguard::stages::cache::identity::{self, Budget};
use codeguard::stages::cache::stat::SETTLE;
use criterion::Criterion;
use support::{generate, median};

mod support;

fn once(repo: &std::path::Path, stat_cache: Option<&std::path::Path>) -> (Duration, usize) {
    let start = Instant::now();
    let worktree = identity::worktree(repo, &Budget::default(), stat_cache).expect("identity");
    (start.elapsed(), worktree.read)
}

fn main() {
    let files = std::env::var("IDENTITY_BENCH_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let repo = tempfile::tempdir().expect("tempdir");
    generate(repo.path(), files);
    let state = tempfile::tempdir().expect("state");
    let stat_cache = state.path().join("stat.tsv");
    std::thread::sleep(SETTLE + Duration::from_millis(100));
    let (_, read) = once(repo.path(), Some(&stat_cache));
    assert_eq!(read, files, "the first run reads every file and fills the stat cache");
    assert_eq!(once(repo.path(), Some(&stat_cache)).1, 0, "a warm run reads no file");

    let mut criterion = Criterion::default().sample_size(10).configure_from_args();
    let mut group = criterion.benchmark_group(format!("identity_{files}_files"));
    group.bench_function("cold", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| once(repo.path(), None).0).sum());
    });
    group.bench_function("warm", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| once(repo.path(), Some(&stat_cache)).0).sum());
    });
    group.finish();

    let cold = median((0..7).map(|_| once(repo.path(), None).0).collect());
    let warm = median((0..7).map(|_| once(repo.path(), Some(&stat_cache)).0).collect());
    println!("identity of {files} files: cold {cold:.1?}, warm {warm:.1?}");
    criterion.final_summary();
}
