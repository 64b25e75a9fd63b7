//! Linting in place never rewrites the user's files: a project whose ruff config turns fixing
//! on (`fix = true`) keeps every file byte for byte through `check`, `check --changed` and the
//! post-edit lint, and a linter that rewrites a file anyway is named as a failure.

use serde_json::json;

use crate::support::{TestRepo, codeguard, json_stdout, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const FIXING_PYPROJECT: &str = "[project]\nname = \"probe\"\nversion = \"0\"\n\n[tool.ruff]\nfix = true\n";

fn read(repo: &TestRepo, rel: &str) -> Vec<u8> {
    std::fs::read(repo.path(rel)).expect("read")
}

/// `check --no-cache --format json ARGS ROOT`: exit code and report.
fn check(repo: &TestRepo, home: &std::path::Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = codeguard(home)
        .args(["check", "--no-cache", "--format", "json"])
        .args(args)
        .arg(repo.root())
        .output()
        .expect("run");
    (out.status.code(), json_stdout(&out))
}

fn python(report: &serde_json::Value) -> &serde_json::Value {
    report["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .find(|l| l["language"] == "python")
        .expect("python")
}

#[test]
fn check_never_applies_a_projects_fix_setting() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("pyproject.toml", FIXING_PYPROJECT).write("app.py", BAD_PY).commit_all("init");
    let home = tempfile::tempdir().expect("home");

    let (code, report) = check(&repo, home.path(), &[]);
    assert_eq!(read(&repo, "app.py"), BAD_PY.as_bytes(), "check . rewrote app.py");
    assert_eq!((code, python(&report)["status"].as_str()), (Some(1), Some("FAIL")), "{report}");

    repo.write("app.py", &format!("{BAD_PY}import json\n"));
    let (code, report) = check(&repo, home.path(), &["--changed"]);
    assert_eq!(
        read(&repo, "app.py"),
        format!("{BAD_PY}import json\n").as_bytes(),
        "check --changed rewrote app.py"
    );
    assert_eq!((code, python(&report)["status"].as_str()), (Some(1), Some("FAIL")), "{report}");
}

#[test]
fn the_post_edit_lint_never_applies_a_projects_fix_setting() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("pyproject.toml", FIXING_PYPROJECT).write("app.py", "x = 1\n").commit_all("init");
    repo.write("app.py", BAD_PY);
    let home = tempfile::tempdir().expect("home");
    let payload = json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write", "tool_input": {"file_path": repo.path("app.py"), "content": BAD_PY}});
    let out = codeguard(home.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload.to_string())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read(&repo, "app.py"), BAD_PY.as_bytes(), "the post-edit lint rewrote app.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("app.py has lint problems (F401"), "{stdout}");
}

#[test]
fn a_linter_that_rewrites_files_in_place_fails_naming_them() {
    let repo = TestRepo::new();
    repo.write("rewrite.sh", "#!/bin/sh\nfor f in \"$@\"; do echo '# touched' >> \"$f\"; done\n")
        .chmod_x("rewrite.sh")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./rewrite.sh", "{files}"]}}}"#)
        .write("a.py", "x = 1\n")
        .write("b.py", "y = 2\n")
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let (code, report) = check(&repo, home.path(), &[]);
    let py = python(&report);
    assert_eq!((code, py["status"].as_str()), (Some(1), Some("FAIL")), "{report}");
    assert_eq!(
        py["reason"],
        "./rewrite.sh modified files in place: a.py, b.py (a lint must never write; only codeguard fix does)",
        "{report}"
    );
}

#[test]
fn a_project_level_linter_that_rewrites_an_unchanged_file_fails_naming_it() {
    let repo = TestRepo::new();
    repo.write("touch.sh", "#!/bin/sh\necho '# touched' >> notes.txt\n")
        .chmod_x("touch.sh")
        .write("codeguard.json", r#"{"languages": {"go": {"lint": ["./touch.sh"]}}}"#)
        .write("go.mod", "module probe\n\ngo 1.21\n")
        .write("main.go", "package main\n\nfunc main() {}\n")
        .write("notes.txt", "hello\n")
        .commit_all("init");
    repo.write("main.go", "package main\n\nfunc main() { println() }\n");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let (code, report) = check(&repo, home.path(), &["--changed", "--lang", "go"]);
    let go = &report["languages"][0];
    assert_eq!(
        (code, go["language"].as_str(), go["status"].as_str()),
        (Some(1), Some("go"), Some("FAIL")),
        "{report}"
    );
    assert_eq!(
        go["reason"],
        "./touch.sh modified files in place: notes.txt (a lint must never write; only codeguard fix does)",
        "{report}"
    );
}
