//! The language registry: which languages codeguard knows, how to recognise their files and
//! which linters to run for them.
//!
//! In: `registry/languages.json` (compiled in) and optionally a project's `codeguard.json`.
//! Out: a validated [`Registry`]. Validation errors name the language and the field.
//! Never: runs a command or reads anything but the project config file.

mod behaviour;
mod config;
mod detection;
mod managed;
pub(crate) mod rule_config;
mod support;
mod validate;

use serde::{Deserialize, Serialize};

pub(crate) use behaviour::{Behaviour, Pattern};
pub(crate) use config::{ConfigError, GateScope, ProjectConfig};
pub(crate) use detection::{DetectedLanguage, detect_with_interpreters, shebang_interpreter};
pub(crate) use managed::{ManagedTool, ToolSource, command_tool, tool_name};
pub(crate) use support::SupportFiles;
pub(crate) use validate::RegistryError;

/// The registry compiled into the binary.
const BUILTIN_JSON: &str = include_str!("../../registry/languages.json");

/// How mature a language integration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fully supported.
    Stable,
    /// Supported, less proven.
    Beta,
    /// Known but with no linter yet: never run.
    Planned,
}

impl Status {
    /// Whether languages of this status run linters.
    pub fn is_active(self) -> bool {
        match self {
            Self::Stable | Self::Beta => true,
            Self::Planned => false,
        }
    }
}

/// A command as an argument vector.
pub(crate) type Argv = Vec<String>;

/// The command fields of a language entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandField {
    /// `lint`.
    Lint,
    /// `format`.
    Format,
    /// `gate`.
    Gate,
    /// `probe`.
    Probe,
}

impl CommandField {
    /// Every command field, in registry order.
    pub const ALL: [Self; 4] = [Self::Lint, Self::Format, Self::Gate, Self::Probe];

    /// The field's name in the registry document.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lint => "lint",
            Self::Format => "format",
            Self::Gate => "gate",
            Self::Probe => "probe",
        }
    }
}

/// Which of a lint's findings a language's `format` command resolves (`format_fixes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FormatFixes {
    /// A keyword (`"format-only"`).
    Scope(FixScope),
    /// The rule codes it resolves, as prefixes (`"F401"`, `"UP"`).
    Rules(Vec<String>),
    /// The lint's own output says whether any finding is fixable (eslint's "potentially fixable
    /// with the `--fix` option").
    Output {
        /// A regular expression the lint output matches when some finding is fixable.
        output: Pattern,
    },
}

/// The keyword values of `format_fixes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixScope {
    /// The formatter changes layout only: it resolves nothing the lint reports.
    FormatOnly,
}

impl FormatFixes {
    /// Whether the formatter resolves at least one of the findings with these rule codes, given
    /// the lint's `output`.
    pub fn resolves_any<'a>(&self, mut codes: impl Iterator<Item = &'a str>, output: &str) -> bool {
        match self {
            Self::Scope(FixScope::FormatOnly) => false,
            Self::Rules(prefixes) => codes.any(|code| prefixes.iter().any(|p| code.starts_with(p.as_str()))),
            Self::Output { output: pattern } => pattern.is_match(output),
        }
    }
}

/// A root file whose text, when it matches, says the project adopted a formatter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdoptedWhen {
    /// The root-relative file.
    pub file: String,
    /// A regular expression its text must match.
    pub contains: Pattern,
}

/// A project's own way of running a tool (`bundle exec`), used when one of its files says it
/// pins the tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectRunner {
    /// The root file and the pattern that say the project pins the tool (`Gemfile.lock`).
    pub when: AdoptedWhen,
    /// The words put before the tool's command; `{root}` is the project's directory.
    pub argv: Argv,
}

/// What else a linter that judges each file alone reads (a language's `one_file`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneFile {
    /// Configuration files the tool reads outside the project (`~/…`, `$XDG_CONFIG_HOME/…`,
    /// `$VAR/…`), when the project has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_configs: Vec<String>,
    /// Prefixes of the environment variables the tool reads (`RUFF_`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_prefixes: Vec<String>,
    /// A line of the file that makes the tool read another file (a shell `source`): such a file's
    /// result is not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless_file: Option<Pattern>,
    /// A line of a configuration file that makes the tool read another file (`extend = "…"`): no
    /// result is kept under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless_config: Option<Pattern>,
}

/// One language entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// Canonical kebab-case id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Maturity.
    pub status: Status,
    /// File extensions, dot-prefixed and lowercase.
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Exact base names (e.g. `Dockerfile`).
    #[serde(default)]
    pub file_names: Vec<String>,
    /// Interpreters whose `#!` line makes a file this language whatever its name (`zsh` for a
    /// `deploy.sh` starting `#!/usr/bin/env zsh`). Read for extension-less files and for files
    /// of a language that lists interpreters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interpreters: Vec<String>,
    /// The option that tells the lint tool a file's dialect (`--shell=`), followed by the
    /// dialect's name: files are grouped per dialect, one invocation per group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect_option: Option<String>,
    /// Dialect name → the interpreters (from the `#!` line, which wins) and extensions
    /// (dot-prefixed) that select it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub dialects: std::collections::BTreeMap<String, Vec<String>>,
    /// A comment directive by which a file names its own dialect to the tool
    /// (`shellcheck shell=`, as in `# shellcheck shell=bash`): a file carrying it gets no
    /// `dialect_option`, so the tool reads the file's own choice, as it would without codeguard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect_directive: Option<String>,
    /// A line (regular expression) that makes a file a template of the language rather than the
    /// language (`{{ .Values.x }}` in a Helm chart's YAML): such files are not linted as it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_lines: Option<Pattern>,
    /// Root-level files whose presence means the project uses this language.
    #[serde(default)]
    pub markers: Vec<String>,
    /// The lint command: `{files}` = all selected files in one call, `{file}` = one call per file.
    #[serde(default)]
    pub lint: Option<Argv>,
    /// The formatter / auto-fix command.
    #[serde(default)]
    pub format: Option<Argv>,
    /// Which of the lint's findings the `format` command resolves: absent means any (the formatter
    /// is the lint's own fixer); "how to fix" advice is offered only for findings it resolves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_fixes: Option<FormatFixes>,
    /// Root-level files or globs whose presence means the project adopted the `format` command
    /// (its config); absent means always adopted. Without any of them, `codeguard fix` formats a
    /// file only when its `HEAD` version is already formatted that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_adopted_by: Option<Vec<String>>,
    /// Root files whose text adopts the formatter when it matches (`.editorconfig` holding shfmt's
    /// own settings, not merely existing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub format_adopted_when: Vec<AdoptedWhen>,
    /// Environment variables that point the language's tool at a build directory
    /// (`CARGO_TARGET_DIR`): each is set to a persistent per-repository cache under the state
    /// directory (`crate::run::warm`), never the user's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_cache_env: Vec<String>,
    /// How the lint command's output names its findings, one per line, when it does: what the
    /// baseline exemption (`crate::baseline`) reads. Absent: the output is not read finding by
    /// finding (whole-file blame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings_format: Option<crate::findings::Format>,
    /// What the lint (and gate) command's endings mean: required for every language that has one
    /// (see [`Behaviour`]).
    #[serde(default)]
    pub verdict: Behaviour,
    /// Directories of the project its tools need to run and that a snapshot never holds (the
    /// installed dependencies: `node_modules` for eslint's configs and plugins). In a trusted
    /// workspace a snapshot links them to the worktree's, so the project's own tool and plugins
    /// run as its CI would run them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_project_dirs: Vec<String>,
    /// Directories of the project that hold its own copies of the language's tools
    /// (`.venv/bin`, `node_modules/.bin`): in a trusted workspace the project's own tool runs
    /// before codeguard's managed one (`crate::tools::resolve`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub project_bin_dirs: Vec<String>,
    /// How the project runs the language's tool itself when its lock file pins it (rubocop through
    /// `bundle exec`, with the plugins of its `Gemfile`): in a trusted workspace the lint and
    /// format commands are run through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_runner: Option<ProjectRunner>,
    /// A project-level command for whole-tree checks (required when `lint` is per file).
    #[serde(default)]
    pub gate: Option<Argv>,
    /// An explicit availability check (required for `npx` tools).
    #[serde(default)]
    pub probe: Option<Argv>,
    /// Root-level files or globs (`requiresConfig`); none present means the project is not
    /// integrated: skipped, never blocking.
    #[serde(default, rename = "requiresConfig", skip_serializing_if = "Option::is_none")]
    pub requires_config: Option<Vec<String>>,
    /// Config files listed by the session-start summary.
    #[serde(default)]
    pub linter_config_files: Vec<String>,
    /// How to install the tool.
    #[serde(default)]
    pub install_hint: String,
    /// False for project-level commands that must never receive file paths.
    #[serde(default = "default_true")]
    pub append_files: bool,
    /// The per-file lint reads other files of the project than the ones it is given and the
    /// configuration files named here (headers, imports, code-bearing configs): the gate writes
    /// the whole tree for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reads_project: bool,
    /// The per-file lint judges each file alone: its result depends only on the file's bytes and
    /// path, the configuration files (`linter_config_files`) in its directory and the ones above,
    /// what is named here, the tool and its options. Clean results are kept per file and reused by
    /// every later run (`crate::cache::file_results`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_file: Option<OneFile>,
    /// Findings are reported but never block.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub advisory: bool,
    /// The commands that can execute repository content (a build wrapper or build scripts, a
    /// local tool binary, a code-bearing config or plugin): they run only in a workspace the
    /// user trusted (`crate::trust`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs_repo_code: Vec<CommandField>,
}

fn default_true() -> bool {
    true
}

impl Language {
    /// Whether this language's lint command is project-level (never receives paths).
    pub fn is_project_level(&self) -> bool {
        !self.append_files
    }

    /// Whether linting it needs the whole tree, not only the files it checks and the
    /// configuration files (project-level commands, and per-file ones that read the project).
    pub fn reads_whole_tree(&self) -> bool {
        self.is_project_level() || self.reads_project
    }

    /// The command in `field`, if the language has one.
    pub fn command(&self, field: CommandField) -> Option<&Argv> {
        match field {
            CommandField::Lint => self.lint.as_ref(),
            CommandField::Format => self.format.as_ref(),
            CommandField::Gate => self.gate.as_ref(),
            CommandField::Probe => self.probe.as_ref(),
        }
    }

    /// Whether the command in `field` can execute repository content (it is marked in
    /// `runs_repo_code`), so it may run only in a trusted workspace.
    pub fn runs_repo_code(&self, field: CommandField) -> bool {
        self.runs_repo_code.contains(&field)
    }

    /// The dialect of a file of this language: the one its interpreter selects, else the one its
    /// extension selects, else none (the tool decides).
    pub fn dialect_of(&self, path: &str, interpreter: Option<&str>) -> Option<&str> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = extension_of(name);
        let select = |key: &str| {
            self.dialects.iter().find(|(_, keys)| keys.iter().any(|k| k == key)).map(|(d, _)| d.as_str())
        };
        interpreter.and_then(select).or_else(|| ext.as_deref().and_then(select))
    }

    /// The tool the lint command runs (its program name), if any.
    pub fn lint_program(&self) -> Option<&str> {
        self.lint.as_ref().and_then(|argv| argv.first()).map(String::as_str)
    }

    /// The tools the language's commands run, by name, in field order without repeats: each
    /// command's program, or the tool after `npx --no-install` (see [`managed::command_tool`]).
    pub fn tool_programs(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for field in CommandField::ALL {
            if let Some(tool) = self.command(field).and_then(|argv| managed::command_tool(argv))
                && !out.contains(&tool)
            {
                out.push(tool);
            }
        }
        out
    }

    /// How to get the tool of this language when it is missing: `codeguard tools install --lang
    /// <id>` when codeguard manages one of its tools, followed by the registry's `install_hint`.
    pub fn install_advice(&self, registry: &Registry) -> String {
        let managed = self.tool_programs().into_iter().any(|p| registry.managed_tool(p).is_some());
        match (managed, self.install_hint.is_empty()) {
            (false, _) => self.install_hint.clone(),
            (true, true) => format!("codeguard tools install --lang {}", self.id),
            (true, false) => format!("codeguard tools install --lang {}, or {}", self.id, self.install_hint),
        }
    }
}

/// The whole registry: validated languages in registry order.
#[derive(Debug, Clone)]
pub struct Registry {
    languages: Vec<Language>,
    tools: Vec<ManagedTool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    #[serde(rename = "$schema", default)]
    _schema: Option<String>,
    version: u32,
    #[serde(rename = "description", default)]
    _description: Option<String>,
    status_levels: Vec<String>,
    #[serde(default)]
    tools: Vec<serde_json::Value>,
    languages: Vec<serde_json::Value>,
}

impl Registry {
    /// The registry compiled into the binary.
    ///
    /// The built-in registry is validated by a test; a failure here is a build defect, reported
    /// as an error rather than a panic.
    /// Parsed and validated once per process (the gate asks for it more than once).
    pub fn builtin() -> Result<Self, RegistryError> {
        static BUILTIN: std::sync::OnceLock<Result<Registry, RegistryError>> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(|| Self::from_json(BUILTIN_JSON)).clone()
    }

    /// Parses and validates a registry document.
    pub fn from_json(text: &str) -> Result<Self, RegistryError> {
        let file: RegistryFile = serde_json::from_str(text)
            .map_err(|e| RegistryError::new("registry", "document", e.to_string()))?;
        if file.version < 1 {
            return Err(RegistryError::new("registry", "version", "must be at least 1"));
        }
        validate::status_levels(&file.status_levels)?;
        let languages = file
            .languages
            .into_iter()
            .enumerate()
            .map(|(i, value)| validate::parse_language(i, value))
            .collect::<Result<Vec<_>, _>>()?;
        validate::all(&languages)?;
        validate::document(&languages)?;
        let tools = file
            .tools
            .into_iter()
            .enumerate()
            .map(|(i, value)| validate::parse_tool(i, value))
            .collect::<Result<Vec<_>, _>>()?;
        validate::tools(&tools, &languages)?;
        Ok(Self { languages, tools })
    }

    /// The tools codeguard can install for the user, in registry order.
    pub fn managed_tools(&self) -> &[ManagedTool] {
        &self.tools
    }

    /// The managed tool that provides `program` (a bare program name), if codeguard manages it.
    pub fn managed_tool(&self, program: &str) -> Option<&ManagedTool> {
        self.tools.iter().find(|t| t.bins.iter().any(|b| b == program))
    }

    /// The managed tools the language's commands run, in the language's field order.
    pub fn managed_tools_of(&self, lang: &Language) -> Vec<&ManagedTool> {
        let mut out: Vec<&ManagedTool> = Vec::new();
        for tool in lang.tool_programs().into_iter().filter_map(|p| self.managed_tool(p)) {
            if !out.iter().any(|t| t.name == tool.name) {
                out.push(tool);
            }
        }
        out
    }

    /// All languages, in registry order.
    pub fn languages(&self) -> &[Language] {
        &self.languages
    }

    /// The configuration files the languages' tools read (`linter_config_files` and
    /// `requiresConfig` of every language), with codeguard's own (`codeguard.json`,
    /// `.gitattributes`) and `.editorconfig`: what a snapshot of changed files writes beside them.
    pub fn support_files(&self) -> SupportFiles {
        let own = [config::FILE_NAME, ".gitattributes", ".editorconfig"];
        SupportFiles::new(
            self.languages
                .iter()
                .flat_map(|l| l.linter_config_files.iter().chain(l.requires_config.iter().flatten()))
                .map(String::as_str)
                .chain(own),
        )
    }

    /// A language by id.
    pub fn get(&self, id: &str) -> Option<&Language> {
        self.languages.iter().find(|l| l.id == id)
    }

    /// The active (stable/beta) language of a repository-relative path, by file name first and
    /// then by lowercase extension. Planned languages never match.
    pub fn language_of(&self, path: &str) -> Option<&Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let active = || self.languages.iter().filter(|l| l.status.is_active());
        if let Some(lang) = active().find(|l| l.file_names.iter().any(|n| n == name)) {
            return Some(lang);
        }
        let ext = extension_of(name)?;
        active().find(|l| l.extensions.contains(&ext))
    }

    /// The active language of a file whose `#!` line names `interpreter` (when it was read): the
    /// language claiming that interpreter, else [`Self::language_of`] the path.
    pub fn language_of_file(&self, path: &str, interpreter: Option<&str>) -> Option<&Language> {
        let claimed = interpreter.and_then(|i| {
            self.languages
                .iter()
                .filter(|l| l.status.is_active())
                .find(|l| l.interpreters.iter().any(|n| n == i))
        });
        claimed.or_else(|| self.language_of(path))
    }

    /// Whether a file's `#!` line can change its language: it has no extension, or its
    /// language lists interpreters.
    pub fn reads_interpreter(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        extension_of(name).is_none() || self.language_of(path).is_some_and(|l| !l.interpreters.is_empty())
    }

    /// Applies a project's overrides (extension mapping and command replacements).
    pub fn with_project(&self, config: &ProjectConfig) -> Result<Self, ConfigError> {
        config.apply(self)
    }

    pub(crate) fn languages_mut(&mut self) -> &mut Vec<Language> {
        &mut self.languages
    }
}

/// The lowercase, dot-prefixed extension of a file name (`.py`), if it has one.
pub(crate) fn extension_of(name: &str) -> Option<String> {
    let dot = name.rfind('.').filter(|&i| i > 0)?;
    Some(name[dot..].to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_registry_is_valid_and_complete() {
        let registry = Registry::builtin().expect("built-in registry validates");
        assert_eq!(registry.languages().len(), 59);
        let planned: Vec<_> = registry
            .languages()
            .iter()
            .filter(|l| l.status == Status::Planned)
            .map(|l| l.id.as_str())
            .collect();
        assert_eq!(planned, ["cobol", "arkts", "metal"]);
    }

    #[test]
    fn formatters_resolve_only_the_findings_the_registry_says() {
        let registry = Registry::builtin().expect("registry");
        let fixes = |id: &str| registry.get(id).and_then(|l| l.format_fixes.clone()).expect(id);
        for id in ["shell", "rust", "go"] {
            assert!(!fixes(id).resolves_any(["SC2164", "E0308"].into_iter(), ""), "{id} formats only");
        }
        let ruff = fixes("python");
        assert!(ruff.resolves_any(["F821", "F401"].into_iter(), ""));
        assert!(!ruff.resolves_any(["F821", "E999"].into_iter(), ""));
        let eslint = fixes("typescript");
        let unfixable = "✖ 1 problem (1 error, 0 warnings)\n";
        assert!(
            !eslint.resolves_any(["no-unused-vars"].into_iter(), unfixable),
            "no-unused-vars is not fixable"
        );
        let fixable = "✖ 2 problems (2 errors, 0 warnings)\n  1 error and 0 warnings potentially fixable with the `--fix` option.\n";
        assert!(eslint.resolves_any(["no-unused-vars", "@stylistic/semi"].into_iter(), fixable));
        let ruby = registry.get("ruby").and_then(|l| l.format.clone()).expect("ruby");
        assert!(
            ruby.iter().any(|a| a == "--autocorrect") && !ruby.iter().any(|a| a == "-A"),
            "safe corrections only: {ruby:?}"
        );
        assert_eq!(
            registry.get("rust").map(|l| l.build_cache_env.clone()),
            Some(vec!["CARGO_TARGET_DIR".into()])
        );
    }

    #[test]
    fn files_map_to_languages_by_name_then_extension() {
        let registry = Registry::builtin().expect("registry");
        let id = |p: &str| registry.language_of(p).map(|l| l.id.clone());
        assert_eq!(id("src/a.py").as_deref(), Some("python"));
        assert_eq!(id("A.PY").as_deref(), Some("python"));
        assert_eq!(id("deploy/Dockerfile").as_deref(), Some("dockerfile"));
        assert_eq!(id("x.sh").as_deref(), Some("shell"));
        assert_eq!(id("legacy.cbl"), None, "planned languages never match");
        assert_eq!(id("README"), None);
        assert_eq!(id(".bashrc"), None, "a leading dot is not an extension");
        assert_eq!(id("x.zsh").as_deref(), Some("zsh"));
        assert_eq!(id("x.fish").as_deref(), Some("fish"));
        assert_eq!(id("x.ksh").as_deref(), Some("shell"));
    }

    #[test]
    fn the_interpreter_decides_the_language_and_the_dialect() {
        let registry = Registry::builtin().expect("registry");
        let id = |p: &str, i: Option<&str>| registry.language_of_file(p, i).map(|l| l.id.clone());
        assert_eq!(id("deploy.sh", Some("zsh")).as_deref(), Some("zsh"));
        assert_eq!(id("bin/tool", Some("fish")).as_deref(), Some("fish"));
        assert_eq!(id("bin/tool", Some("bash")).as_deref(), Some("shell"));
        assert_eq!(id("bin/tool", Some("python3")), None);
        assert_eq!(id("x.zsh", Some("bash")).as_deref(), Some("shell"));
        assert!(registry.reads_interpreter("bin/tool") && registry.reads_interpreter("a.sh"));
        assert!(!registry.reads_interpreter("a.py"));
        let shell = registry.get("shell").expect("shell");
        let dialect = |p: &str, i: Option<&str>| shell.dialect_of(p, i).map(str::to_owned);
        assert_eq!(dialect("a.sh", None).as_deref(), Some("sh"));
        assert_eq!(dialect("a.sh", Some("bash")).as_deref(), Some("bash"));
        assert_eq!(dialect("a.bash", None).as_deref(), Some("bash"));
        assert_eq!(dialect("a.ksh", Some("mksh")).as_deref(), Some("ksh"));
        assert_eq!(dialect("bin/tool", Some("dash")).as_deref(), Some("dash"));
        assert_eq!(dialect("bin/tool", None), None);
    }
}
