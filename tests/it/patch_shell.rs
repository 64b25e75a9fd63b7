//! Codex's `apply_patch` run through the shell tool: the hook sees only the pre-tool-use of a
//! shell command, and Codex sends no `PostToolUse` for it. The files the patch writes are linted
//! after it ran — at the `PostToolUse` of that call where a host sends one, else at the next event
//! whose output reaches the model — and the result reaches the model there.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{TestRepo, bin_dir_with, codeguard, real_tool};

const SESSION: &str = "019a-codex-session";

/// Runs a Codex hook with `payload` (its session, `cwd` added) and only `bin` on `PATH`; the
/// exit code and stdout (stderr must be empty).
fn codex(home: &Path, bin: &Path, event: &str, repo: &TestRepo, mut payload: Value) -> (Option<i32>, String) {
    payload["session_id"] = json!(SESSION);
    payload["cwd"] = json!(repo.root());
    let out = codeguard(home)
        .env("PATH", bin)
        .args(["hook", event, "--host", "codex"])
        .write_stdin(payload.to_string())
        .output()
        .expect("run hook");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Codex's pre-tool-use payload of its shell tool (`exec_command` arrives as `Bash`).
fn shell(id: &str, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "bypassPermissions",
           "turn_id": "t-1", "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command}})
}

fn heredoc(patch: &str) -> String {
    format!("apply_patch <<'PATCH'\n*** Begin Patch\n{patch}*** End Patch\nPATCH")
}

/// The additional context of a Codex JSON answer for `event`, checking its exact shape.
fn context(stdout: &str, event: &str) -> String {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["hookSpecificOutput", "systemMessage"], "{stdout}");
    let inner = v["hookSpecificOutput"].as_object().expect("hookSpecificOutput");
    let keys: Vec<&String> = inner.keys().collect();
    assert_eq!(keys, ["hookEventName", "additionalContext"], "{stdout}");
    assert_eq!(inner["hookEventName"], event);
    inner["additionalContext"].as_str().expect("context").to_owned()
}

struct Fixture {
    repo: TestRepo,
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let ruff = real_tool("ruff");
        let repo = TestRepo::new();
        repo.write("app.py", "import os\n\nprint(os.name)\n").commit_all("init");
        Self { repo, home: tempfile::tempdir().expect("home"), bin: bin_dir_with(&[&ruff]) }
    }

    fn hook(&self, event: &str, payload: Value) -> (Option<i32>, String) {
        codex(self.home.path(), self.bin.path(), event, &self.repo, payload)
    }

    fn pending_dir(&self) -> std::path::PathBuf {
        self.home.path().join(".codeguard/pending")
    }

    fn pending_files(&self) -> usize {
        std::fs::read_dir(self.pending_dir()).map_or(0, |d| {
            d.filter_map(Result::ok).filter(|e| e.path().extension().is_some_and(|x| x == "json")).count()
        })
    }
}

#[test]
fn a_shell_apply_patch_is_linted_at_the_next_event_and_the_finding_reaches_the_model() {
    let f = Fixture::new();
    let patch = heredoc(
        "*** Add File: bad.py\n+import os\n*** Update File: app.py\n@@\n-import os\n-\n-print(os.name)\n+print(1)\n",
    );
    // The patch command itself: allowed silently, its files recorded.
    assert_eq!(f.hook("pre-tool-use", shell("call_1", &patch)), (Some(0), String::new()));
    assert_eq!(f.pending_files(), 1);
    // A second copy of the same call's pre-tool-use (the patch has not run yet) says nothing.
    assert_eq!(f.hook("pre-tool-use", shell("call_1", &patch)), (Some(0), String::new()));
    // Codex applies the patch.
    f.repo.write("bad.py", "import os\n").write("app.py", "print(1)\n");
    // The next shell command of the session carries the lint result to the model.
    let (code, stdout) = f.hook("pre-tool-use", shell("call_2", "ls"));
    assert_eq!(code, Some(0));
    let text = context(&stdout, "PreToolUse");
    let first = text.lines().next().unwrap_or("");
    assert_eq!(first, "codeguard: the files your last apply_patch wrote, linted after it ran:");
    assert!(text.contains("codeguard: [python] bad.py has lint problems (F401×1):"), "{text}");
    assert!(text.contains("bad.py:1:8: F401"), "{text}");
    assert!(!text.contains("app.py"), "a file that passes is not mentioned: {text}");
    // Said once: the pending set is cleared.
    assert_eq!(f.pending_files(), 0);
    assert_eq!(f.hook("pre-tool-use", shell("call_3", "ls")), (Some(0), String::new()));
}

#[test]
fn a_clean_patch_yields_no_noise_and_a_deleted_file_is_dropped() {
    let f = Fixture::new();
    let patch = heredoc("*** Add File: good.py\n+x = 1\n+print(x)\n");
    assert_eq!(f.hook("pre-tool-use", shell("call_1", &patch)), (Some(0), String::new()));
    f.repo.write("good.py", "x = 1\nprint(x)\n");
    assert_eq!(f.hook("pre-tool-use", shell("call_2", "ls -la")), (Some(0), String::new()));
    assert_eq!(f.pending_files(), 0, "cleared after the lint");

    let patch = heredoc("*** Add File: gone.py\n+import os\n");
    assert_eq!(f.hook("pre-tool-use", shell("call_3", &patch)), (Some(0), String::new()));
    f.repo.write("gone.py", "import os\n");
    std::fs::remove_file(f.repo.path("gone.py")).expect("rm");
    assert_eq!(f.hook("pre-tool-use", shell("call_4", "ls")), (Some(0), String::new()));
    assert_eq!(f.pending_files(), 0, "a file that no longer exists is dropped");
}

#[test]
fn a_post_tool_use_of_the_shell_call_lints_at_once_and_argument_form_and_cd_are_read() {
    let f = Fixture::new();
    std::fs::create_dir(f.repo.path("pkg")).expect("mkdir");
    let command = "cd pkg && applypatch '*** Begin Patch\n*** Add File: m.py\n+import sys\n*** End Patch\n'";
    assert_eq!(f.hook("pre-tool-use", shell("call_1", command)), (Some(0), String::new()));
    f.repo.write("pkg/m.py", "import sys\n");
    let mut post = shell("call_1", command);
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!("Success. Updated the following files:\nA m.py\n");
    let (code, stdout) = f.hook("post-tool-use", post);
    assert_eq!(code, Some(0));
    let text = context(&stdout, "PostToolUse");
    assert!(text.contains("codeguard: [python] m.py has lint problems (F401×1):"), "{text}");
    assert_eq!(f.pending_files(), 0);
}

#[test]
fn a_pass_through_without_pending_edits_creates_no_state() {
    let f = Fixture::new();
    assert_eq!(f.hook("pre-tool-use", shell("call_1", "ls -la && git status")), (Some(0), String::new()));
    assert!(!f.home.path().join(".codeguard").exists(), "the pass-through path created state");
}

#[test]
fn a_file_the_patch_adds_stays_pending_through_an_event_that_comes_before_the_patch_ran() {
    let f = Fixture::new();
    let patch = heredoc("*** Add File: new.py\n+import os\n");
    assert_eq!(f.hook("pre-tool-use", shell("call_1", &patch)), (Some(0), String::new()));
    // Another call's event (a parallel call) arrives before Codex applied the patch: new.py does
    // not exist yet, which is not a reason to forget it.
    assert_eq!(f.hook("pre-tool-use", shell("call_2", "ls")), (Some(0), String::new()));
    assert_eq!(f.pending_files(), 1, "the added file still waits");
    f.repo.write("new.py", "import os\n");
    let (code, stdout) = f.hook("pre-tool-use", shell("call_3", "ls"));
    assert_eq!(code, Some(0));
    assert!(context(&stdout, "PreToolUse").contains("new.py:1:8: F401"), "{stdout}");
}
