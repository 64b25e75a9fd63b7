//! `codeguard check`: lint a project — the whole tree, the working-tree changes, or the staged
//! snapshot — and report per language.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;

use super::UsageError;
use crate::cache::{CheckFacts, Hit, SoftKey};
use crate::cli::{CheckArgs, Format};
use crate::content::{self, Linters, Policy};
use crate::env::Env;
use crate::lint::{self, LintRequest};
use crate::mode::Scope;
use crate::output::Output;
use crate::report::{self, CheckReport};
use crate::run::{Progress, RunOptions};
use crate::surface;

/// Runs `check` and returns its exit code (usage problems are [`UsageError`]s).
pub(super) fn run(args: &CheckArgs, env: &Env) -> anyhow::Result<Output> {
    let report = evaluate(args, env)?;
    let text = match args.format {
        Format::Human => report::render_check(&report),
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Sarif => serde_json::to_string_pretty(&report::sarif::build(&report))? + "\n",
    };
    Ok(Output::stdout(text, report.exit_code()))
}

/// The report `check` would print as JSON (for the MCP server).
pub(crate) fn report(args: &CheckArgs, env: &Env) -> anyhow::Result<CheckReport> {
    evaluate(args, env)
}

fn evaluate(args: &CheckArgs, env: &Env) -> anyhow::Result<CheckReport> {
    let root = super::project_root(args.path.as_deref())?;
    if installs_tools(args, env) {
        // Failures were reported (one line each); the check goes on and shows those languages
        // UNVERIFIED with the install command.
        let _ = crate::tools::provision::provision_missing(&root, &args.lang, env);
    }
    let scope = args.scope();
    match scope {
        Scope::All | Scope::Changed => in_place(args, &root, scope, env),
        Scope::Staged => staged(args, &root, env),
    }
}

/// Whether this check installs the missing managed tools of the project's languages first: on a
/// terminal (stdin and stderr), unless `--no-install`, `CODEGUARD_NO_INSTALL=1` or `CI` is set;
/// always with `--install`.
fn installs_tools(args: &CheckArgs, env: &Env) -> bool {
    if args.no_install || env.is_truthy("CODEGUARD_NO_INSTALL") {
        return false;
    }
    if args.install {
        return true;
    }
    let ci = env.text("CI").is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"));
    !ci && crate::output::stdin_is_terminal() && crate::output::stderr_is_terminal()
}

/// `--staged`: the content engine, exactly as the gate and git's pre-commit hook run it.
fn staged(args: &CheckArgs, root: &Path, env: &Env) -> anyhow::Result<CheckReport> {
    let scope = Scope::Staged;
    let not_a_repo =
        |e: surface::SurfaceError| UsageError(format!("{} needs a git repository: {e}", scope.flag()));
    let index_file = super::index_file(env)?;
    let surface = surface::staged_from(root, index_file.as_deref()).map_err(not_a_repo)?;
    // The project's configuration is validated first: an invalid codeguard.json is a usage error.
    crate::project::Project::load(root).map_err(|e| UsageError(e.to_string()))?;
    let policy = Policy {
        linters: Linters::Run,
        deadline: Duration::from_secs(args.timeout),
        log_prefix: format!("check-{}", report::path_key(root)),
        only: args.lang.clone(),
        agent: false,
        identify: false,
        reuse: !args.no_cache,
    };
    let verdict = content::judge(&surface, &policy, env);
    let languages = verdict.languages;
    let incomplete = !verdict.incomplete.is_empty();
    let mut notes = verdict.incomplete;
    if languages.is_empty() && !incomplete && !surface.paths.is_empty() {
        notes.push("no known language detected".to_owned());
    }
    notes.extend(reuse_note(&languages));
    let mut report = CheckReport::new(root.to_path_buf(), scope, languages, verdict.findings, notes);
    if incomplete {
        report.status = report.status.worst(crate::outcome::Status::Unverified);
    }
    Ok(report)
}

/// `--all` (the whole tree) and `--changed` (the working-tree changes): linted in place, with
/// the soft result cache. `--changed` gets the engine's safety scan of the surface `git add -A
/// && git commit` would carry.
fn in_place(args: &CheckArgs, root: &Path, scope: Scope, env: &Env) -> anyhow::Result<CheckReport> {
    let (files, safety, mut notes): (Vec<String>, _, Vec<String>) = if scope == Scope::Changed {
        let surface = surface::working_changes(root)
            .map_err(|e| UsageError(format!("{} needs a git repository: {e}", scope.flag())))?;
        let allow = crate::safety::committed_allow_list(root);
        let findings = content::scan_surface(&surface, &allow);
        (surface.paths, findings, surface.unverified)
    } else {
        let files =
            surface::listing(root).with_context(|| format!("listing files under {}", root.display()))?;
        (files, Vec::new(), Vec::new())
    };
    let live = args.format == Format::Human && crate::output::stderr_is_terminal();
    let progress = ProgressLine::new(live);
    let request = LintRequest {
        dir: root,
        workspace: root,
        project_files: &files,
        selected: &files,
        whole_tree: scope == Scope::All,
        only: &args.lang,
        options: RunOptions {
            deadline: Duration::from_secs(args.timeout),
            jobs: jobs(args.jobs),
            reuse: !args.no_cache,
        },
        log_prefix: format!("check-{}", report::path_key(root)),
        root_names: None,
        stable: false,
    };
    let prepared = lint::prepare(&request, env).map_err(|e| UsageError(e.to_string()))?;
    let facts = CheckFacts {
        workspace: root,
        plan: &prepared.plan,
        registry: &prepared.registry,
        scope,
        only: &args.lang,
    };
    let soft = if args.no_cache { None } else { SoftCheck::begin(&facts, env) };
    if args.format == Format::Human {
        for lang in crate::run::warm::first_builds(&prepared.plan, &prepared.registry, root, env) {
            crate::output::progress(&format!(
                "codeguard: {lang}: its linter builds this project and its dependencies the first time (minutes on a small machine); later checks reuse that build\n"
            ));
        }
    }
    let (results, reused) = if let Some(hit) = soft.as_ref().and_then(SoftCheck::reuse) {
        let mut results = hit.results;
        report::write_logs(&mut results, &crate::state::log_dir(env), &request.log_prefix);
        (results, Some(hit.age))
    } else {
        let results = lint::execute(&prepared, &request, env, &|p| progress.update(p));
        if let Some(soft) = &soft {
            soft.keep(&results);
        }
        (results, None)
    };
    progress.clear();
    if results.is_empty() {
        notes.insert(0, "no known language detected".to_owned());
    }
    if let Some(age) = reused {
        notes.push(format!(
            "reused the complete result of an identical check from {} s ago (same content, configuration and tools); --no-cache runs the linters again",
            age.as_secs()
        ));
    }
    if reused.is_none() {
        notes.extend(reuse_note(&results));
    }
    let report = CheckReport::new(root.to_path_buf(), scope, results, safety, notes);
    Ok(report)
}

/// Says how many files were not linted again because their clean result was known.
fn reuse_note(results: &[crate::outcome::LanguageResult]) -> Option<String> {
    let reused: usize = results.iter().map(|r| r.reused).sum();
    (reused > 0).then(|| {
        format!(
            "{reused} file(s) not linted again: their clean result under the same bytes, configuration, tool and options is known; --no-cache lints them again"
        )
    })
}

/// The soft cache for one check: its key, when the content has an identity and caching is on.
struct SoftCheck {
    key: SoftKey,
    ttl: Duration,
}

impl SoftCheck {
    fn begin(facts: &CheckFacts<'_>, env: &Env) -> Option<Self> {
        let ttl = crate::cache::soft::ttl(env)?;
        let key = crate::cache::soft::key(env, facts).ok()?;
        Some(Self { key, ttl })
    }

    fn reuse(&self) -> Option<Hit> {
        crate::cache::soft::lookup(&self.key, self.ttl)
    }

    /// Stores the results when they are complete and the content did not change meanwhile.
    fn keep(&self, results: &[crate::outcome::LanguageResult]) {
        let _ = crate::cache::soft::store(&self.key, results);
    }
}

fn jobs(requested: Option<u64>) -> usize {
    requested.and_then(|n| usize::try_from(n).ok()).unwrap_or_else(crate::run::default_jobs)
}

/// A live one-line progress display on a terminal's stderr.
struct ProgressLine {
    state: Mutex<(Vec<String>, usize, usize)>,
    live: bool,
}

impl ProgressLine {
    fn new(live: bool) -> Self {
        Self { state: Mutex::new((Vec::new(), 0, 0)), live }
    }

    fn update(&self, event: Progress<'_>) {
        if !self.live {
            return;
        }
        let Ok(mut state) = self.state.lock() else { return };
        match event {
            Progress::Planned(total) => state.2 = total,
            Progress::Started(lang) => state.0.push(lang.to_owned()),
            Progress::Finished(lang) => {
                state.0.retain(|l| l != lang);
                state.1 += 1;
            }
        }
        crate::output::progress(&format!(
            "\r\x1b[K[codeguard] {}/{} done; running: {}",
            state.1,
            state.2,
            state.0.join(", ")
        ));
    }

    fn clear(&self) {
        if self.live {
            crate::output::progress("\r\x1b[K");
        }
    }
}
