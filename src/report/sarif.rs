//! SARIF 2.1.0 output of `codeguard check --format sarif`, for code-scanning services and CI.
//!
//! **In:** a [`CheckReport`] (with each language's captured output) and the directory the linters
//! ran in. **Out:** one SARIF log: one run per linter (`tool.driver.name` is the program), whose
//! results are parsed from the common one-line formats — `path:line[:col]: CODE message` (ruff
//! concise, hadolint), gcc style `path:line:col: level: message [SC1234]` (shellcheck), yamllint's
//! parsable `path:line:col: [level] message (rule)` and plain `path:line:col: message` — plus the
//! content-safety scan as a run of its own (`codeguard-safety`; allowed findings carry a
//! suppression). **Never hides an incomplete check:** an UNVERIFIED or PLANNED language is a run
//! whose invocation has `executionSuccessful: false` and a notification with the reason, and a
//! failing linter whose output has no parsable line still yields one result (without location)
//! pointing at its log.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use super::CheckReport;
use crate::outcome::Status;
use crate::run::LanguageResult;
use crate::safety::Finding;
use crate::static_regex::static_regex;

/// The SARIF version written.
pub(crate) const VERSION: &str = "2.1.0";

/// The schema URI written as `$schema`.
pub(crate) const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The URI base id every result location is relative to (the project root).
pub(crate) const SRCROOT: &str = "SRCROOT";

/// The driver name of the content-safety run.
pub(crate) const SAFETY_DRIVER: &str = "codeguard-safety";

/// Lines of output quoted in a result that could not be parsed into locations.
const QUOTED_LINES: usize = 5;

/// How serious a diagnostic is, in SARIF's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// `error`.
    Error,
    /// `warning`.
    Warning,
    /// `note`.
    Note,
}

impl Level {
    /// The SARIF `level` value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }

    /// Maps a linter's own severity word; unknown words count as errors (the linter failed).
    fn from_word(word: &str) -> Self {
        match word.to_ascii_lowercase().as_str() {
            "warning" => Level::Warning,
            "note" | "info" | "style" => Level::Note,
            _ => Level::Error,
        }
    }
}

/// One diagnostic parsed from a linter's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Diagnostic {
    /// Project-relative path.
    pub path: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, when printed.
    pub column: Option<u64>,
    /// The rule id (`F401`, `SC2164`, `document-start`), when printed.
    pub rule: Option<String>,
    /// Severity.
    pub level: Level,
    /// The message without location, rule or severity.
    pub message: String,
}

static_regex! {
    /// `path:line[:col][:] rest` — the location head every supported format shares.
    static LOCATED = r"^(?P<path>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?:?\s+(?P<rest>\S.*?)\s*$";
    /// yamllint parsable: `[level] message (rule)`.
    static YAMLLINT = r"^\[(?P<level>error|warning)\]\s+(?P<msg>.*?)\s+\((?P<rule>[\w-]+)\)$";
    /// gcc style with a bracketed code (shellcheck): `level: message [SC1234]`.
    static GCC = r"^(?P<level>error|warning|note|info|style):\s+(?P<msg>.*?)\s+\[(?P<rule>[A-Z]+\d+)\]$";
    /// Code first (ruff concise, hadolint): `F401 [*] message`, `DL3008 warning: message`.
    static CODE_FIRST = r"^(?P<rule>[A-Z]{1,8}\d{1,5})\s+(?:\[\*\]\s+)?(?:(?P<level>error|warning|info|style):\s+)?(?P<msg>.+)$";
    /// Anything else after the location, with an optional severity word.
    static PLAIN = r"^(?:(?P<level>error|warning|note|info):\s+)?(?P<msg>.+)$";
}

/// Parses the diagnostics out of a linter's output. Paths are made relative to `content_dir`
/// (the directory the linter ran in); lines whose path lies outside it are not diagnostics.
pub(crate) fn parse_diagnostics(output: &str, content_dir: &Path) -> Vec<Diagnostic> {
    output.lines().filter_map(|line| parse_line(line, content_dir)).collect()
}

fn parse_line(line: &str, content_dir: &Path) -> Option<Diagnostic> {
    let head = LOCATED.captures(line)?;
    let path = relative_path(&head["path"], content_dir)?;
    let line_no = head["line"].parse().ok().filter(|n| *n > 0)?;
    let column = head.name("col").and_then(|c| c.as_str().parse().ok()).filter(|n| *n > 0);
    let rest = &head["rest"];
    let (rule, level, message) = if let Some(c) = YAMLLINT.captures(rest) {
        (Some(c["rule"].to_owned()), Level::from_word(&c["level"]), c["msg"].to_owned())
    } else if let Some(c) = GCC.captures(rest) {
        (Some(c["rule"].to_owned()), Level::from_word(&c["level"]), c["msg"].to_owned())
    } else if let Some(c) = CODE_FIRST.captures(rest) {
        let level = c.name("level").map_or(Level::Error, |l| Level::from_word(l.as_str()));
        (Some(c["rule"].to_owned()), level, c["msg"].to_owned())
    } else {
        let c = PLAIN.captures(rest)?;
        let level = c.name("level").map_or(Level::Error, |l| Level::from_word(l.as_str()));
        (None, level, c["msg"].to_owned())
    };
    Some(Diagnostic { path, line: line_no, column, rule, level, message })
}

/// A printed path as a project-relative one, or `None` when it points elsewhere.
fn relative_path(printed: &str, content_dir: &Path) -> Option<String> {
    let path = Path::new(printed);
    let relative = if path.is_absolute() { strip_root(path, content_dir)? } else { path.to_path_buf() };
    let text = relative.to_str()?.trim_start_matches("./");
    let escapes = text.split('/').any(|c| c == "..");
    (!text.is_empty() && !escapes && !text.starts_with('/')).then(|| text.to_owned())
}

/// `path` below `root` (as given, or canonical: linters may print either).
fn strip_root(path: &Path, root: &Path) -> Option<std::path::PathBuf> {
    if let Ok(rest) = path.strip_prefix(root) {
        return Some(rest.to_path_buf());
    }
    let canonical = root.canonicalize().ok()?;
    path.strip_prefix(canonical).ok().map(Path::to_path_buf)
}

/// Builds the SARIF log for a check. `content_dir` is where the linters ran (the project or a
/// snapshot of it).
pub(crate) fn build(report: &CheckReport, content_dir: &Path) -> Value {
    let mut runs: Vec<Value> = report
        .languages
        .iter()
        .filter(|l| l.status != Status::Skipped)
        .map(|l| language_run(report, l, content_dir))
        .collect();
    if report.scope != crate::cli::Scope::All {
        runs.push(safety_run(report, &report.safety));
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": runs,
        "properties": { "status": report.status.as_str(), "scope": report.scope, "notes": report.notes },
    })
}

fn language_run(report: &CheckReport, lang: &LanguageResult, content_dir: &Path) -> Value {
    let diagnostics =
        if lang.status == Status::Fail { parse_diagnostics(&lang.output, content_dir) } else { Vec::new() };
    let rules = RuleIndex::new(diagnostics.iter().filter_map(|d| d.rule.as_deref()));
    let mut results: Vec<Value> = diagnostics.iter().map(|d| diagnostic_result(d, &rules)).collect();
    if lang.status == Status::Fail && results.is_empty() {
        results.push(unparsed_result(lang));
    }
    json!({
        "tool": { "driver": {
            "name": program(lang),
            "rules": rules.descriptors(),
            "properties": { "codeguardLanguage": lang.language },
        }},
        "invocations": [invocation(lang)],
        "originalUriBaseIds": base_ids(&report.root),
        "results": results,
        "properties": {
            "status": lang.status.as_str(),
            "reason": lang.reason,
            "logPath": lang.log_path,
            "files": lang.files,
        },
    })
}

/// The program that ran (its file name), or the language id when nothing could run.
fn program(lang: &LanguageResult) -> String {
    lang.argv
        .first()
        .and_then(|argv| argv.first())
        .map_or_else(|| lang.language.clone(), |p| p.rsplit('/').next().unwrap_or(p).to_owned())
}

fn invocation(lang: &LanguageResult) -> Value {
    let (successful, notification) = match lang.status {
        Status::Pass | Status::Fail | Status::Skipped => (true, None),
        Status::Unverified => (false, Some(("error", format!("UNVERIFIED: {}", reason(lang))))),
        Status::Planned => (false, Some(("warning", format!("PLANNED: {}", reason(lang))))),
    };
    let mut invocation = json!({ "executionSuccessful": successful });
    if let Some(argv) = lang.argv.first() {
        invocation["commandLine"] = json!(argv.join(" "));
    }
    if let Some(code) = lang.exit_code {
        invocation["exitCode"] = json!(code);
    }
    if let Some((level, text)) = notification {
        invocation["toolExecutionNotifications"] = json!([{ "level": level, "message": { "text": text } }]);
    }
    invocation
}

fn reason(lang: &LanguageResult) -> String {
    if lang.reason.is_empty() { "no conclusion was reached".to_owned() } else { lang.reason.clone() }
}

/// The rule ids of a run, in first-seen order, with their indexes.
struct RuleIndex {
    ids: Vec<String>,
    index: BTreeMap<String, usize>,
}

impl RuleIndex {
    fn new<'a>(rules: impl Iterator<Item = &'a str>) -> Self {
        let mut ids = Vec::new();
        let mut index = BTreeMap::new();
        for rule in rules {
            if !index.contains_key(rule) {
                index.insert(rule.to_owned(), ids.len());
                ids.push(rule.to_owned());
            }
        }
        Self { ids, index }
    }

    fn descriptors(&self) -> Vec<Value> {
        self.ids.iter().map(|id| json!({ "id": id })).collect()
    }
}

fn diagnostic_result(d: &Diagnostic, rules: &RuleIndex) -> Value {
    let mut region = json!({ "startLine": d.line });
    if let Some(column) = d.column {
        region["startColumn"] = json!(column);
    }
    let mut result = json!({
        "level": d.level.as_str(),
        "message": { "text": d.message },
        "locations": [location(&d.path, region)],
    });
    if let Some(rule) = &d.rule {
        result["ruleId"] = json!(rule);
        if let Some(index) = rules.index.get(rule) {
            result["ruleIndex"] = json!(index);
        }
    }
    result
}

/// A failing linter printed nothing parsable: one result that says so and quotes its output.
fn unparsed_result(lang: &LanguageResult) -> Value {
    let quoted: Vec<&str> = lang.output.lines().filter(|l| !l.trim().is_empty()).take(QUOTED_LINES).collect();
    let log = lang.log_path.as_ref().map_or_else(String::new, |p| format!(" Full output: {}.", p.display()));
    json!({
        "ruleId": "codeguard/lint-failed",
        "level": "error",
        "message": { "text": format!("{} failed ({}).{log}\n{}", program(lang), lang.language, quoted.join("\n")) },
    })
}

fn safety_run(report: &CheckReport, findings: &[Finding]) -> Value {
    let rules = RuleIndex::new(findings.iter().map(|f| f.rule));
    let results: Vec<Value> = findings.iter().map(|f| safety_result(f, &rules)).collect();
    json!({
        "tool": { "driver": { "name": SAFETY_DRIVER, "rules": rules.descriptors() } },
        "invocations": [{ "executionSuccessful": true }],
        "originalUriBaseIds": base_ids(&report.root),
        "results": results,
    })
}

fn safety_result(finding: &Finding, rules: &RuleIndex) -> Value {
    let region = finding.line.map_or_else(|| json!({}), |line| json!({ "startLine": line }));
    let mut result = json!({
        "ruleId": finding.rule,
        "level": "error",
        "message": { "text": finding.message },
        "locations": [location(&finding.path, region)],
        "properties": { "kind": finding.kind, "fingerprint": finding.fingerprint },
    });
    if let Some(index) = rules.index.get(finding.rule) {
        result["ruleIndex"] = json!(index);
    }
    if finding.allowed {
        result["suppressions"] = json!([{ "kind": "external", "justification": format!("allowed by {}", crate::safety::ALLOW_FILE) }]);
    }
    result
}

fn location(path: &str, region: Value) -> Value {
    let mut physical = json!({ "artifactLocation": { "uri": percent_encode(path), "uriBaseId": SRCROOT } });
    if region.as_object().is_some_and(|r| !r.is_empty()) {
        physical["region"] = region;
    }
    json!({ "physicalLocation": physical })
}

fn base_ids(root: &Path) -> Value {
    let mut uri = format!("file://{}", percent_encode(&root.to_string_lossy()));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    json!({ SRCROOT: { "uri": uri } })
}

/// Percent-encodes a path for a URI, keeping `/` and RFC 3986's unreserved characters.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(
        path: &str,
        line: u64,
        column: Option<u64>,
        rule: Option<&str>,
        level: Level,
        message: &str,
    ) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            line,
            column,
            rule: rule.map(str::to_owned),
            level,
            message: message.into(),
        }
    }

    #[test]
    fn the_common_one_line_formats_parse_into_file_line_rule() {
        let root = Path::new("/snap/root");
        let output = "\
app/main.py:1:8: F401 [*] `os` imported but unused
./scripts/run.sh:2:4: warning: Use 'cd ... || exit' in case cd fails. [SC2164]
cfg/a.yaml:1:1: [warning] missing document start \"---\" (document-start)
Dockerfile:3 DL3008 warning: Pin versions in apt get install
/snap/root/pkg/x.go:5:2: fmt.Printf format %d has arg of wrong type
/elsewhere/y.py:1:1: E999 not ours
Found 1 error.
  --> src/main.rs:3:5
";
        assert_eq!(
            parse_diagnostics(output, root),
            vec![
                diag("app/main.py", 1, Some(8), Some("F401"), Level::Error, "`os` imported but unused"),
                diag(
                    "scripts/run.sh",
                    2,
                    Some(4),
                    Some("SC2164"),
                    Level::Warning,
                    "Use 'cd ... || exit' in case cd fails."
                ),
                diag(
                    "cfg/a.yaml",
                    1,
                    Some(1),
                    Some("document-start"),
                    Level::Warning,
                    "missing document start \"---\""
                ),
                diag(
                    "Dockerfile",
                    3,
                    None,
                    Some("DL3008"),
                    Level::Warning,
                    "Pin versions in apt get install"
                ),
                diag(
                    "pkg/x.go",
                    5,
                    Some(2),
                    None,
                    Level::Error,
                    "fmt.Printf format %d has arg of wrong type"
                ),
            ]
        );
    }

    #[test]
    fn paths_are_percent_encoded_and_the_root_ends_with_a_slash() {
        assert_eq!(percent_encode("dir with space/a#b.py"), "dir%20with%20space/a%23b.py");
        assert_eq!(base_ids(Path::new("/r/x y"))[SRCROOT]["uri"], "file:///r/x%20y/");
    }
}
