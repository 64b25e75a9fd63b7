//! Snapshot benchmark: materialising a generated 10,000-file (~40 MiB) index with codeguard
//! (predict + materialise) next to `git checkout-index -a --prefix=DIR/`, both into the same
//! kind of directory (tmpfs `/dev/shm` when present), then the ratio of their medians.
//!
//! `cargo bench --bench snapshot` (set `SNAPSHOT_BENCH_FILES` for a smaller index).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// A benchmark outside codeguard's code: it sets up fixtures with git and reads its knobs from
// the environment directly (the house rules of clippy.toml are for codeguard itself).
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codeguard::stages::snapshot::{Snapshot, SnapshotOptions};
use criterion::Criterion;
use support::{generate, git, median};

mod support;

fn scratch() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() { shm } else { std::env::temp_dir() }
}

fn codeguard_once(repo: &Path, options: &SnapshotOptions) -> Duration {
    let start = Instant::now();
    let surface = codeguard::stages::surface::staged_only(repo).expect("predict");
    let snapshot = Snapshot::materialise_whole(&surface, options).expect("materialise");
    let elapsed = start.elapsed();
    drop(snapshot);
    elapsed
}

fn git_once(repo: &Path, parent: &Path) -> Duration {
    let dir = tempfile::tempdir_in(parent).expect("tempdir");
    let prefix = format!("{}/", dir.path().display());
    let start = Instant::now();
    git(repo, &["checkout-index", "-a", &format!("--prefix={prefix}")]);
    start.elapsed()
}

fn main() {
    let files = std::env::var("SNAPSHOT_BENCH_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let repo = tempfile::tempdir().expect("tempdir");
    generate(repo.path(), files);
    let parent = scratch();
    let options = SnapshotOptions { scratch_dirs: vec![parent.clone()], ..SnapshotOptions::default() };

    let mut criterion = Criterion::default().sample_size(10).configure_from_args();
    let mut group = criterion.benchmark_group(format!("snapshot_{files}_files"));
    group.bench_function("codeguard_predict_and_materialise", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| codeguard_once(repo.path(), &options)).sum());
    });
    group.bench_function("git_checkout_index", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| git_once(repo.path(), &parent)).sum());
    });
    group.finish();

    let ours = median((0..7).map(|_| codeguard_once(repo.path(), &options)).collect());
    let theirs = median((0..7).map(|_| git_once(repo.path(), &parent)).collect());
    println!(
        "snapshot of {files} files into {}: codeguard {ours:.1?}, git checkout-index {theirs:.1?}, ratio {:.2}",
        parent.display(),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    criterion.final_summary();
}
