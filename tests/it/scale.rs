//! The gate costs what the change costs: a per-file plan writes only the changed files and the
//! configuration its linters read, a project-level linter gets the whole tree, and a repository
//! far larger than any snapshot limit is still linted (no file-count cliff).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::support::{TestRepo, codeguard, gate_in, git_with_hooks, real_tool};

/// A fake linter named `name` in `bin` that records every file and link of its working directory
/// (sorted, `./`-relative) into `record`, then exits 0.
fn recorder(bin: &Path, name: &str, record: &Path) {
    let script = format!(
        "#!/bin/sh\nfind . \\( -type f -o -type l \\) -print | sed 's|^\\./||' | sort > '{}'\nexit 0\n",
        record.display()
    );
    let path = bin.join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

fn recorded(record: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(record)
        .unwrap_or_else(|e| panic!("the fake linter did not run ({e})"))
        .lines()
        .map(str::to_owned)
        .collect()
}

fn path_with(bin: &Path) -> String {
    format!("{}:/usr/bin:/bin", bin.display())
}

/// Two hundred committed files in several directories, with configuration in the root, in a
/// directory above the staged files and in an unrelated directory.
fn wide_repo() -> TestRepo {
    let repo = TestRepo::new();
    for d in 0..10 {
        for f in 0..20 {
            repo.write(&format!("d{d}/m{f}.py"), "x = 1\n");
        }
    }
    repo.write("pyproject.toml", "[tool.ruff]\nline-length = 100\n")
        .write(".yamllint", "extends: default\n")
        .write("README.md", "# r\n")
        .write("sub/.shellcheckrc", "disable=SC2034\n")
        .write("sub/pyproject.toml", "[tool.ruff]\n")
        .write("sub/unrelated.txt", "u\n")
        .write("other/pyproject.toml", "[tool.ruff]\n")
        .write("other/.shellcheckrc", "disable=SC2086\n")
        .commit_all("init");
    repo
}

/// Stages `sub/deep`, runs the agent gate on `git commit` with each of `linters` a recorder, and
/// returns what each found in its snapshot.
fn snapshots_of(repo: &TestRepo, linters: &[&str]) -> Vec<BTreeSet<String>> {
    repo.git(&["add", "sub/deep"]);
    let bin = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    for linter in linters {
        recorder(bin.path(), linter, &out.path().join(linter));
    }
    let path = path_with(bin.path());
    let (code, stdout, stderr) = gate_in(repo, "git commit -m x", &[("PATH", &path)]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    linters.iter().map(|linter| recorded(&out.path().join(linter))).collect()
}

fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

#[test]
fn a_per_file_plan_writes_only_the_changed_files_and_the_configuration_its_linters_read() {
    let repo = wide_repo();
    repo.write("sub/deep/new.py", "y = 2\n").write("sub/deep/run.sh", "#!/bin/sh\necho hi\n");
    let expected = set(&[
        "sub/deep/new.py",
        "sub/deep/run.sh",
        "pyproject.toml",
        ".yamllint",
        "sub/.shellcheckrc",
        "sub/pyproject.toml",
    ]);
    let [ruff, shellcheck] = <[_; 2]>::try_from(snapshots_of(&repo, &["ruff", "shellcheck"])).unwrap();
    assert_eq!(ruff, expected, "ruff's snapshot");
    assert_eq!(shellcheck, expected, "shellcheck's snapshot");
}

/// The changed extent is found by search: suffix patterns (`*.sln`, `*.csproj`) take entries of
/// the root only, exact names each directory above a changed file, and nothing else comes along.
#[test]
fn suffix_patterns_take_root_entries_and_exact_names_the_directories_above() {
    let repo = wide_repo();
    repo.write("App.sln", "x\n").write("sub/Lib.csproj", "<Project/>\n").commit_all("dotnet");
    repo.write("sub/deep/new.py", "y = 2\n");
    let expected = set(&[
        "sub/deep/new.py",
        "App.sln",
        "pyproject.toml",
        ".yamllint",
        "sub/.shellcheckrc",
        "sub/pyproject.toml",
    ]);
    assert_eq!(snapshots_of(&repo, &["ruff"]), [expected], "ruff's snapshot");
}

#[test]
fn a_project_level_linter_gets_the_whole_tree() {
    let repo = wide_repo();
    repo.write("go.mod", "module x\n").write("main.go", "package main\n").commit_all("go");
    repo.write("main.go", "package main\n\nfunc main() {}\n");
    repo.git(&["add", "main.go"]);
    let bin = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    recorder(bin.path(), "go", &out.path().join("go"));
    let path = path_with(bin.path());
    let (code, stdout, stderr) = gate_in(&repo, "git commit -m x", &[("PATH", &path)]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let tracked: BTreeSet<String> = repo.git(&["ls-files"]).lines().map(str::to_owned).collect();
    assert_eq!(recorded(&out.path().join("go")), tracked, "go vet sees every committed file");
}

/// A repository of `count` committed files (one blob, entered into the index directly, so the
/// test costs what git costs, not what writing `count` files costs) plus a real staged file.
fn huge_repo(count: usize) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("seed.txt", "same\n").commit_all("seed");
    let blob = repo.git(&["rev-parse", "HEAD:seed.txt"]).trim().to_owned();
    let mut lines = String::with_capacity(count * 64);
    for i in 0..count {
        let _ = writeln!(lines, "100644 {blob}\tpkg{}/f{i}.txt", i % 500);
    }
    let mut child = crate::support::git_command()
        .current_dir(repo.root())
        .args(["update-index", "--index-info"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), lines.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    repo.git(&["commit", "-q", "-m", "many files"]);
    // The worktree gets the files too: git's own pre-commit run must not see deletions.
    repo.git(&["checkout", "-q", "--", "."]);
    repo
}

#[test]
fn fifty_thousand_files_and_one_failing_staged_file_is_blocked_not_unverified() {
    let ruff = real_tool("ruff");
    let repo = huge_repo(50_000);
    repo.write("app/bad.py", "import os\n");
    repo.git(&["add", "app/bad.py"]);
    let bin = crate::support::bin_dir_with(&[&ruff]);
    let path = path_with(bin.path());
    let (code, stdout, stderr) = gate_in(&repo, "git commit -m bad", &[("PATH", &path)]);
    assert_eq!(code, Some(2), "the agent gate blocks: {stdout}{stderr}");
    assert!(stderr.contains("F401"), "the finding is named: {stderr}");
    assert!(!stderr.contains("UNVERIFIED"), "{stderr}");

    let home = tempfile::tempdir().unwrap();
    let install =
        codeguard(home.path()).current_dir(repo.root()).args(["install", "--git-hooks"]).output().unwrap();
    assert!(install.status.success(), "{}", String::from_utf8_lossy(&install.stderr));
    let head = repo.git(&["rev-parse", "HEAD"]);
    let commit = git_with_hooks(&repo.root(), home.path(), &["commit", "-q", "-m", "bad"]);
    let said = String::from_utf8_lossy(&commit.stderr);
    assert!(!commit.status.success(), "git's pre-commit hook blocks: {said}");
    assert!(said.contains("F401"), "{said}");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head, "nothing was committed");
}

#[test]
fn a_long_file_list_is_split_and_the_parts_run_at_the_same_time() {
    const SCRIPTS: usize = 200;
    let repo = TestRepo::new();
    repo.write("README.txt", "r\n").commit_all("init");
    for i in 0..SCRIPTS {
        repo.write(&format!("s/{i}.sh"), "#!/bin/sh\necho hi\n");
    }
    repo.git(&["add", "s"]);
    let bin = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    // Each part says how many files it got (its `.sh` arguments), then waits (at most 10 s) until another part has
    // started too: "together" proves they ran at the same time, without timing anything.
    let script = format!(
        "#!/bin/sh\nd='{d}'\nn=0; for a; do case $a in *.sh) n=$((n+1));; esac; done; echo $n > \"$d/args.$$\"\ntouch \"$d/start.$$\"\ni=0\nwhile [ $i -lt 200 ]; do\n  [ \"$(ls \"$d\" | grep -c '^start\\.')\" -ge 2 ] && {{ echo together > \"$d/seen.$$\"; exit 0; }}\n  sleep 0.05; i=$((i+1))\ndone\necho alone > \"$d/seen.$$\"\nexit 0\n",
        d = out.path().display()
    );
    let fake = bin.path().join("shellcheck");
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = path_with(bin.path());
    let (code, stdout, stderr) = gate_in(&repo, "git commit -m x", &[("PATH", &path)]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let read = |prefix: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(out.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
            .map(|e| std::fs::read_to_string(e.path()).unwrap().trim().to_owned())
            .collect();
        v.sort();
        v
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let args = read("args.");
    // At least one part per core (finer, so the cores stay busy), none below 32 files; one core,
    // one call.
    let sizes: Vec<usize> = args.iter().map(|a| a.parse::<usize>().unwrap()).collect();
    if cores > 1 {
        assert!(sizes.len() >= cores.min(SCRIPTS / 32), "at least a part per core: {sizes:?}");
        assert!(sizes.iter().all(|&n| n >= 32), "no part below 32 files: {sizes:?}");
    } else {
        assert_eq!(sizes.len(), 1, "one core, one call: {sizes:?}");
    }
    assert_eq!(sizes.iter().sum::<usize>(), SCRIPTS, "every file in exactly one part: {args:?}");
    if cores > 1 {
        assert!(read("seen.").iter().all(|s| s == "together"), "the parts ran at once: {:?}", read("seen."));
    }
}

/// A Go module (project-level `go vet`) in the wide repository with `main.go` changed and staged,
/// a state home, and a fake `go` that runs `script` (sh) in the snapshot.
struct GoGate {
    repo: TestRepo,
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
}

impl GoGate {
    fn new(script: &str) -> Self {
        let repo = wide_repo();
        repo.write("go.mod", "module x\n").write("main.go", "package main\n").commit_all("go");
        repo.write("main.go", "package main\n\nfunc main() {}\n");
        repo.git(&["add", "main.go"]);
        let bin = tempfile::tempdir().unwrap();
        let fake = bin.path().join("go");
        std::fs::write(&fake, format!("#!/bin/sh\n{script}\nexit 0\n")).unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        Self { repo, home: tempfile::tempdir().unwrap(), bin }
    }

    fn gate(&self) -> std::process::Output {
        let path = path_with(self.bin.path());
        crate::support::pre_tool_use(
            self.home.path(),
            &self.repo.root(),
            "t",
            "git commit -m x",
            // The test repositories are small: use the cache for them too.
            &[("PATH", &path), ("CODEGUARD_TREE_CACHE_FROM", "0")],
        )
    }

    fn entries(&self) -> Vec<std::path::PathBuf> {
        let trees = self.home.path().join(".codeguard/cache/trees");
        let mut found: Vec<_> = std::fs::read_dir(trees)
            .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.join(".complete").is_file()).collect())
            .unwrap_or_default();
        found.sort();
        found
    }

    fn head_tree(&self) -> String {
        self.repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned()
    }
}

#[test]
fn a_whole_tree_snapshot_links_unchanged_files_from_a_read_only_base_tree_cache() {
    let out = tempfile::tempdir().unwrap();
    let record = out.path().join("links");
    let g = GoGate::new(&format!("find . -type f -printf '%n %P\\n' | sort -k2 > '{}'", record.display()));
    for run in 0..2 {
        let done = g.gate();
        assert_eq!(done.status.code(), Some(0), "run {run}: {}", String::from_utf8_lossy(&done.stderr));
        let links: Vec<(String, String)> = std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .map(|l| l.split_once(' ').map(|(n, p)| (n.to_owned(), p.to_owned())).unwrap())
            .collect();
        let tracked = g.repo.git(&["ls-files"]).lines().count();
        assert_eq!(links.len(), tracked, "run {run}: the whole tree");
        for (count, path) in &links {
            if path == "main.go" {
                assert_eq!(count, "1", "run {run}: the changed file is the snapshot's own");
            } else {
                assert_eq!(count, "2", "run {run}: {path} is linked from the cache entry");
            }
        }
    }
    let entries = g.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].ends_with(g.head_tree()), "keyed by HEAD's tree id: {entries:?}");
    let mode = std::fs::metadata(entries[0].join("d0/m0.py")).unwrap().permissions();
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o444, "cached files are read-only");
    let work = g.home.path().join(".codeguard/cache/trees/work");
    assert_eq!(std::fs::read_dir(work).unwrap().count(), 0, "every snapshot was removed");
}

#[test]
fn a_linter_that_writes_through_a_link_evicts_the_cache_entry_and_the_next_run_is_correct() {
    let out = tempfile::tempdir().unwrap();
    let seen = out.path().join("seen");
    // Writes into an unchanged file (as any user could after a chmod), then records its content.
    let g = GoGate::new(&format!(
        "cat d0/m0.py >> '{seen}'\nchmod u+w d0/m0.py; echo 'tampered' >> d0/m0.py",
        seen = seen.display()
    ));
    assert_eq!(g.gate().status.code(), Some(0));
    assert!(g.entries().is_empty(), "the changed entry was evicted: {:?}", g.entries());
    assert_eq!(g.gate().status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        "x = 1\nx = 1\n",
        "both runs saw the committed content"
    );
}

#[test]
fn the_cache_keeps_at_most_four_trees_and_concurrent_gates_share_one_entry() {
    let g = GoGate::new("true");
    let path = path_with(g.bin.path());
    // Two gates at once on the same tree: both succeed, one entry.
    let spawn = || {
        let payload = serde_json::json!({
            "session_id": "s", "tool_use_id": "t", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "git commit -m x"}, "cwd": g.repo.root(),
        });
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("codeguard"))
            .args(["hook", "pre-tool-use"])
            .env_clear()
            .envs(crate::support::git_env())
            .env("CODEGUARD_HOME", g.home.path().join(".codeguard"))
            .env("HOME", g.home.path())
            .env("PATH", &path)
            .env("CODEGUARD_TREE_CACHE_FROM", "0")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), payload.to_string().as_bytes()).unwrap();
        drop(child.stdin.take());
        child
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let done = child.wait_with_output().unwrap();
        assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
    }
    assert_eq!(g.entries().len(), 1, "{:?}", g.entries());
    // Five more bases: the least recently used go beyond four.
    let mut trees = vec![g.head_tree()];
    for i in 0..5 {
        g.repo.write(&format!("d9/extra{i}.py"), "z = 3\n").commit_all("more");
        g.repo.write("main.go", &format!("package main\n\n// {i}\nfunc main() {{}}\n"));
        g.repo.git(&["add", "main.go"]);
        assert_eq!(g.gate().status.code(), Some(0));
        trees.push(g.head_tree());
    }
    let kept: Vec<String> =
        g.entries().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let mut newest: Vec<String> = trees[trees.len() - 4..].to_vec();
    newest.sort();
    assert_eq!(kept, newest, "the four most recent bases are kept");
}
