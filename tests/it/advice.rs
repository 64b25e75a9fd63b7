//! Advice that can help, fixes that respect the project, quiet defaults and warm toolchains:
//! the real binary in real repositories with real ruff, shellcheck, shfmt and cargo.

use std::path::Path;
use std::process::Output;

use crate::support::{
    CARGO_LOCK, TestRepo, assert_untouched, codeguard, pre_tool_use, require_tools, rust_crate, rust_env,
};

/// Runs the `PreToolUse` gate for `command` in `repo` and proves the repository untouched.
fn gate(repo: &TestRepo, command: &str) -> (Option<i32>, String) {
    let home = tempfile::tempdir().expect("home");
    let out: Output =
        assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, &[]));
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn repo_with(files: &[(&str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.git(&["add", "-A"]);
    repo
}

#[test]
fn a_shellcheck_finding_gets_no_formatter_advice() {
    require_tools(&["shellcheck", "shfmt"]);
    let repo = repo_with(&[("deploy.sh", "#!/bin/sh\ncd $1\n")]);
    let (code, stderr) = gate(&repo, "git commit -m deploy");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("SC2164"), "{stderr}");
    assert!(!stderr.contains("shfmt") && !stderr.contains("how to fix"), "shfmt cannot fix SC2164: {stderr}");
}

#[test]
fn a_fixable_ruff_finding_offers_the_ruff_fix() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app.py", "import os\nimport sys\n\nprint(sys.argv)\n")]);
    let (code, stderr) = gate(&repo, "git commit -m app");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
    assert!(
        stderr.contains("how to fix: ruff check --fix --no-unsafe-fixes --force-exclude app.py"),
        "{stderr}"
    );
}

#[test]
fn an_unfixable_ruff_finding_offers_no_fix() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app.py", "print(undefined_name)\n")]);
    let (code, stderr) = gate(&repo, "git commit -m app");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("F821"), "{stderr}");
    assert!(!stderr.contains("how to fix"), "ruff cannot fix F821: {stderr}");
}

#[test]
fn without_a_ruff_config_style_rules_pass_and_bugs_still_fail() {
    require_tools(&["ruff"]);
    let style = repo_with(&[("app.py", "square = lambda x: x * x\nprint(square(2))\n")]);
    assert_eq!(gate(&style, "git commit -m style"), (Some(0), String::new()), "E731 is style, not a bug");
    let bug = repo_with(&[("app.py", "import os\nsquare = lambda x: x * x\nprint(square(2))\n")]);
    let (code, stderr) = gate(&bug, "git commit -m bug");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("F401") && !stderr.contains("E731"), "{stderr}");
}

const UGLY_SH: &str = "#!/bin/sh\nif [ -n \"$1\" ]; then\necho   \"$1\"\nfi\n";
const PRETTY_SH: &str = "#!/bin/sh\nif [ -n \"$1\" ]; then\n\techo \"$1\"\nfi\n";

fn fix_json(repo: &TestRepo) -> (Option<i32>, serde_json::Value) {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .args(["fix", "--format", "json"])
        .output()
        .expect("run fix");
    (out.status.code(), crate::support::json_stdout(&out))
}

fn shell_entry(json: &serde_json::Value) -> &serde_json::Value {
    json["formatters"]
        .as_array()
        .expect("formatters")
        .iter()
        .find(|f| f["language"] == "shell")
        .expect("shell")
}

#[test]
fn fix_leaves_a_script_alone_when_the_project_never_adopted_shfmt() {
    require_tools(&["shfmt", "shellcheck"]);
    let repo = TestRepo::new();
    repo.write("tools/install.sh", UGLY_SH).commit_all("init");
    let edited = format!("{UGLY_SH}echo   finished\n");
    repo.write("tools/install.sh", &edited);
    let (_, json) = fix_json(&repo);
    assert_eq!(std::fs::read_to_string(repo.path("tools/install.sh")).expect("read"), edited, "{json:#}");
    let shell = shell_entry(&json);
    assert_eq!(shell["status"], "SKIPPED", "{json:#}");
    let reason = shell["reason"].as_str().expect("reason");
    assert!(reason.starts_with("not adopted here") && reason.contains("tools/install.sh"), "{reason}");
    assert_eq!(json["changed"], serde_json::json!([]), "{json:#}");
}

#[test]
fn fix_formats_a_script_whose_committed_version_is_already_formatted() {
    require_tools(&["shfmt", "shellcheck"]);
    let repo = TestRepo::new();
    repo.write("tools/install.sh", PRETTY_SH).commit_all("init");
    repo.write("tools/install.sh", &format!("{PRETTY_SH}echo   finished\n"));
    let (code, json) = fix_json(&repo);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(
        std::fs::read_to_string(repo.path("tools/install.sh")).expect("read"),
        format!("{PRETTY_SH}echo finished\n"),
        "{json:#}"
    );
    assert_eq!(shell_entry(&json)["status"], "PASS", "{json:#}");
    assert_eq!(json["changed"], serde_json::json!(["tools/install.sh"]), "{json:#}");
}

#[test]
fn fix_formats_an_unformatted_script_when_the_project_configures_shfmt() {
    require_tools(&["shfmt", "shellcheck"]);
    let repo = TestRepo::new();
    // shfmt's own settings live in .editorconfig: its keys there are the project's choice.
    repo.write("tools/install.sh", UGLY_SH)
        .write(".editorconfig", "root = true\n\n[*.sh]\nswitch_case_indent = true\n")
        .commit_all("init");
    repo.write("tools/install.sh", &format!("{UGLY_SH}echo   finished\n"));
    let (code, json) = fix_json(&repo);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(
        std::fs::read_to_string(repo.path("tools/install.sh")).expect("read"),
        format!("{UGLY_SH}echo finished\n"),
        "only the edit is formatted; the lines it did not touch keep their bytes: {json:#}"
    );
    let notes = json["notes"].to_string();
    assert!(
        notes.contains("lines the edit did not touch") && notes.contains("codeguard fix --all"),
        "{json:#}"
    );
    // --all formats whole files.
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .args(["fix", "--all", "--lang", "shell"])
        .output()
        .expect("fix --all");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(read(&repo, "tools/install.sh"), format!("{PRETTY_SH}echo finished\n"));
}

#[test]
fn an_editorconfig_alone_is_not_shfmt_and_a_ci_step_running_it_is() {
    require_tools(&["shfmt", "shellcheck"]);
    let repo = TestRepo::new();
    repo.write("tools/install.sh", UGLY_SH)
        .write(".editorconfig", "root = true\n\n[*]\nindent_style = space\nindent_size = 2\n")
        .commit_all("init");
    let edited = format!("{UGLY_SH}echo   finished\n");
    repo.write("tools/install.sh", &edited);
    let (code, json) = fix_json(&repo);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(read(&repo, "tools/install.sh"), edited, "nobody asked for shfmt: {json:#}");
    assert_eq!(json["changed"], serde_json::json!([]), "{json:#}");
    let reason = shell_entry(&json)["reason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("not adopted here") && reason.contains("`shfmt` in CI or hooks"), "{reason}");

    repo.write(
        ".github/workflows/lint.yml",
        "on: push\njobs:\n  fmt:\n    runs-on: ubuntu-latest\n    steps:\n      - run: shfmt -i 2 -d .\n",
    );
    let (code, json) = fix_json(&repo);
    assert_eq!(code, Some(0), "{json:#}");
    assert_eq!(
        json["changed"],
        serde_json::json!(["tools/install.sh"]),
        "the project runs shfmt in CI: {json:#}"
    );
}

fn read(repo: &TestRepo, path: &str) -> String {
    std::fs::read_to_string(repo.path(path)).expect("read")
}

const HELLO_RS: &str = "fn main() {\n    println!(\"hi\");\n}\n";

/// `codeguard check <args> --lang rust --format json` in `repo`.
fn check_rust(repo: &TestRepo, home: &Path, args: &[&str]) -> serde_json::Value {
    let out = codeguard(home)
        .envs(rust_env())
        .current_dir(repo.root())
        .arg("check")
        .args(args)
        .args(["--lang", "rust", "--format", "json"])
        .output()
        .expect("run check");
    crate::support::json_stdout(&out)
}

fn rust_result(json: &serde_json::Value) -> &serde_json::Value {
    json["languages"].as_array().expect("languages").iter().find(|l| l["language"] == "rust").expect("rust")
}

/// The build cache directories under the state home.
fn build_caches(home: &Path) -> Vec<std::path::PathBuf> {
    let root = home.join(".codeguard/cache/build");
    std::fs::read_dir(&root)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default()
}

#[test]
fn clippy_builds_in_a_warm_per_repository_cache_never_in_the_users_target() {
    let (repo, home) = rust_crate(CARGO_LOCK, HELLO_RS, &[]);
    repo.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    repo.git(&["add", "src/main.rs"]);
    let first = check_rust(&repo, home.path(), &["--staged"]);
    assert_eq!(rust_result(&first)["status"], "PASS", "{first:#}");
    let caches = build_caches(home.path());
    assert_eq!(caches.len(), 1, "one cache for the repository: {caches:?}");
    let target = caches[0].join("stable/cargo-target-dir");
    assert!(target.join("debug").is_dir(), "the gate's clippy built into {}", target.display());
    assert!(caches[0].join("stable/tree/src/main.rs").is_file(), "in the repository's stable tree");
    let second = check_rust(&repo, home.path(), &["--staged"]);
    assert_eq!(rust_result(&second)["status"], "PASS", "{second:#}");
    assert_eq!(build_caches(home.path()), caches, "the second run reuses the same cache");
    let in_place = check_rust(&repo, home.path(), &["--all"]);
    assert_eq!(rust_result(&in_place)["status"], "PASS", "{in_place:#}");
    assert!(caches[0].join("cargo-target-dir/debug").is_dir(), "in place: a build directory of its own");
    assert!(!repo.path("target").exists(), "the user's target/ is never created");
}

#[test]
fn the_first_check_that_builds_says_so_and_later_ones_do_not() {
    let (repo, home) = rust_crate(CARGO_LOCK, HELLO_RS, &[]);
    let check = || {
        let out = codeguard(home.path())
            .envs(rust_env())
            .current_dir(repo.root())
            .args(["check", "--no-cache", "--lang", "rust", "--all"])
            .output()
            .expect("run check");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = "rust: its linter builds this project and its dependencies the first time";
    let first = check();
    assert!(first.contains(said), "the first check names the build it waits for: {first}");
    let second = check();
    assert!(!second.contains(said), "a later one reuses the build and says nothing: {second}");
}

#[test]
fn a_gate_after_a_blocked_attempt_lints_the_content_as_it_is_now() {
    // Two crates: cargo re-checks only a crate with a file newer than its last build, so the
    // stable tree must give a file that went back to older content a new time as well.
    require_tools(&["cargo"]);
    let member =
        |name: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    let files = [
        ("a/Cargo.toml", member("a")),
        ("a/src/lib.rs", "pub fn f() -> u32 {\n    1\n}\n".to_owned()),
        ("b/Cargo.toml", member("b")),
        ("b/src/lib.rs", "pub fn g() -> u32 {\n    2\n}\n".to_owned()),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (repo, home) = rust_crate(CARGO_LOCK, HELLO_RS, &files);
    repo.write(
        "Cargo.toml",
        &format!("{}\n[workspace]\nmembers = [\"a\", \"b\"]\n", crate::support::CARGO_TOML),
    );
    crate::support::generate_lockfile(&repo);
    repo.commit_all("workspace");
    let gate = |command: &str| {
        let env: Vec<(String, String)> =
            rust_env().into_iter().map(|(k, v)| (k.to_owned(), v.to_string_lossy().into_owned())).collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let out = pre_tool_use(home.path(), &repo.root(), "t-1", command, &env);
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    repo.write("a/src/lib.rs", "pub fn f() -> u32 {\n    let x = 1;\n    1\n}\n");
    repo.git(&["add", "a/src/lib.rs"]);
    let (code, stderr) = gate("git commit -m a");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("a/src/lib.rs:2:9: error: unused variable"), "{stderr}");
    repo.git(&["reset", "-q", "a/src/lib.rs"]);
    repo.git(&["checkout", "a/src/lib.rs"]);
    repo.write("b/src/lib.rs", "pub fn g() -> u32 {\n    3\n}\n");
    repo.git(&["add", "b/src/lib.rs"]);
    let (code, stderr) = gate("git commit -m b");
    assert_eq!(code, Some(0), "crate a is back to its committed content, which is clean: {stderr}");
    repo.write("b/src/lib.rs", "pub fn g() -> u32 {\n    let y = 2;\n    3\n}\n");
    repo.git(&["add", "b/src/lib.rs"]);
    let (code, stderr) = gate("git commit -m b");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("b/src/lib.rs:2:9") && !stderr.contains("a/src/lib.rs"), "{stderr}");
}

#[test]
fn a_stale_cargo_lock_fails_with_cargos_error_and_is_never_rewritten() {
    let stale = CARGO_LOCK.replace("0.1.0", "0.0.9");
    let (repo, home) = rust_crate(&stale, HELLO_RS, &[]);
    let json = check_rust(&repo, home.path(), &["--all"]);
    let rust = rust_result(&json);
    assert_eq!(rust["status"], "FAIL", "{json:#}");
    let log = std::fs::read_to_string(rust["log_path"].as_str().expect("log")).expect("read log");
    assert!(log.contains("--locked"), "cargo's own error is kept: {log}");
    assert_eq!(
        std::fs::read_to_string(repo.path("Cargo.lock")).expect("lock"),
        stale,
        "Cargo.lock keeps every byte"
    );
    assert!(!repo.path("target").exists());
}

#[test]
fn a_formatter_that_fails_on_the_committed_version_is_not_adopted_and_says_why() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::new();
    repo.write("run.sh", PRETTY_SH).commit_all("init");
    repo.write("run.sh", UGLY_SH);
    let fake = tempfile::tempdir().expect("fake");
    let shfmt = fake.path().join("shfmt");
    std::fs::write(&shfmt, "#!/bin/sh\necho broken >&2\nexit 3\n").expect("write");
    std::fs::set_permissions(&shfmt, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let bin = crate::support::bin_dir_with(&[&shfmt]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
        .args(["fix", "--lang", "shell", "--format", "json"])
        .output()
        .expect("run fix");
    let json = crate::support::json_stdout(&out);
    let shell = shell_entry(&json);
    assert_eq!(shell["status"], "SKIPPED", "{json:#}");
    let reason = shell["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("not adopted here")
            && reason.contains("could not be checked (`shfmt -w run.sh` exited with 3"),
        "{reason}"
    );
    assert_eq!(std::fs::read_to_string(repo.path("run.sh")).expect("read"), UGLY_SH);
}
