//! Workspace trust end to end: a repository's own commands (from its `codeguard.json`) run
//! only after `codeguard trust`, stop after `codeguard untrust`, and never with a corrupt trust
//! file — through `check` and through the `PreToolUse` gate.

use std::path::{Path, PathBuf};

use crate::support::{TestRepo, assert_untouched, codeguard, json_stdout, pre_tool_use};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

/// A repository whose `codeguard.json` makes python's lint a script that appends to a marker
/// file outside the repository (so runs inside a gate snapshot are seen too), and a state home.
struct Fixture {
    repo: TestRepo,
    home: tempfile::TempDir,
    _outside: tempfile::TempDir,
    marker: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let outside = tempfile::tempdir().expect("outside");
        let marker = outside.path().join("marker");
        let repo = TestRepo::new();
        repo.write("README.txt", "hello\n").commit_all("init");
        repo.write("own-lint.sh", &format!("#!/bin/sh\necho ran >> '{}'\n", marker.display()))
            .chmod_x("own-lint.sh")
            .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./own-lint.sh", "{files}"]}}}"#)
            .write("app.py", GOOD_PY);
        repo.git(&["add", "-A"]);
        Self { repo, home: tempfile::tempdir().expect("home"), _outside: outside, marker }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }

    /// How often the repository's own command ran.
    fn runs(&self) -> usize {
        std::fs::read_to_string(&self.marker).map_or(0, |t| t.lines().count())
    }

    /// `check --no-cache --format json`: exit code, python's status and reason.
    fn check(&self) -> (Option<i32>, String, String) {
        let out = codeguard(self.home())
            .args(["check", "--no-cache", "--format", "json"])
            .arg(self.repo.root())
            .output()
            .expect("run");
        let json = json_stdout(&out);
        let languages = json["languages"].as_array().expect("languages");
        let python = languages.iter().find(|l| l["language"] == "python").expect("python planned");
        let text = |key: &str| python[key].as_str().unwrap_or("").to_owned();
        (out.status.code(), text("status"), text("reason"))
    }

    fn decide(&self, command: &str) {
        codeguard(self.home()).arg(command).arg(self.repo.root()).assert().success();
    }
}

#[test]
fn own_commands_run_only_while_the_workspace_is_trusted() {
    let f = Fixture::new();
    let (code, status, reason) = f.check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    let hint =
        format!("run codeguard trust {} to allow this repository's own commands", f.repo.root().display());
    assert!(reason.ends_with(&hint), "{reason}");
    assert_eq!(f.runs(), 0, "the repository's command did not run");

    let out = codeguard(f.home()).arg("trust").arg(f.repo.path(".")).output().expect("trust");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("trusted {}", f.repo.root().display())));
    assert_eq!(f.check().1, "PASS");
    assert_eq!(f.runs(), 1, "trusted: it ran");

    f.decide("untrust");
    let (code, status, _) = f.check();
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"));
    assert_eq!(f.runs(), 1, "untrusted again: it did not run");
}

#[test]
fn a_corrupt_trust_file_trusts_nothing() {
    let f = Fixture::new();
    f.decide("trust");
    let file = f.home().join(".codeguard/trust.json");
    let text = std::fs::read_to_string(&file).expect("trust file");
    std::fs::write(&file, &text[..text.len() - 3]).expect("truncate");
    let (_, status, reason) = f.check();
    assert_eq!(status, "UNVERIFIED", "{reason}");
    assert_eq!(f.runs(), 0);
}

#[test]
fn the_gate_honours_trust_and_no_hook_grants_it() {
    let f = Fixture::new();
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
