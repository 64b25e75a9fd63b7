//! git's own hooks end to end: `codeguard install --git-hooks` in real repositories, then real
//! `git commit` / `git push` (to a local bare remote) running the installed scripts, which run
//! this test build's codeguard binary with real ruff and shellcheck.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{TestRepo, bin_dir_with, codeguard, git_in, real_tool, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";
const GOOD_PY_2: &str = "import sys\n\nprint(sys.argv, 2)\n";
const BAD_SH: &str = "#!/bin/sh\ncd $1\necho finished\n";

/// A repository with codeguard's hooks installed, and the state directory the hooks use.
struct Hooked {
    repo: TestRepo,
    home: tempfile::TempDir,
}

impl Hooked {
    /// A repository with one clean commit, then the hooks installed.
    fn new() -> Self {
        let hooked = Self::with_commit();
        hooked.install(&[]);
        hooked
    }

    /// A repository with one clean commit and no hooks yet.
    fn with_commit() -> Self {
        let hooked = Self::bare();
        hooked.repo.write("notes.txt", "hello\n").commit_all("init");
        hooked
    }

    /// A fresh repository without commits or hooks.
    fn bare() -> Self {
        Self { repo: TestRepo::new(), home: tempfile::tempdir().expect("home") }
    }

    fn install(&self, extra: &[&str]) -> String {
        let out = codeguard(self.home.path())
            .current_dir(self.repo.root())
            .args(["install", "--git-hooks"])
            .args(extra)
            .output()
            .expect("install");
        assert_eq!(out.status.code(), Some(0), "install: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn uninstall(&self) -> String {
        let out = codeguard(self.home.path())
            .current_dir(self.repo.root())
            .args(["uninstall", "--git-hooks"])
            .output()
            .expect("uninstall");
        assert_eq!(out.status.code(), Some(0), "uninstall: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs real git (hooks included) in the repository; never panics on failure.
    fn git(&self, args: &[&str]) -> Output {
        git_with(&self.repo.root(), self.home.path(), args, &[])
    }

    /// Commits what is staged with no hook at all (`core.hooksPath` pointing nowhere): history
    /// made before codeguard was installed, or by a person who chose to.
    fn commit_unhooked(&self, message: &str) -> Output {
        self.git(&["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message])
    }

    fn head(&self) -> String {
        self.repo.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    fn committed(&self, path: &str) -> String {
        self.repo.git(&["show", &format!("HEAD:{path}")])
    }

    fn hooks_dir(&self) -> PathBuf {
        self.repo.path(".git/hooks")
    }
}

/// Runs git in `dir` with the fixed environment, the test's `PATH` (real linters) and an
/// isolated codeguard state directory, plus `extra` variables.
fn git_with(dir: &Path, home: &Path, args: &[&str], extra: &[(&str, &std::ffi::OsStr)]) -> Output {
    crate::support::git_with_hooks_and(dir, home, args, extra)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_blocked(out: &Output, summary: &str) -> String {
    let text = stderr(out);
    assert_ne!(out.status.code(), Some(0), "git went ahead:\n{text}");
    assert!(text.contains(summary), "expected {summary:?} in:\n{text}");
    text
}

fn assert_passed(out: &Output) -> String {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(0), "git was stopped:\n{text}");
    text
}

/// The hooks' linters: missing, the test fails.
fn require_linters() {
    require_tools(&["ruff", "shellcheck"]);
}

/// Every file in a directory with its mode and content (hooks directories).
fn dir_state(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            let e = e.expect("entry");
            let meta = e.metadata().expect("meta");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, (meta.permissions().mode(), std::fs::read(e.path()).expect("read")))
        })
        .collect()
}

#[test]
fn a_bad_staged_file_blocks_git_commit_and_the_fix_passes() {
    require_linters();
    let h = Hooked::new();
    let before = h.head();
    h.repo.write("app/main.py", BAD_PY);
    h.repo.git(&["add", "app/main.py"]);
    let index_before = h.repo.git(&["ls-files", "--stage"]);

    let out = h.git(&["commit", "-m", "bad"]);
    let text = assert_blocked(&out, "codeguard: commit blocked — python (ruff): 1 problem");
    assert!(text.starts_with("codeguard: commit blocked"), "the summary comes first:\n{text}");
    assert!(text.contains("app/main.py:1:8: F401"), "{text}");
    assert!(text.contains("git commit --no-verify"), "a person can bypass once:\n{text}");
    assert!(!text.contains("Bash call"), "git-hook wording, not the agent's:\n{text}");
    assert_eq!(h.head(), before, "nothing was committed");
    assert_eq!(h.repo.git(&["ls-files", "--stage"]), index_before, "the index is as it was");
    assert_eq!(std::fs::read_to_string(h.repo.path("app/main.py")).expect("read"), BAD_PY);

    h.repo.write("app/main.py", GOOD_PY);
    h.repo.git(&["add", "app/main.py"]);
    let text = assert_passed(&h.git(&["commit", "-m", "good"]));
    assert!(text.contains("codeguard: commit checked — PASS (python"), "{text}");
    assert_eq!(h.committed("app/main.py"), GOOD_PY);
}

#[test]
fn commit_all_and_commit_paths_check_exactly_what_git_commits() {
    require_linters();
    let h = Hooked::new();
    h.repo.write("a.py", GOOD_PY).write("b.py", GOOD_PY);
    h.repo.git(&["add", "a.py", "b.py"]);
    assert_passed(&h.git(&["commit", "-m", "two files"]));

    // Staged bad, worktree fixed: a plain commit is blocked, `commit -a` commits the fix and passes.
    h.repo.write("a.py", BAD_PY);
    h.repo.git(&["add", "a.py"]);
    h.repo.write("a.py", GOOD_PY_2);
    assert_blocked(&h.git(&["commit", "-m", "staged bad"]), "python (ruff)");
    assert_passed(&h.git(&["commit", "-a", "-m", "commit -a takes the fixed worktree"]));
    assert_eq!(h.committed("a.py"), GOOD_PY_2);

    // Staged good, worktree bad: a plain commit passes and leaves the unstaged edit alone.
    h.repo.write("b.py", GOOD_PY_2);
    h.repo.git(&["add", "b.py"]);
    h.repo.write("b.py", BAD_PY);
    let text = assert_passed(&h.git(&["commit", "-m", "staged good"]));
    assert!(text.contains("1 file(s)"), "only the staged file was checked:\n{text}");
    assert_eq!(h.committed("b.py"), GOOD_PY_2);
    assert_eq!(
        std::fs::read_to_string(h.repo.path("b.py")).expect("read"),
        BAD_PY,
        "unstaged edit untouched"
    );
    assert_eq!(h.repo.git(&["diff", "--name-only"]), "b.py\n", "still an unstaged change");

    // `git commit <path>` commits the worktree content of that path: bad → blocked.
    assert_blocked(&h.git(&["commit", "b.py", "-m", "only b"]), "python (ruff)");
    assert_eq!(h.committed("b.py"), GOOD_PY_2);

    // … and ignores whatever else is staged: a bad staged a.py does not block `commit b.py`.
    h.repo.write("a.py", BAD_PY);
    h.repo.git(&["add", "a.py"]);
    h.repo.write("b.py", GOOD_PY);
    assert_passed(&h.git(&["commit", "b.py", "-m", "only b, now good"]));
    assert_eq!(h.committed("b.py"), GOOD_PY);
    assert_eq!(h.committed("a.py"), GOOD_PY_2, "a.py was not part of that commit");
    assert_eq!(h.repo.git(&["diff", "--cached", "--name-only"]), "a.py\n", "a.py is still staged");
}

/// A repository with hooks and a bare `origin` holding its first commit.
fn with_remote() -> (Hooked, tempfile::TempDir) {
    let h = Hooked::new();
    let origin = tempfile::tempdir().expect("origin");
    git_in(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    h.repo.git(&["remote", "add", "origin", origin.path().to_str().expect("utf-8")]);
    assert_passed(&h.git(&["push", "-q", "-u", "origin", "main"]));
    (h, origin)
}

fn remote_head(origin: &Path, branch: &str) -> Option<String> {
    let out = crate::support::git_command()
        .args(["rev-parse", "--verify", "-q", &format!("refs/heads/{branch}")])
        .current_dir(origin)
        .output()
        .expect("git");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[test]
fn git_push_blocks_a_range_with_bad_content_and_a_new_branch_checks_only_its_commits() {
    require_linters();
    let (h, origin) = with_remote();
    let pushed = remote_head(origin.path(), "main");

    h.repo.write("bad.py", BAD_PY);
    h.repo.git(&["add", "bad.py"]);
    assert_passed(&h.commit_unhooked("bad, made where no hook ran"));
    h.repo.write("clean.py", GOOD_PY);
    h.repo.git(&["add", "clean.py"]);
    assert_passed(&h.git(&["commit", "-q", "-m", "clean"]));
    let text =
        assert_blocked(&h.git(&["push", "-q", "origin", "main"]), "codeguard: push blocked — python (ruff)");
    assert!(text.contains("bad.py:1:8: F401"), "{text}");
    assert!(text.contains("Checked: refs/heads/main -> refs/heads/main"), "{text}");
    assert!(text.contains("git push --no-verify"), "{text}");
    assert_eq!(remote_head(origin.path(), "main"), pushed, "the remote did not move");

    h.repo.write("bad.py", GOOD_PY);
    h.repo.git(&["add", "bad.py"]);
    assert_passed(&h.git(&["commit", "-q", "-m", "fix"]));
    let text = assert_passed(&h.git(&["push", "-q", "origin", "main"]));
    assert!(text.contains("codeguard: push checked — PASS (python; safety scan; 2 file(s))"), "{text}");
    assert_eq!(remote_head(origin.path(), "main"), Some(h.head()));

    // A bad file already on the remote is not part of a new branch's push.
    h.repo.write("legacy.py", BAD_PY);
    h.repo.git(&["add", "legacy.py"]);
    assert_passed(&h.commit_unhooked("legacy"));
    assert_passed(&h.git(&["push", "-q", "--no-verify", "origin", "main"]));
    h.repo.git(&["checkout", "-q", "-b", "feature"]);
    h.repo.write("feature.py", GOOD_PY);
    h.repo.git(&["add", "feature.py"]);
    assert_passed(&h.git(&["commit", "-q", "-m", "feature"]));
    let text = assert_passed(&h.git(&["push", "-q", "origin", "feature"]));
    assert!(text.contains("1 file(s)"), "only the new commit's file:\n{text}");

    // A new branch whose own commit is bad is blocked.
    h.repo.git(&["checkout", "-q", "-b", "feature-bad"]);
    h.repo.write("worse.py", BAD_PY);
    h.repo.git(&["add", "worse.py"]);
    assert_passed(&h.commit_unhooked("worse"));
    let text = assert_blocked(&h.git(&["push", "-q", "origin", "feature-bad"]), "push blocked");
    assert!(text.contains("worse.py") && !text.contains("legacy.py"), "{text}");
    assert_eq!(remote_head(origin.path(), "feature-bad"), None);

    // Deleting a remote branch carries no content.
    assert_passed(&h.git(&["push", "-q", "origin", ":feature"]));
    assert_eq!(remote_head(origin.path(), "feature"), None);
}

#[test]
fn an_existing_hook_is_chained_keeps_running_and_comes_back_on_uninstall() {
    require_linters();
    let h = Hooked::with_commit();
    let marks = tempfile::tempdir().expect("marks");
    let commit_mark = marks.path().join("pre-commit-ran");
    let push_mark = marks.path().join("pre-push-stdin");
    let own_commit = format!("#!/bin/sh\necho ran >> '{}'\n", commit_mark.display());
    let own_push = format!("#!/bin/sh\ncat > '{}'\n", push_mark.display());
    h.repo.write(".git/hooks/pre-commit", &own_commit).chmod_x(".git/hooks/pre-commit");
    h.repo.write(".git/hooks/pre-push", &own_push).chmod_x(".git/hooks/pre-push");
    let original = dir_state(&h.hooks_dir());

    let said = h.install(&[]);
    assert!(
        said.contains("pre-commit: installed; the existing hook is kept as pre-commit.codeguard-chained"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(h.hooks_dir().join("pre-commit.codeguard-chained")).expect("kept"),
        own_commit
    );

    h.repo.write("a.py", BAD_PY);
    h.repo.git(&["add", "a.py"]);
    assert_blocked(&h.git(&["commit", "-m", "bad"]), "python (ruff)");
    assert_eq!(std::fs::read_to_string(&commit_mark).expect("mark"), "ran\n", "the chained hook ran first");
    h.repo.write("a.py", GOOD_PY);
    h.repo.git(&["add", "a.py"]);
    assert_passed(&h.git(&["commit", "-m", "good"]));
    assert_eq!(std::fs::read_to_string(&commit_mark).expect("mark"), "ran\nran\n");

    // The chained hook's failure stops git before codeguard runs.
    h.repo.write(".git/hooks/pre-commit.codeguard-chained", "#!/bin/sh\nexit 7\n");
    h.repo.write("b.py", GOOD_PY);
    h.repo.git(&["add", "b.py"]);
    let out = h.git(&["commit", "-m", "refused by the chained hook"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(!stderr(&out).contains("codeguard:"), "{}", stderr(&out));
    h.repo.write(".git/hooks/pre-commit.codeguard-chained", &own_commit);

    // pre-push: the chained hook reads the same ref lines codeguard does.
    let origin = tempfile::tempdir().expect("origin");
    git_in(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    h.repo.git(&["remote", "add", "origin", origin.path().to_str().expect("utf-8")]);
    let text = assert_passed(&h.git(&["push", "-q", "origin", "main"]));
    assert!(text.contains("push checked — PASS"), "codeguard saw the refs too:\n{text}");
    let seen = std::fs::read_to_string(&push_mark).expect("push mark");
    assert_eq!(seen, format!("refs/heads/main {} refs/heads/main {}\n", h.head(), "0".repeat(40)));

    let said = h.uninstall();
    assert!(said.contains("pre-commit: removed; the earlier hook is back"), "{said}");
    let mut restored = dir_state(&h.hooks_dir());
    restored.retain(|name, _| original.contains_key(name));
    assert_eq!(dir_state(&h.hooks_dir()), original, "uninstall restores the hooks byte for byte");
    assert_eq!(restored, original);
}

#[test]
fn install_is_idempotent_and_uninstall_leaves_the_directory_as_it_was() {
    let h = Hooked::bare();
    let original = dir_state(&h.hooks_dir());
    h.install(&[]);
    let once = dir_state(&h.hooks_dir());
    let said = h.install(&[]);
    assert!(
        said.contains("pre-commit: already installed") && said.contains("pre-push: already installed"),
        "{said}"
    );
    assert_eq!(dir_state(&h.hooks_dir()), once, "installing twice writes the same files");
    let script = String::from_utf8(once["pre-commit"].1.clone()).expect("utf-8");
    let binary = assert_cmd::cargo::cargo_bin("codeguard").canonicalize().expect("binary");
    assert!(script.contains(&format!("codeguard='{}'", binary.display())), "{script}");
    assert_eq!(once["pre-commit"].0 & 0o777, 0o755);

    assert!(h.uninstall().contains("pre-commit: removed"));
    assert_eq!(dir_state(&h.hooks_dir()), original);
    assert!(h.uninstall().contains("pre-commit: not installed"), "uninstalling twice is harmless");
}

#[test]
fn force_replaces_an_existing_hook_and_uninstall_restores_it() {
    let h = Hooked::with_commit();
    let marks = tempfile::tempdir().expect("marks");
    let mark = marks.path().join("ran");
    let own = format!("#!/bin/sh\necho ran > '{}'\n", mark.display());
    h.repo.write(".git/hooks/pre-commit", &own).chmod_x(".git/hooks/pre-commit");
    let said = h.install(&["--force"]);
    assert!(said.contains("no longer runs (kept as pre-commit.codeguard-replaced)"), "{said}");
    h.repo.write("n.txt", "x\n");
    h.repo.git(&["add", "n.txt"]);
    assert_passed(&h.git(&["commit", "-q", "-m", "n"]));
    assert!(!mark.exists(), "a replaced hook does not run");
    h.uninstall();
    assert_eq!(std::fs::read_to_string(h.hooks_dir().join("pre-commit")).expect("restored"), own);
    assert!(!h.hooks_dir().join("pre-commit.codeguard-replaced").exists());
}

#[test]
fn hooks_go_where_git_looks_for_them_core_hooks_path_and_linked_worktrees() {
    require_linters();
    let h = Hooked::with_commit();
    h.repo.git(&["config", "core.hooksPath", "githooks"]);
    let said = h.install(&[]);
    assert!(said.contains(&format!("git hooks in {}", h.repo.path("githooks").display())), "{said}");
    assert!(h.repo.path("githooks/pre-commit").is_file() && !h.hooks_dir().join("pre-commit").exists());
    h.repo.write("a.py", BAD_PY);
    h.repo.git(&["add", "a.py"]);
    assert_blocked(&h.git(&["commit", "-m", "bad"]), "python (ruff)");
    h.repo.git(&["reset", "-q"]);
    std::fs::remove_file(h.repo.path("a.py")).expect("rm");
    h.uninstall();
    h.repo.git(&["config", "--unset", "core.hooksPath"]);

    // A linked worktree shares the common directory's hooks.
    let linked_parent = tempfile::tempdir().expect("linked");
    let linked = linked_parent.path().join("wt");
    h.repo.git(&["worktree", "add", "-q", linked.to_str().expect("utf-8"), "-b", "side"]);
    let out =
        codeguard(h.home.path()).current_dir(&linked).args(["install", "--git-hooks"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(h.hooks_dir().join("pre-commit").is_file(), "installed into the common git directory");
    std::fs::write(linked.join("w.py"), BAD_PY).expect("write");
    git_in(&linked, &["add", "w.py"]);
    assert_blocked(&git_with(&linked, h.home.path(), &["commit", "-m", "bad"], &[]), "python (ruff)");
}

#[test]
fn unverified_checks_warn_by_default_and_block_with_codeguard_strict() {
    let ruff = real_tool("ruff");
    let h = Hooked::new();
    let git = crate::support::real_tool("git");
    let dirname = crate::support::real_tool("dirname");
    let bin = bin_dir_with(&[&ruff, &git, &dirname]);
    let no_shellcheck = [("PATH", bin.path().as_os_str())];
    h.repo.write("run.sh", BAD_SH);
    h.repo.git(&["add", "run.sh"]);
    let out = git_with(&h.repo.root(), h.home.path(), &["commit", "-m", "shell"], &no_shellcheck);
    let text = assert_passed(&out);
    assert!(text.contains("codeguard: commit allowed, but NOT fully verified"), "{text}");
    assert!(text.contains("shell UNVERIFIED") && text.contains("shellcheck"), "{text}");
    assert!(text.contains("git config codeguard.strict true"), "{text}");

    h.repo.git(&["config", "codeguard.strict", "true"]);
    h.repo.write("run2.sh", BAD_SH);
    h.repo.git(&["add", "run2.sh"]);
    let out = git_with(&h.repo.root(), h.home.path(), &["commit", "-m", "shell again"], &no_shellcheck);
    let text = assert_blocked(
        &out,
        "codeguard: commit blocked — 1 check(s) reached no conclusion (codeguard.strict is set)",
    );
    assert!(text.contains("git commit --no-verify"), "{text}");
}

#[test]
fn the_safety_scan_blocks_even_when_skip_gate_skips_the_linters() {
    require_linters();
    let h = Hooked::new();
    h.repo.write("a.py", BAD_PY);
    h.repo.git(&["add", "a.py"]);
    let text =
        assert_passed(&h.git(&["-c", "codeguard.skipGate=true", "commit", "-q", "-m", "skip linters"]));
    assert!(text.contains("codeguard.skipGate is set: linters skipped"), "{text}");
    let audit = std::fs::read_to_string(h.home.path().join(".codeguard/audit.jsonl")).expect("audit log");
    assert!(audit.contains("\"event\":\"bypass\"") && audit.contains("\"kind\":\"persisted\""), "{audit}");

    h.repo.write(".env", "TOKEN=abc\n");
    h.repo.git(&["add", "-f", ".env"]);
    let text = assert_blocked(
        &h.git(&["-c", "codeguard.skipGate=true", "commit", "-q", "-m", "env"]),
        "1 file must not be committed",
    );
    assert!(text.contains(".env: sensitive-file"), "{text}");

    // CODEGUARD_SKIP_GATE skips the pre-commit hook, but not the backstop's safety scan: a
    // variable anyone can set never lets a secret file land.
    let everything = [("CODEGUARD_SKIP_GATE", std::ffi::OsStr::new("1"))];
    let out = git_with(&h.repo.root(), h.home.path(), &["commit", "-q", "-m", "env anyway"], &everything);
    let text = assert_blocked(&out, "1 file must not be committed");
    assert!(text.contains("CODEGUARD_SKIP_GATE is set: nothing was checked for this commit"), "{text}");
    assert!(text.contains("linters skipped for this branch/tag update; the safety scan ran"), "{text}");
    assert!(text.contains("ref updates aborted by hook"), "{text}");
}

#[test]
fn internal_errors_fail_closed_with_the_way_to_bypass_once() {
    let h = Hooked::new();
    // An index git could not have written (a missing one reads as empty, as git reads it).
    std::fs::write(h.repo.path(".git/garbage-index"), "not an index\n").expect("write");
    let out = codeguard(h.home.path())
        .current_dir(h.repo.root())
        .env("GIT_INDEX_FILE", h.repo.path(".git/garbage-index"))
        .args(["git-hook", "pre-commit"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "fail-closed");
    let text = stderr(&out);
    assert!(text.contains("codeguard: error:") && text.contains("git commit --no-verify"), "{text}");

    let out = codeguard(h.home.path())
        .current_dir(h.repo.root())
        .args(["git-hook", "pre-push", "origin", "/nowhere"])
        .write_stdin("refs/heads/main not-a-sha\n")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unexpected pre-push input line"), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------------------------
// The backstop: git's reference-transaction hook judges what lands on a branch or tag, whatever
// command moves it.

/// An AWS key id assignment, built from pieces so this file holds none whole.
fn secret_line() -> String {
    format!("key = '{}{}'\n", "AKIA", "Z7Q3K9X2M4P8V6B1")
}

/// git stopped, in the backstop's words and git's own.
fn assert_aborted(out: &Output, summary: &str) -> String {
    let text = assert_blocked(out, summary);
    assert!(text.contains("ref updates aborted by hook"), "git's own words:\n{text}");
    assert!(text.contains("--no-verify does not skip this check"), "{text}");
    text
}

fn ref_exists(h: &Hooked, name: &str) -> bool {
    h.git(&["rev-parse", "--verify", "-q", name]).status.success()
}

#[test]
fn no_route_lands_a_secret_on_a_branch_commit_no_verify_update_ref_branch_fast_import() {
    let h = Hooked::new();
    let before = h.head();
    h.repo.write("k.py", &secret_line());
    h.repo.git(&["add", "k.py"]);
    let index = h.repo.git(&["ls-files", "--stage"]);

    let text = assert_aborted(&h.git(&["commit", "-q", "--no-verify", "-m", "skip hooks"]), "commit blocked");
    assert!(text.contains("k.py:1: aws-access-key-id"), "{text}");
    assert!(!text.contains("Z7Q3K9X2M4P8V6B1"), "the secret is never printed:\n{text}");
    assert_eq!(h.head(), before, "the branch did not move");
    assert_eq!(h.repo.git(&["ls-files", "--stage"]), index, "the index is still staged as it was");

    // Plumbing: the commit object exists, but no branch may take it.
    let tree = h.repo.git(&["write-tree"]).trim().to_owned();
    let commit = String::from_utf8(h.git(&["commit-tree", &tree, "-p", "HEAD", "-m", "plumbing"]).stdout)
        .expect("utf-8")
        .trim()
        .to_owned();
    assert_eq!(commit.len(), 40, "commit-tree made a commit");
    assert_aborted(&h.git(&["update-ref", "refs/heads/main", &commit]), "commit blocked");
    assert_eq!(h.head(), before);
    assert_aborted(&h.git(&["branch", "side", &commit]), "commit blocked");
    assert!(!ref_exists(&h, "refs/heads/side"));
    let stdin = format!("create refs/heads/batch {commit}\n");
    let out = crate::support::git_with_hooks_input(
        &h.repo.root(),
        h.home.path(),
        &["update-ref", "--stdin"],
        stdin.as_bytes(),
    );
    assert_aborted(&out, "commit blocked");
    assert!(!ref_exists(&h, "refs/heads/batch"));

    // fast-import writes objects and refs without any porcelain hook.
    let content = secret_line();
    let stream = format!(
        "commit refs/heads/imported\ncommitter n <n@example.com> 0 +0000\ndata 8\nimported\nM 100644 inline s.txt\ndata {}\n{content}\n",
        content.len()
    );
    let out = crate::support::git_with_hooks_input(
        &h.repo.root(),
        h.home.path(),
        &["fast-import", "--quiet"],
        stream.as_bytes(),
    );
    let text = assert_aborted(&out, "commit blocked");
    assert!(text.contains("s.txt:1: aws-access-key-id"), "{text}");
    assert!(!ref_exists(&h, "refs/heads/imported"));
    assert_eq!(h.repo.git(&["ls-files", "--stage"]), index, "nothing touched the index");
}

#[test]
fn lint_failures_and_secrets_in_messages_and_tags_cannot_land_either() {
    require_linters();
    let h = Hooked::new();
    let before = h.head();
    h.repo.write("bad.py", BAD_PY);
    h.repo.git(&["add", "bad.py"]);
    let text =
        assert_aborted(&h.git(&["commit", "-q", "--no-verify", "-m", "bad"]), "python (ruff): 1 problem");
    assert!(text.contains("bad.py:1:8: F401"), "{text}");
    assert_eq!(h.head(), before);
    h.repo.git(&["rm", "-q", "--cached", "bad.py"]);

    let message = format!("notes {}", secret_line());
    let text =
        assert_aborted(&h.git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", &message]), "blocked");
    assert!(text.contains("in the message of commit"), "{text}");
    assert_eq!(h.head(), before);

    let text = assert_aborted(&h.git(&["tag", "-a", "v1", "-m", &message]), "blocked");
    assert!(text.contains("in the tag object"), "{text}");
    assert!(!ref_exists(&h, "refs/tags/v1"));
    // A tag of a blob publishes content that is no commit: refused, not waved through.
    h.repo.write("loose.txt", &secret_line());
    let blob = h.repo.git(&["hash-object", "-w", "loose.txt"]).trim().to_owned();
    let out = h.git(&["tag", "blob-tag", &blob]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a commit"), "{}", stderr(&out));
    assert!(!ref_exists(&h, "refs/tags/blob-tag"));
    assert_passed(&h.git(&["tag", "v0"]));
    assert_passed(&h.git(&["tag", "-a", "v2", "-m", "release notes"]));
    assert!(ref_exists(&h, "refs/tags/v0") && ref_exists(&h, "refs/tags/v2"));
}

#[test]
fn what_already_landed_or_came_from_a_remote_is_not_judged_again() {
    let h = Hooked::new();
    let other = TestRepo::new();
    other.write("s.py", &secret_line()).commit_all("theirs");
    let from = other.root();
    let from = from.to_str().expect("utf-8");
    assert_passed(&h.git(&["fetch", "-q", from, "main:refs/remotes/other/main"]));
    assert_passed(&h.git(&["branch", "from-other", "refs/remotes/other/main"]));
    assert_passed(&h.git(&["checkout", "-q", "-b", "topic"]));
    h.repo.write("notes.txt", "more\n");
    assert_passed(&h.git(&["commit", "-q", "-a", "-m", "more"]));
    assert_passed(&h.git(&["reset", "-q", "--hard", "HEAD~1"]));
    assert_passed(&h.git(&["checkout", "-q", "main"]));

    // A clean merge of fetched commits brings nothing new (only what differs from every parent
    // lands); what the merge itself adds is judged.
    let merge = ["merge", "-q", "--no-edit", "--allow-unrelated-histories", "refs/remotes/other/main"];
    assert_passed(&h.git(&merge));
    h.repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let mut evil = merge.to_vec();
    evil.push("--no-commit");
    assert_passed(&h.git(&evil));
    h.repo.write("mine.py", &secret_line());
    h.repo.git(&["add", "mine.py"]);
    let text = assert_aborted(&h.git(&["commit", "-q", "--no-verify", "-m", "evil merge"]), "commit blocked");
    assert!(text.contains("mine.py:1: aws-access-key-id") && !text.contains("s.py:1"), "{text}");
}

#[test]
fn replace_refs_do_not_change_what_the_backstop_reads() {
    let h = Hooked::new();
    h.repo.write("k.py", &secret_line()).write("clean.txt", "x = 1\n");
    let blob = h.repo.git(&["hash-object", "-w", "k.py"]).trim().to_owned();
    let clean = h.repo.git(&["hash-object", "-w", "clean.txt"]).trim().to_owned();
    std::fs::remove_file(h.repo.path("clean.txt")).expect("rm");
    h.repo.git(&["replace", &blob, &clean]);
    assert_eq!(h.repo.git(&["cat-file", "-p", &blob]), "x = 1\n", "git itself now shows the stand-in");
    h.repo.git(&["add", "k.py"]);
    let text = assert_aborted(&h.git(&["commit", "-q", "--no-verify", "-m", "replaced"]), "commit blocked");
    assert!(text.contains("k.py:1: aws-access-key-id"), "the real blob is judged:\n{text}");
}

/// The linter logs the hooks wrote, by hook.
fn logs_of(h: &Hooked, hook: &str) -> usize {
    let dir = h.home.path().join(".codeguard/logs");
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(&format!("git-{hook}-")))
            .count()
    })
}

#[test]
fn a_commit_the_pre_commit_hook_passed_is_not_linted_again_one_it_did_not_see_is() {
    require_linters();
    let h = Hooked::new();
    h.repo.write("app.py", GOOD_PY);
    h.repo.git(&["add", "app.py"]);
    let text = assert_passed(&h.git(&["commit", "-q", "-m", "good"]));
    assert_eq!(text.matches("commit checked").count(), 1, "one report, not two:\n{text}");
    assert_eq!(logs_of(&h, "pre-commit"), 1, "pre-commit linted the change");
    assert_eq!(logs_of(&h, "reference-transaction"), 0, "the backstop did not lint it again");

    h.repo.write("app.py", GOOD_PY_2);
    h.repo.git(&["add", "app.py"]);
    assert_passed(&h.git(&["commit", "-q", "--no-verify", "-m", "unseen by pre-commit"]));
    assert_eq!(logs_of(&h, "reference-transaction"), 1, "the backstop linted what pre-commit never saw");
}

#[test]
fn a_reference_transaction_hook_already_there_keeps_every_state_input_and_exit_code() {
    let h = Hooked::with_commit();
    let theirs = "#!/bin/sh\nlog=\"$(dirname \"$0\")/../theirs.log\"\necho \"state $1\" >> \"$log\"\ncat >> \"$log\"\nif [ \"$1\" = prepared ] && [ -f \"$(dirname \"$0\")/../stop\" ]; then exit 3; fi\n";
    h.repo.write(".git/hooks/reference-transaction", theirs).chmod_x(".git/hooks/reference-transaction");
    let before = dir_state(&h.hooks_dir());
    let said = h.install(&[]);
    assert!(said.contains("reference-transaction: installed; the existing hook is kept"), "{said}");

    h.repo.write("notes.txt", "second\n");
    assert_passed(&h.git(&["commit", "-q", "-a", "-m", "second"]));
    let log = std::fs::read_to_string(h.repo.path(".git/theirs.log")).expect("their hook ran");
    assert!(log.contains("state prepared") && log.contains("state committed"), "{log}");
    assert!(log.contains(" refs/heads/main\n"), "their hook read the ref lines:\n{log}");

    std::fs::write(h.repo.path(".git/stop"), "").expect("stop");
    let tip = h.head();
    h.repo.write("notes.txt", "third\n");
    let out = h.git(&["commit", "-q", "-a", "-m", "third"]);
    assert_ne!(out.status.code(), Some(0), "their hook's refusal still stops git");
    assert_eq!(h.head(), tip);

    h.uninstall();
    assert_eq!(dir_state(&h.hooks_dir()), before, "uninstall puts their hook back");
}

// ---- The agent session's backstop (`codeguard install --host claude|codex`) ------------------

/// A repository with one clean commit whose own hooks (under `core.hooksPath = .hk`, as husky and
/// friends set it) log what they receive, and a home where `codeguard install --host claude`
/// ran: its settings' `env` is what Claude Code gives the agent's shell.
struct Session {
    h: Hooked,
    vars: Vec<(String, String)>,
}

impl Session {
    fn new() -> Self {
        let h = Hooked::with_commit();
        let hk = h.repo.root().join(".hk");
        std::fs::create_dir_all(&hk).expect("hooks dir");
        let log = h.repo.root().join(".git/own-hooks.log");
        let hook = |name: &str, body: &str| {
            let path = hk.join(name);
            std::fs::write(&path, format!("#!/bin/sh\nlog='{}'\n{body}", log.display())).expect("hook");
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .expect("mode");
        };
        hook("pre-commit", "echo \"pre-commit $#\" >> \"$log\"\n");
        hook(
            "commit-msg",
            "echo \"commit-msg $1\" >> \"$log\"\nif grep -q WIP \"$1\"; then echo 'no WIP commits' >&2; exit 7; fi\n",
        );
        hook("pre-push", "echo \"pre-push $1 $2\" >> \"$log\"\ncat >> \"$log\"\n");
        h.repo.git(&["config", "core.hooksPath", ".hk"]);
        std::fs::write(h.repo.root().join(".git/info/exclude"), ".hk/\n").expect("exclude");
        let out = codeguard(h.home.path())
            .args(["install", "--host", "claude"])
            .env("CODEGUARD_NO_INSTALL", "1")
            .output()
            .expect("install");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let settings: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(h.home.path().join(".claude/settings.json")).expect("settings"),
        )
        .expect("json");
        let vars: Vec<(String, String)> = settings["env"]
            .as_object()
            .expect("the install puts the backstop in the settings' env")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("string").to_owned()))
            .collect();
        assert!(vars.iter().any(|(k, v)| k == "GIT_CONFIG_KEY_0" && v == "core.hooksPath"), "{vars:?}");
        Self { h, vars }
    }

    /// git as the agent's shell runs it: with the settings' environment.
    fn git(&self, args: &[&str]) -> Output {
        let vars: Vec<(&str, &std::ffi::OsStr)> =
            self.vars.iter().map(|(k, v)| (k.as_str(), std::ffi::OsStr::new(v.as_str()))).collect();
        git_with(&self.h.repo.root(), self.h.home.path(), args, &vars)
    }

    fn own_log(&self) -> String {
        std::fs::read_to_string(self.h.repo.root().join(".git/own-hooks.log")).unwrap_or_default()
    }
}

#[test]
fn the_session_backstop_judges_every_route_and_the_repositorys_own_hooks_still_run() {
    let s = Session::new();
    let before = s.h.head();

    // A clean commit lands, and the repository's own hooks ran with their arguments.
    s.h.repo.write("ok.txt", "fine\n");
    s.h.repo.git(&["add", "ok.txt"]);
    assert_passed(&s.git(&["commit", "-q", "-m", "clean"]));
    let clean = s.h.head();
    assert_ne!(clean, before, "the clean commit landed");
    let log = s.own_log();
    assert!(log.contains("pre-commit 0") && log.contains("commit-msg .git/COMMIT_EDITMSG"), "{log}");

    // Their exit code still counts.
    s.h.repo.write("ok.txt", "fine again\n");
    s.h.repo.git(&["add", "ok.txt"]);
    let out = s.git(&["commit", "-q", "-m", "WIP stuff"]);
    assert_eq!(out.status.code(), Some(1), "git reports the hook's failure: {}", stderr(&out));
    assert!(stderr(&out).contains("no WIP commits"));
    assert_eq!(s.h.head(), clean);

    // No route lands a secret: --no-verify, and plumbing.
    s.h.repo.write("k.py", &secret_line());
    s.h.repo.git(&["add", "k.py"]);
    let index = s.h.repo.git(&["ls-files", "--stage"]);
    let text = assert_aborted(&s.git(&["commit", "-q", "--no-verify", "-m", "skip"]), "commit blocked");
    assert!(text.contains("k.py:1: aws-access-key-id") && !text.contains("Z7Q3K9X2M4P8V6B1"), "{text}");
    assert_eq!(s.h.head(), clean);
    assert_eq!(s.h.repo.git(&["ls-files", "--stage"]), index, "the index is as it was");
    let tree = s.h.repo.git(&["write-tree"]).trim().to_owned();
    let commit = s.h.repo.git(&["commit-tree", &tree, "-p", "HEAD", "-m", "plumbing"]).trim().to_owned();
    assert_aborted(&s.git(&["update-ref", "refs/heads/main", &commit]), "commit blocked");
    assert_eq!(s.h.head(), clean);

    // A push judges what leaves against what the remote has, after the repository's own pre-push
    // saw its arguments and the ref lines.
    let remote = tempfile::tempdir().expect("remote");
    git_in(remote.path(), &["init", "-q", "--bare"]);
    let url = remote.path().display().to_string();
    s.h.repo.git(&["remote", "add", "origin", &url]);
    let branch = s.h.repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    assert_passed(&s.git(&["push", "-q", "origin", &branch]));
    assert_eq!(s.h.commit_unhooked("secret, made without the session").status.code(), Some(0));
    let out = s.git(&["push", "-q", "origin", &branch]);
    let text = assert_blocked(&out, "push blocked");
    assert!(text.contains("k.py:1: aws-access-key-id"), "{text}");
    assert_eq!(git_in(remote.path(), &["rev-parse", &branch]).trim(), clean, "the remote did not move");
    let log = s.own_log();
    assert!(
        log.contains(&format!("pre-push origin {url}")) && log.contains(&format!("refs/heads/{branch} ")),
        "{log}"
    );
}

/// git runs the reference-transaction hook twice for every ref update, so the session's scripts
/// ask git for the repository's own hooks directory once and keep the answer while no git
/// configuration file changed: an ignored update then starts no process but git itself. A new
/// `core.hooksPath` is seen by the very next update.
#[test]
fn the_session_hooks_ask_git_for_the_repositorys_hooks_once_and_again_after_a_config_change() {
    let s = Session::new();
    let config = s.h.repo.root().join(".git/config");
    let age_config = || {
        let file = std::fs::File::options().append(true).open(&config).expect("config");
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(30)).expect("mtime");
    };
    age_config();
    let trace = s.h.home.path().join("trace.json");
    let processes = |args: &[&str]| {
        let _ = std::fs::remove_file(&trace);
        let mut vars: Vec<(&str, &std::ffi::OsStr)> =
            s.vars.iter().map(|(k, v)| (k.as_str(), std::ffi::OsStr::new(v.as_str()))).collect();
        vars.push(("GIT_TRACE2_EVENT", trace.as_os_str()));
        let out = git_with(&s.h.repo.root(), s.h.home.path(), args, &vars);
        assert_passed(&out);
        let text = std::fs::read_to_string(&trace).expect("trace");
        text.lines().filter(|l| l.contains(r#""event":"start""#)).count()
    };
    let first = processes(&["update-ref", "refs/remotes/origin/a", "HEAD"]);
    assert!(first > 1, "the first update asks git: {first} processes");
    for name in ["b", "c"] {
        let target = format!("refs/remotes/origin/{name}");
        assert_eq!(processes(&["update-ref", &target, "HEAD"]), 1, "only git itself runs");
    }

    // The repository moves its hooks: its own reference-transaction hook runs at once.
    let hk2 = s.h.repo.root().join(".hk2");
    std::fs::create_dir_all(&hk2).expect("dir");
    let log = s.h.repo.root().join(".git/own-hooks.log");
    let hook = hk2.join("reference-transaction");
    std::fs::write(&hook, format!("#!/bin/sh\necho \"hk2 $1\" >> '{}'\ncat > /dev/null\n", log.display()))
        .expect("hook");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("mode");
    s.h.repo.git(&["config", "core.hooksPath", ".hk2"]);
    processes(&["update-ref", "refs/remotes/origin/d", "HEAD"]);
    assert!(s.own_log().contains("hk2 prepared\nhk2 committed\n"), "{}", s.own_log());
    // Kept again once the change is older than the record, and still run.
    age_config();
    processes(&["update-ref", "refs/remotes/origin/e", "HEAD"]);
    assert_eq!(processes(&["update-ref", "refs/remotes/origin/f", "HEAD"]), 1, "kept again");
    assert_eq!(s.own_log().matches("hk2 prepared").count(), 3, "{}", s.own_log());

    // A configuration that includes other files is asked of git every time: the record cannot
    // watch what an include may name.
    s.h.repo.git(&["config", "include.path", "more.config"]);
    age_config();
    let records = s.h.home.path().join(".codeguard/git-hooks/.repositories");
    assert!(records.is_dir(), "the answers are kept under the hooks directory");
    std::fs::remove_dir_all(&records).expect("records");
    for name in ["g", "h"] {
        let target = format!("refs/remotes/origin/{name}");
        assert!(processes(&["update-ref", &target, "HEAD"]) > 1, "asked again");
    }
}

#[test]
fn the_gate_leaves_what_it_cannot_predict_to_the_session_backstop_and_denies_it_without() {
    let s = Session::new();
    let root = s.h.repo.root();
    let command = "tar xf ../vendor.tar && git add -A && git commit -m vendored";
    let calls = std::cell::Cell::new(0);
    let gate = |command: &str, env: &[(&str, &str)]| {
        // A new tool call each time (the same id would be answered from the replay record).
        calls.set(calls.get() + 1);
        let id = format!("t-{}", calls.get());
        let out = crate::support::pre_tool_use(s.h.home.path(), &root, &id, command, env);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // Without the session's environment (another host, or the backstop not arranged): denied.
    let (code, err, _) = gate(command, &[]);
    assert_eq!(code, Some(2), "an unknown writer before a commit is denied: {err}");
    assert!(
        err.contains("`tar` writes or deletes files only known at run time") && err.contains("separate call"),
        "{err}"
    );
    // With it (Claude Code gives its hooks the settings' env too): allowed, with a note.
    let vars: Vec<(&str, &str)> = s.vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (code, err, out) = gate(command, &vars);
    assert_eq!(code, Some(0), "left to the backstop: {err}{out}");
    assert!(out.contains("git backstop is in place"), "{out}");
    // A command that takes the backstop away from its own commit is denied again.
    for escape in [
        "tar xf ../vendor.tar && git add -A && env -u GIT_CONFIG_COUNT git commit -m vendored",
        "tar xf ../vendor.tar && git add -A && GIT_CONFIG_COUNT=0 git commit -m vendored",
        "tar xf ../vendor.tar && git add -A && git -c core.hooksPath=/dev/null commit -m vendored",
        "unset GIT_CONFIG_COUNT; tar xf ../vendor.tar && git add -A && git commit -m vendored",
        "tar xf ../vendor.tar && git add -A && env -i PATH=/usr/bin git commit -m vendored",
        "tar xf ../vendor.tar && git add -A && sudo git commit -m vendored",
        "tar xf ../vendor.tar && git add -A && HOME=/tmp/elsewhere git commit -m vendored",
        // The hooks directory itself (or the host's settings) rewritten first.
        "printf 'exit 0\\n' > ~/.codeguard/git-hooks/reference-transaction; tar xf ../vendor.tar && git add -A && git commit -m vendored",
        "cp /dev/null /tmp/cg-elsewhere/reference-transaction && tar xf ../vendor.tar && git add -A && git commit -m vendored",
        // Unseen code commits: it may run git with an environment of its own.
        "tar xf ../vendor.tar && git add -A && $GIT commit -m vendored",
    ] {
        let (code, err, _) = gate(escape, &vars);
        assert_eq!(code, Some(2), "{escape}: {err}");
    }
    // A known release tool runs git with the environment it was given: left to the backstop.
    let (code, err, _) = gate("cz bump --yes", &[]);
    assert_eq!(code, Some(2), "without the backstop: {err}");
    let (code, err, out) = gate("cz bump --yes", &vars);
    assert_eq!(code, Some(0), "with it: {err}{out}");
    assert!(out.contains("git backstop is in place"), "{out}");
    // A tampered hooks directory is no backstop.
    let hook = s.h.home.path().join(".codeguard/git-hooks/reference-transaction");
    std::fs::write(&hook, "#!/bin/sh\n# codeguard-managed-hook\nexit 0\n").expect("tamper");
    let (code, err, _) = gate(command, &vars);
    assert_eq!(code, Some(2), "{err}");
    // Programs known to write nothing stay allowed without any backstop.
    let (code, err, _) = gate("ls && cargo test && git add -A && git commit -m ok", &[]);
    assert_ne!(code, Some(2), "{err}");
}

#[test]
fn a_forged_remote_tracking_ref_does_not_hide_commits_from_a_new_branchs_push() {
    let h = Hooked::new();
    let remote = tempfile::tempdir().expect("remote");
    git_in(remote.path(), &["init", "-q", "--bare"]);
    h.repo.git(&["remote", "add", "origin", &remote.path().display().to_string()]);
    assert_passed(&h.git(&["push", "-q", "origin", "main"]));
    h.repo.git(&["checkout", "-q", "-b", "feature"]);
    h.repo.write("k.py", &secret_line());
    h.repo.git(&["add", "k.py"]);
    assert_eq!(h.commit_unhooked("made without hooks").status.code(), Some(0));
    let secret = h.head();
    // The agent says the remote already has that commit.
    assert_passed(&h.git(&["update-ref", "refs/remotes/origin/main", &secret]));
    let out = h.git(&["push", "-q", "origin", "feature"]);
    let text = assert_blocked(&out, "push blocked");
    assert!(text.contains("k.py:1: aws-access-key-id"), "{text}");
    let has = crate::support::git_command()
        .args(["rev-parse", "--verify", "-q", "refs/heads/feature"])
        .current_dir(remote.path())
        .output()
        .expect("git");
    assert!(!has.status.success(), "the branch did not reach the remote");
}

/// A release tool that commits by itself (commitizen's `cz bump`, run for real) cannot land a
/// staged secret past the backstop: its commit is aborted, the branch and the index stay.
#[test]
fn a_release_tool_committing_by_itself_is_stopped_by_the_backstop() {
    require_tools(&["cz"]);
    let h = Hooked::new();
    h.repo.write(
        ".cz.toml",
        "[tool.commitizen]\nname = \"cz_conventional_commits\"\nversion = \"0.1.0\"\nversion_files = [\"VERSION\"]\n",
    );
    h.repo.write("VERSION", "0.1.0\n");
    h.repo.git(&["add", ".cz.toml", "VERSION"]);
    assert_passed(&h.git(&["commit", "-q", "-m", "feat: versioned"]));
    let before = h.head();
    h.repo.write("k.py", &secret_line());
    h.repo.git(&["add", "k.py"]);
    let out = Command::new(real_tool("cz"))
        // Its own --no-verify skips the pre-commit hook, as release tools and aider do.
        .args(["bump", "--yes", "--no-verify"])
        .current_dir(h.repo.root())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", h.home.path())
        .env("CODEGUARD_HOME", h.home.path().join(".codeguard"))
        .envs(crate::support::git_env())
        .output()
        .expect("cz");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_ne!(out.status.code(), Some(0), "cz bump went ahead:\n{text}");
    assert!(
        text.contains("ref updates aborted by hook") && text.contains("k.py:1: aws-access-key-id"),
        "{text}"
    );
    assert_eq!(h.head(), before, "the branch did not move");
    assert!(h.repo.git(&["ls-files", "--stage"]).contains("k.py"), "the secret is still only staged");
}

/// Codex reads its config when a session starts: the backstop counts for a session only when
/// that session started with it (recorded by its `SessionStart` hook). A block written later —
/// by the agent typing `codeguard install --host codex`, say — is not in the running shell.
#[test]
fn codex_sessions_count_on_the_backstop_only_when_they_started_with_it() {
    let h = Hooked::with_commit();
    let root = h.repo.root();
    let out = codeguard(h.home.path())
        .args(["install", "--host", "codex"])
        .env("CODEGUARD_NO_INSTALL", "1")
        .output()
        .expect("install");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let hook = |event: &str, name: &str, session: &str, id: &str| {
        let payload = serde_json::json!({
            "session_id": session,
            "cwd": root,
            "hook_event_name": name,
            "tool_name": "Bash",
            "tool_input": {"command": "tar xf ../vendor.tar && git add -A && git commit -m vendored"},
            "tool_use_id": id,
            "source": "startup",
        });
        let out = codeguard(h.home.path())
            .args(["hook", event, "--host", "codex"])
            .write_stdin(payload.to_string())
            .output()
            .expect("hook");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let denied = |text: &str| text.contains("\"deny\"");
    let before = hook("pre-tool-use", "PreToolUse", "s-late", "t-1");
    assert!(denied(&before), "a session that did not start with the backstop: {before}");
    hook("session-start", "SessionStart", "s-new", "t-2");
    let after = hook("pre-tool-use", "PreToolUse", "s-new", "t-3");
    assert!(!denied(&after) && after.contains("git backstop is in place"), "{after}");
    let other = hook("pre-tool-use", "PreToolUse", "s-late", "t-4");
    assert!(denied(&other), "still not for the session that started before: {other}");
}

/// The allow list is a person's: in the agent's session, no route lands a change to it — the
/// porcelain commit, `hash-object` + `update-index --cacheinfo` + `commit --no-verify`, and
/// `stash create` + `update-ref` all reach the session's backstop, which judges the landing
/// commit as the agent's. The same change committed outside the session (a person's shell) lands.
#[test]
fn no_agent_route_lands_a_change_to_the_allow_list() {
    let s = Session::new();
    let clean = s.h.head();
    let allow = ".codeguard-allow";
    let blocked = |out: &Output, route: &str| {
        let text = assert_aborted(out, "commit blocked");
        assert!(text.contains("allow-list-change"), "{route}: {text}");
        assert_eq!(s.h.head(), clean, "{route}: the branch did not move");
    };

    s.h.repo.write(allow, "secret:0123456789abcdef\n");
    s.h.repo.git(&["add", allow]);
    blocked(&s.git(&["commit", "-q", "-m", "porcelain"]), "porcelain");
    s.h.repo.git(&["rm", "-q", "--cached", allow]);

    let blob = String::from_utf8_lossy(&s.git(&["hash-object", "-w", allow]).stdout).trim().to_owned();
    assert_eq!(blob.len(), 40, "hash-object wrote the blob");
    let cacheinfo = format!("100644,{blob},{allow}");
    assert!(s.git(&["update-index", "--add", "--cacheinfo", &cacheinfo]).status.success());
    blocked(&s.git(&["commit", "-q", "--no-verify", "-m", "plumbing"]), "hash-object + update-index");
    s.h.repo.git(&["rm", "-q", "--cached", allow]);

    s.h.repo.git(&["add", allow]);
    let stash = String::from_utf8_lossy(&s.git(&["stash", "create"]).stdout).trim().to_owned();
    assert_eq!(stash.len(), 40, "stash create made a commit");
    let branch = format!("refs/heads/{}", s.h.repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim());
    blocked(&s.git(&["update-ref", &branch, &stash]), "stash create + update-ref");

    // A person's own commit, outside the agent's session, lands.
    assert_passed(&s.h.git(&["commit", "-q", "-m", "reviewed allowance"]));
    assert_ne!(s.h.head(), clean, "the person's commit landed");
}

/// In the agent's session, git's backstop lints a commit that also loosens the rules with the
/// base commit's rules, whatever command made it, and names the change.
#[test]
fn the_session_backstop_lints_a_rule_change_with_the_base_rules() {
    require_tools(&["ruff"]);
    let s = Session::new();
    s.h.repo.write("ruff.toml", "[lint]\nselect = [\"F\"]\n");
    s.h.repo.git(&["add", "ruff.toml"]);
    assert_passed(&s.h.git(&["commit", "-q", "-m", "rules"]));
    let clean = s.h.head();
    s.h.repo
        .write("ruff.toml", "[lint]\nselect = [\"F\"]\nignore = [\"F401\"]\n")
        .write("bad.py", "import os\n");
    s.h.repo.git(&["add", "ruff.toml", "bad.py"]);
    let text = assert_aborted(&s.git(&["commit", "-q", "--no-verify", "-m", "loosen"]), "commit blocked");
    assert!(text.contains("bad.py:1:8: F401"), "{text}");
    assert!(
        text.contains("Linted with the base commit's rules") && text.contains("ignore = [\"F401\"]"),
        "{text}"
    );
    assert_eq!(s.h.head(), clean);
    // The person's own commit, outside the session, lands.
    assert_passed(&s.h.git(&["commit", "-q", "-m", "loosen, reviewed"]));
}
