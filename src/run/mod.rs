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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rayon::prelude::*;

use crate::env::Env;
use crate::outcome::{LanguageResult, Status};
use crate::plan::{Action, Job, Plan};
use crate::process::{Cmd, Ending, Finished};
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
    /// Files whose clean result is known are not linted again (`crate::cache::file_results`);
    /// `check --no-cache` turns it off.
    pub reuse: bool,
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
///
/// Every invocation of every job is one task in one queue, longest first (by its number of
/// arguments, the files it is handed), taken by `jobs` workers as they come free: a worker never
/// waits on another job's part while work is left (nested fork-join did — one worker ran both
/// halves of the slowest linter after the other had finished everything else).
pub(crate) fn execute(
    plan: &Plan,
    env: &Env,
    options: &RunOptions,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<LanguageResult> {
    let child_env: Vec<(String, OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let probes = ProbeCache::default();
    let probe = |entry: &crate::plan::Entry| match &entry.action {
        Action::Run(job) => probes.missing(job, env, &child_env),
        Action::Skip { .. } => None,
    };
    // Looking a tool up is a PATH search; only explicit probes start processes, so only they
    // are worth threads.
    let explicit = plan.entries.iter().filter(|e| matches!(&e.action, Action::Run(j) if j.probe.is_some()));
    let missing: Vec<Option<String>> = if options.jobs > 1 && explicit.count() > 1 {
        plan.entries.par_iter().map(probe).collect()
    } else {
        plan.entries.iter().map(probe).collect()
    };
    // The jobs that run: a planned job whose tool is there.
    let runnable: Vec<Option<&Job>> = plan
        .entries
        .iter()
        .zip(&missing)
        .map(|(entry, missing)| match (&entry.action, missing) {
            (Action::Run(job), None) => Some(job),
            (Action::Run(_), Some(_)) => {
                progress(Progress::Started(&entry.language));
                progress(Progress::Finished(&entry.language));
                None
            }
            (Action::Skip { .. }, _) => None,
        })
        .collect();
    // A task: entry i's job, its invocation k.
    let mut tasks: Vec<(usize, &Job, usize)> = runnable
        .iter()
        .enumerate()
        .filter_map(|(i, job)| job.map(|job| (i, job)))
        .flat_map(|(i, job)| (0..job.invocations.len()).map(move |k| (i, job, k)))
        .collect();
    // Longest first; the sort is stable, so equal tasks keep the plan's order.
    tasks.sort_by_key(|&(_, job, k)| std::cmp::Reverse(job.invocations[k].len()));
    let left: Vec<AtomicUsize> =
        runnable.iter().map(|job| AtomicUsize::new(job.map_or(0, |j| j.invocations.len()))).collect();
    let started: Vec<AtomicBool> = runnable.iter().map(|_| AtomicBool::new(false)).collect();
    let next = AtomicUsize::new(0);
    // A worker takes the next task until none is left and returns what it ran.
    let work = || {
        let mut ran = Vec::new();
        while let Some(&(i, job, k)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
            let language = &plan.entries[i].language;
            if !started[i].swap(true, Ordering::Relaxed) {
                progress(Progress::Started(language));
            }
            let argv = job.invocations[k].clone();
            ran.push(((i, k), Cmd::new(argv, job.cwd.clone(), child_env.clone(), options.deadline).run()));
            if left[i].fetch_sub(1, Ordering::AcqRel) == 1 {
                progress(Progress::Finished(language));
            }
        }
        ran
    };
    let workers = options.jobs.max(1).min(tasks.len());
    let mut finished: BTreeMap<(usize, usize), Finished> = if workers <= 1 {
        work().into_iter().collect()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    };
    plan.entries
        .iter()
        .enumerate()
        .map(|(i, entry)| match (&entry.action, &missing[i]) {
            (Action::Skip { status, reason }, _) => {
                LanguageResult::skipped(&entry.language, &entry.name, *status, reason)
            }
            (Action::Run(job), Some(reason)) => unavailable(&entry.language, &entry.name, job, reason),
            (Action::Run(job), None) => {
                let runs: Vec<Finished> =
                    (0..job.invocations.len()).filter_map(|k| finished.remove(&(i, k))).collect();
                judge_job(&entry.language, &entry.name, job, &runs)
            }
        })
        .collect()
}

/// A job whose tool is not available (`reason` from [`tool_missing`], which names the install
/// command: every `Reason::ToolMissing` result's reason does).
fn unavailable(language: &str, name: &str, job: &Job, reason: &str) -> LanguageResult {
    let mut result = LanguageResult::skipped(language, name, Status::Unverified, reason);
    result.cause = Some(crate::outcome::Reason::ToolMissing);
    result.install_hint.clone_from(&job.install_hint);
    result.files.clone_from(&job.files);
    result.argv.clone_from(&job.invocations);
    result.managed = job.managed;
    result
}

/// The verdict on a job from its invocations' runs (independent parts of one file list, in
/// invocation order): the worst verdict wins and all output is kept, so one run shows every
/// problem. A part that reached no conclusion beside parts that failed is named in the reason
/// (its files and why): the findings of the parts that finished stand, and what was not checked
/// is said.
fn judge_job(language: &str, name: &str, job: &Job, runs: &[Finished]) -> LanguageResult {
    let mut result = LanguageResult::skipped(language, name, Status::Pass, "");
    result.argv.clone_from(&job.invocations);
    result.files.clone_from(&job.files);
    result.fix.clone_from(&job.fix);
    result.install_hint.clone_from(&job.install_hint);
    result.managed = job.managed;
    let mut unfinished: Vec<String> = Vec::new();
    // Findings name files under the directory the tool ran in (a snapshot): say them as the
    // repository does.
    let here = format!("{}/", job.cwd.display());
    let canonical = job.cwd.canonicalize().ok().map(|c| format!("{}/", c.display())).filter(|c| *c != here);
    let relative = |text: &str| {
        let text = text.replace(&here, "");
        match &canonical {
            Some(canonical) => text.replace(canonical.as_str(), ""),
            None => text,
        }
    };
    for (k, done) in runs.iter().enumerate() {
        // Linters quote source lines: a secret in the content must not reach reports or logs.
        // The text is judged as it is reported (paths the repository's), so the findings the
        // verdict reads are the ones the report shows.
        let text = relative(&crate::secrets::redact(&done.text()));
        let verdict = verdict::judge(&job.behaviour, job.format, done, &text);
        result.output.push_str(&text);
        let worse_or_first = verdict.status > result.status || result.exit_code.is_none();
        if let (Ending::Exited(code), true) = (&done.ending, worse_or_first) {
            result.exit_code = Some(*code);
        }
        if verdict.status == Status::Unverified {
            let part = job.invocations.get(k).map(|argv| files_of(argv, &job.files)).unwrap_or_default();
            if !part.is_empty() {
                unfinished.push(format!("{} ({})", verdict.reason, summarise(&part)));
            }
        }
        if verdict.status > result.status {
            result.status = verdict.status;
            result.reason = verdict.reason;
            result.cause = verdict.cause;
        }
    }
    // Parts run side by side: the language took the span from the first start to the last end.
    let first = runs.iter().map(|d| d.started).min();
    let last = runs.iter().map(|d| d.started + d.duration).max();
    if let (Some(first), Some(last)) = (first, last) {
        result.duration = last.duration_since(first);
    }
    if result.status == Status::Fail && !unfinished.is_empty() {
        result.reason = format!("not every file was checked: {}", unfinished.join("; "));
    }
    if result.status == Status::Unverified
        && result.cause == Some(crate::outcome::Reason::ToolMissing)
        && !job.install_hint.is_empty()
    {
        result.reason = format!("{} (install: {})", result.reason, job.install_hint);
    }
    if let Some(format) = job.format {
        result.findings = crate::findings::parse(format, &result.output);
    }
    if let Some(fixes) = &job.fixes
        && !fixes.resolves_any(result.findings.iter().filter_map(|f| f.rule.as_deref()), &result.output)
    {
        // Advice that cannot help is worse than none: the formatter fixes none of these (and a
        // tool whose findings cannot be read cannot be shown to be helped).
        result.fix = None;
    }
    if job.advisory && result.status == Status::Fail {
        result.status = Status::Skipped;
        result.reason = "advisory findings (do not block)".into();
    }
    result
}

/// The files of `files` an invocation was handed.
fn files_of(argv: &[String], files: &[String]) -> Vec<String> {
    let words: std::collections::HashSet<&str> = argv.iter().map(String::as_str).collect();
    files
        .iter()
        .filter(|f| words.contains(f.as_str()) || words.contains(crate::plan::path_arg(f).as_str()))
        .cloned()
        .collect()
}

/// `a.sh, b.sh and 3 more`.
fn summarise(files: &[String]) -> String {
    let shown: Vec<&str> = files.iter().take(3).map(String::as_str).collect();
    match files.len().saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
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
    let cwd = crate::env::temp_dir();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Entry;

    fn job(program: &str, invocations: Vec<Argv>, cwd: &std::path::Path) -> Action {
        Action::Run(Job {
            program: program.to_owned(),
            invocations,
            cwd: cwd.to_path_buf(),
            files: Vec::new(),
            probe: None,
            install_hint: String::new(),
            fix: None,
            fixes: None,
            advisory: false,
            runs_repo_code: false,
            managed: false,
            behaviour: Box::new(crate::registry::Behaviour::project_command()),
            format: None,
        })
    }

    #[test]
    fn a_languages_time_is_the_span_of_its_parts_and_a_part_that_timed_out_is_named() {
        let tmp = tempfile::tempdir().expect("tmp");
        let Action::Run(mut job) = job(
            "lint",
            vec![vec!["lint".into(), "a.sh".into()], vec!["lint".into(), "b.sh".into()]],
            tmp.path(),
        ) else {
            unreachable!()
        };
        job.files = vec!["a.sh".into(), "b.sh".into()];
        let t0 = std::time::Instant::now();
        let part = |ending: Ending, start: u64, output: &str| Finished {
            ending,
            output: output.as_bytes().to_vec(),
            overflowed: false,
            duration: Duration::from_secs(2),
            started: t0 + Duration::from_secs(start),
            pid: 1,
        };
        // Side by side: 0–2 s and 1–3 s took 3 s, not 4.
        let runs = [part(Ending::Exited(1), 0, "a.sh:1:1: bad\n"), part(Ending::TimedOut, 1, "")];
        let result = judge_job("shell", "Shell", &job, &runs);
        assert_eq!(result.duration, Duration::from_secs(3));
        assert_eq!(result.status, Status::Fail);
        assert_eq!(result.reason, "not every file was checked: timed out (b.sh)");
        assert!(result.output.contains("a.sh:1:1: bad"), "the finished part's output is kept");
    }

    /// `sh linter ID [padding…]`: the fake linter appends its ID to `log`; an ID starting with
    /// `S` then waits (up to 10 s) until both `S` parts are in the log, so neither can finish —
    /// and free its worker — before the other has started.
    fn call(script: &std::path::Path, id: &str, padding: usize) -> Argv {
        let mut argv = vec!["sh".to_owned(), script.display().to_string(), id.to_owned()];
        argv.extend((0..padding).map(|i| format!("f{i}")));
        argv
    }

    #[test]
    fn the_longest_parts_start_first_on_free_workers_and_results_keep_plan_order() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log = tmp.path().join("log");
        let script = tmp.path().join("linter");
        std::fs::write(
            &script,
            format!(
                "echo \"$1\" >> '{log}'\ncase $1 in S*) i=0; while [ $i -lt 200 ] && [ \"$(grep -c '^S' '{log}')\" -lt 2 ]; do sleep 0.05; i=$((i+1)); done ;; esac\necho \"out $1\"\n",
                log = log.display()
            ),
        )
        .expect("script");
        let plan = Plan {
            entries: vec![
                Entry {
                    language: "yaml".into(),
                    name: "YAML".into(),
                    action: job("sh", vec![call(&script, "Y1", 3), call(&script, "Y2", 2)], tmp.path()),
                },
                Entry {
                    language: "skip".into(),
                    name: "Skip".into(),
                    action: Action::Skip { status: Status::Skipped, reason: "nothing".into() },
                },
                Entry {
                    language: "shell".into(),
                    name: "Shell".into(),
                    action: job("sh", vec![call(&script, "S1", 9), call(&script, "S2", 8)], tmp.path()),
                },
            ],
        };
        let env = Env::from_pairs([
            ("PATH", Env::from_process().get("PATH").cloned().unwrap_or_default()),
            ("CODEGUARD_HOME", tmp.path().join("home").into_os_string()),
        ]);
        let options = RunOptions { deadline: Duration::from_secs(60), jobs: 2, reuse: true };
        let results = execute(&plan, &env, &options, &|_| {});
        let started = std::fs::read_to_string(&log).expect("log");
        let order: Vec<&str> = started.lines().collect();
        let mut first_two = order[..2].to_vec();
        first_two.sort_unstable();
        assert_eq!(first_two, ["S1", "S2"], "the two longest parts take the two workers: {order:?}");
        assert_eq!(order.len(), 4, "every part ran once: {order:?}");
        let languages: Vec<&str> = results.iter().map(|r| r.language.as_str()).collect();
        assert_eq!(languages, ["yaml", "skip", "shell"], "plan order");
        assert_eq!(results[0].output, "out Y1\nout Y2\n", "a language's output in invocation order");
        assert_eq!(results[2].output, "out S1\nout S2\n");
        assert_eq!(results[2].status, Status::Pass);
        assert_eq!(results[1].status, Status::Skipped);
    }
}
