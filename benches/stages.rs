//! In-process cost of the pipeline stages between the shell analysis (`benches/bash_analysis.rs`)
//! and the snapshot (`benches/snapshot.rs`), plus the two ends every gate run pays for: loading
//! the language registry and rendering a blocking report.
//!
//! `cargo bench --bench stages` (add a name to run one group: `cargo bench --bench stages -- surface`).
//! Each group warms up for 1 s and measures for 3 s unless the command line says otherwise.
//!
//! - `intent`: [`intent::resolve`] on a real repository (discovery, config, linked worktrees).
//! - `surface`: [`surface::predict`] on a 2,000-file repository with staged, unstaged and
//!   untracked changes: a plain commit, `git add -A && git commit`, and a push of 3 commits.
//! - `registry`: [`Registry::builtin`] (parse and validate `registry/languages.json`).
//! - `report`: [`report::render_gate`] for three failing languages with 5 MiB of linter output
//!   and 40 safety findings, squeezed to the 3,000-character cap.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test/bench harness reports on its own streams"
)]
// A benchmark outside codeguard's code: it sets up fixtures with git and reads its knobs from
// the environment directly (the house rules of clippy.toml are for codeguard itself).
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use codeguard::stages::outcome::Status;
use codeguard::stages::registry::Registry;
use codeguard::stages::report::{self, GateReport};
use codeguard::stages::run::LanguageResult;
use codeguard::stages::safety::{Finding, Kind};
use codeguard::stages::surface::{self, Pathspecs, StagingAction, SurfaceOptions};
use codeguard::stages::{bash, intent};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/it/support.rs"]
mod support;

use support::{TestRepo, git_in};

/// Tracked files in the surface fixture.
const TRACKED: usize = 2_000;

/// A committed repository of `TRACKED` small Python files in 100 directories, then 30 files
/// modified and staged, 30 modified and not staged, and 20 untracked ones.
fn surface_fixture() -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..TRACKED {
        repo.write(&format!("pkg{:02}/mod{i:04}.py", i % 100), &format!("VALUE_{i} = {i}\n"));
    }
    repo.commit_all("base");
    for i in 0..30 {
        repo.write(&format!("pkg{:02}/mod{i:04}.py", i % 100), &format!("VALUE_{i} = {}\n", i + 1));
    }
    repo.git(&["add", "-u"]);
    for i in 30..60 {
        repo.write(&format!("pkg{:02}/mod{i:04}.py", i % 100), &format!("VALUE_{i} = {}\n", i + 2));
    }
    for i in 0..20 {
        repo.write(&format!("new/extra{i:02}.py"), "EXTRA = 1\n");
    }
    repo
}

/// Adds a bare remote that the repository's `main` tracks, then three local commits to push.
fn with_upstream(repo: &TestRepo, remote: &std::path::Path) {
    git_in(remote, &["init", "-q", "--bare", "-b", "main"]);
    repo.git(&["remote", "add", "origin", &remote.display().to_string()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    for n in 0..3 {
        repo.write(&format!("pushed/p{n}.py"), &format!("P = {n}\n"));
        repo.commit_all("to push");
    }
}

fn intent_resolve(c: &mut Criterion) {
    let repo = TestRepo::new();
    repo.write("app/main.py", "print(1)\n").write("README.md", "x\n").commit_all("base");
    let root = repo.root();
    let sub = root.join("app");
    let cases: [(&str, &str, PathBuf); 4] = [
        ("not guarded", "ls -la && cargo test", root.clone()),
        ("commit", "git add -A && git commit -m wip", root.clone()),
        ("cd, commit and push", "cd app && git commit -am wip && git push", root.clone()),
        ("commit from a subdirectory", "git -C .. commit -m wip", sub),
    ];
    let mut group = c.benchmark_group("intent");
    for (name, command, cwd) in cases {
        let analysis = bash::analyse(command);
        group.bench_function(name, |b| b.iter(|| black_box(intent::resolve(black_box(&analysis), &cwd))));
    }
    group.finish();
}

fn surface_predict(c: &mut Criterion) {
    let repo = surface_fixture();
    let remote = tempfile::tempdir().expect("tempdir");
    let root = repo.root();
    let options = SurfaceOptions::default();
    let add_all = StagingAction::Add { specs: Pathspecs::default(), all: true, update: false, force: false };
    let mut group = c.benchmark_group(format!("surface_{TRACKED}_files"));
    group.bench_function("git commit (staged only)", |b| {
        b.iter(|| {
            black_box(surface::predict(&root, surface::Mode::Commit, &[StagingAction::Commit], &options))
        });
    });
    let add_then_commit = [add_all, StagingAction::Commit];
    group.bench_function("git add -A && git commit", |b| {
        b.iter(|| black_box(surface::predict(&root, surface::Mode::Commit, &add_then_commit, &options)));
    });
    with_upstream(&repo, remote.path());
    group.bench_function("git push (3 commits ahead)", |b| {
        b.iter(|| {
            black_box(surface::predict(&root, surface::Mode::Push { pending_commit: false }, &[], &options))
        });
    });
    group.finish();
}

fn registry_builtin(c: &mut Criterion) {
    c.bench_function("registry/builtin", |b| b.iter(|| black_box(Registry::builtin())));
}

/// A failing language whose linter printed about `bytes` of `path:line:col: CODE message` lines.
fn failing(language: &str, program: &str, bytes: usize) -> LanguageResult {
    let mut output = String::with_capacity(bytes + 200);
    let mut n = 0;
    while output.len() < bytes {
        let _ = writeln!(
            output,
            "src/pkg{}/module_{n}.py:{}:{}: E{:03} something is wrong with `value_{n}` here",
            n % 40,
            n % 900 + 1,
            n % 80 + 1,
            n % 17
        );
        n += 1;
    }
    LanguageResult {
        language: language.to_owned(),
        name: language.to_owned(),
        status: Status::Fail,
        reason: String::new(),
        exit_code: Some(1),
        argv: vec![vec![program.to_owned(), "{files}".to_owned()]],
        files: (0..200).map(|i| format!("src/pkg{}/module_{i}.py", i % 40)).collect(),
        duration: Duration::from_millis(120),
        output,
        fix: Some(vec![program.to_owned(), "--fix".to_owned()]),
        install_hint: String::new(),
        managed: false,
        log_path: Some(PathBuf::from(format!("/home/u/.codeguard/logs/gate-0123456789ab-{language}.log"))),
        cause: None,
        exempt: Vec::new(),
        findings: Vec::new(),
        reused: 0,
    }
}

fn report_render(c: &mut Criterion) {
    let languages = vec![
        failing("python", "ruff", 3 << 20),
        failing("shell", "shellcheck", 1 << 20),
        failing("yaml", "yamllint", 1 << 20),
    ];
    let findings: Vec<Finding> = (0..40)
        .map(|i| Finding {
            path: format!("config/secrets_{i}.env"),
            line: Some(i + 1),
            rule: "aws-access-key-id",
            kind: Kind::Secret,
            message: format!("an AWS access key id (AKIA…{i:04}) is in the content"),
            fingerprint: format!("{i:016x}"),
            allowed: i % 5 == 0,
        })
        .collect();
    let report = GateReport {
        mode: codeguard::stages::bash::Mode::Commit,
        root: PathBuf::from("/home/u/project"),
        languages: &languages,
        findings: &findings,
        no_verify: false,
        linters_bypassed: false,
        bypass_asks_user: true,
        rules: &[],
        rules_from_base: false,
    };
    let text = report::render_gate(&report);
    assert!(text.chars().count() <= report::MAX_REPORT_CHARS, "the report stays within its cap");
    c.bench_function("report/render_gate 5 MiB of output, 40 findings", |b| {
        b.iter(|| black_box(report::render_gate(black_box(&report))));
    });
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = stages;
    config = config();
    targets = intent_resolve, surface_predict, registry_builtin, report_render
}
criterion_main!(stages);
