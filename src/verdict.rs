//! Verdicts: how a linter's ending and output become a status.
//!
//! In: the tool's registry [`Behaviour`] and a [`Finished`] process. Out: a [`Verdict`]. No
//! program name appears here: what a tool's exits and words mean is registry data.
//! Only PASS counts as passed; UNVERIFIED is never shown as success. A tool that could not give
//! a conclusion (missing, timed out, crashed, broken toolchain, flooded output) is UNVERIFIED,
//! never FAIL and never PASS.

use crate::findings::Format as FindingsFormat;
use crate::outcome::{Reason, Status};
use crate::process::{Ending, Finished};
use crate::registry::Behaviour;

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

/// Judges one invocation of a tool that behaves as `behaviour` says and reports its findings in
/// `format` (when it has one): how it ended (`done`) and what it printed (`text`, as reported).
///
/// Order: an ending that is no exit (timed out, not found, killed) and flooded output reach no
/// conclusion; exit 0 passes; then the tool's own words win over its exit code — a missing
/// component, a failed environment or a broken configuration reach no conclusion with the line
/// that says so; then an exit the registry calls findings fails (unless every finding is one the
/// tool uses to say it cannot check the dialect); 126/127 are the shell's "cannot execute" and
/// "not found"; any other exit reaches no conclusion, with the tool's first words as the reason.
pub(crate) fn judge(
    behaviour: &Behaviour,
    format: Option<FindingsFormat>,
    done: &Finished,
    text: &str,
) -> Verdict {
    if done.overflowed {
        return Verdict::because(Reason::OutputCapped, "output exceeded the capture limit; no conclusion");
    }
    let code = match &done.ending {
        Ending::TimedOut => return Verdict::because(Reason::TimedOut, "timed out"),
        Ending::NotFound => return Verdict::because(Reason::ToolMissing, "tool missing: not found"),
        Ending::CannotStart(why) => return Verdict::because(Reason::CannotRun, format!("cannot run: {why}")),
        Ending::Signalled(sig) => return Verdict::because(Reason::Killed, format!("killed by signal {sig}")),
        Ending::Exited(code) => *code,
    };
    if code == 0 {
        return Verdict::new(Status::Pass, "");
    }
    // The words patterns read the tool's own lines, never its findings (which quote the code).
    let own = crate::findings::tool_lines(format, text);
    let said = |line: &str| {
        crate::secrets::redact(line.trim().trim_start_matches("error: ").trim_start_matches("Cause: "))
            .into_owned()
    };
    if let Some(line) = behaviour.missing_component.first_match(&own) {
        return Verdict::because(
            Reason::ToolMissing,
            format!("a part of the tool is not installed: {}", said(line)),
        );
    }
    if let Some(line) = behaviour.environment.first_match(&own) {
        return Verdict::because(Reason::ToolchainBroken, format!("environment error: {}", said(line)));
    }
    if let Some(line) = behaviour.config_error.first_match(&own) {
        return Verdict::because(
            Reason::ToolError,
            format!("the tool's configuration is broken: {}", said(line)),
        );
    }
    let findings_exit = behaviour.findings_exit(code, text);
    if findings_exit {
        if !behaviour.unsupported_rules.is_empty()
            && let Some(format) = format
        {
            let found = crate::findings::parse(format, text);
            if !found.is_empty() && found.iter().all(|f| behaviour.unsupported_rules.is_match(f.key())) {
                let hint =
                    behaviour.unsupported_hint.as_deref().map_or_else(String::new, |h| format!("; {h}"));
                return Verdict::because(
                    Reason::UnsupportedDialect,
                    format!("the tool cannot check this file's dialect ({}){hint}", found[0].key()),
                );
            }
        }
        return Verdict::new(Status::Fail, "");
    }
    match code {
        126 => Verdict::because(Reason::CannotRun, "cannot execute (exit 126)"),
        127 => Verdict::because(Reason::ToolMissing, "tool missing (exit 127)"),
        other => match first_words(&own) {
            Some(line) => Verdict::because(Reason::ToolError, format!("exit {other}: {}", said(line))),
            None => Verdict::because(
                Reason::NoConclusion,
                format!("exit {other} with no output, no confirmable conclusion"),
            ),
        },
    }
}

/// The line of a tool's output that says what went wrong: the first that names an error or a
/// failure, else the first that is not blank.
fn first_words(text: &str) -> Option<&str> {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            ["error", "fail", "invalid", "cannot", "could not", "unknown", "no such"]
                .iter()
                .any(|w| lower.contains(w))
        })
        .or_else(|| lines().next())
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
            started: std::time::Instant::now(),
            pid: 1,
        }
    }

    /// The built-in registry's behaviour and format for a language.
    fn of(id: &str) -> (Behaviour, Option<FindingsFormat>) {
        let registry = crate::registry::Registry::builtin().expect("registry");
        let lang = registry.get(id).expect(id);
        (lang.verdict.clone(), lang.findings_format)
    }

    fn status(id: &str, ending: Ending, output: &str) -> Status {
        let (behaviour, format) = of(id);
        judge(&behaviour, format, &done(ending, output), output).status
    }

    fn reason(id: &str, ending: Ending, output: &str) -> (Option<Reason>, String) {
        let (behaviour, format) = of(id);
        let v = judge(&behaviour, format, &done(ending, output), output);
        (v.cause, v.reason)
    }

    #[test]
    fn exit_codes_mean_what_the_registry_says() {
        assert_eq!(status("python", Ending::Exited(0), ""), Status::Pass);
        assert_eq!(status("python", Ending::Exited(1), "a.py:1:1: F401"), Status::Fail);
        assert_eq!(status("rust", Ending::Exited(101), "error: could not compile"), Status::Fail);
        assert_eq!(status("python", Ending::Exited(101), ""), Status::Unverified);
        assert_eq!(status("go", Ending::Exited(2), "./a.go:6:2: fmt.Printf format %d has arg"), Status::Fail);
        assert_eq!(status("go", Ending::Exited(1), "./a.go:6:2: undefined: x"), Status::Fail);
        assert_eq!(status("css", Ending::Exited(2), "a.css\n 1:1  ✖  Unexpected empty block"), Status::Fail);
        assert_eq!(status("css", Ending::Exited(1), ""), Status::Unverified, "stylelint's 1 is a crash");
        assert_eq!(status("powershell", Ending::Exited(7), ""), Status::Fail, "the exit counts findings");
        for code in [2, 124, 126, 127, 3] {
            assert_eq!(status("python", Ending::Exited(code), ""), Status::Unverified, "exit {code}");
        }
        assert_eq!(status("python", Ending::TimedOut, ""), Status::Unverified);
        assert_eq!(status("python", Ending::NotFound, ""), Status::Unverified);
        assert_eq!(status("python", Ending::Signalled(9), ""), Status::Unverified);
    }

    #[test]
    fn the_tools_own_words_win_over_its_exit_code() {
        let no_clippy =
            "error: no such command: `clippy`\n\nhelp: view all installed commands with `cargo --list`";
        let (cause, why) = reason("rust", Ending::Exited(101), no_clippy);
        assert_eq!(cause, Some(Reason::ToolMissing));
        assert_eq!(why, "a part of the tool is not installed: no such command: `clippy`");
        let offline = "go: downloading github.com/pkg/errors v0.9.1\na.go:3:8: github.com/pkg/errors@v0.9.1: Get \"https://proxy.golang.org/x\": dial tcp: lookup proxy.golang.org: no such host";
        assert_eq!(reason("go", Ending::Exited(1), offline).0, Some(Reason::ToolchainBroken));
        let ruff_config =
            "ruff failed\n  Cause: Failed to parse /r/ruff.toml\n  Cause: TOML parse error at line 1";
        let (cause, why) = reason("python", Ending::Exited(2), ruff_config);
        assert_eq!(cause, Some(Reason::ToolError));
        assert!(why.contains("Failed to parse /r/ruff.toml"), "{why}");
        let usage = "usage: yamllint [-h] [-]\nyamllint: error: unrecognized arguments: --bogus";
        let (cause, why) = reason("yaml", Ending::Exited(2), usage);
        assert_eq!(cause, Some(Reason::ToolError));
        assert!(why.contains("unrecognized arguments: --bogus"), "{why}");
        assert_eq!(reason("yaml", Ending::Exited(3), "").0, Some(Reason::NoConclusion));
        // An offense that mentions an unknown cop is an offense, not a broken configuration.
        let offense = "lib/a.rb:3:1: W: [Correctable] Lint/RedundantCopDisableDirective: Unnecessary disabling of Foo/Bar (unknown cop).";
        assert_eq!(status("ruby", Ending::Exited(1), offense), Status::Fail);
        let broken = "Error: unrecognized cop or department Foo/Bar found in .rubocop.yml";
        assert_eq!(reason("ruby", Ending::Exited(2), broken).0, Some(Reason::ToolError));
    }

    #[test]
    fn a_finding_that_quotes_the_tools_words_is_still_a_finding() {
        // What the code says reaches the finding's message: it never stands for the tool's state.
        let crafted = "./a.go:6:2: fmt.Printf format %d has arg \"module lookup disabled by GOPROXY dial tcp\" of wrong type string";
        assert_eq!(status("go", Ending::Exited(2), crafted), Status::Fail);
        let clippy =
            "src/main.rs:2:5: error: no such command: `clippy` is a weird string literal [clippy::x]";
        assert_eq!(status("rust", Ending::Exited(101), clippy), Status::Fail);
        let named = "Cannot find module 'x'.js\n  1:7  error  'a' is assigned a value but never used  no-unused-vars\n";
        assert_eq!(status("typescript", Ending::Exited(1), named), Status::Fail);
        let ruff = "Failed to parse.py:1:8: F401 [*] `os` imported but unused";
        assert_eq!(status("python", Ending::Exited(1), ruff), Status::Fail);
    }

    #[test]
    fn toolchain_errors_are_not_code_failures() {
        assert_eq!(
            status("java", Ending::Exited(1), "[ERROR] Could not resolve dependencies for project"),
            Status::Unverified
        );
        assert_eq!(
            status("typescript", Ending::Exited(1), "Error: Cannot find module 'eslint'"),
            Status::Unverified
        );
        let no_lock = "error: cannot create the lock file /r/Cargo.lock because --locked was passed to prevent this\nhelp: …";
        assert_eq!(status("rust", Ending::Exited(101), no_lock), Status::Unverified);
        let too_old = "    Downloading crates ...\nerror: rustc 1.95.0 is not supported by the following package:\n  x@1 requires rustc 1.99";
        assert_eq!(status("rust", Ending::Exited(101), too_old), Status::Unverified);
        let stale =
            "error: the lock file /r/Cargo.lock needs to be updated but --locked was passed to prevent this";
        assert_eq!(
            status("rust", Ending::Exited(101), stale),
            Status::Fail,
            "a stale lock file is the change's to fix"
        );
        assert_eq!(
            reason("rust", Ending::Exited(101), too_old).1,
            "environment error: rustc 1.95.0 is not supported by the following package:"
        );
    }

    #[test]
    fn shellcheck_dialect_only_findings_are_unverified() {
        let zsh = "a.zsh:1:1: error: ShellCheck only supports sh/bash/dash/ksh scripts. Sorry! [SC1071]";
        assert_eq!(status("shell", Ending::Exited(1), zsh), Status::Unverified);
        let mixed = format!("{zsh}\nb.sh:2:1: warning: Use 'cd ... || exit' [SC2164]");
        assert_eq!(status("shell", Ending::Exited(1), &mixed), Status::Fail);
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
        let (behaviour, format) = of("python");
        let mut flooded = done(Ending::Exited(1), "x");
        flooded.overflowed = true;
        assert_eq!(judge(&behaviour, format, &flooded, "x").status, Status::Unverified);
    }

    #[test]
    fn the_worst_status_wins() {
        assert_eq!(Status::Pass.worst(Status::Fail), Status::Fail);
        assert_eq!(Status::Unverified.worst(Status::Fail), Status::Fail);
        assert_eq!(Status::Pass.worst(Status::Unverified), Status::Unverified);
        assert_eq!(Status::Skipped.worst(Status::Pass), Status::Skipped);
    }
}
