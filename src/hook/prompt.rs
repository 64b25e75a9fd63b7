//! `UserPromptSubmit`: the soft gate at prompt time. When the prompt asks to commit or push
//! ([`super::prompt_intent`]), the wide surface is checked and the agent is told what would
//! fail. Never blocks the prompt.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::prompt_intent::{PromptIntent, find_word, prompt_intent};
use crate::env::Env;
use crate::findings::{histogram, histogram_line};
use crate::host::Answer;
use crate::lint::{self, LintRequest};
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::registry::Registry;
use crate::report;
use crate::run::RunOptions;
use crate::safety;
use crate::surface::{self, Pathspecs, StagingAction, SurfaceOptions};

/// Deadline for the prompt-time soft gate.
const PROMPT_DEADLINE: Duration = Duration::from_secs(100);

/// (staged, unstaged and untracked; plus the unpushed range for a push) and say what would fail.
pub(super) fn run(prompt: &str, cwd: &Path, env: &Env) -> Answer {
    let Some(intent) = prompt_intent(prompt) else { return Answer::Allow };
    if env.is_truthy("CODEGUARD_SKIP_GATE") {
        return Answer::Allow;
    }
    let Some((root, _)) = crate::intent::repository_at(cwd) else {
        return Answer::context(
            "codeguard: this directory is not inside a git repository, so the commit gate was skipped here.",
        );
    };
    let mode = match intent {
        PromptIntent::Commit => surface::Mode::Commit,
        PromptIntent::Push => surface::Mode::Push { pending_commit: true },
    };
    let add_all = StagingAction::Add { specs: Pathspecs::default(), all: true, update: false, force: false };
    let surface =
        match surface::predict(&root, mode, &[add_all, StagingAction::Commit], &SurfaceOptions::default()) {
            Ok(surface) => surface,
            Err(e) => {
                return Answer::context(format!("codeguard: UNVERIFIED — cannot read the repository: {e}"));
            }
        };
    let mut files = surface.paths.clone();
    if let Some(push) = &surface.push {
        files.extend(push.changed.iter().cloned());
        files.sort();
        files.dedup();
    }
    files.retain(|f| root.join(f).is_file());
    let only = mentioned_languages(prompt);
    let options = RunOptions { deadline: PROMPT_DEADLINE, jobs: crate::run::default_jobs(), reuse: true };
    let prefix = format!("prompt-{}", report::path_key(&root));
    let request = LintRequest::worktree_files(&root, &files, &only, options, prefix);
    let results = match lint::lint(&request, env, &|_| {}) {
        Ok(results) => results,
        Err(e) => return Answer::context(format!("codeguard: UNVERIFIED — {e}")),
    };
    let allow = safety::committed_allow_list(&root);
    let findings = safety::scan(&root, &files, &allow);
    Answer::context(prompt_summary(&root, intent, &files, &results, &findings, &surface.unverified))
}

/// Registry ids named as whole words in the prompt (e.g. "commit the rust change").
fn mentioned_languages(prompt: &str) -> Vec<String> {
    let lower = prompt.to_lowercase();
    Registry::builtin()
        .map(|r| {
            r.languages()
                .iter()
                .filter(|l| find_word(&lower, &l.id).is_some())
                .map(|l| l.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn prompt_summary(
    root: &Path,
    intent: PromptIntent,
    files: &[String],
    results: &[LanguageResult],
    findings: &[crate::secrets::Finding],
    unverified: &[String],
) -> String {
    let action = match intent {
        PromptIntent::Commit => "commit",
        PromptIntent::Push => "push",
    };
    let failed: Vec<&LanguageResult> = results.iter().filter(|r| r.status == Status::Fail).collect();
    let blocking: Vec<&crate::secrets::Finding> = findings.iter().filter(|f| !f.allowed).collect();
    let incomplete: Vec<String> = results
        .iter()
        .filter(|r| matches!(r.status, Status::Unverified | Status::Planned))
        .map(|r| format!("{}: {}", r.language, r.reason))
        .chain(unverified.iter().cloned())
        .collect();
    let mut text = String::new();
    if failed.is_empty() && blocking.is_empty() && incomplete.is_empty() {
        let langs: Vec<&str> =
            results.iter().filter(|r| r.status == Status::Pass).map(|r| r.language.as_str()).collect();
        let _ = writeln!(
            text,
            "codeguard: the {} changed file(s) in {} pass {} and the safety scan; the {action} will be checked again when it runs.",
            files.len(),
            root.display(),
            if langs.is_empty() { "(no linted language)".to_owned() } else { langs.join(", ") }
        );
        return text;
    }
    let _ = writeln!(text, "codeguard: before you {action} in {}, this would block:", root.display());
    for lang in &failed {
        let histogram = histogram(&lang.findings);
        let _ = write!(text, "- {} FAIL", lang.language);
        if !histogram.is_empty() {
            let _ = write!(text, " ({})", histogram_line(&histogram[..histogram.len().min(6)]));
        }
        if let Some(fix) = &lang.fix {
            let _ = write!(text, "; fix: {}", fix.join(" "));
        }
        if let Some(log) = &lang.log_path {
            let _ = write!(text, "; full output: {}", log.display());
        }
        text.push('\n');
    }
    for finding in &blocking {
        let _ = writeln!(text, "- {}: {} (must not be committed)", finding.path, finding.rule);
    }
    for note in &incomplete {
        let _ = writeln!(text, "- UNVERIFIED: {note} (not a pass)");
    }
    text.push_str("Fix these in one Bash call, then run the git command in a separate call.\n");
    text
}
