//! Every file linted in its real dialect: dot-paths are linted, vendored/generated/fixture files
//! are not (but the safety scan still reads them), shell scripts go to the checker of their
//! dialect, and verdicts say when nothing was checked. Real git repos, the real binary, real
//! linters; gate runs prove the repository untouched.

use crate::support::{
    TestRepo, assert_untouched, bin_dir_with, check_with_only, codeguard, json_stdout, pre_tool_use,
    real_tool, require_tools,
};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const YAMLLINT: &str = "extends: default\nrules:\n  document-start: disable\n  truthy: disable\n";

/// Runs the agent gate for `command` in `repo` and proves the repository untouched.
fn gate(repo: &TestRepo, command: &str) -> (Option<i32>, String, String) {
    crate::support::gate_in(repo, command, &[])
}

fn repo_with(files: &[(&str, &str)]) -> TestRepo {
    crate::support::repo_with(files)
}

#[test]
fn a_staged_workflow_with_a_yaml_syntax_error_blocks_the_gate() {
    require_tools(&["yamllint"]);
    let broken = "name: ci\non: [push\njobs:\n  build:\n    runs-on: ubuntu-latest\n";
    for path in [".github/workflows/ci.yml", ".pre-commit-hooks.yaml", ".readthedocs.yaml"] {
        let repo = crate::support::repo_with_rules(&[(".yamllint", YAMLLINT)], &[(path, broken)]);
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
    let repo =
        crate::support::repo_with_rules(&[(".yamllint", YAMLLINT)], &[(".github/workflows/ci.yml", fixed)]);
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m x"), (Some(0), String::new(), String::new()));
}

#[test]
fn vendored_files_are_not_linted_but_their_secrets_are_found() {
    require_tools(&["ruff"]);
    let aws = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let attributes = "lib/** linguist-vendored\n*_pb2.py linguist-generated\n";
    let lint_free = [
        ("lib/dep.py", BAD_PY),
        ("api/schema_pb2.py", BAD_PY),
        ("pkg/vendor/x.py", BAD_PY),
        ("third_party/y.py", BAD_PY),
        ("tests/fixtures/bad.py", BAD_PY),
        ("pkg/testdata/bad.py", BAD_PY),
    ];
    let repo = crate::support::repo_with_rules(&[(".gitattributes", attributes)], &lint_free);
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m vendored"), (Some(0), String::new(), String::new()));

    let secret = format!("{BAD_PY}KEY = \"{aws}\"\n");
    repo.write("lib/dep.py", &secret);
    repo.git(&["add", "-A"]);
    let (code, _, stderr) = gate(&repo, "git commit -m vendored");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("lib/dep.py:5: aws-access-key-id"), "{stderr}");
    assert!(!stderr.contains("F401") && !stderr.contains(&aws), "{stderr}");

    let repo = crate::support::repo_with_rules(
        &[(".gitattributes", attributes), ("codeguard.json", "{\"exclude_vendored\": false}\n")],
        &lint_free,
    );
    repo.git(&["add", "-A"]);
    let (code, _, stderr) = gate(&repo, "git commit -m vendored");
    assert_eq!(code, Some(2), "{stderr}");
    for path in ["lib/dep.py", "api/schema_pb2.py", "pkg/vendor/x.py", "tests/fixtures/bad.py"] {
        assert!(stderr.contains(&format!("{path}:1:8: F401")), "{path}: {stderr}");
    }
}

/// `(status, reason, argv)` of one language in a `check --format json` report.
fn language<'a>(json: &'a serde_json::Value, id: &str) -> (&'a str, &'a str, String) {
    let entry = json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .find(|l| l["language"] == id)
        .unwrap_or_else(|| panic!("{id} not in the report: {json}"));
    (
        entry["status"].as_str().expect("status"),
        entry["reason"].as_str().expect("reason"),
        entry["argv"].to_string(),
    )
}

fn check_json(tools: &[&std::path::Path], root: &std::path::Path) -> serde_json::Value {
    let out = check_with_only(tools, "json", root);
    json_stdout(&out)
}

#[test]
fn bash_scripts_are_checked_as_bash_wherever_their_dialect_is_written() {
    let shellcheck = real_tool("shellcheck");
    let repo = TestRepo::new();
    let bash = "#!/usr/bin/env bash\nset -euo pipefail\nnames=(a b)\nif [[ -n \"${1:-}\" ]]; then echo \"${names[0]}\"; fi\n";
    repo.write("bin/deploy", bash).write("scripts/tool.sh", bash).write("lib/util.bash", &bash[20..]);
    repo.commit_all("init");
    let json = check_json(&[&shellcheck], &repo.root());
    let (status, reason, argv) = language(&json, "shell");
    assert_eq!((status, reason), ("PASS", ""), "{json}");
    assert!(argv.contains("\"--shell=bash\"") && argv.contains("\"bin/deploy\""), "{argv}");

    repo.write("bin/deploy", &format!("{bash}echo $names\n"));
    let json = check_json(&[&shellcheck], &repo.root());
    assert_eq!(language(&json, "shell").0, "FAIL", "an extension-less bash script is linted: {json}");
}

#[test]
fn a_files_own_shellcheck_shell_directive_wins_over_its_extension() {
    let shellcheck = real_tool("shellcheck");
    let repo = TestRepo::new();
    let bash = "# Sourced by the installer.\n# shellcheck shell=bash\nif [[ -n \"${1:-}\" ]]; then names=(a b); echo \"${names[0]}\"; fi\n";
    repo.write("lib/common.sh", bash).commit_all("init");
    let json = check_json(&[&shellcheck], &repo.root());
    let (status, _, argv) = language(&json, "shell");
    assert_eq!(status, "PASS", "the file says it is bash; codeguard does not overrule it as sh: {json}");
    assert!(!argv.contains("--shell="), "{argv}");

    repo.write("lib/common.sh", &format!("{bash}echo $names\n"));
    let json = check_json(&[&shellcheck], &repo.root());
    assert_eq!(language(&json, "shell").0, "FAIL", "still linted, as bash: {json}");
}

#[test]
fn posix_sh_scripts_are_checked_as_sh() {
    let shellcheck = real_tool("shellcheck");
    let repo = TestRepo::new();
    repo.write("lib/common.sh", "log() {\n  printf '%s\\n' \"$*\"\n}\n")
        .write("run", "#!/bin/sh\necho \"$1\"\n");
    repo.commit_all("init");
    let json = check_json(&[&shellcheck], &repo.root());
    let (status, _, argv) = language(&json, "shell");
    assert_eq!(status, "PASS", "a .sh file without a #! line is POSIX sh, not a finding: {json}");
    assert!(argv.contains("\"--shell=sh\""), "{argv}");

    repo.write("lib/common.sh", "if [[ -n \"$1\" ]]; then echo yes; fi\n");
    let out = check_with_only(&[&shellcheck], "human", &repo.root());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lib/common.sh:1:4: warning: In POSIX sh, [[ ]] is undefined. [SC3010]"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn zsh_scripts_go_to_zsh_or_are_honestly_unverified() {
    let shellcheck = real_tool("shellcheck");
    let repo = TestRepo::new();
    let zsh = "#!/usr/bin/env zsh\ntypeset -A seen\nseen[a]=1\nprint -r -- ${(k)seen}\n";
    repo.write("prompt.sh", zsh).write("conf/aliases.zsh", "alias ll='ls -l'\n").commit_all("init");

    let json = check_json(&[&shellcheck], &repo.root());
    let (status, reason, _) = language(&json, "zsh");
    assert_eq!(status, "UNVERIFIED", "{json}");
    assert_eq!(
        reason,
        "tool missing: `zsh` not found on PATH (install: apt-get install zsh (shellcheck cannot check zsh))"
    );
    assert!(json["languages"].as_array().expect("list").iter().all(|l| l["language"] != "shell"), "{json}");
    assert_eq!(json["status"], "UNVERIFIED");

    let zsh_bin = real_tool("zsh");
    let json = check_json(&[&shellcheck, &zsh_bin], &repo.root());
    let (status, _, argv) = language(&json, "zsh");
    assert_eq!(status, "PASS", "{json}");
    assert!(argv.contains("[\"zsh\",\"-f\",\"-n\",\"prompt.sh\"]"), "{argv}");
    repo.write("prompt.sh", "#!/usr/bin/env zsh\nfunction f {\n  print x\n");
    let out = check_with_only(&[&shellcheck, &zsh_bin], "human", &repo.root());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL") && text.contains("prompt.sh:4: parse error"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn fish_scripts_go_to_fish_or_are_honestly_unverified() {
    let shellcheck = real_tool("shellcheck");
    let repo = TestRepo::new();
    repo.write("conf.d/paths.fish", "if test -d ~/bin\n    set -gx PATH ~/bin $PATH\nend\n");
    repo.write("bin/greet", "#!/usr/bin/env fish\nfor n in $argv\n    echo hi $n\nend\n");
    repo.commit_all("init");

    let json = check_json(&[&shellcheck], &repo.root());
    let (status, reason, _) = language(&json, "fish");
    assert_eq!(status, "UNVERIFIED", "{json}");
    assert!(
        reason.contains("`fish` not found") && reason.contains("shellcheck cannot check fish"),
        "{reason}"
    );

    let fish_bin = real_tool("fish");
    let json = check_json(&[&shellcheck, &fish_bin], &repo.root());
    let (status, _, argv) = language(&json, "fish");
    assert_eq!(status, "PASS", "{json}");
    assert!(argv.contains("\"bin/greet\"") && argv.contains("\"conf.d/paths.fish\""), "{argv}");
    repo.write("conf.d/paths.fish", "if test -d ~/bin\n    set -gx PATH ~/bin $PATH\n");
    let out = check_with_only(&[&shellcheck, &fish_bin], "human", &repo.root());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL") && text.contains("conf.d/paths.fish (line 1): Missing end"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_gate_checks_a_staged_zsh_script_with_zsh_not_shellcheck() {
    let shellcheck = real_tool("shellcheck");
    require_tools(&["zsh"]);
    let repo = repo_with(&[("prompt.sh", "#!/usr/bin/env zsh\nfunction f {\n  print x\n")]);
    repo.git(&["add", "-A"]);
    let bin = bin_dir_with(&[&shellcheck, &real_tool("git")]);
    let home = tempfile::tempdir().expect("home");
    let path = bin.path().to_str().expect("utf-8 path");
    let out = assert_untouched(&repo.root(), || {
        pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m zsh", &[("PATH", path)])
    });
    assert_eq!(out.status.code(), Some(0), "an unverifiable dialect does not block");
    let context =
        json_stdout(&out)["hookSpecificOutput"]["additionalContext"].as_str().expect("context").to_owned();
    assert!(
        context.contains("UNVERIFIED: zsh UNVERIFIED: tool missing: `zsh` not found on PATH (install: apt-get install zsh (shellcheck cannot check zsh))"),
        "{context}"
    );
    let (code, _, stderr) = gate(&repo, "git commit -m zsh");
    assert!(!stderr.contains("SC1071") && !stderr.contains("shellcheck"), "{stderr}");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("codeguard: commit blocked — zsh (zsh)"), "{stderr}");
    assert!(stderr.contains("prompt.sh:4: parse error"), "{stderr}");
    repo.write("prompt.sh", "#!/usr/bin/env zsh\nfunction f {\n  print x\n}\n");
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m zsh"), (Some(0), String::new(), String::new()));
}

#[test]
fn nothing_checked_is_not_a_pass_and_opt_in_languages_wait_for_their_config() {
    let ruff = real_tool("ruff");
    let repo = TestRepo::new();
    repo.write("README.md", "# Demo\n")
        .write("config.toml", "[a]\nb = 1\n")
        .write("site/index.html", "<p>hi</p>\n");
    repo.commit_all("init");
    let json = check_json(&[&ruff], &repo.root());
    let statuses: Vec<(&str, &str, &str)> = json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| {
            (
                l["language"].as_str().expect("id"),
                l["status"].as_str().expect("status"),
                l["reason"].as_str().expect("reason").split(':').next().expect("reason"),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("html", "SKIPPED", "not integrated"),
            ("markdown", "SKIPPED", "not integrated"),
            ("toml", "SKIPPED", "not integrated")
        ],
        "{json}"
    );
    assert_eq!(json["status"], "SKIPPED", "no check ran, so the check did not pass: {json}");
    let out = check_with_only(&[&ruff], "human", &repo.root());
    assert_eq!(out.status.code(), Some(0), "nothing to check blocks nothing");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("codeguard: NOTHING CHECKED — no linter applied (not a pass); 0 passed, 0 failed, 0 unverified, 3 skipped\n"),
        "{text}"
    );

    repo.write("app.py", "import sys\n\nprint(sys.argv)\n");
    let json = check_json(&[&ruff], &repo.root());
    assert_eq!(json["status"], "PASS", "{json}");

    let repo = repo_with(&[("README.md", "# Demo\n\nMore words.\n")]);
    repo.git(&["add", "-A"]);
    assert_eq!(gate(&repo, "git commit -m docs"), (Some(0), String::new(), String::new()));
}

#[test]
fn an_edit_lints_dot_paths_and_never_generated_files() {
    require_tools(&["yamllint", "ruff"]);
    let repo = TestRepo::new();
    repo.write(".yamllint", YAMLLINT)
        .write(".github/workflows/ci.yml", "on: [push\n")
        .write(".gitattributes", "gen/** linguist-generated\n")
        .write("gen/api.py", BAD_PY)
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let edit = |file: &str| {
        let payload = serde_json::json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write", "tool_input": {"file_path": repo.path(file), "content": ""}});
        let out = codeguard(home.path())
            .args(["hook", "post-tool-use"])
            .write_stdin(payload.to_string())
            .output()
            .expect("run");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, stdout) = edit(".github/workflows/ci.yml");
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("[yaml] ci.yml has lint problems")
            && stdout.contains(".github/workflows/ci.yml:2:1: [error] syntax error"),
        "{stdout}"
    );
    assert_eq!(edit("gen/api.py"), (Some(0), String::new()), "a generated file is not linted on save");
}
