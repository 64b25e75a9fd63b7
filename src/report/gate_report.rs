//! The blocking report an agent reads when the gate refuses a commit or push.
//!
//! Order is the contract (hosts truncate long stderr from the tail, and agents act on what they
//! read first): the one-line summary, the target repository, the directives, then per-language
//! details, then safety findings. The whole text stays within [`MAX_REPORT_CHARS`]; linter
//! output is squeezed (head and tail kept) so every block's log path survives.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::findings::{count_line, histogram, histogram_line};
use crate::mode::Mode;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::secrets::{Finding, Kind};

/// Upper bound on the report's length, in characters.
pub const MAX_REPORT_CHARS: usize = 3000;

/// Most rule codes shown in a language's histogram.
const HISTOGRAM_CODES: usize = 8;

/// Most safety findings listed one by one.
const MAX_FINDINGS_LISTED: usize = 8;

/// Who reads a blocking report; it decides the directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    /// An agent whose whole Bash call a host hook refused.
    Agent,
    /// Whoever ran `git commit` / `git push` when git's own hook stopped it.
    GitHook,
    /// Whoever moved a branch or tag (any command) when the reference-transaction backstop
    /// stopped it: `--no-verify` does not skip it.
    Backstop,
    /// The user, whom the host asks to confirm an agent's one-shot lint bypass
    /// (`git -c codeguard.skipGate=true`): the findings it would let through.
    User,
}

/// Everything a blocking report says about one repository.
#[derive(Debug, Clone)]
pub struct GateReport<'a> {
    /// `commit` or `push`.
    pub mode: Mode,
    /// The repository the command targets.
    pub root: PathBuf,
    /// Per-language results (only FAIL ones are detailed).
    pub languages: &'a [LanguageResult],
    /// Safety findings (allowed ones are listed as such).
    pub findings: &'a [Finding],
    /// The command carried `--no-verify`.
    pub no_verify: bool,
    /// The language linters were bypassed (only the safety scan ran).
    pub linters_bypassed: bool,
    /// The host puts an agent's `git -c codeguard.skipGate=true` to the user for confirmation
    /// (its spec's ask channel); otherwise the bypass goes through, recorded and reported.
    pub bypass_asks_user: bool,
    /// The agent's changes to rule configuration, one line each (`ruff.toml: + ignore = …`), and
    /// whether the linters ran with the base commit's rules instead.
    pub rules: &'a [String],
    /// The linters ran with the base commit's rules.
    pub rules_from_base: bool,
}

/// Renders the blocking report for an agent (see [`render_gate_for`]).
pub fn render_gate(report: &GateReport<'_>) -> String {
    render_gate_for(report, Audience::Agent)
}

/// Renders the blocking report with the directives `audience` needs.
pub(crate) fn render_gate_for(report: &GateReport<'_>, audience: Audience) -> String {
    let failed: Vec<&LanguageResult> = report.languages.iter().filter(|l| l.status == Status::Fail).collect();
    let blocking: Vec<&Finding> = report.findings.iter().filter(|f| !f.allowed).collect();
    let mut head = String::new();
    let verb = match audience {
        Audience::User => format!("the agent asks to {} without the linters", report.mode),
        Audience::Agent | Audience::GitHook | Audience::Backstop => format!("{} blocked", report.mode),
    };
    let _ = writeln!(head, "{}", summary(&verb, &failed, &blocking));
    let _ = writeln!(head, "Target repository: {}", report.root.display());
    let (lint_failed, unsafe_content) = (!failed.is_empty(), !blocking.is_empty());
    head.push_str(&match audience {
        Audience::Agent => directives(report, lint_failed, unsafe_content),
        Audience::GitHook => git_hook_directives(report, lint_failed, unsafe_content),
        Audience::Backstop => backstop_directives(report, lint_failed, unsafe_content),
        Audience::User => user_directives(report.mode),
    });
    head.push_str(&rules_block(report));
    let safety = safety_block(report.findings);
    let budget = MAX_REPORT_CHARS.saturating_sub(head.chars().count() + safety.chars().count());
    let mut out = head;
    out.push_str(&language_blocks(&failed, budget));
    out.push_str(&safety);
    out
}

/// `codeguard: commit blocked — python (ruff), shell (shellcheck): 4 problems; 1 file must not be committed`
fn summary(verb: &str, failed: &[&LanguageResult], blocking: &[&Finding]) -> String {
    let mut parts = Vec::new();
    if !failed.is_empty() {
        let names: Vec<String> = failed
            .iter()
            .map(|l| format!("{} ({}{})", l.language, tool(l), if l.managed { ", managed" } else { "" }))
            .collect();
        let problems: usize = failed.iter().map(|l| l.findings.len()).sum();
        // A tool whose findings cannot be read is counted by nobody: say it failed.
        let counted = failed.iter().all(|l| !l.findings.is_empty());
        if counted {
            parts.push(format!("{}: {} problem{}", names.join(", "), problems, plural(problems)));
        } else {
            parts.push(format!("{} failed", names.join(", ")));
        }
    }
    if !blocking.is_empty() {
        let files = {
            let mut paths: Vec<&str> = blocking.iter().map(|f| f.path.as_str()).collect();
            paths.dedup();
            paths.len()
        };
        parts.push(format!("{files} file{} must not be committed", plural(files)));
    }
    format!("codeguard: {verb} — {}", parts.join("; "))
}

/// The agent's changes to the rules, and what they meant for this verdict.
fn rules_block(report: &GateReport<'_>) -> String {
    if report.rules.is_empty() {
        return String::new();
    }
    let mut out = String::from(if report.rules_from_base {
        "Linted with the base commit's rules: this commit also changes the linters' configuration (commit such a change on its own, for the user to review — or ask the user to make it):\n"
    } else {
        "This commit changes the linters' configuration (the user is shown it):\n"
    });
    for line in report.rules.iter().take(MAX_FINDINGS_LISTED) {
        let _ = writeln!(out, "- {}", shorten(line, 300));
    }
    out
}

/// What the user decides when asked to confirm an agent's lint bypass.
fn user_directives(mode: Mode) -> String {
    format!(
        "The agent ran `git -c codeguard.skipGate=true {mode} …` to {mode} despite the lint failures below. The safety scan ran and found nothing that blocks.\n- Allow: the {mode} goes ahead with these findings (recorded; listed at the end of the turn and by `codeguard state show`).\n- Deny: nothing runs, and the agent should fix them.\n"
    )
}

fn directives(report: &GateReport<'_>, lint_failed: bool, unsafe_content: bool) -> String {
    let mut out = String::from("What to do:\n");
    out.push_str("- This whole Bash call was NOT executed — none of its steps ran, not only the git command. Run fixes in one call and the git command in a separate call.\n");
    let _ = writeln!(out, "- Fix what is listed below, then run the {} again.", report.mode);
    if lint_failed {
        let _ = writeln!(
            out,
            "- To {0} once despite lint failures, only if the user agrees: git -c codeguard.skipGate=true {0} … — this skips only the linters; the safety scan still runs. {1}",
            report.mode,
            if report.bypass_asks_user {
                "The user is asked to confirm it before it runs."
            } else {
                "It is recorded and shown to the user at the end of the turn."
            }
        );
    }
    if unsafe_content {
        out.push_str("- Secrets and artifact files block even with codeguard.skipGate: remove them from the commit; a secret that reached any commit must be rotated.\n");
    }
    if report.no_verify {
        out.push_str("- --no-verify skips git's own hooks only; this gate still applies.\n");
    }
    if report.linters_bypassed {
        out.push_str(
            "- Linters were bypassed by codeguard.skipGate for this command; only the safety scan ran.\n",
        );
    }
    out
}

/// Directives when git's own hook stopped the command: nothing else was skipped, and the
/// one-time bypasses are a person's call.
fn git_hook_directives(report: &GateReport<'_>, lint_failed: bool, unsafe_content: bool) -> String {
    let mode = report.mode;
    let mut out = String::from("What to do:\n");
    let _ = writeln!(out, "- git did not {mode}; the worktree and the index are as they were.");
    out.push_str(match mode {
        Mode::Push => "- Fix what is listed below, commit the fixes, then push again.\n",
        Mode::Commit => "- Fix what is listed below, stage the fixes (git add), then commit again.\n",
    });
    if lint_failed {
        let _ = writeln!(
            out,
            "- To {mode} once without the linters (the safety scan still runs): git -c codeguard.skipGate=true {mode} …"
        );
    }
    if unsafe_content {
        out.push_str("- Secrets and artifact files must not be committed: remove them; a secret that reached any commit must be rotated.\n");
    }
    let _ = writeln!(
        out,
        "- To skip every check once (a person's decision, not an agent's): git {mode} --no-verify"
    );
    if report.linters_bypassed {
        out.push_str("- Linters were bypassed by codeguard.skipGate; only the safety scan ran.\n");
    }
    out
}

/// Directives when the reference-transaction backstop stopped a branch or tag from moving.
fn backstop_directives(report: &GateReport<'_>, lint_failed: bool, unsafe_content: bool) -> String {
    let mut out = String::from("What to do:\n");
    out.push_str("- git aborted the update: no branch or tag moved, and the index and the worktree are as they were (a new commit object may exist, but nothing points at it).\n");
    out.push_str("- Fix what is listed below, then commit (or amend, merge, rebase, tag) again. --no-verify does not skip this check: it judges every branch and tag update, whatever command makes it.\n");
    if lint_failed {
        out.push_str("- To go ahead once without the linters (the safety scan still runs; a person's decision, not an agent's): git -c codeguard.skipGate=true <the same command>\n");
    }
    if unsafe_content {
        out.push_str("- Secrets and artifact files must not be committed: remove them; a secret that reached any commit must be rotated.\n");
    }
    if report.linters_bypassed {
        out.push_str("- Linters were bypassed; only the safety scan ran.\n");
    }
    out
}

/// The report for checks that reached no conclusion (UNVERIFIED / PLANNED languages, content
/// that could not be rebuilt): a loud warning when they let git go ahead, a block when
/// `blocked` (`codeguard.strict`). `reasons` are the incomplete checks, one line each.
pub(crate) fn render_incomplete(
    mode: Mode,
    root: &std::path::Path,
    reasons: &[String],
    blocked: bool,
    audience: Audience,
) -> String {
    let mut out = if blocked {
        format!(
            "codeguard: {mode} blocked — {} check(s) reached no conclusion (codeguard.strict is set)\n",
            reasons.len()
        )
    } else {
        format!(
            "codeguard: {mode} allowed, but NOT fully verified — {} check(s) reached no conclusion\n",
            reasons.len()
        )
    };
    let _ = writeln!(out, "Target repository: {}", root.display());
    for reason in reasons.iter().take(MAX_FINDINGS_LISTED) {
        let _ = writeln!(out, "  - {}", shorten(reason, 300));
    }
    if reasons.len() > MAX_FINDINGS_LISTED {
        let _ = writeln!(out, "  … {} more", reasons.len() - MAX_FINDINGS_LISTED);
    }
    if blocked {
        let once = match audience {
            Audience::Backstop => "git -c codeguard.strict=false <the same command>".to_owned(),
            Audience::Agent | Audience::GitHook | Audience::User => format!("git {mode} --no-verify"),
        };
        let _ = writeln!(
            out,
            "Install the missing tools (or fix what is named above), then {mode} again; to go ahead once: {once}"
        );
    } else {
        out.push_str("Unverified checks do not block by default; to make them block: git config codeguard.strict true\n");
    }
    out
}

/// Language blocks within `budget` characters; each keeps its title, fix and log path, and
/// squeezes the linter output (head and tail) to fit.
fn language_blocks(failed: &[&LanguageResult], budget: usize) -> String {
    let mut out = String::new();
    let mut left = budget;
    for (i, lang) in failed.iter().enumerate() {
        let share = left / (failed.len() - i);
        let (frame_head, frame_tail) = frame(lang);
        let frame_len = frame_head.chars().count() + frame_tail.chars().count();
        if frame_len > share {
            let rest = failed.len() - i;
            let line = format!("\n… {rest} more failing language{} omitted; see their logs.\n", plural(rest));
            if line.chars().count() <= left {
                out.push_str(&line);
            }
            break;
        }
        let body = squeeze(&lang.output, share - frame_len);
        let block = format!("{frame_head}{body}{frame_tail}");
        left = left.saturating_sub(block.chars().count());
        out.push_str(&block);
    }
    out
}

fn frame(lang: &LanguageResult) -> (String, String) {
    let mut head = String::new();
    let histogram = histogram(&lang.findings);
    let _ = write!(
        head,
        "\n[{}] {}{} — {}",
        lang.language,
        tool(lang),
        if lang.managed { " (managed)" } else { "" },
        count_line(&lang.findings)
    );
    if !histogram.is_empty() {
        let shown = &histogram[..histogram.len().min(HISTOGRAM_CODES)];
        let more = if histogram.len() > shown.len() { " …" } else { "" };
        let _ = write!(head, " ({}{more})", histogram_line(shown));
    }
    head.push('\n');
    if let Some(fix) = &lang.fix {
        let _ = writeln!(head, "  how to fix: {} (then re-check what remains)", shorten(&fix.join(" "), 200));
    }
    let tail =
        lang.log_path.as_ref().map_or_else(String::new, |p| format!("  full output: {}\n", p.display()));
    (head, tail)
}

/// Keeps the first and last lines of `text` within `budget` characters.
fn squeeze(text: &str, budget: usize) -> String {
    let lines: Vec<String> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("  {}\n", shorten(l, 240))).collect();
    let total: usize = lines.iter().map(|l| l.chars().count()).sum();
    if total <= budget {
        return lines.concat();
    }
    let marker = format!("  … {} lines in all; the rest is in the log …\n", lines.len());
    let room = budget.saturating_sub(marker.chars().count());
    let tail_room = (room / 3).min(150);
    let mut head = String::new();
    for line in &lines {
        if head.chars().count() + line.chars().count() > room - tail_room {
            break;
        }
        head.push_str(line);
    }
    let mut tail: Vec<&String> = Vec::new();
    let mut tail_len = 0;
    for line in lines.iter().rev() {
        if tail_len + line.chars().count() > tail_room {
            break;
        }
        tail_len += line.chars().count();
        tail.push(line);
    }
    tail.reverse();
    if room == 0 {
        return String::new();
    }
    format!("{head}{marker}{}", tail.into_iter().map(String::as_str).collect::<String>())
}

fn safety_block(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let blocking = findings.iter().filter(|f| !f.allowed).count();
    let mut out = format!(
        "\nContent safety: {blocking} finding{} block{}\n",
        plural(blocking),
        if blocking == 1 { "s" } else { "" }
    );
    for f in findings.iter().take(MAX_FINDINGS_LISTED) {
        let place = f.line.map_or_else(|| f.path.clone(), |l| format!("{}:{l}", f.path));
        let allowed = if f.allowed { " [allowed by .codeguard-allow]" } else { "" };
        let _ = writeln!(out, "  {place}: {}{allowed} — {}", f.rule, shorten(&f.message, 260));
    }
    if findings.len() > MAX_FINDINGS_LISTED {
        let _ = writeln!(out, "  … {} more", findings.len() - MAX_FINDINGS_LISTED);
    }
    if findings.iter().any(|f| f.kind == Kind::Secret && !f.allowed) {
        out.push_str("  A reviewed false positive can be allowed by a human committing `secret:<fingerprint>` to .codeguard-allow (fingerprints are in the log).\n");
    }
    out
}

fn tool(lang: &LanguageResult) -> &str {
    crate::registry::tool_name(lang)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn failing(language: &str, lines: usize) -> LanguageResult {
        let mut output = String::new();
        for i in 0..lines {
            let _ = writeln!(
                output,
                "src/{language}/file_{i}.x:{}:1: F{:03} something is wrong here with a long message",
                i + 1,
                i % 1000
            );
        }
        LanguageResult {
            language: language.into(),
            name: language.into(),
            status: Status::Fail,
            reason: String::new(),
            exit_code: Some(1),
            argv: vec![vec!["ruff".into(), "check".into()]],
            files: vec![],
            duration: Duration::ZERO,
            fix: Some(vec!["ruff".into(), "check".into(), "--fix".into()]),
            install_hint: String::new(),
            managed: false,
            log_path: Some(PathBuf::from(format!("/state/logs/gate-{language}.log"))),
            cause: None,
            exempt: Vec::new(),
            findings: crate::findings::parse(crate::findings::Format::RuffConcise, &output),
            output,
            reused: 0,
        }
    }

    #[test]
    fn ten_failing_languages_with_huge_output_stay_within_the_cap() {
        let langs: Vec<LanguageResult> = (0..10).map(|i| failing(&format!("lang{i}"), 5000)).collect();
        let report = GateReport {
            mode: Mode::Commit,
            root: PathBuf::from("/repo"),
            languages: &langs,
            findings: &[],
            no_verify: true,
            linters_bypassed: false,
            bypass_asks_user: false,
            rules: &[],
            rules_from_base: false,
        };
        let text = render_gate(&report);
        assert!(text.chars().count() <= MAX_REPORT_CHARS, "{} chars", text.chars().count());
        assert!(text.starts_with("codeguard: commit blocked — lang0 (ruff)"), "{text}");
        assert!(text.contains("50000 problems"), "counted from the findings: {text}");
        assert!(text.contains("[lang0] ruff — 5000 problems in 5000 files"), "{text}");
        assert!(text.contains("Target repository: /repo"));
        let directive = text.find("NOT executed").expect("directive");
        let detail = text.find("[lang0]").expect("detail");
        assert!(directive < detail, "directives come before details");
        assert!(text.contains("/state/logs/gate-lang0.log"), "the first log path survives");
        assert!(text.contains("--no-verify skips git's own hooks"));
    }

    #[test]
    fn every_log_path_survives_when_blocks_fit() {
        let langs: Vec<LanguageResult> = (0..3).map(|i| failing(&format!("l{i}"), 2000)).collect();
        let report = GateReport {
            mode: Mode::Push,
            root: PathBuf::from("/r"),
            languages: &langs,
            findings: &[],
            no_verify: false,
            linters_bypassed: false,
            bypass_asks_user: false,
            rules: &[],
            rules_from_base: false,
        };
        let text = render_gate(&report);
        assert!(text.chars().count() <= MAX_REPORT_CHARS);
        for i in 0..3 {
            assert!(text.contains(&format!("/state/logs/gate-l{i}.log")), "log {i} missing:\n{text}");
        }
        assert!(text.contains("lines in all"), "output was squeezed");
    }

    #[test]
    fn safety_only_report() {
        let finding = Finding {
            path: ".env".into(),
            line: None,
            rule: "sensitive-file",
            kind: Kind::SensitiveFile,
            message: ".env must not be committed".into(),
            fingerprint: String::new(),
            allowed: false,
        };
        let findings = [finding];
        let report = GateReport {
            mode: Mode::Commit,
            root: PathBuf::from("/r"),
            languages: &[],
            findings: &findings,
            no_verify: false,
            linters_bypassed: true,
            bypass_asks_user: false,
            rules: &[],
            rules_from_base: false,
        };
        let text = render_gate(&report);
        assert!(text.starts_with("codeguard: commit blocked — 1 file must not be committed\n"), "{text}");
        assert!(!text.contains("skipGate=true"), "no lint bypass advice when no linter failed");
        assert!(text.contains(".env: sensitive-file"));
    }
}
