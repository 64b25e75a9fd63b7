//! Surface exactness end to end (issue 14, part 3): what `codeguard explain` predicts per
//! repository and what the real `codeguard hook` gate lints, for pushes of other refs, earlier
//! steps of the same command that stage, shell expansion, `--amend`, and the commands that make
//! commits from content committed elsewhere. Real repositories with a bare `origin`; every gate
//! run proves the repository untouched.

use std::path::Path;

use serde_json::Value;

use crate::support::{TestRepo, gate_in, git_in, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

/// A repository like the oracle's fixture: `main` one commit (`ahead.py`) ahead of
/// `origin/main`, `feature` one commit (`feat.py`) ahead of `origin/feature`, `topic` local only
/// (`topic.py`); `b.py` staged, `a.py` modified, `new.py` untracked. `bad` puts lint-failing
/// content into `feat.py`, `topic.py` and `ahead.py`'s commit instead of clean content.
struct Fixture {
    repo: TestRepo,
    _origin: tempfile::TempDir,
}

impl Fixture {
    fn new(bad: bool) -> Self {
        let body = if bad { BAD_PY } else { GOOD_PY };
        let origin = tempfile::tempdir().expect("origin");
        git_in(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
        let repo = TestRepo::new();
        repo.write("a.py", GOOD_PY).write("b.py", GOOD_PY).write("lib/c.py", GOOD_PY).commit_all("C1");
        repo.git(&["remote", "add", "origin", origin.path().to_str().expect("utf-8")]);
        repo.git(&["push", "-q", "-u", "origin", "main"]);
        repo.git(&["checkout", "-q", "-b", "feature"]);
        repo.git(&["push", "-q", "-u", "origin", "feature"]);
        repo.write("feat.py", body).commit_all("feature ahead");
        repo.git(&["checkout", "-q", "-b", "topic", "main"]);
        repo.write("topic.py", body).commit_all("topic");
        repo.git(&["checkout", "-q", "main"]);
        repo.write("ahead.py", body).commit_all("ahead");
        repo.write("b.py", "import sys\n\nprint(sys.path)\n");
        repo.git(&["add", "b.py"]);
        repo.write("a.py", "import sys\n\nprint(sys.version)\n").write("new.py", GOOD_PY);
        Self { repo, _origin: origin }
    }

    fn explain(&self, command: &str) -> Value {
        explain_in(&self.repo.root(), command)
    }
}

fn explain_in(cwd: &Path, command: &str) -> Value {
    crate::support::explain_json(cwd, command)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

/// The one repository's `paths`, `deleted`, op kinds and whether anything is UNVERIFIED.
fn repo_of(v: &Value) -> (Vec<String>, Vec<String>, Vec<String>, bool) {
    let repos = v["repos"].as_array().expect("repos");
    assert_eq!(repos.len(), 1, "{v}");
    let r = &repos[0];
    let ops =
        r["ops"].as_array().expect("ops").iter().map(|o| o["op"].as_str().unwrap_or("").to_owned()).collect();
    let unverified = !strings(&r["unverified"]).is_empty() || !strings(&v["unverified"]).is_empty();
    (strings(&r["paths"]), strings(&r["deleted"]), ops, unverified)
}

fn paths(v: &Value) -> Vec<String> {
    repo_of(v).0
}

fn list(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_push_of_other_refs_lints_each_pushed_refs_own_unpushed_commits() {
    let f = Fixture::new(false);
    let cases: &[(&str, &[&str])] = &[
        ("git push origin feature", &["feat.py"]),
        ("git push origin feature:main", &["feat.py"]),
        ("git push origin +feature", &["feat.py"]),
        ("git push -u origin topic", &["topic.py"]),
        ("git push origin main feature", &["ahead.py", "feat.py"]),
        ("git push --all", &["ahead.py", "feat.py", "topic.py"]),
        ("git push origin 'refs/heads/*:refs/heads/*'", &["ahead.py", "feat.py", "topic.py"]),
        ("git push origin HEAD~1:main", &[]),
        ("git push origin HEAD", &["ahead.py"]),
        ("git push", &["ahead.py"]),
        ("git checkout -q topic && git push -u origin HEAD", &["topic.py"]),
        ("git checkout -q -b nb topic && git push -u origin nb", &["topic.py"]),
        ("git commit -m x && git push origin feature", &["b.py", "feat.py"]),
    ];
    for (command, expected) in cases {
        let v = f.explain(command);
        assert_eq!(v["mode"], "push", "{command}: {v}");
        assert_eq!(paths(&v), list(expected), "{command}: {v}");
    }
    f.repo.git(&["config", "push.default", "matching"]);
    assert_eq!(paths(&f.explain("git push")), list(&["ahead.py", "feat.py"]), "matching pushes both");
}

#[test]
fn a_new_branch_is_only_the_commits_no_remote_tracking_ref_reaches() {
    let f = Fixture::new(false);
    f.repo.git(&["checkout", "-q", "-b", "fresh"]);
    f.repo.write("fresh.py", GOOD_PY);
    f.repo.git(&["add", "fresh.py"]);
    f.repo.git(&["commit", "-q", "-m", "fresh"]);
    let v = f.explain("git push -u origin fresh");
    // The staged b.py went into the branch's commit; a.py, lib/c.py stay out (already pushed).
    assert_eq!(paths(&v), list(&["ahead.py", "b.py", "fresh.py"]), "not the whole tree: {v}");
}

#[test]
fn the_push_gate_lints_the_ref_that_is_pushed_not_the_current_branch() {
    require_tools(&["ruff"]);
    let f = Fixture::new(true);
    f.repo.git(&["reset", "-q", "--hard", "HEAD~1"]); // main: clean, nothing unpushed
    let (code, _, stderr) = gate_in(&f.repo, "git push origin feature", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("push blocked") && stderr.contains("feat.py"), "{stderr}");
    let (code, _, stderr) = gate_in(&f.repo, "git push -u origin topic:review", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("topic.py") && !stderr.contains("feat.py"), "{stderr}");
    let (code, _, stderr) = gate_in(&f.repo, "git push origin main", &[]);
    assert_eq!(code, Some(0), "main itself is clean: {stderr}");
    // A branch the same command creates is its start, not an unresolvable name.
    let (code, _, stderr) = gate_in(&f.repo, "git checkout -q -b nb && git push -u origin nb", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, _, stderr) = gate_in(&f.repo, "git checkout -q -b nb topic && git push -u origin nb", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("topic.py"), "{stderr}");
}

#[test]
fn merge_rebase_cherry_pick_revert_am_commit_tree_and_pull_are_guarded_as_their_own_kinds() {
    let f = Fixture::new(false);
    let cases: &[(&str, &str, &[&str])] = &[
        ("git merge --no-edit topic", "merge", &["b.py", "topic.py"]),
        ("git rebase topic", "rebase", &["ahead.py", "topic.py"]),
        ("git cherry-pick topic", "cherry-pick", &["b.py", "topic.py"]),
        ("git revert --no-edit HEAD", "revert", &["b.py"]),
        ("git commit-tree HEAD^{tree} -p HEAD -m x", "commit-tree", &["b.py"]),
        ("git pull", "pull", &["b.py"]),
    ];
    for (command, kind, expected) in cases {
        let v = f.explain(command);
        assert_eq!(v["guarded"], true, "{command}: {v}");
        assert_eq!(v["mode"], "commit", "{command}: {v}");
        let (paths, _, ops, _) = repo_of(&v);
        assert_eq!(ops, [kind.to_string()], "{command}: {v}");
        assert_eq!(paths, list(expected), "{command}: {v}");
    }
    let (_, deleted, _, _) = repo_of(&f.explain("git revert --no-edit HEAD"));
    assert_eq!(deleted, ["ahead.py"], "reverting the commit that added it deletes it");
    let (_, _, _, unverified) = repo_of(&f.explain("git pull"));
    assert!(unverified, "pull fetches at run time: honest UNVERIFIED");
    // Forms that commit nothing are not guarded.
    for command in
        ["git merge --abort", "git rebase --abort", "git cherry-pick --quit", "git merge-base main topic"]
    {
        assert_eq!(f.explain(command)["guarded"], false, "{command}");
    }
}

#[test]
fn the_push_gate_scans_merged_history_commit_by_commit() {
    let f = Fixture::new(false);
    let key = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    f.repo.git(&["stash", "-q", "-u"]);
    f.repo.git(&["checkout", "-q", "topic"]);
    f.repo.write("config.txt", &format!("aws = {key}\n")).commit_all("key");
    f.repo.write("config.txt", "aws = from the environment\n").commit_all("no key");
    f.repo.git(&["checkout", "-q", "main"]);
    f.repo.git(&["merge", "-q", "--no-edit", "topic"]);
    let (code, stdout, stderr) = gate_in(&f.repo, "git push", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("config.txt") && stderr.contains("aws-access-key-id"), "{stderr}");
    assert!(!stderr.contains(&key) && !stdout.contains(&key), "the secret is never shown");
}

#[test]
fn earlier_steps_that_stage_are_part_of_the_commit() {
    let f = Fixture::new(false);
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("git checkout topic -- topic.py && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git checkout topic topic.py && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git restore --source=topic --staged topic.py && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git restore --staged b.py && git commit -m x", &[], &[]),
        ("git cherry-pick -n topic && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git merge --squash topic && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git revert -n HEAD && git commit -m x", &["b.py"], &["ahead.py"]),
        ("git add -N new.py && git commit -am x", &["a.py", "b.py", "new.py"], &[]),
        ("git reset --soft HEAD~1 && git commit -m x", &["ahead.py", "b.py"], &[]),
        ("git reset -q HEAD~1 -- ahead.py && git commit -m x", &["b.py"], &["ahead.py"]),
        ("git reset topic -- topic.py && git commit -m x", &["b.py", "topic.py"], &[]),
        ("git read-tree topic && git commit -m x", &["topic.py"], &["ahead.py"]),
        ("git update-index --add new.py && git commit -m x", &["b.py", "new.py"], &[]),
        ("git rm -q --cached b.py && git commit -m x", &[], &["b.py"]),
        ("git checkout -q topic && git commit -m x", &["b.py", "topic.py"], &["ahead.py"]),
    ];
    for (command, expected, deleted) in cases {
        let v = f.explain(command);
        assert_eq!(v["mode"], "commit", "{command}: {v}");
        let (p, d, _, unverified) = repo_of(&v);
        assert_eq!((p, d), (list(expected), list(deleted)), "{command}: {v}");
        assert!(!unverified, "{command} is modelled exactly: {v}");
    }
}

#[test]
fn the_commit_gate_lints_content_an_earlier_step_stages_from_another_ref() {
    require_tools(&["ruff"]);
    let f = Fixture::new(true);
    f.repo.git(&["reset", "-q", "b.py"]);
    let (code, _, stderr) = gate_in(&f.repo, "git checkout topic -- topic.py && git commit -m x", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("commit blocked") && stderr.contains("topic.py:1:8: F401"), "{stderr}");
    let (code, _, stderr) = gate_in(&f.repo, "git reset --soft HEAD~1 && git commit -m squash", &[]);
    assert_eq!(code, Some(2), "the re-made commit carries ahead.py: {stderr}");
    assert!(stderr.contains("ahead.py:1:8: F401"), "{stderr}");
}

#[test]
fn amend_carries_the_amended_commits_own_changes() {
    let f = Fixture::new(false);
    let cases: &[(&str, &[&str])] = &[
        ("git commit --amend --no-edit", &["ahead.py", "b.py"]),
        ("git commit --amend -a --no-edit", &["a.py", "ahead.py", "b.py"]),
        // `--amend --only` without paths leaves the staged b.py out; predicted as a superset.
        ("git commit --amend --only -m x", &["ahead.py", "b.py"]),
        ("git commit -m one && git commit --amend -m two", &["b.py"]),
    ];
    for (command, expected) in cases {
        assert_eq!(paths(&f.explain(command)), list(expected), "{command}");
    }
}

#[test]
fn the_commit_gate_lints_the_amended_commit_too() {
    require_tools(&["ruff"]);
    let f = Fixture::new(true);
    f.repo.git(&["reset", "-q", "b.py"]);
    let (code, _, stderr) = gate_in(&f.repo, "git commit --amend --no-edit", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("ahead.py:1:8: F401"), "{stderr}");
}

#[test]
fn brace_expansion_and_pwd_prefixes_reach_git_as_the_shell_passes_them() {
    let f = Fixture::new(false);
    let cases: &[(&str, &[&str])] = &[
        ("git add {a,new}.py && git commit -m x", &["a.py", "b.py", "new.py"]),
        ("git add {lib,sub}/*.py && git commit -m x", &["b.py"]),
        ("git add $PWD/a.py && git commit -m x", &["a.py", "b.py"]),
        ("git add \"$(pwd)\"/new.py && git commit -m x", &["b.py", "new.py"]),
        ("git add ${PWD}/a.py && git commit -m x", &["a.py", "b.py"]),
        ("git add '{a,new}.py' && git commit -m x", &["b.py"]),
    ];
    for (command, expected) in cases {
        let v = f.explain(command);
        let (p, _, _, unverified) = repo_of(&v);
        assert_eq!(p, list(expected), "{command}: {v}");
        assert!(!unverified, "{command}: exact, {v}");
    }
    f.repo.write("lib/c.py", "import sys\n\nprint(sys.platform)\n");
    assert_eq!(paths(&f.explain("git add {lib,sub}/*.py && git commit -m x")), list(&["b.py", "lib/c.py"]));
    let v = explain_in(&f.repo.path("lib"), "git add $PWD/c.py && git commit -m x");
    assert_eq!(paths(&v), list(&["b.py", "lib/c.py"]), "{v}");
}

#[test]
fn a_patch_applied_to_the_index_that_cannot_be_read_yet_blocks() {
    let f = Fixture::new(false);
    let v = f.explain("git diff topic~1 topic > p.patch && git apply --index p.patch && git commit -m x");
    assert!(v["repos"][0]["block"].as_str().is_some_and(|b| b.contains("p.patch")), "{v}");
    let (code, _, stderr) = gate_in(
        &f.repo,
        "git diff topic~1 topic > p.patch && git apply --cached p.patch && git commit -m x",
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot be checked") && stderr.contains("p.patch"), "{stderr}");
    // A patch already on disk is read: the paths it touches are checked (their new content is
    // only known once it applies: UNVERIFIED).
    let patch = git_in(&f.repo.root(), &["diff", "topic~1", "topic"]);
    f.repo.write("ready.patch", &patch);
    let v = f.explain("git apply --index ready.patch && git commit -m x");
    let (p, d, _, unverified) = repo_of(&v);
    assert!((p.contains(&"topic.py".to_owned()) || d.contains(&"topic.py".to_owned())) && unverified, "{v}");
}

#[test]
fn a_stash_applied_before_the_commit_is_part_of_it() {
    let f = Fixture::new(false);
    f.repo.write("stashed_new.py", GOOD_PY);
    f.repo.git(&["add", "stashed_new.py"]);
    f.repo.git(&["stash", "-q"]);
    let cases: &[(&str, &[&str])] = &[
        ("git stash pop -q && git commit -am x", &["a.py", "b.py", "stashed_new.py"]),
        ("git stash pop -q && git commit -m x", &["stashed_new.py"]),
        ("git stash apply -q --index && git commit -m x", &["b.py", "stashed_new.py"]),
        ("git stash -q && git commit -m x", &[]),
    ];
    for (command, expected) in cases {
        let v = f.explain(command);
        let (p, _, _, unverified) = repo_of(&v);
        assert_eq!(p, list(expected), "{command}: {v}");
        assert!(!unverified, "{command}: exact, {v}");
    }
    // A stash made and popped by the same command restores what was there.
    f.repo.git(&["stash", "pop", "-q", "--index"]);
    let v = f.explain("git stash -q && git stash pop -q --index && git commit -m x");
    assert_eq!(paths(&v), list(&["b.py", "stashed_new.py"]), "{v}");
}

#[test]
fn refs_made_and_branches_committed_earlier_in_the_command_are_followed() {
    let f = Fixture::new(false);
    // A tag or branch the command creates first is measured as `HEAD` (never empty).
    for command in ["git tag v1.0 && git push origin v1.0", "git branch newb && git push origin newb"] {
        assert_eq!(paths(&f.explain(command)), list(&["ahead.py"]), "{command}");
    }
    // `stash -k` keeps the index: the staged b.py is still committed.
    let v = f.explain("git stash -k && git commit -m x");
    let (p, _, _, unverified) = repo_of(&v);
    assert_eq!((p, unverified), (list(&["b.py"]), false), "{v}");
    // A branch committed on, then merged into another one that is pushed: both commits land.
    let v = f.explain("git commit -am x && git checkout feature && git merge main -m merged && git push");
    let p = paths(&v);
    for file in ["a.py", "ahead.py", "b.py", "feat.py"] {
        assert!(p.contains(&file.to_owned()), "{file} missing: {v}");
    }
}
