//! The only place that spawns processes.
//!
//! In: a [`Cmd`] (argv, working directory, environment, deadline, output cap).
//! Out: a [`Finished`] value — a timeout, a missing tool or an output flood is a result, not an
//! error. Every child gets a null stdin and its own process group; stdout and stderr are drained
//! concurrently into one capped buffer; at the deadline the whole group gets SIGTERM, then
//! SIGKILL after a short grace period; when the child exits, whatever it left behind in its
//! group is killed too, so no orphan survives.
//! Never: runs a shell unless the argv itself is `bash -c …`.
//!
//! **Supervision** (armed by the entry point with [`arm`], set up on the first spawn only, so a
//! run that spawns nothing starts no thread and installs no handler): every live child group is
//! in one process-wide registry. SIGTERM, SIGINT and SIGHUP are caught on a thread
//! (`signal-hook`) that kills every registered group, removes the registered snapshot directories
//! ([`remove_on_signal`]) and exits with the entry point's code. A
//! watchdog process (`codeguard __watchdog`, its own group) is told every group on a pipe; when
//! codeguard dies in any way, SIGKILL included, the pipe closes and the watchdog kills the groups
//! still registered and, on Linux, every process carrying this run's marker variable
//! ([`MARKER_VAR`], `RUN.JOB`) in its environment. On Linux codeguard is also a child subreaper:
//! a daemon a linter double-forks re-parents to codeguard and is killed and reaped when its own job
//! ends (found by its job's marker, so parallel jobs never kill each other's daemons), before the
//! output pipes it may hold are waited on. The parent-death signal is not set: that needs code
//! between fork and exec (`pre_exec`), which is `unsafe`.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::io::Write as _;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::ChildStdin;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait_timeout::ChildExt;

/// Default cap on captured output per process (stdout and stderr together).
pub(crate) const DEFAULT_OUTPUT_CAP: usize = 16 * 1024 * 1024;
/// How long a terminated group gets before it is killed.
const GRACE: Duration = Duration::from_millis(500);
/// How long to wait for the output pipes to close once the group is gone.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// A command to run.
#[derive(Debug, Clone)]
pub(crate) struct Cmd {
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
pub(crate) enum Ending {
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
pub(crate) struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// stdout and stderr, interleaved in arrival order, up to the cap.
    pub output: Vec<u8>,
    /// The output went past the cap (the excess was read and discarded).
    pub overflowed: bool,
    /// Wall-clock time.
    pub duration: Duration,
    /// When it was started (to add up parts that ran side by side as the span they took).
    pub started: Instant,
    /// The child's process id (0 when it never started).
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the process-group tests"))]
    pub pid: u32,
}

impl Finished {
    /// The output as text (lossy).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }
}

impl Cmd {
    /// A command with the default output cap.
    pub(crate) fn new(
        argv: Vec<String>,
        cwd: PathBuf,
        env: Vec<(String, OsString)>,
        deadline: Duration,
    ) -> Self {
        Self { argv, cwd, env, deadline, output_cap: DEFAULT_OUTPUT_CAP }
    }

    /// Where a bare program name is on the child's `PATH` (its absolute directories only: a
    /// relative one would be the child's directory's own program, the repository's): `None` for
    /// a name with a slash, without a `PATH`, or not found.
    fn on_child_path(&self, program: &str) -> Option<PathBuf> {
        if program.contains('/') || program.is_empty() {
            return None;
        }
        let path = self.env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v)?;
        crate::env::search_path(path, program)
    }

    /// Runs the command to completion or to its deadline.
    pub(crate) fn run(&self) -> Finished {
        let started = Instant::now();
        let failed = |ending| Finished {
            ending,
            output: Vec::new(),
            overflowed: false,
            duration: started.elapsed(),
            started,
            pid: 0,
        };
        let Some((program, args)) = self.argv.split_first() else {
            return failed(Ending::CannotStart("empty command".into()));
        };
        let marker = supervise();
        let job = marker.map(|run| format!("{run}.{}", NEXT_JOB.fetch_add(1, Ordering::Relaxed)));
        let command = |program: &std::ffi::OsStr| {
            #[expect(clippy::disallowed_methods, reason = "the one spawner")]
            let mut command = Command::new(program);
            command
                .args(args)
                .current_dir(&self.cwd)
                .env_clear()
                .envs(self.env.iter().map(|(k, v)| {
                    // The child's own searches (a linter starting its helpers) never look in a
                    // relative directory either.
                    let v = if k == "PATH" { crate::env::absolute_path_entries(v) } else { v.clone() };
                    (k, v)
                }))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0);
            if let Some(job) = &job {
                command.env(MARKER_VAR, job);
            }
            command
        };
        // The program is looked up on the child's own `PATH` here, not by the child: the
        // standard library starts a bare name under a new `PATH` by forking this whole process
        // (page tables and all, which grow with a large index in memory), a path by posix_spawn.
        let found = self.on_child_path(program);
        let mut first = match &found {
            Some(path) => {
                let mut command = command(path.as_os_str());
                command.arg0(program);
                command
            }
            None => command(program.as_ref()),
        };
        // Spawned under the registry lock, so no sweep can mistake the new child for an orphan.
        let spawned = {
            let mut live = registry();
            let mut spawned = first.spawn();
            // A script without a `#!` line runs only through a shell-like path search (as
            // `/bin/sh` script): it is started again by its bare name.
            if found.is_some()
                && spawned
                    .as_ref()
                    .is_err_and(|e| e.raw_os_error() == Some(rustix::io::Errno::NOEXEC.raw_os_error()))
            {
                spawned = command(program.as_ref()).spawn();
            }
            if let Ok(child) = &spawned {
                live.add(child.id());
            }
            spawned
        };
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return failed(Ending::NotFound),
            Err(e) => return failed(Ending::CannotStart(e.to_string())),
        };
        let capture = Capture::start(&mut child, self.output_cap);
        let ending = wait_with_deadline(&mut child, self.deadline);
        kill_group(&child, Signal::KILL);
        {
            let mut live = registry();
            if let Some(job) = &job {
                live.reap_orphans(Some(&format!("{MARKER_VAR}={job}")));
            }
            live.remove(child.id());
        }
        let (output, overflowed) = capture.finish();
        Finished { ending, output, overflowed, duration: started.elapsed(), started, pid: child.id() }
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

/// The environment variable every child of a supervised run carries (its value names the run),
/// by which the watchdog finds what escaped a group.
pub(crate) const MARKER_VAR: &str = "CODEGUARD_SUPERVISOR";
/// The hidden sub-command that runs the watchdog.
pub(crate) const WATCHDOG_COMMAND: &str = "__watchdog";

/// What a supervised run does when a signal ends it.
struct OnSignal {
    exit: u8,
    answer: Box<dyn Fn() -> (String, String) + Send + Sync>,
}

static ON_SIGNAL: OnceLock<OnSignal> = OnceLock::new();
static SUPERVISION: OnceLock<String> = OnceLock::new();
static NEXT_JOB: AtomicU64 = AtomicU64::new(0);
static REGISTRY: Mutex<Registry> =
    Mutex::new(Registry { groups: BTreeSet::new(), watchdog: None, cleanup: BTreeSet::new() });

/// Arms supervision for this process: when SIGTERM, SIGINT or SIGHUP arrives while children run,
/// they are all killed, `answer()` gives the stdout and stderr text to write, and the process
/// exits with `exit` (the entry point's internal-error code, see [`crate::exit`]). Cheap: nothing
/// is set up until the first child is about to be spawned. The first call wins.
pub(crate) fn arm(exit: u8, answer: impl Fn() -> (String, String) + Send + Sync + 'static) {
    let _ = ON_SIGNAL.set(OnSignal { exit, answer: Box::new(answer) });
}

/// The exit code of an answer already decided (`u16::MAX`: none yet).
static DECIDED: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(u16::MAX);

/// Records that the run's answer is decided and about to be written with exit code `exit`: a
/// signal from now on still kills every child, but writes nothing more and exits with `exit` —
/// a block that was given is never turned into a second, fail-open answer.
pub(crate) fn decided(exit: u8) {
    DECIDED.store(u16::from(exit), Ordering::SeqCst);
}

/// Registers (`live`) or forgets a directory to remove when a signal ends the run: the snapshot
/// directories, whose `Drop` guards do not run on that path. Removal is best effort.
pub(crate) fn remove_on_signal(dir: &std::path::Path, live: bool) {
    let mut registry = registry();
    if live {
        registry.cleanup.insert(dir.to_path_buf());
    } else {
        registry.cleanup.remove(dir);
    }
}

/// The live child groups, the watchdog's pipe and the directories to remove on a signal.
struct Registry {
    groups: BTreeSet<u32>,
    watchdog: Option<(u32, ChildStdin)>,
    cleanup: BTreeSet<PathBuf>,
}

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Registry {
    fn add(&mut self, group: u32) {
        self.groups.insert(group);
        self.tell_watchdog('+', group);
    }

    fn remove(&mut self, group: u32) {
        self.groups.remove(&group);
        self.tell_watchdog('-', group);
    }

    fn tell_watchdog(&mut self, op: char, group: u32) {
        if let Some((_, pipe)) = self.watchdog.as_mut() {
            // A watchdog that died cannot be told; the groups are still killed in-process.
            let _ = writeln!(pipe, "{op}{group}").and_then(|()| pipe.flush());
        }
    }

    /// Kills every registered group.
    fn kill_all(&self) {
        for group in &self.groups {
            if let Some(pid) = i32::try_from(*group).ok().and_then(Pid::from_raw) {
                let _ = kill_process_group(pid, Signal::KILL);
            }
        }
    }

    /// Kills and reaps the processes that re-parented to codeguard (it is a subreaper) out of
    /// a child's group: double-forked daemons and their children. With `job` (a `NAME=value`
    /// marker entry) only processes of that job are killed, so a job never kills another job's
    /// daemon; zombies are always reaped. Rounds repeat while some are found, since killing one
    /// may orphan its own children; bounded.
    #[cfg(target_os = "linux")]
    fn reap_orphans(&self, job: Option<&str>) {
        if SUPERVISION.get().is_none() {
            return;
        }
        let me = std::process::id();
        let own_group = u32::try_from(rustix::process::getpgrp().as_raw_nonzero().get()).unwrap_or(0);
        let watchdog = self.watchdog.as_ref().map(|(pid, _)| *pid);
        for _ in 0..20 {
            let mut acted = false;
            let orphans = linux::children_of(me)
                .into_iter()
                .filter(|c| c.group != own_group && !self.groups.contains(&c.pid) && Some(c.pid) != watchdog);
            for orphan in orphans {
                let Some(pid) = i32::try_from(orphan.pid).ok().and_then(Pid::from_raw) else { continue };
                if !orphan.zombie && job.is_some_and(|entry| !linux::has_env(orphan.pid, entry)) {
                    continue;
                }
                if !orphan.zombie {
                    let _ = kill_process_group(pid, Signal::KILL);
                    let _ = rustix::process::kill_process(pid, Signal::KILL);
                }
                linux::reap(pid);
                acted = true;
            }
            if !acted {
                return;
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn reap_orphans(&self, _job: Option<&str>) {}
}

/// Sets supervision up once, on the first spawn of an armed process; the run's marker value.
fn supervise() -> Option<&'static str> {
    ON_SIGNAL.get()?;
    Some(SUPERVISION.get_or_init(start_supervision).as_str())
}

fn start_supervision() -> String {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    let marker = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    );
    if let Ok(exe) = std::env::current_exe() {
        #[expect(clippy::disallowed_methods, reason = "the one spawner: its watchdog")]
        let watchdog = Command::new(exe)
            .args([WATCHDOG_COMMAND, &marker])
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        if let Ok(mut watchdog) = watchdog
            && let Some(pipe) = watchdog.stdin.take()
        {
            registry().watchdog = Some((watchdog.id(), pipe));
        }
    }
    let signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGHUP,
    ]);
    if let Ok(mut signals) = signals {
        let _ = std::thread::Builder::new().name("codeguard-signals".into()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                interrupted(signal);
            }
        });
    }
    marker
}

/// A signal ended the run: kill every child group (the registry stays locked, so nothing new
/// starts), remove the snapshot directories, write the entry point's answer and exit with its code.
fn interrupted(signal: i32) -> ! {
    let live = registry();
    live.kill_all();
    live.reap_orphans(None);
    for dir in &live.cleanup {
        let _ = std::fs::remove_dir_all(dir);
    }
    if let Ok(exit) = u8::try_from(DECIDED.load(Ordering::SeqCst)) {
        #[expect(clippy::disallowed_methods, reason = "the signal path ends the process itself")]
        std::process::exit(i32::from(exit));
    }
    let (exit, (stdout, stderr)) = match ON_SIGNAL.get() {
        Some(on) => (on.exit, (on.answer)()),
        None => (crate::exit::unarmed_signal(), (String::new(), String::new())),
    };
    crate::output::write_both(
        &stdout,
        &format!("codeguard: stopped by signal {signal}; every check it started was killed\n{stderr}"),
    );
    #[expect(clippy::disallowed_methods, reason = "the signal path ends the process itself")]
    std::process::exit(i32::from(exit))
}

/// `codeguard __watchdog MARKER`: reads `+GROUP` / `-GROUP` lines from stdin until it closes
/// (codeguard ended, however it ended), then kills every group still registered and, on Linux,
/// every process whose environment carries `MARKER`. Returns the exit code (always 0).
pub(crate) fn watchdog(marker: &str) -> u8 {
    let mut groups = BTreeSet::new();
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        line.clear();
        match std::io::BufRead::read_line(&mut stdin.lock(), &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim();
        let (op, group) = match (text.strip_prefix('+'), text.strip_prefix('-')) {
            (Some(group), _) => ("+", group),
            (_, Some(group)) => ("-", group),
            (None, None) => ("", text),
        };
        match (op, group.parse::<i32>()) {
            ("+", Ok(pid)) => {
                groups.insert(pid);
            }
            ("-", Ok(pid)) => {
                groups.remove(&pid);
            }
            _ => {}
        }
    }
    for pid in groups.into_iter().filter_map(Pid::from_raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    #[cfg(target_os = "linux")]
    linux::kill_marked(&format!("{MARKER_VAR}={marker}."));
    #[cfg(not(target_os = "linux"))]
    let _ = marker;
    crate::exit::success()
}

/// `/proc` walks (Linux only).
#[cfg(target_os = "linux")]
mod linux {
    use rustix::process::{Pid, Signal, WaitOptions};

    /// One process, from `/proc/PID/stat`.
    pub(super) struct Proc {
        pub pid: u32,
        pub group: u32,
        pub zombie: bool,
    }

    /// The processes whose parent is `parent`: from the kernel's list of each of its threads'
    /// children (`/proc/<pid>/task/<tid>/children`, a few reads), else — a kernel built without
    /// `CONFIG_PROC_CHILDREN` — from every process's `stat` (one read per process of the machine).
    pub(super) fn children_of(parent: u32) -> Vec<Proc> {
        if let Some(pids) = listed_children(parent) {
            return pids.into_iter().filter_map(|pid| child(pid, parent)).collect();
        }
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().and_then(|p| p.parse::<u32>().ok()))
            .filter_map(|pid| child(pid, parent))
            .collect()
    }

    /// The children every thread of `parent` lists; `None` when the kernel offers no such list.
    fn listed_children(parent: u32) -> Option<Vec<u32>> {
        let mut pids = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{parent}/task")).ok()?.flatten() {
            let listed = std::fs::read_to_string(task.path().join("children")).ok()?;
            pids.extend(listed.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
        pids.sort_unstable();
        pids.dedup();
        Some(pids)
    }

    /// Process `pid`, when its parent is `parent` (it may have gone or moved since it was listed).
    fn child(pid: u32, parent: u32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let after_name = stat.rfind(')').and_then(|i| stat.get(i + 2..))?;
        let fields: Vec<&str> = after_name.split(' ').collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u32>().ok());
        (number(1) == Some(parent)).then(|| Proc {
            pid,
            group: number(2).unwrap_or(0),
            zombie: fields.first().is_some_and(|s| *s == "Z" || *s == "X"),
        })
    }

    /// Waits (at most about half a second) for a killed child to be reaped.
    pub(super) fn reap(pid: Pid) {
        for _ in 0..100 {
            match rustix::process::waitpid(Some(pid), WaitOptions::NOHANG) {
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Ok(Some(_)) | Err(_) => return,
            }
        }
    }

    /// Whether the environment of process `pid` holds `entry` (`NAME=value`) exactly. A live
    /// process reads with an empty environment while it is inside `execve`: that is asked again
    /// a few times (5 ms apart) before it counts as not ours.
    pub(super) fn has_env(pid: u32, entry: &str) -> bool {
        for _ in 0..10 {
            match std::fs::read(format!("/proc/{pid}/environ")) {
                Ok(environ) if !environ.is_empty() => {
                    return environ.split(|b| *b == 0).any(|e| e == entry.as_bytes());
                }
                Ok(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(_) => return false,
            }
        }
        false
    }

    /// Kills every process with an environment entry that starts with `prefix` (`NAME=run.`).
    pub(super) fn kill_marked(prefix: &str) {
        let Ok(entries) = std::fs::read_dir("/proc") else { return };
        let me = std::process::id();
        for dir in entries.flatten() {
            let Some(pid) = dir.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else { continue };
            if pid == me {
                continue;
            }
            let Ok(environ) = std::fs::read(dir.path().join("environ")) else { continue };
            if environ.split(|b| *b == 0).any(|e| e.starts_with(prefix.as_bytes()))
                && let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
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
#[expect(clippy::disallowed_methods, reason = "tests spawn from the test environment")]
mod tests {
    use super::*;

    fn sh(script: &str, deadline: Duration) -> Finished {
        let env = vec![("PATH".to_owned(), std::env::var_os("PATH").unwrap_or_default())];
        Cmd::new(vec!["sh".into(), "-c".into(), script.into()], crate::env::temp_dir(), env, deadline).run()
    }

    #[test]
    fn a_bare_name_is_found_on_the_childs_own_path_and_a_script_without_a_shebang_still_runs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tmp");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("mkdir");
        for (name, text) in [("tagged", "#!/bin/sh\necho tagged \"$1\"\n"), ("plain", "echo plain \"$1\"\n")]
        {
            std::fs::write(bin.join(name), text).expect("write");
            std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        // Only absolute `PATH` directories resolve a program: `bin` (relative, the child's
        // directory's own) never does.
        let env = vec![("PATH".to_owned(), OsString::from(format!("/usr/bin:/bin:bin:{}", bin.display())))];
        let run = |program: &str| {
            Cmd::new(
                vec![program.into(), "x".into()],
                dir.path().to_owned(),
                env.clone(),
                Duration::from_secs(10),
            )
            .run()
        };
        let cmd =
            Cmd::new(vec!["tagged".into()], dir.path().to_owned(), env.clone(), Duration::from_secs(10));
        assert_eq!(cmd.on_child_path("tagged"), Some(dir.path().join("bin").join("tagged")));
        let relative_only = vec![("PATH".to_owned(), OsString::from("/usr/bin:/bin:bin"))];
        let cmd =
            Cmd::new(vec!["tagged".into()], dir.path().to_owned(), relative_only, Duration::from_secs(10));
        assert_eq!(cmd.on_child_path("tagged"), None, "a relative PATH directory resolves nothing");
        assert_eq!(cmd.run().ending, Ending::NotFound, "not even by the child's own search");
        assert_eq!(cmd.on_child_path("bin/tagged"), None, "a name with a slash is the child's to resolve");
        for program in ["tagged", "plain"] {
            let done = run(program);
            assert_eq!(done.ending, Ending::Exited(0), "{program}: {}", done.text());
            assert_eq!(done.text(), format!("{program} x\n"));
        }
        assert_eq!(run("no-such-program-here").ending, Ending::NotFound);
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
            crate::env::temp_dir(),
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
            crate::env::temp_dir(),
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
        // SIGKILL is delivered asynchronously: a member may still be on its way out for a moment
        // after the leader was reaped. None survives that moment.
        let gone_by = Instant::now() + Duration::from_secs(2);
        while !live_members(done.pid).is_empty() && Instant::now() < gone_by {
            std::thread::sleep(Duration::from_millis(10));
        }
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
