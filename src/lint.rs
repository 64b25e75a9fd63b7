//! The lint engine shared by every entry point: load the project's configuration from the
//! content being checked, plan the languages of the selected files, run them, write the logs.
//!
//! Workspace trust is enforced here, so every entry point honours it: a language whose commands
//! the project's `codeguard.json` defines runs only when the user trusted the workspace
//! (`crate::trust`); otherwise it is UNVERIFIED with a one-line hint. So is a built-in registry
//! command marked `runs_repo_code` (a build wrapper, `cargo`, `npx`, ...); other built-in
//! commands run as usual.

use std::collections::BTreeSet;
use std::path::Path;

use crate::env::Env;
use crate::outcome::LanguageResult;
use crate::plan::{self, Plan, PlanInput};
use crate::project::{Project, SetupError};
use crate::registry::{ProjectConfig, Registry};
use crate::report;
use crate::run::{self, Progress, RunOptions};

/// What to lint.
pub(crate) struct LintRequest<'a> {
    /// Where the content is (the project, or a snapshot of it); linters run here.
    pub dir: &'a Path,
    /// The user's project directory the content comes from (never a snapshot): its workspace's
    /// trust decides whether the project's own commands may run.
    pub workspace: &'a Path,
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
    /// The names in the project root when `dir` does not hold them all (a snapshot of changed
    /// files): what planning reads as root markers.
    pub root_names: Option<&'a BTreeSet<String>>,
    /// `dir` is the repository's stable tree (`run::warm::StableTree`): building linters use its
    /// own build directory.
    pub stable: bool,
}

/// Why linting could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LintError {
    /// The project's configuration or the request is invalid (a usage problem for the CLI, an
    /// UNVERIFIED result for the gate).
    #[error("{0}")]
    Setup(String),
}

impl From<SetupError> for LintError {
    fn from(e: SetupError) -> Self {
        LintError::Setup(e.0)
    }
}

/// Variables that tie a process to the repository git is operating on; linters run on content
/// that may be a snapshot outside it, so they never inherit them.
const REPO_LOCAL_VARS: [&str; 4] = ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX"];

impl<'a> LintRequest<'a> {
    /// Lint some files of a worktree in place (the prompt soft gate, the check after an edit).
    pub(crate) fn worktree_files(
        root: &'a Path,
        files: &'a [String],
        only: &'a [String],
        options: RunOptions,
        log_prefix: String,
    ) -> Self {
        Self {
            dir: root,
            workspace: root,
            project_files: files,
            selected: files,
            whole_tree: false,
            only,
            options,
            log_prefix,
            root_names: None,
            stable: false,
        }
    }

    /// Lint the changed files of a snapshot, in the snapshot.
    pub(crate) fn snapshot(
        snapshot: &'a crate::snapshot::Snapshot,
        workspace: &'a Path,
        deadline: std::time::Duration,
        log_prefix: String,
    ) -> Self {
        Self {
            dir: snapshot.root(),
            workspace,
            project_files: snapshot.changed(),
            selected: snapshot.changed(),
            whole_tree: false,
            only: &[],
            options: RunOptions { deadline, jobs: crate::run::default_jobs(), reuse: true },
            log_prefix,
            root_names: Some(snapshot.root_names()),
            stable: false,
        }
    }
}

/// Plans and runs the linters; `progress` first hears how many languages were planned.
pub(crate) fn lint(
    request: &LintRequest<'_>,
    env: &Env,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Vec<LanguageResult>, LintError> {
    let prepared = prepare(request, env)?;
    Ok(execute(&prepared, request, env, progress))
}

/// A planned check, not yet run.
pub(crate) struct Prepared {
    /// The registry with the project's overrides.
    pub registry: Registry,
    /// The plan (with the project's own commands withheld in an untrusted workspace).
    pub plan: Plan,
    /// A job that will run reads more of the project than the files it checks and their
    /// configuration: a project-level linter, a per-file one marked `reads_project`, or a
    /// command the project defines (what it reads is unknown).
    pub reads_whole_tree: bool,
    /// The workspace is trusted (part of every per-file result's key); only asked when a planned
    /// language keeps per-file results.
    pub trusted: bool,
}

/// Loads the project's configuration from the content and plans the check.
pub(crate) fn prepare(request: &LintRequest<'_>, env: &Env) -> Result<Prepared, LintError> {
    let setup = |e: &dyn std::fmt::Display| LintError::Setup(e.to_string());
    let project = Project::load(request.dir)?;
    let project_files = project.in_scope(request.project_files);
    let selected = project.in_scope(request.selected);
    let mut facts = crate::files::lint_facts(
        request.dir,
        Some(request.workspace),
        &project_files,
        &selected,
        &project.registry,
    );
    if let Some(names) = request.root_names {
        facts.names.clone_from(names);
    }
    let input = PlanInput {
        registry: &project.registry,
        root: request.dir.to_path_buf(),
        project_files: &project_files,
        selected: &selected,
        whole_tree: request.whole_tree,
        facts: &facts,
        only: request.only,
        parallelism: request.options.jobs,
    };
    let mut plan = plan::build(&input).map_err(|e| setup(&e))?;
    withhold_untrusted(&mut plan, &project.config, request.workspace, env);
    let own =
        crate::tools::trusted_own_tools(&plan, &project.registry, request.workspace, env, &project.config);
    crate::tools::resolve(&mut plan, &project.registry, env, &own);
    let own: BTreeSet<&str> = project.config.overridden_languages().collect();
    let reads_whole_tree = plan.entries.iter().any(|e| {
        matches!(e.action, plan::Action::Run(_))
            && (own.contains(e.language.as_str())
                || project.registry.get(&e.language).is_some_and(crate::registry::Language::reads_whole_tree))
    });
    let keeps_file_results = plan.entries.iter().any(|e| {
        matches!(e.action, plan::Action::Run(_))
            && project.registry.get(&e.language).is_some_and(|l| l.one_file.is_some())
    });
    let trusted = keeps_file_results && crate::trust::is_trusted(env, request.workspace, &project.config);
    Ok(Prepared { registry: project.registry, plan, reads_whole_tree, trusted })
}

/// Lints the changed files of `snapshot` in it: plans on what it holds (the changed files and
/// their configuration), and first adds the rest of the tree when a planned job reads the whole
/// project. A snapshot that cannot be completed is a setup error (UNVERIFIED for the caller).
/// `warm`: a building linter lints in the repository's stable tree (`run::warm::StableTree`);
/// off for a baseline run, whose content would make the next gate rebuild what changed back.
pub(crate) fn lint_snapshot(
    snapshot: &mut crate::snapshot::Snapshot,
    workspace: &Path,
    only: &[String],
    options: RunOptions,
    log_prefix: &str,
    warm: bool,
    env: &Env,
) -> Result<Vec<LanguageResult>, LintError> {
    fn request<'a>(
        snapshot: &'a crate::snapshot::Snapshot,
        workspace: &'a Path,
        only: &'a [String],
        options: RunOptions,
        log_prefix: &str,
    ) -> LintRequest<'a> {
        let mut request = LintRequest::snapshot(snapshot, workspace, options.deadline, log_prefix.to_owned());
        request.only = only;
        request.options = options;
        request
    }
    let mut prepared = prepare(&request(snapshot, workspace, only, options, log_prefix), env)?;
    if prepared.reads_whole_tree {
        snapshot.complete().map_err(|e| {
            LintError::Setup(format!("the whole tree a planned linter reads could not be rebuilt ({e})"))
        })?;
        // Completing may move the snapshot (beside the base-tree cache): the same plan, run there.
        prepared.plan.relocate(snapshot.root());
    }
    link_project_dirs(&prepared, snapshot.root(), workspace);
    // A linter that builds is warm only at a path whose unchanged files keep their times.
    let stable = if warm && builds(&prepared) {
        run::warm::StableTree::sync(snapshot.root(), workspace, env)
    } else {
        None
    };
    let results = match &stable {
        Some(tree) => {
            let mut request = request(snapshot, workspace, only, options, log_prefix);
            request.dir = tree.root();
            request.stable = true;
            prepared.plan.relocate(tree.root());
            execute(&prepared, &request, env, &|_| {})
        }
        None => execute(&prepared, &request(snapshot, workspace, only, options, log_prefix), env, &|_| {}),
    };
    // A linter that wrote through a link to the base-tree cache made that entry wrong; it is
    // evicted, and the lint result (of content the linter itself changed) stands as it would in a
    // private copy.
    let _ = snapshot.shared_intact();
    Ok(results)
}

/// Links the project directories the planned jobs need (their registry `needs_project_dirs`,
/// installed dependencies a snapshot never holds) from the worktree into the snapshot at `dir`,
/// read where they are: the project's own tools and plugins load as its CI would load them. Only
/// for jobs that run because the workspace is trusted (such languages mark their commands as
/// running repository content, so an untrusted workspace's jobs were withheld), only real
/// directories (never a link, which could point anywhere), and never over a path the snapshot
/// holds. A snapshot is removed without following links.
fn link_project_dirs(prepared: &Prepared, dir: &Path, workspace: &Path) {
    if dir == workspace {
        return;
    }
    for entry in &prepared.plan.entries {
        let plan::Action::Run(job) = &entry.action else { continue };
        if !job.runs_repo_code {
            continue;
        }
        let Some(lang) = prepared.registry.get(&entry.language) else { continue };
        for name in &lang.needs_project_dirs {
            let (from, to) = (workspace.join(name), dir.join(name));
            if std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_dir())
                && std::fs::symlink_metadata(&to).is_err()
            {
                let _ = std::os::unix::fs::symlink(&from, &to);
            }
        }
    }
}

/// Whether a planned job runs a linter that builds (its registry entry names a build cache).
fn builds(prepared: &Prepared) -> bool {
    prepared.plan.entries.iter().any(|e| {
        matches!(e.action, plan::Action::Run(_))
            && prepared.registry.get(&e.language).is_some_and(|l| !l.build_cache_env.is_empty())
    })
}

/// Runs a prepared plan and writes the logs.
pub(crate) fn execute(
    prepared: &Prepared,
    request: &LintRequest<'_>,
    env: &Env,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<LanguageResult> {
    progress(Progress::Planned(prepared.plan.entries.len()));
    let linter_env = Env::from_pairs(
        env.vars()
            .filter(|(k, _)| !REPO_LOCAL_VARS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let linter_env = run::warm::with_build_caches(
        linter_env,
        &prepared.plan,
        &prepared.registry,
        request.workspace,
        request.stable,
        env,
    );
    // Files whose clean result is known (same bytes, configuration, tool, options) are not
    // linted again.
    let reuse = crate::cache::file_results::Reuse::look_up(
        &prepared.plan,
        &prepared.registry,
        env,
        prepared.trusted,
        request.options.reuse,
    );
    let remaining = reuse.any().then(|| reuse.remaining(&prepared.plan));
    let plan = remaining.as_ref().unwrap_or(&prepared.plan);
    // In place (not in a snapshot), prove afterwards that the linters changed no file.
    let guard = (request.dir == request.workspace)
        .then(|| run::inplace::Guard::before(request.dir, &[request.project_files, request.selected], plan));
    let mut results = run::execute(plan, &linter_env, &request.options, progress);
    if let Some(guard) = guard {
        guard.verify(&mut results);
    }
    reuse.record(plan, &results, &prepared.registry, env);
    let mut results = reuse.merge(&prepared.plan, results);
    report::write_logs(&mut results, &crate::state::log_dir(env), &request.log_prefix);
    results
}

/// Turns the runs of languages whose commands the project defines, and of registry commands that
/// can execute repository content, into UNVERIFIED results with a trust hint, unless the user
/// trusted the workspace. Costs nothing without such commands.
pub(crate) fn withhold_untrusted(plan: &mut Plan, config: &ProjectConfig, workspace: &Path, env: &Env) {
    let own: BTreeSet<String> = config.overridden_languages().map(str::to_owned).collect();
    if (own.is_empty() && !plan.runs_repo_code()) || crate::trust::is_trusted(env, workspace, config) {
        return;
    }
    let root = crate::trust::workspace_root(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let reason = format!(
        "not run: codeguard.json defines this command and the workspace is not trusted; {}",
        crate::trust::hint(&root)
    );
    plan.withhold(&own, &reason);
    plan.withhold_repo_code(&crate::trust::hint(&root));
}

/// The detected languages whose lint (or its probe) executes repository content, as
/// `id (program)`.
pub(crate) fn repo_code_linters(
    registry: &Registry,
    detected: &[crate::registry::DetectedLanguage],
) -> Vec<String> {
    use crate::registry::CommandField;
    detected
        .iter()
        .filter_map(|d| registry.get(&d.id))
        .filter(|l| crate::plan::Job::runs_repo_code(l, CommandField::Lint))
        .map(|l| format!("{} ({})", l.id, l.lint_program().unwrap_or("its linter")))
        .collect()
}
