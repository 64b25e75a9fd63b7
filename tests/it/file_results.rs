//! Per-file lint results (`cache::file_results`): a file whose clean result is known under the
//! same bytes, configuration, tool, options and trust is not linted again — by the lint after an
//! edit, the agent's gate, git's pre-commit hook or `check` — and a change to any part of the key
//! lints it again. A fake `ruff`/`shellcheck` (a script on `PATH`) logs the files it is given, so
//! each test sees exactly which files were linted.

use std::path::{Path, PathBuf};

use crate::support::{TestRepo, codeguard, json_stdout, pre_tool_use, real_tool, require_tools};

/// A fake linter named `name` in `bin` that appends the files it is given (one line per run) to
/// `log`, fails (exit 1, one finding) when a file holds `BAD`, and passes otherwise. `flavour`
/// makes a new binary (a tool upgrade).
fn fake_linter(bin: &Path, name: &str, log: &Path, flavour: &str) {
    let script = format!(
        "#!/bin/sh\n# {flavour}\nfiles=''\nfor a in \"$@\"; do case \"$a\" in -*|*=*|*' '*|check) ;; *) files=\"$files $a\" ;; esac; done\n\
         echo \"$files\" >> '{log}'\nfor f in $files; do if grep -q BAD \"$f\"; then echo \"$f:1:1: F401 bad\"; exit 1; fi; done\nexit 0\n",
        log = log.display()
    );
    let new = bin.join(format!("{name}.new"));
    std::fs::write(&new, script).expect("write");
    std::fs::set_permissions(&new, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    std::fs::rename(&new, bin.join(name)).expect("replace");
}

struct Setup {
    repo: TestRepo,
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
    log: PathBuf,
}

impl Setup {
    fn new(files: &[(&str, &str)]) -> Self {
        let repo = TestRepo::new();
        repo.write("README.txt", "hello\n");
        for (path, text) in files {
            repo.write(path, text);
        }
        repo.commit_all("init");
        let home = tempfile::tempdir().expect("home");
        let bin = tempfile::tempdir().expect("bin");
        let log = bin.path().join("log");
        fake_linter(bin.path(), "ruff", &log, "v1");
        fake_linter(bin.path(), "shellcheck", &log, "v1");
        Self { repo, home, bin, log }
    }

    fn path(&self) -> String {
        let git = real_tool("git");
        format!("{}:{}:/usr/bin:/bin", self.bin.path().display(), git.parent().expect("dir").display())
    }

    /// Everything the fake linters were given so far, one sorted list of files per run.
    fn runs(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let mut files: Vec<&str> = l.split_whitespace().collect();
                files.sort_unstable();
                files.join(" ")
            })
            .collect()
    }

    /// Runs `f`, then returns the files the linters were given meanwhile (sorted, all runs).
    fn linted(&self, f: impl FnOnce()) -> Vec<String> {
        let before = self.runs().len();
        f();
        let mut files: Vec<String> =
            self.runs()[before..].iter().flat_map(|l| l.split(' ').map(str::to_owned)).collect();
        files.retain(|f| !f.is_empty());
        files.sort();
        files
    }

    /// `check --format json` over the whole tree (the soft cache off), with extra variables: the
    /// JSON report.
    fn check(&self, env: &[(&str, &str)]) -> serde_json::Value {
        let mut cmd = codeguard(self.home.path());
        cmd.env("PATH", self.path()).env("CODEGUARD_SOFT_CACHE_TTL_SECS", "0");
        for (k, v) in env {
            cmd.env(k, v);
        }
        json_stdout(&cmd.args(["check", "--format", "json"]).arg(self.repo.root()).output().expect("check"))
    }

    /// `check --staged --format json` in the repository: the JSON report.
    fn staged(&self) -> serde_json::Value {
        let out = codeguard(self.home.path())
            .env("PATH", self.path())
            .current_dir(self.repo.root())
            .args(["check", "--staged", "--format", "json"])
            .output()
            .expect("check");
        json_stdout(&out)
    }

    /// Files linted by one whole-tree check.
    fn check_lints(&self, env: &[(&str, &str)]) -> Vec<String> {
        self.linted(|| {
            let report = self.check(env);
            assert_eq!(report["status"], "PASS", "{report}");
        })
    }

    /// The lint after the agent wrote `rel` (a Claude `PostToolUse` for `Write`) in session
    /// `session`: the hook's stdout.
    fn after_write(&self, session: &str, rel: &str, text: &str) -> String {
        self.repo.write(rel, text);
        let payload = serde_json::json!({"session_id": session, "cwd": self.repo.root(), "tool_name": "Write",
            "hook_event_name": "PostToolUse",
            "tool_input": {"file_path": self.repo.path(rel), "content": text}});
        let out = codeguard(self.home.path())
            .env("PATH", self.path())
            .current_dir(self.repo.root())
            .args(["hook", "post-tool-use"])
            .write_stdin(payload.to_string())
            .output()
            .expect("post-tool-use");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

const CLEAN: &str = "print(1)\n";

#[test]
fn each_part_of_the_key_lints_the_file_again() {
    let s = Setup::new(&[("a.py", CLEAN), ("pkg/b.py", CLEAN)]);
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "first check");
    assert!(s.check_lints(&[]).is_empty(), "nothing changed: no linter runs");
    let report = s.check(&[]);
    let python =
        report["languages"].as_array().expect("languages").iter().find(|l| l["language"] == "python");
    let python = python.unwrap_or_else(|| panic!("{report}"));
    assert_eq!((python["status"].as_str(), python["reused"].as_u64()), (Some("PASS"), Some(2)), "{report}");
    assert_eq!(python["files"].as_array().map(Vec::len), Some(2), "the reused files are still named");

    // The bytes.
    s.repo.write("a.py", "print(2)\n");
    assert_eq!(s.check_lints(&[]), ["a.py"], "the edited file only");
    // A configuration file in a directory above the file (and only there).
    s.repo.write("pkg/ruff.toml", "line-length = 100\n");
    assert_eq!(s.check_lints(&[]), ["pkg/b.py"], "configuration in pkg/ reaches pkg/b.py only");
    s.repo.write("ruff.toml", "line-length = 90\n");
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "configuration at the root reaches both");
    // A user-level configuration file the tool reads.
    let user = s.home.path().join(".config/ruff");
    std::fs::create_dir_all(&user).expect("mkdir");
    std::fs::write(user.join("ruff.toml"), "line-length = 80\n").expect("write");
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "a user configuration file");
    // A variable the tool reads.
    assert_eq!(s.check_lints(&[("RUFF_OUTPUT_FORMAT", "full")]), ["a.py", "pkg/b.py"], "RUFF_*");
    assert!(s.check_lints(&[("RUFF_OUTPUT_FORMAT", "full")]).is_empty());
    // The tool (a new binary at the same path).
    fake_linter(s.bin.path(), "ruff", &s.log, "v2");
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "a tool upgrade");
    assert!(s.check_lints(&[]).is_empty());
    // The workspace's trust: nothing proven while it was untrusted counts once it is trusted.
    let trust = || {
        let out = codeguard(s.home.path()).args(["trust"]).arg(s.repo.root()).output().expect("trust");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    trust();
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "untrusted → trusted");
    assert!(s.check_lints(&[]).is_empty());
    // The options (the project's own lint command, which runs in a trusted workspace only).
    let options = |select: &str| {
        s.repo.write(
            "codeguard.json",
            &format!(r#"{{"languages": {{"python": {{"lint": ["ruff", "check", "--no-fix", "{select}", "{{files}}"]}}}}}}"#),
        );
        trust();
    };
    options("--select=E");
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "the project's own options");
    assert!(s.check_lints(&[]).is_empty());
    options("--select=F");
    assert_eq!(s.check_lints(&[]), ["a.py", "pkg/b.py"], "other options");
    assert!(s.check_lints(&[]).is_empty());
    // --no-cache lints again.
    let again = s.linted(|| {
        let out = codeguard(s.home.path())
            .env("PATH", s.path())
            .args(["check", "--no-cache", "--format", "json"])
            .arg(s.repo.root())
            .output()
            .expect("check");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    });
    assert_eq!(again, ["a.py", "pkg/b.py"], "--no-cache");
}

#[test]
fn a_failure_or_a_file_that_changed_while_it_was_linted_is_not_kept() {
    let s = Setup::new(&[("a.py", "BAD\n")]);
    for _ in 0..2 {
        let files = s.linted(|| assert_eq!(s.check(&[])["status"], "FAIL"));
        assert_eq!(files, ["a.py"], "a failing file is linted every time");
    }
    // A linter that appends to the file it has just judged (another session writing meanwhile):
    // the bytes left behind were never judged, and must not pass as judged.
    s.repo.write("a.py", CLEAN);
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.py) echo \"$a\" >> '{log}'; echo 'print(3)' >> \"$a\" ;; esac; done\nexit 0\n",
        log = s.log.display()
    );
    std::fs::write(s.bin.path().join("ruff"), script).expect("write");
    let staged = || {
        s.repo.git(&["add", "a.py"]);
        s.linted(|| assert_eq!(s.staged()["status"], "PASS"))
    };
    assert_eq!(staged(), ["a.py"]);
    s.repo.write("a.py", &format!("{CLEAN}print(3)\n"));
    assert_eq!(staged(), ["a.py"], "the bytes the linter left behind are linted when they are committed");
    assert_eq!(staged(), ["a.py"], "and again: what a run changed is never kept");
}

#[test]
fn a_file_that_reads_another_or_a_configuration_that_does_keeps_nothing() {
    let s = Setup::new(&[
        ("lib.sh", "#!/bin/sh\nx=1\n"),
        ("run.sh", "#!/bin/sh\n. ./lib.sh\necho \"$x\"\n"),
        ("sub/a.py", CLEAN),
        ("b.py", CLEAN),
        ("sub/ruff.toml", "extend = \"../base.toml\"\n"),
        ("base.toml", "line-length = 100\n"),
    ]);
    let first = s.check_lints(&[]);
    assert_eq!(first, ["b.py", "lib.sh", "run.sh", "sub/a.py"], "{first:?}");
    assert_eq!(
        s.check_lints(&[]),
        ["run.sh", "sub/a.py"],
        "a script that sources another and a file under `extend` are linted every time"
    );
}

#[test]
fn the_edit_time_lint_spares_the_gate_git_hook_and_check_and_a_second_session_never_sees_a_stale_result() {
    let s = Setup::new(&[("a.py", CLEAN)]);
    let edits = s.linted(|| {
        s.after_write("s-1", "b.py", "print('b')\n");
        s.after_write("s-1", "c.py", "print('c')\n");
    });
    assert_eq!(edits, ["b.py", "c.py"], "the lint after each edit");
    s.repo.git(&["add", "-A"]);
    let gate = s.linted(|| {
        let out =
            pre_tool_use(s.home.path(), &s.repo.root(), "t-1", "git commit -m x", &[("PATH", &s.path())]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    });
    assert!(gate.is_empty(), "the gate lints nothing the edits proved: {gate:?}");
    let staged = s.linted(|| assert_eq!(s.staged()["status"], "PASS"));
    assert!(staged.is_empty(), "check --staged neither: {staged:?}");
    // No managed linter: the fake one on PATH is the only ruff there is.
    let install = codeguard(s.home.path())
        .env("CODEGUARD_NO_INSTALL", "1")
        .current_dir(s.repo.root())
        .args(["install", "--git-hooks"])
        .output()
        .expect("install");
    assert!(install.status.success(), "{}", String::from_utf8_lossy(&install.stderr));
    let hook = s.linted(|| {
        let out = crate::support::git_with_hooks_and(
            &s.repo.root(),
            s.home.path(),
            &["commit", "-qm", "edits"],
            &[("PATH", std::ffi::OsStr::new(&s.path()))],
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    });
    assert!(hook.is_empty(), "nor git's pre-commit hook: {hook:?}");

    // A second session writes other bytes to the same file: its own lint and the gate judge them.
    let said = s.after_write("s-2", "b.py", "BAD\n");
    assert!(said.contains("lint"), "the second session's edit is linted: {said}");
    s.repo.git(&["add", "-A"]);
    let gate = s.linted(|| {
        let out =
            pre_tool_use(s.home.path(), &s.repo.root(), "t-2", "git commit -m y", &[("PATH", &s.path())]);
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("F401"), "the gate blocks the second session's bytes: {text}");
    });
    assert_eq!(gate, ["b.py"]);
    // The first session's bytes again: their clean result stands.
    s.after_write("s-1", "b.py", "print('b')\n");
    s.repo.git(&["add", "-A"]);
    let gate = s.linted(|| {
        let out =
            pre_tool_use(s.home.path(), &s.repo.root(), "t-3", "git commit -m z", &[("PATH", &s.path())]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    });
    assert!(gate.is_empty(), "{gate:?}");
}

#[test]
fn with_the_real_ruff_a_clean_edit_does_not_let_other_bytes_through() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let path = std::env::var("PATH").unwrap_or_default();
    let write = |text: &str| {
        repo.write("app.py", text);
        let payload = serde_json::json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write",
            "hook_event_name": "PostToolUse",
            "tool_input": {"file_path": repo.path("app.py"), "content": text}});
        codeguard(home.path())
            .env("PATH", &path)
            .current_dir(repo.root())
            .args(["hook", "post-tool-use"])
            .write_stdin(payload.to_string())
            .output()
            .expect("post-tool-use")
    };
    write("print(1)\n");
    let state = codeguard(home.path()).args(["state", "show"]).output().expect("state");
    assert!(
        String::from_utf8_lossy(&state.stdout).contains("per-file lint results kept: 1"),
        "{}",
        String::from_utf8_lossy(&state.stdout)
    );
    // The same path, other bytes, staged without a lint after the edit (a shell write).
    repo.write("app.py", "import os\nprint(1)\n");
    repo.git(&["add", "app.py"]);
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m x", &[("PATH", &path)]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("F401"), "the real ruff judged the staged bytes: {text}");
}

#[test]
fn a_configuration_that_is_a_device_or_a_fifo_costs_nothing_and_keeps_nothing() {
    let s = Setup::new(&[("a.py", CLEAN), ("run.sh", "#!/bin/sh\necho hi\n")]);
    std::os::unix::fs::symlink("/dev/zero", s.repo.path("ruff.toml")).expect("symlink");
    let fifo = s.repo.path(".shellcheckrc");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    for _ in 0..2 {
        // The fake linters read no configuration: only codeguard's own reading could hang here.
        assert_eq!(s.check_lints(&[]), ["a.py", "run.sh"], "linted every time, never hanging");
    }
}
