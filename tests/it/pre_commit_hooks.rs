//! codeguard as a hook of a hook manager, from its own `.pre-commit-hooks.yaml`: real prek
//! (pinned in scripts/requirements-test.txt) runs a repository's `.pre-commit-config.yaml` that
//! names this repository (its path as `repo:`, its `HEAD` as `rev:`, so the committed hook
//! definitions are the ones tested), and real git commits through prek's hook: a staged secret
//! is blocked with codeguard's report, a clean commit goes through.
//!
//! `codeguard-system` runs the binary under test from PATH. `codeguard` (`language: python`)
//! makes prek build codeguard's wheel with maturin inside its hook environment (prek clones the
//! repository and runs `uv pip install .`). That build cannot reuse a wheel: uv builds a path
//! requirement from source whatever `--find-links` offers, and the clone's sources are newer
//! than any earlier build, so cargo compiles the codeguard crate again. What does work, and is
//! what this test does: `CARGO_TARGET_DIR` pointed at scripts/wheel.sh's target directory
//! (`CODEGUARD_WHEEL_TARGET`, set by scripts/test.sh) so every dependency is reused, and
//! `MATURIN_PEP517_ARGS=--profile wheel-ci` so the crate is built unoptimised, like CI's wheel
//! (README "Hook managers"); prek's install then takes about 40 s on two shared cores instead
//! of a cold release build's 15 minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{TestRepo, bin_dir_with, require_tools};

const SECRET: &str = "aws_access_key_id = AKIAQWERTYUIOPASDFGH\n";

/// This repository, as prek clones it: its path and the commit `HEAD` names.
fn hook_repository() -> (PathBuf, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out =
        crate::support::git_command().args(["rev-parse", "HEAD"]).current_dir(&dir).output().expect("git");
    assert!(out.status.success(), "codeguard's own repository has no HEAD");
    let rev = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let listed = crate::support::git_command()
        .args(["cat-file", "-e", &format!("{rev}:.pre-commit-hooks.yaml")])
        .current_dir(&dir)
        .status()
        .expect("git");
    assert!(listed.success(), "HEAD has no .pre-commit-hooks.yaml: commit it before running this test");
    (dir, rev)
}

/// A repository using hook `id` of this repository through prek, its hook installed; the
/// returned home holds prek's and codeguard's state.
struct Managed {
    repo: TestRepo,
    home: tempfile::TempDir,
    path: std::ffi::OsString,
    extra: Vec<(&'static str, std::ffi::OsString)>,
}

impl Managed {
    fn new(id: &str, path: std::ffi::OsString, extra: Vec<(&'static str, std::ffi::OsString)>) -> Self {
        let (source, rev) = hook_repository();
        let repo = TestRepo::new();
        let config =
            format!("repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: {id}\n", source.display());
        repo.write(".pre-commit-config.yaml", &config).write("README.txt", "hello\n");
        let managed = Self { repo, home: tempfile::tempdir().expect("home"), path, extra };
        let installed = managed.run("prek", &["install", "--install-hooks"]);
        assert!(installed.status.success(), "prek install failed:\n{}", text(&installed));
        managed
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(self.repo.root())
            .env("PATH", &self.path)
            .env("PREK_HOME", self.home.path().join("prek"))
            .env("CODEGUARD_HOME", self.home.path().join("codeguard"))
            .envs(crate::support::git_env())
            .envs(self.extra.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("spawn")
    }

    /// A clean commit goes through the hook; a staged secret is then blocked with codeguard's
    /// report and nothing is committed.
    fn blocks_a_secret_and_passes_a_clean_commit(&self) {
        self.repo.git(&["add", "-A"]);
        let clean = self.run("git", &["commit", "-q", "-m", "clean"]);
        assert!(clean.status.success(), "the clean commit was blocked:\n{}", text(&clean));
        assert!(text(&clean).contains("codeguard"), "prek ran the codeguard hook:\n{}", text(&clean));
        let head = self.repo.git(&["rev-parse", "HEAD"]);

        self.repo.write("settings.txt", SECRET);
        self.repo.git(&["add", "settings.txt"]);
        let bad = self.run("git", &["commit", "-q", "-m", "bad"]);
        let output = text(&bad);
        assert_eq!(bad.status.code(), Some(1), "{output}");
        assert!(output.contains("aws-access-key-id") && output.contains("settings.txt"), "{output}");
        assert!(!output.contains("AKIAQWERTYUIOPASDFGH"), "the secret is redacted:\n{output}");
        assert_eq!(self.repo.git(&["rev-parse", "HEAD"]), head, "nothing was committed");
        assert_eq!(self.repo.git(&["diff", "--cached", "--name-only"]), "settings.txt\n", "still staged");
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn joined(dirs: &[&Path]) -> std::ffi::OsString {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = dirs.iter().map(|d| d.to_path_buf()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).expect("PATH")
}

#[test]
fn prek_runs_the_system_hook_which_blocks_a_secret_and_passes_a_clean_commit() {
    require_tools(&["prek"]);
    let codeguard = assert_cmd::cargo::cargo_bin("codeguard");
    let bin = bin_dir_with(&[&codeguard]);
    let managed = Managed::new("codeguard-system", joined(&[bin.path()]), Vec::new());
    managed.blocks_a_secret_and_passes_a_clean_commit();
}

#[test]
fn prek_builds_the_python_hook_from_the_wheel_which_blocks_a_secret_and_passes_a_clean_commit() {
    require_tools(&["prek", "uv", "cargo"]);
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let from_env =
        |key: &str, default: PathBuf| std::env::var_os(key).unwrap_or_else(|| default.into_os_string());
    let cache = std::env::var_os("XDG_CACHE_HOME").map_or_else(|| home.join(".cache"), PathBuf::from);
    let target = std::env::var_os("CODEGUARD_WHEEL_TARGET").expect(
        "CODEGUARD_WHEEL_TARGET (scripts/wheel.sh's warm target directory) is not set: run scripts/test.sh, which builds the wheel there",
    );
    let extra = vec![
        // prek's clone builds in the warm target directory of scripts/wheel.sh's wheel.
        ("CARGO_TARGET_DIR", target),
        ("MATURIN_PEP517_ARGS", "--profile wheel-ci".into()),
        ("CARGO_HOME", from_env("CARGO_HOME", home.join(".cargo"))),
        ("RUSTUP_HOME", from_env("RUSTUP_HOME", home.join(".rustup"))),
        ("UV_CACHE_DIR", from_env("UV_CACHE_DIR", cache.join("uv"))),
        ("HOME", home.into_os_string()),
    ];
    // The binary under test is not on PATH: what runs is the codeguard prek installed.
    let managed = Managed::new("codeguard", joined(&[]), extra);
    let installed: Vec<PathBuf> = walkdir::WalkDir::new(managed.home.path().join("prek"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "codeguard" && e.path().parent().is_some_and(|p| p.ends_with("bin")))
        .map(walkdir::DirEntry::into_path)
        .collect();
    assert_eq!(installed.len(), 1, "prek's hook environment holds the wheel's codeguard: {installed:?}");
    managed.blocks_a_secret_and_passes_a_clean_commit();
}
