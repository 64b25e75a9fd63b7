//! `codeguard git-hook pre-commit|pre-push|reference-transaction`: the authoritative gate, run by
//! git's own hooks. reference-transaction (state `prepared` only) judges the commits and tags
//! that land (`surface::landing`), with linters skipped when codeguard's pre-commit already
//! judged the same change.
//!
//! **In:** the hook's name, git's environment and working directory (git runs hooks at the
//! worktree root), and for pre-push the ref lines git writes on stdin
//! (`<local ref> <local sha> <remote ref> <remote sha>`).
//! **Checks:** pre-commit — the index git is about to commit, read from `GIT_INDEX_FILE` (git
//! points the hook at a temporary index for `commit -a` and `commit <paths>`), rebuilt from
//! blobs; unstaged edits are neither read nor touched. pre-push — for every pushed ref, the tree
//! of the pushed commit, linting the files changed by the commits the remote does not have (a
//! new branch: the commits no remote-tracking ref reaches; deleted refs are skipped). Both run
//! the shared lint engine and the content-safety scan.
//! **Out:** exit 0 (git goes ahead) or 1 (git stops); reports on stderr; nothing on stdout.
//! **Decisions:** a FAIL or a blocking safety finding blocks. Checks that reach no conclusion
//! (UNVERIFIED / PLANNED languages, content that cannot be rebuilt, an unpredictable index)
//! let git go ahead with a loud warning, unless `git config codeguard.strict true`, which makes
//! them block. An internal error blocks (fail-closed, `exit.rs`) and says how to bypass once
//! (`--no-verify`). `codeguard.skipGate` (also as `git -c`) skips the linters only;
//! `CODEGUARD_SKIP_GATE=1` skips everything; both are printed and audited.
//! **Who:** run from an agent's shell (its environment names codeguard's session hooks directory
//! as `core.hooksPath`), what lands is the agent's: a change to the allow list blocks.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, anyhow};

use crate::cli::GitHookArgs;
use crate::content::{self, ContentVerdict, Linters, Policy};
use crate::env::Env;
use crate::exit::EntryPoint;
use crate::mode::GitHook;
use crate::outcome::Status;
use crate::output::Output;
use crate::report::{self, Audience, GateReport};
use crate::state::audit::BypassKind;
use crate::surface::{self, PushAgainst, Surface};

/// Deadline per linter invocation.
const LINT_DEADLINE: Duration = Duration::from_secs(300);

/// Most bytes of pre-push input read (one line per pushed ref).
const MAX_STDIN: u64 = 1024 * 1024;

/// Runs the hook and returns its exit code.
pub(super) fn run(args: &GitHookArgs, env: &Env) -> anyhow::Result<Output> {
    let mut out = Output::default();
    let first_arg = args.git_args.first().map(String::as_str);
    if args.hook == GitHook::ReferenceTransaction && first_arg != Some("prepared") {
        // `committed` / `aborted`: the refs already moved, or never will.
        return Ok(out);
    }
    let root = crate::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("reading the directory git runs the hook in")?;
    let command = args.hook.command();
    let skip_env = env.is_truthy("CODEGUARD_SKIP_GATE");
    if skip_env && args.hook.managed() {
        audit(env, &root, BypassKind::Env, &mut out);
        out.note(&format!("codeguard: CODEGUARD_SKIP_GATE is set: nothing was checked for this {command}."));
        out.code = EntryPoint::GitHook.status_code(Status::Skipped);
        return Ok(out);
    }
    let targets = match args.hook {
        GitHook::PreCommit => vec![pre_commit_target(&root, env)?],
        GitHook::PrePush => pre_push_targets(&root, &read_stdin()?, &args.git_args, env)?,
        GitHook::ReferenceTransaction => {
            let targets = landing_targets(&root, &read_stdin()?)?;
            if targets.is_empty() {
                return Ok(out); // no new commit lands on a branch or tag
            }
            targets
        }
    };
    let mut settings = Settings::read(&root, env)?;
    if skip_env {
        // The backstop's safety scan is never skipped: the variable skips its linters only.
        audit(env, &root, BypassKind::Env, &mut out);
        out.note("codeguard: CODEGUARD_SKIP_GATE is set: linters skipped for this branch/tag update; the safety scan ran.");
        settings.skip_gate = true;
    } else if settings.skip_gate {
        audit(env, &root, BypassKind::Persisted, &mut out);
    }
    let judged = match args.hook {
        GitHook::ReferenceTransaction => handoff::take(env, &root),
        GitHook::PreCommit | GitHook::PrePush => None,
    };
    // git runs this hook from an agent's shell when that shell names codeguard's session hooks
    // directory (the host's settings put it there): what lands comes from the agent.
    let agent = crate::install::session_hooks::named_by(env, &crate::install::session_hooks::dir(env));
    let checked: Vec<Checked<'_>> = targets
        .iter()
        .map(|target| check(target, args.hook, settings, judged.as_deref(), agent, env))
        .collect();
    out.code = decide(&checked, &root, args.hook, settings, &mut out);
    if args.hook == GitHook::PreCommit
        && out.code == EntryPoint::GitHook.status_code(Status::Pass)
        && !settings.skip_gate
        && let Some(change) = checked.first().and_then(|c| c.verdict.change.as_deref())
    {
        handoff::record(env, &root, change);
    }
    Ok(out)
}

/// What codeguard's pre-commit hook hands to the reference-transaction backstop of the same
/// commit: the identity of the change it let through ([`content::ContentVerdict::change`]), so
/// the backstop does not run the same linters on the same blobs again (its safety scan always
/// runs). One record per repository in the state directory, used once, valid for an hour; a
/// change that differs by one blob, or grows from another commit, is judged in full.
mod handoff {
    use std::path::{Path, PathBuf};

    use crate::env::Env;

    /// How long a record stays good (a commit message can take a while to write).
    const VALID_MS: u64 = 60 * 60 * 1000;

    fn path(env: &Env, root: &Path) -> PathBuf {
        let key = crate::state::key_of(&[root.as_os_str().as_encoded_bytes()]);
        crate::state::home(env).join("judged").join(key)
    }

    /// Records that the pre-commit hook let `change` through (best effort: without the record
    /// the backstop judges in full).
    pub(super) fn record(env: &Env, root: &Path, change: &str) {
        let text = format!("{} {change}", crate::state::now_ms());
        let _ = crate::fs::write_private(&path(env, root), text.as_bytes());
    }

    /// The change the pre-commit hook let through, if recorded within the hour; the record is
    /// removed either way.
    pub(super) fn take(env: &Env, root: &Path) -> Option<String> {
        let path = path(env, root);
        let text = std::fs::read_to_string(&path).ok()?;
        let _ = crate::state::remove(&path);
        let (at, change) = text.trim().split_once(' ')?;
        let fresh = at.parse::<u64>().is_ok_and(|at| crate::state::now_ms().saturating_sub(at) < VALID_MS);
        fresh.then(|| change.to_owned())
    }
}

/// What the hook reads from git config (including `git -c` values, which git hands to hooks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Settings {
    /// `codeguard.strict`: incomplete checks block.
    strict: bool,
    /// `codeguard.skipGate`: the linters are skipped (the safety scan still runs).
    skip_gate: bool,
}

impl Settings {
    /// Reads `codeguard.*` through `git config`, which sees every config file and `git -c`.
    fn read(root: &Path, env: &Env) -> anyhow::Result<Self> {
        let text = crate::git::config::as_git_reads(root, env, r"^codeguard\.")
            .map_err(|e| anyhow!("reading codeguard.* from git config failed: {e}"))?;
        Ok(text.map_or_else(Self::default, |text| Self::parse(&text)))
    }

    /// Parses `git config --null --get-regexp` output: `key\nvalue\0`, or `key\0` for a key
    /// without a value (true, as git reads it). A value that is not a boolean counts as the
    /// safer reading: strict on, skipGate off.
    fn parse(text: &str) -> Self {
        let mut settings = Self::default();
        for entry in text.split('\0').filter(|e| !e.is_empty()) {
            let (key, value) = entry.split_once('\n').map_or((entry, None), |(k, v)| (k, Some(v)));
            let flag = crate::git::config::parse_boolean(value);
            match key.to_ascii_lowercase().as_str() {
                "codeguard.strict" => settings.strict = flag.unwrap_or(true),
                "codeguard.skipgate" => settings.skip_gate = flag.unwrap_or(false),
                _ => {}
            }
        }
        settings
    }
}

/// One piece of content to check: the index for pre-commit, one pushed ref for pre-push.
struct Target {
    /// What is checked, for the report (`refs/heads/x -> refs/heads/x` for a push).
    label: Option<String>,
    surface: Surface,
}

fn pre_commit_target(root: &Path, env: &Env) -> anyhow::Result<Target> {
    let index_file = super::index_file(env)?;
    let surface =
        surface::staged_from(root, index_file.as_deref()).context("reading what git is about to commit")?;
    Ok(Target { label: None, surface })
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_STDIN)
        .read_to_string(&mut text)
        .context("reading the pushed refs from stdin")?;
    Ok(text)
}

/// One line of git's pre-push input.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RefUpdate {
    local_ref: String,
    /// `None`: the remote ref is being deleted.
    local: Option<gix::ObjectId>,
    remote_ref: String,
    /// `None`: the remote ref does not exist yet.
    remote: Option<gix::ObjectId>,
}

/// Parses pre-push input; blank lines are ignored, a malformed line is an error.
fn parse_updates(input: &str) -> anyhow::Result<Vec<RefUpdate>> {
    let oid = |hex: &str| crate::git::parse_id(hex).map_err(|e| anyhow!(e));
    let mut updates = Vec::new();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local, remote_ref, remote] = fields[..] else {
            return Err(anyhow!("unexpected pre-push input line: {line:?}"));
        };
        updates.push(RefUpdate {
            local_ref: local_ref.to_owned(),
            local: oid(local)?,
            remote_ref: remote_ref.to_owned(),
            remote: oid(remote)?,
        });
    }
    Ok(updates)
}

fn pre_push_targets(root: &Path, input: &str, args: &[String], env: &Env) -> anyhow::Result<Vec<Target>> {
    let remote = args.first().map(String::as_str);
    // A new remote ref (or one whose commit is not here) is measured against what the remote
    // itself advertises, not against remote-tracking refs anyone can move (`git update-ref
    // refs/remotes/origin/main <commit>` would hide that commit from the push range): asked
    // once, and only when such a ref is pushed.
    let asked = std::cell::OnceCell::new();
    let advertised = || {
        asked
            .get_or_init(|| {
                args.get(1).or(args.first()).and_then(|url| crate::git::advertised(root, url, env))
            })
            .clone()
    };
    let mut seen = Vec::new();
    let mut targets = Vec::new();
    for update in parse_updates(input)? {
        let Some(local) = update.local else { continue };
        let against = update.remote.map_or(PushAgainst::NewRef, PushAgainst::Remote);
        if seen.contains(&(local, against)) {
            continue;
        }
        seen.push((local, against));
        let surface = surface::pushed(root, local, against, remote, &advertised)
            .with_context(|| format!("reading what {} pushes", update.local_ref))?;
        targets
            .push(Target { label: Some(format!("{} -> {}", update.local_ref, update.remote_ref)), surface });
    }
    Ok(targets)
}

/// One line of git's reference-transaction input: `<old> <new> <ref>`, where a value is an
/// object id (all zeros: none) or, for a symbolic ref, `ref:<target>`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RefMove {
    name: String,
    /// `None`: the ref is created (or was symbolic).
    old: Option<gix::ObjectId>,
    /// `None`: the ref is deleted (or becomes symbolic).
    new: Option<gix::ObjectId>,
}

/// Parses reference-transaction input; a malformed line is an error (git stops: fail-closed).
fn parse_moves(input: &str) -> anyhow::Result<Vec<RefMove>> {
    let value = |text: &str| -> anyhow::Result<Option<gix::ObjectId>> {
        if text.starts_with("ref:") {
            return Ok(None);
        }
        crate::git::parse_id(text).map_err(|e| anyhow!(e))
    };
    let mut moves = Vec::new();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(' ').collect();
        let [old, new, name] = fields[..] else {
            return Err(anyhow!("unexpected reference-transaction input line: {line:?}"));
        };
        moves.push(RefMove { name: name.to_owned(), old: value(old)?, new: value(new)? });
    }
    Ok(moves)
}

/// What lands when the refs in `input` move: for every branch or tag that moves to a new
/// object, the commits no local branch, tag or remote-tracking ref reaches yet (their files,
/// every blob they introduce, their messages) and the messages of annotated tags. Other refs
/// (`HEAD`, remote-tracking refs, `ORIG_HEAD`, notes, stash) carry nothing that is published
/// by itself: a detached commit is judged when a branch or tag takes it, or by pre-push.
fn landing_targets(root: &Path, input: &str) -> anyhow::Result<Vec<Target>> {
    let mut targets = Vec::new();
    let mut repo = None;
    for moved in parse_moves(input)? {
        let judged = moved.name.starts_with("refs/heads/") || moved.name.starts_with("refs/tags/");
        let Some(new) = moved.new.filter(|new| judged && moved.old != Some(*new)) else { continue };
        let repo = match &mut repo {
            Some(repo) => repo,
            None => repo
                .insert(crate::git::open_worktree(root).context("opening the repository whose refs move")?),
        };
        let (commit, tags) = peel(repo, new, &moved.name)?;
        let old = moved.old.and_then(|old| peel(repo, old, &moved.name).ok()).map(|(c, _)| c);
        let label = format!("{} → {}", moved.name, new.to_hex_with_len(10));
        let landed = surface::landing(repo, commit, old, tags)
            .with_context(|| format!("reading what {} lands", moved.name))?;
        targets.extend(landed.map(|surface| Target { label: Some(label), surface }));
    }
    Ok(targets)
}

/// The commit `id` leads to through annotated tags, and those tags. A ref that names a tree or
/// a blob publishes content codeguard does not judge as a commit, so it is refused.
fn peel(
    repo: &gix::Repository,
    id: gix::ObjectId,
    name: &str,
) -> anyhow::Result<(gix::ObjectId, Vec<gix::ObjectId>)> {
    match crate::git::peel_tags(repo, id).with_context(|| format!("reading {name}'s new object {id}"))? {
        crate::git::Peeled::Commit { commit, tags } => Ok((commit, tags)),
        crate::git::Peeled::Other(kind) => Err(anyhow!(
            "{name} would point at a {kind} ({id}), not a commit: codeguard judges only commits that land on branches and tags, so git stops this update. Tag a commit instead"
        )),
    }
}

/// The result of checking one target.
struct Checked<'a> {
    target: &'a Target,
    verdict: ContentVerdict,
}

impl Checked<'_> {
    fn fails(&self) -> bool {
        self.verdict.fails()
    }

    /// One line per check that reached no conclusion.
    fn incomplete_reasons(&self) -> Vec<String> {
        let prefix = self.target.label.as_ref().map_or_else(String::new, |l| format!("{l}: "));
        self.verdict.incomplete_reasons().into_iter().map(|r| format!("{prefix}{r}")).collect()
    }
}

fn check<'a>(
    target: &'a Target,
    hook: GitHook,
    settings: Settings,
    judged: Option<&str>,
    agent: bool,
    env: &Env,
) -> Checked<'a> {
    let surface = &target.surface;
    let linters = match judged {
        _ if settings.skip_gate => Linters::Bypassed("codeguard.skipGate".to_owned()),
        Some(change) => Linters::UnlessJudged(change.to_owned()),
        None => Linters::Run,
    };
    let policy = Policy {
        linters,
        deadline: LINT_DEADLINE,
        log_prefix: format!("git-{}-{}", hook.file_name(), report::path_key(&surface.root)),
        only: Vec::new(),
        agent,
        identify: hook == GitHook::PreCommit,
        reuse: true,
    };
    Checked { target, verdict: content::judge(surface, &policy, env) }
}

/// Writes the outcome to `out`'s stderr (stdout belongs to git) and returns the exit code.
fn decide(checked: &[Checked<'_>], root: &Path, hook: GitHook, settings: Settings, out: &mut Output) -> u8 {
    let mode = hook.command();
    if settings.skip_gate {
        out.note(&format!(
            "codeguard: codeguard.skipGate is set: linters skipped for this {mode}; the safety scan ran."
        ));
    }
    let failed: Vec<&Checked<'_>> = checked.iter().filter(|c| c.fails()).collect();
    if !failed.is_empty() {
        for c in failed {
            let rules: Vec<String> = c.verdict.rule_changes.iter().map(|r| r.describe(6)).collect();
            let report = GateReport {
                mode,
                root: root.to_path_buf(),
                languages: &c.verdict.languages,
                findings: &c.verdict.findings,
                no_verify: false,
                linters_bypassed: settings.skip_gate,
                bypass_asks_user: false,
                rules: &rules,
                rules_from_base: c.verdict.rule_changes.iter().any(|r| r.judged_with_base),
            };
            let mut text = report::render_gate_for(&report, audience(hook));
            if let Some(label) = &c.target.label {
                let _ = writeln!(text, "Checked: {label}");
            }
            out.note(&text);
        }
        return EntryPoint::GitHook.status_code(Status::Fail);
    }
    let reasons: Vec<String> = checked.iter().flat_map(Checked::incomplete_reasons).collect();
    if !reasons.is_empty() {
        out.note(&report::render_incomplete(mode, root, &reasons, settings.strict, audience(hook)));
        // `codeguard.strict`: an incomplete check counts as a failure.
        return EntryPoint::GitHook.status_code(if settings.strict {
            Status::Fail
        } else {
            Status::Unverified
        });
    }
    // The backstop stays silent when it passes: it runs after the pre-commit hook, which
    // already said what it checked.
    if let Some(line) = pass_line(checked, mode).filter(|_| hook.managed()) {
        out.note(&line);
    }
    EntryPoint::GitHook.status_code(Status::Pass)
}

/// Who reads what `hook` prints.
fn audience(hook: GitHook) -> Audience {
    if hook.managed() { Audience::GitHook } else { Audience::Backstop }
}

/// `codeguard: commit checked — PASS: python (ruff), shell (shellcheck); 3 files`, or `None`
/// when nothing needed checking.
fn pass_line(checked: &[Checked<'_>], mode: crate::mode::Mode) -> Option<String> {
    let files: usize = checked.iter().map(|c| c.target.surface.paths.len()).sum();
    if files == 0 {
        return None;
    }
    let mut ran: Vec<String> = checked
        .iter()
        .flat_map(|c| &c.verdict.languages)
        .filter(|l| l.status == Status::Pass)
        .map(|l| l.language.clone())
        .collect();
    ran.sort();
    ran.dedup();
    let linted = if ran.is_empty() { "no linter applies".to_owned() } else { ran.join(", ") };
    Some(format!("codeguard: {mode} checked — PASS ({linted}; safety scan; {files} file(s))"))
}

/// Records a bypass in the same typed form as the agent gate's, so `state show` lists it.
/// (`codeguard.skipGate` read by git — persisted or `git -c` — is recorded as `persisted`.)
fn audit(env: &Env, root: &Path, kind: BypassKind, out: &mut Output) {
    if let Err(e) = crate::state::audit::record_bypass(env, kind, root, None) {
        out.note(&format!("codeguard: could not record the bypass in the audit log: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const ZERO: &str = "0000000000000000000000000000000000000000";

    fn id(hex: &str) -> gix::ObjectId {
        gix::ObjectId::from_hex(hex.as_bytes()).expect("hex")
    }

    #[test]
    fn pre_push_lines_parse_with_zeros_meaning_new_or_deleted() {
        let input = format!(
            "refs/heads/main {A} refs/heads/main {B}\n\nrefs/heads/new {A} refs/heads/new {ZERO}\n(delete) {ZERO} refs/heads/old {B}\n"
        );
        let updates = parse_updates(&input).expect("parse");
        assert_eq!(updates.len(), 3, "blank lines are skipped");
        assert_eq!(updates[0].local, Some(id(A)));
        assert_eq!(updates[0].remote, Some(id(B)));
        assert_eq!(updates[1].remote, None, "a new remote ref");
        assert_eq!(updates[2].local, None, "a deleted ref");
        assert_eq!(updates[2].remote_ref, "refs/heads/old");
    }

    #[test]
    fn malformed_pre_push_input_is_an_error_not_a_pass() {
        assert!(parse_updates("refs/heads/main abc refs/heads/main\n").is_err());
        assert!(parse_updates(&format!("refs/heads/main zz{} refs/heads/main {B}\n", &A[2..])).is_err());
        assert!(parse_updates("").expect("empty").is_empty());
    }

    #[test]
    fn settings_follow_git_booleans_and_choose_the_safe_side_when_unsure() {
        let parsed = Settings::parse("codeguard.strict\ntrue\0codeguard.skipgate\nno\0");
        assert_eq!(parsed, Settings { strict: true, skip_gate: false });
        let parsed = Settings::parse("codeguard.skipgate\0codeguard.strict\noff\0");
        assert_eq!(parsed, Settings { strict: false, skip_gate: true }, "a key without value is true");
        let parsed =
            Settings::parse("codeguard.strict\nmaybe\0codeguard.skipgate\nmaybe\0codeguard.other\nx\0");
        assert_eq!(parsed, Settings { strict: true, skip_gate: false });
        let parsed = Settings::parse("codeguard.skipgate\n\0codeguard.strict\n\0");
        assert_eq!(
            parsed,
            Settings { strict: false, skip_gate: false },
            "an empty value is false, as in git"
        );
        // A quoted blank (`strict = " "`) is no boolean to git (it refuses it): the safe side.
        let parsed = Settings::parse("codeguard.skipgate\n2\0codeguard.strict\n \0");
        assert_eq!(
            parsed,
            Settings { strict: true, skip_gate: true },
            "any non-zero integer is true, as in git"
        );
    }
}
