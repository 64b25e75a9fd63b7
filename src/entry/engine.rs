//! The lint engine shared by every entry point: load the project's configuration from the
//! content being checked, plan the languages of the selected files, run them, write the logs.

use std::path::Path;

use crate::env::Env;
use crate::plan::{self, PlanInput};
use crate::registry::{ProjectConfig, Registry};
use crate::report;
use crate::run::{self, LanguageResult, Progress, RunOptions};

/// What to lint.
pub(crate) struct LintRequest<'a> {
    /// Where the content is (the project, or a snapshot of it); linters run here.
    pub dir: &'a Path,
    /// The project's files (for detection).
    pub project_files: &'a [String],
    /// The files to lint.
    pub selected: &'a [String],
    /// A whole-tree check (project-level commands run without changes).
    pub whole_tree: bool,
    /// Only these languages (empty = all).
    pub only: &'a [String],
    /// Deadline and parallelism.
    pub options: RunOptions,
    /// Log files are named `<log_prefix>-<language>.log`.
    pub log_prefix: String,
}

/// Why linting could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LintError {
    /// The project's configuration or the request is invalid (a usage problem for the CLI, an
    /// UNVERIFIED result for the gate).
    #[error("{0}")]
    Setup(String),
}

/// Variables that tie a process to the repository git is operating on; linters run on content
/// that may be a snapshot outside it, so they never inherit them.
const REPO_LOCAL_VARS: [&str; 4] = ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX"];

impl<'a> LintRequest<'a> {
    /// Lint the changed files of a snapshot, in the snapshot.
    pub(crate) fn snapshot(
        snapshot: &'a crate::snapshot::Snapshot,
        deadline: std::time::Duration,
        log_prefix: String,
    ) -> Self {
        Self {
            dir: snapshot.root(),
            project_files: snapshot.changed(),
            selected: snapshot.changed(),
            whole_tree: false,
            only: &[],
            options: RunOptions { deadline, jobs: super::default_jobs() },
            log_prefix,
        }
    }
}

/// Plans and runs the linters; `progress` first hears how many languages were planned.
pub(crate) fn lint(
    request: &LintRequest<'_>,
    env: &Env,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<LanguageResult>, LintError> {
    let setup = |e: &dyn std::fmt::Display| LintError::Setup(e.to_string());
    let config = ProjectConfig::load(request.dir).map_err(|e| setup(&e))?;
    let registry =
        Registry::builtin().map_err(|e| setup(&e))?.with_project(&config).map_err(|e| setup(&e))?;
    let in_scope = |files: &[String]| -> Vec<String> {
        files
            .iter()
            .filter(|f| !config.is_excluded(f) && !crate::files::is_out_of_lint_scope(f))
            .cloned()
            .collect()
    };
    let project_files = in_scope(request.project_files);
    let selected = in_scope(request.selected);
    let facts = crate::files::root_facts(request.dir);
    let input = PlanInput {
        registry: &registry,
        root: request.dir.to_path_buf(),
        project_files: &project_files,
        selected: &selected,
        whole_tree: request.whole_tree,
        facts: &facts,
        only: request.only,
    };
    let plan = plan::build(&input).map_err(|e| setup(&e))?;
    progress(Progress::Planned(plan.entries.len()));
    let linter_env = Env::from_pairs(
        env.vars()
            .filter(|(k, _)| !REPO_LOCAL_VARS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let mut results = run::execute(&plan, &linter_env, &request.options, progress);
    report::write_logs(&mut results, &crate::state::log_dir(env), &request.log_prefix);
    Ok(results)
}
