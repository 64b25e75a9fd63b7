//! No linter outlives codeguard: a signal to codeguard kills every child group and exits with
//! the entry point's code, SIGKILL is answered by the watchdog, and a linter's double-forked
//! daemon is killed at the end of its job without holding the run. Real binary, real repos,
//! fake linters (shell scripts in a trusted `codeguard.json`) that record their process ids.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{TestRepo, codeguard, git_env, json_stdout};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

/// A repository whose python linter is `script`, trusted in `home`; `git add -A` done.
fn repo_with_linter(script: &str, home: &Path) -> TestRepo {
    let repo = TestRepo::new();
    // The project's own lint command is in the base commit (an agent's commit is linted with it).
    repo.write("README.txt", "hello\n")
        .write("lint.sh", script)
        .chmod_x("lint.sh")
        .write("codeguard.json", r#"{"languages": {"python": {"lint": ["./lint.sh", "{files}"]}}}"#)
        .commit_all("init");
    repo.write("app.py", GOOD_PY);
    repo.git(&["add", "-A"]);
    codeguard(home).arg("trust").arg(repo.root()).assert().success();
    repo
}

/// The real binary with the fixed git environment, `PIDDIR` for the fake linter, piped stdio.
fn spawn(home: &Path, pids: &Path, args: &[&str], stdin: &str) -> Child {
    spawn_in(home, pids, args, stdin, &std::env::temp_dir())
}

fn spawn_in(home: &Path, pids: &Path, args: &[&str], stdin: &str, cwd: &Path) -> Child {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("codeguard"))
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEGUARD_HOME", home.join(".codeguard"))
        .env("PIDDIR", pids)
        .envs(git_env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn codeguard");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("payload");
    drop(input);
    child
}

/// Waits (at most 30 s) until the linter has written every named pid file; returns the pids.
/// Each entry is `pid@start` (the start time from `/proc/<pid>/stat`, when the process is still
/// there), so a pid reused by another test's process is never taken for ours, nor killed.
fn wait_for_pids(dir: &Path, names: &[&str]) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let pids: Vec<String> = names
            .iter()
            .filter_map(|n| std::fs::read_to_string(dir.join(n)).ok())
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .map(|p| match start_time(&p) {
                Some(start) => format!("{p}@{start}"),
                None => p,
            })
            .collect();
        if pids.len() == names.len() {
            return pids;
        }
        assert!(Instant::now() < until, "the linter never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Field 22 of `/proc/<pid>/stat`: when the process started (clock ticks since boot).
fn start_time(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.get(stat.rfind(')')? + 2..)?;
    after.split_whitespace().nth(19).map(str::to_owned)
}

/// Whether the process `entry` (`pid@start`, or a bare pid) exists, is not a zombie, and is the
/// same process (same start time).
fn is_running(entry: &str) -> bool {
    let (pid, start) = entry.split_once('@').map_or((entry, None), |(p, s)| (p, Some(s)));
    let alive = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')').and_then(|i| stat.get(i + 2..i + 3)).is_some_and(|state| state != "Z")
    });
    alive && start.is_none_or(|s| start_time(pid).as_deref() == Some(s))
}

/// Asserts that none of `pids` is running within a bounded wait (5 s), then kills survivors so
/// a failing test leaves nothing behind.
fn assert_all_gone(pids: &[String]) {
    let until = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| is_running(p)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors: Vec<&String> = pids.iter().filter(|p| is_running(p)).collect();
    for entry in &survivors {
        let pid = entry.split('@').next().unwrap_or(entry);
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    assert!(survivors.is_empty(), "processes survived codeguard: {survivors:?}");
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status();
    assert!(status.expect("kill").success());
}

/// A linter that runs forever with a second member in its group and records both.
const HANGING: &str =
    "#!/bin/sh\necho $$ > \"$PIDDIR/leader\"\nsleep 300 &\necho $! > \"$PIDDIR/member\"\nwait\n";

#[test]
fn sigterm_mid_lint_kills_the_linter_group_and_the_hook_fails_open() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    let script =
        format!("#!/bin/sh\npwd > \"$PIDDIR/snapshot\"\n{}", HANGING.trim_start_matches("#!/bin/sh\n"));
    let repo = repo_with_linter(&script, home.path());
    let payload = serde_json::json!({
        "session_id": "s-1", "tool_use_id": "t-1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git commit -m x"}, "cwd": repo.root(),
    });
    let before = repo.state();
    let child = spawn(home.path(), pids.path(), &["hook", "pre-tool-use"], &payload.to_string());
    let running = wait_for_pids(pids.path(), &["leader", "member", "snapshot"]);
    let snapshot = std::fs::read_to_string(pids.path().join("snapshot")).expect("cwd");
    assert!(snapshot.contains("codeguard-snapshot-"), "the linter runs in the snapshot: {snapshot}");
    signal(&child, "TERM");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "the hook fails open on SIGTERM: {out:?}");
    assert!(!Path::new(snapshot.trim()).exists(), "the snapshot directory {snapshot} was left behind");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert_eq!(
        stderr,
        "codeguard: stopped by signal 15; every check it started was killed\n\
         [codeguard] internal error ignored (fail-open): stopped by a signal\n"
    );
    assert_all_gone(&running);
    assert!(repo.state() == before, "the repository was modified");
}

#[test]
fn sigint_mid_check_kills_the_linter_group_and_check_reports_incomplete() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    let repo = repo_with_linter(HANGING, home.path());
    let root = repo.root().display().to_string();
    let child = spawn(home.path(), pids.path(), &["check", &root], "");
    let running = wait_for_pids(pids.path(), &["leader", "member"]);
    signal(&child, "INT");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(3), "check never claims success: {out:?}");
    assert_all_gone(&running);
}

#[test]
fn sigterm_mid_pre_commit_kills_the_linter_group_and_fails_closed_with_the_bypass() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    let repo = repo_with_linter(HANGING, home.path());
    let child = spawn_in(home.path(), pids.path(), &["git-hook", "pre-commit"], "", &repo.root());
    let running = wait_for_pids(pids.path(), &["leader", "member"]);
    signal(&child, "TERM");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "git's hook fails closed: {out:?}");
    assert!(
        stderr.starts_with("codeguard: stopped by signal 15; every check it started was killed\n")
            && stderr.contains("git commit --no-verify"),
        "{stderr}"
    );
    assert_all_gone(&running);
}

#[test]
fn sigkill_of_codeguard_still_kills_the_linter_group_and_what_escaped_it() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    let script = "#!/bin/sh\necho $$ > \"$PIDDIR/leader\"\nsleep 300 &\necho $! > \"$PIDDIR/member\"\n\
                  setsid sleep 300 < /dev/null > /dev/null 2>&1 &\necho $! > \"$PIDDIR/escaped\"\nwait\n";
    let repo = repo_with_linter(script, home.path());
    let root = repo.root().display().to_string();
    let child = spawn(home.path(), pids.path(), &["check", &root], "");
    let running = wait_for_pids(pids.path(), &["leader", "member", "escaped"]);
    signal(&child, "KILL");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), None, "SIGKILL cannot be caught");
    assert_all_gone(&running);
}

#[test]
fn a_double_forked_daemon_is_killed_at_the_end_of_its_job_and_does_not_hold_the_run() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    // The daemon keeps the linter's stdout and stderr open: waiting for them would hold the run.
    // `setsid -f` forks, so the daemon re-parents when its parent exits; the linter waits until
    // the daemon is out of its group (it wrote its pid after `setsid`) before it exits.
    let script = "#!/bin/sh\nsetsid -f sh -c 'echo $$ > \"$PIDDIR/daemon\"; exec sleep 300'\n\
                  while [ ! -s \"$PIDDIR/daemon\" ]; do sleep 0.05; done\necho linted\nexit 0\n";
    let repo = repo_with_linter(script, home.path());
    let root = repo.root().display().to_string();
    let child = spawn(home.path(), pids.path(), &["check", "--format", "json", &root], "");
    let out = child.wait_with_output().expect("wait");
    let daemon = wait_for_pids(pids.path(), &["daemon"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json = json_stdout(&out);
    assert_eq!(json["languages"][0]["status"], "PASS", "{json:#}");
    let took = json["languages"][0]["duration_ms"].as_u64().expect("duration");
    assert_all_gone(&daemon);
    assert!(took < 1500, "the daemon's open pipes held the job for {took} ms");
}

#[test]
fn a_job_that_ends_never_kills_the_daemon_of_a_job_still_running() {
    let home = tempfile::tempdir().expect("home");
    let pids = tempfile::tempdir().expect("pids");
    // python's linter needs its daemon alive until it is done; shell's linter ends at once,
    // while python's still runs.
    let needs_daemon = "#!/bin/sh\nsetsid -f sh -c 'echo $$ > \"$PIDDIR/daemon\"; exec sleep 300' > /dev/null 2>&1\n\
                        while [ ! -s \"$PIDDIR/daemon\" ]; do sleep 0.05; done\n\
                        while [ ! -e \"$PIDDIR/quick-done\" ]; do sleep 0.05; done\nsleep 0.5\n\
                        kill -0 \"$(cat \"$PIDDIR/daemon\")\" || { echo 'my daemon was killed'; exit 1; }\n";
    let repo = repo_with_linter(needs_daemon, home.path());
    repo.write("quick.sh", "#!/bin/sh\ntouch \"$PIDDIR/quick-done\"\n").chmod_x("quick.sh").write(
        "codeguard.json",
        r#"{"languages": {"python": {"lint": ["./lint.sh", "{files}"]}, "shell": {"lint": ["./quick.sh", "{files}"]}}}"#,
    );
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let root = repo.root().display().to_string();
    let child = spawn(home.path(), pids.path(), &["check", "--jobs", "2", "--format", "json", &root], "");
    let out = child.wait_with_output().expect("wait");
    let daemon = wait_for_pids(pids.path(), &["daemon"]);
    assert_all_gone(&daemon);
    let json = json_stdout(&out);
    let statuses: Vec<(&str, &str)> = json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| (l["language"].as_str().unwrap_or(""), l["status"].as_str().unwrap_or("")))
        .collect();
    assert!(statuses.contains(&("python", "PASS")) && statuses.contains(&("shell", "PASS")), "{json:#}");
}
