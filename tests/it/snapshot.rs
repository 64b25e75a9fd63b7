//! Snapshot materialisation: modes, symlinks, special entries, limits, cleanup, re-verification.
//! Every test that materialises proves the repository was left untouched.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use codeguard::stages::snapshot::{Snapshot, SnapshotError, SnapshotOptions};
use codeguard::stages::surface::{self, Mode, Pathspecs, StagingAction, Surface, SurfaceOptions};

use crate::support::{TestRepo, assert_untouched};
use crate::surface::{content, files};

/// Materialises the staged content with `options`, asserting the repository stays untouched.
fn materialise(repo: &TestRepo, options: &SnapshotOptions) -> Result<Snapshot, SnapshotError> {
    assert_untouched(&repo.root(), || {
        let surface = surface::staged_only(&repo.root()).expect("predict");
        Snapshot::materialise_whole(&surface, options)
    })
}

fn private_scratch() -> (tempfile::TempDir, SnapshotOptions) {
    let dir = tempfile::tempdir().unwrap();
    let options = SnapshotOptions { scratch_dirs: vec![dir.path().to_owned()], ..SnapshotOptions::default() };
    (dir, options)
}

fn entries(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn executable_bits_are_kept_and_the_directory_is_private_and_removed_on_drop() {
    let repo = TestRepo::new();
    repo.write("run.sh", "#!/bin/sh\necho hi\n")
        .chmod_x("run.sh")
        .write("lib/plain.py", "x = 1\n")
        .commit_all("i");
    let (scratch, options) = private_scratch();
    let snapshot = materialise(&repo, &options).unwrap();
    let root: PathBuf = snapshot.root().to_owned();
    assert!(root.starts_with(scratch.path()));
    let mode = |rel: &str| std::fs::metadata(root.join(rel)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("run.sh") & 0o111, 0o111, "executable bit kept");
    assert_eq!(mode("lib/plain.py") & 0o111, 0, "plain files are not executable");
    assert_eq!(mode(""), 0o700, "the snapshot directory is private");
    assert_eq!(snapshot.file_count(), 2);
    assert_eq!(snapshot.byte_count(), 24);
    drop(snapshot);
    assert!(!root.exists(), "the temp dir is gone after drop");
    assert_eq!(entries(scratch.path()), 0);
}

#[test]
fn the_directory_is_removed_even_when_a_linter_left_read_only_directories() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    let (scratch, options) = private_scratch();
    let snapshot = materialise(&repo, &options).unwrap();
    let cache = snapshot.root().join("cache/sub");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("f"), "x").unwrap();
    std::fs::set_permissions(snapshot.root().join("cache"), std::fs::Permissions::from_mode(0o500)).unwrap();
    drop(snapshot);
    assert_eq!(entries(scratch.path()), 0);
}

#[test]
fn the_directory_is_removed_on_error_and_on_panic() {
    let repo = TestRepo::new();
    repo.write("big.txt", &"x".repeat(4096)).commit_all("i");
    let (scratch, mut options) = private_scratch();
    options.max_bytes = 100;
    let err = materialise(&repo, &options).unwrap_err();
    assert!(matches!(err, SnapshotError::TooLarge { limit: 100 }), "{err}");
    assert_eq!(entries(scratch.path()), 0, "nothing left behind after an error");

    options.max_bytes = u64::MAX;
    let result = std::panic::catch_unwind(|| {
        let _snapshot = materialise(&repo, &options).unwrap();
        panic!("a linter stage panicked");
    });
    assert!(result.is_err());
    assert_eq!(entries(scratch.path()), 0, "nothing left behind after a panic");
}

#[test]
fn the_file_limit_is_unverified() {
    let repo = TestRepo::new();
    repo.write("a", "1").write("b", "2").write("c", "3").commit_all("i");
    let (_scratch, mut options) = private_scratch();
    options.max_files = 2;
    let err = materialise(&repo, &options).unwrap_err();
    assert!(matches!(err, SnapshotError::TooManyFiles { count: 3, limit: 2 }), "{err}");
}

#[test]
fn symlinks_inside_are_recreated_and_symlinks_outside_are_left_out_with_a_note() {
    let repo = TestRepo::new();
    repo.write("src/a.py", "a\n").commit_all("i");
    std::os::unix::fs::symlink("src/a.py", repo.path("link")).unwrap();
    std::os::unix::fs::symlink("../a.py", repo.path("src/up")).unwrap();
    repo.commit_all("links");
    let (surface, files) = content(&repo, Mode::Push { pending_commit: false }, &[]);
    assert_eq!(files["link"], "-> src/a.py");
    assert_eq!(files["src/up"], "-> ../a.py");
    assert!(surface.paths.contains(&"link".to_owned()));

    std::os::unix::fs::symlink("../../etc/passwd", repo.path("evil")).unwrap();
    repo.git(&["add", "evil"]);
    let (_scratch, options) = private_scratch();
    let snapshot = materialise(&repo, &options).expect("one escaping link does not sink the snapshot");
    assert!(std::fs::symlink_metadata(snapshot.root().join("evil")).is_err(), "never written");
    assert!(snapshot.root().join("src/a.py").is_file(), "the rest is there");
    assert_eq!(
        snapshot.notes(),
        [
            "evil is a symlink leading out of the repository: it is committed as a link, and linters do not see it"
        ]
    );
}

#[test]
fn an_untracked_symlink_to_outside_is_left_out_too() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    std::os::unix::fs::symlink("/etc/passwd", repo.path("passwd")).unwrap();
    let notes = assert_untouched(&repo.root(), || {
        let surface = surface::working_changes(&repo.root()).unwrap();
        Snapshot::materialise_whole(&surface, &SnapshotOptions::default()).unwrap().notes().to_vec()
    });
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("passwd is a symlink leading out"), "{notes:?}");
}

#[test]
fn a_submodule_is_left_out_with_a_note() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["update-index", "--add", "--cacheinfo", &format!("160000,{},vendor/lib", head.trim())]);
    let (_scratch, options) = private_scratch();
    let snapshot = materialise(&repo, &options).expect("a submodule does not sink the snapshot");
    assert_eq!(snapshot.notes(), ["vendor/lib is a submodule: its content is not linted here"]);
    assert!(snapshot.root().join("a.py").is_file());
}

/// A repository in the middle of a conflicted merge on `c.txt`.
fn conflicted_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("c.txt", "base\n").commit_all("base");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("c.txt", "theirs\n").commit_all("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("c.txt", "ours\n").commit_all("ours");
    let merge = crate::support::git_command()
        .args(["merge", "-q", "other"])
        .current_dir(repo.root())
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the merge must conflict");
    repo
}

#[test]
fn a_conflict_is_unverified_until_it_is_added() {
    let repo = conflicted_repo();
    let (_scratch, options) = private_scratch();
    let err = materialise(&repo, &options).unwrap_err();
    assert!(matches!(&err, SnapshotError::Conflict(p) if p == "c.txt"), "{err}");

    repo.write("c.txt", "resolved\n");
    let add =
        StagingAction::Add { specs: Pathspecs::new("", ["c.txt"]), all: false, update: false, force: false };
    let (surface, files) = content(&repo, Mode::Commit, &[add]);
    assert_eq!(files["c.txt"], "resolved\n");
    assert_eq!(surface.paths, vec!["c.txt".to_owned()]);
}

#[test]
fn intent_to_add_is_skipped_and_skip_worktree_comes_from_the_blob() {
    let repo = TestRepo::new();
    repo.write("hidden.py", "committed\n").commit_all("i");
    repo.git(&["update-index", "--skip-worktree", "hidden.py"]);
    repo.write("hidden.py", "local edit\n").write("ita.py", "later\n");
    repo.git(&["add", "-N", "ita.py"]);
    let (surface, files) = content(&repo, Mode::Commit, &[]);
    assert_eq!(files["hidden.py"], "committed\n");
    assert!(!files.contains_key("ita.py"));
    assert!(surface.paths.is_empty(), "{:?}", surface.paths);

    let (surface, files) = content(&repo, Mode::Commit, &[StagingAction::CommitAll]);
    assert_eq!(files["ita.py"], "later\n", "commit -a commits intent-to-add files");
    assert_eq!(surface.paths, vec!["ita.py".to_owned()]);
}

#[test]
fn reverify_notices_index_head_and_worktree_changes() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    repo.write("a.py", "wip\n");
    let predict = || {
        let surface = surface::predict(
            &repo.root(),
            Mode::Commit,
            &[StagingAction::CommitAll],
            &SurfaceOptions::default(),
        )
        .unwrap();
        let snapshot = Snapshot::materialise_whole(&surface, &SnapshotOptions::default()).unwrap();
        (surface, snapshot)
    };

    let (_, snapshot) = assert_untouched(&repo.root(), predict);
    snapshot.reverify().unwrap();
    repo.write("a.py", "edited after the snapshot\n");
    let err = snapshot.reverify().unwrap_err();
    assert!(err.to_string().contains("the repository changed while checking"), "{err}");

    let (_, snapshot) = assert_untouched(&repo.root(), predict);
    repo.write("b.py", "b\n");
    repo.git(&["add", "b.py"]);
    assert!(matches!(snapshot.reverify(), Err(SnapshotError::Changed(_))));

    let (_, snapshot) = assert_untouched(&repo.root(), predict);
    repo.git(&["commit", "-q", "-m", "moved"]);
    assert!(matches!(snapshot.reverify(), Err(SnapshotError::Changed(_))));
}

#[test]
fn a_change_between_prediction_and_materialisation_is_unverified() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    let surface: Surface = surface::staged_only(&repo.root()).unwrap();
    repo.write("b.py", "b\n");
    repo.git(&["add", "b.py"]);
    let err =
        assert_untouched(&repo.root(), || Snapshot::materialise_whole(&surface, &SnapshotOptions::default()))
            .unwrap_err();
    assert!(matches!(err, SnapshotError::Changed(_)), "{err}");
}

#[test]
fn a_full_scratch_directory_falls_back_to_the_next_one() {
    let repo = TestRepo::new();
    repo.write("a.py", "a\n").commit_all("i");
    let (fallback, _) = private_scratch();
    let options = SnapshotOptions {
        scratch_dirs: vec![PathBuf::from("/nonexistent/scratch"), fallback.path().to_owned()],
        ..SnapshotOptions::default()
    };
    let snapshot = materialise(&repo, &options).unwrap();
    assert!(snapshot.root().starts_with(fallback.path()));
    assert_eq!(files(snapshot.root()).len(), 1);
    let none = SnapshotOptions { scratch_dirs: vec![PathBuf::from("/nonexistent/scratch")], ..options };
    assert!(matches!(materialise(&repo, &none), Err(SnapshotError::NoScratchDir(_))));
}

#[test]
fn options_from_env_prefer_tmpfs_and_never_read_the_process_environment() {
    let env =
        codeguard::stages::env::Env::from_pairs([("XDG_RUNTIME_DIR", "/run/user/7"), ("TMPDIR", "/var/tmp")]);
    let options = SnapshotOptions::from_env(&env);
    let expected: Vec<PathBuf> =
        ["/dev/shm", "/run/user/7", "/var/tmp"].into_iter().map(PathBuf::from).collect();
    assert_eq!(options.scratch_dirs, expected);
    let bare = SnapshotOptions::from_env(&codeguard::stages::env::Env::default());
    assert_eq!(bare.scratch_dirs, vec![PathBuf::from("/dev/shm"), PathBuf::from("/tmp")]);
}
