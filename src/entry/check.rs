//! `codeguard check`: lint a project — the whole tree, the working-tree changes, or the staged
//! snapshot — and report per language.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;

use super::UsageError;
use crate::cli::{CheckArgs, Format, Scope};
use crate::env::Env;
use crate::plan::{self, PlanInput};
use crate::registry::{ProjectConfig, Registry};
use crate::report::{self, CheckReport};
use crate::run::{self, Progress, RunOptions};

/// Runs `check` and returns its exit code.
pub fn run(args: &CheckArgs, env: &Env) -> anyhow::Result<u8> {
    match check(args, env) {
        Ok(code) => Ok(code),
        Err(err) if err.downcast_ref::<UsageError>().is_some() => {
            let _ = writeln!(std::io::stderr(), "codeguard: {err}");
            Ok(crate::exit::USAGE)
        }
        Err(err) => Err(err),
    }
}

fn check(args: &CheckArgs, env: &Env) -> anyhow::Result<u8> {
    let root = project_root(args.path.as_deref())?;
    let config = ProjectConfig::load(&root).map_err(|e| UsageError(e.to_string()))?;
    let registry = Registry::builtin()?.with_project(&config).map_err(|e| UsageError(e.to_string()))?;
    let project_files: Vec<String> = crate::files::project_files(&root)
        .with_context(|| format!("listing files under {}", root.display()))?
        .into_iter()
        .filter(|f| !config.is_excluded(f))
        .collect();
    let (selected, scope_name) = match args.scope() {
        Scope::All => (project_files.clone(), "all"),
        Scope::Changed | Scope::Staged => {
            return Err(
                UsageError("--changed and --staged are not available in this build yet".into()).into()
            );
        }
    };
    let facts = crate::files::root_facts(&root);
    let input = PlanInput {
        registry: &registry,
        root: root.clone(),
        project_files: &project_files,
        selected: &selected,
        whole_tree: args.scope() == Scope::All,
        facts: &facts,
        only: &args.lang,
    };
    let plan = plan::build(&input).map_err(|e| UsageError(e.to_string()))?;
    let options = RunOptions { deadline: Duration::from_secs(args.timeout), jobs: jobs(args.jobs) };
    let live = args.format == Format::Human && std::io::stderr().is_terminal();
    let progress = ProgressLine::new(plan.entries.len(), live);
    let mut results = run::execute(&plan, env, &options, &|p| progress.update(p));
    progress.clear();
    report::write_logs(
        &mut results,
        &crate::state::log_dir(env),
        &format!("check-{}", report::path_key(&root)),
    );
    let notes =
        if plan.entries.is_empty() { vec!["no known language detected".to_owned()] } else { Vec::new() };
    let report = CheckReport::new(root, scope_name, results, notes);
    let text = match args.format {
        Format::Human => report::render_check(&report),
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    std::io::stdout().write_all(text.as_bytes()).context("writing the report")?;
    Ok(report.exit_code())
}

/// The project directory: the given path (or the current directory), which must exist.
fn project_root(path: Option<&Path>) -> anyhow::Result<PathBuf> {
    let path = path.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let meta =
        std::fs::metadata(&path).map_err(|e| UsageError(format!("cannot use {}: {e}", path.display())))?;
    if !meta.is_dir() {
        return Err(UsageError(format!("{} is not a directory", path.display())).into());
    }
    path.canonicalize().with_context(|| format!("resolving {}", path.display()))
}

fn jobs(requested: Option<u64>) -> usize {
    requested.and_then(|n| usize::try_from(n).ok()).unwrap_or_else(super::default_jobs)
}

/// A live one-line progress display on a terminal's stderr.
struct ProgressLine {
    state: Mutex<(Vec<String>, usize)>,
    total: usize,
    live: bool,
}

impl ProgressLine {
    fn new(total: usize, live: bool) -> Self {
        Self { state: Mutex::new((Vec::new(), 0)), total, live }
    }

    fn update(&self, event: Progress<'_>) {
        if !self.live {
            return;
        }
        let Ok(mut state) = self.state.lock() else { return };
        match event {
            Progress::Started(lang) => state.0.push(lang.to_owned()),
            Progress::Finished(lang, _) => {
                state.0.retain(|l| l != lang);
                state.1 += 1;
            }
        }
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[K[codeguard] {}/{} done; running: {}",
            state.1,
            self.total,
            state.0.join(", ")
        );
    }

    fn clear(&self) {
        if self.live {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}
