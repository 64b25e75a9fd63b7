//! State under real concurrency: separate processes updating one session file, a reader that
//! must never see half a file, and the `codeguard state` command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use codeguard::stages::env::Env;
use codeguard::stages::state::session::{self, Scope, SessionStats};

use crate::support::{TestRepo, codeguard, json_stdout, pre_tool_use};

/// Set (to the state directory) in the child processes of the concurrency test.
const WORKER_HOME: &str = "CODEGUARD_TEST_STATE_WORKER_HOME";
/// The worker's number, in the child processes.
const WORKER_ID: &str = "CODEGUARD_TEST_STATE_WORKER_ID";
const WORKERS: usize = 16;
const UPDATES: u64 = 100;

fn scope() -> Scope {
    Scope::new(Some("session-1"), Path::new("/work/tree"))
}

/// Not a test of its own: the body of one child process of
/// `sixteen_processes_update_one_session_file_without_losing_an_update`, which runs this test
/// binary with `--ignored --exact state::state_worker` and the worker variables set.
#[test]
#[ignore = "runs only as a child process of the concurrency test"]
fn state_worker() {
    let (Some(home), Some(id)) = (std::env::var_os(WORKER_HOME), std::env::var(WORKER_ID).ok()) else {
        return;
    };
    let env = Env::from_pairs([("CODEGUARD_HOME", home)]);
    let mut timeouts = 0;
    for _ in 0..UPDATES {
        loop {
            let result = session::update(&env, &scope(), |s| {
                s.languages.entry("all".into()).or_default().total += 1;
                s.languages.entry(format!("worker-{id}")).or_default().total += 1;
            });
            match result {
                Ok(()) => break,
                // The lock was not had within the bound, so nothing was written: try again.
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => timeouts += 1,
                Err(e) => panic!("update failed: {e}"),
            }
        }
    }
    println!("worker {id}: {timeouts} lock timeouts");
}

#[test]
fn sixteen_processes_update_one_session_file_without_losing_an_update() {
    let home = tempfile::tempdir().expect("home");
    let env = Env::from_pairs([("CODEGUARD_HOME", home.path().as_os_str())]);
    let file = session::file(&env, &scope());
    let exe = std::env::current_exe().expect("test binary");
    let done = AtomicBool::new(false);
    let (reads, children) = std::thread::scope(|s| {
        let reader = s.spawn(|| read_while_running(&file, &done));
        let running: Vec<_> = (0..WORKERS)
            .map(|id| {
                Command::new(&exe)
                    .args(["--ignored", "--exact", "state::state_worker", "--nocapture", "--test-threads=1"])
                    .env(WORKER_HOME, home.path())
                    .env(WORKER_ID, id.to_string())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn worker")
            })
            .collect();
        let children: Vec<_> = running.into_iter().map(std::process::Child::wait_with_output).collect();
        done.store(true, Ordering::SeqCst);
        (reader.join().expect("reader"), children)
    });
    for child in children {
        let out = child.expect("worker output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("lock timeouts"), "the worker ran: {stdout}");
        eprintln!("{}", stdout.lines().find(|l| l.contains("lock timeouts")).unwrap_or_default());
    }
    let stats = session::read(&env, &scope());
    assert_eq!(stats.languages["all"].total, WORKERS as u64 * UPDATES, "exact total");
    for id in 0..WORKERS {
        assert_eq!(stats.languages[&format!("worker-{id}")].total, UPDATES, "worker {id}");
    }
    assert!(reads > 0, "the reader observed the file while it was being written");
}

/// Reads the file as fast as it can until `done`: every read must parse completely and the
/// total must never go backwards. Returns how many reads saw the file.
fn read_while_running(file: &PathBuf, done: &AtomicBool) -> usize {
    let mut reads = 0;
    let mut last = 0;
    while !done.load(Ordering::SeqCst) {
        match std::fs::read(file) {
            Ok(bytes) => {
                let stats: SessionStats = serde_json::from_slice(&bytes)
                    .unwrap_or_else(|e| panic!("half-written file observed ({e}): {bytes:?}"));
                let total = stats.languages.get("all").map_or(0, |l| l.total);
                assert!(total >= last, "went backwards: {last} → {total}");
                last = total;
                reads += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => panic!("read: {e}"),
        }
    }
    reads
}

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

#[test]
fn a_second_copy_replays_a_delivered_block_but_never_a_pass() {
    crate::support::require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("README.txt", "hi\n").commit_all("init");
    repo.write("app.py", BAD_PY);
    repo.git(&["add", "app.py"]);
    let home = tempfile::tempdir().expect("home");
    let first = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m x", &[]);
    assert_eq!(first.status.code(), Some(2));
    // The content is fixed between the copies: a replay answers as the first copy did, a fresh
    // check would pass. Another tool call, or another command, is checked afresh.
    repo.write("app.py", GOOD_PY);
    repo.git(&["add", "app.py"]);
    let second = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m x", &[]);
    assert_eq!((second.status.code(), &second.stderr), (Some(2), &first.stderr), "replayed");
    let other_call = pre_tool_use(home.path(), &repo.root(), "t-2", "git commit -m x", &[]);
    assert_eq!(other_call.status.code(), Some(0));
    let other_command = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m y", &[]);
    assert_eq!(other_command.status.code(), Some(0));

    // A pass is never recorded: bad content staged after a pass is blocked under the same id.
    repo.write("app.py", BAD_PY);
    repo.git(&["add", "app.py"]);
    let after_pass = pre_tool_use(home.path(), &repo.root(), "t-2", "git commit -m x", &[]);
    assert_eq!(after_pass.status.code(), Some(2));
}

#[test]
fn bypasses_are_shown_per_session_without_the_command_and_survive_clear() {
    let repo = TestRepo::new();
    repo.write("README.txt", "hi\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let secret_command = "TOKEN=hunter2 git commit -m x";
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", secret_command, &[("CODEGUARD_SKIP_GATE", "1")]);
    assert_eq!(out.status.code(), Some(0));
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();

    let show = |args: &[&str]| {
        let out = codeguard(home.path())
            .args(["state", "show", "--format", "json"])
            .args(args)
            .output()
            .expect("show");
        assert_eq!(out.status.code(), Some(0));
        json_stdout(&out)
    };
    let json = show(&[]);
    let bypasses = json["bypasses"].as_array().expect("bypasses");
    assert_eq!(bypasses.len(), 1, "{json}");
    assert_eq!(bypasses[0]["kind"], "env");
    assert_eq!(bypasses[0]["session"], "s-1");
    assert_eq!(bypasses[0]["repo"], repo.root().to_str().expect("utf-8"));
    assert!(!json.to_string().contains("hunter2"), "the command is never recorded");
    let audit = std::fs::read_to_string(home.path().join(".codeguard/audit.jsonl")).expect("audit");
    assert!(!audit.contains("hunter2") && !audit.contains("git commit"), "{audit}");
    assert_eq!(show(&["--session", "other"])["bypasses"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["trust"][0]["trusted"], true);

    let human = codeguard(home.path()).args(["state", "show"]).output().expect("show");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("bypasses recorded: 1") && text.contains("trusted "), "{text}");

    let clear = codeguard(home.path()).args(["state", "clear"]).output().expect("clear");
    assert!(String::from_utf8_lossy(&clear.stdout).contains("trust decisions and the audit log are kept"));
    let json = show(&[]);
    assert_eq!(json["bypasses"].as_array().map(Vec::len), Some(1), "the audit log survives clear");
    assert_eq!(json["trust"].as_array().map(Vec::len), Some(1), "trust survives clear");
}
