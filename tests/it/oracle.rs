//! The real-git oracle: every command of `tests/corpus/oracle/*.txt` and of the analyser corpus
//! (`tests/corpus/bash.txt`) is run for real, in a fresh copy of a fixture, and git's own record
//! of what happened is compared with what `codeguard explain` predicted just before.
//!
//! **Truth** comes from git alone: the trace2 event stream (`GIT_TRACE2_EVENT`) says which git
//! commands ran, however they were launched (alias, script, `make`, `npm`, another interpreter);
//! the refs of every repository and bare remote before and after say what was committed and
//! pushed; `diff-tree` says which files each new commit changed. A commit counts as a *content*
//! commit when its reflog entry says `commit…` (plain, amend, initial, merge completion: the
//! content comes from the index); commits made by merge, rebase, cherry-pick and the like replay
//! content committed elsewhere and are counted, not scored.
//!
//! **Scored**, per case: a *miss* (something landed, explain said not guarded), a *wrong mode*
//! (a push landed, explain said commit), a *wrong repository* (a repository received commits or
//! a push that explain binds nothing to), *unpredicted files* (a file a content commit or a pushed
//! ref's range changed is not in explain's `paths ∪ deleted` for that repository, and explain
//! does not block), and a *false alarm* (explain guarded, exact, yet the command succeeded and
//! git never ran a command that commits or pushes; when an earlier step failed in the fixture —
//! `make test && git commit` without a Makefile — the case is counted, not blamed). The first four fail the test; false alarms may be at most 1%.
//! UNVERIFIED and superset predictions are counted and printed.
//!
//! Corpus format (`tests/corpus/oracle/*.txt`): `#` comments and blank lines are skipped, `## T`
//! starts a section, `@ LINE` is set-up shell run in the fixture before the next case (neither
//! analysed nor traced), `> LINE` continues the previous command after a newline, any other line
//! is a command. `ORACLE_FILTER=text` runs the cases whose command or set-up contains the text (or whose origin,
//! `file.txt:LINE`, starts with it);
//! `ORACLE_VERBOSE=1` prints every case's prediction and truth.
//!
//! The fixture (see [`FIXTURE`]): `work` is a clone of the bare `origin.git`; `main` is one
//! commit ahead of `origin/main`, `feature` one ahead of `origin/feature`, `topic` local only, tag
//! `v0.1` not pushed; `b.py` and `staged.py` staged, `a.py` and `lib/c.py` modified, `gone.py`
//! deleted, `new.py` untracked; `inner/` an independent repository with its own bare origin, one
//! commit ahead and `i.py` modified. HOME, the global and the system git config are the
//! fixture's own.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Builds the fixture under `$F` (run by bash; every path is absolute, so a copy made at the
/// same place behaves identically).
const FIXTURE: &str = r#"
set -eu
mkdir -p "$F/home/.config" "$F/etc"
: > "$F/etc/gitconfig"
cat > "$F/home/.gitconfig" <<'CFG'
[user]
	name = Oracle Person
	email = oracle@example.invalid
[init]
	defaultBranch = main
[commit]
	gpgsign = false
[tag]
	gpgsign = false
[advice]
	detachedHead = false
[safe]
	directory = *
CFG
git init -q --bare "$F/origin.git"
git init -q "$F/work"
cd "$F/work"
mkdir -p lib sub docs
printf 'import os\n\nprint(os.name)\n' > a.py
printf 'def b():\n    return 1\n' > b.py
printf 'def util():\n    return 2\n' > util.py
printf 'GONE = 1\n' > gone.py
printf 'def c():\n    return 3\n' > lib/c.py
printf 'S = 1\n' > sub/s.py
printf '# Fixture\n' > README.md
printf '# Guide\n' > docs/guide.md
printf '*.log\nbuild/\n' > .gitignore
git add -A
git commit -qm C1
git tag v0.1
git remote add origin "$F/origin.git"
git push -q -u origin main 2>/dev/null
git checkout -q -b feature
printf 'F = 0\n' > feat.py
git add feat.py
git commit -qm 'feature base'
git push -q -u origin feature 2>/dev/null
printf 'F = 1\n' > feat.py
git commit -qam 'feature ahead'
git checkout -q -b topic main
printf 'T = 1\n' > topic.py
git add topic.py
git commit -qm topic
git checkout -q main
printf 'AHEAD = 1\n' > ahead.py
git add ahead.py
git commit -qm ahead
printf 'def b():\n    return 10\n' > b.py
printf 'STAGED = 1\n' > staged.py
git add b.py staged.py
printf 'import os\n\nprint(os.sep)\n' > a.py
printf 'def c():\n    return 30\n' > lib/c.py
rm gone.py
printf 'NEW = 1\n' > new.py
printf 'inner/\n' >> .git/info/exclude
git init -q --bare "$F/inner-origin.git"
git init -q inner
cd inner
printf 'I = 1\n' > i.py
git add i.py
git commit -qm I1
git remote add origin "$F/inner-origin.git"
git push -q -u origin main 2>/dev/null
printf 'I2 = 1\n' > i2.py
git add i2.py
git commit -qm I2
printf 'I = 2\n' > i.py
"#;

/// Git commands that create commits or publish them: when trace2 shows none of these ran, a
/// guarded prediction was a false alarm.
const COMMITTING: &[&str] =
    &["commit", "push", "merge", "rebase", "cherry-pick", "revert", "am", "commit-tree", "pull", "stash"];

/// Longest a case may run.
const CASE_TIMEOUT_SECS: &str = "20";

#[derive(Debug, Clone)]
struct Case {
    origin: String,
    section: String,
    setup: Vec<String>,
    command: String,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Parses one oracle corpus file.
fn parse_oracle(name: &str, text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut section = String::new();
    let mut setup = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(title) = trimmed.strip_prefix("## ") {
            title.trim().clone_into(&mut section);
        } else if trimmed.is_empty() || trimmed.starts_with('#') {
        } else if let Some(rest) = trimmed.strip_prefix('>') {
            let last = cases.last_mut().unwrap_or_else(|| panic!("{name}:{}: `>` without a command", i + 1));
            last.command.push('\n');
            last.command.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        } else if let Some(rest) = trimmed.strip_prefix('@') {
            setup.push(rest.trim_start().to_owned());
        } else {
            cases.push(Case {
                origin: format!("{name}:{}", i + 1),
                section: section.clone(),
                setup: std::mem::take(&mut setup),
                command: line.to_owned(),
            });
        }
    }
    assert!(setup.is_empty(), "{name}: set-up lines after the last command");
    cases
}

/// The commands of the analyser corpus (`EXPECTATION | COMMAND`), as oracle cases.
fn parse_analyser_corpus(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut section = String::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(title) = trimmed.strip_prefix("## ") {
            section = format!("bash.txt: {}", title.trim());
        } else if let Some(rest) = trimmed.strip_prefix('>') {
            let last = cases.last_mut().expect("continuation without a case");
            last.command.push('\n');
            last.command.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            let (_, command) =
                line.split_once(" | ").unwrap_or_else(|| panic!("bash.txt:{}: no ` | `", i + 1));
            cases.push(Case {
                origin: format!("bash.txt:{}", i + 1),
                section: section.clone(),
                setup: Vec::new(),
                command: command.to_owned(),
            });
        }
    }
    cases
}

fn all_cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("oracle"))
        .expect("tests/corpus/oracle")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for f in &files {
        let name = f.file_name().expect("name").to_string_lossy().into_owned();
        cases.extend(parse_oracle(&name, &std::fs::read_to_string(f).expect("read corpus")));
    }
    cases.extend(parse_analyser_corpus(
        &std::fs::read_to_string(corpus_dir().join("bash.txt")).expect("bash.txt"),
    ));
    cases
}

/// One worker's fixture: built once at `live`, copied to `template`, restored before each case.
struct Slot {
    live: PathBuf,
    template: PathBuf,
    work: PathBuf,
    inner: PathBuf,
    _dir: tempfile::TempDir,
}

impl Slot {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        let live = base.join("f");
        let template = base.join("template");
        let out = Command::new("bash")
            .args(["-c", FIXTURE])
            .env_clear()
            .envs(Self::env_for(&live))
            .output()
            .expect("bash");
        assert!(out.status.success(), "fixture: {}", String::from_utf8_lossy(&out.stderr));
        copy_tree(&live, &template);
        Self { work: live.join("work"), inner: live.join("work/inner"), live, template, _dir: dir }
    }

    fn env_for(live: &Path) -> Vec<(String, String)> {
        let home = live.join("home");
        let p = |p: &Path| p.to_string_lossy().into_owned();
        let mut env = vec![
            ("F".to_owned(), p(live)),
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".to_owned(), p(&home)),
            ("XDG_CONFIG_HOME".to_owned(), p(&home.join(".config"))),
            ("GIT_CONFIG_GLOBAL".to_owned(), p(&home.join(".gitconfig"))),
            ("GIT_CONFIG_SYSTEM".to_owned(), p(&live.join("etc/gitconfig"))),
            ("CODEGUARD_HOME".to_owned(), p(&home.join(".codeguard"))),
            ("GIT_EDITOR".to_owned(), "printf 'edited message\\n' >".to_owned()),
            ("GIT_SEQUENCE_EDITOR".to_owned(), "true".to_owned()),
            ("GIT_TERMINAL_PROMPT".to_owned(), "0".to_owned()),
            ("GIT_AUTHOR_DATE".to_owned(), "2026-01-01T00:00:00Z".to_owned()),
            ("GIT_COMMITTER_DATE".to_owned(), "2026-01-01T00:00:00Z".to_owned()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("npm_config_cache".to_owned(), p(&home.join(".npm"))),
            ("npm_config_offline".to_owned(), "true".to_owned()),
            ("npm_config_update_notifier".to_owned(), "false".to_owned()),
            ("npm_config_fund".to_owned(), "false".to_owned()),
            ("npm_config_audit".to_owned(), "false".to_owned()),
        ];
        if let Ok(tmp) = std::env::var("TMPDIR") {
            env.push(("TMPDIR".to_owned(), tmp));
        }
        env
    }

    fn env(&self) -> Vec<(String, String)> {
        Self::env_for(&self.live)
    }

    fn reset(&self) {
        if self.live.exists() {
            std::fs::remove_dir_all(&self.live).expect("remove fixture");
        }
        copy_tree(&self.template, &self.live);
    }

    /// The repositories whose commits are scored, with the bare remote each pushes to.
    fn repos(&self) -> [(PathBuf, PathBuf); 2] {
        [
            (self.work.clone(), self.live.join("origin.git")),
            (self.inner.clone(), self.live.join("inner-origin.git")),
        ]
    }
}

fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status().expect("cp");
    assert!(status.success(), "cp -a {} {}", from.display(), to.display());
}

/// Runs git in `dir` under the slot's environment; `None` when git fails.
fn git(slot: &Slot, dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(dir).env_clear().envs(slot.env()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Every ref of a repository (and `HEAD`), name → object id.
fn refs(slot: &Slot, dir: &Path) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    if !dir.exists() {
        return map;
    }
    for line in
        git(slot, dir, &["for-each-ref", "--format=%(objectname) %(refname)"]).unwrap_or_default().lines()
    {
        if let Some((id, name)) = line.split_once(' ') {
            map.insert(name.to_owned(), id.to_owned());
        }
    }
    if let Some(head) = git(slot, dir, &["rev-parse", "-q", "--verify", "HEAD"]) {
        map.insert("HEAD".to_owned(), head.trim().to_owned());
    }
    map
}

fn nul_list(text: &str) -> BTreeSet<String> {
    text.split(['\0', '\n']).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// Files a commit changed against its first parent (every file for a root commit).
fn commit_files(slot: &Slot, dir: &Path, commit: &str) -> BTreeSet<String> {
    let parents = git(slot, dir, &["rev-list", "--parents", "-n1", commit]).unwrap_or_default();
    let first_parent = parents.split_whitespace().nth(1).map(str::to_owned);
    let out = match first_parent {
        Some(p) => git(slot, dir, &["diff-tree", "-r", "--name-only", "--no-renames", "-z", &p, commit]),
        None => git(
            slot,
            dir,
            &["diff-tree", "-r", "--root", "--no-commit-id", "--name-only", "--no-renames", "-z", commit],
        ),
    };
    nul_list(&out.unwrap_or_default())
}

/// Commits reachable from `tips` and from none of `known`.
fn new_commits(slot: &Slot, dir: &Path, tips: &[&String], known: &BTreeMap<String, String>) -> Vec<String> {
    if tips.is_empty() {
        return Vec::new();
    }
    let mut args: Vec<String> = vec!["rev-list".into()];
    args.extend(tips.iter().map(|t| (*t).clone()));
    let known: BTreeSet<&String> = known.values().collect();
    if !known.is_empty() {
        args.push("--not".into());
        args.extend(known.into_iter().cloned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    git(slot, dir, &args).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// What really happened to one repository.
#[derive(Debug, Default)]
struct Landed {
    /// Files changed by new content commits, and by the ranges of refs pushed to its remote.
    files: BTreeSet<String>,
    content_commits: usize,
    replayed_commits: usize,
    pushed: bool,
}

#[derive(Debug, Default)]
struct Truth {
    ran: BTreeSet<String>,
    repos: BTreeMap<PathBuf, Landed>,
}

impl Truth {
    fn landed(&self) -> bool {
        self.repos.values().any(|l| l.content_commits + l.replayed_commits > 0 || l.pushed)
    }
    fn attempted(&self) -> bool {
        self.ran.iter().any(|n| COMMITTING.contains(&n.as_str()))
    }
}

type Snapshot = Vec<(BTreeMap<String, String>, BTreeMap<String, String>)>;

fn snapshot(slot: &Slot) -> Snapshot {
    slot.repos().iter().map(|(repo, bare)| (refs(slot, repo), refs(slot, bare))).collect()
}

fn truth(slot: &Slot, before: &Snapshot, trace: &Path) -> Truth {
    let mut t = Truth::default();
    for line in std::fs::read_to_string(trace).unwrap_or_default().lines() {
        if let Ok(v) = serde_json::from_str::<Value>(line)
            && v["event"] == "cmd_name"
            && let Some(name) = v["name"].as_str()
        {
            t.ran.insert(name.to_owned());
        }
    }
    for ((repo, bare), (refs_before, bare_before)) in slot.repos().iter().zip(before) {
        let mut landed = Landed::default();
        let after = refs(slot, repo);
        let tips: Vec<&String> = after
            .iter()
            .filter(|(name, id)| {
                (name.as_str() == "HEAD" || name.starts_with("refs/heads/") || name.starts_with("refs/tags/"))
                    && refs_before.get(*name) != Some(*id)
            })
            .map(|(_, id)| id)
            .collect();
        let reflog = git(slot, repo, &["reflog", "--all", "--format=%H %gs"]).unwrap_or_default();
        for c in new_commits(slot, repo, &tips, refs_before) {
            let content =
                reflog.lines().any(|l| l.strip_prefix(c.as_str()).is_some_and(|r| r.starts_with(" commit")));
            if content {
                landed.content_commits += 1;
                landed.files.extend(commit_files(slot, repo, &c));
            } else {
                landed.replayed_commits += 1;
            }
        }
        let bare_after = refs(slot, bare);
        for (name, new) in &bare_after {
            match bare_before.get(name) {
                Some(old) if old == new => {}
                Some(old) => {
                    landed.pushed = true;
                    let diff = git(slot, bare, &["diff", "--name-only", "--no-renames", "-z", old, new]);
                    landed.files.extend(nul_list(&diff.unwrap_or_default()));
                }
                None => {
                    landed.pushed = true;
                    for c in new_commits(slot, bare, &[new], bare_before) {
                        landed.files.extend(commit_files(slot, bare, &c));
                    }
                }
            }
        }
        landed.pushed |= bare_before.keys().any(|k| !bare_after.contains_key(k));
        t.repos.insert(repo.clone(), landed);
    }
    t
}

/// Runs the command as the agent's shell would, in its own process group, and waits for every
/// process it left behind (background jobs) before the truth is read.
fn run_case(slot: &Slot, command: &str, trace: Option<&Path>) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "2", CASE_TIMEOUT_SECS, "bash", "-c", command])
        .current_dir(&slot.work)
        .env_clear()
        .envs(slot.env())
        .stdin(Stdio::null())
        .process_group(0);
    if let Some(t) = trace {
        cmd.env("GIT_TRACE2_EVENT", t);
    }
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn bash");
    let pgid = child.id();
    let out = child.wait_with_output().expect("wait bash");
    let deadline = Instant::now() + Duration::from_secs(10);
    while group_alive(pgid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    out
}

/// Whether any process of the group is still running (Linux `/proc`; elsewhere: assume not).
fn group_alive(pgid: u32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else { return false };
    dir.filter_map(Result::ok).any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { return false };
        // pid (comm) state ppid pgrp …; comm may contain spaces, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else { return false };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) && fields.first() != Some(&"Z")
    })
}

fn explain(slot: &Slot, command: &str) -> Value {
    let out = Command::new(assert_cmd::cargo::cargo_bin("codeguard"))
        .args(["explain", "--format", "json", "--", command])
        .current_dir(&slot.work)
        .env_clear()
        .envs(slot.env())
        .stdin(Stdio::null())
        .output()
        .expect("codeguard explain");
    assert!(out.status.success(), "explain failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("explain JSON")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Miss,
    WrongMode,
    WrongRepo,
    Unpredicted,
    FalseAlarm,
    /// Guarded with a reason (UNVERIFIED or a block) although nothing ran: honest, counted.
    HonestNoop,
    /// Guarded, nothing ran, and the command failed before it got there (a missing tool or file
    /// in the fixture): the prediction is about what happens when the earlier steps succeed.
    FailedEarlier,
    /// A commit or push ran, nothing landed, explain said not guarded (a dry run, a failure).
    UnlandedAttempt,
    Exact,
    Superset,
    Blocked,
    Unverified,
    Quiet,
}

impl Outcome {
    fn fails(self) -> bool {
        matches!(self, Self::Miss | Self::WrongMode | Self::WrongRepo | Self::Unpredicted)
    }
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect()
}

fn has_notes(v: &Value) -> bool {
    v["unverified"].as_array().is_some_and(|a| !a.is_empty()) || !v["block"].is_null()
}

/// Scores one case: the outcome and, for failures, what was wrong.
fn score(explain: &Value, truth: &Truth, succeeded: bool) -> (Outcome, String) {
    let guarded = explain["guarded"] == true;
    let repos = explain["repos"].as_array().cloned().unwrap_or_default();
    if !guarded {
        if truth.landed() {
            return (Outcome::Miss, "something landed, explain said not guarded".into());
        }
        if truth.attempted() {
            return (Outcome::UnlandedAttempt, String::new());
        }
        return (Outcome::Quiet, String::new());
    }
    if !truth.landed() {
        if truth.attempted() {
            return (if has_notes(explain) { Outcome::Unverified } else { Outcome::Exact }, String::new());
        }
        let honest = has_notes(explain) || repos.iter().any(has_notes);
        let outcome = match (honest, succeeded) {
            (true, _) => Outcome::HonestNoop,
            (false, false) => Outcome::FailedEarlier,
            (false, true) => Outcome::FalseAlarm,
        };
        return (outcome, String::new());
    }
    if !explain["block"].is_null() {
        return (Outcome::Blocked, String::new());
    }
    let mut superset = false;
    let mut blocked = false;
    for (root, landed) in &truth.repos {
        if landed.content_commits + landed.replayed_commits == 0 && !landed.pushed {
            continue;
        }
        let Some(r) = repos.iter().find(|r| r["root"].as_str().map(Path::new) == Some(root.as_path())) else {
            if landed.content_commits == 0 && !landed.pushed {
                continue; // replayed commits only: named, not scored
            }
            return (
                Outcome::WrongRepo,
                format!("{} received commits or a push; explain binds nothing there", root.display()),
            );
        };
        if !r["block"].is_null() {
            blocked = true;
            continue;
        }
        if landed.pushed && r["mode"] != "push" {
            return (
                Outcome::WrongMode,
                format!("{} was pushed to; explain says {}", root.display(), r["mode"]),
            );
        }
        let mut predicted = strings(&r["paths"]);
        predicted.extend(strings(&r["deleted"]));
        let missing: Vec<&String> = landed.files.difference(&predicted).collect();
        if !missing.is_empty() {
            return (
                Outcome::Unpredicted,
                format!("{}: landed but not predicted: {missing:?}", root.display()),
            );
        }
        superset |= predicted.len() > landed.files.len();
    }
    if blocked {
        return (Outcome::Blocked, String::new());
    }
    let noted = has_notes(explain) || repos.iter().any(has_notes);
    match (noted, superset) {
        (true, _) => (Outcome::Unverified, String::new()),
        (false, true) => (Outcome::Superset, String::new()),
        (false, false) => (Outcome::Exact, String::new()),
    }
}

struct Scored {
    case: Case,
    outcome: Outcome,
    why: String,
    explain: Value,
    truth: String,
}

fn judge(slot: &Slot, case: &Case) -> Scored {
    slot.reset();
    for line in &case.setup {
        let out = run_case(slot, line, None);
        assert!(
            out.status.success(),
            "{}: set-up `{line}` failed: {}",
            case.origin,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let predicted = explain(slot, &case.command);
    let before = snapshot(slot);
    let trace = slot.live.join("trace2.json");
    let ran = run_case(slot, &case.command, Some(&trace));
    let t = truth(slot, &before, &trace);
    let (outcome, why) = score(&predicted, &t, ran.status.success());
    let truth = format!(
        "ran {:?}; {}",
        t.ran.iter().filter(|n| COMMITTING.contains(&n.as_str())).collect::<Vec<_>>(),
        t.repos
            .iter()
            .filter(|(_, l)| l.content_commits + l.replayed_commits > 0 || l.pushed)
            .map(|(r, l)| format!(
                "{}: {} content + {} replayed commits, pushed {}, files {:?}",
                r.file_name().unwrap_or_default().to_string_lossy(),
                l.content_commits,
                l.replayed_commits,
                l.pushed,
                l.files
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    Scored { case: case.clone(), outcome, why, explain: predicted, truth }
}

fn short(v: &Value) -> String {
    let repos: Vec<String> = v["repos"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            format!(
                "{} {} paths={} ops={} unverified={} block={}",
                Path::new(r["root"].as_str().unwrap_or("")).file_name().unwrap_or_default().to_string_lossy(),
                r["mode"],
                r["paths"],
                r["ops"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|o| o["op"].as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
                    .join(","),
                r["unverified"],
                r["block"]
            )
        })
        .collect();
    format!(
        "guarded={} mode={} unverified={} block={} repos=[{}]",
        v["guarded"],
        v["mode"],
        v["unverified"],
        v["block"],
        repos.join("; ")
    )
}

#[test]
fn real_git_agrees_with_explain() {
    // The families corpus runs these real programs; without them its cases would pass as no-ops.
    crate::support::require_tools(&["cz", "bump-my-version", "parallel", "git-flow", "npx"]);
    let filter = std::env::var("ORACLE_FILTER").ok();
    let verbose = std::env::var_os("ORACLE_VERBOSE").is_some();
    let cases: Vec<Case> = all_cases()
        .into_iter()
        .filter(|c| {
            filter.as_deref().is_none_or(|f| {
                c.command.contains(f) || c.setup.iter().any(|s| s.contains(f)) || c.origin.starts_with(f)
            })
        })
        .collect();
    assert!(
        filter.is_some() || cases.len() >= 600,
        "the oracle corpus has {} commands; it needs at least 600",
        cases.len()
    );
    let queue = Mutex::new(cases.iter().enumerate().collect::<Vec<_>>().into_iter());
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let slot = Slot::new();
                loop {
                    let next = queue.lock().expect("queue").next();
                    let Some((i, case)) = next else { break };
                    let scored = judge(&slot, case);
                    results.lock().expect("results").push((i, scored));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut report = String::new();
    for (_, s) in &results {
        *counts.entry(s.outcome).or_default() += 1;
        if s.outcome.fails() || s.outcome == Outcome::FalseAlarm || verbose {
            let _ = write!(
                report,
                "\n[{:?}] {} ({}) {}\n  command: {}\n  setup: {:?}\n  explain: {}\n  truth: {}\n",
                s.outcome,
                s.case.origin,
                s.case.section,
                s.why,
                s.case.command.replace('\n', "\n           "),
                s.case.setup,
                short(&s.explain),
                s.truth
            );
        }
    }
    let total = results.len();
    let failures: usize = counts.iter().filter(|(o, _)| o.fails()).map(|(_, n)| n).sum();
    let false_alarms = counts.get(&Outcome::FalseAlarm).copied().unwrap_or(0);
    println!("{report}");
    println!("oracle: {total} commands run against real git");
    for (o, n) in &counts {
        println!("  {o:?}: {n}");
    }
    println!(
        "  false alarms: {false_alarms} ({}.{:02}%), UNVERIFIED (guarded with a reason): {}",
        false_alarms * 100 / total.max(1),
        false_alarms * 10_000 / total.max(1) % 100,
        counts.get(&Outcome::Unverified).copied().unwrap_or(0)
            + counts.get(&Outcome::HonestNoop).copied().unwrap_or(0)
    );
    assert_eq!(failures, 0, "{failures} cases where explain disagrees with what git did (listed above)");
    assert!(false_alarms * 100 <= total, "{false_alarms} false alarms in {total} commands: more than 1%");
}
