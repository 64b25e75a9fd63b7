//! The report of `codeguard fix`: what each formatter did, which files changed (proven by content
//! identity), which targets were refused, and what the re-check still finds.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::{INLINE_LINES, SCHEMA_VERSION};
use crate::mode::Scope;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::outcome::overall;

/// The result of `codeguard fix`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FixReport {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: &'static str,
    /// Overall: FAIL when a formatter failed or the re-check still fails, UNVERIFIED when a
    /// formatter or linter could not run, else PASS.
    pub status: Status,
    /// The project root.
    pub root: PathBuf,
    /// `changed` (files changed against HEAD) or `all` (the whole project).
    pub scope: Scope,
    /// Nothing was run or written: the commands are what would run.
    pub dry_run: bool,
    /// One entry per detected language, in registry order.
    pub formatters: Vec<FormatterResult>,
    /// Selected files that were not handed to any formatter, and why.
    pub refused: Vec<Refusal>,
    /// Every file whose content changed during the run, sorted.
    pub changed: Vec<String>,
    /// Files a per-file formatter changed although they were not handed to it.
    pub changed_outside_selection: Vec<String>,
    /// The lint engine's verdict on the fixed languages afterwards.
    pub recheck: Vec<LanguageResult>,
    /// Notes about the run as a whole.
    pub notes: Vec<String>,
}

/// What one language's formatter did: a run result (status PASS for exit 0; FAIL for a non-zero
/// exit, timeout or crash; UNVERIFIED when the tool is missing; SKIPPED when not run, see
/// `reason`; PLANNED in a dry run) plus the files whose content it changed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FormatterResult {
    /// What ran and how it ended.
    #[serde(flatten)]
    pub run: LanguageResult,
    /// The files whose content this formatter changed.
    pub changed: Vec<String>,
}

/// A selected file no formatter was allowed to touch.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Refusal {
    /// Repository-relative path.
    pub path: String,
    /// Always UNVERIFIED: the file was not fixed and not checked.
    pub status: Status,
    /// Why.
    pub reason: String,
}

impl FixReport {
    /// An empty report; fill it in, then call [`FixReport::conclude`].
    pub(crate) fn new(root: PathBuf, scope: Scope, dry_run: bool) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            status: Status::Pass,
            root,
            scope,
            dry_run,
            formatters: Vec::new(),
            refused: Vec::new(),
            changed: Vec::new(),
            changed_outside_selection: Vec::new(),
            recheck: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Derives the overall status from the formatters, the re-check and stray changes. Refused
    /// targets are reported but do not change it: they were never the formatters' to touch.
    #[must_use]
    pub(crate) fn conclude(mut self) -> Self {
        let stray = if self.changed_outside_selection.is_empty() { Status::Pass } else { Status::Fail };
        self.status = overall(
            self.formatters
                .iter()
                .map(|f| if f.run.status == Status::Planned { Status::Pass } else { f.run.status })
                .chain(self.recheck.iter().map(|r| r.status))
                .chain([stray]),
        );
        self
    }

    /// The exit code of `fix`: 0 when everything ran and nothing remains, 1 otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        crate::exit::EntryPoint::Fix.status_code(self.status)
    }
}

/// Human output of `codeguard fix`.
pub(crate) fn render_fix(report: &FixReport) -> String {
    let mut out = String::new();
    let scope = if report.scope == Scope::All { "whole project" } else { "files changed against HEAD" };
    let dry = if report.dry_run { ", dry run: nothing is run or written" } else { "" };
    let _ = writeln!(out, "codeguard fix: {} ({scope}{dry})", report.root.display());
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    for refusal in &report.refused {
        let _ = writeln!(out, "  {:<10} {}: {}", refusal.status.as_str(), refusal.path, refusal.reason);
    }
    for f in &report.formatters {
        render_formatter(&mut out, f);
    }
    if !report.dry_run {
        match report.changed.len() {
            0 => out.push_str("changed: no file changed\n"),
            n => {
                let _ = writeln!(out, "changed ({n}): {}", report.changed.join(" "));
            }
        }
        if !report.changed_outside_selection.is_empty() {
            let _ = writeln!(
                out,
                "FAIL: a formatter changed files it was not given: {}",
                report.changed_outside_selection.join(" ")
            );
        }
    }
    if !report.recheck.is_empty() {
        out.push_str("re-check:\n");
        for r in &report.recheck {
            let _ = write!(out, "  {:<10} {:<12}", r.status.as_str(), r.language);
            if !r.reason.is_empty() {
                let _ = write!(out, " {}", r.reason);
            }
            out.push('\n');
            if r.status == Status::Fail {
                inline_output(&mut out, &r.output);
            }
            if let Some(log) = r.log_path.as_ref().filter(|_| r.status != Status::Pass) {
                let _ = writeln!(out, "      full output: {}", log.display());
            }
        }
    }
    let _ = writeln!(out, "{}", summary_line(report));
    out
}

fn render_formatter(out: &mut String, f: &FormatterResult) {
    let _ = write!(out, "  {:<10} {:<12}", f.run.status.as_str(), f.run.language);
    for argv in f.run.argv.iter().take(3) {
        let _ = write!(out, " $ {}", shell_words(argv));
    }
    if f.run.argv.len() > 3 {
        let _ = write!(out, " (+{} more calls)", f.run.argv.len() - 3);
    }
    if !f.run.reason.is_empty() {
        let _ = write!(out, "  {}", f.run.reason);
    }
    out.push('\n');
    if matches!(f.run.status, Status::Pass | Status::Fail) {
        match f.changed.len() {
            0 => out.push_str("      no file changed\n"),
            _ => {
                let _ = writeln!(out, "      changed: {}", f.changed.join(" "));
            }
        }
    }
    if f.run.status == Status::Fail {
        inline_output(out, &f.run.output);
        if let Some(log) = &f.run.log_path {
            let _ = writeln!(out, "      full output: {}", log.display());
        }
    }
}

fn inline_output(out: &mut String, output: &str) {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    for line in lines.iter().take(INLINE_LINES) {
        let _ = writeln!(out, "      {line}");
    }
    if lines.len() > INLINE_LINES {
        let _ = writeln!(out, "      … {} more lines", lines.len() - INLINE_LINES);
    }
}

fn summary_line(report: &FixReport) -> String {
    if report.dry_run {
        let n = report.formatters.iter().filter(|f| f.run.status == Status::Planned).count();
        return format!("codeguard: dry run — {n} formatter(s) would run; nothing was changed");
    }
    let failed: Vec<&str> = report
        .formatters
        .iter()
        .filter(|f| matches!(f.run.status, Status::Fail | Status::Unverified))
        .map(|f| f.run.language.as_str())
        .collect();
    let remaining: Vec<&str> =
        report.recheck.iter().filter(|r| r.status == Status::Fail).map(|r| r.language.as_str()).collect();
    let mut problems = Vec::new();
    if !failed.is_empty() {
        problems.push(format!("formatter did not succeed for {}", failed.join(", ")));
    }
    if !remaining.is_empty() {
        problems.push(format!("problems remain in {} (fix them by hand)", remaining.join(", ")));
    }
    if !report.changed_outside_selection.is_empty() {
        problems.push("files outside the selection changed".to_owned());
    }
    let changed = report.changed.len();
    match report.status {
        Status::Pass | Status::Skipped if !report.formatters.iter().any(|f| f.run.status == Status::Pass) => {
            "codeguard: nothing to fix".to_owned()
        }
        Status::Pass | Status::Skipped => {
            format!("codeguard: FIXED — {changed} file(s) changed, nothing remains")
        }
        Status::Fail => format!("codeguard: FAIL — {}; {changed} file(s) changed", problems.join("; ")),
        Status::Unverified | Status::Planned => {
            let detail = if problems.is_empty() {
                "some checks reached no conclusion".to_owned()
            } else {
                problems.join("; ")
            };
            format!("codeguard: INCOMPLETE — {detail}; {changed} file(s) changed")
        }
    }
}

/// A command as it would be typed: words that need it are single-quoted.
fn shell_words(argv: &[String]) -> String {
    let quote = |w: &String| {
        if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
            w.clone()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    argv.iter().map(quote).collect::<Vec<_>>().join(" ")
}
