//! How a language's lint tool behaves, as registry data: what its exit codes mean, how it names
//! its findings, which of its words mean "no conclusion" rather than "bad code".
//!
//! In: the `verdict` object and `findings_format` of a language entry. Out: [`Behaviour`], which
//! `crate::verdict` reads to judge a run and `crate::findings` reads to parse its output.
//! Never: names a program — the facts about a tool live in `registry/languages.json`, beside its
//! command, so no verdict code branches on a program's name.

use serde::{Deserialize, Serialize};

/// A line-per-finding output format (`path:line[:col]…`), by where the rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingsFormat {
    /// `ruff check --output-format=concise`: `path:line:col: RULE message`.
    RuffConcise,
    /// `--format=gcc` (shellcheck): `path:line:col: level: message [SC1234]`; also cargo's
    /// `--message-format=short` (`path:line:col: level: message`, the message standing for the
    /// rule).
    Gcc,
    /// `yamllint --format parsable`: `path:line:col: [level] message (rule)`.
    YamllintParsable,
    /// The rule first after the place, with or without a colon: hadolint's `path:line RULE level:
    /// message`.
    RuleFirst,
    /// markdownlint-cli2: `path:line[:col] [level] MD000/name message`.
    Markdownlint,
    /// rubocop `--format emacs`: `path:line:col: C: [Correctable] Dept/Cop: message`.
    Emacs,
    /// `go vet`: `path:line:col: message`, a vet analyser's lines prefixed `vet: `; the message
    /// stands for the rule.
    GoVet,
    /// fish's own: `path (line N): message`.
    Fish,
    /// eslint's default `stylish`: a path line, then `  line:col  level  message  rule` lines.
    Stylish,
}

impl FindingsFormat {
    /// Every format, with its registry name.
    pub const ALL: [(Self, &'static str); 9] = [
        (Self::RuffConcise, "ruff-concise"),
        (Self::Gcc, "gcc"),
        (Self::YamllintParsable, "yamllint-parsable"),
        (Self::RuleFirst, "rule-first"),
        (Self::Markdownlint, "markdownlint"),
        (Self::Emacs, "emacs"),
        (Self::GoVet, "go-vet"),
        (Self::Stylish, "stylish"),
        (Self::Fish, "fish"),
    ];
}

/// An exit code that means findings only when the output says so (`fish --no-execute` exits 127
/// for a syntax error and for a missing file alike).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitWhen {
    /// The exit code.
    pub exit: i32,
    /// A regular expression the output must match for the exit to mean findings.
    pub output: String,
}

/// What a lint tool's endings mean (the `verdict` object of a language entry).
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
    /// Output (regular expressions, per line) saying a part of the tool is not installed (cargo's
    /// "no such command: clippy"): the tool is missing, whatever the exit code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_component: Vec<String>,
    /// Output saying the environment failed, not the code (a module download without a network):
    /// no conclusion, whatever the exit code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment: Vec<String>,
    /// Output saying the tool's own configuration is broken (`Failed to parse … ruff.toml`): no
    /// conclusion, and the tool's words are the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_error: Vec<String>,
    /// Rules (regular expressions) that mean the tool cannot check the file's dialect: a run
    /// whose every finding is one of them reaches no conclusion (shellcheck's `SC1071`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported_rules: Vec<String>,
    /// What to tell the user when a run stopped at an unsupported dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported_hint: Option<String>,
    /// Rules (regular expressions) whose finding stops the tool from checking the rest of the file
    /// (a syntax or compile error): a pre-existing one is never a reason to pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stopping_rules: Vec<String>,
}

impl Behaviour {
    /// What a command the project wrote itself is taken to mean: exit 1 is findings, nothing
    /// else is known about it.
    pub fn project_command() -> Self {
        Self { findings_exits: vec![1], ..Self::default() }
    }

    /// Whether exit `code` means findings, by its code alone.
    pub fn findings_exit(&self, code: i32) -> bool {
        self.findings_exits.contains(&code)
            || self.findings_exit_range.is_some_and(|[lo, hi]| (lo..=hi).contains(&code))
    }

    /// Every regular expression of the entry, with the field it stands in (for validation).
    pub(super) fn patterns(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let lists: [(&'static str, &Vec<String>); 5] = [
            ("missing_component", &self.missing_component),
            ("environment", &self.environment),
            ("config_error", &self.config_error),
            ("unsupported_rules", &self.unsupported_rules),
            ("stopping_rules", &self.stopping_rules),
        ];
        lists
            .into_iter()
            .flat_map(|(field, list)| list.iter().map(move |p| (field, p.as_str())))
            .chain(self.findings_exit_when.iter().map(|w| ("findings_exit_when", w.output.as_str())))
    }
}

/// Whether any of `patterns` matches `text` (patterns are validated when the registry is read;
/// one that does not compile matches nothing).
pub(crate) fn matches_any(patterns: &[String], text: &str) -> bool {
    first_match(patterns, text).is_some()
}

/// The first line of `text` that one of `patterns` matches.
pub(crate) fn first_match<'t>(patterns: &[String], text: &'t str) -> Option<&'t str> {
    if patterns.is_empty() {
        return None;
    }
    let compiled: Vec<regex::Regex> = patterns.iter().filter_map(|p| regex::Regex::new(p).ok()).collect();
    text.lines().find(|line| compiled.iter().any(|re| re.is_match(line)))
}
