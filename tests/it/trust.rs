//! Workspace trust end to end: a repository's own commands (from its `codeguard.json`) run
//! only after `codeguard trust`, stop after `codeguard untrust`, and never with a corrupt trust
//! file — through `check` and through the `PreToolUse` gate.

use std::path::{Path, PathBuf};

use crate::support::{TestRepo, assert_untouched, codeguard, json_stdout};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

/// A repository whose `codeguard.json` makes python's lint a script that appends to `marker`
/// (outside the repository, so runs inside a gate snapshot are seen too).
fn repo_with_own_command(marker: &Path) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write("own-lint.sh", &format!("#!/bin/sh\necho ran >> '{}'\n", marker.display()))
        .chmod_x("own-lint.sh")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./own-lint.sh", "{files}"]}}}"#)
        .write("app.py", GOOD_PY);
    repo.git(&["add", "-A"]);
    repo
}

fn runs(marker: &Path) -> usize {
    std::fs::read_to_string(marker).map_or(0, |t| t.lines().count())
}

/// `check --no-cache --format json`: exit code, python's status and reason.
fn check(home: &Path, repo: &TestRepo) -> (Option<i32>, String, String) {
    let out = codeguard(home)
        .args(["check", "--no-cache", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("run");
    let json = json_stdout(&out);
    let python =
        json["languages"].as_array().expect("languages").iter().find(|l| l["language"] == "python").cloned();
    let python = python.expect("python planned");
    (
        out.status.code(),
        python["status"].as_str().unwrap_or("").to_owned(),
        python["reason"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn own_commands_run_only_while_the_workspace_is_trusted() {
    let outside = tempfile::tempdir().expect("outside");
    let marker = outside.path().join("marker");
    let repo = repo_with_own_command(&marker);
    let home = tempfile::tempdir().expect("home");

    let (code, status, reason) = check(home.path(), &repo);
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    let hint =
        format!("run codeguard trust {} to allow this repository's own commands", repo.root().display());
    assert!(reason.ends_with(&hint), "{reason}");
    assert_eq!(runs(&marker), 0, "the repository's command did not run");

    let out = codeguard(home.path()).arg("trust").arg(repo.path(".")).output().expect("trust");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("trusted {}", repo.root().display())));
    let (_, status, _) = check(home.path(), &repo);
    assert_eq!(status, "PASS");
    assert_eq!(runs(&marker), 1, "trusted: it ran");

    codeguard(home.path()).arg("untrust").arg(repo.root()).assert().success();
    let (code, status, _) = check(home.path(), &repo);
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"));
    assert_eq!(runs(&marker), 1, "untrusted again: it did not run");
}

#[test]
fn a_corrupt_trust_file_trusts_nothing() {
    let outside = tempfile::tempdir().expect("outside");
    let marker = outside.path().join("marker");
    let repo = repo_with_own_command(&marker);
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let file: PathBuf = home.path().join(".codeguard/trust.json");
    let text = std::fs::read_to_string(&file).expect("trust file");
    std::fs::write(&file, &text[..text.len() - 3]).expect("truncate");
    let (_, status, reason) = check(home.path(), &repo);
    assert_eq!(status, "UNVERIFIED", "{reason}");
    assert_eq!(runs(&marker), 0);
}

#[test]
fn the_gate_honours_trust_and_no_hook_grants_it() {
    let outside = tempfile::tempdir().expect("outside");
    let marker = outside.path().join("marker");
    let repo = repo_with_own_command(&marker);
    let home = tempfile::tempdir().expect("home");
    let hook = |id: &str| {
        let payload = serde_json::json!({
            "session_id": "s-1",
            "tool_use_id": id,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git commit -m x"},
            "cwd": repo.root(),
        });
        assert_untouched(&repo.root(), || {
            codeguard(home.path())
                .args(["hook", "pre-tool-use"])
                .write_stdin(payload.to_string())
                .output()
                .expect("hook")
        })
    };
    let out = hook("t-1");
    assert_eq!(out.status.code(), Some(0), "an untrusted command is UNVERIFIED, not a block");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("codeguard trust"), "{stdout}");
    assert_eq!(runs(&marker), 0);
    assert!(!home.path().join(".codeguard/trust.json").exists(), "a hook never records trust");

    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let out = hook("t-2");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(runs(&marker), 1, "trusted: the gate ran the repository's command in its snapshot");
}
