//! Snapshot benchmark: materialising a generated 10,000-file (~40 MiB) index with codeguard
//! (predict + materialise) next to `git checkout-index -a --prefix=DIR/`, both into the same
//! kind of directory (tmpfs `/dev/shm` when present), then the ratio of their medians.
//!
//! `cargo bench --bench snapshot` (set `SNAPSHOT_BENCH_FILES` for a smaller index).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use codeguard::snapshot::{Snapshot, SnapshotOptions};
use criterion::Criterion;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("spawn git");
    assert!(status.success(), "git {args:?}");
}

/// A committed, packed repository of `files` source-like files of ~4 KiB each.
fn generate(root: &Path, files: usize) {
    git(root, &["init", "-q", "-b", "main"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-bench-repo.py");
    let status =
        Command::new("python3").arg(script).arg(root).arg(files.to_string()).status().expect("python3");
    assert!(status.success(), "generating the benchmark tree");
    git(root, &["add", "-A"]);
    git(
        root,
        &["-c", "gc.auto=0", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qm", "b"],
    );
    git(root, &["gc", "-q"]);
}

fn scratch() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() { shm } else { std::env::temp_dir() }
}

fn codeguard_once(repo: &Path, options: &SnapshotOptions) -> Duration {
    let start = Instant::now();
    let surface = codeguard::surface::staged_only(repo).expect("predict");
    let snapshot = Snapshot::materialise(&surface, options).expect("materialise");
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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
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
