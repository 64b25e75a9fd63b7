//! A project's `codeguard.json`: extension mappings, excludes, command overrides, gate scope.
//!
//! An unreadable or invalid file is an error, never silently the defaults: the caller turns it
//! into a usage error (CLI) or an UNVERIFIED result (hooks).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Argv, CommandField, Registry, RegistryError};

/// The config file name, at the project root.
pub(super) const FILE_NAME: &str = "codeguard.json";

/// A `codeguard.json` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid JSON or does not have the expected shape.
    #[error("invalid {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The overrides produce a registry that breaks a registry rule.
    #[error("invalid {path}: {source}")]
    Registry {
        /// The file.
        path: PathBuf,
        /// The broken rule.
        source: RegistryError,
    },
}

/// Whether the gate checks only the changed files (`delta`) or the whole project (`repo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateScope {
    /// Only the files the commit changes.
    #[default]
    Delta,
    /// The whole project.
    Repo,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandOverride {
    lint: Option<Argv>,
    format: Option<Argv>,
    gate: Option<Argv>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "$schema", default)]
    _schema: Option<String>,
    #[serde(default)]
    extensions: BTreeMap<String, String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    languages: BTreeMap<String, CommandOverride>,
    #[serde(default)]
    gate_scope: GateScope,
    #[serde(default)]
    auto_fix_on_save: bool,
    /// `None` = the default (on); when present it must be a boolean (not `null`).
    #[serde(default, deserialize_with = "present_bool")]
    exclude_vendored: Option<bool>,
}

/// One language's commands as a project's `codeguard.json` defines them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct OwnCommands<'a> {
    /// The language id.
    pub language: &'a str,
    /// Its lint command, when the project replaces it.
    pub lint: Option<&'a Argv>,
    /// Its format command, when the project replaces it.
    pub format: Option<&'a Argv>,
    /// Its gate command, when the project replaces it.
    pub gate: Option<&'a Argv>,
}

/// A loaded, validated project configuration (the defaults when the file is absent).
#[derive(Debug, Default)]
pub struct ProjectConfig {
    path: Option<PathBuf>,
    raw: RawConfig,
    exclude: Vec<regex::Regex>,
}

impl ProjectConfig {
    /// Loads `<root>/codeguard.json`; absent means defaults.
    pub fn load(root: &Path) -> Result<Self, ConfigError> {
        let path = root.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(ConfigError::Unreadable { path, source }),
        };
        Self::parse(&text, path)
    }

    /// Parses config text (the path is used in messages).
    pub fn parse(text: &str, path: PathBuf) -> Result<Self, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid { path: path.clone(), message };
        let raw: RawConfig = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let exclude = raw
            .exclude
            .iter()
            .map(|p| regex::Regex::new(p).map_err(|e| invalid(format!("exclude pattern `{p}`: {e}"))))
            .collect::<Result<_, _>>()?;
        Ok(Self { path: Some(path), raw, exclude })
    }

    /// The config file, when one was loaded.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether a repository-relative path is excluded by the project's patterns.
    pub fn is_excluded(&self, rel: &str) -> bool {
        self.exclude.iter().any(|re| re.is_match(rel))
    }

    /// The configured gate scope.
    pub fn gate_scope(&self) -> GateScope {
        self.raw.gate_scope
    }

    /// Whether a file that fails its lint after an edit is run through its language's formatter
    /// (off by default: a formatter silently rewriting files under an agent surprises people).
    pub fn auto_fix_on_save(&self) -> bool {
        self.raw.auto_fix_on_save
    }

    /// Whether vendored, generated and fixture files are left out of linting (on by default; see
    /// [`crate::files::LintScope`]). `"exclude_vendored": false` lints them too. The safety scan
    /// reads them either way.
    pub fn exclude_vendored(&self) -> bool {
        self.raw.exclude_vendored.unwrap_or(true)
    }

    /// Languages whose commands this project defines for itself (they run only in trusted
    /// workspaces once workspace trust exists).
    pub fn overridden_languages(&self) -> impl Iterator<Item = &str> {
        self.raw.languages.keys().map(String::as_str)
    }

    /// The commands this project defines for itself, normalised: by language (sorted), then
    /// its `lint`, `format` and `gate` argv (absent ones as `None`). What workspace trust binds
    /// to: any change here needs a new `codeguard trust`.
    pub fn own_commands(&self) -> Vec<OwnCommands<'_>> {
        self.raw
            .languages
            .iter()
            .map(|(id, c)| OwnCommands {
                language: id,
                lint: c.lint.as_ref(),
                format: c.format.as_ref(),
                gate: c.gate.as_ref(),
            })
            .collect()
    }

    /// The registry with this project's overrides applied and re-validated.
    pub(super) fn apply(&self, registry: &Registry) -> Result<Registry, ConfigError> {
        let path = self.path.clone().unwrap_or_else(|| PathBuf::from(FILE_NAME));
        let invalid = |message: String| ConfigError::Invalid { path: path.clone(), message };
        let mut out = registry.clone();
        for (ext, id) in &self.raw.extensions {
            let ext = if ext.starts_with('.') {
                ext.to_ascii_lowercase()
            } else {
                format!(".{}", ext.to_ascii_lowercase())
            };
            if out.get(id).is_none() {
                return Err(invalid(format!("extensions: `{ext}` maps to unknown language `{id}`")));
            }
            for lang in out.languages_mut() {
                lang.extensions.retain(|e| *e != ext);
                if lang.id == *id {
                    lang.extensions.push(ext.clone());
                }
            }
        }
        for (id, commands) in &self.raw.languages {
            let lang = out
                .languages_mut()
                .iter_mut()
                .find(|l| l.id == *id)
                .ok_or_else(|| invalid(format!("languages: unknown language `{id}`")))?;
            replace(&mut lang.lint, commands.lint.as_ref());
            replace(&mut lang.format, commands.format.as_ref());
            replace(&mut lang.gate, commands.gate.as_ref());
            if commands.lint.is_some() {
                // The project's own lint command prints what it prints, and takes the options it
                // takes: no findings format, no dialect option added to it.
                lang.findings_format = None;
                lang.dialect_option = None;
                lang.dialects.clear();
                lang.dialect_directive = None;
            }
            if commands.lint.is_some() || commands.format.is_some() {
                // What the built-in formatter resolves or how it is adopted says nothing about
                // the project's own commands: its own formatter is its choice, fixing anything.
                lang.format_fixes = None;
                lang.format_adopted_by = None;
                lang.format_adopted_when.clear();
            }
            // A command the repository defines is repository content by definition.
            let own = [
                (CommandField::Lint, commands.lint.is_some()),
                (CommandField::Format, commands.format.is_some()),
                (CommandField::Gate, commands.gate.is_some()),
            ];
            for (field, given) in own {
                if given && !lang.runs_repo_code(field) {
                    lang.runs_repo_code.push(field);
                }
            }
        }
        super::validate::all(out.languages()).map_err(|source| ConfigError::Registry { path, source })?;
        Ok(out)
    }
}

/// A field that, when present, must be a boolean.
fn present_bool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    bool::deserialize(d).map(Some)
}

fn replace(slot: &mut Option<Argv>, with: Option<&Argv>) {
    if let Some(argv) = with {
        *slot = Some(argv.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProjectConfig, ConfigError> {
        ProjectConfig::parse(text, PathBuf::from("codeguard.json"))
    }

    #[test]
    fn overrides_extend_and_replace() {
        let config = parse(r#"{"extensions": {".pyw": "python"}, "languages": {"python": {"lint": ["ruff", "check", "--select", "E", "{files}"]}}, "exclude": ["^gen/"]}"#)
            .expect("valid");
        let registry = Registry::builtin().expect("registry").with_project(&config).expect("applies");
        assert_eq!(registry.language_of("x.pyw").map(|l| l.id.as_str()), Some("python"));
        assert_eq!(
            registry.get("python").and_then(|l| l.lint.as_ref()).map(|a| a[2].as_str()),
            Some("--select")
        );
        assert!(config.is_excluded("gen/x.py") && !config.is_excluded("src/gen/x.py"));
        let python = registry.get("python").expect("python");
        assert!(
            python.runs_repo_code(CommandField::Lint) && !python.runs_repo_code(CommandField::Format),
            "a command the repository defines is marked as repository content"
        );
    }

    #[test]
    fn an_own_lint_command_gets_no_built_in_output_format_nor_dialect_option() {
        let builtin = Registry::builtin().expect("registry");
        assert!(
            builtin.get("shell").is_some_and(|l| l.dialect_option.is_some() && l.findings_format.is_some())
        );
        let config = parse(r#"{"languages": {"shell": {"lint": ["./mylint.sh", "{files}"]}, "python": {"lint": ["ruff", "check", "{files}"]}}}"#)
            .expect("valid");
        let registry = builtin.with_project(&config).expect("applies");
        let shell = registry.get("shell").expect("shell");
        assert_eq!((shell.dialect_option.as_deref(), shell.dialects.len()), (None, 0));
        assert_eq!(shell.findings_format, None);
        assert_eq!(registry.get("python").and_then(|l| l.findings_format), None);
    }

    #[test]
    fn vendored_files_are_excluded_by_default_and_the_switch_is_a_boolean() {
        assert!(ProjectConfig::default().exclude_vendored());
        assert!(parse("{}").expect("valid").exclude_vendored());
        assert!(!parse(r#"{"exclude_vendored": false}"#).expect("valid").exclude_vendored());
    }

    #[test]
    fn invalid_configs_are_errors_not_defaults() {
        assert!(matches!(parse("{"), Err(ConfigError::Invalid { .. })));
        assert!(matches!(parse(r#"{"colour": 1}"#), Err(ConfigError::Invalid { .. })));
        assert!(matches!(parse(r#"{"exclude": ["("]}"#), Err(ConfigError::Invalid { .. })));
        assert!(matches!(parse(r#"{"exclude_vendored": "no"}"#), Err(ConfigError::Invalid { .. })));
        assert!(matches!(parse(r#"{"exclude_vendored": null}"#), Err(ConfigError::Invalid { .. })));
        let registry = Registry::builtin().expect("registry");
        let unknown = parse(r#"{"languages": {"klingon": {"lint": ["x"]}}}"#).expect("parses");
        assert!(matches!(registry.with_project(&unknown), Err(ConfigError::Invalid { .. })));
        let unpinned =
            parse(r#"{"languages": {"shell": {"lint": ["shellcheck", "{files}"]}}}"#).expect("parses");
        assert!(matches!(registry.with_project(&unpinned), Err(ConfigError::Registry { .. })));
    }
}
