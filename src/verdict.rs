//! Verdicts: how a linter's ending and output become a status.
//!
//! In: the program name and a [`Finished`] process. Out: a [`Verdict`].
//! Only PASS counts as passed; UNVERIFIED is never shown as success. A tool that could not give
//! a conclusion (missing, timed out, crashed, broken toolchain, flooded output) is UNVERIFIED,
//! never FAIL and never PASS.

use crate::outcome::{Reason, Status};
use crate::process::{Ending, Finished};
use crate::static_regex::static_regex;

/// A status with the reason behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The status.
    pub status: Status,
    /// Why (empty for a plain pass or fail).
    pub reason: String,
    /// The reason as a type: set for every status that reached no conclusion.
    pub cause: Option<Reason>,
}

impl Verdict {
    fn new(status: Status, reason: impl Into<String>) -> Self {
        Self { status, reason: reason.into(), cause: None }
    }

    fn because(cause: Reason, reason: impl Into<String>) -> Self {
        Self { status: Status::Unverified, reason: reason.into(), cause: Some(cause) }
    }
}

static_regex! {
    /// Output that means the toolchain or environment is broken, not the code.
    static TOOLCHAIN_ERROR = r"(?i)could not resolve dependencies|could not find artifact|DependencyResolutionException|cannot find module|ModuleNotFoundError|unknown lifecycle phase|could not resolve all|could not find or load main class|invalid configuration|is newer than the versions supported|requires a newer version of maven|release version \d+ not supported|invalid target release|UnsupportedClassVersionError|class file version|has been compiled by a more recent version|cannot create the lock file .* because --locked was passed|rustc [0-9.]+ is not supported by the following package|requires rustc [0-9.]+ or newer|is not supported by this toolchain";
    /// A syntax error as `fish --no-execute` reports it.
    static FISH_SYNTAX_ERROR = r"(?m) \(line \d+\): ";
}

/// Judges one invocation.
pub(crate) fn judge(program: &str, done: &Finished) -> Verdict {
    if done.overflowed {
        return Verdict::because(Reason::OutputCapped, "output exceeded the capture limit; no conclusion");
    }
    let code = match &done.ending {
        Ending::TimedOut => return Verdict::because(Reason::TimedOut, "timed out"),
        Ending::NotFound => {
            return Verdict::because(Reason::ToolMissing, format!("tool missing: `{program}` not found"));
        }
        Ending::CannotStart(why) => {
            return Verdict::because(Reason::CannotRun, format!("cannot run `{program}`: {why}"));
        }
        Ending::Signalled(sig) => return Verdict::because(Reason::Killed, format!("killed by signal {sig}")),
        Ending::Exited(code) => *code,
    };
    if code == 0 {
        return Verdict::new(Status::Pass, "");
    }
    let text = done.text();
    if let Some(line) = text.lines().find(|l| TOOLCHAIN_ERROR.is_match(l)) {
        // The real first error line, not a guess: what the tool said it could not do.
        let line = crate::safety::redact(line.trim().trim_start_matches("error: ")).into_owned();
        return Verdict::because(Reason::ToolchainBroken, format!("toolchain error: {line}"));
    }
    if tool_name(program) == "shellcheck" && only_unsupported_dialect(&text) {
        return Verdict::because(
            Reason::UnsupportedDialect,
            "shellcheck cannot check this shell dialect (SC1071); add `# shellcheck shell=bash` if the script is bash-compatible",
        );
    }
    match code {
        1 => Verdict::new(Status::Fail, ""),
        101 if tool_name(program) == "cargo" => Verdict::new(Status::Fail, ""),
        // `yamllint --strict` exits 2 when only warnings were found (argparse errors also exit
        // 2, but print no `[warning]` diagnostic).
        2 if tool_name(program) == "yamllint" && text.contains(": [warning] ") => {
            Verdict::new(Status::Fail, "")
        }
        // `fish --no-execute` exits 127 on a syntax error, which it reports as `<file> (line N):`.
        127 if tool_name(program) == "fish" && FISH_SYNTAX_ERROR.is_match(&text) => {
            Verdict::new(Status::Fail, "")
        }
        124 => Verdict::because(Reason::TimedOut, "timed out (exit 124)"),
        126 => Verdict::because(Reason::CannotRun, "cannot execute (exit 126)"),
        127 => Verdict::because(Reason::ToolMissing, "tool missing (exit 127)"),
        other => Verdict::because(Reason::NoConclusion, format!("exit {other}, no confirmable conclusion")),
    }
}

fn tool_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Whether every shellcheck finding in the output is SC1071 (unsupported dialect).
fn only_unsupported_dialect(text: &str) -> bool {
    let codes: Vec<&str> = text.match_indices("SC").filter_map(|(i, _)| text.get(i..i + 6)).collect();
    codes.contains(&"SC1071")
        && codes.iter().all(|c| *c == "SC1071" || !c[2..].chars().all(|d| d.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn done(ending: Ending, output: &str) -> Finished {
        Finished {
            ending,
            output: output.as_bytes().to_vec(),
            overflowed: false,
            duration: Duration::ZERO,
            pid: 1,
        }
    }

    fn status(program: &str, ending: Ending, output: &str) -> Status {
        judge(program, &done(ending, output)).status
    }

    #[test]
    fn exit_codes_map_to_statuses() {
        assert_eq!(status("ruff", Ending::Exited(0), ""), Status::Pass);
        assert_eq!(status("ruff", Ending::Exited(1), "a.py:1:1: F401"), Status::Fail);
        assert_eq!(status("cargo", Ending::Exited(101), "error: could not compile"), Status::Fail);
        assert_eq!(status("ruff", Ending::Exited(101), ""), Status::Unverified);
        let strict_warning = "a.yaml:1:1: [warning] missing document start \"---\" (document-start)";
        assert_eq!(status("yamllint", Ending::Exited(2), strict_warning), Status::Fail);
        assert_eq!(
            status("yamllint", Ending::Exited(2), "usage: yamllint [-h]\nerror: bad"),
            Status::Unverified
        );
        for code in [2, 124, 126, 127, 3] {
            assert_eq!(status("x", Ending::Exited(code), ""), Status::Unverified, "exit {code}");
        }
        assert_eq!(status("x", Ending::TimedOut, ""), Status::Unverified);
        assert_eq!(status("x", Ending::NotFound, ""), Status::Unverified);
        assert_eq!(status("x", Ending::Signalled(9), ""), Status::Unverified);
    }

    #[test]
    fn toolchain_errors_are_not_code_failures() {
        assert_eq!(
            status("mvn", Ending::Exited(1), "[ERROR] Could not resolve dependencies for project"),
            Status::Unverified
        );
        assert_eq!(
            status("node", Ending::Exited(1), "Error: Cannot find module 'eslint'"),
            Status::Unverified
        );
        let no_lock = "error: cannot create the lock file /r/Cargo.lock because --locked was passed to prevent this\nhelp: …";
        assert_eq!(status("cargo", Ending::Exited(101), no_lock), Status::Unverified);
        let too_old = "    Downloading crates ...\nerror: rustc 1.95.0 is not supported by the following package:\n  x@1 requires rustc 1.99";
        assert_eq!(status("cargo", Ending::Exited(101), too_old), Status::Unverified);
        let stale =
            "error: the lock file /r/Cargo.lock needs to be updated but --locked was passed to prevent this";
        assert_eq!(
            status("cargo", Ending::Exited(101), stale),
            Status::Fail,
            "a stale lock file is the change's to fix"
        );
        let found = judge("cargo", &done(Ending::Exited(101), too_old));
        assert_eq!(found.reason, "toolchain error: rustc 1.95.0 is not supported by the following package:");
    }

    #[test]
    fn shellcheck_dialect_only_findings_are_unverified() {
        let zsh = "a.zsh:1:1: error: ShellCheck only supports sh/bash/dash/ksh scripts. Sorry! [SC1071]";
        assert_eq!(status("shellcheck", Ending::Exited(1), zsh), Status::Unverified);
        let mixed = format!("{zsh}\nb.sh:2:1: warning: Use 'cd ... || exit' [SC2164]");
        assert_eq!(status("shellcheck", Ending::Exited(1), &mixed), Status::Fail);
    }

    #[test]
    fn a_fish_syntax_error_is_a_failure_and_a_missing_file_is_not() {
        let syntax = "a.fish (line 1): Missing end to balance this if statement\nif true\n^^\n";
        assert_eq!(status("fish", Ending::Exited(127), syntax), Status::Fail);
        let missing = "error: Error reading script file 'a.fish':\nerror: No such file or directory\n";
        assert_eq!(status("fish", Ending::Exited(127), missing), Status::Unverified);
        assert_eq!(status("zsh", Ending::Exited(1), "a.zsh:3: parse error near `}'"), Status::Fail);
    }

    #[test]
    fn flooded_output_is_unverified() {
        let mut flooded = done(Ending::Exited(1), "x");
        flooded.overflowed = true;
        assert_eq!(judge("ruff", &flooded).status, Status::Unverified);
    }

    #[test]
    fn the_worst_status_wins() {
        assert_eq!(Status::Pass.worst(Status::Fail), Status::Fail);
        assert_eq!(Status::Unverified.worst(Status::Fail), Status::Fail);
        assert_eq!(Status::Pass.worst(Status::Unverified), Status::Unverified);
        assert_eq!(Status::Skipped.worst(Status::Pass), Status::Skipped);
    }
}
