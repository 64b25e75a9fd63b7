//! Shared by the benchmarks: a generated, committed repository and a median.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Runs git in `dir` without system or global config, panicking on failure.
pub(crate) fn git(dir: &Path, args: &[&str]) {
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
pub(crate) fn generate(root: &Path, files: usize) {
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

/// The median of some timings.
pub(crate) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
