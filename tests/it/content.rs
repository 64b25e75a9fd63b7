//! One content verdict for every entry point: the same hostile surfaces go through the agent
//! gate (`hook pre-tool-use`), git's `pre-commit` hook, `check --staged` and the MCP `check`
//! tool, and each must block on the same safety findings — whatever else about the content
//! could not be rebuilt or linted. Secrets are built from pieces so this file holds none, and
//! no output may ever contain one.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::{
    TestRepo, assert_untouched, codeguard, git_in, git_with_hooks, mcp_command, pre_tool_use,
};

fn aws_key() -> String {
    ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn assert_no_secret(out: &str, what: &str) {
    let key = aws_key();
    assert!(!out.contains(&key) && !out.contains(&key[4..]), "{what} echoed the secret:\n{out}");
}

/// A repository with one commit and `key.txt` (holding an AWS key) staged beside whatever
/// `hostile` adds to the index.
fn repo_with_staged_key(hostile: impl FnOnce(&TestRepo)) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write("key.txt", &format!("aws = {}\n", aws_key()));
    repo.git(&["add", "key.txt"]);
    hostile(&repo);
    repo
}

/// The rule ids and paths of the blocking safety findings of a `check --format json` report.
fn blocking(report: &Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = report["safety"]
        .as_array()
        .expect("safety findings")
        .iter()
        .filter(|f| f["allowed"] == false)
        .map(|f| (f["rule"].as_str().expect("rule").to_owned(), f["path"].as_str().expect("path").to_owned()))
        .collect();
    found.sort();
    found
}

/// Runs every entry point on the staged content of `repo` and asserts each blocks, naming
/// `expected` (rule, path) among its findings; returns the JSON findings of `check --staged`.
fn every_entry_point_blocks(repo: &TestRepo, expected: &[(&str, &str)]) -> Vec<(String, String)> {
    let home = tempfile::tempdir().expect("home");
    let root = repo.root();

    let gate = assert_untouched(&root, || pre_tool_use(home.path(), &root, "t-1", "git commit -m x", &[]));
    let gate_text = text(&gate);
    assert_eq!(gate.status.code(), Some(2), "the agent gate must block:\n{gate_text}");
    for (rule, path) in expected {
        assert!(gate_text.contains(path) && gate_text.contains(rule), "gate: {rule} {path}:\n{gate_text}");
    }
    assert_no_secret(&gate_text, "the agent gate");

    let hook = assert_untouched(&root, || {
        codeguard(home.path()).current_dir(&root).args(["git-hook", "pre-commit"]).output().expect("hook")
    });
    let hook_text = text(&hook);
    assert_eq!(hook.status.code(), Some(1), "git's pre-commit hook must block:\n{hook_text}");
    for (rule, path) in expected {
        assert!(
            hook_text.contains(path) && hook_text.contains(rule),
            "pre-commit: {rule} {path}:\n{hook_text}"
        );
    }
    assert_no_secret(&hook_text, "the pre-commit hook");

    let check = assert_untouched(&root, || {
        codeguard(home.path())
            .current_dir(&root)
            .args(["check", "--staged", "--format", "json"])
            .output()
            .expect("check")
    });
    assert_eq!(check.status.code(), Some(1), "check --staged must fail:\n{}", text(&check));
    assert_no_secret(&text(&check), "check --staged");
    let report: Value = serde_json::from_slice(&check.stdout).expect("json report");
    let found = blocking(&report);
    for (rule, path) in expected {
        assert!(found.contains(&((*rule).to_owned(), (*path).to_owned())), "check: {rule} {path}: {found:?}");
    }

    let sarif = codeguard(home.path())
        .current_dir(&root)
        .args(["check", "--staged", "--format", "sarif"])
        .output()
        .expect("sarif");
    assert_no_secret(&text(&sarif), "SARIF");

    let mcp = mcp_check_staged(home.path(), &root);
    assert_eq!(blocking(&mcp), found, "the MCP check tool reports the same findings");
    assert_eq!(mcp["status"], "FAIL");

    let logs = home.path().join(".codeguard");
    if logs.exists() {
        for entry in walkdir(&logs) {
            let bytes = std::fs::read(&entry).unwrap_or_default();
            assert_no_secret(&String::from_utf8_lossy(&bytes), &entry.display().to_string());
        }
    }
    found
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// One `check` call with `staged: true` over `codeguard mcp`; the structured report.
fn mcp_check_staged(home: &Path, root: &Path) -> Value {
    let mut child = mcp_command(home, &[]).spawn().expect("spawn codeguard mcp");
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "check", "arguments": {"path": root, "staged": true}}}),
    ];
    let mut input = String::new();
    for m in messages {
        input.push_str(&m.to_string());
        input.push('\n');
    }
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write");
        // Keep stdin open until the answer is read: closing it ends the session.
        let stdout = child.stdout.take().expect("stdout");
        let reader = std::io::BufRead::lines(std::io::BufReader::new(stdout));
        for line in reader.map_while(Result::ok) {
            let message: Value = serde_json::from_str(&line).expect("json-rpc line");
            if message["id"] == 2 {
                drop(stdin);
                let _ = child.kill();
                let _ = child.wait();
                assert_no_secret(&line, "the MCP answer");
                return message["result"]["structuredContent"].clone();
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("no answer from codeguard mcp");
}

#[test]
fn a_symlink_leaving_the_repository_does_not_switch_the_scan_off() {
    let repo = repo_with_staged_key(|repo| {
        std::os::unix::fs::symlink("/etc/passwd", repo.path("passwd")).expect("link");
        repo.git(&["add", "passwd"]);
    });
    every_entry_point_blocks(&repo, &[("aws-access-key-id", "key.txt")]);
}

#[test]
fn a_submodule_does_not_switch_the_scan_off() {
    let repo = repo_with_staged_key(|repo| {
        let head = repo.git(&["rev-parse", "HEAD"]);
        repo.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{},vendor/lib", head.trim())]);
    });
    every_entry_point_blocks(&repo, &[("aws-access-key-id", "key.txt")]);
}

#[test]
fn a_file_name_that_is_not_utf8_hides_nothing() {
    let repo = repo_with_staged_key(|repo| {
        let name = OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(repo.root().join(name), format!("k = {}\n", aws_key())).expect("write");
        git_in(&repo.root(), &["add", "-A"]);
    });
    let found = every_entry_point_blocks(&repo, &[("aws-access-key-id", "key.txt")]);
    assert_eq!(found.len(), 2, "the key in the file with the odd name is found too: {found:?}");
}

#[test]
fn more_files_than_the_snapshot_limit_hide_nothing() {
    let repo = repo_with_staged_key(|repo| {
        for i in 0..20_001 {
            let dir = repo.root().join(format!("data/{}", i / 1000));
            if i % 1000 == 0 {
                std::fs::create_dir_all(&dir).expect("mkdir");
            }
            std::fs::write(dir.join(format!("{i}.txt")), "x\n").expect("write");
        }
        repo.git(&["add", "data"]);
    });
    every_entry_point_blocks(&repo, &[("aws-access-key-id", "key.txt")]);
}

#[test]
fn padding_nul_bytes_and_utf16_hide_nothing_at_any_entry_point() {
    let key = aws_key();
    let mut wide = vec![0xFF, 0xFE];
    for unit in format!("aws = {key}\n").encode_utf16() {
        wide.extend(unit.to_le_bytes());
    }
    let padded = [vec![b'#'; 3 * 1024 * 1024], format!("\naws = {key}\n").into_bytes()].concat();
    let nul = [b"\0".to_vec(), format!("aws = {key}\n").into_bytes()].concat();
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    for (name, bytes) in [("padded.py", &padded), ("nul.txt", &nul), ("wide.txt", &wide)] {
        std::fs::write(repo.path(name), bytes).expect("write");
    }
    repo.git(&["add", "-A"]);
    every_entry_point_blocks(
        &repo,
        &[
            ("aws-access-key-id", "nul.txt"),
            ("aws-access-key-id", "padded.py"),
            ("aws-access-key-id", "wide.txt"),
        ],
    );
}

/// A repository whose `main` tracks a local bare `origin`, with a key added in one unpushed
/// commit and deleted in the next: the tip tree is clean.
fn key_in_history() -> (TestRepo, tempfile::TempDir) {
    let remote = tempfile::tempdir().expect("remote");
    git_in(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.git(&["remote", "add", "origin", remote.path().to_str().expect("utf-8")]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    repo.write("config.txt", &format!("aws = {}\n", aws_key())).commit_all("add config");
    repo.write("config.txt", "aws = from the environment\n").commit_all("remove the key");
    (repo, remote)
}

#[test]
fn a_key_added_and_removed_inside_the_pushed_range_blocks_the_agent_gate() {
    let (repo, _remote) = key_in_history();
    let home = tempfile::tempdir().expect("home");
    let out =
        assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", "git push", &[]));
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(shown.contains("config.txt") && shown.contains("aws-access-key-id"), "{shown}");
    assert!(shown.contains("added in commit"), "says where the key is: {shown}");
    assert_no_secret(&shown, "the push gate");

    // A new branch pushed for the first time carries the same commits.
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let out = pre_tool_use(home.path(), &repo.root(), "t-2", "git push -u origin feature", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn a_key_added_and_removed_inside_the_pushed_range_blocks_the_pre_push_hook() {
    let (repo, remote) = key_in_history();
    let home = tempfile::tempdir().expect("home");
    let install = codeguard(home.path())
        .current_dir(repo.root())
        .args(["install", "--git-hooks"])
        .output()
        .expect("install");
    assert_eq!(install.status.code(), Some(0), "{}", text(&install));
    let before = git_in(remote.path(), &["rev-parse", "main"]);
    let push = git_with_hooks(&repo.root(), home.path(), &["push", "origin", "main"]);
    let shown = text(&push);
    assert_ne!(push.status.code(), Some(0), "the push went through:\n{shown}");
    assert!(shown.contains("config.txt") && shown.contains("aws-access-key-id"), "{shown}");
    assert_no_secret(&shown, "the pre-push hook");
    assert_eq!(git_in(remote.path(), &["rev-parse", "main"]), before, "nothing reached the remote");
}

#[test]
fn a_clean_history_still_pushes() {
    let (repo, _remote) = key_in_history();
    repo.git(&["reset", "-q", "--hard", "HEAD~2"]);
    repo.write("notes.txt", "clean\n").commit_all("clean");
    let home = tempfile::tempdir().expect("home");
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", "git push", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Three repositories side by side: `clean` (where the agent's shell is), `staged`, whose index
/// holds `key.txt` with an AWS key, and `alt`, whose own index is clean but whose index file
/// `alt` holds the key.
struct Three {
    _parent: tempfile::TempDir,
    clean: std::path::PathBuf,
    staged: std::path::PathBuf,
    alt: std::path::PathBuf,
}

fn three_repositories() -> Three {
    let parent = tempfile::tempdir().expect("parent");
    let base = parent.path().canonicalize().expect("canonical");
    for name in ["clean", "staged", "alt"] {
        std::fs::create_dir(base.join(name)).expect("mkdir");
        git_in(&base.join(name), &["init", "-q", "-b", "main"]);
        std::fs::write(base.join(name).join("README.txt"), "hello\n").expect("write");
        git_in(&base.join(name), &["add", "-A"]);
        git_in(&base.join(name), &["commit", "-q", "-m", "init"]);
        std::fs::create_dir(base.join(name).join("sub")).expect("mkdir");
    }
    for name in ["staged", "alt"] {
        std::fs::write(base.join(name).join("key.txt"), format!("aws = {}\n", aws_key())).expect("write");
    }
    git_in(&base.join("staged"), &["add", "key.txt"]);
    let status = crate::support::git_command()
        .args(["add", "key.txt"])
        .current_dir(base.join("alt"))
        .env("GIT_INDEX_FILE", base.join("alt/alt"))
        .status()
        .expect("git add");
    assert!(status.success());
    Three { clean: base.join("clean"), staged: base.join("staged"), alt: base.join("alt"), _parent: parent }
}

#[test]
fn a_redirected_repository_or_index_is_the_one_that_is_gated() {
    let r = three_repositories();
    let home = tempfile::tempdir().expect("home");
    let (o, a) = (r.staged.display(), r.alt.display());
    let commands = [
        format!("git --git-dir={o}/.git --work-tree={o} commit -m x"),
        format!("git --git-dir {o}/.git --work-tree {o} commit -m x"),
        format!("GIT_DIR={o}/.git GIT_WORK_TREE={o} git commit -m x"),
        format!("env GIT_DIR={o}/.git GIT_WORK_TREE={o} git commit -m x"),
        format!("export GIT_DIR={o}/.git GIT_WORK_TREE={o}; git commit -m x"),
        format!("cd {a} && GIT_INDEX_FILE=alt git commit -m x"),
        format!("cd {a}/sub && GIT_INDEX_FILE=alt git commit -m x"),
        format!("cd {a} && export GIT_INDEX_FILE={a}/alt && git commit -m x"),
        format!(
            "GIT_INDEX_FILE={a}/new git -C {a} add key.txt && GIT_INDEX_FILE={a}/new git -C {a} commit -m x"
        ),
    ];
    for command in &commands {
        let out = assert_untouched(&r.staged, || {
            assert_untouched(&r.alt, || {
                assert_untouched(&r.clean, || pre_tool_use(home.path(), &r.clean, "t-1", command, &[]))
            })
        });
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(2), "{command} must be blocked:\n{shown}");
        assert!(shown.contains("key.txt") && shown.contains("aws-access-key-id"), "{command}:\n{shown}");
        assert_no_secret(&shown, command);
    }
    // `env -i` drops what was exported: the commit runs in the shell's own (clean) repository.
    let cleared = format!("export GIT_DIR={o}/.git GIT_WORK_TREE={o}; env -i git commit -m x");
    let out = pre_tool_use(home.path(), &r.clean, "t-3", &cleared, &[]);
    assert_eq!(out.status.code(), Some(0), "{cleared}: {}", text(&out));
    // `alt`'s own index is clean: the same commit without the redirection passes.
    let out = pre_tool_use(home.path(), &r.alt, "t-2", "git commit -m x", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_redirection_that_cannot_be_bound_is_denied_with_the_reason() {
    let r = three_repositories();
    let home = tempfile::tempdir().expect("home");
    let o = r.staged.display();
    for (command, reason) in [
        ("GIT_DIR=$REPO git commit -m x".to_owned(), "only known at run time"),
        (format!("GIT_DIR={o}/.git git commit -m x"), "not that worktree's own repository"),
        (format!("git --work-tree={o}/sub commit -m x"), "the top of the worktree"),
    ] {
        let out = pre_tool_use(home.path(), &r.clean, "t-1", &command, &[]);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(2), "{command}:\n{shown}");
        assert!(shown.contains(reason), "{command}: {reason}:\n{shown}");
    }
}

#[test]
fn an_untracked_file_whose_name_is_not_utf8_is_scanned_when_the_command_stages_it() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    let name = OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(repo.root().join(name), format!("k = {}\n", aws_key())).expect("write");
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || {
        pre_tool_use(home.path(), &repo.root(), "t-1", "git add -A && git commit -m x", &[])
    });
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(shown.contains("aws-access-key-id"), "{shown}");
    assert_no_secret(&shown, "the gate");
}

#[test]
fn a_secret_in_the_command_itself_is_never_echoed() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let key = aws_key();
    for command in [
        format!("git commit -m 'add {key}' --pathspec-from-file=list"),
        format!("git -C /nonexistent-{key} commit -m x"),
        format!("cd /nonexistent && git commit -m '{key}'"),
    ] {
        let out = pre_tool_use(home.path(), &repo.root(), "t-1", &command, &[]);
        assert_no_secret(&text(&out), &command.replace(&key, "<key>"));
    }
}

/// `key_in_history`, with the two commits moved to a branch `side` (pushed nowhere) and
/// `main` back at the pushed commit.
fn key_on_a_side_branch() -> (TestRepo, tempfile::TempDir) {
    let (repo, remote) = key_in_history();
    repo.git(&["branch", "side"]);
    repo.git(&["reset", "-q", "--hard", "origin/main"]);
    repo.git(&["tag", "v1", "side"]);
    (repo, remote)
}

#[test]
fn every_ref_a_push_names_is_scanned_not_only_the_current_branch() {
    let (repo, _remote) = key_on_a_side_branch();
    let home = tempfile::tempdir().expect("home");
    for command in [
        "git push origin side",
        "git push origin side:main",
        "git push origin +side:refs/heads/other",
        "git push origin 'refs/heads/*:refs/heads/*'",
        "git push --all origin",
        "git push --mirror origin",
        "git push --tags origin",
        "git push origin v1",
        "git push origin side~0:main",
    ] {
        let out =
            assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, &[]));
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(2), "{command} must be blocked:\n{shown}");
        assert!(shown.contains("aws-access-key-id"), "{command}:\n{shown}");
    }
    let out = pre_tool_use(home.path(), &repo.root(), "t-2", "git push origin main", &[]);
    assert_eq!(out.status.code(), Some(0), "main carries nothing new: {}", text(&out));
}

#[test]
fn history_already_on_one_remote_is_scanned_when_pushed_to_another() {
    let (repo, origin) = key_in_history();
    repo.git(&["push", "-q", "--no-verify", "origin", "main"]);
    let public = tempfile::tempdir().expect("public");
    git_in(public.path(), &["init", "-q", "--bare", "-b", "main"]);
    repo.git(&["remote", "add", "public", public.path().to_str().expect("utf-8")]);
    let home = tempfile::tempdir().expect("home");
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", "git push public main", &[]);
    assert_eq!(out.status.code(), Some(2), "the gate: {}", text(&out));
    let install = codeguard(home.path())
        .current_dir(repo.root())
        .args(["install", "--git-hooks"])
        .output()
        .expect("install");
    assert_eq!(install.status.code(), Some(0));
    let push = git_with_hooks(&repo.root(), home.path(), &["push", "public", "main"]);
    assert_ne!(push.status.code(), Some(0), "the pre-push hook: {}", text(&push));
    assert!(text(&push).contains("aws-access-key-id"), "{}", text(&push));
    drop(origin);
}

#[test]
fn an_agent_cannot_commit_an_allowance_a_person_can() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write(".codeguard-allow", "secret:0123456789abcdef\n");
    let blob = repo.git(&["hash-object", "-w", ".codeguard-allow"]).trim().to_owned();
    let branch = repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    let home = tempfile::tempdir().expect("home");
    // Every route, seen by the agent gate before it runs (no backstop in this session).
    for (staged, command) in [
        (true, "git commit -m allow".to_owned()),
        (
            false,
            format!(
                "git update-index --add --cacheinfo 100644,{blob},.codeguard-allow && git commit --no-verify -m x"
            ),
        ),
        (true, format!("git update-ref refs/heads/{branch} $(git stash create)")),
        (false, "git add .codeguard-allow && S=$(git stash create) && git reset --soft $S".to_owned()),
        (
            true,
            format!(
                "git commit-tree $(git write-tree) -p HEAD -m x | xargs git update-ref refs/heads/{branch}"
            ),
        ),
    ] {
        if staged {
            repo.git(&["add", ".codeguard-allow"]);
        }
        let out =
            assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", &command, &[]));
        assert_eq!(out.status.code(), Some(2), "{command}: {}", text(&out));
        assert!(text(&out).contains("allow-list-change"), "{command}: {}", text(&out));
        let _ = repo.git(&["reset", "-q"]);
    }
    repo.git(&["add", ".codeguard-allow"]);
    let hook = codeguard(home.path())
        .current_dir(repo.root())
        .args(["git-hook", "pre-commit"])
        .output()
        .expect("hook");
    assert_eq!(hook.status.code(), Some(0), "a person's own commit goes ahead: {}", text(&hook));
}
