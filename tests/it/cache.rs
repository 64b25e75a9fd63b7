//! Content identity and the soft cache: every change a check could see invalidates, an
//! unchanged tree hits, and only complete results are reused.

use std::path::Path;
use std::time::Duration;

use codeguard::stages::cache::identity::{self, Budget, NoIdentity, Worktree};

use crate::support::{TestRepo, codeguard, json_stdout};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";

fn identity(repo: &TestRepo, stat_cache: &Path) -> Worktree {
    identity::worktree(&repo.root(), &Budget::default(), Some(stat_cache)).expect("identity")
}

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("a.py", GOOD_PY)
        .write("pkg/b.py", GOOD_PY)
        .write(".gitignore", "ignored/\n")
        .commit_all("init");
    repo
}

#[test]
fn every_visible_change_invalidates_the_identity() {
    let repo = repo();
    let state = tempfile::tempdir().expect("state");
    let cache = state.path().join("stat.tsv");
    let base = identity(&repo, &cache);
    assert_eq!(base.files, 3);
    assert_eq!(identity(&repo, &cache).identity, base.identity, "an unchanged tree hits");

    repo.write("a.py", "import sys\n\nprint(sys.argv, 1)\n");
    let edited = identity(&repo, &cache).identity;
    assert_ne!(edited, base.identity, "an edit to a tracked file");
    repo.write("a.py", GOOD_PY);
    assert_eq!(identity(&repo, &cache).identity, base.identity, "content, not history, is the key");

    repo.write("new.py", GOOD_PY);
    assert_ne!(identity(&repo, &cache).identity, base.identity, "an untracked file");
    std::fs::remove_file(repo.path("new.py")).expect("rm");
    repo.write("ignored/x.py", GOOD_PY);
    assert_eq!(identity(&repo, &cache).identity, base.identity, "an ignored file is not seen");

    repo.chmod_x("a.py");
    assert_ne!(identity(&repo, &cache).identity, base.identity, "a mode change");
    std::fs::set_permissions(repo.path("a.py"), std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .expect("chmod");
    assert_eq!(identity(&repo, &cache).identity, base.identity);

    repo.git(&["add", "a.py", "ignored/x.py", "-f"]);
    assert_ne!(identity(&repo, &cache).identity, base.identity, "the index");
    repo.git(&["reset", "-q"]);
    assert_eq!(identity(&repo, &cache).identity, base.identity);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
    assert_ne!(identity(&repo, &cache).identity, base.identity, "HEAD");
}

#[test]
fn same_size_and_mtime_with_other_content_is_seen_even_through_the_stat_cache() {
    let repo = repo();
    let state = tempfile::tempdir().expect("state");
    let cache = state.path().join("stat.tsv");
    // Files younger than the settle margin are always read; wait it out so the stat cache
    // records them, then prove the cache is really used.
    std::thread::sleep(codeguard::stages::cache::stat::SETTLE + Duration::from_millis(200));
    let first = identity(&repo, &cache);
    assert_eq!(first.read, 3, "the first computation reads every file");
    let second = identity(&repo, &cache);
    assert_eq!((second.identity, second.read), (first.identity, 0), "settled files come from the stat cache");

    let path = repo.path("a.py");
    let mtime = std::fs::metadata(&path).expect("meta").modified().expect("mtime");
    let same_size = GOOD_PY.replace("argv", "ARGV");
    assert_eq!(same_size.len(), GOOD_PY.len());
    std::fs::write(&path, &same_size).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(mtime)
        .expect("restore mtime");
    let meta = std::fs::metadata(&path).expect("meta");
    assert_eq!(
        (meta.len(), meta.modified().expect("mtime")),
        (GOOD_PY.len() as u64, mtime),
        "size and mtime equal"
    );
    let third = identity(&repo, &cache);
    assert_ne!(third.identity, first.identity, "the content differs, so the identity does");
    assert_eq!(third.read, 1, "only the changed file was read again");
}

#[test]
fn over_budget_or_outside_a_repository_there_is_no_identity() {
    let repo = repo();
    let tight = Budget { max_files: 2, ..Budget::default() };
    assert!(matches!(identity::worktree(&repo.root(), &tight, None), Err(NoIdentity::OverBudget { .. })));
    let small = Budget { max_bytes: 10, ..Budget::default() };
    assert!(matches!(identity::worktree(&repo.root(), &small, None), Err(NoIdentity::OverBudget { .. })));
    let plain = tempfile::tempdir().expect("plain");
    assert!(matches!(
        identity::worktree(plain.path(), &Budget::default(), None),
        Err(NoIdentity::NotARepository(_))
    ));
}

/// A fake `ruff` that counts its runs in `counter` and passes.
fn fake_ruff(bin: &Path, counter: &Path, flavour: &str) {
    let script = format!("#!/bin/sh\n# {flavour}\necho run >> '{}'\nexit 0\n", counter.display());
    std::fs::write(bin.join("ruff.new"), script).expect("write");
    std::fs::set_permissions(bin.join("ruff.new"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    std::fs::rename(bin.join("ruff.new"), bin.join("ruff")).expect("replace");
}

struct Setup {
    repo: TestRepo,
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
    counter: std::path::PathBuf,
}

impl Setup {
    fn new() -> Self {
        let repo = repo();
        let home = tempfile::tempdir().expect("home");
        let bin = tempfile::tempdir().expect("bin");
        let counter = bin.path().join("runs");
        fake_ruff(bin.path(), &counter, "v1");
        Self { repo, home, bin, counter }
    }

    /// Runs `check` with extra args; returns whether the check ran (a soft-cache miss): the
    /// linter ran, or the files' kept per-file results stood in for it.
    fn check(&self, args: &[&str], env: &[(&str, &str)]) -> bool {
        let before = self.runs();
        let mut cmd = codeguard(self.home.path());
        cmd.env("PATH", format!("{}:/usr/bin:/bin", self.bin.path().display()))
            .args(["check", "--format", "json"])
            .args(args)
            .arg(self.repo.root());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("check");
        let json = json_stdout(&out);
        let note = |start: &str| {
            json["notes"]
                .as_array()
                .expect("notes")
                .iter()
                .any(|n| n.as_str().is_some_and(|n| n.contains(start)))
        };
        let reused = note("reused the complete result");
        let ran = self.runs() > before || note("not linted again");
        assert_ne!(ran, reused, "a run is either fresh or reused: {json}");
        ran
    }

    fn runs(&self) -> usize {
        std::fs::read_to_string(&self.counter).map_or(0, |t| t.lines().count())
    }
}

#[test]
fn check_reuses_only_an_identical_complete_result() {
    let s = Setup::new();
    assert!(s.check(&[], &[]), "first run");
    assert!(!s.check(&[], &[]), "unchanged: reused");
    assert!(s.check(&["--no-cache"], &[]), "--no-cache runs");

    s.repo.write("a.py", "import sys\n\nprint(sys.argv, 2)\n");
    assert!(s.check(&[], &[]), "a tracked edit");
    assert!(!s.check(&[], &[]));
    s.repo.write("c.py", GOOD_PY);
    assert!(s.check(&[], &[]), "an untracked file");

    s.repo.write("codeguard.json", r#"{"exclude": ["^pkg/"]}"#);
    assert!(s.check(&[], &[]), "a config change");
    assert!(!s.check(&[], &[]));

    fake_ruff(s.bin.path(), &s.counter, "v2");
    assert!(s.check(&[], &[]), "a tool upgrade (binary replaced)");
    assert!(!s.check(&[], &[]));

    assert!(s.check(&["--changed"], &[]), "another lane set");
    assert!(!s.check(&["--changed"], &[]));
    assert!(!s.check(&[], &[]), "each lane set keeps its own entry");
    assert!(s.check(&["--lang", "python"], &[]), "another language subset");

    assert!(s.check(&[], &[("VIRTUAL_ENV", "/elsewhere")]), "a relevant variable");
    assert!(s.check(&[], &[("CODEGUARD_SOFT_CACHE_TTL_SECS", "0")]), "caching off");
    assert!(s.check(&[], &[("CODEGUARD_IDENTITY_MAX_FILES", "1")]), "over budget: checked, not cached");
    assert!(s.check(&[], &[("CODEGUARD_IDENTITY_MAX_FILES", "1")]));
}

#[test]
fn an_unverified_result_is_never_stored() {
    let s = Setup::new();
    s.repo.write("run.sh", "#!/bin/sh\necho hi\n");
    // shellcheck is not on this PATH: shell is UNVERIFIED, so nothing may be reused.
    assert!(s.check(&[], &[]));
    assert!(s.check(&[], &[]), "incomplete results are run again");
}
