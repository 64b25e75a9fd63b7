//! Execution: runs a plan's jobs in parallel and returns results in plan order.
//!
//! In: a [`Plan`], the environment for the children, a deadline per linter and a parallelism.
//! Out: one [`LanguageResult`] per plan entry, in the plan's order, whatever order jobs finish in.
//! Tools are probed once per program per run; a missing tool is UNVERIFIED with its install hint.
//! Never: spawns by itself (every process goes through [`crate::process`]).

pub(crate) mod inplace;
pub(crate) mod warm;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Mutex;
use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::lint_plan::{Action, Job, Plan};
use crate::outcome::Status;
use crate::process::{Cmd, Ending};
use crate::registry::Argv;
use crate::verdict;

/// Linters run at once by default: the number of cores.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

/// How long an explicit probe may take.
const PROBE_DEADLINE: Duration = Duration::from_secs(10);

/// How the run is carried out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunOptions {
    /// Deadline per linter invocation.
    pub deadline: Duration,
    /// Linters running at once.
    pub jobs: usize,
}

/// The result for one language.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LanguageResult {
    /// Registry id.
    pub language: String,
    /// Display name.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// Why (empty for a plain pass/fail).
    pub reason: String,
    /// The exit code of the worst invocation, when one ran to an exit.
    pub exit_code: Option<i32>,
    /// What ran.
    pub argv: Vec<Argv>,
    /// The files checked.
    pub files: Vec<String>,
    /// Wall-clock time of all invocations.
    #[serde(rename = "duration_ms", serialize_with = "as_millis", deserialize_with = "from_millis")]
    pub duration: Duration,
    /// Everything the linter printed (not serialised; the log file holds it).
    #[serde(skip)]
    pub output: String,
    /// The formatter command that may fix it.
    pub fix: Option<Argv>,
    /// How to install the tool.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub install_hint: String,
    /// The tool that ran is codeguard's managed copy (`codeguard tools install`), not the one on
    /// `PATH`; its path is the program of `argv`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub managed: bool,
    /// Where the full output was written.
    pub log_path: Option<std::path::PathBuf>,
    /// Why no conclusion was reached, as a type (see [`crate::outcome::Reason`]); not part of the
    /// report, whose `reason` says it in words.
    #[serde(skip)]
    pub cause: Option<crate::outcome::Reason>,
    /// Findings exempt because the same tool reports them on the baseline content
    /// (`path:line: rule`); see `crate::baseline`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exempt: Vec<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn from_millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    u64::deserialize(d).map(Duration::from_millis)
}

/// A progress event, for a live progress line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Progress<'a> {
    /// This many languages are planned.
    Planned(usize),
    /// A language started.
    Started(&'a str),
    /// A language finished.
    Finished(&'a str),
}

/// Runs every job of the plan and returns one result per entry, in plan order.
pub(crate) fn execute(
    plan: &Plan,
    env: &Env,
    options: &RunOptions,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<LanguageResult> {
    let child_env: Vec<(String, OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let probes = ProbeCache::default();
    let run_entry = |entry: &crate::lint_plan::Entry| match &entry.action {
        Action::Skip { status, reason } => skipped(&entry.language, &entry.name, *status, reason),
        Action::Run(job) => {
            progress(Progress::Started(&entry.language));
            let result = match probes.missing(job, env, &child_env) {
                Some(reason) => unavailable(&entry.language, &entry.name, job, &reason),
                None => run_job(&entry.language, &entry.name, job, &child_env, options.deadline),
            };
            progress(Progress::Finished(&entry.language));
            result
        }
    };
    let processes: usize = plan
        .entries
        .iter()
        .map(|e| match &e.action {
            Action::Run(job) => job.invocations.len(),
            Action::Skip { .. } => 0,
        })
        .sum();
    if processes <= 1 {
        // One linter run: no pool to start.
        return plan.entries.iter().map(run_entry).collect();
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(options.jobs.max(1)).build();
    match pool {
        Ok(pool) => pool.install(|| plan.entries.par_iter().map(run_entry).collect()),
        Err(_) => plan.entries.iter().map(run_entry).collect(),
    }
}

/// A result for a language that did not run (or has not run yet).
pub(crate) fn skipped(language: &str, name: &str, status: Status, reason: &str) -> LanguageResult {
    LanguageResult {
        language: language.to_owned(),
        name: name.to_owned(),
        status,
        reason: reason.to_owned(),
        exit_code: None,
        argv: Vec::new(),
        files: Vec::new(),
        duration: Duration::ZERO,
        output: String::new(),
        fix: None,
        install_hint: String::new(),
        managed: false,
        log_path: None,
        cause: None,
        exempt: Vec::new(),
    }
}

/// A job whose tool is not available (`reason` from [`tool_missing`], which names the install
/// command: every `Reason::ToolMissing` result's reason does).
fn unavailable(language: &str, name: &str, job: &Job, reason: &str) -> LanguageResult {
    let mut result = skipped(language, name, Status::Unverified, reason);
    result.cause = Some(crate::outcome::Reason::ToolMissing);
    result.install_hint.clone_from(&job.install_hint);
    result.files.clone_from(&job.files);
    result.argv.clone_from(&job.invocations);
    result.managed = job.managed;
    result
}

/// Runs a job's invocations (in parallel, within the run's parallelism: they are independent
/// parts of one file list); the worst verdict wins and all output is kept, in invocation order,
/// so one run shows every problem.
fn run_job(
    language: &str,
    name: &str,
    job: &Job,
    env: &[(String, OsString)],
    deadline: Duration,
) -> LanguageResult {
    let mut result = skipped(language, name, Status::Pass, "");
    result.argv.clone_from(&job.invocations);
    result.files.clone_from(&job.files);
    result.fix.clone_from(&job.fix);
    result.install_hint.clone_from(&job.install_hint);
    result.managed = job.managed;
    let run = |argv: &Argv| Cmd::new(argv.clone(), job.cwd.clone(), env.to_vec(), deadline).run();
    let runs: Vec<_> = if job.invocations.len() > 1 {
        job.invocations.par_iter().map(run).collect()
    } else {
        job.invocations.iter().map(run).collect()
    };
    for done in &runs {
        let verdict = verdict::judge(&job.program, done);
        result.duration += done.duration;
        // Linters quote source lines: a secret in the content must not reach reports or logs.
        result.output.push_str(&crate::safety::redact(&done.text()));
        let worse_or_first = verdict.status > result.status || result.exit_code.is_none();
        if let (Ending::Exited(code), true) = (&done.ending, worse_or_first) {
            result.exit_code = Some(*code);
        }
        if verdict.status > result.status {
            result.status = verdict.status;
            result.reason = verdict.reason;
            result.cause = verdict.cause;
        }
    }
    if result.status == Status::Unverified
        && result.cause == Some(crate::outcome::Reason::ToolMissing)
        && !job.install_hint.is_empty()
    {
        result.reason = format!("{} (install: {})", result.reason, job.install_hint);
    }
    if let Some(fixes) = &job.fixes {
        let codes = crate::report::rule_histogram(&result.output);
        if !fixes.resolves_any(codes.iter().map(|(code, _)| code.as_str())) {
            // Advice that cannot help is worse than none: the formatter fixes none of these.
            result.fix = None;
        }
    }
    if job.advisory && result.status == Status::Fail {
        result.status = Status::Skipped;
        result.reason = "advisory findings (do not block)".into();
    }
    result
}

/// Tool availability, probed once per program (or explicit probe) per run.
#[derive(Default)]
struct ProbeCache {
    seen: Mutex<BTreeMap<Vec<String>, Option<String>>>,
}

impl ProbeCache {
    /// `Some(reason)` when the job's tool is not available.
    fn missing(&self, job: &Job, env: &Env, child_env: &[(String, OsString)]) -> Option<String> {
        let key = job.probe.clone().unwrap_or_else(|| vec![job.program.clone()]);
        if let Some(known) = self.seen.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return known;
        }
        let outcome = probe(job, env, child_env);
        if let Ok(mut map) = self.seen.lock() {
            map.insert(key, outcome.clone());
        }
        outcome
    }
}

fn probe(job: &Job, env: &Env, child_env: &[(String, OsString)]) -> Option<String> {
    tool_missing(
        &Tool { program: &job.program, probe: job.probe.as_ref(), install_hint: &job.install_hint },
        &job.cwd,
        env,
        child_env,
        PROBE_DEADLINE,
    )
}

/// A tool to look for.
struct Tool<'a> {
    program: &'a str,
    probe: Option<&'a Argv>,
    install_hint: &'a str,
}

/// `Some(reason)` when the tool is not available: neither codeguard's managed copy
/// (`crate::tools::locate`, which needs no probe: its install was verified) nor on `PATH`, or its
/// explicit probe fails. The reason carries the install advice (`codeguard tools install --lang
/// …` for a managed tool, see `Language::install_advice`).
fn tool_missing(
    tool: &Tool<'_>,
    cwd: &std::path::Path,
    env: &Env,
    child_env: &[(String, OsString)],
    deadline: Duration,
) -> Option<String> {
    let hint = if tool.install_hint.is_empty() {
        String::new()
    } else {
        format!(" (install: {})", tool.install_hint)
    };
    let managed = crate::registry::Registry::builtin()
        .ok()
        .is_some_and(|registry| crate::tools::locate(&registry, env, tool.program).is_some());
    if managed {
        return None;
    }
    if !tool.program.starts_with('.') && env.which(tool.program).is_none() {
        return Some(format!("tool missing: `{}` not found on PATH{hint}", tool.program));
    }
    let probe = tool.probe?;
    let done = Cmd::new(probe.clone(), cwd.to_path_buf(), child_env.to_vec(), deadline).run();
    match done.ending {
        Ending::Exited(0) => None,
        Ending::TimedOut => Some(format!("tool probe `{}` timed out{hint}", probe.join(" "))),
        _ => Some(format!("tool missing: `{}` failed{hint}", probe.join(" "))),
    }
}

/// `Some(reason)` when a tool is not available (not on `PATH`, or its explicit probe fails), for
/// entry points that run a registry command of their own (the formatters of `fix`).
pub(crate) fn missing_tool(
    program: &str,
    probe: Option<&Argv>,
    install_hint: &str,
    cwd: &std::path::Path,
    env: &Env,
) -> Option<String> {
    let child_env: Vec<(String, OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    tool_missing(&Tool { program, probe, install_hint }, cwd, env, &child_env, PROBE_DEADLINE)
}

/// One line per detected language saying whether its linter is ready, probed in parallel with a
/// short deadline (for the session-start summary).
pub(crate) fn toolchain_inventory(
    registry: &crate::registry::Registry,
    detected: &[crate::registry::DetectedLanguage],
    env: &Env,
) -> Vec<String> {
    let child_env: Vec<(String, OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let cwd = std::env::temp_dir();
    detected
        .par_iter()
        .filter_map(|d| registry.get(&d.id))
        .map(|lang| {
            let Some(program) = lang.lint_program() else { return format!("{} (format-only)", lang.id) };
            let advice = lang.install_advice(registry);
            let tool = Tool { program, probe: lang.probe.as_ref(), install_hint: &advice };
            match tool_missing(&tool, &cwd, env, &child_env, Duration::from_secs(3)) {
                None => format!("{} ({program}: ready)", lang.id),
                Some(reason) => format!("{} ({reason})", lang.id),
            }
        })
        .collect()
}
