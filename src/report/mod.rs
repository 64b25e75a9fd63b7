//! Reports: what people and agents read, and the log files that hold full linter output.
//!
//! In: run results. Out: text or one JSON document, plus private log files whose paths are
//! always shown. Never: decides a status (that is `verdict`) or writes to stdout (the caller
//! prints what this renders).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub(crate) mod fix_report;
mod gate_report;
pub(crate) mod sarif;

pub(crate) use fix_report::{FixReport, FormatterResult, Refusal, render_fix};
pub(crate) use gate_report::{Audience, render_gate_for, render_incomplete};
pub use gate_report::{GateReport, MAX_REPORT_CHARS, render_gate};

use crate::mode::Scope;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::secrets::Finding;

/// The JSON schema version of machine-readable reports.
pub(crate) const SCHEMA_VERSION: &str = "1";

/// Lines of linter output shown inline per failing language in human output.
const INLINE_LINES: usize = 12;

/// The result of `codeguard check`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckReport {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: &'static str,
    /// Overall status: FAIL, UNVERIFIED, PASS, or SKIPPED when no check ran at all (every
    /// language skipped and no safety scan: nothing was checked, which is not a pass).
    pub status: Status,
    /// The project root.
    pub root: PathBuf,
    /// `all`, `changed` or `staged`.
    pub scope: Scope,
    /// Per-language results, in registry order.
    pub languages: Vec<LanguageResult>,
    /// Content-safety findings (for `--changed` and `--staged`).
    pub safety: Vec<Finding>,
    /// Notes about the run as a whole (e.g. nothing detected).
    pub notes: Vec<String>,
}

impl CheckReport {
    /// Builds a report and derives the overall status: any FAIL or blocking safety finding →
    /// FAIL; else any UNVERIFIED or PLANNED → UNVERIFIED; else PASS when some check ran (a
    /// linter, or the safety scan of `changed`/`staged`), SKIPPED when none did.
    pub(crate) fn new(
        root: PathBuf,
        scope: Scope,
        languages: Vec<LanguageResult>,
        safety: Vec<Finding>,
        notes: Vec<String>,
    ) -> Self {
        // A whole-tree check runs no safety scan: its empty findings prove nothing.
        let safety_status = match (scope, crate::safety::blocks(&safety)) {
            (_, true) => Status::Fail,
            (Scope::All, false) => Status::Skipped,
            (_, false) => Status::Pass,
        };
        let status = crate::outcome::overall(languages.iter().map(|l| l.status).chain([safety_status]));
        Self { schema_version: SCHEMA_VERSION, status, root, scope, languages, safety, notes }
    }

    /// The process exit code of `check` for this report (SKIPPED — nothing to check — is 0: it
    /// blocks nothing, but is never reported as PASS).
    pub(crate) fn exit_code(&self) -> u8 {
        crate::exit::EntryPoint::Check.status_code(self.status)
    }
}

/// Writes each executed language's full output to `<dir>/<prefix>-<lang>.log` and records the
/// path in the result. A log that cannot be written leaves `log_path` empty.
pub(crate) fn write_logs(results: &mut [LanguageResult], dir: &Path, prefix: &str) {
    for result in results.iter_mut().filter(|r| !r.argv.is_empty()) {
        let path = dir.join(format!("{prefix}-{}.log", result.language));
        let mut text = String::new();
        for argv in &result.argv {
            let _ = writeln!(text, "$ {}", argv.join(" "));
        }
        let _ = writeln!(text, "# status: {} {}\n", result.status, result.reason);
        text.push_str(&result.output);
        if crate::fs::write_private_unsynced(&path, text.as_bytes()).is_ok() {
            result.log_path = Some(path);
        }
    }
}

/// A stable short key for a path (for log file names).
pub(crate) fn path_key(path: &Path) -> String {
    blake3::hash(path.as_os_str().as_encoded_bytes()).to_hex()[..12].to_owned()
}

/// Human output of `codeguard check`.
pub(crate) fn render_check(report: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "codeguard check: {} ({})", report.root.display(), scope_words(report.scope));
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    for result in &report.languages {
        render_language(&mut out, result);
    }
    for finding in &report.safety {
        let place = finding.line.map_or_else(|| finding.path.clone(), |l| format!("{}:{l}", finding.path));
        let allowed = if finding.allowed { " [allowed by .codeguard-allow]" } else { "" };
        let _ = writeln!(out, "  SAFETY     {place}: {}{allowed} — {}", finding.rule, finding.message);
    }
    let _ = writeln!(out, "{}", summary_line(report));
    out
}

fn scope_words(scope: Scope) -> &'static str {
    match scope {
        Scope::Changed => "working-tree changes against HEAD",
        Scope::Staged => "the staged snapshot",
        Scope::All => "whole tree",
    }
}

fn render_language(out: &mut String, result: &LanguageResult) {
    let tool = match (result.argv.is_empty(), result.managed) {
        (true, _) => "-".to_owned(),
        (false, true) => format!("{} (managed)", crate::registry::tool_name(result)),
        (false, false) => crate::registry::tool_name(result).to_owned(),
    };
    let files = match result.files.len() {
        0 => String::new(),
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    };
    let _ = write!(
        out,
        "  {:<10} {:<12} {:<12} {:>9} {:>7.2}s",
        result.status.as_str(),
        result.language,
        tool,
        files,
        result.duration.as_secs_f64()
    );
    if !result.reason.is_empty() {
        let _ = write!(out, "  {}", result.reason);
    }
    out.push('\n');
    if result.status == Status::Fail {
        if !result.findings.is_empty() {
            let histogram = crate::findings::histogram(&result.findings);
            let rules = if histogram.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::findings::histogram_line(&histogram))
            };
            let _ = writeln!(out, "      {}{rules}", crate::findings::count_line(&result.findings));
        }
        let lines: Vec<&str> = result.output.lines().filter(|l| !l.trim().is_empty()).collect();
        for line in lines.iter().take(INLINE_LINES) {
            let _ = writeln!(out, "      {line}");
        }
        if lines.len() > INLINE_LINES {
            let _ = writeln!(out, "      … {} more lines", lines.len() - INLINE_LINES);
        }
        if let Some(fix) = &result.fix {
            let _ = writeln!(out, "      fix: {}", fix.join(" "));
        }
    }
    if let Some(log) = result.log_path.as_ref().filter(|_| result.status != Status::Pass) {
        let _ = writeln!(out, "      full output: {}", log.display());
    }
}

fn summary_line(report: &CheckReport) -> String {
    let count = |s: Status| report.languages.iter().filter(|l| l.status == s).count();
    let failed: Vec<&str> =
        report.languages.iter().filter(|l| l.status == Status::Fail).map(|l| l.language.as_str()).collect();
    let blocking = report.safety.iter().filter(|f| !f.allowed).count();
    let head = match report.status {
        Status::Fail if failed.is_empty() => format!("FAIL — {blocking} content-safety finding(s)"),
        Status::Fail => format!("FAIL — {} failed", failed.join(", ")),
        Status::Unverified | Status::Planned => {
            "INCOMPLETE — some checks reached no conclusion (not a pass)".to_owned()
        }
        Status::Pass => "PASS".to_owned(),
        Status::Skipped => "NOTHING CHECKED — no linter applied (not a pass)".to_owned(),
    };
    format!(
        "codeguard: {head}; {} passed, {} failed, {} unverified, {} skipped",
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Unverified) + count(Status::Planned),
        count(Status::Skipped)
    )
}
