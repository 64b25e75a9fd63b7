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

/// A project's configuration and the registry with its overrides applied: what every entry point
/// that runs a project's tools (lint or format) starts from.
pub(crate) struct Project {
    /// The project's `codeguard.json` (defaults when absent).
    pub config: ProjectConfig,
    /// The built-in registry with the project's overrides.
    pub registry: Registry,
}

impl Project {
    /// Loads the configuration of the content in `dir` and applies it to the registry.
    pub(crate) fn load(dir: &Path) -> Result<Self, LintError> {
        let setup = |e: &dyn std::fmt::Display| LintError::Setup(e.to_string());
        let config = ProjectConfig::load(dir).map_err(|e| setup(&e))?;
        let registry =
            Registry::builtin().map_err(|e| setup(&e))?.with_project(&config).map_err(|e| setup(&e))?;
        Ok(Self { config, registry })
    }

    /// The files that are in lint scope: not excluded by the project, not in artifact or dot
    /// directories.
    pub(crate) fn in_scope(&self, files: &[String]) -> Vec<String> {
        files
            .iter()
            .filter(|f| !self.config.is_excluded(f) && !crate::files::is_out_of_lint_scope(f))
            .cloned()
            .collect()
    }
}

/// Plans and runs the linters; `progress` first hears how many languages were planned.
pub(crate) fn lint(
    request: &LintRequest<'_>,
    env: &Env,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<LanguageResult>, LintError> {
    let project = Project::load(request.dir)?;
    let project_files = project.in_scope(request.project_files);
    let selected = project.in_scope(request.selected);
    let facts = crate::files::root_facts(request.dir);
    let input = PlanInput {
        registry: &project.registry,
        root: request.dir.to_path_buf(),
        project_files: &project_files,
        selected: &selected,
        whole_tree: request.whole_tree,
        facts: &facts,
        only: request.only,
    };
    let plan = plan::build(&input).map_err(|e| LintError::Setup(e.to_string()))?;
    progress(Progress::Planned(plan.entries.len()));
    let mut results = run::execute(&plan, env, &request.options, progress);
    report::write_logs(&mut results, &crate::state::log_dir(env), &request.log_prefix);
    Ok(results)
}
