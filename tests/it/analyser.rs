//! Issue 14, the analyser's share, end to end against the real binary in real repositories:
//! git aliases (repository, user and system config, `-c alias.…`, `git config alias.…` earlier
//! in the command, `!` aliases as shell), dynamic words made literal by the command itself,
//! wrappers, branches and functions that never run, and inline code of other interpreters.
//! Every gate run proves the repository untouched.

use std::path::Path;

use serde_json::Value;

use crate::support::{TestRepo, codeguard, gate_in, repo_with, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";

/// `codeguard explain --format json` in `cwd` with extra environment variables.
fn explain_with(cwd: &Path, command: &str, env: &[(&str, &Path)], remove: &[&str]) -> Value {
    let home = tempfile::tempdir().expect("home");
    let mut cmd = codeguard(home.path());
    for name in remove {
        cmd.env_remove(name);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["explain", "--format", "json", "--cwd"])
        .arg(cwd)
        .arg("--")
        .arg(command)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn explain(cwd: &Path, command: &str) -> Value {
    explain_with(cwd, command, &[], &[])
}

/// guarded, mode, the ops of every repository in order, and whether anything is UNVERIFIED.
fn summary(v: &Value) -> (bool, Option<String>, Vec<String>, bool) {
    let repos = v["repos"].as_array().expect("repos");
    let ops = repos
        .iter()
        .flat_map(|r| {
            r["ops"].as_array().expect("ops").iter().map(|o| o["op"].as_str().expect("op").to_owned())
        })
        .collect();
    let unverified = !v["unverified"].as_array().expect("unverified").is_empty()
        || repos.iter().any(|r| !r["unverified"].as_array().expect("unverified").is_empty());
    (v["guarded"] == true, v["mode"].as_str().map(str::to_owned), ops, unverified)
}

fn exact(mode: &str, ops: &[&str]) -> (bool, Option<String>, Vec<String>, bool) {
    (true, Some(mode.to_owned()), ops.iter().map(|o| (*o).to_owned()).collect(), false)
}

fn not_guarded() -> (bool, Option<String>, Vec<String>, bool) {
    (false, None, Vec::new(), false)
}

/// A repository with a lint-failing Python file staged: any commit the gate sees blocks.
fn staged_bad() -> TestRepo {
    let repo = repo_with(&[("app.py", BAD_PY)]);
    repo.git(&["add", "app.py"]);
    repo
}

fn assert_lint_blocks(repo: &TestRepo, command: &str, env: &[(&str, &str)]) {
    let (code, stdout, stderr) = gate_in(repo, command, env);
    assert_eq!(code, Some(2), "`{command}` was not blocked: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.starts_with("codeguard: commit blocked — python (ruff)"), "`{command}`: {stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
}

fn assert_passes_silently(repo: &TestRepo, command: &str) {
    assert_eq!(gate_in(repo, command, &[]), (Some(0), String::new(), String::new()), "`{command}`");
}

#[test]
fn aliases_from_the_repository_user_and_system_config_are_followed() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    repo.git(&["config", "alias.ci", "commit"]);
    let cfg = tempfile::tempdir().expect("config dir");
    let user = cfg.path().join("user.gitconfig");
    std::fs::write(&user, "[alias]\n\tp = push\n\tsave = ci -q\n").expect("write");
    let system = cfg.path().join("system.gitconfig");
    std::fs::write(&system, "[alias]\n\tsys = commit -a\n").expect("write");
    let global = [("GIT_CONFIG_GLOBAL", user.as_path())];
    let both = [("GIT_CONFIG_GLOBAL", user.as_path()), ("GIT_CONFIG_SYSTEM", system.as_path())];

    assert_eq!(summary(&explain(&repo.root(), "git ci -m x")), exact("commit", &["commit"]));
    assert_eq!(summary(&explain_with(&repo.root(), "git p", &global, &[])), exact("push", &["push"]));
    // An alias of an alias, across config files.
    assert_eq!(
        summary(&explain_with(&repo.root(), "git save -m x", &global, &[])),
        exact("commit", &["commit"])
    );
    let v = explain_with(&repo.root(), "git sys -m x", &both, &["GIT_CONFIG_NOSYSTEM"]);
    assert_eq!(summary(&v), exact("commit", &["commit"]));
    // The alias words carry their options: `commit -a` takes the unstaged lane too.
    assert_eq!(v["repos"][0]["lanes"], serde_json::json!(["staged", "unstaged"]), "{v}");
    // GIT_CONFIG_NOSYSTEM hides the system file, as it does from git.
    assert!(summary(&explain_with(&repo.root(), "git sys -m x", &both, &[])).3);

    assert_lint_blocks(&repo, "git ci -m x", &[]);
    assert_lint_blocks(&repo, "git save -m x", &[("GIT_CONFIG_GLOBAL", &user.display().to_string())]);
}

#[test]
fn shell_aliases_are_analysed_as_shell_from_the_worktree_top() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    repo.git(&["config", "alias.ship", "!git commit -m wip && git push"]);
    repo.git(&["config", "alias.save", "!f() { git commit \"$@\"; }; f"]);
    std::fs::create_dir_all(repo.path("pkg")).expect("mkdir");
    let v = explain(&repo.path("pkg"), "git ship");
    assert_eq!(summary(&v), exact("push", &["commit", "push"]));
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.root().display().to_string(), "{v}");
    assert_eq!(summary(&explain(&repo.root(), "git save -m x")), exact("commit", &["commit"]));
    assert_lint_blocks(&repo, "git save -m x", &[]);
}

#[test]
fn aliases_given_or_defined_in_the_command_itself_are_followed() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    for command in [
        "git -c alias.x=commit x -m y",
        "git -c 'alias.x=!git commit -m y' x",
        "git config alias.y commit && git y -m z",
        "git config --global alias.y 'commit -q'; git y -m z",
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), exact("commit", &["commit"]), "`{command}`");
    }
    assert_lint_blocks(&repo, "git -c alias.x=commit x -m y", &[]);
    // git never lets an alias shadow one of its own commands.
    assert_eq!(summary(&explain(&repo.root(), "git -c alias.status=commit status")), not_guarded());
}

#[test]
fn an_unknown_git_subcommand_is_unverified_never_a_silent_pass() {
    let repo = staged_bad();
    for command in ["git zzz", "git $(cat sub.txt)", "git \"$SUB\" -m x"] {
        let (guarded, _, _, unverified) = summary(&explain(&repo.root(), command));
        assert!(guarded && unverified, "`{command}`");
    }
    let v = explain(&repo.root(), "git zzz");
    assert!(v.to_string().contains("neither a git command nor an alias"), "{v}");
    // Known git commands that cannot commit stay untouched: no config read, no guard.
    assert_eq!(summary(&explain(&repo.root(), "git log --oneline && git status")), not_guarded());
}

#[test]
fn literal_assignments_loops_and_argument_running_functions_are_followed() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    for (command, mode, ops) in [
        ("C=commit; git $C -m x", "commit", &["commit"][..]),
        ("G=git; $G commit -m x", "commit", &["commit"]),
        ("x=push; git \"$x\"", "push", &["push"]),
        ("cmd=\"git push\"; eval \"$cmd\"", "push", &["push"]),
        ("for r in main feature; do git push origin $r; done", "push", &["push", "push"]),
        ("\"$(which git)\" commit -m x", "commit", &["commit"]),
        ("$(command -v git) commit -m x", "commit", &["commit"]),
        ("run(){ \"$@\"; }; run git commit -m x", "commit", &["commit"]),
        ("retry(){ for i in 1 2; do \"$@\" && break; done; }; retry git push", "push", &["push", "push"]),
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), exact(mode, ops), "`{command}`");
    }
    assert_lint_blocks(&repo, "C=commit; git $C -m x", &[]);
    assert_lint_blocks(&repo, "run(){ \"$@\"; }; run git commit -m x", &[]);
    assert_eq!(summary(&explain(&repo.root(), "C=status; git $C")), not_guarded());
}

#[test]
fn wrappers_real_shells_accept_are_seen_through() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    for command in [
        "flock /tmp/codeguard-test.lock git commit -m x",
        "flock /tmp/codeguard-test.lock -c 'git commit -m x'",
        "script -qec 'git commit -m x' /dev/null",
        "trap 'git commit -m x' EXIT",
        "ionice -c3 git commit -m x",
        "taskset -c 0 git commit -m x",
        "timeout 60 nice -n 5 stdbuf -oL nohup git commit -m x",
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), exact("commit", &["commit"]), "`{command}`");
    }
    assert_lint_blocks(&repo, "flock /tmp/codeguard-test.lock git commit -m x", &[]);
    assert_lint_blocks(&repo, "script -qec 'git commit -m x' /dev/null", &[]);
    assert_lint_blocks(&repo, "trap 'git commit -m x' EXIT", &[]);
}

#[test]
fn code_that_never_runs_is_not_guarded() {
    let repo = staged_bad();
    repo.write("deploy.sh", "#!/bin/sh\ngit commit -m x\n");
    for command in [
        "f() { git commit -m x; }",
        "bash -n deploy.sh",
        "sh -n -c 'git commit -m x'",
        "builtin git commit -m x",
        "false && git commit -m x",
        "true || git commit -m x",
        "if false; then git commit -m x; fi",
        "while false; do git commit -m x; done",
        ": git commit -m x",
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), not_guarded(), "`{command}`");
        assert_passes_silently(&repo, command);
    }
    // Anything but a literal true/false/: still counts.
    for command in [
        "! false && git commit -m x",
        "test -n \"\" && git commit -m x",
        "f() { git commit -m x; }; trap f EXIT",
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), exact("commit", &["commit"]), "`{command}`");
    }
}

#[test]
fn inline_code_of_other_interpreters_follows_one_rule() {
    let repo = staged_bad();
    for command in [
        "perl -e 'system(\"git commit -m x\")'",
        "perl -e '`git commit -m x`'",
        "ruby -e 'system(\"git commit -m x\")'",
        "awk 'BEGIN{system(\"git commit -m x\")}'",
        "python3 -c 'import os; c = \"git commit -m x\"; os.system(c)'",
    ] {
        let v = explain(&repo.root(), command);
        let (guarded, mode, _, _) = summary(&v);
        assert!(guarded && mode.as_deref() == Some("commit"), "`{command}`: {v}");
        assert!(v.to_string().contains("cannot be modelled"), "{v}");
        let (code, stdout, stderr) = gate_in(&repo, command, &[]);
        assert_eq!(code, Some(2), "`{command}`: {stderr}");
        assert!(stdout.is_empty() && stderr.contains("cannot be modelled"), "{stderr}");
    }
    for command in [
        "perl -e 'print \"git commit -m x\\n\"'",
        "awk 'BEGIN{print \"git push\"}'",
        "python3 -c 'print(\"git push\")'",
    ] {
        assert_eq!(summary(&explain(&repo.root(), command)), not_guarded(), "`{command}`");
        assert_passes_silently(&repo, command);
    }
}

#[test]
fn shell_aliases_positional_words_and_arrays_are_followed() {
    require_tools(&["ruff"]);
    let repo = staged_bad();
    for command in [
        "alias gc='git commit'\ngc -m x",
        "shopt -s expand_aliases\nalias gc='git commit'\ngc -m x",
        // The alias is not expanded on its own line: the real git runs.
        "alias git=true; git commit -m x",
        "set -- git commit -m x; \"$@\"",
        "a=(git commit -m x); \"${a[@]}\"",
        "x=com; git ${x}mit -m x",
        "f() { \"$@\"; }; f f git commit -m x",
    ] {
        let (guarded, mode, ops, _) = summary(&explain(&repo.root(), command));
        assert!(guarded && mode.as_deref() == Some("commit") && ops == ["commit"], "`{command}`");
        assert_lint_blocks(&repo, command, &[]);
    }
    assert_eq!(summary(&explain(&repo.root(), "a=(git status); \"${a[@]}\"")), not_guarded());
    // An alias defined on the same line is never expanded there (bash and zsh read the line
    // whole first): `gc` is not found, nothing commits.
    assert_eq!(summary(&explain(&repo.root(), "alias gc='git commit'; gc -m x")), not_guarded());
}
