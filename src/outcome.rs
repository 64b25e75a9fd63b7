//! Outcomes: the status of a check, the typed reason a check reached no conclusion, and the
//! rule that combines several statuses into one.
//!
//! Only PASS counts as passed; UNVERIFIED and PLANNED are never shown as success, and SKIPPED
//! (nothing applicable) is not a pass either. How a status becomes an exit code is
//! `crate::exit`'s table; how a linter's ending becomes a status is `crate::verdict`.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The checker ran and succeeded.
    Pass,
    /// Nothing applicable (no files of the language, not integrated, advisory).
    Skipped,
    /// Only planned: no executable command.
    Planned,
    /// No conclusion could be reached.
    Unverified,
    /// A confirmed violation.
    Fail,
}

impl Status {
    /// The status as shown to people and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::Unverified => "UNVERIFIED",
            Self::Skipped => "SKIPPED",
            Self::Planned => "PLANNED",
        }
    }

    /// Combines two statuses of one language (several invocations): the most severe wins,
    /// FAIL > UNVERIFIED > PLANNED > SKIPPED > PASS.
    #[must_use]
    pub fn worst(self, other: Self) -> Self {
        self.max(other)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a check reached no conclusion, as a type: every decision that depends on it matches on
/// this (the `reason` text beside it is for people, and is never compared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The tool is not installed (not found, exit 127, or its probe failed).
    ToolMissing,
    /// The run hit its deadline (or the tool said it timed out, exit 124).
    TimedOut,
    /// The output passed the capture limit, so it cannot be judged.
    OutputCapped,
    /// The tool could not be started or executed (permissions, exit 126).
    CannotRun,
    /// The tool was killed by a signal.
    Killed,
    /// The toolchain or environment is broken, not the code (dependency resolution, versions).
    ToolchainBroken,
    /// The tool cannot check this file's dialect (shellcheck SC1071).
    UnsupportedDialect,
    /// The tool itself failed (its configuration, its usage, a crash) and said so: its words are
    /// the reason; installing anything would not help.
    ToolError,
    /// An exit code that means neither pass nor a confirmed finding, with nothing said.
    NoConclusion,
}

/// The overall status of several results: the worst of those that ran (PLANNED counts as
/// UNVERIFIED), or SKIPPED when every one was skipped (nothing was checked, so nothing passed).
pub(crate) fn overall(statuses: impl IntoIterator<Item = Status>) -> Status {
    let mut ran = false;
    let worst = statuses.into_iter().fold(Status::Pass, |acc, s| match s {
        Status::Skipped => acc,
        Status::Planned => {
            ran = true;
            acc.worst(Status::Unverified)
        }
        Status::Pass | Status::Unverified | Status::Fail => {
            ran = true;
            acc.worst(s)
        }
    });
    if ran { worst } else { Status::Skipped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overall_status_never_reports_incomplete_as_pass() {
        assert_eq!(overall([Status::Pass, Status::Skipped]), Status::Pass);
        assert_eq!(overall([Status::Skipped, Status::Skipped]), Status::Skipped, "nothing ran: not a pass");
        assert_eq!(overall([Status::Pass, Status::Unverified]), Status::Unverified);
        assert_eq!(overall([Status::Planned]), Status::Unverified);
        assert_eq!(overall([Status::Unverified, Status::Fail]), Status::Fail);
        assert_eq!(overall([]), Status::Skipped);
    }
}

/// The result for one language.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LanguageResult {
    /// Registry id.
    pub language: String,
    /// Display name.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// Why (empty for a plain pass/fail).
    pub reason: String,
    /// The exit code of the worst invocation, when one ran to an exit.
    pub exit_code: Option<i32>,
    /// What ran.
    pub argv: Vec<Vec<String>>,
    /// The files checked.
    pub files: Vec<String>,
    /// Wall-clock time of all invocations.
    #[serde(rename = "duration_ms", serialize_with = "as_millis", deserialize_with = "from_millis")]
    pub duration: Duration,
    /// Everything the linter printed (not serialised; the log file holds it).
    #[serde(skip)]
    pub output: String,
    /// The formatter command that may fix it.
    pub fix: Option<Vec<String>>,
    /// How to install the tool.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub install_hint: String,
    /// The tool that ran is codeguard's managed copy (`codeguard tools install`), not the one on
    /// `PATH`; its path is the program of `argv`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub managed: bool,
    /// Where the full output was written.
    pub log_path: Option<std::path::PathBuf>,
    /// Why no conclusion was reached, as a type (see [`crate::outcome::Reason`]); not part of the
    /// report, whose `reason` says it in words.
    #[serde(skip)]
    pub cause: Option<crate::outcome::Reason>,
    /// Findings exempt because the same tool reports them on the baseline content
    /// (`path:line: rule`); see `crate::baseline`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exempt: Vec<String>,
    /// The findings read from the output (`crate::findings`), when the tool's output format is
    /// known: what every count, histogram and fix advice is made of.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::findings::Finding>,
    /// How many of `files` were not linted again: their clean result under the same bytes,
    /// configuration, tool and options was known (`crate::cache::file_results`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reused: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl LanguageResult {
    /// A result for a language that did not run (or has not run yet).
    pub(crate) fn skipped(language: &str, name: &str, status: Status, reason: &str) -> Self {
        Self {
            language: language.to_owned(),
            name: name.to_owned(),
            status,
            reason: reason.to_owned(),
            exit_code: None,
            argv: Vec::new(),
            files: Vec::new(),
            duration: Duration::ZERO,
            output: String::new(),
            fix: None,
            install_hint: String::new(),
            managed: false,
            log_path: None,
            cause: None,
            exempt: Vec::new(),
            findings: Vec::new(),
            reused: 0,
        }
    }
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn from_millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    u64::deserialize(d).map(Duration::from_millis)
}
