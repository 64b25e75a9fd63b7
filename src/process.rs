//! The only place that spawns processes.
//!
//! In: a [`Cmd`] (argv, working directory, environment, deadline, output cap).
//! Out: a [`Finished`] value — a timeout, a missing tool or an output flood is a result, not an
//! error. Every child gets a null stdin and its own process group; stdout and stderr are drained
//! concurrently into one capped buffer; at the deadline the whole group gets SIGTERM, then
//! SIGKILL after a short grace period; when the child exits, whatever it left behind in its
//! group is killed too, so no orphan survives.
//! Never: runs a shell unless the argv itself is `bash -c …`.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait_timeout::ChildExt;

/// Default cap on captured output per process (stdout and stderr together).
pub const DEFAULT_OUTPUT_CAP: usize = 16 * 1024 * 1024;
/// How long a terminated group gets before it is killed.
const GRACE: Duration = Duration::from_millis(500);
/// How long to wait for the output pipes to close once the group is gone.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// A command to run.
#[derive(Debug, Clone)]
pub struct Cmd {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The complete environment of the child (nothing is inherited implicitly).
    pub env: Vec<(String, OsString)>,
    /// Wall-clock limit.
    pub deadline: Duration,
    /// Cap on captured output, in bytes.
    pub output_cap: usize,
}

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (not ours).
    Signalled(i32),
    /// It ran past the deadline and its group was killed.
    TimedOut,
    /// The program does not exist.
    NotFound,
    /// The program exists but could not be started.
    CannotStart(String),
}

/// The result of running a [`Cmd`].
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// stdout and stderr, interleaved in arrival order, up to the cap.
    pub output: Vec<u8>,
    /// The output went past the cap (the excess was read and discarded).
    pub overflowed: bool,
    /// Wall-clock time.
    pub duration: Duration,
    /// The child's process id (0 when it never started).
    pub pid: u32,
}

impl Finished {
    /// The output as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}

impl Cmd {
    /// A command with the default output cap.
    pub fn new(argv: Vec<String>, cwd: PathBuf, env: Vec<(String, OsString)>, deadline: Duration) -> Self {
        Self { argv, cwd, env, deadline, output_cap: DEFAULT_OUTPUT_CAP }
    }

    /// Runs the command to completion or to its deadline.
    pub fn run(&self) -> Finished {
        let started = Instant::now();
        let failed = |ending| Finished {
            ending,
            output: Vec::new(),
            overflowed: false,
            duration: started.elapsed(),
            pid: 0,
        };
        let Some((program, args)) = self.argv.split_first() else {
            return failed(Ending::CannotStart("empty command".into()));
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return failed(Ending::NotFound),
            Err(e) => return failed(Ending::CannotStart(e.to_string())),
        };
        let capture = Capture::start(&mut child, self.output_cap);
        let ending = wait_with_deadline(&mut child, self.deadline);
        kill_group(&child, Signal::KILL);
        let (output, overflowed) = capture.finish();
        Finished { ending, output, overflowed, duration: started.elapsed(), pid: child.id() }
    }
}

/// Waits for the child; at the deadline terminates, then kills, its whole process group.
fn wait_with_deadline(child: &mut Child, deadline: Duration) -> Ending {
    match child.wait_timeout(deadline) {
        Ok(Some(status)) => status_ending(status),
        Ok(None) => {
            kill_group(child, Signal::TERM);
            if !matches!(child.wait_timeout(GRACE), Ok(Some(_))) {
                kill_group(child, Signal::KILL);
                let _ = child.wait();
            }
            Ending::TimedOut
        }
        Err(e) => {
            kill_group(child, Signal::KILL);
            let _ = child.wait();
            Ending::CannotStart(format!("waiting failed: {e}"))
        }
    }
}

fn status_ending(status: std::process::ExitStatus) -> Ending {
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(signal)) => Ending::Signalled(signal),
        (None, None) => Ending::CannotStart("no exit status".into()),
    }
}

/// Sends a signal to the child's process group (the child is its leader). Errors mean the group
/// is already gone.
fn kill_group(child: &Child, signal: Signal) {
    if let Some(pid) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(pid, signal);
    }
}

/// Output captured from both pipes into one capped buffer, drained on two threads.
struct Capture {
    buffer: Arc<Mutex<(Vec<u8>, bool)>>,
    done: mpsc::Receiver<()>,
    readers: usize,
}

impl Capture {
    fn start(child: &mut Child, cap: usize) -> Self {
        let buffer = Arc::new(Mutex::new((Vec::new(), false)));
        let (tx, done) = mpsc::channel();
        let mut readers = 0;
        let pipes: [Option<Box<dyn Read + Send>>; 2] = [
            child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
            child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        ];
        for pipe in pipes.into_iter().flatten() {
            readers += 1;
            let buffer = Arc::clone(&buffer);
            let tx = tx.clone();
            std::thread::spawn(move || {
                drain(pipe, &buffer, cap);
                let _ = tx.send(());
            });
        }
        Self { buffer, done, readers }
    }

    /// Waits (boundedly) for both pipes to close and returns what was captured. A pipe held open
    /// by a process that escaped the group is abandoned rather than waited on forever.
    fn finish(self) -> (Vec<u8>, bool) {
        let until = Instant::now() + DRAIN_WAIT;
        for _ in 0..self.readers {
            let left = until.saturating_duration_since(Instant::now());
            if self.done.recv_timeout(left).is_err() {
                break;
            }
        }
        let guard = self.buffer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (guard.0.clone(), guard.1)
    }
}

fn drain(mut pipe: Box<dyn Read + Send>, buffer: &Mutex<(Vec<u8>, bool)>, cap: usize) {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut guard = buffer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let room = cap.saturating_sub(guard.0.len());
                let take = room.min(n);
                guard.0.extend_from_slice(&chunk[..take]);
                if take < n {
                    guard.1 = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, deadline: Duration) -> Finished {
        let env = vec![("PATH".to_owned(), std::env::var_os("PATH").unwrap_or_default())];
        Cmd::new(vec!["sh".into(), "-c".into(), script.into()], std::env::temp_dir(), env, deadline).run()
    }

    #[test]
    fn exit_codes_and_output_are_captured() {
        let done = sh("echo out; echo err >&2; exit 3", Duration::from_secs(10));
        assert_eq!(done.ending, Ending::Exited(3));
        let text = done.text();
        assert!(text.contains("out") && text.contains("err"), "{text}");
    }

    #[test]
    fn missing_programs_are_a_result() {
        let cmd = Cmd::new(
            vec!["codeguard-no-such-tool".into()],
            std::env::temp_dir(),
            vec![],
            Duration::from_secs(5),
        );
        assert_eq!(cmd.run().ending, Ending::NotFound);
    }

    #[test]
    fn output_is_capped_and_drained() {
        let env = vec![("PATH".to_owned(), std::env::var_os("PATH").unwrap_or_default())];
        let mut cmd = Cmd::new(
            vec!["sh".into(), "-c".into(), "head -c 3000000 /dev/zero".into()],
            std::env::temp_dir(),
            env,
            Duration::from_secs(20),
        );
        cmd.output_cap = 1000;
        let done = cmd.run();
        assert_eq!(done.ending, Ending::Exited(0), "a full pipe never deadlocks the child");
        assert!(done.overflowed);
        assert_eq!(done.output.len(), 1000);
    }

    #[test]
    fn the_deadline_kills_the_whole_group() {
        let started = Instant::now();
        let done = sh("sleep 30 & sleep 30; wait", Duration::from_millis(300));
        assert_eq!(done.ending, Ending::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(live_members(done.pid), Vec::<u32>::new(), "no process of the group survives");
    }

    /// Processes of a group that are still running (zombies awaiting reaping are dead).
    fn live_members(group: u32) -> Vec<u32> {
        let mut live = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            let Some(after_name) = stat.rfind(')').map(|i| &stat[i + 2..]) else { continue };
            let fields: Vec<&str> = after_name.split(' ').collect();
            if fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group) && fields[0] != "Z" {
                live.extend(entry.file_name().to_str().and_then(|p| p.parse::<u32>().ok()));
            }
        }
        live
    }
}
