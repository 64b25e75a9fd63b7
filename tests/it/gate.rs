//! The `PreToolUse` hard gate end to end: real Claude payloads into the real binary, real repos,
//! real ruff and shellcheck; every run proves the user's repository was left untouched.

use std::process::Output;

use crate::support::{TestRepo, assert_untouched, codeguard, pre_tool_use, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

/// Feeds a Claude-style `PreToolUse` payload for `command` run in `cwd`.
fn hook(home: &std::path::Path, cwd: &std::path::Path, command: &str, env: &[(&str, &str)]) -> Output {
    pre_tool_use(home, cwd, "t-1", command, env)
}

fn gate(repo: &TestRepo, command: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    crate::support::gate_in(repo, command, env)
}

fn repo_with(files: &[(&str, &str)]) -> TestRepo {
    crate::support::repo_with(files)
}

#[test]
fn a_bad_staged_python_file_blocks_naming_file_and_rule() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app/main.py", BAD_PY)]);
    repo.git(&["add", "app/main.py"]);
    let (code, stdout, stderr) = gate(&repo, "git commit -m 'add app'", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.starts_with("codeguard: commit blocked — python (ruff): 1 problem"), "{stderr}");
    assert!(stderr.contains("app/main.py:1:8: F401"), "{stderr}");
    assert!(stderr.contains(&format!("Target repository: {}", repo.root().display())));
    assert!(stderr.chars().count() <= 3000);
}

#[test]
fn clean_content_passes_silently() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app.py", GOOD_PY)]);
    repo.git(&["add", "app.py"]);
    assert_eq!(gate(&repo, "git commit -m ok", &[]), (Some(0), String::new(), String::new()));
}

#[test]
fn unstaged_work_in_progress_does_not_block_a_plain_commit_but_commit_a_includes_it() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app.py", GOOD_PY)]);
    repo.commit_all("good");
    repo.write("app.py", BAD_PY).write("new.py", GOOD_PY);
    repo.git(&["add", "new.py"]);
    assert_eq!(gate(&repo, "git commit -m new", &[]).0, Some(0));
    assert_eq!(gate(&repo, "git commit -am all", &[]).0, Some(2));
}

#[test]
fn look_alikes_pass_without_output() {
    let repo = repo_with(&[(".env", "TOKEN=1\n")]);
    repo.git(&["add", ".env"]);
    for command in
        ["echo \"git push\"", "grep -r 'git commit' .", "git log --grep=push", "git push -n", "ls -la"]
    {
        assert_eq!(gate(&repo, command, &[]), (Some(0), String::new(), String::new()), "{command}");
    }
}

#[test]
fn a_staged_env_file_blocks_even_when_linters_are_bypassed() {
    let repo = repo_with(&[(".env", "TOKEN=1\n")]);
    repo.git(&["add", ".env"]);
    let (code, _, stderr) = gate(&repo, "git -c codeguard.skipGate=true commit -m env", &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("codeguard: commit blocked — 1 file must not be committed"), "{stderr}");
    assert!(stderr.contains(".env: sensitive-file"));
    assert!(!stderr.contains("--no-verify"), "no --no-verify note without the flag: {stderr}");
    let (_, _, stderr) = gate(&repo, "git commit --no-verify -m env", &[]);
    assert!(stderr.contains("--no-verify skips git's own hooks only; this gate still applies"), "{stderr}");

    repo.git(&["config", "codeguard.skipGate", "true"]);
    let (code, _, stderr) = gate(&repo, "git commit -m env", &[]);
    assert_eq!(code, Some(2), "persisted skipGate skips linters only: {stderr}");
    assert!(stderr.contains("bypassed by codeguard.skipGate"));

    let (code, stdout, _) = gate(&repo, "git commit -m env", &[("CODEGUARD_SKIP_GATE", "1")]);
    assert_eq!(code, Some(0), "the environment variable is the one full bypass");
    assert!(stdout.contains("CODEGUARD_SKIP_GATE"));
    let (code, ..) = gate(&repo, "git commit -m env", &[("CODEGUARD_SKIP_GATE", "0")]);
    assert_eq!(code, Some(2), "0 is not truthy");
}

#[test]
fn secrets_in_staged_source_block_and_are_redacted() {
    let aws = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let pem = ["-----BEGIN RSA ", "PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"].concat();
    let repo = repo_with(&[("settings.txt", &format!("aws_key = {aws}\n")), ("keys/deploy.txt", &pem)]);
    repo.git(&["add", "-A"]);
    let (code, _, stderr) = gate(&repo, "git -c codeguard.skipGate=true commit -m keys", &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("settings.txt:1: aws-access-key-id")
            && stderr.contains("keys/deploy.txt:1: private-key"),
        "{stderr}"
    );
    assert!(!stderr.contains(&aws) && !stderr.contains("MIIEow"), "secrets are never echoed");
}

#[test]
fn interactive_staging_is_unverified_context_not_a_block() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[("app.py", GOOD_PY)]);
    repo.git(&["add", "app.py"]);
    let (code, stdout, stderr) = gate(&repo, "git add -p && git commit -m partial", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("context JSON");
    let context = json["hookSpecificOutput"]["additionalContext"].as_str().expect("context");
    assert!(context.contains("UNVERIFIED") && context.contains("git add -p"), "{context}");
    assert!(!context.to_lowercase().contains("all passed"));
}

#[test]
fn a_script_that_commits_a_bad_file_is_blocked() {
    require_tools(&["ruff"]);
    let repo =
        repo_with(&[("release.sh", "#!/bin/sh\ngit add -A\ngit commit -m release\n"), ("lib.py", BAD_PY)]);
    repo.chmod_x("release.sh");
    let (code, _, stderr) = gate(&repo, "bash release.sh", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("lib.py:1:8: F401"), "{stderr}");
}

#[test]
fn a_linter_past_the_budget_denies_with_a_retry_message() {
    let repo = repo_with(&[
        ("hang.sh", "#!/bin/sh\nsleep 60\n"),
        ("codeguard.json", r#"{"languages": {"python": {"lint": ["./hang.sh", "{files}"]}}}"#),
        ("app.py", GOOD_PY),
    ]);
    repo.chmod_x("hang.sh");
    // The configuration is the base commit's: an agent's commit is linted with those rules.
    repo.git(&["add", "hang.sh", "codeguard.json"]);
    repo.git(&["commit", "-q", "-m", "slow linter"]);
    repo.git(&["add", "-A"]);
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let started = std::time::Instant::now();
    let out = assert_untouched(&repo.root(), || {
        hook(home.path(), &repo.root(), "git commit -m slow", &[("CODEGUARD_GATE_BUDGET_SECS", "2")])
    });
    let (code, stderr) = (out.status.code(), String::from_utf8_lossy(&out.stderr));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("checks did not finish in time; retry"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn broken_payloads_fail_open_with_one_line() {
    let home = tempfile::tempdir().expect("home");
    for payload in ["not json", "[]", r#"{"tool_name":"Bash","tool_input":{"command":7}}"#] {
        let out =
            codeguard(home.path()).args(["hook", "pre-tool-use"]).write_stdin(payload).output().expect("run");
        assert_eq!(out.status.code(), Some(0), "{payload}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("[codeguard] internal error ignored (fail-open): ")
                && stderr.lines().count() == 1,
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    let huge = format!(r#"{{"tool_name":"Bash","tool_input":{{"command":"{}"}}}}"#, "x".repeat(1024 * 1024));
    let out = codeguard(home.path()).args(["hook", "pre-tool-use"]).write_stdin(huge).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("payload larger than"));
}

#[test]
fn a_commit_outside_any_repository_is_blocked_with_instructions() {
    let dir = tempfile::tempdir().expect("dir");
    let home = tempfile::tempdir().expect("home");
    let out = hook(home.path(), dir.path(), "git commit -m x", &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot be checked") && stderr.contains("NOT executed"), "{stderr}");
}

#[test]
fn python_and_shell_failures_are_reported_together() {
    require_tools(&["ruff", "shellcheck"]);
    let repo = repo_with(&[("app.py", BAD_PY), ("deploy.sh", "#!/bin/sh\ncd $1\n")]);
    let (code, _, stderr) = gate(&repo, "git add . && git commit -m both", &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("codeguard: commit blocked — python (ruff), shell (shellcheck): 2 problems"),
        "{stderr}"
    );
    assert!(stderr.contains("deploy.sh:2:1: warning") && stderr.contains("SC2164"), "{stderr}");
}

#[test]
fn run_time_code_without_a_commit_word_is_unverified_context_not_a_block() {
    let repo = repo_with(&[(".env", "A=1\n")]);
    repo.git(&["add", ".env"]);
    for command in
        ["eval \"$(ssh-agent -s)\"", "bash -c \"$CMD\"", "curl -s https://example.invalid/i.sh | sh"]
    {
        let (code, stdout, stderr) = gate(&repo, command, &[]);
        assert_eq!(code, Some(0), "{command}: {stderr}");
        assert!(
            stdout.contains("UNVERIFIED") && stdout.contains("only exists at run time"),
            "{command}: {stdout}"
        );
    }
    let (code, _, stderr) = gate(&repo, "eval \"git commit -m $MSG\"", &[]);
    assert_eq!(code, Some(2), "a run-time commit is still gated: {stderr}");
}

#[test]
fn a_pass_through_never_touches_the_state_directory() {
    let repo = repo_with(&[]);
    let home = tempfile::tempdir().expect("home");
    let out = hook(home.path(), &repo.root(), "ls -la && git status", &[]);
    assert_eq!((out.status.code(), out.stdout.is_empty(), out.stderr.is_empty()), (Some(0), true, true));
    assert!(!home.path().join(".codeguard").exists(), "the pass-through path created state");
}

/// Staging whose paths are only known at run time (`xargs git add`, `git add $(…)`, a loop
/// variable, `git add -p`) may take any change: every one of them is scanned, so a key in a
/// modified file the prediction cannot name still blocks.
#[test]
fn staging_known_only_at_run_time_scans_every_change_it_could_take() {
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    for command in [
        "git ls-files -m | xargs git add && git commit -m x",
        "git add $(git diff --name-only) && git commit -m x",
        "for f in *.txt; do git add \"$f\"; done; git commit -m x",
        "git add -p && git commit -m partial",
        "git commit -m x -- $(git diff --name-only)",
    ] {
        let repo = repo_with(&[("notes.txt", "plain\n"), ("ok.txt", "fine\n")]);
        repo.commit_all("base");
        repo.write("notes.txt", &format!("aws_access_key_id = {key}\n"));
        repo.write("ok.txt", "fine, changed\n");
        let (code, stdout, stderr) = gate(&repo, command, &[]);
        assert_eq!(code, Some(2), "{command}: {stdout}{stderr}");
        assert!(stderr.contains("notes.txt"), "{command}: {stderr}");
        assert!(!stderr.contains(&key) && !stdout.contains(&key), "{command}: the key is never echoed");
    }
}

/// A push made by a construct that cannot be seen into still checks what the push would
/// publish: the current branch's unpushed commits, not only the index.
#[test]
fn an_opaque_push_checks_the_unpushed_commits() {
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let remote = tempfile::tempdir().expect("remote");
    crate::support::git_in(remote.path(), &["init", "-q", "--bare"]);
    let repo = repo_with(&[("ok.txt", "fine\n")]);
    repo.commit_all("base");
    repo.git(&["remote", "add", "origin", &remote.path().display().to_string()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    repo.write("cred.txt", &format!("aws_access_key_id = {key}\n"));
    repo.commit_all("add credentials");
    for command in ["${GIT:-git} push", "CMD='git push'; eval \"$CMD\""] {
        let (code, stdout, stderr) = gate(&repo, command, &[]);
        assert_eq!(code, Some(2), "{command}: {stdout}{stderr}");
        assert!(stderr.contains("cred.txt"), "{command}: {stderr}");
    }
}

/// A construct that cannot be seen into may stage anything before the commit that follows it,
/// so every change is scanned.
#[test]
fn an_opaque_step_before_a_commit_scans_every_change() {
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    for command in [
        "env $(echo GIT_TRACE=0) git commit -am x",
        "$(echo git) add notes.txt && git commit -m x",
        "X='git add -A'; eval \"$X\"; git commit -m x",
    ] {
        let repo = repo_with(&[("notes.txt", "plain\n"), ("ok.txt", "fine\n")]);
        repo.commit_all("base");
        repo.write("notes.txt", &format!("aws_access_key_id = {key}\n"));
        repo.write("ok.txt", "fine, changed\n");
        repo.git(&["add", "ok.txt"]);
        let (code, stdout, stderr) = gate(&repo, command, &[]);
        assert_eq!(code, Some(2), "{command}: {stdout}{stderr}");
        assert!(stderr.contains("notes.txt"), "{command}: {stderr}");
    }
}
