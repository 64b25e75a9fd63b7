//! Baseline exemption end to end with real ruff and shellcheck: a finding the same tool already
//! reports on the baseline content (HEAD for a commit, the upstream for a push) is exempt and
//! listed; a finding the change introduces blocks, even on a line it did not touch.

use serde_json::Value;

use crate::support::{
    TestRepo, assert_untouched, git_in, pre_tool_use, real_tool, require_tools, staged_report,
};

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

#[test]
fn a_clean_edit_to_a_file_with_an_old_finding_passes_and_lists_it_as_exempt() {
    require_tools(&["ruff"]);
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
    require_tools(&["ruff"]);
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
    require_tools(&["ruff"]);
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
    require_tools(&["shellcheck"]);
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
    require_tools(&["ruff"]);
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
    require_tools(&["ruff"]);
    let repo = with_lint_debt();
    repo.write("codeguard.json", r#"{"gate_scope": "repo"}"#).commit_all("scope");
    repo.write("app.py", "import os\nimport sys\n\nprint(sys.argv, 'clean edit')\n");
    repo.git(&["add", "app.py"]);
    assert_eq!(gate(&repo, "git commit -m edit").0, Some(2));
}

/// `src/main.rs` of a crate whose `src/other.rs` (see [`OTHER_RS`]) already has an unused
/// variable: clippy fails on `HEAD` with `-D warnings`.
const MAIN_RS: &str = "mod other;\n\nfn main() {\n    println!(\"hi\");\n    other::f();\n}\n";
const OTHER_RS: &str = "pub fn f() {\n    let x = 1;\n}\n";

/// A `cargo` in front of the real one that counts its runs, and the environment a gate needs
/// to run it (the machine's rustup and cargo homes).
struct CountedCargo {
    _bin: tempfile::TempDir,
    count: std::path::PathBuf,
    env: Vec<(String, String)>,
}

impl CountedCargo {
    fn new() -> Self {
        use std::os::unix::fs::PermissionsExt;
        let real = real_tool("cargo");
        let bin = tempfile::tempdir().expect("bin");
        let count = bin.path().join("runs");
        let script =
            format!("#!/bin/sh\necho run >> '{}'\nexec '{}' \"$@\"\n", count.display(), real.display());
        std::fs::write(bin.path().join("cargo"), script).expect("write");
        std::fs::set_permissions(bin.path().join("cargo"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
        let mut env = vec![("PATH".to_owned(), path)];
        env.extend(
            crate::support::rust_env()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_string_lossy().into_owned())),
        );
        Self { _bin: bin, count, env }
    }

    fn runs(&self) -> usize {
        std::fs::read_to_string(&self.count).map_or(0, |t| t.lines().count())
    }

    fn gate(&self, repo: &TestRepo, home: &std::path::Path, command: &str) -> (Option<i32>, String, String) {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let out = assert_untouched(&repo.root(), || pre_tool_use(home, &repo.root(), "t-1", command, &env));
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    }
}

#[test]
fn clippy_debt_elsewhere_is_exempt_new_warnings_block_and_the_base_run_is_paid_once() {
    let cargo = CountedCargo::new();
    let (repo, home) =
        crate::support::rust_crate(crate::support::CARGO_LOCK, MAIN_RS, &[("src/other.rs", OTHER_RS)]);
    repo.write("src/main.rs", &MAIN_RS.replace("\"hi\"", "\"hello\""));
    repo.git(&["add", "src/main.rs"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m edit");
    assert_eq!(code, Some(0), "a clean edit passes over old debt: {stdout}{stderr}");
    assert!(
        stdout.contains("pre-existing finding(s) exempt")
            && stdout.contains("src/other.rs:2: error: unused variable"),
        "the old finding is listed as exempt: {stdout}"
    );
    assert_eq!(cargo.runs(), 2, "the change and its base");

    repo.write("src/main.rs", &MAIN_RS.replace("\"hi\"", "\"hello again\""));
    repo.git(&["add", "src/main.rs"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m edit");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(cargo.runs(), 3, "the same base is linted once: its result comes from the cache");

    repo.write("src/main.rs", &MAIN_RS.replace("    other::f();\n", "    other::f();\n    let y = 2;\n"));
    repo.git(&["add", "src/main.rs"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m new");
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("src/main.rs:6:9: error: unused variable: `y`"),
        "the new finding blocks: {stderr}"
    );
    assert!(!stderr.contains("src/other.rs:2:9"), "the old one is not blamed: {stderr}");
}

#[test]
fn clippy_finding_the_change_causes_in_an_untouched_file_blocks() {
    let cargo = CountedCargo::new();
    let used = "pub fn f() {}\n";
    let (repo, home) =
        crate::support::rust_crate(crate::support::CARGO_LOCK, MAIN_RS, &[("src/other.rs", used)]);
    repo.write("src/main.rs", &MAIN_RS.replace("    other::f();\n", ""));
    repo.git(&["add", "src/main.rs"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m x");
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("src/other.rs:1:8: error: function `f` is never used"), "{stderr}");
}

#[test]
fn old_clippy_debt_does_not_hide_a_build_that_now_fails() {
    // Old debt in the root package, and the change adds a workspace member whose build script
    // fails: clippy's only finding is the old one, but the failure is new and must block.
    let cargo = CountedCargo::new();
    let (repo, home) =
        crate::support::rust_crate(crate::support::CARGO_LOCK, MAIN_RS, &[("src/other.rs", OTHER_RS)]);
    let member = "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    repo.write("b/Cargo.toml", member)
        .write("b/src/lib.rs", "pub fn g() {}\n")
        .write("b/build.rs", "fn main() {\n    panic!(\"the build script fails\");\n}\n")
        .write("Cargo.toml", &format!("{}\n[workspace]\nmembers = [\"b\"]\n", crate::support::CARGO_TOML));
    crate::support::generate_lockfile(&repo);
    repo.git(&["add", "-A"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m member");
    assert_eq!(code, Some(2), "a failing build is not pre-existing: {stdout}{stderr}");
    assert!(stderr.contains("the failure stands"), "{stderr}");
}

#[test]
fn an_old_compile_error_is_not_a_pass_it_hides_what_it_stops() {
    // HEAD does not compile: clippy's lints never ran on it, so a clean-looking change is not
    // proven clean — UNVERIFIED, not PASS.
    let cargo = CountedCargo::new();
    let broken = "pub fn f() {\n    let _ = undefined_name;\n}\n";
    let (repo, home) =
        crate::support::rust_crate(crate::support::CARGO_LOCK, MAIN_RS, &[("src/other.rs", broken)]);
    repo.write("src/main.rs", &MAIN_RS.replace("\"hi\"", "\"hello\""));
    repo.git(&["add", "src/main.rs"]);
    let (code, stdout, stderr) = cargo.gate(&repo, home.path(), "git commit -m edit");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("rust UNVERIFIED") && stdout.contains("stops the tool from checking the rest"),
        "{stdout}"
    );
}
