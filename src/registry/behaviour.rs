//! How a language's lint tool behaves, as registry data: what its exit codes mean, how it names
//! its findings, which of its words mean "no conclusion" rather than "bad code".
//!
//! In: the `verdict` object and `findings_format` of a language entry. Out: [`Behaviour`], which
//! `crate::verdict` reads to judge a run and `crate::findings` reads to parse its output.
//! Never: names a program — the facts about a tool live in `registry/languages.json`, beside its
//! command, so no verdict code branches on a program's name.

use serde::{Deserialize, Serialize};

/// Regular expressions read from the registry. Each is parsed when the registry is read (a
/// pattern that does not parse makes the entry invalid, so the registry refuses it); the set is
/// compiled the first time it is matched, so reading the registry — on every hook — costs a parse
/// per pattern, not the compilation of every language's patterns (measured: compiling them all
/// was three quarters of a 50-file gate's instructions). A set that parses but cannot be compiled
/// (beyond the regex crate's size limit) matches nothing. Matching is per line.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Patterns(Option<std::sync::Arc<Compiled>>);

/// The sources of a [`Patterns`] and, once matched, their compiled set.
#[derive(Debug)]
struct Compiled {
    sources: Vec<String>,
    set: std::sync::OnceLock<Option<regex::RegexSet>>,
}

impl Patterns {
    /// The first line of `text` one of the patterns matches.
    pub(crate) fn first_match<'t>(&self, text: &'t str) -> Option<&'t str> {
        let compiled = self.0.as_deref()?;
        let set = compiled.set.get_or_init(|| regex::RegexSet::new(&compiled.sources).ok()).as_ref()?;
        text.lines().find(|line| set.is_match(line))
    }

    /// Whether a line of `text` matches one of the patterns.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.first_match(text).is_some()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn sources(&self) -> &[String] {
        self.0.as_deref().map_or(&[], |compiled| &compiled.sources)
    }
}

impl TryFrom<Vec<String>> for Patterns {
    type Error = String;

    fn try_from(sources: Vec<String>) -> Result<Self, String> {
        if sources.is_empty() {
            return Ok(Self::default());
        }
        for source in &sources {
            regex_syntax::Parser::new()
                .parse(source)
                .map_err(|e| format!("not a regular expression: {e}"))?;
        }
        Ok(Self(Some(std::sync::Arc::new(Compiled { sources, set: std::sync::OnceLock::new() }))))
    }
}

impl TryFrom<String> for Patterns {
    type Error = String;

    fn try_from(source: String) -> Result<Self, String> {
        Self::try_from(vec![source])
    }
}

impl From<Patterns> for Vec<String> {
    fn from(patterns: Patterns) -> Self {
        patterns.sources().to_vec()
    }
}

impl PartialEq for Patterns {
    fn eq(&self, other: &Self) -> bool {
        self.sources() == other.sources()
    }
}

impl Eq for Patterns {}

/// One regular expression from the registry, compiled once (see [`Patterns`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Pattern(Patterns);

impl Pattern {
    /// Whether a line of `text` matches it.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

impl TryFrom<String> for Pattern {
    type Error = String;

    fn try_from(source: String) -> Result<Self, String> {
        Patterns::try_from(source).map(Self)
    }
}

impl From<Pattern> for String {
    fn from(pattern: Pattern) -> Self {
        pattern.0.sources().first().cloned().unwrap_or_default()
    }
}

/// An exit code that means findings only when the output says so (`fish --no-execute` exits 127
/// for a syntax error and for a missing file alike).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitWhen {
    /// The exit code.
    pub exit: i32,
    /// A regular expression the output must match for the exit to mean findings.
    pub output: Pattern,
}

/// What a lint tool's endings mean (the `verdict` object of a language entry).
///
/// The words patterns (`missing_component`, `environment`, `config_error`) are matched against
/// the tool's own lines only — never against its findings (`crate::findings::tool_lines`), whose
/// messages quote what the code says: a string literal reading "dial tcp" in a finding is a
/// finding, not a network failure.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Behaviour {
    /// Exit codes that mean "findings": the code is at fault (`[1]` for most tools; cargo's
    /// `101`; `go vet`'s `1` and `2`). Every other non-zero exit reaches no conclusion.
    pub findings_exits: Vec<i32>,
    /// An inclusive range of exit codes that mean findings, for tools whose exit counts them or
    /// is a bit mask of finding kinds (`Invoke-ScriptAnalyzer -EnableExit`, credo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings_exit_range: Option<[i32; 2]>,
    /// Exit codes that mean findings only when the output matches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings_exit_when: Vec<ExitWhen>,
    /// The tool's lines saying a part of it is not installed (cargo's "no such command:
    /// clippy"): the tool is missing, whatever the exit code.
    #[serde(default, skip_serializing_if = "Patterns::is_empty")]
    pub missing_component: Patterns,
    /// The tool's lines saying the environment failed, not the code (a module download without a
    /// network): no conclusion, whatever the exit code.
    #[serde(default, skip_serializing_if = "Patterns::is_empty")]
    pub environment: Patterns,
    /// The tool's lines saying its own configuration is broken (`Failed to parse … ruff.toml`):
    /// no conclusion, and the tool's words are the reason.
    #[serde(default, skip_serializing_if = "Patterns::is_empty")]
    pub config_error: Patterns,
    /// Rules that mean the tool cannot check the file's dialect: a run whose every finding is one
    /// of them reaches no conclusion (shellcheck's `SC1071`).
    #[serde(default, skip_serializing_if = "Patterns::is_empty")]
    pub unsupported_rules: Patterns,
    /// What to tell the user when a run stopped at an unsupported dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported_hint: Option<String>,
    /// Rules whose finding stops the tool from checking the rest of the file (a syntax or
    /// compile error): a pre-existing one is never a reason to pass.
    #[serde(default, skip_serializing_if = "Patterns::is_empty")]
    pub stopping_rules: Patterns,
}

impl Behaviour {
    /// What a command the project wrote itself is taken to mean: exit 1 is findings, nothing
    /// else is known about it.
    pub fn project_command() -> Self {
        Self { findings_exits: vec![1], ..Self::default() }
    }

    /// Whether exit `code` means findings: by its code alone, or by its code and `output`.
    pub fn findings_exit(&self, code: i32, output: &str) -> bool {
        self.findings_exits.contains(&code)
            || self.findings_exit_range.is_some_and(|[lo, hi]| (lo..=hi).contains(&code))
            || self.findings_exit_when.iter().any(|w| w.exit == code && w.output.is_match(output))
    }
}

#[cfg(test)]
mod compile_tests {
    /// The registry is read without compiling its patterns (they compile when first matched), so
    /// every built-in pattern is compiled here: one that parses but does not compile would
    /// otherwise match nothing, silently.
    #[test]
    fn every_built_in_pattern_compiles() {
        const FIELDS: [&str; 10] = [
            "missing_component",
            "environment",
            "config_error",
            "unsupported_rules",
            "stopping_rules",
            "output",
            "contains",
            "unless_file",
            "unless_config",
            "template_lines",
        ];
        fn walk(value: &serde_json::Value, field: Option<&str>, found: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) => {
                    for (key, value) in map {
                        let field = FIELDS.contains(&key.as_str()).then_some(key.as_str());
                        walk(value, field, found);
                    }
                }
                serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, field, found)),
                serde_json::Value::String(text) if field.is_some() => found.push(text.clone()),
                _ => {}
            }
        }
        let registry: serde_json::Value =
            serde_json::from_str(include_str!("../../registry/languages.json")).expect("registry JSON");
        let mut found = Vec::new();
        walk(&registry, None, &mut found);
        assert!(found.len() > 40, "the walk finds the patterns: {}", found.len());
        for source in &found {
            assert!(regex::RegexSet::new([source]).is_ok(), "{source} does not compile");
        }
        let lazy = super::Patterns::try_from(found).expect("they parse");
        let _ = lazy.first_match("");
        assert!(lazy.0.as_deref().and_then(|c| c.set.get()).is_some_and(Option::is_some));
    }
}
