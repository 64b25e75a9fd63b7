//! The git layer against real repositories made by `git` in temp dirs (no system or global
//! config, fixed identities).

#![allow(clippy::disallowed_methods, reason = "tests spawn git from the test environment")]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::*;

/// Runs git in `dir` under a fixed environment (plus `extra`), panicking on failure.
fn git_with(dir: &Path, args: &[&str], extra: &[(&str, &Path)]) -> String {
    let mut command = std::process::Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    for (key, value) in extra {
        command.env(key, value);
    }
    let out = command.output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn git(dir: &Path, args: &[&str]) -> String {
    git_with(dir, args, &[])
}

/// A new repository (branch `main`) in a temp dir, and its canonical root.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    git(&root, &["init", "-q", "-b", "main"]);
    (dir, root)
}

fn commit_file(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(file, text).expect("write");
    git(root, &["add", path]);
    git(root, &["commit", "-q", "-m", path]);
}

#[test]
fn discovery_from_a_subdirectory_finds_the_worktree_and_open_does_not_search_upwards() {
    let (_dir, root) = repo();
    let sub = root.join("a/b");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let found = discover_worktree(&sub).expect("discovered");
    assert_eq!(workdir(&found).expect("worktree").canonicalize().expect("canonical"), root);
    assert!(open_worktree(&root).is_ok());
    assert!(matches!(open_worktree(&sub), Err(Error::NotARepository { .. })));
}

#[test]
fn a_directory_outside_any_repository_is_not_a_repository() {
    let dir = tempfile::tempdir().expect("tempdir");
    for err in [discover(dir.path()).expect_err("none"), open_worktree(dir.path()).expect_err("none")] {
        assert!(matches!(&err, Error::NotARepository { path, .. } if path == dir.path()), "{err:?}");
        assert!(err.to_string().starts_with("cannot open the git repository at "), "{err}");
        assert!(err.cause().is_some_and(|c| !c.is_empty()));
    }
}

#[test]
fn a_bare_repository_is_found_but_has_no_worktree() {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q", "--bare"]);
    assert!(discover(dir.path()).is_ok_and(|r| r.workdir().is_none()));
    for err in
        [discover_worktree(dir.path()).expect_err("bare"), open_worktree(dir.path()).expect_err("bare")]
    {
        assert!(matches!(&err, Error::Bare(path) if path == dir.path()), "{err:?}");
        assert_eq!(err.to_string(), format!("the repository at {} has no worktree", dir.path().display()));
    }
}

#[test]
fn the_index_git_names_is_read_instead_of_the_repositorys_own_and_a_missing_one_is_empty() {
    let (_dir, root) = repo();
    commit_file(&root, "a.txt", "a\n");
    std::fs::write(root.join("b.txt"), "b\n").expect("write");
    // What `git commit -a` does: a temporary index, here relative to the worktree top.
    let alternate = root.join(".git/alternate-index");
    std::fs::copy(root.join(".git/index"), &alternate).expect("copy");
    git_with(&root, &["add", "b.txt"], &[("GIT_INDEX_FILE", Path::new(".git/alternate-index"))]);
    let repo = open_worktree(&root).expect("open");
    let own = load_index(&repo, None).expect("own index");
    let other = load_index(&repo, Some(&alternate)).expect("alternate index");
    let paths = |index: &gix::worktree::Index| -> Vec<String> {
        index.entries().iter().map(|e| e.path(index).to_string()).collect()
    };
    assert_eq!(paths(&own), ["a.txt"]);
    assert_eq!(paths(&other), ["a.txt", "b.txt"]);
    let fingerprint_own = fingerprint(&repo, &own).expect("fingerprint");
    let fingerprint_other = fingerprint(&repo, &other).expect("fingerprint");
    assert_eq!(fingerprint_own.head, fingerprint_other.head);
    assert_ne!(fingerprint_own.index_digest, fingerprint_other.index_digest);
    assert_eq!(observe_index(&root, Some(&alternate)).expect("observe"), fingerprint_other);
    assert_eq!(observe_index(&root, None).expect("observe"), fingerprint_own);
    let missing = load_index(&repo, Some(&root.join(".git/no-such-index"))).expect("missing is empty");
    assert!(missing.entries().is_empty());
}

#[test]
fn the_fingerprint_follows_the_index_and_head_not_stat_data() {
    let (_dir, root) = repo();
    let unborn = observe_index(&root, None).expect("observe");
    assert_eq!(unborn.head, None);
    commit_file(&root, "a.txt", "a\n");
    let first = observe_index(&root, None).expect("observe");
    assert!(first.head.is_some());
    assert_eq!(
        observe_index(&root, None).expect("observe again"),
        first,
        "the remembered digest is the same"
    );
    // Refreshing stat data rewrites the index file but not its entries.
    std::fs::write(root.join("a.txt"), "a\n").expect("touch");
    git(&root, &["update-index", "--really-refresh"]);
    assert_eq!(observe_index(&root, None).expect("observe"), first);
    std::fs::write(root.join("a.txt"), "changed\n").expect("write");
    git(&root, &["add", "a.txt"]);
    let staged = observe_index(&root, None).expect("observe");
    assert_eq!(staged.head, first.head);
    assert_ne!(staged.index_digest, first.index_digest);
}

#[test]
fn head_reads_blobs_trees_and_the_unborn_branch() {
    let (_dir, root) = repo();
    assert_eq!(head_file(&root, "a.txt").expect("unborn"), None);
    let repo = open_worktree(&root).expect("open");
    assert_eq!(head_tree(&repo).expect("unborn"), None);
    commit_file(&root, "dir/a.txt", "a\n");
    assert_eq!(head_file(&root, "dir/a.txt").expect("read"), Some(b"a\n".to_vec()));
    assert_eq!(head_file(&root, "dir").expect("a tree is no file"), None);
    assert_eq!(head_file(&root, "missing.txt").expect("absent"), None);
    let repo = open_worktree(&root).expect("open");
    let head = head_commit(&repo).expect("head").expect("born");
    let tree = commit_tree(&repo, head).expect("tree");
    assert_eq!(head_tree(&repo).expect("head tree"), Some(tree));
    let listing = tree_index(&repo, tree).expect("listing");
    assert_eq!(listing.entries().len(), 1);
    assert_eq!(tree::blob_at(&repo, tree, "dir/a.txt").expect("blob"), Some(b"a\n".to_vec()));
    let files = tree::regular_files_in(&repo, tree, vec!["dir/a.txt".into(), "dir".into(), "new.txt".into()]);
    assert_eq!(files.expect("files"), ["dir/a.txt"]);
    assert!(matches!(commit_tree(&repo, tree), Err(Error::Object { .. })), "a tree is not a commit");
}

#[test]
fn the_upstream_is_the_tracking_ref_else_origin_of_the_branch() {
    let (_dir, root) = repo();
    commit_file(&root, "a.txt", "a\n");
    let repo = open_worktree(&root).expect("open");
    assert_eq!(upstream(&repo).expect("none"), None);
    let head = git(&root, &["rev-parse", "HEAD"]);
    git(&root, &["update-ref", "refs/remotes/origin/main", head.trim()]);
    let repo = open_worktree(&root).expect("open");
    let (name, id) = upstream(&repo).expect("upstream").expect("found");
    assert_eq!(name, "refs/remotes/origin/main");
    assert_eq!(id.to_string(), head.trim());
    git(&root, &["update-ref", "refs/remotes/up/main", head.trim()]);
    git(&root, &["config", "branch.main.remote", "up"]);
    git(&root, &["config", "branch.main.merge", "refs/heads/main"]);
    git(&root, &["config", "remote.up.fetch", "+refs/heads/*:refs/remotes/up/*"]);
    let repo = open_worktree(&root).expect("open");
    assert_eq!(upstream(&repo).expect("upstream").map(|(n, _)| n).as_deref(), Some("refs/remotes/up/main"));
}

#[test]
fn config_values_come_from_the_repository() {
    let (_dir, root) = repo();
    let repo = open_worktree(&root).expect("open");
    assert_eq!(config::hooks_path(&repo).expect("unset"), None);
    assert_eq!(config::boolean(&repo, "codeguard.skipGate"), None);
    git(&root, &["config", "core.hooksPath", ".hooks"]);
    git(&root, &["config", "codeguard.skipGate", "true"]);
    git(&root, &["config", "push.default", "Matching"]);
    git(&root, &["config", "alias.ci", "commit -v"]);
    let repo = open_worktree(&root).expect("open");
    assert_eq!(config::hooks_path(&repo).expect("set"), Some(PathBuf::from(".hooks")));
    assert_eq!(config::boolean(&repo, "codeguard.skipGate"), Some(true));
    assert_eq!(config::string(&repo, "push.default").as_deref(), Some("Matching"));
    std::fs::create_dir(root.join("sub")).expect("mkdir");
    assert_eq!(config::alias(&root.join("sub"), "ci").as_deref(), Some("commit -v"));
}

/// A repository whose index lists `entries` (`mode id stage\tpath` lines for
/// `git update-index --index-info`), with no files behind them.
fn index_of(entries: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = repo();
    let mut child = std::process::Command::new("git")
        .args(["update-index", "--index-info"])
        .current_dir(&root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), entries.as_bytes()).expect("write");
    drop(child.stdin.take());
    assert!(child.wait().expect("wait").success());
    (dir, root)
}

const BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

#[test]
fn sorted_lookups_find_one_path_a_directory_and_a_directorys_own_entries() {
    let lines: String =
        ["a.b", "a/b", "a/c/d", "a0", "b/x", "z"].iter().fold(String::new(), |mut lines, p| {
            let _ = writeln!(lines, "100644 {BLOB} 0\t{p}");
            lines
        });
    let (_dir, root) = index_of(&lines);
    let repo = open_worktree(&root).expect("open");
    let index = load_index(&repo, None).expect("index");
    let names = |range: &[usize]| -> Vec<String> {
        range.iter().map(|&i| index.entries()[i].path(&index).to_string()).collect()
    };
    let all = |r: std::ops::Range<usize>| names(&r.collect::<Vec<_>>());
    assert_eq!(all(sorted::at(&index, b"a0")), ["a0"]);
    assert_eq!(all(sorted::at(&index, b"a")), Vec::<String>::new(), "a directory is no entry");
    assert_eq!(all(sorted::below(&index, b"a/")), ["a/b", "a/c/d"]);
    assert_eq!(all(sorted::below(&index, b"a/c/")), ["a/c/d"]);
    assert_eq!(all(sorted::below(&index, b"")).len(), 6, "the root holds everything");
    assert_eq!(names(&sorted::direct(&index, b"")), ["a.b", "a0", "z"]);
    assert_eq!(names(&sorted::direct(&index, b"a/")), ["a/b"]);
    assert_eq!(names(&sorted::direct(&index, b"q/")), Vec::<String>::new());
}

#[test]
fn the_digest_of_a_large_index_covers_every_part_and_its_first_conflict_is_found() {
    // Three parts of the digest and more; one path in conflict well inside the third.
    let other = "0000000000000000000000000000000000000001";
    let paths: Vec<String> = (0..40_000).map(|i| format!("d{:02}/f{i:05}", i % 97)).collect();
    let entries = |changed: Option<&str>, conflict: Option<&str>| {
        let mut lines = String::new();
        for p in &paths {
            let id = if Some(p.as_str()) == changed { other } else { BLOB };
            if Some(p.as_str()) == conflict {
                for stage in 1..=3 {
                    let _ = writeln!(lines, "100644 {BLOB} {stage}\t{p}");
                }
            } else {
                let _ = writeln!(lines, "100644 {id} 0\t{p}");
            }
        }
        lines
    };
    let digest_and_conflict = |lines: &str| {
        let (_dir, root) = index_of(lines);
        let repo = open_worktree(&root).expect("open");
        let index = load_index(&repo, None).expect("index");
        let found = index.entries().iter().position(|e| e.stage_raw() != 0);
        (index_digest(&index), first_conflict(&index), found, index.entries().len())
    };
    let (plain, none, _, len) = digest_and_conflict(&entries(None, None));
    assert!(len > 2 * 16 * 1024, "{len} entries");
    assert_eq!(none, None);
    assert_eq!(digest_and_conflict(&entries(None, None)).0, plain, "the same entries, the same digest");
    let late = "d96/f29196";
    assert!(paths.iter().any(|p| p == late));
    assert_ne!(digest_and_conflict(&entries(Some(late), None)).0, plain, "an id deep in the index counts");
    let (with_conflict, conflict, found, _) = digest_and_conflict(&entries(None, Some(late)));
    assert_ne!(with_conflict, plain);
    assert!(found.is_some_and(|at| at > 2 * 16 * 1024), "{found:?}");
    assert_eq!(conflict, found);
}

#[test]
fn a_partial_tree_listing_reads_only_the_directories_asked_for() {
    use gix::bstr::ByteSlice as _;
    let (_dir, root) = repo();
    commit_file(&root, "top.txt", "t\n");
    commit_file(&root, "a/one.py", "1\n");
    commit_file(&root, "a/b/two.py", "2\n");
    commit_file(&root, "a/b/c/three.py", "3\n");
    commit_file(&root, "z/other.py", "z\n");
    let repo = open_worktree(&root).expect("open");
    let tree = head_tree(&repo).expect("head").expect("tree");
    let paths = vec!["a/b/two.py".to_owned()];
    let dirs = tree::ancestor_dirs(&paths);
    assert_eq!(dirs.iter().map(|d| d.to_str_lossy().into_owned()).collect::<Vec<_>>(), ["", "a", "a/b"]);
    let (state, root_names) = tree::dirs_index(&repo, tree, &dirs).expect("listing");
    let listed: Vec<String> =
        state.entries().iter().map(|e| e.path(&state).to_str_lossy().into_owned()).collect();
    // The direct files of the root, `a` and `a/b`, in index order; nothing below `a/b/c` or `z`.
    assert_eq!(listed, ["a/b/two.py", "a/one.py", "top.txt"]);
    assert!(state.entry_by_path("a/b/two.py".into()).is_some(), "found by path: the entries are sorted");
    assert_eq!(root_names.into_iter().collect::<Vec<_>>(), ["a", "top.txt", "z"]);
    let whole = tree_index(&repo, tree).expect("whole");
    assert_eq!(whole.entries().len(), 5);
    assert_eq!(
        tree::entry_at(&repo, tree, "a/b/c/three.py").expect("lookup").map(|(_, mode)| mode),
        Some(gix::index::entry::Mode::FILE)
    );
    assert_eq!(tree::entry_at(&repo, tree, "a/b").expect("lookup"), None, "a tree is not an entry");
}
