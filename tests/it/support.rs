//! Shared test support: real git repositories in temp dirs under a fixed git environment, the
//! real `codeguard` binary, and a fingerprint proving a gate left the user's repository untouched.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment every git and codeguard process in the tests runs under: no system or global
/// config, fixed identities and dates, `main` as the default branch.
pub(crate) fn git_env() -> Vec<(&'static str, String)> {
    vec![
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
        ("GIT_AUTHOR_NAME", "Test Author".into()),
        ("GIT_AUTHOR_EMAIL", "author@example.invalid".into()),
        ("GIT_COMMITTER_NAME", "Test Committer".into()),
        ("GIT_COMMITTER_EMAIL", "committer@example.invalid".into()),
        ("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z".into()),
        ("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z".into()),
        ("GIT_TERMINAL_PROMPT", "0".into()),
    ]
}

/// `git` under the fixed environment, with every `GIT_*` variable the test process inherited
/// removed first (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_WORK_TREE` … set by a hook the tests run
/// under would point git elsewhere): the one place tests make a git command.
pub(crate) fn git_command() -> Command {
    let mut cmd = Command::new("git");
    without_git_vars(&mut cmd).envs(git_env());
    cmd
}

/// Removes every inherited `GIT_*` variable from `cmd`'s environment (the fixed ones are set
/// after it).
pub(crate) fn without_git_vars(cmd: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        if key.to_str().is_some_and(|k| k.starts_with("GIT_")) {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// A git repository in a temporary directory.
pub(crate) struct TestRepo {
    dir: tempfile::TempDir,
}

impl TestRepo {
    /// `git init` with `main` as the initial branch.
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = Self { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// The repository's root (canonical, so it compares equal to what codeguard prints).
    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical root")
    }

    /// A path inside the repository.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes a file (creating parent directories).
    pub(crate) fn write(&self, rel: &str, content: &str) -> &Self {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, content).expect("write");
        self
    }

    /// Makes a file executable.
    pub(crate) fn chmod_x(&self, rel: &str) -> &Self {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.path(rel), std::fs::Permissions::from_mode(0o755)).expect("chmod");
        self
    }

    /// Runs git in the repository, panicking on failure; returns stdout.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        git_in(self.dir.path(), args)
    }

    /// `git add -A && git commit -m msg`.
    pub(crate) fn commit_all(&self, msg: &str) -> &Self {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
        self
    }

    /// Records everything a gate must never change.
    pub(crate) fn state(&self) -> RepoState {
        RepoState::capture(&self.root())
    }
}

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs git in `dir` under the fixed environment, panicking on failure; returns stdout.
pub(crate) fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = git_command().args(args).current_dir(dir).output().expect("spawn git");
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `codeguard` binary under test, with the fixed git environment and an isolated state dir.
pub(crate) fn codeguard(home: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("codeguard").expect("binary");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEGUARD_HOME", home.join(".codeguard"))
        .envs(git_env());
    cmd
}

/// `codeguard mcp` with the fixed git environment and an isolated state dir, stdin and stdout
/// piped, stderr dropped; `extra` variables are added (to prove they never leak).
pub(crate) fn mcp_command(home: &Path, extra: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("codeguard"));
    cmd.arg("mcp")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEGUARD_HOME", home.join(".codeguard"))
        .envs(git_env())
        .envs(extra.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    cmd
}

/// Runs `codeguard hook pre-tool-use` with a Claude-style payload for `command` run in `cwd`
/// (session `s-1`, tool call `tool_use_id`) and extra environment variables.
pub(crate) fn pre_tool_use(
    home: &Path,
    cwd: &Path,
    tool_use_id: &str,
    command: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    let payload = serde_json::json!({
        "session_id": "s-1",
        "tool_use_id": tool_use_id,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "test"},
        "cwd": cwd,
    });
    let mut cmd = codeguard(home);
    cmd.args(["hook", "pre-tool-use"]).write_stdin(payload.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run hook")
}

/// Everything about a repository that a gate must leave byte-for-byte unchanged: the index
/// file, HEAD, every ref, the stash list, hooks config, and every worktree file's content and mode.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RepoState {
    index: Option<Vec<u8>>,
    head: String,
    refs: String,
    stash: String,
    config: Vec<u8>,
    files: BTreeMap<PathBuf, (u32, blake3::Hash)>,
}

impl RepoState {
    /// Captures the state of the repository at `root`.
    pub(crate) fn capture(root: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let git_dir = root.join(".git");
        let mut files = BTreeMap::new();
        for entry in walkdir::WalkDir::new(root).into_iter().filter_entry(|e| e.file_name() != ".git") {
            let entry = entry.expect("walk");
            let meta = entry.path().symlink_metadata().expect("meta");
            let rel = entry.path().strip_prefix(root).expect("rel").to_path_buf();
            let content = if meta.file_type().is_symlink() {
                std::fs::read_link(entry.path()).expect("readlink").into_os_string().into_encoded_bytes()
            } else if meta.is_file() {
                std::fs::read(entry.path()).expect("read")
            } else {
                Vec::new()
            };
            files.insert(rel, (meta.permissions().mode(), blake3::hash(&content)));
        }
        Self {
            index: std::fs::read(git_dir.join("index")).ok(),
            head: std::fs::read_to_string(git_dir.join("HEAD")).unwrap_or_default(),
            refs: git_in(root, &["for-each-ref", "--format=%(refname) %(objectname)"]),
            stash: git_in(root, &["stash", "list"]),
            config: std::fs::read(git_dir.join("config")).unwrap_or_default(),
            files,
        }
    }
}

/// Asserts that running `f` leaves the repository at `root` unchanged, and returns `f`'s result.
pub(crate) fn assert_untouched<T>(root: &Path, f: impl FnOnce() -> T) -> T {
    let before = RepoState::capture(root);
    let out = f();
    let after = RepoState::capture(root);
    assert!(before == after, "the repository at {} was modified by the gate", root.display());
    out
}

/// The absolute path of a real tool a test depends on (a linter, a hook manager, an interpreter).
/// A test never passes without the tool it is about: when the tool is not on `PATH` this panics,
/// naming it (`scripts/test.sh` installs every pinned one; `scripts/requirements-test.txt`).
pub(crate) fn real_tool(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|p| p.is_file()))
        .unwrap_or_else(|| {
            panic!(
                "`{name}` is required by this test but is not on PATH: run the suite with scripts/test.sh, \
                 which installs the pinned tools (scripts/requirements-test.txt)"
            )
        })
}

/// Panics unless every tool in `names` is on `PATH` ([`real_tool`]), for tests that let
/// codeguard find the tools itself.
pub(crate) fn require_tools(names: &[&str]) {
    for name in names {
        real_tool(name);
    }
}

/// Validates `document` against the JSON Schema `schema` with Python's `jsonschema` (the draft
/// the schema's `$schema` names; the schema itself is checked first): the errors, one
/// `path: message` line each. Panics when python3 or its jsonschema module is missing.
pub(crate) fn schema_errors(schema: &serde_json::Value, document: &serde_json::Value) -> Vec<String> {
    let python = real_tool("python3");
    let has_jsonschema =
        Command::new(&python).args(["-c", "import jsonschema"]).output().is_ok_and(|o| o.status.success());
    assert!(has_jsonschema, "python3 has no jsonschema module, which this test needs (run scripts/test.sh)");
    let dir = tempfile::tempdir().expect("tmp");
    let (schema_file, document_file) = (dir.path().join("schema.json"), dir.path().join("document.json"));
    std::fs::write(&schema_file, serde_json::to_vec(schema).expect("json")).expect("write");
    std::fs::write(&document_file, serde_json::to_vec(document).expect("json")).expect("write");
    let script = "\
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
errors = sorted(cls(schema).iter_errors(json.load(open(sys.argv[2]))), key=lambda e: list(e.path))
for e in errors:
    print('/'.join(map(str, e.path)) + ':', e.message)
";
    let out = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&schema_file)
        .arg(&document_file)
        .output()
        .expect("python");
    assert!(out.status.success(), "jsonschema failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

/// A directory of symlinks to exactly the given tools, for a PATH without anything else.
pub(crate) fn bin_dir_with(tools: &[&Path]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("bin dir");
    for tool in tools {
        std::os::unix::fs::symlink(tool, dir.path().join(tool.file_name().expect("name"))).expect("symlink");
    }
    dir
}

/// Runs `codeguard check --format <format> <root>` with only `tools` on `PATH` (to make the
/// other linters missing), in a fresh state directory.
pub(crate) fn check_with_only(tools: &[&Path], format: &str, root: &Path) -> std::process::Output {
    let home = tempfile::tempdir().expect("home");
    let bin = bin_dir_with(tools);
    codeguard(home.path())
        .env("PATH", bin.path())
        .args(["check", "--format", format])
        .arg(root)
        .output()
        .expect("run")
}

/// `codeguard install --git-hooks` in `repo` with the state home `home`, which must succeed.
pub(crate) fn install_git_hooks(home: &Path, repo: &TestRepo) {
    let out =
        codeguard(home).current_dir(repo.root()).args(["install", "--git-hooks"]).output().expect("install");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `codeguard check --staged --format json` in `repo`, in a fresh state directory: the gate's
/// verdict on the index as JSON.
pub(crate) fn staged_report(repo: &TestRepo) -> serde_json::Value {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .args(["check", "--staged", "--format", "json"])
        .output()
        .expect("check");
    json_stdout(&out)
}

/// Parses a command's stdout as exactly one JSON document.
pub(crate) fn json_stdout(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("stdout is not one JSON document ({e}): {}", String::from_utf8_lossy(&output.stdout))
    })
}

/// A repository with one clean commit, a state home, and a marker file outside the repository
/// that code the repository holds appends to when it runs (inside a gate snapshot too).
pub(crate) struct Marked {
    /// The repository.
    pub repo: TestRepo,
    /// The state home (`HOME`, `CODEGUARD_HOME` below it).
    pub home: tempfile::TempDir,
    /// Holds the marker.
    pub outside: tempfile::TempDir,
    /// Appended to once per run of the repository's code.
    pub marker: PathBuf,
}

impl Marked {
    /// A repository with `README.txt` committed, and an empty marker place.
    pub(crate) fn new() -> Self {
        let outside = tempfile::tempdir().expect("outside");
        let marker = outside.path().join("marker");
        let repo = TestRepo::new();
        repo.write("README.txt", "hello\n").commit_all("init");
        Self { repo, home: tempfile::tempdir().expect("home"), outside, marker }
    }

    /// The state home.
    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// A shell script that records that it ran.
    pub(crate) fn recorder(&self) -> String {
        format!("#!/bin/sh\necho ran >> '{}'\nexit 0\n", self.marker.display())
    }

    /// How often the repository's code ran.
    pub(crate) fn runs(&self) -> usize {
        std::fs::read_to_string(&self.marker).map_or(0, |t| t.lines().count())
    }

    /// `check --no-cache --format json <args> <repo>`: exit code and `lang`'s status and reason.
    pub(crate) fn check_lang(
        &self,
        lang: &str,
        args: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> (Option<i32>, String, String) {
        let mut cmd = codeguard(self.home());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .args(["check", "--no-cache", "--format", "json"])
            .args(args)
            .arg(self.repo.root())
            .output()
            .expect("run");
        let json = json_stdout(&out);
        let languages = json["languages"].as_array().expect("languages");
        let entry = languages.iter().find(|l| l["language"] == lang).unwrap_or_else(|| panic!("{json}"));
        let text = |key: &str| entry[key].as_str().unwrap_or("").to_owned();
        (out.status.code(), text("status"), text("reason"))
    }
}

impl Default for Marked {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs the agent gate (`hook pre-tool-use`, Claude payload) on `command` in `repo` with a fresh
/// state home, proving the repository untouched: exit code, stdout, stderr.
pub(crate) fn gate_in(repo: &TestRepo, command: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || pre_tool_use(home.path(), &repo.root(), "t-1", command, env));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A repository with `README.txt` committed and `files` written (not staged).
pub(crate) fn repo_with(files: &[(&str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    for (path, content) in files {
        repo.write(path, content);
    }
    repo
}

/// [`repo_with`] whose base commit already holds the project's rule configuration `rules` (as
/// a project has it: an agent's commit is linted with the base commit's rules).
pub(crate) fn repo_with_rules(rules: &[(&str, &str)], files: &[(&str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n");
    for (path, content) in rules {
        repo.write(path, content);
    }
    repo.commit_all("init");
    for (path, content) in files {
        repo.write(path, content);
    }
    repo
}

/// Real git, run with the test's `PATH` (real linters), the fixed git environment and the
/// state home `home`, so hooks installed by `codeguard install --git-hooks` run for real.
pub(crate) fn git_with_hooks(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    git_with_hooks_and(dir, home, args, &[])
}

/// [`git_with_hooks`] with `extra` variables added.
pub(crate) fn git_with_hooks_and(
    dir: &Path,
    home: &Path,
    args: &[&str],
    extra: &[(&str, &std::ffi::OsStr)],
) -> std::process::Output {
    let mut cmd = hooked_git(dir, home, args);
    cmd.stdin(std::process::Stdio::null());
    for (key, value) in extra {
        cmd.env(key, value);
    }
    cmd.output().expect("spawn git")
}

/// [`git_with_hooks`] with `input` on git's standard input (`fast-import`, `update-ref --stdin`).
pub(crate) fn git_with_hooks_input(
    dir: &Path,
    home: &Path,
    args: &[&str],
    input: &[u8],
) -> std::process::Output {
    use std::io::Write as _;
    let mut child = hooked_git(dir, home, args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn git");
    child.stdin.take().expect("stdin").write_all(input).expect("write git's input");
    child.wait_with_output().expect("wait for git")
}

/// git in `dir` under the fixed environment, the test's `PATH` (real linters) and the isolated
/// codeguard state directory under `home`.
fn hooked_git(dir: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEGUARD_HOME", home.join(".codeguard"))
        .envs(git_env());
    cmd
}

/// `codeguard explain --format json --cwd CWD -- COMMAND` under the fixed environment; panics
/// unless it exits 0 with one JSON object.
pub(crate) fn explain_json(cwd: &Path, command: &str) -> serde_json::Value {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["explain", "--format", "json", "--cwd"])
        .arg(cwd)
        .arg("--")
        .arg(command)
        .output()
        .expect("run codeguard explain");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The language ids of the built-in registry, in its order, read from the data codeguard compiles
/// in (`registry/languages.json`): the one place a test learns how many languages there are.
pub(crate) fn registry_language_ids() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/languages.json");
    let registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("registry")).expect("registry JSON");
    let ids = language_ids(&registry["languages"]);
    assert!(!ids.is_empty(), "{} lists no languages", path.display());
    ids
}

/// The `id` of every entry of a JSON array of languages (a registry, `codeguard languages`).
pub(crate) fn language_ids(languages: &serde_json::Value) -> Vec<String> {
    languages
        .as_array()
        .unwrap_or_else(|| panic!("not a list of languages: {languages}"))
        .iter()
        .map(|l| l["id"].as_str().unwrap_or_else(|| panic!("a language without an id: {l}")).to_owned())
        .collect()
}

/// The host name under which codeguard answers the neutral contract. `hook capabilities` describes
/// that contract as the document itself (its top-level `events`) and lists every other host as a
/// provider; this name is the one fact about hosts a test cannot read from it.
pub(crate) const NEUTRAL_HOST: &str = "neutral";

/// Every host codeguard answers hooks for, each with the hook events it has (their command-line
/// names, `session-start`, in the contract's order), read from the binary's
/// `codeguard hook capabilities`: that document is generated from `Host::ALL` and the host spec
/// table (`src/host/spec.rs`), so a host or event added there reaches every test that iterates
/// this, and no test keeps a list of its own.
pub(crate) fn hosts_and_events() -> Vec<(String, Vec<String>)> {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["hook", "capabilities"]).output().expect("hook capabilities");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let caps = json_stdout(&out);
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array().expect("a list").iter().map(|s| s.as_str().expect("a string").to_owned()).collect()
    };
    // The contract's events, by their Claude-style names (`SessionStart`).
    let contract = strings(&caps["events"]);
    let mut hosts: Vec<(String, Vec<String>)> = caps["providers"]
        .as_array()
        .expect("providers")
        .iter()
        .map(|provider| {
            let host = provider["name"].as_str().expect("name").to_owned();
            // A host without an event names it "".
            let events = contract
                .iter()
                .filter(|e| provider["events"][e.as_str()].as_str().is_some_and(|own| !own.is_empty()))
                .map(|e| command_line_event(e))
                .collect();
            (host, events)
        })
        .collect();
    assert!(!hosts.is_empty(), "hook capabilities lists no providers: {caps}");
    assert!(
        hosts.iter().all(|(h, _)| h != NEUTRAL_HOST),
        "the neutral contract is listed as a provider: {caps}"
    );
    hosts.push((NEUTRAL_HOST.to_owned(), contract.iter().map(|e| command_line_event(e)).collect()));
    assert!(hosts.iter().all(|(_, events)| !events.is_empty()), "a host without events: {caps}");
    hosts
}

/// An event's command-line name from its Claude-style name: `PreToolUse` → `pre-tool-use`.
fn command_line_event(claude_name: &str) -> String {
    let mut name = String::new();
    for c in claude_name.chars() {
        if c.is_ascii_uppercase() && !name.is_empty() {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
    }
    name
}

/// A minimal crate's manifest and lock file (no dependencies: no network needed).
pub(crate) const CARGO_TOML: &str = "[package]\nname = \"warm\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
pub(crate) const CARGO_LOCK: &str = "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n\n[[package]]\nname = \"warm\"\nversion = \"0.1.0\"\n";

/// A trusted, committed Rust crate with `main_rs` as `src/main.rs` and the given `files`, and a
/// state home on disk (never tmpfs, where codeguard keeps no build cache). Panics when cargo is
/// not installed.
pub(crate) fn rust_crate(lock: &str, main_rs: &str, files: &[(&str, &str)]) -> (TestRepo, tempfile::TempDir) {
    real_tool("cargo");
    let repo = TestRepo::new();
    repo.write("Cargo.toml", CARGO_TOML).write("Cargo.lock", lock).write("src/main.rs", main_rs);
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.commit_all("init");
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    (repo, home)
}

/// Writes the repository's `Cargo.lock` for its manifests (offline: no dependencies).
pub(crate) fn generate_lockfile(repo: &TestRepo) {
    let status = Command::new("cargo")
        .args(["generate-lockfile", "--offline", "-q"])
        .current_dir(repo.root())
        .envs(rust_env())
        .status()
        .expect("cargo");
    assert!(status.success(), "cargo generate-lockfile");
}

/// The machine's rustup and cargo homes, for a codeguard whose HOME is a fresh directory.
pub(crate) fn rust_env() -> Vec<(&'static str, std::ffi::OsString)> {
    ["RUSTUP_HOME", "CARGO_HOME"]
        .into_iter()
        .filter_map(|var| {
            let value = std::env::var_os(var).or_else(|| {
                let user = std::env::var_os("HOME")?;
                Some(
                    Path::new(&user)
                        .join(if var == "RUSTUP_HOME" { ".rustup" } else { ".cargo" })
                        .into_os_string(),
                )
            })?;
            Some((var, value))
        })
        .collect()
}

/// A `PATH` with no linter on it: a directory of links to `python3` (the real interpreter, not a
/// version manager's shim), `node` and `npm`, then `/usr/bin:/bin`. What a fresh machine has.
pub(crate) fn path_without_linters() -> (tempfile::TempDir, std::ffi::OsString) {
    let mut tools = Vec::new();
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 is needed by the managed-tool tests");
    tools.push(PathBuf::from(String::from_utf8_lossy(&python.stdout).trim()));
    for name in ["node", "npm"] {
        if let Some(found) = std::env::var_os("PATH")
            .and_then(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|p| p.is_file()))
        {
            tools.push(found);
        }
    }
    let dir = tempfile::tempdir().expect("bin dir");
    for tool in &tools {
        let name = if tool.file_name().is_some_and(|n| n.to_string_lossy().starts_with("python")) {
            std::ffi::OsString::from("python3")
        } else {
            tool.file_name().expect("name").to_owned()
        };
        std::os::unix::fs::symlink(tool, dir.path().join(name)).expect("symlink");
    }
    let mut path = dir.path().as_os_str().to_owned();
    path.push(":/usr/bin:/bin");
    (dir, path)
}

/// The variables that let installers reach a package registry from this machine (its CA bundle,
/// its proxy), taken from the test's own environment: what a user's `codeguard tools install`
/// inherits.
pub(crate) fn network_env() -> Vec<(String, std::ffi::OsString)> {
    const NAMES: &[&str] = &[
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "PIP_CERT",
        "REQUESTS_CA_BUNDLE",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "NO_PROXY",
        "https_proxy",
        "http_proxy",
        "no_proxy",
    ];
    NAMES.iter().filter_map(|n| Some(((*n).to_owned(), std::env::var_os(n)?))).collect()
}

/// One pip download cache for every test that installs from `PyPI` (under the target directory),
/// so each package is downloaded once per machine.
pub(crate) fn pip_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("pip-cache")
}

/// `codeguard tools install <args>` under `path`, in the state home `home`, with the shared pip
/// cache; panics when it fails (an unreachable package registry included: a test that installs
/// real tools fails offline, it never passes without having installed anything).
pub(crate) fn tools_install(home: &Path, path: &std::ffi::OsStr, args: &[&str]) -> std::process::Output {
    let out = codeguard(home)
        .envs(network_env())
        .env("PATH", path)
        .env("PIP_CACHE_DIR", pip_cache())
        .env("npm_config_cache", Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-cache"))
        .args(["tools", "install"])
        .args(args)
        .output()
        .expect("run codeguard tools install");
    assert!(out.status.success(), "tools install {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Runs `cmd` with stdout on `/dev/full` (every write fails, as on a full disk) and returns its
/// exit code, after checking it said on stderr that its output could not be written.
#[cfg(target_os = "linux")]
pub(crate) fn with_unwritable_stdout(cmd: &mut Command) -> Option<i32> {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = cmd.stdout(full).stderr(std::process::Stdio::piped()).output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("codeguard: error: writing the output failed"), "{stderr}");
    out.status.code()
}
