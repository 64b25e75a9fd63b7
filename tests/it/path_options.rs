//! File names are never read as linter options: a committed file named like an option
//! (`--stdin-filename=z.py`, `--help.py`) is linted as a file, so it cannot make a real finding
//! disappear or the language UNVERIFIED. Real ruff, real payloads, real repositories.

use crate::support::{TestRepo, assert_untouched, codeguard, json_stdout, pre_tool_use, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

#[test]
fn a_file_named_like_an_option_cannot_hide_a_finding_from_the_gate() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write("--stdin-filename=z.py", GOOD_PY).write("app.py", BAD_PY);
    repo.git(&["add", "-A"]);
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || {
        pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m sneaky", &[])
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "the F401 must block: {stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
}

#[test]
fn a_file_named_like_help_is_linted_not_obeyed() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("--help.py", BAD_PY).write("ok.py", GOOD_PY).commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["check", "--no-cache", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("run");
    let json = json_stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{json}");
    assert_eq!(json["languages"][0]["language"], "python");
    assert_eq!(json["languages"][0]["status"], "FAIL", "{json}");
    let log = json["languages"][0]["log_path"].as_str().expect("log path");
    let text = std::fs::read_to_string(log).expect("log");
    assert!(text.contains("--help.py:1:8: F401"), "{text}");
}
