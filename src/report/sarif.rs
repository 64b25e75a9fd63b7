//! SARIF 2.1.0 output of `codeguard check --format sarif`, for code-scanning services and CI.
//!
//! **In:** a [`CheckReport`] (with each language's captured output) and the directory the linters
//! ran in. **Out:** one SARIF log: one run per linter (`tool.driver.name` is the program), whose
//! results are each failing language's findings (`crate::findings`, read in the format its
//! registry entry names) — plus the
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
use crate::findings::Finding as Diagnostic;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::secrets::Finding;

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

/// Builds the SARIF log for a check; its results are the findings of each failing language
/// (`crate::findings`, paths already the repository's).
pub(crate) fn build(report: &CheckReport) -> Value {
    let mut runs: Vec<Value> = report
        .languages
        .iter()
        .filter(|l| l.status != Status::Skipped)
        .map(|l| language_run(report, l))
        .collect();
    if report.scope != crate::mode::Scope::All {
        runs.push(safety_run(report, &report.safety));
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": runs,
        "properties": { "status": report.status.as_str(), "scope": report.scope, "notes": report.notes },
    })
}

fn language_run(report: &CheckReport, lang: &LanguageResult) -> Value {
    let diagnostics: &[Diagnostic] = if lang.status == Status::Fail { &lang.findings } else { &[] };
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
    crate::registry::tool_name(lang).to_owned()
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

    #[test]
    fn paths_are_percent_encoded_and_the_root_ends_with_a_slash() {
        assert_eq!(percent_encode("dir with space/a#b.py"), "dir%20with%20space/a%23b.py");
        assert_eq!(base_ids(Path::new("/r/x y"))[SRCROOT]["uri"], "file:///r/x%20y/");
    }
}
