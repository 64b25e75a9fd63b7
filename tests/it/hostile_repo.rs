//! Repositories that try to make codeguard run their code or that git itself handles
//! differently: git filter, textconv, external-diff and fsmonitor programs configured in
//! `.git/config` never run from any entry point (codeguard compares raw bytes), and SHA-256
//! repositories are checked like SHA-1 ones — never falsely blocked as "not a repository".

use std::path::PathBuf;
use std::process::Output;

use serde_json::json;

use crate::support::{assert_untouched, codeguard, git_in, pre_tool_use, require_tools};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";
/// Same size as [`GOOD_PY`], so a status must look at the content, not only at the size.
const GOOD_PY_SAME_SIZE: &str = "import sys\n\nprint(sys.path)\n";

/// Which of the repository's programs the fixture configures.
#[derive(Debug, Clone, Copy)]
enum Driver {
    /// `filter.evil.clean` and `filter.evil.smudge`.
    CleanSmudge,
    /// `filter.evil.process` (the long-running filter protocol).
    Process,
    /// `diff.evil.textconv`, `diff.evil.command`, `diff.external` and `core.fsmonitor`.
    DiffAndFsmonitor,
}

/// A repository with `* filter=evil diff=evil` committed and, configured only after every
/// file was written with plain git, programs that append to a marker file outside the
/// repository when they run.
struct Filtered {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
    _outside: tempfile::TempDir,
    marker: PathBuf,
}

impl Filtered {
    fn new(driver: Driver) -> Self {
        let dir = tempfile::tempdir().expect("repo");
        let outside = tempfile::tempdir().expect("outside");
        let marker = outside.path().join("marker");
        let script = outside.path().join("evil.sh");
        std::fs::write(&script, format!("#!/bin/sh\necho \"ran $*\" >> '{}'\ncat\n", marker.display()))
            .expect("script");
        let exits = outside.path().join("evil-process.sh");
        std::fs::write(&exits, format!("#!/bin/sh\necho ran >> '{}'\n", marker.display())).expect("script");
        for s in [&script, &exits] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(s, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let f = Self { dir, home: tempfile::tempdir().expect("home"), _outside: outside, marker };
        f.git(&["init", "-q", "-b", "main"]);
        f.write(".gitattributes", "* filter=evil diff=evil\n").write("app.py", GOOD_PY);
        f.git(&["add", "-A"]);
        f.git(&["commit", "-q", "-m", "init"]);
        f.write("app.py", GOOD_PY_SAME_SIZE).write("staged.py", GOOD_PY).write("new.py", GOOD_PY);
        f.git(&["add", "staged.py"]);
        let script = script.to_str().expect("utf-8 path");
        let config: Vec<(&str, &str)> = match driver {
            Driver::CleanSmudge => vec![("filter.evil.clean", script), ("filter.evil.smudge", script)],
            Driver::Process => vec![("filter.evil.process", exits.to_str().expect("utf-8 path"))],
            Driver::DiffAndFsmonitor => vec![
                ("diff.evil.textconv", script),
                ("diff.evil.command", script),
                ("diff.external", script),
                ("core.fsmonitor", script),
            ],
        };
        for (key, value) in config {
            f.git(&["config", key, value]);
        }
        f.git(&["config", "filter.evil.required", "true"]);
        assert!(!f.marker.exists(), "the fixture itself ran nothing");
        f
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    fn git(&self, args: &[&str]) -> String {
        git_in(self.dir.path(), args)
    }

    fn write(&self, rel: &str, content: &str) -> &Self {
        std::fs::write(self.dir.path().join(rel), content).expect("write");
        self
    }

    /// Runs one entry point, asserting the repository is untouched and no program of the
    /// repository ran.
    fn run(&self, name: &str, f: impl FnOnce() -> Output) -> Output {
        let out = assert_untouched(&self.root(), f);
        let ran = std::fs::read_to_string(&self.marker).unwrap_or_default();
        assert!(
            ran.is_empty(),
            "{name}: a program configured by the repository ran:\n{ran}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn check(&self, flags: &[&str]) -> Output {
        let name = format!("check {}", flags.join(" "));
        self.run(&name, || {
            codeguard(self.home.path()).arg("check").args(flags).arg(self.root()).output().expect("check")
        })
    }

    /// Every entry point that reads the repository, each asserted to run nothing.
    fn every_entry_point(&self) {
        let out = self.run("pre-tool-use", || {
            pre_tool_use(self.home.path(), &self.root(), "t-1", "git add -A && git commit -m x", &[])
        });
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let payload = json!({"session_id": "s-1", "cwd": self.root(), "source": "startup"});
        self.run("session-start", || {
            codeguard(self.home.path())
                .args(["hook", "session-start"])
                .write_stdin(payload.to_string())
                .output()
                .expect("session-start")
        });
        for flags in [&[][..], &["--changed"], &["--staged"], &["--all"]] {
            let out = self.check(flags);
            assert_eq!(
                out.status.code(),
                Some(0),
                "check {flags:?}: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        let out = self.run("git-hook pre-commit", || {
            codeguard(self.home.path())
                .current_dir(self.root())
                .args(["git-hook", "pre-commit"])
                .output()
                .expect("git-hook")
        });
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn clean_and_smudge_filters_never_run() {
    require_tools(&["ruff"]);
    Filtered::new(Driver::CleanSmudge).every_entry_point();
}

#[test]
fn a_long_running_filter_process_never_runs() {
    require_tools(&["ruff"]);
    Filtered::new(Driver::Process).every_entry_point();
}

#[test]
fn textconv_external_diff_and_fsmonitor_never_run() {
    require_tools(&["ruff"]);
    Filtered::new(Driver::DiffAndFsmonitor).every_entry_point();
}

#[test]
fn a_worktree_change_is_still_seen_when_filters_are_configured() {
    require_tools(&["ruff"]);
    let f = Filtered::new(Driver::CleanSmudge);
    // Rewritten with the same bytes: not a change.
    f.write(".gitattributes", "* filter=evil diff=evil\n");
    let out = f.run("explain", || {
        codeguard(f.home.path())
            .args(["explain", "--format", "json", "--cwd"])
            .arg(f.root())
            .args(["--", "git add -A && git commit -m x"])
            .output()
            .expect("explain")
    });
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["repos"][0]["paths"], json!(["app.py", "new.py", "staged.py"]), "{v}");
    f.write("app.py", BAD_PY);
    let out = f.check(&["--changed"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("app.py:1:8: F401"));
}

/// A repository created with `git init --object-format=sha256`, one commit, and the state home.
struct Sha256 {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Sha256 {
    fn new() -> Self {
        let s = Self { dir: tempfile::tempdir().expect("repo"), home: tempfile::tempdir().expect("home") };
        s.git(&["init", "-q", "-b", "main", "--object-format=sha256"]);
        std::fs::write(s.dir.path().join("README.txt"), "hello\n").expect("write");
        s.git(&["add", "-A"]);
        s.git(&["commit", "-q", "-m", "init"]);
        s
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical")
    }

    fn git(&self, args: &[&str]) -> String {
        git_in(self.dir.path(), args)
    }

    fn stage(&self, rel: &str, content: &str) {
        std::fs::write(self.dir.path().join(rel), content).expect("write");
        self.git(&["add", rel]);
    }

    fn pre_commit(&self) -> Output {
        assert_untouched(&self.root(), || {
            codeguard(self.home.path())
                .current_dir(self.root())
                .args(["git-hook", "pre-commit"])
                .output()
                .expect("git-hook")
        })
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn sha256_repositories_are_checked_by_the_agent_gate() {
    require_tools(&["ruff"]);
    let s = Sha256::new();
    s.stage("app.py", BAD_PY);
    let out =
        assert_untouched(&s.root(), || pre_tool_use(s.home.path(), &s.root(), "t-1", "git commit -m x", &[]));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("not inside a git repository"), "{stderr}");
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("codeguard: commit blocked — python (ruff): 1 problem"), "{stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");

    s.stage("app.py", GOOD_PY);
    let out = assert_untouched(&s.root(), || {
        pre_tool_use(s.home.path(), &s.root(), "t-2", "git add -A && git commit -m x", &[])
    });
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), String::new()));
}

#[test]
fn sha256_repositories_are_checked_by_the_git_hooks() {
    require_tools(&["ruff"]);
    let s = Sha256::new();
    s.stage("app.py", BAD_PY);
    let out = s.pre_commit();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("app.py:1:8: F401"), "{stderr}");
    let out = codeguard(s.home.path()).args(["check", "--staged"]).arg(s.root()).output().expect("check");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("app.py:1:8: F401"), "{}", text(&out.stdout));

    s.stage("app.py", GOOD_PY);
    let out = s.pre_commit();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    s.git(&["commit", "-q", "-m", "app", "--no-verify"]);

    let remote = tempfile::tempdir().expect("remote");
    git_in(remote.path(), &["init", "-q", "--bare", "--object-format=sha256"]);
    let head = s.git(&["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(head.len(), 64, "a SHA-256 object id");
    let zero = "0".repeat(64);
    let out = codeguard(s.home.path())
        .current_dir(s.root())
        .args(["git-hook", "pre-push", "origin"])
        .arg(remote.path())
        .write_stdin(format!("refs/heads/main {head} refs/heads/main {zero}\n"))
        .output()
        .expect("pre-push");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A repository codeguard cannot read is never a silent pass: a commit there is denied as
/// uncheckable (it used to be allowed with an UNVERIFIED note while the secret landed).
#[test]
fn a_repository_codeguard_cannot_read_is_denied_not_passed() {
    let secret = format!("aws_access_key_id = {}{}\n", "AKIA", "Z7Q3K9X2M4P8V6B1");
    let home = tempfile::tempdir().expect("home");
    let base = tempfile::tempdir().expect("dir");
    // reftable refs (git 2.45+).
    let rt = base.path().join("rt");
    std::fs::create_dir(&rt).expect("dir");
    git_in(&rt, &["init", "-q", "--ref-format=reftable"]);
    std::fs::write(rt.join("s.txt"), &secret).expect("write");
    git_in(&rt, &["add", "s.txt"]);
    // A git directory whose core.worktree is elsewhere, committed to from the git directory.
    let gd = base.path().join("gd");
    let wt = base.path().join("wt");
    std::fs::create_dir_all(&wt).expect("dir");
    std::fs::create_dir(&gd).expect("dir");
    git_in(&gd, &["init", "-q"]);
    git_in(&gd, &["config", "core.worktree", &wt.display().to_string()]);
    std::fs::write(wt.join("s.txt"), &secret).expect("write");
    git_in(&wt, &["--git-dir", &gd.join(".git").display().to_string(), "add", "s.txt"]);
    for (cwd, command) in [
        (rt.clone(), "git commit -m x".to_owned()),
        (base.path().to_path_buf(), format!("cd {} && git commit -m x", gd.display())),
    ] {
        let out = pre_tool_use(home.path(), &cwd, &format!("t-{}", command.len()), &command, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}{}", String::from_utf8_lossy(&out.stdout));
        assert!(stderr.contains("codeguard cannot read this repository"), "{stderr}");
    }
}

#[test]
fn terminal_escapes_in_file_names_and_linter_output_never_reach_a_terminal_raw() {
    require_tools(&["ruff"]);
    // A file name and a line that would retitle the terminal, clear it and paint it red.
    let name = "evil\x1b]0;pwned\x07\x1b[2J.py";
    let repo = crate::support::repo_with(&[(name, "import os  # \x1b[31mred\x1b[0m\n")]);
    repo.git(&["add", "-A"]);
    let (code, stdout, stderr) = crate::support::gate_in(&repo, "git commit -m x", &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains(['\x1b', '\x07']) && !stdout.contains('\x1b'), "raw control bytes: {stderr:?}");
    assert!(stderr.contains("evil\\x1b]0;pwned\\x07\\x1b[2J.py"), "shown, not obeyed: {stderr}");
    let home = tempfile::tempdir().expect("home");
    let out =
        codeguard(home.path()).current_dir(repo.root()).args(["check", "--staged"]).output().expect("check");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(!text.contains(['\x1b', '\x07']), "raw control bytes in check's output: {text:?}");
}

#[test]
fn an_agent_cannot_loosen_codeguards_own_controls() {
    let repo = crate::support::repo_with(&[("a.txt", "x\n")]);
    for command in [
        "codeguard trust .",
        "cd . && codeguard untrust /elsewhere",
        "codeguard uninstall --host claude",
        "sh -c 'codeguard state clear'",
        "bash -c \"codeguard tools remove --lang python\"",
        "codeguard install --git-hooks --force",
        "/usr/local/bin/codeguard trust .",
        "env FOO=1 codeguard trust .",
        "sub=trust; codeguard $sub .",
        "CODEGUARD_SKIP_GATE=1 git commit -m x",
        "export CODEGUARD_HOME=/tmp/elsewhere; git commit -m x",
        "env CODEGUARD_STRICT=0 git push",
        "CODEGUARD_NO_INSTALL=1",
    ] {
        let (code, _, stderr) = crate::support::gate_in(&repo, command, &[]);
        assert_control_block(code, command, &stderr);
    }
    for command in [
        "codeguard check --staged",
        "codeguard doctor",
        "codeguard explain 'git commit'",
        "codeguard state show",
    ] {
        let (code, stdout, stderr) = crate::support::gate_in(&repo, command, &[]);
        assert_eq!(code, Some(0), "{command}: {stdout}{stderr}");
        assert!(!stderr.contains("own controls"), "{command}: {stderr}");
    }
}

/// The agent gate on real commits: a Kubernetes Secret's base64 value and a kubeconfig's
/// encoded client key are blocked; the documented AWS example key, a `ghp_xxxx…` placeholder and
/// a path-valued `private_key` go through.
#[test]
fn encoded_secrets_block_and_documented_look_alikes_pass() {
    let b64 = |text: &str| {
        let out = std::process::Command::new("base64")
            .arg("-w0")
            .arg("/dev/stdin")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let mut child = out.expect("base64");
        std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), text.as_bytes()).expect("write");
        String::from_utf8(child.wait_with_output().expect("base64").stdout).expect("ascii")
    };
    let password = ["Zq8", "LmT2vX9pR4kWn7"].concat();
    let key = ["-----BEGIN RSA ", "PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n"].concat();
    for (path, text, blocked) in [
        ("secret.yaml", format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {}\n", b64(&password)), true),
        ("kubeconfig", format!("users:\n- name: admin\n  user:\n    client-key-data: {}\n", b64(&key)), true),
        ("aws.cfg", "aws_access_key_id=AKIAIOSFODNN7EXAMPLE\naws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n".to_owned(), false),
        ("fixture.py", format!("TOKEN = \"ghp_{}\"\n", "x".repeat(36)), false),
        ("settings.ini", "[tls]\nprivate_key = \"/etc/ssl/private/server.pem\"\n".to_owned(), false),
    ] {
        let repo = crate::support::TestRepo::new();
        repo.write("README.txt", "hello\n").commit_all("init");
        repo.write(path, &text);
        repo.git(&["add", path]);
        let (code, stdout, stderr) = crate::support::gate_in(&repo, "git commit -m x", &[]);
        if blocked {
            assert_eq!(code, Some(2), "{path} must block: {stdout}{stderr}");
            assert!(!stderr.contains(&password), "the secret is never echoed: {stderr}");
        } else {
            assert_eq!(code, Some(0), "{path} must pass: {stdout}{stderr}");
        }
    }
}

/// codeguard's git settings are the user's: an agent's `git config` that sets or unsets a
/// `codeguard.*` key (any file: repository, `--global`), `core.hooksPath`, a key known only at
/// run time, or `--edit`, is blocked before anything runs; reading them, and other keys, pass.
#[test]
fn the_agent_cannot_change_codeguards_git_settings() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    for cmd in [
        "git config codeguard.skipGate true",
        "git config --global codeguard.skipGate true",
        "git config codeguard.strict false",
        "git config --unset codeguard.strict",
        "git config unset codeguard.strict",
        "git config core.hooksPath /dev/null",
        "git -C . config --local core.hookspath .nohooks",
        "git config \"$KEY\" true",
        "git config --edit",
        "git config --global include.path /tmp/evil.cfg",
        "git config includeIf.gitdir:~/.path ../evil.cfg",
        "printf '[codeguard]\\n\\tskipGate = true\\n' >> .git/config",
        "echo '[core] hooksPath = /dev/null' >> ~/.gitconfig",
        "sed -i s/strict/x/ .git/config",
        "cd . && git config codeguard.skipGate 1 && echo done",
    ] {
        let (code, _, stderr) = crate::support::gate_in(&repo, cmd, &[]);
        assert_control_block(code, cmd, &stderr);
    }
    for cmd in ["git config --get codeguard.skipGate", "git config user.name Someone", "git config -l"] {
        let (code, _, stderr) = crate::support::gate_in(&repo, cmd, &[]);
        assert_eq!(code, Some(0), "{cmd}: {stderr}");
    }
}

/// Runs `codeguard ARGS` (an install) in `repo`, which must succeed.
fn install_in(home: &std::path::Path, repo: &std::path::Path, args: &[&str]) {
    let out = codeguard(home).current_dir(repo).args(args).output().expect("install");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The pre-tool-use gate's exit code and stderr for an agent's shell command in `repo`, which it
/// must leave untouched.
fn gate_in(home: &std::path::Path, repo: &std::path::Path, command: &str) -> (Option<i32>, String) {
    let out = assert_untouched(repo, || crate::support::pre_tool_use(home, repo, "t-1", command, &[]));
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// codeguard's own files are the user's: an agent's shell command that removes, moves, rewrites
/// or `chmod`s codeguard's state directory, a git hook it installed, or an agent host's settings
/// holding its hooks is blocked before anything runs; the same commands on other files pass.
#[test]
fn the_agent_cannot_change_codeguards_own_files() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let run = |args: &[&str]| install_in(home.path(), &repo.root(), args);
    run(&["install", "--git-hooks"]);
    run(&["install", "--host", "claude"]);
    std::fs::create_dir_all(home.path().join(".codeguard")).expect("state dir");
    std::fs::write(home.path().join(".claude/notes.md"), "mine\n").expect("notes");
    let gate = |command: &str| gate_in(home.path(), &repo.root(), command);
    for command in [
        "rm -rf ~/.codeguard",
        "rm -rf \"$HOME/.codeguard\"",
        "rm .git/hooks/pre-commit",
        "chmod -x .git/hooks/reference-transaction",
        "mv .git/hooks .git/hooks.off",
        "echo '{}' > ~/.claude/settings.json",
        "sed -i s/codeguard/true/ ~/.claude/settings.json",
        "echo ok && rm -f .git/hooks/pre-push",
        // Relative to the home directory the agent moved to.
        "cd ~ && rm -rf .codeguard",
        "cd && rm -rf .codeguard",
        "cd \"$HOME\" && echo '{}' > .claude/settings.json",
        "cd ${HOME}/.codeguard && rm -rf *",
        "(cd /tmp && cd ~/.claude && rm settings.json)",
        "pushd ~ && rm -rf .codeguard; popd",
        "rm -rf ~",
        // Programs that may write, handed codeguard's own paths (or code naming them).
        "tar -C ~/.codeguard -xf evil.tar",
        "unzip -o evil.zip -d ~/.codeguard",
        "find ~/.codeguard -delete",
        "find .git/hooks -name 'pre-*' -delete",
        "python3 -c \"import shutil; shutil.rmtree('$HOME/.codeguard')\"",
        "node -e \"require('fs').rmSync(process.env.HOME+'/.codeguard',{recursive:true})\"",
        "perl -e 'unlink glob(\"~/.codeguard/*\")'",
        "./tool.sh ~/.codeguard",
        // Any settings file of the host can switch codeguard's hooks off.
        "mkdir -p .claude && echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
        // A switch put where later shells pick it up.
        "echo 'export CODEGUARD_SKIP_GATE=1' >> ~/.bashrc",
        "printf 'GIT_CONFIG_COUNT=0\\n' > .envrc",
    ] {
        let (code, stderr) = gate(command);
        assert_control_block(code, command, &stderr);
    }
    // The program itself, by its path.
    let program = assert_cmd::cargo::cargo_bin("codeguard");
    for command in [format!("chmod -x {}", program.display()), format!("mv {0} {0}.off", program.display())] {
        let (code, stderr) = gate(&command);
        assert_control_block(code, &command, &stderr);
        assert!(stderr.contains("the codeguard program"), "{command}: {stderr}");
    }
    for command in [
        "echo x > ~/.claude/notes.md",
        "rm -f .git/hooks/pre-merge-commit",
        "echo x > notes.txt",
        "cd ~ && rm -f .claude/notes.md",
        "cd ~ && cd /tmp && rm -rf .codeguard",
        "cat ~/.codeguard/audit.jsonl",
        "ls -la ~/.codeguard .git/hooks",
        "find ~/.codeguard -name '*.json'",
        "find . -name '*.pyc' -delete",
        "tar -xf release.tar -C build",
        "echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc",
        "echo 'DATABASE_URL=postgres://localhost/db' > .env",
    ] {
        let (code, stderr) = gate(command);
        assert_eq!(code, Some(0), "{command}: {stderr}");
    }
}

/// The host's own file-writing tools never reach the shell gate: codeguard's pre-tool-use hook
/// sees them too (its installed matcher names them), and a write to one of codeguard's own files
/// through them is refused like the same write from the shell; other writes pass untouched.
#[test]
fn the_hosts_edit_tools_cannot_change_codeguards_own_files() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    for args in
        [&["install", "--git-hooks"][..], &["install", "--host", "claude"], &["install", "--host", "gemini"]]
    {
        let out = codeguard(home.path()).current_dir(repo.root()).args(args).output().expect("install");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::create_dir_all(home.path().join(".codeguard")).expect("state dir");
    let settings = home.path().join(".claude/settings.json");
    let installed = std::fs::read_to_string(&settings).expect("settings");
    assert!(
        installed.contains("Write|Edit|MultiEdit|NotebookEdit\"")
            && installed.matches("Write|Edit").count() >= 2,
        "the pre-tool-use matcher names the edit tools: {installed}"
    );
    let hooks = repo.root().join(".git/hooks/pre-commit");
    let write = |host: &str, tool: &str, key: &str, path: &std::path::Path| {
        let payload = serde_json::json!({
            "session_id": "s-1", "hook_event_name": "PreToolUse", "cwd": repo.root(),
            "tool_name": tool, "tool_input": {key: path, "content": "{}"},
        });
        let out = assert_untouched(&repo.root(), || {
            codeguard(home.path())
                .args(["hook", "pre-tool-use", "--host", host])
                .write_stdin(payload.to_string())
                .output()
                .expect("hook")
        });
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // Any settings file of a host codeguard is installed for can switch every hook off.
    let local = repo.root().join(".claude/settings.local.json");
    for (host, tool, key) in [
        ("claude", "Write", "file_path"),
        ("claude", "Edit", "file_path"),
        ("gemini", "write_file", "file_path"),
    ] {
        for path in [
            settings.clone(),
            hooks.clone(),
            home.path().join(".codeguard/trust.json"),
            std::path::PathBuf::from(".git/hooks/pre-commit"),
            local.clone(),
            home.path().join(".gemini/settings.json"),
        ] {
            let (code, stderr) = write(host, tool, key, &path);
            let what = format!("{host} {tool} {}", path.display());
            assert_eq!(code, Some(2), "{what}: {stderr}");
            assert!(
                stderr.contains("changes codeguard's own controls")
                    && stderr.contains("This file write was NOT made"),
                "{what}: {stderr}"
            );
        }
        for path in [
            home.path().join(".claude/notes.md"),
            repo.root().join("src/hooks.py"),
            repo.root().join("a.txt"),
            repo.root().join(".claude/commands/review.md"),
            repo.root().join(".cursor/hooks.json"),
        ] {
            let (code, stderr) = write(host, tool, key, &path);
            assert_eq!((code, stderr.as_str()), (Some(0), ""), "{host} {tool} {}", path.display());
        }
    }
}

/// The gate blocked `command` as a change to codeguard's own controls, telling the agent to ask
/// the user to run it.
fn assert_control_block(code: Option<i32>, command: &str, stderr: &str) {
    assert_eq!(code, Some(2), "{command}: {stderr}");
    assert!(stderr.contains("changes codeguard's own controls"), "{command}: {stderr}");
    assert!(stderr.contains("ask the user to run it in their own terminal"), "{command}: {stderr}");
}

/// An agent that is blocked by a lint rule cannot switch the rule off in the same commit: a
/// commit that changes rule configuration (`ruff.toml`, `pyproject.toml`'s `[tool.ruff]`,
/// `codeguard.json`, `.gitattributes`) together with other files is linted with the base
/// commit's rules, and the change is named. Configuration alone is let through, named to the
/// user and recorded; a change outside the rules (a version bump) says nothing; a person's own
/// commit through git's hook is judged with its new rules.
#[test]
fn a_commit_that_switches_a_rule_off_is_judged_with_the_base_rules() {
    crate::support::require_tools(&["ruff"]);
    let bad = "import os\n";
    let cases: [(&str, &str, &str, &str); 5] = [
        (
            "ruff.toml",
            "[lint]\nselect = [\"E\", \"F\"]\n",
            "[lint]\nselect = [\"E\", \"F\"]\nignore = [\"F401\"]\n",
            "ignore = [\"F401\"]",
        ),
        (
            "pyproject.toml",
            "[project]\nname = \"a\"\nversion = \"1\"\n\n[tool.ruff.lint]\nselect = [\"F\"]\n",
            "[project]\nname = \"a\"\nversion = \"2\"\n\n[tool.ruff.lint]\nselect = [\"F\"]\nper-file-ignores = {\"bad.py\" = [\"F401\"]}\n",
            "per-file-ignores",
        ),
        ("codeguard.json", "{}\n", "{\"exclude\": [\"bad.py\"]}\n", "\"exclude\""),
        (".gitattributes", "*.txt text\n", "*.txt text\nbad.py linguist-vendored\n", "linguist-vendored"),
        ("ruff.toml", "[lint]\nselect = [\"F\"]\n", "[lint]\nselect = [\"E\"]\n", "- select = [\"F\"]"),
    ];
    for (file, base, loosened, named) in cases {
        let repo = crate::support::TestRepo::new();
        repo.write("README.txt", "hello\n")
            .write(file, base)
            .write("app.py", "print(1)\n")
            .commit_all("init");
        repo.write(file, loosened).write("bad.py", bad);
        repo.git(&["add", file, "bad.py"]);
        let (code, stdout, stderr) = crate::support::gate_in(&repo, "git commit -m loosen", &[]);
        assert_eq!(code, Some(2), "{file}: the base rules still fail bad.py: {stdout}{stderr}");
        assert!(stderr.contains("bad.py:1:8: F401"), "{file}: {stderr}");
        assert!(
            stderr.contains("Linted with the base commit's rules") && stderr.contains(named),
            "{file}: the rule change is named: {stderr}"
        );
        // A person's own commit, through git's hook, uses the rules it commits.
        let home = tempfile::tempdir().expect("home");
        let hook = codeguard(home.path())
            .current_dir(repo.root())
            .args(["git-hook", "pre-commit"])
            .output()
            .expect("hook");
        let said = String::from_utf8_lossy(&hook.stderr);
        if file == "ruff.toml" && named.starts_with('-') {
            continue; // select = ["E"] drops F for the person too: nothing to compare
        }
        assert_eq!(
            hook.status.code(),
            Some(0),
            "{file}: a person's commit is judged with its new rules: {said}"
        );
    }
}

/// Configuration committed alone is let through, but named: to the agent, to the user (the
/// host's user message), in `codeguard state show` and in the Stop summary. A change that
/// leaves the rules alone (a version bump in `pyproject.toml`) says nothing.
#[test]
fn a_rule_change_committed_alone_is_shown_to_the_user() {
    let repo = crate::support::TestRepo::new();
    repo.write("README.txt", "hello\n")
        .write(".shellcheckrc", "shell=bash\n")
        .write("pyproject.toml", "[project]\nname = \"a\"\nversion = \"1\"\n")
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let gate = |command: &str| {
        let out = assert_untouched(&repo.root(), || {
            crate::support::pre_tool_use(home.path(), &repo.root(), "t-1", command, &[])
        });
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    repo.write("pyproject.toml", "[project]\nname = \"a\"\nversion = \"2\"\n");
    repo.git(&["add", "pyproject.toml"]);
    assert_eq!(gate("git commit -m bump"), (Some(0), String::new()), "a version bump is no rule change");
    repo.git(&["reset", "-q"]);
    repo.write(".shellcheckrc", "shell=bash\ndisable=SC2086,SC2046\n");
    repo.git(&["add", ".shellcheckrc"]);
    let (code, stdout) = gate("git commit -m 'relax shellcheck'");
    assert_eq!(code, Some(0), "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("context");
    let context = v["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
    let user = v["systemMessage"].as_str().unwrap_or_default();
    assert!(context.contains(".shellcheckrc: + disable=SC2086,SC2046"), "{context}");
    assert!(
        user.contains("changes lint rules") && user.contains("disable=SC2086"),
        "the user sees it: {user}"
    );
    let shown = codeguard(home.path()).args(["state", "show"]).output().expect("state");
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("lint rule changes let through: 1") && shown.contains(".shellcheckrc"), "{shown}");
    let stop = serde_json::json!({"session_id": "s-1", "cwd": repo.root(), "stop_hook_active": false});
    let out =
        codeguard(home.path()).args(["hook", "stop"]).write_stdin(stop.to_string()).output().expect("stop");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("changes to the linters' configuration") && summary.contains(".shellcheckrc"),
        "{summary}"
    );
}

/// What the shell hands git depends on its options and `IFS`: with `shopt -s nocaseglob` the
/// glob `*.PY` takes `secret.py`, and with `IFS=,` the word `$f` splits into two paths. Neither
/// is what a default shell would pass, so the words are only known at run time: every change
/// they could name is scanned, and the staged secret blocks.
#[test]
fn shell_options_and_ifs_that_change_the_words_git_gets_are_not_guessed() {
    let repo = crate::support::TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    let aws = ["AKIA", "Z7Q3K9X2M4P8V6B1"].concat();
    repo.write("secret.py", &format!("aws = \"{aws}\"\n")).write("ok.txt", "ok\n");
    for command in [
        "shopt -s nocaseglob; git add *.PY && git commit -m x",
        "shopt -s extglob; git add !(README.txt) && git commit -m x",
        "IFS=,; f=\"ok.txt,secret.py\"; git add $f && git commit -m x",
    ] {
        let (code, _, stderr) = crate::support::gate_in(&repo, command, &[]);
        assert_eq!(code, Some(2), "{command}: {stderr}");
        assert!(stderr.contains("secret.py:1: aws-access-key-id"), "{command}: {stderr}");
    }
    // The default shell: `*.PY` matches nothing, `$f` is one word.
    for command in ["git add *.PY && git commit -m x", "f=ok.txt; git add $f && git commit -m x"] {
        let (code, _, stderr) = crate::support::gate_in(&repo, command, &[]);
        assert_eq!(code, Some(0), "{command}: {stderr}");
    }
}

/// `git push --recurse-submodules=on-demand` (or `push.recurseSubmodules` so set) also pushes
/// the submodules' own commits, which the gate does not read: the push is let through only with
/// that said (UNVERIFIED), never silently; `=check` pushes none and says nothing.
#[test]
fn a_push_that_also_pushes_submodules_says_what_it_did_not_judge() {
    let remote = tempfile::tempdir().expect("remote");
    crate::support::git_in(remote.path(), &["init", "-q", "--bare"]);
    let repo = crate::support::TestRepo::new();
    repo.write("README.txt", "hello\n")
        .write(".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = ../lib.git\n")
        .commit_all("init");
    let url = remote.path().display().to_string();
    repo.git(&["remote", "add", "origin", &url]);
    let branch = repo.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim().to_owned();
    repo.git(&["push", "-q", "-u", "origin", &branch]);
    repo.write("more.txt", "more\n").commit_all("more");
    let note = "also pushes the submodules' own commits";
    for (command, said) in [
        ("git push --recurse-submodules=on-demand".to_owned(), true),
        (format!("git push --recurse-submodules=check origin {branch}"), false),
        ("git push".to_owned(), false),
    ] {
        let (code, stdout, stderr) = crate::support::gate_in(&repo, &command, &[]);
        assert_eq!(code, Some(0), "{command}: {stderr}");
        assert_eq!(stdout.contains(note) && stdout.contains("UNVERIFIED"), said, "{command}: {stdout}");
    }
    repo.git(&["config", "push.recurseSubmodules", "on-demand"]);
    let (code, stdout, _) = crate::support::gate_in(&repo, "git push", &[]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains(note), "the configuration pushes them too: {stdout}");
}

/// The plugin hosts' and Cline's files of codeguard's own (a plugin module, an extension, a hook
/// script named as an event, dsh's patch layer) are as protected as a settings file: an agent's
/// command that removes or rewrites one, or puts another plugin where the host loads every file
/// (it could change a call after codeguard judged it), is blocked; the user's other files are not.
#[test]
fn the_agent_cannot_take_away_codeguards_plugins_and_hook_scripts() {
    let repo = crate::support::TestRepo::new();
    repo.write("a.txt", "x\n").commit_all("init");
    let home = tempfile::tempdir().expect("home");
    let run = |args: &[&str]| install_in(home.path(), &repo.root(), args);
    for host in ["opencode", "pi", "cline"] {
        run(&["install", "--host", host]);
    }
    std::fs::write(home.path().join(".cline/notes.txt"), "mine\n").expect("notes");
    // A config directory with more files than the gate walks (opencode installs packages there).
    let packages = home.path().join(".config/opencode/node_modules/a");
    std::fs::create_dir_all(&packages).expect("packages");
    for i in 0..600 {
        std::fs::write(packages.join(format!("f{i}.js")), "x\n").expect("package file");
    }
    std::fs::create_dir_all(home.path().join(".dsh")).expect("dsh");
    std::fs::write(
        home.path().join(".dsh/cordis.patch.yml"),
        "# codeguard:begin — managed by `codeguard install --host dsh`; `codeguard uninstall --host dsh` removes it\n- insert: []\n# codeguard:end\n",
    )
    .expect("layer");
    let gate = |command: &str| gate_in(home.path(), &repo.root(), command);
    for command in [
        "rm ~/.config/opencode/plugin/codeguard.js",
        "rm -rf ~/.config/opencode",
        "rm -rf ~/.config",
        "echo 'export default () => ({})' > ~/.config/opencode/plugin/codeguard.js",
        "rm -rf ~/.pi/agent/extensions",
        "rm ~/.cline/hooks/PreToolUse",
        "rm ~/.cline/hooks/*",
        "mv ~/.cline/hooks/Pre* /tmp/",
        "rm ~/.config/opencode/plugin/code*.js",
        "rm -rf ~/.cline/hooks",
        "echo '[]' > ~/.dsh/cordis.patch.yml",
        // pi's settings can leave the extension out.
        "echo '{\"extensions\": [\"-extensions/codeguard.js\"]}' > ~/.pi/agent/settings.json",
        // Another plugin beside codeguard's could change a call after it was judged.
        "echo 'export default () => ({})' > .opencode/plugin/other.js",
        "cp evil.js ~/.pi/agent/extensions/",
        "cp evil.js ~/.config/opencode/plugins/evil.js",
        "printf '#!/bin/sh\\n' > .clinerules/hooks/PreToolUse.sh",
    ] {
        let (code, stderr) = gate(command);
        assert_control_block(code, command, &stderr);
    }
    for command in [
        "rm ~/.cline/notes.txt",
        "echo x > plugin-notes.txt",
        "mkdir -p docs/extensions",
        // A project's own folders that are named like a host's are not the host's.
        "mkdir -p src/agent/extensions && echo x > src/agent/extensions/index.ts",
        "mkdir -p packages/opencode/plugin && echo x > packages/opencode/plugin/index.ts",
    ] {
        let (code, stderr) = gate(command);
        assert_eq!(code, Some(0), "{command}: {stderr}");
    }
    // opencode's own patch tool (`patchText`), deleting the plugin: refused like the shell's `rm`.
    let plugin = home.path().join(".config/opencode/plugin/codeguard.js");
    let patch = format!("*** Begin Patch\n*** Delete File: {}\n*** End Patch\n", plugin.display());
    let payload = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": repo.root(),
        "tool_name": "apply_patch", "tool_input": {"patchText": patch}});
    let out = codeguard(home.path())
        .args(["hook", "pre-tool-use", "--host", "opencode"])
        .write_stdin(payload.to_string())
        .output()
        .expect("hook");
    assert_control_block(
        out.status.code(),
        "apply_patch deleting the plugin",
        &String::from_utf8_lossy(&out.stderr),
    );
    assert!(plugin.exists());
}
