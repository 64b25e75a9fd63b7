//! Programs that commit by themselves (`npm run`/`yarn`/`pnpm` scripts, `npm version`, `make`),
//! scripts written and run by the same command, and content written earlier in the same call
//! that would land: `codeguard explain` and the real `PreToolUse` gate on real repositories.

use std::path::Path;

use serde_json::Value;

use crate::support::{TestRepo, gate_in, repo_with, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";

fn explain(cwd: &Path, command: &str) -> Value {
    crate::support::explain_json(cwd, command)
}

fn ops(v: &Value) -> Vec<String> {
    v["repos"]
        .as_array()
        .expect("repos")
        .iter()
        .flat_map(|r| {
            r["ops"].as_array().expect("ops").iter().map(|o| o["op"].as_str().expect("op").to_owned())
        })
        .collect()
}

/// A repository with a `package.json` whose scripts commit and push, and a Makefile whose
/// `release` target commits (after its prerequisite) and pushes through a sub-make.
fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app.py", "x = 1\n");
    repo.write(
        "package.json",
        r#"{"name": "p", "version": "1.0.0", "scripts": {
            "prerelease": "echo about to release",
            "release": "git add -A && git commit -m release",
            "postship": "git push origin main",
            "ship": "echo shipping",
            "ci": "./tools/ci.sh",
            "test": "echo ok",
            "lint": "echo git push is documented in README"
        }}"#,
    );
    repo.write("tools/ci.sh", "#!/bin/sh\ngit commit -am ci\n").chmod_x("tools/ci.sh");
    repo.write(
        "Makefile",
        ".PHONY: all build release push\nGIT := git\nall: build\nbuild:\n\t@echo build\nrelease: build\n\t-$(GIT) commit -am \"$@\"\n\t+$(MAKE) push\npush:\n\tgit push\n",
    );
    repo.commit_all("init");
    repo
}

#[test]
fn package_scripts_that_commit_or_push_are_guarded_with_their_pre_and_post_scripts() {
    let repo = project();
    let v = explain(&repo.root(), "npm run release");
    assert_eq!((v["guarded"].clone(), v["mode"].clone()), (Value::Bool(true), "commit".into()), "{v}");
    assert_eq!(ops(&v), ["add", "commit"]);
    assert_eq!(v["repos"][0]["root"], repo.root().display().to_string());
    for cmd in ["npm run ship", "yarn ship", "pnpm ship", "pnpm run ship", "npm run-script ship"] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["mode"], "push", "{cmd}: {v}");
        assert_eq!(ops(&v), ["push"], "{cmd}");
    }
    // From a sub-directory: package.json is found upward, and the script runs at the package root.
    std::fs::create_dir_all(repo.path("deep/er")).expect("mkdir");
    let v = explain(&repo.path("deep/er"), "npm run release");
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.root().display().to_string(), "{v}");
    let v = explain(&repo.root(), "cd tools && npm --prefix .. run ci");
    assert_eq!(ops(&v), ["commit"], "a script run by path from a package script: {v}");
    for cmd in ["npm test", "npm run lint", "npm install", "yarn add left-pad", "npm run missing"] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["guarded"], false, "{cmd}: {v}");
    }
}

#[test]
fn make_follows_the_target_its_prerequisites_and_sub_makes() {
    let repo = project();
    let v = explain(&repo.root(), "make release");
    assert_eq!(v["mode"], "push", "{v}");
    assert_eq!(ops(&v), ["commit", "push"]);
    let v = explain(&repo.root(), "make -C . push");
    assert_eq!(ops(&v), ["push"]);
    for cmd in ["make", "make build", "make -n release", "make --dry-run push"] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["guarded"], false, "{cmd}: {v}");
    }
}

#[test]
fn npm_version_commits_content_it_writes_itself_so_it_is_denied_unless_tagging_is_off() {
    let repo = project();
    let v = explain(&repo.root(), "npm version patch");
    assert_eq!(v["mode"], "commit", "{v}");
    let block = v["repos"][0]["block"].as_str().unwrap_or_default();
    assert!(block.contains("package.json") && block.contains("Run the write first"), "{v}");
    let v = explain(&repo.root(), "npm version patch --no-git-tag-version");
    assert_eq!(v["guarded"], false, "{v}");
    repo.write(".npmrc", "git-tag-version=false\n");
    let v = explain(&repo.root(), "npm version minor");
    assert_eq!(v["guarded"], false, "{v}");
}

#[test]
fn a_script_written_by_the_same_command_is_analysed_from_the_command() {
    let repo = project();
    let v = explain(&repo.root(), "cat > s.sh <<'E'\ngit commit -am x\nE\nbash s.sh");
    assert_eq!((v["guarded"].clone(), v["mode"].clone()), (Value::Bool(true), "commit".into()), "{v}");
    let v = explain(&repo.root(), "echo 'git push' > p.sh; chmod +x p.sh; ./p.sh");
    assert_eq!(v["mode"], "push", "{v}");
    assert_eq!(ops(&v), ["push"]);
    let v = explain(&repo.root(), "printf 'git push origin main\\n' > c.sh && sh c.sh");
    assert_eq!(ops(&v), ["push"], "{v}");
    // The script on disk is stale: what runs is what the command wrote.
    repo.write("old.sh", "echo harmless\n");
    let v = explain(&repo.root(), "echo 'git push' >> old.sh && bash old.sh");
    assert_eq!(v["mode"], "push", "{v}");
    let v = explain(&repo.root(), "echo 'echo hi' > s.sh && bash s.sh");
    assert_eq!(v["guarded"], false, "{v}");
}

#[test]
fn content_written_before_a_commit_that_takes_it_is_denied_with_the_directive() {
    let repo = repo_with(&[]);
    let (code, stdout, stderr) =
        gate_in(&repo, "echo 'x = 1' > new.py && git add new.py && git commit -m x", &[]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("`echo` writes or deletes `new.py` in this same call"), "{stderr}");
    // The written text never shows up in the report: it may be a key.
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let (code, stdout, stderr) =
        gate_in(&repo, &format!("echo 'K={key}' > .env && git add -A && git commit -m x"), &[]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(!stdout.contains(&key) && !stderr.contains(&key), "the key leaked: {stdout}{stderr}");
    assert!(stderr.contains("Run the write first, then commit in a separate call"), "{stderr}");
    for cmd in [
        "echo more >> README.txt && git commit -am x",
        "sed -i s/hello/bye/ README.txt && git add . && git commit -m x",
        "cp README.txt copy.txt && git add -A && git commit -m x",
        "rm README.txt && git commit -am gone",
        "chmod +x README.txt && git add README.txt && git commit -m mode",
        "echo x > new.txt && git add \"$PWD/new.txt\" && git commit -m x",
        "npm version patch && git push",
    ] {
        let (code, _, stderr) = gate_in(&repo, cmd, &[]);
        if cmd.starts_with("npm") {
            // No package.json here: npm version fails without committing.
            assert_eq!(code, Some(0), "{cmd}: {stderr}");
            continue;
        }
        assert_eq!(code, Some(2), "{cmd}: {stderr}");
        assert!(stderr.contains("Run the write first"), "{cmd}: {stderr}");
    }
}

#[test]
fn writes_that_do_not_land_are_not_denied() {
    require_tools(&["ruff"]);
    let repo =
        repo_with(&[(".gitignore", "*.log\nbuild/\n"), ("build/out.txt", "x\n"), ("scratch.txt", "x\n")]);
    repo.commit_all("ignore logs");
    repo.write("scratch.txt", "x\n");
    repo.git(&["rm", "-q", "--cached", "scratch.txt"]);
    repo.git(&["commit", "-q", "-m", "untrack scratch"]);
    repo.write("ok.py", "x = 1\n");
    repo.git(&["add", "ok.py"]);
    let outside = tempfile::tempdir().expect("outside");
    for cmd in [
        "echo x > build.log && git add -A && git commit -m x".to_owned(),
        format!("echo x > {}/x.txt && git add -A && git commit -m x", outside.path().display()),
        "echo x > notes.txt && git add ok.py && git commit -m x".to_owned(),
        // `$PWD/…` is the directory the step runs in: the add takes ok.py, not notes.txt (the
        // rule reads the op as the surface does).
        "echo x > notes.txt && git add \"$PWD/ok.py\" && git commit -m x".to_owned(),
        "echo x > untracked.txt && git commit -am x".to_owned(),
        "git commit -m x && echo x > later.txt".to_owned(),
        "rm -rf build && git add -A && git commit -m x".to_owned(),
        "rm -f scratch.txt && git add . && git commit -m x".to_owned(),
    ] {
        let (code, _, stderr) = gate_in(&repo, &cmd, &[]);
        assert_eq!(code, Some(0), "{cmd}: {stderr}");
    }
}

#[test]
fn with_codeguards_pre_commit_hook_installed_the_write_passes_with_context() {
    require_tools(&["ruff"]);
    let repo = repo_with(&[]);
    let home = tempfile::tempdir().expect("home");
    crate::support::install_git_hooks(home.path(), &repo);
    let cmd =
        format!("printf '{}' > bad.py && git add bad.py && git commit -m x", BAD_PY.replace('\n', "\\n"));
    let (code, stdout, stderr) = gate_in(&repo, &cmd, &[]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("pre-commit hook is installed"), "{stdout}");
    // Skipping git's hooks leaves the backstop, which judges every branch move.
    let (code, stdout, stderr) = gate_in(&repo, &format!("{cmd} --no-verify"), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("codeguard's git backstop (its reference-transaction hook) is installed"),
        "{stdout}"
    );
    // So does a call that switches the hook off before it commits.
    let write = "printf 'x = 1\\n' > ok.py && git add ok.py";
    for off in [
        format!("{write} && rm .git/hooks/pre-commit && git commit -m x"),
        format!("{write} && chmod -x .git/hooks/pre-commit && git commit -m x"),
        format!("{write} && git -c core.hooksPath=/dev/null commit -m x"),
        format!(
            "{write} && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit -m x"
        ),
        format!("{write} && git --config-env=core.hooksPath=HP commit -m x"),
        format!("{write} && git config core.hooksPath /dev/null && git commit -m x"),
        format!("{write} && git config --unset core.hooksPath; git commit --no-verify -m x"),
    ] {
        let (code, _, stderr) = gate_in(&repo, &off, &[]);
        assert_eq!(code, Some(2), "{off}: {stderr}");
        // Writing `core.hooksPath` or codeguard's installed hook is itself one of codeguard's
        // controls, blocked before the rest.
        let own = off.contains("git config") || off.contains(".git/hooks/");
        let why = if own { "changes codeguard's own controls" } else { "Run the write first" };
        assert!(stderr.contains(why), "{off}: {stderr}");
    }
    // A hook that only carries codeguard's marker is not codeguard: no deference to it.
    let hooks = repo.root().join(".git/hooks");
    std::fs::remove_file(hooks.join("reference-transaction")).expect("rm backstop");
    let (code, _, stderr) = gate_in(&repo, &cmd, &[]);
    assert_eq!(code, Some(0), "the genuine pre-commit hook still counts: {stderr}");
    let genuine = std::fs::read_to_string(hooks.join("pre-commit")).expect("hook");
    std::fs::write(hooks.join("pre-commit"), format!("{genuine}# one more line\n")).expect("write");
    let (code, _, stderr) = gate_in(&repo, &cmd, &[]);
    assert_eq!(code, Some(2), "a marked but altered hook: {stderr}");
    assert!(stderr.contains("Run the write first"), "{stderr}");
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\n# codeguard-managed-hook\nexit 0\n").expect("write");
    let (code, _, stderr) = gate_in(&repo, &cmd, &[]);
    assert_eq!(code, Some(2), "a fake hook with the marker: {stderr}");
}

#[test]
fn the_gate_lints_what_a_package_script_or_a_make_target_would_commit() {
    require_tools(&["ruff"]);
    let repo = project();
    repo.write("app.py", BAD_PY);
    for cmd in ["npm run release", "make release", "yarn release", "cd tools && make -C .. release"] {
        let (code, stdout, stderr) = gate_in(&repo, cmd, &[]);
        assert_eq!(code, Some(2), "{cmd}: {stdout}{stderr}");
        assert!(stderr.contains("app.py:1:8: F401"), "{cmd}: {stderr}");
    }
    let (code, _, stderr) = gate_in(&repo, "npm test", &[]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn just_recipes_are_followed_with_their_dependencies() {
    let repo = project();
    repo.write(
        "justfile",
        "msg := \"rel\"\n\nbuild:\n    @echo build\n\nrelease: build && push\n    git commit -am \"{{msg}}\"\n\npush:\n    git push\n",
    );
    let v = explain(&repo.root(), "just release");
    assert_eq!(v["mode"], "push", "{v}");
    assert_eq!(ops(&v), ["commit", "push"]);
    let v = explain(&repo.path("tools"), "just push");
    assert_eq!(v["repos"][0]["ops"][0]["cwd"], repo.root().display().to_string(), "{v}");
    for cmd in ["just", "just build", "just -n release", "just --list"] {
        assert_eq!(explain(&repo.root(), cmd)["guarded"], false, "{cmd}");
    }
}

/// A construct that cannot be seen into may stage and commit whatever the same call wrote, so a
/// write before it is content that cannot be checked now, even when the commit that follows
/// stages nothing itself.
#[test]
fn a_write_before_an_opaque_step_that_may_stage_it_is_denied() {
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    for cmd in [
        format!("echo 'K={key}' > k.txt; $(echo git) add k.txt && git commit -m x"),
        format!("echo 'K={key}' > k.txt; X='git add k.txt'; eval \"$X\"; git commit -m x"),
    ] {
        let repo = repo_with(&[("README.txt", "hello\n")]);
        let (code, stdout, stderr) = gate_in(&repo, &cmd, &[]);
        assert_eq!(code, Some(2), "{stdout}{stderr}");
        assert!(stderr.contains("Run the write first"), "{stderr}");
        assert!(!stdout.contains(&key) && !stderr.contains(&key), "the key leaked: {stdout}{stderr}");
    }
}

/// A script and a package script that run each other never end the analysis: the chain of
/// hops is bounded, and what lies past the bound is UNVERIFIED, not a crash.
#[test]
fn a_cycle_of_scripts_and_package_scripts_is_bounded() {
    let repo = repo_with(&[
        ("package.json", "{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{\"a\":\"./a.sh\"}}\n"),
        ("a.sh", "#!/bin/sh\nnpm run a\ngit commit -am loop\n"),
    ]);
    repo.chmod_x("a.sh");
    let v = explain(&repo.root(), "npm run a");
    assert_eq!(v["guarded"], true, "{v:#}");
    let (code, stdout, stderr) = gate_in(&repo, "npm run a", &[]);
    assert!(matches!(code, Some(0 | 2)), "the hook must answer, not die: {code:?} {stdout}{stderr}");
}

/// A write staged and then committed by a writer that commits the index (`merge --continue`)
/// lands like one taken by `git commit`, and no pre-commit hook checks it there.
#[test]
fn a_write_committed_by_merge_continue_is_denied() {
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    let repo = repo_with(&[("README.txt", "hello\n")]);
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("README.txt", "side\n").commit_all("side");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.txt", "main\n").commit_all("main");
    let out = crate::support::git_command()
        .args(["merge", "-q", "side"])
        .current_dir(repo.root())
        .output()
        .expect("git merge");
    assert!(!out.status.success(), "the merge must stop on the conflict");
    let cmd = format!("echo 'K={key}' > k.txt && git add k.txt README.txt && git merge --continue");
    let (code, stdout, stderr) = gate_in(&repo, &cmd, &[]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("Run the write first"), "{stderr}");
    assert!(!stdout.contains(&key) && !stderr.contains(&key), "the key leaked: {stdout}{stderr}");
}

/// `make -C DIR` / `just -d DIR` with a directory only known at run time runs a Makefile that
/// cannot be read now: UNVERIFIED and guarded, never a silent pass.
#[test]
fn a_make_or_just_directory_known_only_at_run_time_is_unverified() {
    let repo = repo_with(&[("README.txt", "hello\n")]);
    for cmd in ["make -C \"$D\" ship", "make -C ~/p ship", "make --directory=$D", "just -d \"$D\" ship"] {
        let v = explain(&repo.root(), cmd);
        assert_eq!(v["guarded"], true, "{cmd}: {v:#}");
        let notes = v.to_string();
        assert!(notes.contains("only known at run time"), "{cmd}: {v:#}");
    }
}

/// git runs an external `git-NAME` before an alias of the same name: `git ship` with an alias
/// `ship = status` but a `git-ship` program on `PATH` that commits is not the harmless alias.
#[test]
fn an_external_git_command_comes_before_an_alias_of_its_name() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    repo.git(&["config", "alias.ship", "status"]);
    let home = tempfile::tempdir().expect("home");
    let gate = |path: &str| {
        let out = crate::support::assert_untouched(&repo.root(), || {
            crate::support::pre_tool_use(home.path(), &repo.root(), "t-1", "git ship", &[("PATH", path)])
        });
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let path = std::env::var("PATH").unwrap_or_default();
    assert_eq!(gate(&path), (Some(0), String::new()), "the alias alone is `git status`");
    let bin = tempfile::tempdir().expect("bin");
    let program = bin.path().join("git-ship");
    std::fs::write(&program, "#!/bin/sh\ngit commit -qam shipped\n").expect("write");
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("mode");
    let (code, stdout) = gate(&format!("{}:{path}", bin.path().display()));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("UNVERIFIED") && stdout.contains("git-ship"), "git runs the program: {stdout}");
}
