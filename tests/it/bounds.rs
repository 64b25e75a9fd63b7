//! Commands built to exhaust the analyser (deep nesting, huge texts) end to end: the real hook
//! answers with a verdict and never dies of a signal; a command past the bounds that may commit
//! is denied as uncheckable, one that cannot commit passes through.

use std::os::unix::process::ExitStatusExt;

use crate::support::{TestRepo, assert_untouched, pre_tool_use, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";

fn nested(levels: usize) -> String {
    format!("echo {}x{}", "$(".repeat(levels), ")".repeat(levels))
}

fn repo_with_bad_file() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write("app.py", BAD_PY);
    repo
}

fn hook(repo: &TestRepo, command: &str) -> (Option<i32>, String, String) {
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, &[]));
    assert_eq!(out.status.signal(), None, "the hook died of a signal: {out:?}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn twenty_thousand_nested_substitutions_before_a_commit_are_denied_as_uncheckable() {
    let repo = repo_with_bad_file();
    let command = format!("{} ; git add -A && git commit -m x", nested(20_000));
    let (code, stdout, stderr) = hook(&repo, &command);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.starts_with(
            "codeguard: commit/push blocked — cannot be checked: this command is too deeply nested to check (20001 nesting marks; the limit is 4096)\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("NOT executed"), "{stderr}");
}

#[test]
fn a_command_past_the_size_bound_that_commits_is_denied_as_uncheckable() {
    let repo = repo_with_bad_file();
    let command = format!("echo {} ; git add -A && git commit -m x", "a".repeat(300 * 1024));
    let (code, _, stderr) = hook(&repo, &command);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with(
            "codeguard: commit/push blocked — cannot be checked: this command is too large to check (307237 bytes; the limit is 262144)\n"
        ),
        "{stderr}"
    );
}

#[test]
fn deep_nesting_within_the_bounds_gets_a_real_verdict() {
    require_tools(&["ruff"]);
    let repo = repo_with_bad_file();
    let command = format!("{} ; git add -A && git commit -m x", nested(2_000));
    let (code, _, stderr) = hook(&repo, &command);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("codeguard: commit blocked — python (ruff): 1 problem"), "{stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
}

#[test]
fn a_command_past_the_bounds_that_cannot_commit_passes_through() {
    let repo = repo_with_bad_file();
    for command in [nested(20_000), format!("echo {}", "a".repeat(300 * 1024)), "{ ".repeat(20_000)] {
        assert_eq!(hook(&repo, &command), (Some(0), String::new(), String::new()));
    }
}

/// Openers and closers of every construct that nests.
const NESTS: &[(&str, &str)] = &[
    ("$(", ")"),
    ("\"$(", ")\""),
    ("(", ")"),
    ("{ ", "; }"),
    ("<(", ")"),
    ("${a:-", "}"),
    ("if x; then ", "; fi"),
    ("while x; do ", "; done"),
    ("case y in *) ", ";; esac"),
    ("[[ ( ", " ) ]] && "),
    ("! ", ""),
    ("f() { ", "; }; f"),
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 16, ..Default::default() })]

    /// On a test thread's 2 MiB stack, any mix of nesting constructs at any depth gets an
    /// analysis (never a stack overflow), and a commit after it stays guarded.
    #[test]
    fn any_nesting_is_analysed_and_a_commit_after_it_stays_guarded(
        levels in proptest::collection::vec(0..NESTS.len(), 0..600),
    ) {
        let open: String = levels.iter().map(|&i| NESTS[i].0).collect();
        let close: String = levels.iter().rev().map(|&i| NESTS[i].1).collect();
        let command = format!("{open}x{close}\ngit commit -m x");
        let analysis = codeguard::stages::bash::analyse(&command);
        let blocked = analysis.opaque.iter().any(|o| o.severity == codeguard::stages::bash::Severity::Block);
        proptest::prop_assert!(analysis.mode().is_some() || blocked, "{} levels", levels.len());
    }
}

#[test]
fn a_payload_over_one_mebibyte_that_commits_is_denied_not_failed_open() {
    let repo = repo_with_bad_file();
    let command = format!("echo {} ; git add -A && git commit -m x", "a".repeat(1024 * 1024));
    let (code, stdout, stderr) = hook(&repo, &command);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.starts_with(
            "codeguard: commit/push blocked — cannot be checked: this command is too large to check (1048613 bytes; the limit is 262144)\n"
        ),
        "{stderr}"
    );
}

/// Loops and function calls are walked once per literal value, and nested ones multiply: six
/// nested 16-value loops would be 16⁶ walks. The whole text has one budget; past it the rest is
/// walked with the variable unknown, so the answer comes at once and is still guarded.
#[test]
fn nested_loops_and_calls_share_one_walk_budget() {
    let values = (1..=16).map(|i| i.to_string()).collect::<Vec<_>>().join(" ");
    let mut command = String::new();
    for v in ["a", "b", "c", "d", "e", "f"] {
        command.push_str("for ");
        command.push_str(v);
        command.push_str(" in ");
        command.push_str(&values);
        command.push_str("; do ");
    }
    command.push_str("git push origin \"$f\"; ");
    command.push_str(&"done; ".repeat(6));
    let calls = format!("r() {{ \"$@\"; }}; {}r git push", "r r r r r r r r ".repeat(8));
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    for command in [command, calls] {
        let home = tempfile::tempdir().expect("home");
        let out = crate::support::codeguard(home.path())
            .args(["explain", "--format", "json", "--cwd"])
            .arg(repo.root())
            .arg("--")
            .arg(&command)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .expect("run explain");
        assert_eq!(out.status.code(), Some(0), "explain must answer: {out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["guarded"], true, "{v:#}");
        assert_eq!(v["mode"], "push", "{v:#}");
    }
}
