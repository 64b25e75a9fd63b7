//! Every file linted in its real dialect: dot-paths are linted, vendored/generated/fixture files
//! are not (but the safety scan still reads them), shell scripts go to the checker of their
//! dialect, and verdicts say when nothing was checked. Real git repos, the real binary, real
//! linters; gate runs prove the repository untouched.

use crate::support::{TestRepo, assert_untouched, pre_tool_use, real_tool};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const YAMLLINT: &str = "extends: default\nrules:\n  document-start: disable\n  truthy: disable\n";

/// Runs the agent gate for `command` in `repo` and proves the repository untouched.
fn gate(repo: &TestRepo, command: &str) -> (Option<i32>, String, String) {
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, &[]));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn repo_with(files: &[(&str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    for (path, content) in files {
        repo.write(path, content);
    }
    repo
}

#[test]
fn a_staged_workflow_with_a_yaml_syntax_error_blocks_the_gate() {
    let Some(_) = real_tool("yamllint") else { return };
    let broken = "name: ci\non: [push\njobs:\n  build:\n    runs-on: ubuntu-latest\n";
    for path in [".github/workflows/ci.yml", ".pre-commit-hooks.yaml", ".readthedocs.yaml"] {
        let repo = repo_with(&[(".yamllint", YAMLLINT), (path, broken)]);
        repo.git(&["add", "-A"]);
        let (code, stdout, stderr) = gate(&repo, "git commit -m x");
        assert_eq!(code, Some(2), "{path}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.starts_with("codeguard: commit blocked — yaml (yamllint)"), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!("{path}:3:5: [error] syntax error")) && stderr.contains("syntax error"),
            "{stderr}"
        );
    }
    let fixed = "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n";
    let repo = repo_with(&[(".yamllint", YAMLLINT), (".github/workflows/ci.yml", fixed)]);
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m x"), (Some(0), String::new(), String::new()));
}

#[test]
fn vendored_files_are_not_linted_but_their_secrets_are_found() {
    let Some(_) = real_tool("ruff") else { return };
    let aws = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let attributes = "lib/** linguist-vendored\n*_pb2.py linguist-generated\n";
    let lint_free = [
        (".gitattributes", attributes),
        ("lib/dep.py", BAD_PY),
        ("api/schema_pb2.py", BAD_PY),
        ("pkg/vendor/x.py", BAD_PY),
        ("third_party/y.py", BAD_PY),
        ("tests/fixtures/bad.py", BAD_PY),
        ("pkg/testdata/bad.py", BAD_PY),
    ];
    let repo = repo_with(&lint_free);
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m vendored"), (Some(0), String::new(), String::new()));

    let secret = format!("{BAD_PY}KEY = \"{aws}\"\n");
    repo.write("lib/dep.py", &secret);
    repo.git(&["add", "-A"]);
    let (code, _, stderr) = gate(&repo, "git commit -m vendored");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("lib/dep.py:5: aws-access-key-id"), "{stderr}");
    assert!(!stderr.contains("F401") && !stderr.contains(&aws), "{stderr}");

    let repo = repo_with(&lint_free);
    repo.write("codeguard.json", "{\"exclude_vendored\": false}\n");
    repo.git(&["add", "-A"]);
    let (code, _, stderr) = gate(&repo, "git commit -m vendored");
    assert_eq!(code, Some(2), "{stderr}");
    for path in ["lib/dep.py", "api/schema_pb2.py", "pkg/vendor/x.py", "tests/fixtures/bad.py"] {
        assert!(stderr.contains(&format!("{path}:1:8: F401")), "{path}: {stderr}");
    }
}
