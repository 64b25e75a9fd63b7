//! State under real concurrency: separate processes updating one session file, a reader that
//! must never see half a file, and the `codeguard state` command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use codeguard::env::Env;
use codeguard::state::session::{self, Scope, SessionStats};
use codeguard::verdict::Status;

use crate::support::{TestRepo, codeguard, json_stdout};

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
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(e) => panic!("read: {e}"),
        }
    }
    reads
}
