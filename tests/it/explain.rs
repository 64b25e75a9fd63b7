//! `codeguard explain` on real repositories: binding through cd / -C / sub-directories, linked
//! worktrees, the monorepo fallback, bypass forms, scripts on disk, and usage errors.

use std::path::Path;

use serde_json::Value;

use crate::support::{TestRepo, codeguard, git_in};

fn explain(cwd: &Path, command: &str) -> Value {
    crate::support::explain_json(cwd, command)
}

fn roots(v: &Value) -> Vec<String> {
    v["repos"]
        .as_array()
        .expect("repos")
        .iter()
        .map(|r| r["root"].as_str().expect("root").to_owned())
        .collect()
}

fn text(v: &Value) -> String {
    v.to_string()
}

fn repo_with_file() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("a.py", "x = 1\n").commit_all("init");
    repo
}

#[test]
fn a_plain_commit_binds_to_the_repository_it_runs_in() {
    let repo = repo_with_file();
    let v = explain(&repo.root(), "git add a.py && git commit -m x");
    assert_eq!(v["schema_version"], "1");
    assert_eq!(v["guarded"], true);
    assert_eq!(v["mode"], "commit");
    assert_eq!(roots(&v), [repo.root().display().to_string()]);
    let ops: Vec<_> = v["repos"][0]["ops"].as_array().expect("ops").iter().map(|o| o["op"].clone()).collect();
    assert_eq!(ops, ["add", "commit"]);
    assert_eq!(v["repos"][0]["unverified"], serde_json::json!([]));
}

#[test]
fn a_sub_directory_binds_to_the_worktree_root() {
    let repo = repo_with_file();
    repo.write("pkg/deep/b.py", "y = 2\n");
    let v = explain(&repo.path("pkg/deep"), "git push");
    assert_eq!(v["mode"], "push");
    assert_eq!(roots(&v), [repo.root().display().to_string()]);
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.path("pkg/deep").display().to_string());
}

#[test]
fn look_alikes_are_not_guarded_and_open_no_repository() {
    let repo = repo_with_file();
    for cmd in ["echo 'git push'", "git push --dry-run", "git commit --help", "ls", "git add ."] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["guarded"], false, "{cmd}");
        assert_eq!(v["mode"], Value::Null, "{cmd}");
        assert_eq!(v["repos"], serde_json::json!([]), "{cmd}");
    }
}

#[test]
fn dash_c_and_cd_bind_to_other_repositories() {
    let a = repo_with_file();
    let b = repo_with_file();
    let cmd = format!("git add a.py && git -C {} push", b.root().display());
    let v = explain(&a.root(), &cmd);
    assert_eq!(roots(&v), [b.root().display().to_string()], "{v}");
    let cmd = format!("cd {} && git commit -m x; cd {} && git push", a.root().display(), b.root().display());
    let v = explain(&a.root(), &cmd);
    assert_eq!(roots(&v), [a.root().display().to_string(), b.root().display().to_string()]);
    assert_eq!(v["repos"][0]["mode"], "commit");
    assert_eq!(v["repos"][1]["mode"], "push");
    assert_eq!(v["mode"], "push");
}

#[test]
fn sub_shell_cd_does_not_leak_but_brace_group_cd_does() {
    let outer = repo_with_file();
    // A nested, independent repository inside the outer one.
    std::fs::create_dir_all(outer.path("inner")).expect("mkdir");
    git_in(&outer.path("inner"), &["init", "-q", "-b", "main"]);
    let inner = outer.path("inner").canonicalize().expect("canonical");
    let v = explain(&outer.root(), "(cd inner && git commit -m x) && git push");
    assert_eq!(roots(&v), [inner.display().to_string(), outer.root().display().to_string()], "{v}");
    let v = explain(&outer.root(), "{ cd inner; git add .; } && git push");
    assert_eq!(roots(&v), [inner.display().to_string()]);
}

#[test]
fn a_target_that_is_not_a_repository_is_unverified_naming_the_path() {
    let repo = repo_with_file();
    let plain = tempfile::tempdir().expect("plain");
    let plain_path = plain.path().canonicalize().expect("canonical");
    let v = explain(&repo.root(), &format!("git -C {} push", plain_path.display()));
    assert_eq!(v["guarded"], true);
    assert_eq!(v["mode"], "push");
    assert!(text(&v["unverified"]).contains(&plain_path.display().to_string()), "{v}");
    assert!(v["block"].is_string());
    let v = explain(&repo.root(), "cd missing-dir && git commit -m x");
    assert!(text(&v["unverified"]).contains("missing-dir"), "{v}");
    let v = explain(&repo.root(), "cd \"$TARGET\" && git commit -m x");
    assert!(text(&v["unverified"]).contains("$TARGET"), "{v}");
}

#[test]
fn git_rev_parse_show_toplevel_is_followed() {
    let repo = repo_with_file();
    repo.write("sub/x.txt", "x");
    let v = explain(&repo.path("sub"), "cd \"$(git rev-parse --show-toplevel)\" && git push");
    assert_eq!(roots(&v), [repo.root().display().to_string()]);
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.root().display().to_string());
    assert_eq!(v["unverified"], serde_json::json!([]));
}

#[test]
fn linked_worktrees_bind_to_their_own_directory() {
    let repo = repo_with_file();
    let holder = tempfile::tempdir().expect("holder");
    let wt = holder.path().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "feature", wt.to_str().expect("utf8")]);
    let wt = wt.canonicalize().expect("canonical");
    let v = explain(&wt, "git commit -am x");
    assert_eq!(roots(&v), [wt.display().to_string()]);
    let v = explain(&repo.root(), &format!("git -C {} push", wt.display()));
    assert_eq!(roots(&v), [wt.display().to_string()]);
}

#[test]
fn monorepo_fallback_uses_children_with_a_git_entry_only_when_nothing_binds() {
    let top = tempfile::tempdir().expect("top");
    let top_path = top.path().canonicalize().expect("canonical");
    for name in ["svc-a", "svc-b"] {
        std::fs::create_dir(top_path.join(name)).expect("mkdir");
        git_in(&top_path.join(name), &["init", "-q", "-b", "main"]);
    }
    std::fs::create_dir(top_path.join("docs")).expect("mkdir");
    let v = explain(&top_path, "git commit -m x");
    assert_eq!(
        roots(&v),
        [top_path.join("svc-a").display().to_string(), top_path.join("svc-b").display().to_string()]
    );
    assert_eq!(v["repos"][0]["fallback"], true);
    assert!(text(&v["repos"][0]["unverified"]).contains("monorepo fallback"));
    // An explicit binding wins: no fallback.
    let v = explain(&top_path, "git -C svc-b push");
    assert_eq!(roots(&v), [top_path.join("svc-b").display().to_string()]);
    assert_eq!(v["repos"][0]["fallback"], false);
    // Nothing to fall back to.
    let empty = tempfile::tempdir().expect("empty");
    let v = explain(empty.path(), "git push");
    assert_eq!(v["guarded"], true);
    assert_eq!(v["repos"], serde_json::json!([]));
    assert!(text(&v["unverified"]).contains("not inside a git repository"), "{v}");
}

#[test]
fn bypass_forms_inline_chain_and_persisted() {
    let repo = repo_with_file();
    let v = explain(&repo.root(), "git -c codeguard.skipGate=true commit -m x");
    assert_eq!(v["repos"][0]["bypass"], "inline");
    let v = explain(
        &repo.root(),
        "git config codeguard.skipGate true && git commit -m x && git config --unset codeguard.skipGate",
    );
    assert_eq!(v["repos"][0]["bypass"], "chain", "{v}");
    let v = explain(&repo.root(), "git config codeguard.skipGate true; git commit -m x");
    assert_eq!(v["repos"][0]["bypass"], Value::Null);
    assert!(text(&v["repos"][0]["unverified"]).contains("not joined by `&&`"), "{v}");
    let v = explain(
        &repo.root(),
        "git config codeguard.skipGate true && git config codeguard.skipGate false && git commit -m x",
    );
    assert_eq!(v["repos"][0]["bypass"], Value::Null);
    let v = explain(&repo.root(), "git commit -m 'git -c codeguard.skipGate=true commit'");
    assert_eq!(v["repos"][0]["bypass"], Value::Null);
    repo.git(&["config", "codeguard.skipGate", "true"]);
    let v = explain(&repo.root(), "git commit -m x");
    assert_eq!(v["repos"][0]["bypass"], "persisted");
}

#[test]
fn shell_scripts_on_disk_are_read_one_level_deep() {
    let repo = repo_with_file();
    repo.write("release.sh", "#!/bin/sh\nset -e\ngit add -A\ngit commit -m release\ngit push origin main\n");
    repo.write("noop.sh", "#!/bin/sh\necho 'git push is for later'\n");
    repo.write("run", "#!/usr/bin/env bash\ncd sub && git commit -m x\n").chmod_x("run");
    repo.write("sub/.keep", "");
    let v = explain(&repo.root(), "bash release.sh");
    assert_eq!(v["mode"], "push");
    let ops: Vec<_> = v["repos"][0]["ops"].as_array().expect("ops").iter().map(|o| o["op"].clone()).collect();
    assert_eq!(ops, ["add", "commit", "push"]);
    assert_eq!(v["repos"][0]["ops"][0]["indirect"], true);
    assert_eq!(explain(&repo.root(), "sh ./noop.sh")["guarded"], false);
    let v = explain(&repo.root(), "./run");
    assert_eq!(v["mode"], "commit");
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.path("sub").display().to_string());
    // Resolved against the tracked cd.
    repo.write("tools/ship.sh", "git push\n");
    let v = explain(&repo.root(), "cd tools && bash ship.sh");
    assert_eq!(v["mode"], "push", "{v}");
}

#[test]
fn scripts_beyond_one_level_and_non_shell_programs_block() {
    let repo = repo_with_file();
    repo.write("outer.sh", "bash inner.sh\n");
    repo.write("inner.sh", "git push\n");
    let v = explain(&repo.root(), "bash outer.sh");
    assert_eq!(v["mode"], "push");
    assert!(v["repos"][0]["block"].as_str().unwrap_or_default().contains("more than one level"), "{v}");
    repo.write("tool.py", "#!/usr/bin/env python3\nimport subprocess\nsubprocess.run(['git', 'push'])\n")
        .chmod_x("tool.py");
    for cmd in ["python3 tool.py", "./tool.py"] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["mode"], "push", "{cmd}");
        assert!(v["repos"][0]["block"].as_str().unwrap_or_default().contains("cannot be modelled"), "{v}");
    }
    repo.write("help.py", "print('usage: run git push after review')\n");
    assert_eq!(explain(&repo.root(), "python3 help.py")["guarded"], false);
}

#[test]
fn a_missing_script_is_silent_unless_its_command_looks_like_a_push() {
    let repo = repo_with_file();
    assert_eq!(explain(&repo.root(), "bash build.sh")["guarded"], false);
    let v = explain(&repo.root(), "bash push.sh");
    assert_eq!(v["guarded"], true);
    assert!(text(&v).contains("could not be read"), "{v}");
}

#[test]
fn unparsable_commands_that_commit_are_guarded_and_unverified() {
    let repo = repo_with_file();
    let v = explain(&repo.root(), "git commit -m 'oops");
    assert_eq!(v["mode"], "commit");
    assert!(text(&v["repos"][0]["unverified"]).contains("could not be parsed"), "{v}");
    assert_eq!(explain(&repo.root(), "echo 'oops")["guarded"], false);
}

#[test]
fn human_format_explains_in_words() {
    let repo = repo_with_file();
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["explain", "--cwd"])
        .arg(repo.root())
        .args(["--", "git add . && git push"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Guarded: `git add . && git push` would push."), "{stdout}");
    assert!(stdout.contains(&repo.root().display().to_string()));
    let out = codeguard(home.path()).args(["explain", "--", "ls -la"]).output().expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Not guarded"));
}

#[test]
fn a_missing_cwd_is_a_one_line_usage_error() {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["explain", "--cwd", "/definitely/not/here", "--", "git push"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("codeguard: --cwd /definitely/not/here"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn explain_leaves_the_repository_untouched() {
    let repo = repo_with_file();
    repo.write("release.sh", "git add -A && git commit -m x && git push\n");
    crate::support::assert_untouched(&repo.root(), || {
        explain(&repo.root(), "git add -A && git commit -m x && bash release.sh && git push");
    });
}

#[test]
fn explain_lists_lanes_paths_and_deletions_per_repository() {
    let repo = TestRepo::new();
    repo.write("keep.py", "x = 1\n").write("old.py", "y = 2\n").commit_all("init");
    repo.write("keep.py", "x = 3\n").write("new.py", "z = 1\n");
    repo.git(&["rm", "-q", "old.py"]);
    let home = tempfile::tempdir().expect("home");
    let explain = |command: &str| {
        let out = crate::support::assert_untouched(&repo.root(), || {
            codeguard(home.path())
                .args(["explain", "--format", "json", "--cwd"])
                .arg(repo.root())
                .args(["--", command])
                .output()
                .expect("run")
        });
        crate::support::json_stdout(&out)
    };
    let plain = explain("git commit -m x");
    assert_eq!(plain["repos"][0]["lanes"], serde_json::json!(["staged"]));
    assert_eq!(plain["repos"][0]["paths"], serde_json::json!([]));
    assert_eq!(plain["repos"][0]["deleted"], serde_json::json!(["old.py"]));
    let all = explain("git add -A && git commit -m x");
    assert_eq!(all["repos"][0]["lanes"], serde_json::json!(["staged", "unstaged", "untracked"]));
    assert_eq!(all["repos"][0]["paths"], serde_json::json!(["keep.py", "new.py"]));
    let update = explain("git commit -am x");
    assert_eq!(
        update["repos"][0]["paths"],
        serde_json::json!(["keep.py"]),
        "commit -a takes tracked changes, not new files"
    );
}

/// The languages and files `explain` names are the ones the gate lints: the same snapshot and the
/// same planning (the project's `codeguard.json` excludes, vendored directories, a language with
/// no integration), compared with `check --staged` on the same index.
#[test]
fn explain_names_what_the_gate_lints_and_nothing_else() {
    crate::support::require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("app.py", "x = 1\n").write("codeguard.json", r#"{"exclude": ["gen/**"]}"#).commit_all("init");
    repo.write("bad.py", "import os\n")
        .write("vendor/v.py", "import os\n")
        .write("gen/g.py", "import os\n")
        .write("x.yml", "a: 1\n");
    repo.git(&["add", "-A"]);
    let v = explain(&repo.root(), "git commit -m x");
    let r = &v["repos"][0];
    let paths: Vec<&str> = r["paths"].as_array().expect("paths").iter().filter_map(Value::as_str).collect();
    assert_eq!(paths, ["bad.py", "gen/g.py", "vendor/v.py", "x.yml"], "every landing file is scanned: {v}");
    let lint = r["lint"].as_array().unwrap_or_else(|| panic!("explain shows the gate's lint plan: {v}"));
    let explained: Vec<(String, String, Vec<String>)> = lint
        .iter()
        .map(|l| {
            let files =
                l["files"].as_array().expect("files").iter().filter_map(Value::as_str).map(str::to_owned);
            (
                l["language"].as_str().expect("id").to_owned(),
                l["action"].as_str().expect("action").to_owned(),
                files.collect(),
            )
        })
        .collect();
    let report = crate::support::staged_report(&repo);
    let gated: Vec<(String, String, Vec<String>)> = report["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| {
            let status = l["status"].as_str().expect("status");
            let ran = !l["argv"].as_array().is_none_or(Vec::is_empty);
            let files =
                l["files"].as_array().expect("files").iter().filter_map(Value::as_str).map(str::to_owned);
            let action = if ran { "runs" } else { status };
            (l["language"].as_str().expect("id").to_owned(), action.to_owned(), files.collect())
        })
        .collect();
    assert_eq!(explained, gated, "explain: {v}\ncheck: {report}");
    assert!(
        explained
            .iter()
            .any(|(id, action, files)| id == "python" && action == "runs" && files == &["bad.py"]),
        "only bad.py is linted (gen/ excluded, vendor/ vendored): {explained:?}"
    );
}

/// A file a commit not yet pushed changed and the pending commit deletes lands deleted: `explain`
/// shows it deleted, not as a file to check (it once merged the push range a second time).
#[test]
fn a_file_changed_by_an_unpushed_commit_and_deleted_before_the_push_is_deleted() {
    let origin = tempfile::tempdir().expect("origin");
    git_in(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    let repo = repo_with_file();
    repo.write("f.py", "y = 1\n").commit_all("f");
    repo.git(&["remote", "add", "origin", &origin.path().display().to_string()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    repo.write("f.py", "y = 2\n").commit_all("change f");
    let v = explain(&repo.root(), "git rm -q f.py && git commit -m gone && git push");
    let r = &v["repos"][0];
    assert_eq!(r["mode"], "push", "{v}");
    assert!(!r["paths"].as_array().expect("paths").iter().any(|p| p == "f.py"), "{v}");
    assert!(r["deleted"].as_array().expect("deleted").iter().any(|p| p == "f.py"), "{v}");
}
