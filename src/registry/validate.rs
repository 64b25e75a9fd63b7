//! Registry validation: every rule names the language and the field it rejects.
//!
//! Two layers: [`all`] holds for every registry, the built-in one and one with a project's
//! overrides applied; [`document`] holds for registry documents (the built-in registry) only:
//! every command that can execute repository content is marked `runs_repo_code`, and every lint
//! passes its tool's no-fix switch.

use std::collections::BTreeMap;

use super::{Argv, CommandField, Language, ManagedTool, Status};

/// Programs that execute repository content when they run, with what they execute. A command
/// running one of them (or a program given by a relative path, like `./gradlew`) must be
/// marked `runs_repo_code`. An entry with a sub-command matches only that sub-command.
pub(crate) const REPO_CODE_PROGRAMS: &[(&str, Option<&str>, &str)] = &[
    ("cargo", None, "build scripts, procedural macros, .cargo/config aliases and runners"),
    ("npx", None, "the repository's node_modules/.bin tools and JavaScript configs"),
    ("npm", None, "package scripts and the repository's node_modules tools"),
    ("pnpm", None, "package scripts and the repository's node_modules tools"),
    ("yarn", None, "package scripts and the repository's node_modules tools"),
    ("bun", None, "package scripts and the repository's node_modules tools"),
    ("bunx", None, "the repository's node_modules/.bin tools"),
    ("mix", None, "mix.exs and the project's dependencies"),
    ("bundle", None, "the Gemfile's gems (bundle exec)"),
    ("rake", None, "the Rakefile"),
    ("make", None, "the Makefile"),
    ("mvn", None, "plugins and extensions the pom declares"),
    ("gradle", None, "the Gradle build scripts"),
    ("dotnet", None, "MSBuild project files, analyzers and local tool manifests"),
    ("dart", Some("analyze"), "analyzer plugins the project declares"),
    ("rubocop", None, "Ruby files that .rubocop.yml requires"),
    ("theme-check", None, "Ruby checks that .theme-check.yml requires"),
    ("ansible-lint", None, "the repository's plugins, modules and rules"),
    ("php-cs-fixer", None, ".php-cs-fixer.dist.php (PHP)"),
    ("luacheck", None, ".luacheckrc (Lua)"),
    ("Rscript", None, ".Rprofile and .lintr (R)"),
    ("pwsh", None, "custom rule modules that PSScriptAnalyzerSettings.psd1 names"),
    ("nim", None, "compile-time code (macros, staticExec) and config.nims"),
    ("sqlfluff", None, "Python macros of the templater's library_path"),
    ("elm-review", None, "the repository's review configuration (compiled and run)"),
    ("tflint", None, "plugins from the plugin_dir that .tflint.hcl names"),
    ("solhint", None, "JavaScript configs and plugins"),
    ("npm-groovy-lint", None, "JavaScript configs (.groovylintrc.js)"),
    ("clj-kondo", None, "the hooks that .clj-kondo/config.edn declares"),
];

/// Linters whose project configuration can turn fixing on, with the switch that turns it off
/// again: a lint or gate command running one of them must pass the switch.
pub(crate) const NO_FIX_SWITCHES: &[(&str, &str, &str)] =
    &[("ruff", "check", "--no-fix"), ("golangci-lint", "run", "--fix=false")];

/// A registry rule was broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("registry: language `{language}`, field `{field}`: {message}")]
pub struct RegistryError {
    /// The language id (or `registry` for document-level problems, `#N` when the id is unknown).
    pub language: String,
    /// The offending field.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl RegistryError {
    pub(super) fn new(
        language: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self { language: language.into(), field: field.into(), message: message.into() }
    }
}

/// The kinds of value a language field holds.
#[derive(Clone, Copy)]
enum FieldKind {
    Text,
    Names,
    Command,
    Flag,
    Level,
    Fields,
    Dialects,
    Fixes,
    FindingsFormat,
    Verdict,
    AdoptedWhen,
    Pattern,
    Runner,
    OneFile,
}

const FIELDS: &[(&str, FieldKind)] = &[
    ("id", FieldKind::Text),
    ("name", FieldKind::Text),
    ("status", FieldKind::Level),
    ("extensions", FieldKind::Names),
    ("file_names", FieldKind::Names),
    ("interpreters", FieldKind::Names),
    ("dialect_option", FieldKind::Text),
    ("dialects", FieldKind::Dialects),
    ("dialect_directive", FieldKind::Text),
    ("template_lines", FieldKind::Pattern),
    ("markers", FieldKind::Names),
    ("lint", FieldKind::Command),
    ("format", FieldKind::Command),
    ("format_fixes", FieldKind::Fixes),
    ("format_adopted_by", FieldKind::Names),
    ("format_adopted_when", FieldKind::AdoptedWhen),
    ("build_cache_env", FieldKind::Names),
    ("findings_format", FieldKind::FindingsFormat),
    ("verdict", FieldKind::Verdict),
    ("needs_project_dirs", FieldKind::Names),
    ("project_bin_dirs", FieldKind::Names),
    ("project_runner", FieldKind::Runner),
    ("gate", FieldKind::Command),
    ("probe", FieldKind::Command),
    ("requiresConfig", FieldKind::Names),
    ("linter_config_files", FieldKind::Names),
    ("install_hint", FieldKind::Text),
    ("append_files", FieldKind::Flag),
    ("reads_project", FieldKind::Flag),
    ("one_file", FieldKind::OneFile),
    ("advisory", FieldKind::Flag),
    ("runs_repo_code", FieldKind::Fields),
];

pub(super) fn status_levels(levels: &[String]) -> Result<(), RegistryError> {
    for required in ["stable", "beta", "planned"] {
        if !levels.iter().any(|l| l == required) {
            return Err(RegistryError::new(
                "registry",
                "status_levels",
                format!("must contain `{required}`"),
            ));
        }
    }
    Ok(())
}

/// Checks the shape of one entry field by field, then deserialises it.
pub(super) fn parse_language(index: usize, value: serde_json::Value) -> Result<Language, RegistryError> {
    let serde_json::Value::Object(map) = &value else {
        return Err(RegistryError::new(format!("#{index}"), "entry", "must be an object"));
    };
    let id = map.get("id").and_then(|v| v.as_str()).map_or_else(|| format!("#{index}"), str::to_owned);
    for (key, field_value) in map {
        let Some((_, kind)) = FIELDS.iter().find(|(name, _)| name == key) else {
            return Err(RegistryError::new(&id, key, "unknown field"));
        };
        check_kind(*kind, field_value).map_err(|message| RegistryError::new(&id, key, message))?;
    }
    for required in ["id", "name", "status"] {
        if !map.contains_key(required) {
            return Err(RegistryError::new(&id, required, "is required"));
        }
    }
    serde_json::from_value(value).map_err(|e| RegistryError::new(&id, "entry", e.to_string()))
}

fn check_kind(kind: FieldKind, value: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let all_strings = |items: &Vec<Value>| items.iter().all(|i| i.as_str().is_some_and(|s| !s.is_empty()));
    match (kind, value) {
        (FieldKind::Text, Value::String(_))
        | (FieldKind::Flag, Value::Bool(_))
        | (FieldKind::Command, Value::Null) => Ok(()),
        (FieldKind::Level, Value::String(s)) if matches!(s.as_str(), "stable" | "beta" | "planned") => Ok(()),
        (FieldKind::Level, _) => Err("must be one of stable, beta, planned".into()),
        (FieldKind::Names, Value::Array(items)) if all_strings(items) => Ok(()),
        (FieldKind::Names, _) => Err("must be a list of non-empty strings".into()),
        (FieldKind::Command, Value::Array(items)) if !items.is_empty() && all_strings(items) => Ok(()),
        (FieldKind::Command, _) => Err("must be null or a non-empty argv list of non-empty strings".into()),
        (FieldKind::Fields, Value::Array(items))
            if items
                .iter()
                .all(|i| i.as_str().is_some_and(|s| CommandField::ALL.iter().any(|f| f.as_str() == s))) =>
        {
            Ok(())
        }
        (FieldKind::Fields, _) => Err("must be a list of command fields (lint, format, gate, probe)".into()),
        (FieldKind::Dialects, Value::Object(map))
            if map
                .values()
                .all(|v| v.as_array().is_some_and(|items| !items.is_empty() && all_strings(items))) =>
        {
            Ok(())
        }
        (FieldKind::Dialects, _) => {
            Err("must map each dialect to a non-empty list of interpreters and extensions".into())
        }
        (FieldKind::Fixes, Value::String(s)) if s == "format-only" => Ok(()),
        (FieldKind::Fixes, Value::Array(items)) if !items.is_empty() && all_strings(items) => Ok(()),
        (FieldKind::Fixes, Value::Object(map))
            if map.len() == 1
                && map.get("output").is_some_and(|p| {
                    serde_json::from_value::<crate::registry::Pattern>(p.clone()).is_ok()
                }) =>
        {
            Ok(())
        }
        (FieldKind::Fixes, _) => {
            Err("must be \"format-only\", a non-empty list of rule-code prefixes, or {\"output\": regex}"
                .into())
        }
        (FieldKind::FindingsFormat, Value::String(s))
            if crate::findings::Format::ALL.iter().any(|(_, name)| name == s) =>
        {
            Ok(())
        }
        (FieldKind::FindingsFormat, _) => Err(format!(
            "must be one of {}",
            crate::findings::Format::ALL.map(|(_, name)| format!("\"{name}\"")).join(", ")
        )),
        (FieldKind::Verdict, value @ Value::Object(_)) => {
            let behaviour: crate::registry::Behaviour =
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            let range_ok = behaviour.findings_exit_range.is_none_or(|[lo, hi]| 0 < lo && lo <= hi);
            if (behaviour.findings_exits.is_empty() && behaviour.findings_exit_range.is_none())
                || behaviour.findings_exits.contains(&0)
                || !range_ok
            {
                return Err("findings_exits must list the non-zero exit codes that mean findings".into());
            }
            Ok(())
        }
        (FieldKind::AdoptedWhen, value @ Value::Array(_)) => {
            serde_json::from_value::<Vec<crate::registry::AdoptedWhen>>(value.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        (FieldKind::Runner, value @ Value::Object(_)) => {
            let runner: crate::registry::ProjectRunner =
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            if runner.argv.is_empty() {
                return Err("argv must name the runner".into());
            }
            Ok(())
        }
        (FieldKind::Runner, _) => Err("must be an object {when, argv}".into()),
        (FieldKind::OneFile, value @ Value::Object(_)) => {
            serde_json::from_value::<crate::registry::OneFile>(value.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        (FieldKind::OneFile, _) => {
            Err("must be an object {user_configs, env_prefixes, unless_file, unless_config}".into())
        }
        (FieldKind::Pattern, value @ Value::String(_)) => {
            serde_json::from_value::<crate::registry::Pattern>(value.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        (FieldKind::Pattern, _) => Err("must be a regular expression".into()),
        (FieldKind::AdoptedWhen, _) => Err("must be a list of {file, contains} objects".into()),
        (FieldKind::Verdict, _) => Err("must be an object (findings_exits, …)".into()),
        (FieldKind::Text, _) => Err("must be a string".into()),
        (FieldKind::Flag, _) => Err("must be true or false".into()),
    }
}

/// Cross-field and cross-entry rules.
pub(super) fn all(languages: &[Language]) -> Result<(), RegistryError> {
    let mut ids = std::collections::BTreeSet::new();
    for lang in languages {
        if !ids.insert(lang.id.as_str()) {
            return Err(RegistryError::new(&lang.id, "id", "duplicate id"));
        }
        entry(lang)?;
    }
    no_collisions(languages, "extensions", |l| &l.extensions)?;
    no_collisions(languages, "file_names", |l| &l.file_names)?;
    no_collisions(languages, "markers", |l| &l.markers)?;
    no_collisions(languages, "interpreters", |l| &l.interpreters)?;
    Ok(())
}

/// Interpreters are program names; dialects come with their option and select only the
/// language's own interpreters and extensions.
fn dialect_rules(lang: &Language) -> Result<(), RegistryError> {
    let err = |field: &str, message: String| Err(RegistryError::new(&lang.id, field, message));
    if let Some(bad) = lang.interpreters.iter().find(|i| i.contains('/') || i.contains(char::is_whitespace)) {
        return err("interpreters", format!("`{bad}` must be a program name (no path, no spaces)"));
    }
    if lang.dialects.is_empty() != lang.dialect_option.is_none() {
        return err("dialect_option", "dialects and dialect_option go together".into());
    }
    if lang.dialect_directive.is_some() && lang.dialect_option.is_none() {
        return err("dialect_directive", "a dialect directive needs a dialect_option to leave out".into());
    }
    for (dialect, keys) in &lang.dialects {
        let foreign = keys.iter().find(|k| {
            if k.starts_with('.') { !lang.extensions.contains(k) } else { !lang.interpreters.contains(k) }
        });
        if let Some(key) = foreign {
            return err(
                "dialects",
                format!(
                    "dialect `{dialect}`: `{key}` is not one of the language's interpreters or extensions"
                ),
            );
        }
    }
    Ok(())
}

fn entry(lang: &Language) -> Result<(), RegistryError> {
    let err = |field: &str, message: &str| Err(RegistryError::new(&lang.id, field, message));
    if !is_kebab(&lang.id) {
        return err("id", "must be kebab-case (lowercase letters and digits separated by single dashes)");
    }
    for ext in &lang.extensions {
        if !ext.starts_with('.') || ext.len() < 2 {
            return err("extensions", &format!("`{ext}` must start with a dot"));
        }
        if *ext != ext.to_ascii_lowercase() {
            return err("extensions", &format!("`{ext}` must be lowercase"));
        }
    }
    dialect_rules(lang)?;
    let commands =
        [("lint", &lang.lint), ("format", &lang.format), ("gate", &lang.gate), ("probe", &lang.probe)];
    if lang.status == Status::Planned {
        if let Some((field, _)) = commands.iter().find(|(_, c)| c.is_some()) {
            return err(field, "a planned language has no commands");
        }
        if !lang.runs_repo_code.is_empty() {
            return err("runs_repo_code", "a planned language has no commands to mark");
        }
        return Ok(());
    }
    for field in &lang.runs_repo_code {
        if lang.command(*field).is_none() {
            return err(
                "runs_repo_code",
                &format!("lists `{}`, but the language has no {} command", field.as_str(), field.as_str()),
            );
        }
    }
    if lang.lint.is_none() && lang.format.is_none() {
        return err("lint", "a stable or beta language needs a lint or a format command");
    }
    if !lang.needs_project_dirs.is_empty() && !lang.runs_repo_code(CommandField::Lint) {
        return err(
            "needs_project_dirs",
            "the project's installed dependencies run its code: the lint must be marked in runs_repo_code",
        );
    }
    if let Some(bad) =
        lang.project_bin_dirs.iter().find(|d| d.starts_with('/') || d.split('/').any(|c| c == ".."))
    {
        return err("project_bin_dirs", &format!("`{bad}` must be a directory inside the project"));
    }
    if let Some(bad) = lang.needs_project_dirs.iter().find(|d| d.contains('/') || d.starts_with('.')) {
        return err("needs_project_dirs", &format!("`{bad}` must be a directory name at the root"));
    }
    for (field, command) in commands {
        if let Some(argv) = command {
            command_rules(lang, field, argv)?;
        }
    }
    if let Some(lint) = &lang.lint {
        // A language found by its `#!` lines is checked file by file in a whole-tree run too: a
        // find-based gate could not see which files those are.
        if has_token(lint, "{file}") && lang.gate.is_none() && lang.interpreters.is_empty() {
            return err("gate", "a per-file lint command ({file}) needs a project-level gate command");
        }
        if lang.is_project_level() && (has_token(lint, "{file}") || has_token(lint, "{files}")) {
            return err("lint", "append_files=false commands must not take file placeholders");
        }
    }
    if (lang.lint.is_some() || lang.gate.is_some())
        && lang.verdict.findings_exits.is_empty()
        && lang.verdict.findings_exit_range.is_none()
    {
        return err(
            "verdict",
            "a lint or gate command needs a `verdict` saying what its exit codes mean (findings_exits, …)",
        );
    }
    Ok(())
}

fn command_rules(lang: &Language, field: &str, argv: &Argv) -> Result<(), RegistryError> {
    let err = |message: &str| Err(RegistryError::new(&lang.id, field, message));
    let text = argv.join(" ");
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == '|').collect();
    if matches!(field, "lint" | "gate") && words.contains(&"shellcheck") && !text.contains("--severity=") {
        return err("shellcheck must pin --severity= so findings do not depend on its defaults");
    }
    if words.contains(&"npx") {
        if !text.contains("--no-install") {
            return err("npx must use --no-install (never download a tool during a check)");
        }
        if lang.probe.is_none() {
            return Err(RegistryError::new(&lang.id, "probe", "an npx command needs an explicit probe"));
        }
    }
    if argv.first().is_some_and(|p| p == "bash" || p == "sh") && argv.get(1).is_none_or(|a| a != "-c") {
        return err("a shell command must be exactly [\"bash\", \"-c\", \"…\"]");
    }
    Ok(())
}

/// The last argument of a probe: a command every tool answers with exit 0 when it is installed
/// (`--help` is not one: markdownlint-cli2 exits 2 on it).
pub(crate) const PROBE_ENDINGS: &[&str] = &["--version", "version"];

/// Rules for registry documents: commands that execute repository content are marked, lints
/// never fix, probes ask for a version, and linters a project installs itself (`npx`) are opt-in.
pub(super) fn document(languages: &[Language]) -> Result<(), RegistryError> {
    for lang in languages.iter().filter(|l| l.status.is_active()) {
        for field in CommandField::ALL {
            let Some(argv) = lang.command(field) else { continue };
            let name = field.as_str();
            if let Some((program, why)) = repo_code(argv).filter(|_| !lang.runs_repo_code(field)) {
                return Err(RegistryError::new(
                    &lang.id,
                    name,
                    format!(
                        "runs `{program}`, which executes repository content ({why}): list \"{name}\" in runs_repo_code so it runs only in a trusted workspace"
                    ),
                ));
            }
            if matches!(field, CommandField::Lint | CommandField::Gate)
                && let Some((tool, switch)) = missing_no_fix(argv)
            {
                return Err(RegistryError::new(
                    &lang.id,
                    name,
                    format!(
                        "`{tool}` must pass `{switch}`: a lint never writes, whatever the project's configuration says"
                    ),
                ));
            }
        }
        probe_and_opt_in(lang)?;
    }
    Ok(())
}

/// A probe asks for a version; a linter the project installs itself (`npx`) is opt-in.
fn probe_and_opt_in(lang: &Language) -> Result<(), RegistryError> {
    if let Some(probe) = &lang.probe
        && !probe.last().is_some_and(|a| PROBE_ENDINGS.contains(&a.as_str()))
    {
        return Err(RegistryError::new(
            &lang.id,
            "probe",
            format!(
                "a probe must be a version command (ending in {}) that exits 0 when the tool is installed",
                PROBE_ENDINGS.join(" or ")
            ),
        ));
    }
    let npx_lint = lang.lint.as_ref().is_some_and(|l| l.first().is_some_and(|p| p == "npx"));
    if npx_lint && lang.requires_config.is_none() {
        return Err(RegistryError::new(
            &lang.id,
            "requiresConfig",
            "a linter the project installs itself (npx) is opt-in: name its config files in requiresConfig",
        ));
    }
    Ok(())
}

/// The program of `argv` that executes repository content, and what it executes: a program
/// given by a relative path, or one of [`REPO_CODE_PROGRAMS`] — also inside a `bash -c` script.
pub(crate) fn repo_code(argv: &Argv) -> Option<(String, &'static str)> {
    let shell = argv.first().is_some_and(|p| p == "bash" || p == "sh");
    let words: Vec<&str> = if shell {
        let script = argv.get(2).map_or("", String::as_str);
        script.split(|c: char| c.is_whitespace() || matches!(c, '|' | ';' | '&' | '(' | ')')).collect()
    } else {
        argv.iter().take(2).map(String::as_str).collect()
    };
    // Outside a script only the program itself is a program; inside one, any word may be.
    let programs = if shell { words.len() } else { words.len().min(1) };
    for (i, word) in words.iter().enumerate().take(programs) {
        let relative = if shell {
            word.starts_with("./") || word.starts_with("../")
        } else {
            word.contains('/') && !word.starts_with('/')
        };
        if relative {
            return Some(((*word).to_owned(), "a program inside the repository"));
        }
        let next = words.get(i + 1).copied();
        if let Some((program, _, why)) =
            REPO_CODE_PROGRAMS.iter().find(|(p, sub, _)| p == word && sub.is_none_or(|s| next == Some(s)))
        {
            return Some(((*program).to_owned(), why));
        }
    }
    None
}

/// The tool and no-fix switch `argv` lacks, if it runs a linter whose configuration can turn
/// fixing on.
fn missing_no_fix(argv: &Argv) -> Option<(String, &'static str)> {
    let (program, sub, switch) = NO_FIX_SWITCHES
        .iter()
        .find(|(p, s, _)| argv.first().is_some_and(|a| a == p) && argv.get(1).is_some_and(|a| a == s))?;
    (!argv.iter().any(|a| a == switch)).then(|| (format!("{program} {sub}"), *switch))
}

/// Programs that belong to a system toolchain (a compiler, a language runtime, a build tool):
/// the user's, never a tool codeguard installs.
pub(crate) const SYSTEM_TOOLCHAINS: &[&str] = &[
    "cargo",
    "rustc",
    "rustup",
    "go",
    "gofmt",
    "javac",
    "java",
    "mvn",
    "gradle",
    "dotnet",
    "node",
    "npm",
    "npx",
    "python",
    "python3",
    "swift",
    "swiftc",
    "zig",
    "dart",
    "mix",
    "elixir",
    "ruby",
    "php",
    "perl",
    "zsh",
    "fish",
    "bash",
    "sh",
    "clang-tidy",
    "clang-format",
    "nim",
    "crystal",
    "julia",
    "Rscript",
    "pwsh",
    "terraform",
];

/// Fields a managed tool entry may have.
const TOOL_FIELDS: &[(&str, FieldKind)] = &[
    ("name", FieldKind::Text),
    ("version", FieldKind::Text),
    ("pypi", FieldKind::Text),
    ("npm", FieldKind::Text),
    ("bins", FieldKind::Names),
    ("version_args", FieldKind::Names),
];

/// Checks the shape of one `tools` entry field by field, then deserialises it. Errors name the
/// entry as `tools.<name>`.
pub(super) fn parse_tool(index: usize, value: serde_json::Value) -> Result<ManagedTool, RegistryError> {
    let serde_json::Value::Object(map) = &value else {
        return Err(RegistryError::new(format!("tools.#{index}"), "entry", "must be an object"));
    };
    let id = map
        .get("name")
        .and_then(|v| v.as_str())
        .map_or_else(|| format!("tools.#{index}"), |n| format!("tools.{n}"));
    for (key, field_value) in map {
        let Some((_, kind)) = TOOL_FIELDS.iter().find(|(name, _)| name == key) else {
            return Err(RegistryError::new(&id, key, "unknown field"));
        };
        check_kind(*kind, field_value).map_err(|message| RegistryError::new(&id, key, message))?;
    }
    for required in ["name", "version", "bins"] {
        if !map.contains_key(required) {
            return Err(RegistryError::new(&id, required, "is required"));
        }
    }
    serde_json::from_value(value).map_err(|e| RegistryError::new(&id, "entry", e.to_string()))
}

/// Rules for managed tools: one package registry each, an exact version, program names that no
/// other tool claims, never a system toolchain, and every tool run by an active language.
pub(super) fn tools(tools: &[ManagedTool], languages: &[Language]) -> Result<(), RegistryError> {
    let mut names = std::collections::BTreeSet::new();
    let mut bins: BTreeMap<&str, &str> = BTreeMap::new();
    let used: std::collections::BTreeSet<&str> =
        languages.iter().filter(|l| l.status.is_active()).flat_map(Language::tool_programs).collect();
    for tool in tools {
        let id = format!("tools.{}", tool.name);
        let err = |field: &str, message: String| Err(RegistryError::new(&id, field, message));
        if !is_kebab(&tool.name) {
            return err("name", "must be kebab-case".into());
        }
        if !names.insert(tool.name.as_str()) {
            return err("name", "duplicate tool".into());
        }
        if tool.pypi.is_some() == tool.npm.is_some() {
            return err("pypi", "a managed tool comes from exactly one of pypi or npm".into());
        }
        if !is_exact_version(&tool.version) {
            return err("version", format!("`{}` must be one exact version (no range)", tool.version));
        }
        if tool.bins.is_empty() {
            return err("bins", "must name the programs the tool provides".into());
        }
        for bin in &tool.bins {
            if bin.contains('/') || bin.contains(char::is_whitespace) {
                return err("bins", format!("`{bin}` must be a program name (no path, no spaces)"));
            }
            if SYSTEM_TOOLCHAINS.contains(&bin.as_str()) {
                return err(
                    "bins",
                    format!("`{bin}` is a system toolchain: the user's, never installed by codeguard"),
                );
            }
            if let Some(first) = bins.insert(bin.as_str(), tool.name.as_str()) {
                return err("bins", format!("`{bin}` is already provided by `{first}`"));
            }
        }
        if !tool.bins.iter().any(|b| used.contains(b.as_str())) {
            return err("bins", "no active language's command runs any of these programs".into());
        }
    }
    Ok(())
}

/// An exact version: starts with a digit, holds only digits, letters and `.+-` (`0.11.0.1`,
/// `1.0.0-rc.1`), never a range or wildcard.
fn is_exact_version(version: &str) -> bool {
    version.starts_with(|c: char| c.is_ascii_digit())
        && version.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
}

fn no_collisions(
    languages: &[Language],
    field: &str,
    values: impl Fn(&Language) -> &Vec<String>,
) -> Result<(), RegistryError> {
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    for lang in languages.iter().filter(|l| l.status.is_active()) {
        for value in values(lang) {
            if let Some(first) = owner.insert(value.as_str(), lang.id.as_str()) {
                return Err(RegistryError::new(
                    &lang.id,
                    field,
                    format!("`{value}` is already claimed by `{first}`"),
                ));
            }
        }
    }
    Ok(())
}

fn has_token(argv: &Argv, token: &str) -> bool {
    argv.iter().any(|a| a.contains(token))
}

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::super::Registry;

    /// A small valid registry; each test breaks one rule in it. An entry with a lint or gate
    /// command and no `verdict` gets `{"findings_exits": [1]}` (see `a_lint_needs_a_verdict`).
    fn doc(languages: &str) -> String {
        let text = format!(
            r#"{{"version": 1, "status_levels": ["stable", "beta", "planned"], "languages": [{languages}]}}"#
        );
        let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&text) else { return text };
        for lang in value["languages"].as_array_mut().into_iter().flatten() {
            let Some(map) = lang.as_object_mut() else { continue };
            let runs = |k: &str| map.get(k).is_some_and(|v| !v.is_null());
            if (runs("lint") || runs("gate")) && !map.contains_key("verdict") {
                map.insert("verdict".into(), serde_json::json!({"findings_exits": [1]}));
            }
        }
        value.to_string()
    }

    #[test]
    fn a_lint_needs_a_verdict() {
        let bare = r#"{"version": 1, "status_levels": ["stable", "beta", "planned"], "languages": [{"id": "python", "name": "Python", "status": "stable", "extensions": [".py"], "lint": ["ruff", "check", "--no-fix", "{files}"]}]}"#;
        let err = Registry::from_json(bare).expect_err("no verdict");
        assert_eq!((err.language.as_str(), err.field.as_str()), ("python", "verdict"), "{err}");
        let zero = PY.replace(r#""lint""#, r#""verdict": {"findings_exits": [0]}, "lint""#);
        rejects(&zero, "python", "verdict");
        let bad_regex = PY.replace(
            r#""lint""#,
            r#""verdict": {"findings_exits": [1], "environment": ["(unclosed"]}, "lint""#,
        );
        assert!(rejects(&bad_regex, "python", "verdict").contains("not a regular expression"));
    }

    const PY: &str = r#"{"id": "python", "name": "Python", "status": "stable", "extensions": [".py"], "markers": ["pyproject.toml"], "lint": ["ruff", "check", "--no-fix", "{files}"]}"#;

    fn rejects(languages: &str, language: &str, field: &str) -> String {
        let err = Registry::from_json(&doc(languages)).expect_err("must be rejected");
        assert_eq!((err.language.as_str(), err.field.as_str()), (language, field), "{err}");
        let text = err.to_string();
        assert!(text.contains(language) && text.contains(field), "{text}");
        text
    }

    #[test]
    fn a_valid_document_loads() {
        assert_eq!(Registry::from_json(&doc(PY)).expect("valid").languages().len(), 1);
    }

    #[test]
    fn duplicate_ids() {
        rejects(
            &format!("{PY},{}", PY.replace(".py", ".pyw").replace("pyproject.toml", "x")),
            "python",
            "id",
        );
    }

    #[test]
    fn ids_are_kebab_case() {
        rejects(&PY.replace("\"python\"", "\"Python_3\""), "Python_3", "id");
    }

    #[test]
    fn extensions_are_dot_prefixed() {
        rejects(&PY.replace("\".py\"", "\"py\""), "python", "extensions");
    }

    #[test]
    fn extensions_are_lowercase() {
        rejects(&PY.replace("\".py\"", "\".PY\""), "python", "extensions");
    }

    #[test]
    fn extensions_do_not_collide() {
        let other = r#"{"id": "snake", "name": "Snake", "status": "beta", "extensions": [".py"], "lint": ["snake", "{files}"]}"#;
        let text = rejects(&format!("{PY},{other}"), "snake", "extensions");
        assert!(text.contains("python"));
    }

    #[test]
    fn markers_do_not_collide() {
        let other = r#"{"id": "snake", "name": "Snake", "status": "beta", "extensions": [".sn"], "markers": ["pyproject.toml"], "lint": ["snake", "{files}"]}"#;
        rejects(&format!("{PY},{other}"), "snake", "markers");
    }

    #[test]
    fn planned_languages_may_share_extensions() {
        let planned = r#"{"id": "old-py", "name": "Old", "status": "planned", "extensions": [".py"]}"#;
        Registry::from_json(&doc(&format!("{PY},{planned}"))).expect("planned entries do not collide");
    }

    #[test]
    fn planned_languages_have_no_commands() {
        rejects(&PY.replace("\"stable\"", "\"planned\""), "python", "lint");
    }

    #[test]
    fn active_languages_need_a_command() {
        rejects(&PY.replace(r#", "lint": ["ruff", "check", "--no-fix", "{files}"]"#, ""), "python", "lint");
    }

    #[test]
    fn per_file_commands_need_a_gate() {
        rejects(&PY.replace("{files}", "{file}"), "python", "gate");
        let by_shebang = PY
            .replace("{files}", "{file}")
            .replace(r#""markers""#, r#""interpreters": ["python3"], "markers""#);
        Registry::from_json(&doc(&by_shebang)).expect("a language found by #! lines is checked file by file");
    }

    #[test]
    fn project_level_commands_take_no_files() {
        rejects(&PY.replace(r#""lint""#, r#""append_files": false, "lint""#), "python", "lint");
    }

    #[test]
    fn shellcheck_pins_severity() {
        let sh = r#"{"id": "shell", "name": "Shell", "status": "stable", "extensions": [".sh"], "lint": ["shellcheck", "{files}"]}"#;
        rejects(sh, "shell", "lint");
        Registry::from_json(&doc(&sh.replace("\"shellcheck\",", "\"shellcheck\", \"--severity=warning\",")))
            .expect("pinned");
    }

    #[test]
    fn npx_uses_no_install() {
        let js = r#"{"id": "js", "name": "JS", "status": "stable", "extensions": [".js"], "lint": ["npx", "eslint", "{files}"], "probe": ["npx", "--no-install", "eslint", "--version"]}"#;
        rejects(js, "js", "lint");
    }

    #[test]
    fn npx_needs_a_probe() {
        let js = r#"{"id": "js", "name": "JS", "status": "stable", "extensions": [".js"], "lint": ["npx", "--no-install", "eslint", "{files}"]}"#;
        rejects(js, "js", "probe");
    }

    #[test]
    fn shell_commands_use_bash_dash_c() {
        rejects(
            &PY.replace(r#"["ruff", "check", "--no-fix", "{files}"]"#, r#"["bash", "lint.sh"]"#),
            "python",
            "lint",
        );
    }

    #[test]
    fn unknown_fields_are_rejected() {
        rejects(&PY.replace(r#""name""#, r#""colour": "red", "name""#), "python", "colour");
    }

    #[test]
    fn field_types_are_checked() {
        rejects(&PY.replace(r#"["pyproject.toml"]"#, r#""pyproject.toml""#), "python", "markers");
        rejects(&PY.replace(r#""lint": ["ruff""#, r#""lint": ["", "ruff""#), "python", "lint");
        rejects(&PY.replace(r#""stable""#, r#""gold""#), "python", "status");
        rejects(&PY.replace(r#""lint""#, r#""append_files": "yes", "lint""#), "python", "append_files");
    }

    #[test]
    fn commands_that_run_repository_content_must_be_marked() {
        let kt = r#"{"id": "kotlin", "name": "Kotlin", "status": "stable", "extensions": [".kt"], "append_files": false, "lint": ["./gradlew", "detekt"]}"#;
        let text = rejects(kt, "kotlin", "lint");
        assert!(text.contains("`./gradlew`") && text.contains("runs_repo_code"), "{text}");
        Registry::from_json(&doc(&kt.replace(r#""lint""#, r#""runs_repo_code": ["lint"], "lint""#)))
            .expect("marked");
        for (program, field) in [
            (r#""lint": ["cargo", "clippy"]"#, "lint"),
            (r#""lint": ["tools/lint"]"#, "lint"),
            (r#""lint": ["mix", "credo"]"#, "lint"),
            (r#""lint": ["bundle", "exec", "rubocop"]"#, "lint"),
            (r#""lint": ["dart", "analyze"]"#, "lint"),
            (r#""lint": ["go", "vet"], "gate": ["bash", "-c", "find . | xargs ./check"]"#, "gate"),
            (
                r#""lint": ["go", "vet"], "gate": ["bash", "-c", "true && npx --no-install x"], "probe": ["true"]"#,
                "gate",
            ),
        ] {
            let lang = format!(
                r#"{{"id": "x", "name": "X", "status": "beta", "extensions": [".x"], "append_files": false, {program}}}"#
            );
            rejects(&lang, "x", field);
        }
        let npx = r#"{"id": "js", "name": "JS", "status": "stable", "extensions": [".js"], "lint": ["npx", "--no-install", "eslint", "{files}"], "probe": ["npx", "--no-install", "eslint", "--version"], "runs_repo_code": ["lint"]}"#;
        rejects(npx, "js", "probe");
        let dart_format = r#"{"id": "dart", "name": "Dart", "status": "stable", "extensions": [".dart"], "format": ["dart", "format", "."]}"#;
        Registry::from_json(&doc(dart_format)).expect("dart format runs no repository code");
    }

    #[test]
    fn repo_code_marks_name_existing_commands() {
        rejects(
            &PY.replace(r#""lint""#, r#""runs_repo_code": ["gate"], "lint""#),
            "python",
            "runs_repo_code",
        );
        rejects(
            &PY.replace(r#""lint""#, r#""runs_repo_code": ["build"], "lint""#),
            "python",
            "runs_repo_code",
        );
        let planned = r#"{"id": "old", "name": "Old", "status": "planned", "extensions": [".o"], "runs_repo_code": ["lint"]}"#;
        rejects(planned, "old", "runs_repo_code");
    }

    #[test]
    fn lints_pass_their_no_fix_switch() {
        let text = rejects(&PY.replace(r#""--no-fix", "#, ""), "python", "lint");
        assert!(text.contains("--no-fix"), "{text}");
        Registry::from_json(&doc(
            &PY.replace(r#""lint""#, r#""format": ["ruff", "check", "--fix", "{files}"], "lint""#)
        ))
        .expect("a formatter fixes");
    }

    #[test]
    fn the_builtin_marks_are_exactly_the_commands_that_run_repository_content() {
        let registry = Registry::builtin().expect("registry");
        for lang in registry.languages() {
            for field in super::CommandField::ALL {
                let Some(argv) = lang.command(field) else { continue };
                assert_eq!(
                    lang.runs_repo_code(field),
                    super::repo_code(argv).is_some(),
                    "{} {}: {argv:?}",
                    lang.id,
                    field.as_str()
                );
            }
        }
        let marked = |id: &str| registry.get(id).is_some_and(|l| !l.runs_repo_code.is_empty());
        for id in ["kotlin", "java", "rust", "typescript", "elixir", "ruby", "ansible", "markdown"] {
            assert!(marked(id), "{id}");
        }
        for id in ["python", "shell", "yaml", "dockerfile", "go"] {
            assert!(!marked(id), "{id}");
        }
    }

    #[test]
    fn probes_ask_for_a_version() {
        let js = r#"{"id": "js", "name": "JS", "status": "stable", "extensions": [".js"], "lint": ["npx", "--no-install", "eslint", "{files}"], "probe": ["npx", "--no-install", "eslint", "--help"], "requiresConfig": ["eslint.config.js"], "runs_repo_code": ["lint", "probe"]}"#;
        let text = rejects(js, "js", "probe");
        assert!(text.contains("--version"), "{text}");
        Registry::from_json(&doc(&js.replace("--help", "--version"))).expect("a version probe");
    }

    #[test]
    fn npx_linters_are_opt_in() {
        let js = r#"{"id": "js", "name": "JS", "status": "stable", "extensions": [".js"], "lint": ["npx", "--no-install", "eslint", "{files}"], "probe": ["npx", "--no-install", "eslint", "--version"], "runs_repo_code": ["lint", "probe"]}"#;
        rejects(js, "js", "requiresConfig");
    }

    #[test]
    fn the_builtin_probes_are_version_commands_and_opt_in_linters_name_their_configs() {
        let registry = Registry::builtin().expect("registry");
        for lang in registry.languages() {
            if let Some(probe) = &lang.probe {
                let last = probe.last().map_or("", String::as_str);
                assert!(super::PROBE_ENDINGS.contains(&last), "{}: {probe:?}", lang.id);
            }
        }
        // Opt-in by convention: without the linter's own config the project is not integrated.
        for id in ["css", "markdown", "html", "toml", "yaml"] {
            let lang = registry.get(id).expect(id);
            let required = lang.requires_config.as_ref().expect(id);
            let configs = &lang.linter_config_files;
            assert!(configs.iter().all(|c| required.contains(c)), "{id}: {required:?} vs {configs:?}");
        }
    }

    #[test]
    fn interpreters_and_dialects() {
        let sh = r#"{"id": "sh", "name": "Sh", "status": "stable", "extensions": [".sh"], "interpreters": ["bash"], "dialect_option": "--shell=", "dialects": {"bash": ["bash", ".sh"]}, "lint": ["shellcheck", "--severity=warning", "{files}"]}"#;
        Registry::from_json(&doc(sh)).expect("valid");
        rejects(
            &sh.replace(r#"["bash"], "dialect_option""#, r#"["/bin/bash"], "dialect_option""#),
            "sh",
            "interpreters",
        );
        rejects(&sh.replace(r#""dialect_option": "--shell=", "#, ""), "sh", "dialect_option");
        rejects(&sh.replace(r#"["bash", ".sh"]"#, r#"["zsh"]"#), "sh", "dialects");
        rejects(&sh.replace(r#"["bash", ".sh"]"#, r#"[".zsh"]"#), "sh", "dialects");
        rejects(&sh.replace(r#"["bash", ".sh"]"#, "[]"), "sh", "dialects");
        let other = r#"{"id": "other", "name": "O", "status": "beta", "extensions": [".o"], "interpreters": ["bash"], "lint": ["o", "{files}"]}"#;
        rejects(&format!("{sh},{other}"), "other", "interpreters");
    }

    const TOOL: &str = r#"{"name": "ruff", "version": "0.17.6", "pypi": "ruff", "bins": ["ruff"]}"#;

    fn with_tools(tools: &str) -> String {
        doc(PY).replacen(r#""languages""#, &format!(r#""tools": [{tools}], "languages""#), 1)
    }

    fn rejects_tool(tools: &str, tool: &str, field: &str) -> String {
        let err = Registry::from_json(&with_tools(tools)).expect_err("must be rejected");
        assert_eq!((err.language.as_str(), err.field.as_str()), (tool, field), "{err}");
        err.to_string()
    }

    #[test]
    fn managed_tools_load_and_serve_their_languages() {
        let registry = Registry::from_json(&with_tools(TOOL)).expect("valid");
        let python = registry.get("python").expect("python");
        assert_eq!(registry.managed_tools_of(python).len(), 1);
        assert_eq!(python.install_advice(&registry), "codeguard tools install --lang python");
    }

    #[test]
    fn managed_tools_come_from_exactly_one_registry() {
        rejects_tool(&TOOL.replace(r#""pypi": "ruff", "#, ""), "tools.ruff", "pypi");
        rejects_tool(&TOOL.replace(r#""pypi""#, r#""npm": "ruff", "pypi""#), "tools.ruff", "pypi");
    }

    #[test]
    fn managed_tools_pin_one_exact_version() {
        for range in [">=0.17", "^0.17.6", "0.17.*", "latest", ""] {
            rejects_tool(&TOOL.replace("0.17.6", range), "tools.ruff", "version");
        }
    }

    #[test]
    fn managed_tools_are_never_system_toolchains() {
        let cargo = r#"{"name": "cargo", "version": "1.0.0", "pypi": "cargo", "bins": ["cargo"]}"#;
        let text = rejects_tool(cargo, "tools.cargo", "bins");
        assert!(text.contains("system toolchain"), "{text}");
    }

    #[test]
    fn managed_tools_are_run_by_a_language_and_provide_distinct_programs() {
        let stale = r#"{"name": "black", "version": "24.1.0", "pypi": "black", "bins": ["black"]}"#;
        rejects_tool(&format!("{TOOL},{stale}"), "tools.black", "bins");
        let twice = TOOL.replace(r#""name": "ruff""#, r#""name": "ruff-two""#);
        rejects_tool(&format!("{TOOL},{twice}"), "tools.ruff-two", "bins");
        rejects_tool(&format!("{TOOL},{TOOL}"), "tools.ruff", "name");
        rejects_tool(&TOOL.replace(r#""bins""#, r#""colour": "red", "bins""#), "tools.ruff", "colour");
        rejects_tool(&TOOL.replace(r#", "bins": ["ruff"]"#, ""), "tools.ruff", "bins");
    }

    #[test]
    fn the_builtin_manages_the_linters_of_the_common_languages_and_no_toolchain() {
        let registry = Registry::builtin().expect("registry");
        let names = |id: &str| -> Vec<String> {
            let lang = registry.get(id).expect(id);
            registry.managed_tools_of(lang).iter().map(|t| t.name.clone()).collect()
        };
        assert_eq!(names("python"), ["ruff"]);
        assert_eq!(names("shell"), ["shellcheck", "shfmt"]);
        assert_eq!(names("yaml"), ["yamllint"]);
        assert_eq!(names("toml"), ["taplo"]);
        assert_eq!(names("markdown"), ["markdownlint-cli2"]);
        for id in ["rust", "go", "java", "csharp", "zsh"] {
            assert_eq!(names(id), Vec::<String>::new(), "{id}");
        }
    }

    #[test]
    fn required_fields_are_present() {
        rejects(&PY.replace(r#""name": "Python", "#, ""), "python", "name");
    }
}
