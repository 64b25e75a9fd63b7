//! Workspace trust end to end: a repository's own commands (from its `codeguard.json`) run
//! only after `codeguard trust`, stop after `codeguard untrust`, and never with a corrupt trust
//! file — through `check` and through the `PreToolUse` gate.

use std::path::Path;

use crate::support::{TestRepo, assert_untouched, codeguard, pre_tool_use};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

type Fixture = crate::support::Marked;

/// What these tests add to the shared marker fixture.
impl crate::support::Marked {
    /// A repository whose `codeguard.json` makes python's lint a script that appends to the
    /// marker file outside the repository (so runs inside a gate snapshot are seen too).
    fn with_own_lint() -> Self {
        let f = Self::new();
        f.repo
            .write("own-lint.sh", &format!("#!/bin/sh\necho ran >> '{}'\n", f.marker.display()))
            .chmod_x("own-lint.sh")
            .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./own-lint.sh", "{files}"]}}}"#)
            .commit_all("the project's own lint command");
        f.repo.write("app.py", GOOD_PY);
        f.repo.git(&["add", "-A"]);
        f
    }

    /// `check --no-cache --format json`: exit code, python's status and reason.
    fn python_check(&self) -> (Option<i32>, String, String) {
        self.check_lang("python", &[], &[])
    }

    fn decide(&self, command: &str) {
        codeguard(self.home()).arg(command).arg(self.repo.root()).assert().success();
    }
}

#[test]
fn own_commands_run_only_while_the_workspace_is_trusted() {
    let f = Fixture::with_own_lint();
    let (code, status, reason) = f.python_check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    let hint =
        format!("run codeguard trust {} to allow this repository's own commands", f.repo.root().display());
    assert!(reason.ends_with(&hint), "{reason}");
    assert_eq!(f.runs(), 0, "the repository's command did not run");

    let out = codeguard(f.home()).arg("trust").arg(f.repo.path(".")).output().expect("trust");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("trusted {}", f.repo.root().display())));
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(f.runs(), 1, "trusted: it ran");

    f.decide("untrust");
    let (code, status, _) = f.python_check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"));
    assert_eq!(f.runs(), 1, "untrusted again: it did not run");
}

#[test]
fn a_corrupt_trust_file_trusts_nothing() {
    let f = Fixture::with_own_lint();
    f.decide("trust");
    let file = f.home().join(".codeguard/trust.json");
    let text = std::fs::read_to_string(&file).expect("trust file");
    std::fs::write(&file, &text[..text.len() - 3]).expect("truncate");
    let (_, status, reason) = f.python_check();
    assert_eq!(status, "UNVERIFIED", "{reason}");
    assert_eq!(f.runs(), 0);
}

#[test]
fn the_gate_honours_trust_and_no_hook_grants_it() {
    let f = Fixture::with_own_lint();
    let hook = |id: &str| {
        assert_untouched(&f.repo.root(), || {
            pre_tool_use(f.home(), &f.repo.root(), id, "git commit -m x", &[])
        })
    };
    let out = hook("t-1");
    assert_eq!(out.status.code(), Some(0), "an untrusted command is UNVERIFIED, not a block");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("codeguard trust"), "{stdout}");
    assert_eq!(f.runs(), 0);
    assert!(!f.home().join(".codeguard/trust.json").exists(), "a hook never records trust");

    f.decide("trust");
    let out = hook("t-2");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(f.runs(), 1, "trusted: the gate ran the repository's command in its snapshot");
}

/// `codeguard doctor`: exit code and stdout.
fn doctor(home: &Path) -> (Option<i32>, String) {
    let out = codeguard(home).current_dir(home).arg("doctor").output().expect("doctor");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn trust_does_not_pass_to_a_different_repository_cloned_to_the_same_path() {
    let f = Fixture::with_own_lint();
    f.repo.commit_all("own lint");
    f.decide("trust");
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(f.runs(), 1);

    // Another repository with the same codeguard.json, whose script does something else.
    let other = TestRepo::new();
    other
        .write("own-lint.sh", &format!("#!/bin/sh\necho other >> '{}'\n", f.marker.display()))
        .chmod_x("own-lint.sh")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./own-lint.sh", "{files}"]}}}"#)
        .write("app.py", GOOD_PY)
        .commit_all("other");
    let root = f.repo.root();
    std::fs::remove_dir_all(&root).expect("delete the trusted repository");
    let source = other.root();
    crate::support::git_in(
        root.parent().expect("parent"),
        &["clone", "-q", source.to_str().expect("utf-8"), root.to_str().expect("utf-8")],
    );

    let (code, status, reason) = f.python_check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    assert!(
        reason.ends_with(&format!(
            "run codeguard trust {} to allow this repository's own commands",
            root.display()
        )),
        "{reason}"
    );
    let out = assert_untouched(&root, || pre_tool_use(f.home(), &root, "t-1", "git commit -m x", &[]));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(f.runs(), 1, "the other repository's command never ran");

    let (code, text) = doctor(f.home());
    assert_eq!(code, Some(1), "{text}");
    let problem = format!(
        "PROBLEM  trust {}: the repository there is not the one that was trusted (it was deleted or replaced); its own commands do not run until you run codeguard trust {} again",
        root.display(),
        root.display()
    );
    assert!(text.lines().any(|l| l == problem), "{text}");

    f.decide("trust");
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(std::fs::read_to_string(&f.marker).expect("marker"), "ran\nother\n");
    assert_eq!(doctor(f.home()).0, Some(0));
}

#[test]
fn editing_the_trusted_commands_needs_a_new_trust() {
    let f = Fixture::with_own_lint();
    f.decide("trust");
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(f.runs(), 1);
    let (code, text) = doctor(f.home());
    assert_eq!(code, Some(0), "{text}");
    let ok = format!("ok       trust {}: its own commands (python) may run", f.repo.root().display());
    assert!(text.lines().any(|l| l == ok), "{text}");

    f.repo.write(
        "codeguard.json",
        r#"{"languages": {"python": {"lint": ["./own-lint.sh", "--again", "{files}"]}}}"#,
    );
    let (code, status, reason) = f.python_check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    assert!(
        reason.ends_with(&format!(
            "run codeguard trust {} to allow this repository's own commands",
            f.repo.root().display()
        )),
        "{reason}"
    );
    assert_eq!(f.runs(), 1, "the edited command did not run");
    let (code, text) = doctor(f.home());
    assert_eq!(code, Some(1), "{text}");
    let problem = format!(
        "PROBLEM  trust {}: codeguard.json's commands changed since it was trusted; they do not run until you run codeguard trust {} again",
        f.repo.root().display(),
        f.repo.root().display()
    );
    assert!(text.lines().any(|l| l == problem), "{text}");

    // Only the commands count: other settings may change without a new trust.
    f.decide("trust");
    f.repo.write(
        "codeguard.json",
        r#"{"exclude": ["^gen/"], "languages": {"python": {"lint": ["./own-lint.sh", "--again", "{files}"]}}}"#,
    );
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(f.runs(), 2);
    assert_eq!(doctor(f.home()).0, Some(0));
}

#[test]
fn a_trust_record_from_before_identities_trusts_nothing_and_doctor_says_so() {
    let f = Fixture::with_own_lint();
    let file = f.home().join(".codeguard/trust.json");
    std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
    let old = serde_json::json!({"version": 1, "workspaces": {
        f.repo.root().to_str().expect("utf-8"): {"trusted": true, "decided_ms": 1, "decided_by": "user"}
    }});
    std::fs::write(&file, old.to_string()).expect("old record");
    let (_, status, reason) = f.python_check();
    assert_eq!(status, "UNVERIFIED", "{reason}");
    assert_eq!(f.runs(), 0);
    let (code, text) = doctor(f.home());
    assert_eq!(code, Some(1), "{text}");
    let problem = format!(
        "PROBLEM  trust {}: recorded by an older codeguard without the repository's identity, so nothing is trusted; run codeguard trust {} again",
        f.repo.root().display(),
        f.repo.root().display()
    );
    assert!(text.lines().any(|l| l == problem), "{text}");
    f.decide("trust");
    assert_eq!(f.python_check().1, "PASS");
    assert_eq!(f.runs(), 1);
}
