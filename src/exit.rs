//! Exit codes and the one table that decides them: per entry point, what the overall status of
//! its work means ([`EntryPoint::status_code`]) and what an internal error means
//! ([`EntryPoint::internal_error_code`]); per hook channel, how an answer travels
//! ([`HookExit`]). The numbers live only here: everyone else asks this table.
//!
//! Hooks fail open: an internal error never blocks an agent. The CLI fails "incomplete": an
//! internal error is never reported as a pass. Git's own hooks are the authoritative gate and
//! fail closed, telling a person how to bypass once. `install`, `fix`, `init` and `mcp` report
//! their errors (exit 1): a change that was asked for and not made is never a success. A signal
//! (SIGTERM/SIGINT/SIGHUP) while children run exits with the same code ([`crate::process::arm`]).

use crate::outcome::Status;

/// Everything passed (or was legitimately skipped).
const PASS: u8 = 0;
/// A confirmed failure: a linter found problems or a safety rule was violated.
const FAIL: u8 = 1;
/// The command line was wrong; nothing ran.
const USAGE: u8 = 2;
/// Some required check could not reach a conclusion (UNVERIFIED / PLANNED) and nothing failed.
const INCOMPLETE: u8 = 3;
/// Host-hook block (Claude-style hosts read exit 2 + stderr as "deny").
const HOOK_BLOCK: u8 = 2;

/// Success with nothing to judge (help, version, a listing, a recorded decision).
pub(crate) fn success() -> u8 {
    PASS
}

/// The command line was wrong; nothing ran.
pub(crate) fn usage() -> u8 {
    USAGE
}

/// A signal arrived before any entry point said what it means: never claim success.
pub(crate) fn unarmed_signal() -> u8 {
    FAIL
}

/// How a hook's answer travels in its exit code (`host/spec.rs` says which channel each host
/// honours; the encoder picks the variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookExit {
    /// Allow, context, or a deny carried in JSON on stdout: exit 0.
    Proceed,
    /// A block a host reads from exit 2 and stderr (Claude-style hosts).
    BlockOnStderr,
    /// The neutral contract's deny: exit 1.
    ContractDeny,
}

impl HookExit {
    /// The exit code.
    pub(crate) fn code(self) -> u8 {
        match self {
            Self::Proceed => PASS,
            Self::BlockOnStderr => HOOK_BLOCK,
            Self::ContractDeny => FAIL,
        }
    }
}

/// The places where codeguard is entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryPoint {
    /// `codeguard check`.
    Check,
    /// `codeguard explain`.
    Explain,
    /// `codeguard languages`.
    Languages,
    /// `codeguard hook <event>`: called by an agent host.
    Hook,
    /// `codeguard git-hook pre-commit|pre-push`: called by git.
    GitHook,
    /// `codeguard install` / `uninstall`: writes files the user asked for.
    Install,
    /// `codeguard doctor`: reports problems with exit 1.
    Doctor,
    /// `codeguard fix`: rewrites files the user asked to have formatted.
    Fix,
    /// `codeguard init`: writes missing config files the user asked for.
    Init,
    /// `codeguard detect`: reports a project's languages.
    Detect,
    /// `codeguard mcp`: a long-running tool server for an agent host.
    Mcp,
    /// `codeguard trust` / `codeguard untrust`: records the user's decision.
    Trust,
    /// `codeguard state show|clear`: inspects or resets the state directory.
    State,
    /// `codeguard tools install|list|update|remove`: installs codeguard's managed tools.
    Tools,
}

/// What an internal error turns into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorPolicy {
    /// Never block: exit with the host's "no opinion" code.
    FailOpen,
    /// Never claim success: report the run as incomplete.
    Incomplete,
    /// Block: the authoritative gate must not let unknown content through.
    FailClosed,
    /// Report the failure: the requested change was not (fully) made.
    Failed,
}

impl EntryPoint {
    /// The error policy of this entry point.
    pub(crate) fn error_policy(self) -> ErrorPolicy {
        match self {
            Self::Hook => ErrorPolicy::FailOpen,
            Self::Check | Self::Explain | Self::Languages | Self::Detect => ErrorPolicy::Incomplete,
            Self::GitHook => ErrorPolicy::FailClosed,
            Self::Install
            | Self::Doctor
            | Self::Fix
            | Self::Init
            | Self::Mcp
            | Self::Trust
            | Self::State
            | Self::Tools => ErrorPolicy::Failed,
        }
    }

    /// The exit code for the overall status of what this entry point checked or did. Commands
    /// that report checks (`check`, `explain`, …) tell an incomplete check (UNVERIFIED or
    /// PLANNED: 3) from a failure (1); commands that make changes (`fix`, `init`, `install`,
    /// `tools`, `doctor`'s health) fail unless everything was done. Git's hooks block only a
    /// failure: `codeguard.strict` makes an incomplete check one before asking. A hook's code is
    /// its channel's ([`HookExit`]); asked here, the hook answers as the neutral contract does.
    pub(crate) fn status_code(self, status: Status) -> u8 {
        match status {
            Status::Pass | Status::Skipped => PASS,
            Status::Fail => FAIL,
            Status::Unverified | Status::Planned => match self {
                Self::Check
                | Self::Explain
                | Self::Languages
                | Self::Detect
                | Self::State
                | Self::Trust
                | Self::Mcp => INCOMPLETE,
                Self::Install | Self::Doctor | Self::Fix | Self::Init | Self::Tools => FAIL,
                Self::GitHook | Self::Hook => PASS,
            },
        }
    }

    /// The exit code for an internal error at this entry point.
    pub(crate) fn internal_error_code(self) -> u8 {
        match self.error_policy() {
            ErrorPolicy::FailOpen => PASS,
            ErrorPolicy::Incomplete => INCOMPLETE,
            ErrorPolicy::FailClosed | ErrorPolicy::Failed => FAIL,
        }
    }

    /// What a person can do when this entry point failed closed: a one-time bypass, or `None`
    /// where an error never blocks anything.
    pub(crate) fn bypass_hint(self) -> Option<&'static str> {
        match self {
            Self::GitHook => Some(
                "the check could not run, so git was stopped (fail-closed). To go ahead once without it: git commit --no-verify (or git push --no-verify); the backstop (reference-transaction) has no such bypass: fix what is named above, or take it out (`codeguard uninstall --git-hooks`, or `codeguard uninstall --host H` for an agent's shell)",
            ),
            Self::Check
            | Self::Explain
            | Self::Languages
            | Self::Hook
            | Self::Install
            | Self::Doctor
            | Self::Fix
            | Self::Init
            | Self::Detect
            | Self::Mcp
            | Self::Trust
            | Self::State
            | Self::Tools => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_tell_incomplete_from_failure_and_changes_fail_unless_done() {
        for status in [Status::Pass, Status::Skipped] {
            assert_eq!(EntryPoint::Check.status_code(status), PASS);
            assert_eq!(EntryPoint::Fix.status_code(status), PASS);
        }
        assert_eq!(EntryPoint::Check.status_code(Status::Unverified), INCOMPLETE);
        assert_eq!(EntryPoint::Check.status_code(Status::Planned), INCOMPLETE);
        assert_eq!(EntryPoint::Check.status_code(Status::Fail), FAIL);
        assert_eq!(EntryPoint::Fix.status_code(Status::Unverified), FAIL, "a fix not made is no success");
        assert_eq!(EntryPoint::GitHook.status_code(Status::Unverified), PASS, "strict is asked first");
        assert_eq!(EntryPoint::GitHook.status_code(Status::Fail), FAIL);
    }

    #[test]
    fn hook_channels() {
        assert_eq!(HookExit::Proceed.code(), EntryPoint::Hook.internal_error_code(), "fail-open proceeds");
        assert_eq!(HookExit::BlockOnStderr.code(), 2);
        assert_eq!(HookExit::ContractDeny.code(), 1);
    }

    #[test]
    fn hooks_fail_open_cli_never_claims_success_git_hooks_fail_closed() {
        assert_eq!(EntryPoint::Hook.internal_error_code(), PASS);
        assert_eq!(EntryPoint::Check.internal_error_code(), INCOMPLETE);
        assert_eq!(EntryPoint::Explain.internal_error_code(), INCOMPLETE);
        assert_eq!(EntryPoint::Languages.internal_error_code(), INCOMPLETE);
        assert_eq!(EntryPoint::GitHook.internal_error_code(), FAIL);
        assert_eq!(EntryPoint::Install.internal_error_code(), FAIL);
        assert_eq!(EntryPoint::Detect.internal_error_code(), INCOMPLETE);
        for entry in [EntryPoint::Fix, EntryPoint::Init, EntryPoint::Mcp] {
            assert_eq!(entry.internal_error_code(), FAIL, "{entry:?} never reports an error as success");
        }
        assert_eq!(EntryPoint::Trust.internal_error_code(), FAIL, "the decision was not recorded");
        assert_eq!(EntryPoint::State.internal_error_code(), FAIL);
        assert_eq!(EntryPoint::Tools.internal_error_code(), FAIL, "the tool was not installed");
    }

    #[test]
    fn only_the_fail_closed_gate_explains_how_to_bypass_it_once() {
        let hint = EntryPoint::GitHook.bypass_hint().expect("git hooks fail closed");
        assert!(hint.contains("git commit --no-verify") && hint.contains("git push --no-verify"));
        for entry in [EntryPoint::Check, EntryPoint::Explain, EntryPoint::Languages, EntryPoint::Hook] {
            assert_eq!(entry.bypass_hint(), None, "{entry:?}");
        }
    }

    #[test]
    fn usage_and_incomplete_codes_are_distinct_from_failure() {
        let codes = [PASS, FAIL, USAGE, INCOMPLETE];
        for (i, a) in codes.iter().enumerate() {
            for b in &codes[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
