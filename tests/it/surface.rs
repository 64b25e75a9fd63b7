//! Commit-surface prediction against real repositories: every staging rule, and the content the
//! snapshot then holds. Every test that materialises proves the repository was left untouched.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::collections::BTreeMap;
use std::path::Path;

use codeguard::stages::snapshot::{Snapshot, SnapshotOptions};
use codeguard::stages::surface::{
    self, Base, Lanes, Mode, Pathspecs, PushBase, StagingAction, Surface, SurfaceOptions,
};

use crate::support::{TestRepo, assert_untouched, git_in};

/// Predicts and materialises in one go, asserting the repository is unchanged by both, and
/// returns the surface plus the snapshot's files (path → content; symlinks as `-> target`).
pub(crate) fn content(
    repo: &TestRepo,
    mode: Mode,
    actions: &[StagingAction],
) -> (Surface, BTreeMap<String, String>) {
    content_with(repo, mode, actions, SurfaceOptions::default())
}

fn content_with(
    repo: &TestRepo,
    mode: Mode,
    actions: &[StagingAction],
    options: SurfaceOptions,
) -> (Surface, BTreeMap<String, String>) {
    assert_untouched(&repo.root(), || {
        let surface = surface::predict(&repo.root(), mode, actions, &options).expect("predict");
        let snapshot =
            Snapshot::materialise_whole(&surface, &SnapshotOptions::default()).expect("materialise");
        snapshot.reverify().expect("nothing changed");
        assert_eq!(snapshot.changed(), surface.paths.as_slice());
        (surface, files(snapshot.root()))
    })
}

/// Every file below `dir`, repo-relative, with its content (symlinks as `-> target`).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).into_iter().map(Result::unwrap) {
        let rel = entry.path().strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
        if entry.file_type().is_symlink() {
            out.insert(rel, format!("-> {}", std::fs::read_link(entry.path()).unwrap().display()));
        } else if entry.file_type().is_file() {
            out.insert(rel, std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    out
}

fn add(cwd: &str, specs: &[&str]) -> StagingAction {
    StagingAction::Add {
        specs: Pathspecs::new(cwd, specs.iter().copied()),
        all: false,
        update: false,
        force: false,
    }
}

fn add_all() -> StagingAction {
    StagingAction::Add { specs: Pathspecs::default(), all: true, update: false, force: false }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A repository with a committed `a.py`, then: `a.py` modified but unstaged (parallel WIP),
/// `b.py` staged, `c.py` untracked, `old.py` deleted from the worktree, `notes.log` ignored.
fn wip_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("a.py", "a = 1\n").write("old.py", "old\n").write(".gitignore", "*.log\n").commit_all("init");
    repo.write("a.py", "a = 'wip'\n")
        .write("b.py", "b = 2\n")
        .write("c.py", "c = 3\n")
        .write("notes.log", "x\n");
    repo.git(&["add", "b.py"]);
    std::fs::remove_file(repo.path("old.py")).unwrap();
    repo
}

#[test]
fn plain_commit_takes_only_the_staged_content_and_ignores_parallel_wip() {
    let repo = wip_repo();
    let (surface, files) = content(&repo, Mode::Commit, &[StagingAction::Commit]);
    assert_eq!(surface.paths, strings(&["b.py"]));
    assert!(surface.deleted.is_empty());
    assert_eq!(surface.lanes, Lanes { staged: true, unstaged: false, untracked: false });
    assert_eq!(surface.base, Base::Index);
    assert_eq!(files["a.py"], "a = 1\n", "the unstaged WIP must not leak into the snapshot");
    assert_eq!(files["old.py"], "old\n", "an unstaged deletion is not committed");
    assert!(!files.contains_key("c.py"));
    assert_eq!(surface::staged_only(&repo.root()).unwrap(), surface);
}

#[test]
fn commit_all_adds_tracked_changes_but_not_untracked_files() {
    let repo = wip_repo();
    let (surface, files) = content(&repo, Mode::Commit, &[StagingAction::CommitAll]);
    assert_eq!(surface.paths, strings(&["a.py", "b.py"]));
    assert_eq!(surface.deleted, strings(&["old.py"]));
    assert_eq!(surface.lanes, Lanes { staged: true, unstaged: true, untracked: false });
    assert_eq!(files["a.py"], "a = 'wip'\n");
    assert!(!files.contains_key("old.py"), "deleted files are absent from the snapshot");
    assert!(!files.contains_key("c.py"));
}

#[test]
fn add_update_excludes_untracked_files() {
    let repo = wip_repo();
    let update = StagingAction::Add { specs: Pathspecs::default(), all: false, update: true, force: false };
    let (surface, files) = content(&repo, Mode::Commit, &[update, StagingAction::Commit]);
    assert_eq!(surface.paths, strings(&["a.py", "b.py"]));
    assert_eq!(surface.deleted, strings(&["old.py"]));
    assert!(!files.contains_key("c.py"));
}

#[test]
fn add_all_takes_every_lane_but_not_ignored_files() {
    let repo = wip_repo();
    let (surface, files) = content(&repo, Mode::Commit, &[add_all(), StagingAction::Commit]);
    assert_eq!(surface.paths, strings(&["a.py", "b.py", "c.py"]));
    assert_eq!(surface.deleted, strings(&["old.py"]));
    assert_eq!(surface.lanes, Lanes { staged: true, unstaged: true, untracked: true });
    assert_eq!(files["c.py"], "c = 3\n");
    assert!(!files.contains_key("notes.log"));
    assert_eq!(surface::working_changes(&repo.root()).unwrap().paths, surface.paths);
}

#[test]
fn add_dot_at_the_root_and_top_magic_select_everything() {
    let repo = wip_repo();
    repo.write("sub/d.py", "d\n");
    for (cwd, spec) in [("", "."), ("sub", ":/")] {
        let (surface, _) = content(&repo, Mode::Commit, &[add(cwd, &[spec])]);
        assert_eq!(surface.paths, strings(&["a.py", "b.py", "c.py", "sub/d.py"]), "{cwd:?} {spec:?}");
        assert_eq!(surface.lanes.names(), vec!["staged", "unstaged", "untracked"]);
        assert!(surface.unverified.is_empty(), "{:?}", surface.unverified);
    }
}

#[test]
fn glob_and_exclude_pathspecs_select_exactly_what_git_would() {
    let repo = TestRepo::new();
    repo.write("README.md", "r\n").commit_all("init");
    for f in ["src/a.py", "src/b.py", "src/skip.py", "docs/x.md", "top.py"] {
        repo.write(f, "x = 1\n");
    }
    let (surface, files) =
        content(&repo, Mode::Commit, &[add("", &["src/*.py", ":(exclude)src/skip.py", ":!top.py"])]);
    assert_eq!(surface.paths, strings(&["src/a.py", "src/b.py"]));
    assert!(!files.contains_key("src/skip.py") && !files.contains_key("top.py"));
    // git itself agrees (`--dry-run` leaves the index alone).
    let dry = repo.git(&["add", "--dry-run", "--", "src/*.py", ":(exclude)src/skip.py", ":!top.py"]);
    assert_eq!(dry, "add 'src/a.py'\nadd 'src/b.py'\n");
    let (surface, _) = content(&repo, Mode::Commit, &[add("", &["*.py", ":!src"])]);
    assert_eq!(surface.paths, strings(&["top.py"]), "an excluded directory excludes everything below it");
}

#[test]
fn a_pathspec_is_relative_to_the_directory_the_action_runs_in() {
    let repo = TestRepo::new();
    repo.write("README.md", "r\n").commit_all("init");
    repo.write("a.py", "root\n").write("src/a.py", "nested\n").write("src/deep/a.py", "deeper\n");
    let (surface, files) = content(&repo, Mode::Commit, &[add("src", &["a.py", "../README.md"])]);
    assert_eq!(surface.paths, strings(&["src/a.py"]));
    assert_eq!(files["src/a.py"], "nested\n");
    assert!(!files.contains_key("a.py"));
}

#[test]
fn add_dot_from_a_subdirectory_stays_in_that_subdirectory() {
    let repo = TestRepo::new();
    repo.write("pkg/keep.py", "k\n").write("other.py", "o\n").commit_all("init");
    repo.write("pkg/keep.py", "changed\n").write("pkg/new.py", "n\n").write("other.py", "wip\n");
    repo.write("stray.py", "s\n");
    let (surface, files) = content(&repo, Mode::Commit, &[add("pkg", &["."])]);
    assert_eq!(surface.paths, strings(&["pkg/keep.py", "pkg/new.py"]));
    assert_eq!(files["other.py"], "o\n");
    assert!(!files.contains_key("stray.py"));
}

#[test]
fn paths_with_spaces_and_literal_pathspecs() {
    let repo = TestRepo::new();
    repo.write("README.md", "r\n").commit_all("init");
    repo.write("dir with space/my file.py", "x\n")
        .write("star*.py", "literal\n")
        .write("starry.py", "glob\n");
    let (surface, files) = content(&repo, Mode::Commit, &[add("", &["dir with space/my file.py"])]);
    assert_eq!(surface.paths, strings(&["dir with space/my file.py"]));
    assert_eq!(files["dir with space/my file.py"], "x\n");

    let (surface, _) = content(&repo, Mode::Commit, &[add("", &[":(literal)star*.py"])]);
    assert_eq!(surface.paths, strings(&["star*.py"]));
    let mut literal = Pathspecs::new("", ["star*.py"]);
    literal.literal = true;
    let action = StagingAction::Add { specs: literal, all: false, update: false, force: false };
    assert_eq!(content(&repo, Mode::Commit, &[action]).0.paths, strings(&["star*.py"]));
    let (surface, _) = content(&repo, Mode::Commit, &[add("", &["star*.py"])]);
    assert_eq!(surface.paths, strings(&["star*.py", "starry.py"]), "without literal the star globs");
}

#[test]
fn ignored_files_need_force() {
    let repo = TestRepo::new();
    repo.write(".gitignore", "build/\n*.log\n").commit_all("init");
    repo.write("build/out.js", "bundle\n").write("debug.log", "log\n").write("ok.py", "ok\n");
    let (surface, _) = content(&repo, Mode::Commit, &[add("", &["build/out.js", "debug.log", "ok.py"])]);
    assert_eq!(surface.paths, strings(&["ok.py"]));
    let forced = StagingAction::Add {
        specs: Pathspecs::new("", ["build/out.js", "debug.log"]),
        all: false,
        update: false,
        force: true,
    };
    let (surface, files) = content(&repo, Mode::Commit, &[forced]);
    assert_eq!(surface.paths, strings(&["build/out.js", "debug.log"]));
    assert_eq!(files["build/out.js"], "bundle\n");
}

#[test]
fn rm_and_mv_are_deletions_and_renames() {
    let repo = TestRepo::new();
    repo.write("old.py", "old\n").write("a.py", "a\n").write("lib/x.py", "x\n").commit_all("init");
    let actions = [
        StagingAction::Rm { specs: Pathspecs::new("", ["old.py"]), cached: false },
        StagingAction::Mv { cwd_rel: String::new(), from: "a.py".into(), to: "lib".into() },
    ];
    let (surface, files) = content(&repo, Mode::Commit, &actions);
    assert_eq!(surface.paths, strings(&["lib/a.py"]));
    assert_eq!(surface.deleted, strings(&["a.py", "old.py"]));
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), strings(&["lib/a.py", "lib/x.py"]));
    assert_eq!(files["lib/a.py"], "a\n");

    let cached = StagingAction::Rm { specs: Pathspecs::new("", ["old.py"]), cached: true };
    let (surface, _) = content(&repo, Mode::Commit, &[cached.clone(), add_all()]);
    assert!(surface.deleted.is_empty(), "rm --cached then add -A re-adds the file");
    let (surface, _) = content(&repo, Mode::Commit, &[cached]);
    assert_eq!(surface.deleted, strings(&["old.py"]));
}

#[test]
fn commit_only_ignores_other_staged_content_and_include_adds_to_it() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").write("b.py", "b\n").commit_all("init");
    repo.write("a.py", "a2\n").write("b.py", "b2\n").write("staged.py", "s\n");
    repo.git(&["add", "staged.py"]);
    let (surface, files) =
        content(&repo, Mode::Commit, &[StagingAction::CommitOnly(Pathspecs::new("", ["a.py"]))]);
    assert_eq!(surface.paths, strings(&["a.py"]));
    assert_eq!(surface.base, Base::HeadTree);
    assert_eq!(files["a.py"], "a2\n");
    assert_eq!(files["b.py"], "b\n");
    assert!(!files.contains_key("staged.py"));

    let include = StagingAction::CommitInclude(Pathspecs::new("", ["a.py"]));
    let (surface, files) = content(&repo, Mode::Commit, &[include]);
    assert_eq!(surface.paths, strings(&["a.py", "staged.py"]));
    assert_eq!(files["b.py"], "b\n");
}

#[test]
fn actions_after_the_commit_count_only_when_the_caller_says_so() {
    let repo = wip_repo();
    let actions = [add("", &["c.py"]), StagingAction::Commit, add("", &["a.py"])];
    let (surface, files) = content(&repo, Mode::Commit, &actions);
    assert_eq!(surface.paths, strings(&["b.py", "c.py"]));
    assert_eq!(files["a.py"], "a = 1\n");
    let (surface, _) =
        content_with(&repo, Mode::Commit, &actions, SurfaceOptions { through_last_commit: false });
    assert_eq!(surface.paths, strings(&["a.py", "b.py", "c.py"]));
}

#[test]
fn unverifiable_staging_is_reported() {
    let repo = wip_repo();
    let actions = [StagingAction::Unverifiable("git add -p is interactive".into()), StagingAction::Commit];
    let (surface, _) = content(&repo, Mode::Commit, &actions);
    assert_eq!(surface.unverified, strings(&["git add -p is interactive"]));
    assert_eq!(surface.paths, strings(&["b.py"]));
}

#[test]
fn a_nested_repository_is_never_widened_into() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("init");
    let nested = TestRepo::new();
    nested.write("inner.py", "secret = 1\n").commit_all("inner");
    let dest = repo.path("vendor/inner");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    git_in(&repo.root(), &["clone", "-q", nested.root().to_str().unwrap(), dest.to_str().unwrap()]);
    let (surface, files) = content(&repo, Mode::Commit, &[add_all()]);
    assert!(surface.paths.is_empty(), "{:?}", surface.paths);
    assert!(!files.keys().any(|k| k.starts_with("vendor")));
    assert_eq!(surface.unverified.len(), 1, "{:?}", surface.unverified);
    // The nested repository's own prediction sees only its own state.
    assert!(surface::staged_only(&dest).unwrap().paths.is_empty());
}

/// A repository with an `origin` remote (bare) holding `main`, and `clean.py` pushed.
fn pushed_repo() -> (TestRepo, tempfile::TempDir) {
    let repo = TestRepo::new();
    let origin = tempfile::tempdir().unwrap();
    git_in(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    repo.write("clean.py", "ok = 1\n").commit_all("init");
    repo.git(&["remote", "add", "origin", origin.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    (repo, origin)
}

#[test]
fn push_checks_only_the_unpushed_range_and_catches_a_bad_commit_already_in_history() {
    let (repo, _origin) = pushed_repo();
    repo.write("bad.py", "import os, sys\n").commit_all("bad");
    repo.write("gone.txt", "g\n").commit_all("add gone");
    repo.git(&["rm", "-q", "gone.txt"]);
    repo.git(&["commit", "-q", "-m", "remove gone"]);
    let (commit, _) = content(&repo, Mode::Commit, &[]);
    assert!(commit.paths.is_empty(), "a clean tree has nothing to commit");
    let (push, files) = content(&repo, Mode::Push { pending_commit: false }, &[]);
    assert_eq!(push.paths, strings(&["bad.py"]));
    assert!(push.deleted.is_empty(), "gone.txt never reached the upstream: {:?}", push.deleted);
    assert_eq!(push.base, Base::HeadTree);
    let range = push.push.as_ref().unwrap();
    assert_eq!(range.base, PushBase::Upstream { reference: "refs/remotes/origin/main".into() });
    assert_eq!(range.commits, 3);
    assert_eq!(files["bad.py"], "import os, sys\n");
    assert!(push.lanes.names().is_empty());
}

#[test]
fn push_falls_back_to_origin_branch_then_to_every_file_at_head() {
    let (repo, _origin) = pushed_repo();
    repo.git(&["branch", "--unset-upstream"]);
    repo.write("new.py", "n\n").commit_all("new");
    let (push, _) = content(&repo, Mode::Push { pending_commit: false }, &[]);
    assert_eq!(push.paths, strings(&["new.py"]));

    let lonely = TestRepo::new();
    lonely.write("a.py", "a\n").write("lib/b.py", "b\n").commit_all("init");
    let (push, files) = content(&lonely, Mode::Push { pending_commit: false }, &[]);
    assert_eq!(push.paths, strings(&["a.py", "lib/b.py"]), "no upstream: everything at HEAD");
    assert_eq!(push.push.as_ref().unwrap().base, PushBase::NoUpstream);
    assert_eq!(files.len(), 2);
}

#[test]
fn push_after_a_pending_commit_combines_both() {
    let (repo, _origin) = pushed_repo();
    repo.write("bad.py", "x\n").commit_all("bad");
    repo.write("staged.py", "s\n").write("wip.py", "w\n");
    repo.git(&["add", "staged.py"]);
    let (push, files) = content(&repo, Mode::Push { pending_commit: true }, &[StagingAction::Commit]);
    assert_eq!(push.paths, strings(&["bad.py", "staged.py"]));
    assert_eq!(push.base, Base::Index);
    assert!(files.contains_key("staged.py") && !files.contains_key("wip.py"));
}

#[test]
fn a_first_commit_on_an_unborn_branch_is_all_staged_files() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").write("b.py", "b\n");
    repo.git(&["add", "a.py"]);
    let (surface, files) = content(&repo, Mode::Commit, &[]);
    assert_eq!(surface.paths, strings(&["a.py"]));
    assert_eq!(files.len(), 1);
    let (push, _) = content(&repo, Mode::Push { pending_commit: false }, &[]);
    assert!(push.paths.is_empty(), "nothing exists to push yet");
}

#[test]
fn a_missing_repository_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let err = surface::staged_only(dir.path()).unwrap_err();
    assert!(err.to_string().contains("cannot open the git repository"), "{err}");
}
