//! The project: its configuration, the registry with its overrides, and the one reading of
//! which languages it has ([`Inventory`]) that `detect`, `init`, `doctor`, the session start and
//! the gate's planning all share.
//!
//! In: a directory (a worktree root or a snapshot of content) and the files listed in it.
//! Out: [`Project`] (config, registry, lint scope) and [`Inventory`] (the root facts of the files
//! in lint scope, the detected languages and which of them the project integrated).
//! Never: lists files itself (the caller hands the listing over: git's, or a walk), runs a tool.

use std::path::{Path, PathBuf};

use crate::files::RootFacts;
use crate::registry::{DetectedLanguage, Language, ProjectConfig, Registry};

/// The project's configuration could not be used (a broken `codeguard.json`, a bad override).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SetupError(pub String);

/// A project's configuration and the registry with its overrides applied: what every entry point
/// that runs a project's tools (lint or format) starts from.
pub(crate) struct Project {
    /// The project's `codeguard.json` (defaults when absent).
    pub config: ProjectConfig,
    /// The built-in registry with the project's overrides.
    pub registry: Registry,
    /// Vendored, generated and fixture files of the content (not linted).
    pub scope: crate::files::LintScope,
}

impl Project {
    /// Loads the configuration of the content in `dir` and applies it to the registry.
    pub(crate) fn load(dir: &Path) -> Result<Self, SetupError> {
        let setup = |e: &dyn std::fmt::Display| SetupError(e.to_string());
        let config = ProjectConfig::load(dir).map_err(|e| setup(&e))?;
        let registry =
            Registry::builtin().map_err(|e| setup(&e))?.with_project(&config).map_err(|e| setup(&e))?;
        let scope = crate::files::LintScope::load(dir, config.exclude_vendored());
        Ok(Self { config, registry, scope })
    }

    /// The files that are in lint scope: not excluded by the project, not in artifact
    /// directories, not vendored, generated or fixtures.
    pub(crate) fn in_scope(&self, files: &[String]) -> Vec<String> {
        files
            .iter()
            .filter(|f| {
                !self.config.is_excluded(f)
                    && !crate::files::is_out_of_lint_scope(f)
                    && !self.scope.excludes(f)
            })
            .cloned()
            .collect()
    }
}

/// The one reading of what a project has: its files in lint scope, the facts planning needs,
/// and the languages detected in them. Every command that names a project's languages asks this.
pub(crate) struct Inventory {
    /// The directory read.
    pub root: PathBuf,
    /// Configuration and registry.
    pub project: Project,
    /// Root names, `#!` interpreters, dialect directives, templates.
    pub facts: RootFacts,
    /// The languages of its files in lint scope, in registry order.
    pub detected: Vec<DetectedLanguage>,
}

impl Inventory {
    /// Reads the project at `root` whose files are `listing` (repository-relative).
    pub(crate) fn of(root: &Path, listing: &[String]) -> Result<Self, SetupError> {
        Ok(Self::with(root, Project::load(root)?, listing))
    }

    /// [`Inventory::of`], or — when the project's configuration cannot be used — the inventory
    /// by the built-in registry with the error beside it (for summaries that warn and go on).
    /// `None` only when the built-in registry itself fails.
    pub(crate) fn or_builtin(root: &Path, listing: &[String]) -> Option<(Self, Option<SetupError>)> {
        match Self::of(root, listing) {
            Ok(inventory) => Some((inventory, None)),
            Err(e) => {
                let registry = Registry::builtin().ok()?;
                let config = ProjectConfig::default();
                let scope = crate::files::LintScope::load(root, config.exclude_vendored());
                let project = Project { config, registry, scope };
                Some((Self::with(root, project, listing), Some(e)))
            }
        }
    }

    /// [`Inventory::of`] with a project already loaded.
    pub(crate) fn with(root: &Path, project: Project, listing: &[String]) -> Self {
        let files = project.in_scope(listing);
        let facts = crate::files::lint_facts(root, None, &files, &files, &project.registry);
        let detected = crate::registry::detect_with_interpreters(
            &project.registry,
            &files,
            &facts.names,
            &facts.interpreters,
        );
        Self { root: root.to_path_buf(), project, facts, detected }
    }

    /// The config files that would integrate `lang` when none of them is at the root (empty when
    /// it is integrated: a language whose linter requires no config, or one of them is there).
    pub(crate) fn missing_config(&self, lang: &Language) -> Vec<String> {
        lang.requires_config.clone().filter(|r| !self.facts.has_any(r)).unwrap_or_default()
    }

    /// The detected languages the project integrated (the ones every check runs), in registry
    /// order.
    pub(crate) fn integrated(&self) -> impl Iterator<Item = &Language> {
        self.detected
            .iter()
            .filter_map(|d| self.project.registry.get(&d.id))
            .filter(|lang| self.missing_config(lang).is_empty())
    }
}
