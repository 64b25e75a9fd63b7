//! Baseline exemption end to end with real ruff and shellcheck: a finding the same tool already
//! reports on the baseline content (HEAD for a commit, the upstream for a push) is exempt and
//! listed; a finding the change introduces blocks, even on a line it did not touch.

use serde_json::Value;

use crate::support::{TestRepo, assert_untouched, codeguard, git_in, json_stdout, pre_tool_use, real_tool};

/// A repository whose HEAD `app.py` already has an unused import (F401 on line 1).
fn with_lint_debt() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app.py", "import os\nimport sys\n\nprint(sys.argv)\n").commit_all("debt");
    repo
}

fn gate(repo: &TestRepo, command: &str) -> (Option<i32>, String) {
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, &[]));
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn staged_report(repo: &TestRepo) -> Value {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .args(["check", "--staged", "--format", "json"])
        .output()
        .expect("check");
    json_stdout(&out)
}

#[test]
fn a_clean_edit_to_a_file_with_an_old_finding_passes_and_lists_it_as_exempt() {
    let Some(_) = real_tool("ruff") else { return };
    let repo = with_lint_debt();
    repo.write("app.py", "import os\nimport sys\n\nprint(sys.argv, 'clean edit')\n");
    repo.git(&["add", "app.py"]);
    let home = tempfile::tempdir().expect("home");
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m edit", &[]);
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("context json");
    let context = answer["hookSpecificOutput"]["additionalContext"].as_str().expect("context");
    assert!(
        context.contains("1 pre-existing finding(s) exempt") && context.contains("app.py:1: F401"),
        "the exemption is visible: {context}"
    );
    assert!(!context.contains("UNVERIFIED"), "{context}");
    let report = staged_report(&repo);
    assert_eq!(report["status"], "PASS", "{report:#}");
    assert_eq!(report["languages"][0]["exempt"], serde_json::json!(["app.py:1: F401"]), "{report:#}");
}

#[test]
fn a_new_finding_in_the_same_file_blocks_on_the_new_one_only() {
    let Some(_) = real_tool("ruff") else { return };
    let repo = with_lint_debt();
    repo.write("app.py", "import os\nimport sys\nimport json\n\nprint(sys.argv)\n");
    repo.git(&["add", "app.py"]);
    let (code, stderr) = gate(&repo, "git commit -m new");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("app.py:3:8: F401"), "the new finding is shown: {stderr}");
    assert!(!stderr.contains("app.py:1:8: F401"), "the old one is not blamed: {stderr}");
    assert!(stderr.contains("1 pre-existing finding(s) exempt"), "{stderr}");
}

#[test]
fn a_finding_the_change_causes_on_an_untouched_line_blocks() {
    let Some(_) = real_tool("ruff") else { return };
    let repo = TestRepo::new();
    repo.write("app.py", "import os\n\nprint(os.sep)\n").commit_all("uses os");
    repo.write("app.py", "import os\n\nprint('no more os')\n");
    repo.git(&["add", "app.py"]);
    let (code, stderr) = gate(&repo, "git commit -m x");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
}

#[test]
fn shell_debt_is_exempt_and_new_shell_findings_block() {
    let Some(_) = real_tool("shellcheck") else { return };
    let repo = TestRepo::new();
    repo.write("run.sh", "#!/bin/sh\ncd $1\necho start\n").commit_all("debt");
    repo.write("run.sh", "#!/bin/sh\ncd $1\necho started\n");
    repo.git(&["add", "run.sh"]);
    assert_eq!(gate(&repo, "git commit -m edit").0, Some(0), "SC2086 on line 2 is old");
    repo.write("run.sh", "#!/bin/sh\ncd $1\necho started\ncd $2\n");
    repo.git(&["add", "run.sh"]);
    let (code, stderr) = gate(&repo, "git commit -m new");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("run.sh:4"), "{stderr}");
}

#[test]
fn a_push_whose_range_introduces_a_finding_blocks_and_old_debt_does_not() {
    let Some(_) = real_tool("ruff") else { return };
    let remote = tempfile::tempdir().expect("remote");
    git_in(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    let repo = with_lint_debt();
    repo.git(&["remote", "add", "origin", remote.path().to_str().expect("utf-8")]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    repo.write("app.py", "import os\nimport sys\n\nprint(sys.argv, 1)\n");
    repo.git(&["commit", "-q", "--no-verify", "-am", "clean edit"]);
    assert_eq!(gate(&repo, "git push").0, Some(0), "the range adds no finding");
    repo.write("app.py", "import os\nimport sys\nimport json\n\nprint(sys.argv, 1)\n");
    repo.git(&["commit", "-q", "--no-verify", "-am", "new import"]);
    let (code, stderr) = gate(&repo, "git push");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("app.py:3:8: F401") && !stderr.contains("app.py:1:8"), "{stderr}");
}

#[test]
fn gate_scope_repo_keeps_whole_file_blame() {
    let Some(_) = real_tool("ruff") else { return };
    let repo = with_lint_debt();
    repo.write("codeguard.json", r#"{"gate_scope": "repo"}"#).commit_all("scope");
    repo.write("app.py", "import os\nimport sys\n\nprint(sys.argv, 'clean edit')\n");
    repo.git(&["add", "app.py"]);
    assert_eq!(gate(&repo, "git commit -m edit").0, Some(2));
}
