//! The `PreToolUse` hard gate: from a shell command to allow, context or block.
//!
//! Flow: analyse the command (pure) → not guarded: allow at once, without opening a repository →
//! `CODEGUARD_SKIP_GATE` (the only full bypass, audited) → bind to repositories → per repository,
//! in parallel: predict the surface, materialise it, run the safety scan (always) and the
//! linters of the touched languages (unless an agent-visible bypass skips them) → one answer.
//! A confirmed lint failure or safety violation blocks; an uncheckable indirect script, a
//! `cd`/`-C` into a non-repository, or a commit with no repository blocks with instructions to
//! make it checkable; an inexact prediction answers with context saying what was not verified.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bash::{self, GitOp};
use crate::content::{self, ContentVerdict, Linters, Policy};
use crate::env::Env;
use crate::host::{Answer, Host};
use crate::intent::{self, GateCase, RepoIntent};
use crate::report::{self, GateReport};
use crate::state::audit::BypassKind;
use crate::surface;

/// Default overall budget for one gate run, below the hosts' own hook timeouts.
pub(super) const DEFAULT_BUDGET: Duration = Duration::from_secs(100);

/// Separator between the reports of several repositories.
const NEXT_REPOSITORY: &str = "\n==== next repository ====\n";

/// Evaluates the analysis of a shell command the agent is about to run in `cwd`, for the host
/// session `session` (used to attribute audited bypasses). The caller has already let through
/// commands whose analysis needs no resolution.
pub(super) fn evaluate(
    analysis: &bash::Analysis,
    cwd: &Path,
    env: &Env,
    host: Host,
    session: Option<&str>,
) -> Answer {
    if !analysis.control.is_empty() {
        return Answer::Block(controls(&analysis.control));
    }
    let mut intent = intent::resolve(analysis, cwd);
    let mut targets = intent.write_targets.clone();
    if let Some(home) = env.home() {
        targets.extend(analysis.steps.iter().filter_map(|s| match s {
            bash::Step::Write(w) => w.home_relative().map(|rest| home.join(rest)),
            _ => None,
        }));
    }
    let own = crate::install::protected::touched(&targets, env);
    if !own.is_empty() {
        return Answer::Block(controls(&own));
    }
    surface::judge_writes(&mut intent, &crate::install::hook_reach::doors, &|| {
        crate::install::session_hooks::in_place(host, env, session)
    });
    let case = intent.gate_case();
    let repos = match case {
        GateCase::Unguarded => return Answer::Allow,
        _ if env.is_truthy("CODEGUARD_SKIP_GATE") => {
            audit(env, BypassKind::Env, cwd, session);
            return Answer::context(
                "codeguard: gate bypassed by CODEGUARD_SKIP_GATE (recorded in the audit log).",
            );
        }
        GateCase::Uncheckable(reason) => return Answer::Block(uncheckable(reason, None)),
        GateCase::RunTimeOnly => return combine(&[], &intent.unverified),
        GateCase::NoRepository => {
            return Answer::Block(uncheckable(
                "no git repository was found for this commit/push (the directory is not inside a repository)",
                None,
            ));
        }
        GateCase::Repositories(repos) => repos,
    };
    let started = Instant::now();
    let budget = budget(env, host);
    let outcomes: Vec<RepoOutcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = repos
            .iter()
            .map(|repo| scope.spawn(move || check_repo(repo, env, host, session, started, budget)))
            .collect();
        handles
            .into_iter()
            .zip(repos)
            .map(|(h, repo)| {
                h.join().unwrap_or_else(|_| RepoOutcome::note(&repo.root, "internal error while checking"))
            })
            .collect()
    });
    combine(&outcomes, &intent.unverified)
}

/// A write by the host's own file-editing tool (`Write`, `Edit`, `write_file`, …) to `paths`
/// (relative ones under `cwd`): blocked when one is codeguard's own file, like the same write
/// from the shell.
pub(super) fn edit(paths: &[PathBuf], cwd: &Path, env: &Env) -> Answer {
    let targets: Vec<PathBuf> = paths.iter().map(|p| cwd.join(p)).collect();
    let own = crate::install::protected::touched(&targets, env);
    if own.is_empty() {
        return Answer::Allow;
    }
    Answer::Block(controls_for(&own, "This file write was NOT made."))
}

/// A shell call whose input cannot be read (`why`): nothing it would run can be judged, so it is
/// refused, and the agent is told how to send it.
pub(super) fn unreadable_call(why: &str) -> Answer {
    Answer::Block(format!(
        "codeguard: command blocked — {why}.\nWhat to do:\n- This whole call was NOT executed — none of its commands ran.\n- Send the commands again as plain shell command strings (a list of strings, or one string)."
    ))
}

/// What the gate concluded for one repository.
struct RepoOutcome {
    block: Option<String>,
    /// Put the command to the user: the agent asks to go ahead despite these lint failures.
    ask: Option<String>,
    notes: Vec<String>,
    /// Pre-existing findings exempt by the baseline (shown, never blocking).
    exempt: Vec<String>,
    /// The agent's changes to rule configuration it let through (shown to the agent and the user).
    rules: Vec<String>,
}

impl RepoOutcome {
    fn note(root: &Path, text: &str) -> Self {
        Self {
            block: None,
            ask: None,
            notes: vec![format!("{}: {text}", root.display())],
            exempt: Vec::new(),
            rules: Vec::new(),
        }
    }

    fn blocked(text: String, notes: Vec<String>) -> Self {
        Self { block: Some(text), ask: None, notes, exempt: Vec::new(), rules: Vec::new() }
    }
}

fn combine(outcomes: &[RepoOutcome], general: &[String]) -> Answer {
    let blocks: Vec<&str> = outcomes.iter().filter_map(|o| o.block.as_deref()).collect();
    if !blocks.is_empty() {
        return Answer::Block(blocks.join(NEXT_REPOSITORY));
    }
    let asks: Vec<&str> = outcomes.iter().filter_map(|o| o.ask.as_deref()).collect();
    if !asks.is_empty() {
        return Answer::Ask(asks.join(NEXT_REPOSITORY));
    }
    let notes: Vec<&str> = general
        .iter()
        .map(String::as_str)
        .chain(outcomes.iter().flat_map(|o| o.notes.iter().map(String::as_str)))
        .collect();
    let exempt: Vec<&str> = outcomes.iter().flat_map(|o| o.exempt.iter().map(String::as_str)).collect();
    let rules: Vec<&str> = outcomes.iter().flat_map(|o| o.rules.iter().map(String::as_str)).collect();
    if notes.is_empty() && exempt.is_empty() && rules.is_empty() {
        return Answer::Allow;
    }
    let mut text = String::new();
    let mut user = None;
    if !rules.is_empty() {
        text.push_str("codeguard: this changes the linters' configuration — the user is shown it, and should review it:\n");
        for line in &rules {
            let _ = writeln!(text, "- {line}");
        }
        user = Some(format!("codeguard: the agent's commit/push changes lint rules — {}", rules.join(" | ")));
    }
    if !notes.is_empty() {
        text.push_str(
            "codeguard: not everything could be verified — do not report this commit/push as fully checked.\n",
        );
        for note in notes {
            let _ = writeln!(text, "- UNVERIFIED: {note}");
        }
    }
    if !exempt.is_empty() {
        let _ = writeln!(
            text,
            "codeguard: {} pre-existing finding(s) exempt — the same linter reports them on the content before this change (fix them separately):",
            exempt.len()
        );
        for line in exempt.iter().take(20) {
            let _ = writeln!(text, "- {line}");
        }
    }
    Answer::Context { text, user }
}

fn check_repo(
    repo: &RepoIntent,
    env: &Env,
    host: Host,
    session: Option<&str>,
    started: Instant,
    budget: Duration,
) -> RepoOutcome {
    if let Some(reason) = &repo.block {
        return RepoOutcome::blocked(uncheckable(reason, Some(&repo.root)), Vec::new());
    }
    let mut notes: Vec<String> = repo.unverified.clone();
    let mut surface = match surface::for_repo(repo) {
        Ok(surface) => surface,
        // What it would commit or push cannot be known: never allowed silently.
        Err(e) => return RepoOutcome::blocked(unreadable(&e.to_string(), &repo.root), Vec::new()),
    };
    if let Some(reason) = &surface.block {
        return RepoOutcome::blocked(uncheckable(reason, Some(&repo.root)), notes);
    }
    if let Err(reason) = add_pushed_history(repo, &mut surface) {
        return RepoOutcome::blocked(uncheckable(&reason, Some(&repo.root)), notes);
    }
    notes.extend(submodule_pushes(repo));
    if repo.fallback && surface.paths.is_empty() && surface.deleted.is_empty() {
        audit(env, BypassKind::Fallback, &repo.root, session);
    }
    // The agent's one-shot bypass is the user's to grant where the host can ask: the linters
    // run, and only if they fail is the command put to the user (see `finish`).
    let asks = repo.bypass == Some(BypassKind::Inline) && crate::host::spec(host).can_ask();
    let linters = match repo.bypass {
        Some(_) if asks => Linters::Run,
        Some(kind) => {
            audit(env, kind, &repo.root, session);
            Linters::Bypassed(format!("codeguard.skipGate ({})", kind.as_str()))
        }
        None => Linters::Run,
    };
    let left = budget.saturating_sub(started.elapsed()).max(Duration::from_secs(1));
    let policy = Policy {
        linters,
        deadline: left,
        log_prefix: format!("gate-{}", report::path_key(&repo.root)),
        only: Vec::new(),
        agent: true,
        identify: false,
        reuse: true,
    };
    let verdict = content::judge(&surface, &policy, env);
    if started.elapsed() >= budget
        && verdict.languages.iter().any(|l| l.cause == Some(crate::outcome::Reason::TimedOut))
    {
        let text = format!(
            "codeguard: {} blocked — checks did not finish in time; retry\nTarget repository: {}\nThe whole Bash call was NOT executed. The linters ran past the gate's {}-second budget and were stopped; run the same command again (a second run is usually faster), or run `codeguard check --staged` to see what is slow.\n",
            surface.mode.git_command(),
            repo.root.display(),
            budget.as_secs()
        );
        return RepoOutcome::blocked(text, notes);
    }
    notes.extend(verdict.incomplete_reasons());
    let no_verify = repo
        .ops
        .iter()
        .any(|o| matches!(o.op, GitOp::Commit { no_verify: true, .. } | GitOp::Push { no_verify: true, .. }));
    let outcome = finish(repo, surface.mode.git_command(), &verdict, notes, no_verify, host, asks);
    if outcome.ask.is_some() {
        audit(env, BypassKind::Asked, &repo.root, session);
    }
    if outcome.block.is_none() && !verdict.rule_changes.is_empty() {
        let paths: Vec<&str> = verdict.rule_changes.iter().map(|c| c.path.as_str()).collect();
        let _ = crate::state::audit::record_rule_change(env, &repo.root, session, &paths);
    }
    outcome
}

fn finish(
    repo: &RepoIntent,
    mode: crate::mode::Mode,
    verdict: &ContentVerdict,
    notes: Vec<String>,
    no_verify: bool,
    host: Host,
    asks: bool,
) -> RepoOutcome {
    let rules: Vec<String> = verdict.rule_changes.iter().map(|c| c.describe(6)).collect();
    if !verdict.fails() {
        let exempt = verdict
            .languages
            .iter()
            .flat_map(|l| l.exempt.iter().map(move |e| format!("{} ({}): {e}", l.language, l.name)))
            .collect();
        return RepoOutcome { block: None, ask: None, notes, exempt, rules };
    }
    let report = GateReport {
        mode,
        root: repo.root.clone(),
        languages: &verdict.languages,
        findings: &verdict.findings,
        no_verify,
        linters_bypassed: repo.bypass.is_some() && !asks,
        bypass_asks_user: crate::host::spec(host).can_ask(),
        rules: &rules,
        rules_from_base: verdict.rule_changes.iter().any(|c| c.judged_with_base),
    };
    // Only the linters are the user's to waive: a blocking safety finding is refused outright.
    if asks && !crate::safety::blocks(&verdict.findings) {
        let text = report::render_gate_for(&report, report::Audience::User);
        return RepoOutcome { block: None, ask: Some(text), notes, exempt: Vec::new(), rules: Vec::new() };
    }
    RepoOutcome::blocked(report::render_gate(&report), notes)
}

/// Adds to the surface's history every blob the pushes of this repository send beyond the
/// current branch's range (other refs, refspecs, `--all`, `--tags`, another remote), so the
/// safety scan reads them. A refspec source that cannot be resolved is a reason to block.
fn add_pushed_history(repo: &RepoIntent, surface: &mut surface::Surface) -> Result<(), String> {
    let Some(range) = surface.push.as_mut() else { return Ok(()) };
    for call in surface::push_calls(repo) {
        let surface::PushCall { remote, refspecs, all_refs, tags, text } = &call;
        if refspecs.is_empty() && !*all_refs && !*tags && pushes_to_upstream(range, remote.as_deref()) {
            continue; // the range already holds exactly this push's history
        }
        let refs =
            surface::PushRefs { remote: remote.as_deref(), refspecs, all_refs: *all_refs, tags: *tags };
        let surface::PushedHistory { introduced, messages, unresolved } =
            surface::pushed_history(&repo.root, refs)
                .map_err(|e| format!("`{text}`: what it pushes cannot be read ({e})"))?;
        if !unresolved.is_empty() {
            return Err(format!(
                "`{text}` pushes {}, which codeguard cannot resolve to a commit; push a branch, a tag or a full commit id",
                unresolved.join(", ")
            ));
        }
        range.introduced.extend(introduced);
        range.messages.extend(messages);
    }
    Ok(())
}

/// A push that also pushes its submodules' commits (`--recurse-submodules=on-demand|only`, or
/// `push.recurseSubmodules` so set) in a repository that has submodules: their commits are not
/// this repository's content, and this gate does not judge them — said, never passed silently.
fn submodule_pushes(repo: &RepoIntent) -> Vec<String> {
    if !repo.root.join(".gitmodules").is_file() {
        return Vec::new();
    }
    let configured = || {
        crate::git::open_worktree(&repo.root)
            .ok()
            .and_then(|r| crate::git::config::string(&r, "push.recurseSubmodules"))
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "on-demand" | "only"))
    };
    repo.ops
        .iter()
        .filter_map(|o| match &o.op {
            GitOp::Push { dry_run: false, submodules, .. } if submodules.unwrap_or_else(configured) => Some(format!(
                "`{}` also pushes the submodules' own commits, which this check does not read (a backstop in each submodule — `codeguard install --git-hooks` there, or this session's — judges them)",
                o.text
            )),
            _ => None,
        })
        .collect()
}

/// Whether a push of the current branch to `remote` is the one the range was measured for: the
/// upstream's remote (or, without an upstream, the default the range used too).
fn pushes_to_upstream(range: &surface::PushRange, remote: Option<&str>) -> bool {
    match (&range.base, remote) {
        (_, None) => true,
        (surface::PushBase::Upstream { reference }, Some(remote)) => {
            reference.strip_prefix("refs/remotes/").and_then(|r| r.split('/').next()) == Some(remote)
        }
        (
            surface::PushBase::NoUpstream
            | surface::PushBase::Remote { .. }
            | surface::PushBase::RemoteTracking { .. }
            | surface::PushBase::Advertised { .. }
            | surface::PushBase::LocalRefs { .. },
            Some(_),
        ) => false,
    }
}

/// The report for a command that cannot be checked, with how to make it checkable.
fn uncheckable(reason: &str, root: Option<&PathBuf>) -> String {
    let mut text = format!("codeguard: commit/push blocked — cannot be checked: {reason}\n");
    if let Some(root) = root {
        let _ = writeln!(text, "Target repository: {}", root.display());
    }
    text.push_str("What to do:\n- This whole Bash call was NOT executed. Make the git step checkable: run `git add …`, `git commit …` and `git push …` directly (not through a script, `eval` or a variable), from inside the repository (`cd <repo> && git commit …` or `git -C <repo> commit …`).\n- If a script must commit, run its other steps first, then the git commands directly in a separate call.\n");
    text
}

/// The block for a repository codeguard cannot read (reftable refs, a worktree elsewhere
/// through `core.worktree`, a `HEAD` it cannot decode, …).
fn unreadable(why: &str, root: &Path) -> String {
    format!(
        "codeguard: commit/push blocked — cannot be checked: codeguard cannot read this repository ({why}), so what this command would commit or push cannot be known\nTarget repository: {}\nWhat to do:\n- This whole Bash call was NOT executed. codeguard reads repositories with the files-backend refs and the worktree beside (or named by) the .git directory; a repository it cannot read is not checked, so it is not committed to through the agent. Ask the user to commit this change, or to make the repository readable (e.g. `git refs migrate --ref-format=files`).\n",
        root.display()
    )
}

/// The report for a command that would loosen codeguard's own controls: the user's decision.
fn controls(what: &[String]) -> String {
    controls_for(what, "This whole Bash call was NOT executed — none of its steps ran.")
}

/// The block of a change to codeguard's own controls; `not_done` says what did not happen.
fn controls_for(what: &[String], not_done: &str) -> String {
    format!(
        "codeguard: command blocked — it changes codeguard's own controls ({}).\nWhat to do:\n- {not_done}\n- Trusting a workspace, removing codeguard's hooks or tools, clearing its state, replacing git hooks by force, codeguard's git settings (`codeguard.*`, `core.hooksPath`), and changing codeguard's own files (its state directory, its program, the git hooks it installed, its entries in an agent host's settings) are the user's decisions: do not run them as the agent. If one is needed, ask the user to run it in their own terminal, and say why.\n",
        what.join(", ")
    )
}

/// The gate's overall time budget: the user's, else the default; for a host that stops waiting
/// for a hook before its configured timeout, at most two thirds of that wait, so the answer
/// comes before the host goes on without it.
fn budget(env: &Env, host: Host) -> Duration {
    let chosen = env
        .text("CODEGUARD_GATE_BUDGET_SECS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0)
        .map_or(DEFAULT_BUDGET, Duration::from_secs);
    match crate::host::spec(host).waits_at_most_secs {
        Some(wait) => chosen.min(Duration::from_secs(wait * 2 / 3)),
        None => chosen,
    }
}

/// Records a bypass (kind, repository, session, time — never the command: it may hold secrets).
/// An audit log that cannot be written never changes the gate's answer.
fn audit(env: &Env, kind: BypassKind, root: &Path, session: Option<&str>) {
    let _ = crate::state::audit::record_bypass(env, kind, root, session);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_answers_before_a_host_that_stops_waiting() {
        let env = Env::from_pairs([("CODEGUARD_GATE_BUDGET_SECS", "100")]);
        assert_eq!(budget(&env, Host::Claude), Duration::from_secs(100));
        assert_eq!(budget(&env, Host::Qwen), Duration::from_secs(40), "Qwen Code waits 60 s at most");
        let short = Env::from_pairs([("CODEGUARD_GATE_BUDGET_SECS", "10")]);
        assert_eq!(budget(&short, Host::Qwen), Duration::from_secs(10));
    }
}
