//! Every host × event: realistic payloads from `tests/fixtures/payloads/<host>/<event>.json` fed
//! to the real binary, checking exit code and output shape per host; coverage of fixtures and of
//! the protocol table; and random payloads that must never block, panic or hang.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::{NEUTRAL_HOST, TestRepo, codeguard, hosts_and_events};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/payloads")
}

/// A repository where a commit is refused by the safety scan (a staged `.env`) and `app.py` is
/// a Python file the post-edit check looks at; `bad.py` is the file the e2e suite's agents write
/// (the captured post-tool-use fixtures name it).
fn scenario() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hi\n").write("app.py", "import sys\n\nprint(sys.argv)\n").commit_all("init");
    repo.write("bad.py", "import os\n");
    repo.write(".env", "TOKEN=1\n");
    repo.git(&["add", ".env"]);
    repo
}

fn run(home: &Path, host: &str, event: &str, payload: &str) -> std::process::Output {
    codeguard(home)
        .args(["hook", event, "--host", host])
        .write_stdin(payload.to_owned())
        .output()
        .expect("run hook")
}

/// What a host prints for an event in the scenario.
#[derive(Debug)]
enum Shape {
    /// Exit 2, the report on stderr, nothing on stdout.
    BlockOnStderr,
    /// Exit 0, a JSON deny on stdout whose text names the report.
    JsonDeny,
    /// Exit 1, the neutral contract's deny.
    NeutralDeny,
    /// Exit 0, JSON on stdout with a string at this pointer mentioning codeguard.
    JsonContext(&'static str),
    /// Exit 0, plain text on stdout mentioning codeguard.
    PlainContext,
    /// Exit 0, nothing at all.
    Silent,
    /// Exit 0, the neutral contract's allow (context optional).
    NeutralAllow,
    /// Exit 0, Cline's `overrideInput`: the call's commands replaced by one that prints the
    /// report to stderr and fails.
    OverrideInput,
}

fn expected(host: &str, event: &str) -> Shape {
    use Shape::{
        BlockOnStderr, JsonContext, JsonDeny, NeutralAllow, NeutralDeny, OverrideInput, PlainContext, Silent,
    };
    match (host, event) {
        ("cline", "pre-tool-use") => OverrideInput,
        ("cline", "session-start" | "user-prompt-submit" | "stop") => Silent,
        ("cline", _) => JsonContext("/contextModification"),
        ("neutral", "pre-tool-use") => NeutralDeny,
        ("neutral", _) => NeutralAllow,
        ("codex" | "copilot" | "cursor", "pre-tool-use") => JsonDeny,
        (_, "pre-tool-use") => BlockOnStderr,
        ("cursor" | "goose" | "continue", _)
        | ("openhands" | "copilot" | "ari" | "dsh" | "opencode" | "kilo" | "pi", "stop") => Silent,
        ("copilot", _) => JsonContext("/additionalContext"),
        ("codex", "session-start" | "user-prompt-submit") => PlainContext,
        ("kimi", "session-start" | "stop") => JsonContext("/message"),
        (_, "stop") => JsonContext("/systemMessage"),
        ("openhands" | "ari", _) => JsonContext("/additionalContext"),
        _ => JsonContext("/hookSpecificOutput/additionalContext"),
    }
}

fn check_shape(host: &str, event: &str, out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json = || {
        serde_json::from_str::<Value>(&stdout)
            .unwrap_or_else(|e| panic!("{host} {event}: stdout is not JSON ({e}): {stdout}"))
    };
    let code = out.status.code();
    let what = format!("{host} {event}: exit {code:?}\nstdout: {stdout}\nstderr: {stderr}");
    match expected(host, event) {
        Shape::BlockOnStderr => {
            assert_eq!(code, Some(2), "{what}");
            assert!(stderr.starts_with("codeguard: commit blocked") && stdout.is_empty(), "{what}");
        }
        Shape::JsonDeny => {
            assert_eq!(code, Some(0), "{what}");
            let text = json().to_string();
            assert!(text.contains("deny") && text.contains("codeguard: commit blocked"), "{what}");
        }
        Shape::NeutralDeny => {
            assert_eq!(code, Some(1), "{what}");
            let v = json();
            assert_eq!(
                (v["decision"].as_str(), v["effect"]["action"].as_str(), v["correlation_id"].as_str()),
                (Some("deny"), Some("block"), Some("lane-01-turn-42")),
                "{what}"
            );
            assert_eq!(v["event"]["provider"], "claude", "the response names the request's provider: {what}");
        }
        Shape::JsonContext(pointer) => {
            assert_eq!(code, Some(0), "{what}");
            let v = json();
            let text = v
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no string at {pointer}: {what}"));
            assert!(text.contains("codeguard"), "{what}");
        }
        Shape::PlainContext => {
            assert_eq!(code, Some(0), "{what}");
            assert!(stdout.contains("codeguard") && !stdout.trim_start().starts_with('{'), "{what}");
        }
        Shape::Silent => assert!(code == Some(0) && stdout.is_empty() && stderr.is_empty(), "{what}"),
        Shape::NeutralAllow => {
            assert_eq!(code, Some(0), "{what}");
            assert_eq!(json()["decision"], "allow", "{what}");
        }
        Shape::OverrideInput => {
            assert_eq!(code, Some(0), "{what}");
            let v = json();
            let commands = v["overrideInput"]["commands"].as_array().unwrap_or_else(|| panic!("{what}"));
            let [command] = commands.as_slice() else { panic!("one command: {what}") };
            let command = command.as_str().unwrap_or_default();
            // What the replacement prints is the report itself, and it fails.
            let ran = std::process::Command::new("sh").args(["-c", command]).output().expect("sh");
            assert!(!ran.status.success(), "{what}");
            assert!(String::from_utf8_lossy(&ran.stderr).starts_with("codeguard: commit blocked"), "{what}");
        }
    }
}

#[test]
fn every_host_and_event_answers_in_its_own_shape() {
    let repo = scenario();
    let home = tempfile::tempdir().expect("home");
    for (host, events) in hosts_and_events() {
        for event in &events {
            let fixture = fixtures().join(&host).join(format!("{event}.json"));
            let text =
                std::fs::read_to_string(&fixture).unwrap_or_else(|e| panic!("{}: {e}", fixture.display()));
            let payload = text.replace("__CWD__", &repo.root().display().to_string());
            let out =
                crate::support::assert_untouched(&repo.root(), || run(home.path(), &host, event, &payload));
            check_shape(&host, event, &out);
        }
    }
}

#[test]
fn every_host_and_event_has_a_fixture_and_a_protocol_row() {
    let protocol =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/__protocol__.md"))
            .expect("protocol sheet");
    let hosts = hosts_and_events();
    let rows: Vec<(String, String)> = protocol
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let host = cells.get(1).and_then(|c| c.split_whitespace().next()).unwrap_or("");
            (cells.len() > 3 && hosts.iter().any(|(h, _)| h == host))
                .then(|| (host.to_owned(), cells[2].to_owned()))
        })
        .collect();
    for (host, events) in &hosts {
        for event in events {
            assert!(
                fixtures().join(host).join(format!("{event}.json")).is_file(),
                "missing fixture {host}/{event}"
            );
            assert!(
                rows.iter().any(|(h, e)| h == host && e == event),
                "hooks/__protocol__.md has no row for {host} × {event}"
            );
        }
    }
    for (host, event) in &rows {
        assert!(
            fixtures().join(host).join(format!("{event}.json")).is_file(),
            "protocol row {host} × {event} has no fixture"
        );
    }
    let hosts_on_disk = std::fs::read_dir(fixtures()).expect("fixtures").count();
    assert_eq!(hosts_on_disk, hosts.len(), "a fixture directory for an unknown host");
}

/// A small deterministic generator (xorshift) for random payloads.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("fits")
    }

    fn bytes(&mut self) -> Vec<u8> {
        let len = self.below(200);
        (0..len).map(|_| u8::try_from(self.next() & 0xff).expect("byte")).collect()
    }

    fn json(&mut self, depth: u32) -> Value {
        let keys = [
            "tool_name",
            "toolName",
            "tool_input",
            "toolArgs",
            "command",
            "cwd",
            "prompt",
            "file_path",
            "path",
            "session_id",
            "contract_version",
            "hook_event_name",
            "stop_hook_active",
            "x",
        ];
        match (self.below(7), depth) {
            (0, _) => Value::Null,
            (1, _) => Value::Bool(self.next().is_multiple_of(2)),
            (2, _) => Value::from(self.next() % 1000),
            (3, _) | (_, 0) => {
                let words = [
                    "Bash",
                    "git commit -m x",
                    "git push",
                    "/",
                    ".",
                    "{\"command\":\"git push\"}",
                    "coding-ethos.hook/v1",
                    "PreToolUse",
                    "",
                ];
                Value::from(words[self.below(words.len())])
            }
            (4, _) => Value::Array((0..self.below(3)).map(|_| self.json(depth - 1)).collect()),
            _ => Value::Object(
                (0..self.below(6))
                    .map(|_| (keys[self.below(keys.len())].to_owned(), self.json(depth - 1)))
                    .collect(),
            ),
        }
    }
}

#[test]
fn random_payloads_never_block_panic_or_hang() {
    let dir = tempfile::tempdir().expect("not a repository");
    let home = tempfile::tempdir().expect("home");
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    for (host, events) in hosts_and_events() {
        for event in &events {
            for round in 0..4 {
                let payload =
                    if round % 2 == 0 { random.bytes() } else { random.json(3).to_string().into_bytes() };
                // A hang guard, not a speed claim: a hook stuck on junk input is killed and fails.
                let out = codeguard(home.path())
                    .args(["hook", event, "--host", &host])
                    .current_dir(dir.path())
                    .write_stdin(payload.clone())
                    .timeout(Duration::from_secs(60))
                    .output()
                    .expect("the hook ended (it never hangs on junk input)");
                let stderr = String::from_utf8_lossy(&out.stderr);
                let what = format!("{host} {event} {:?}: {stderr}", String::from_utf8_lossy(&payload));
                assert!(!stderr.contains("panicked"), "{what}");
                let blocked = out.status.code() == Some(2)
                    || (host == NEUTRAL_HOST && out.status.code() == Some(1))
                    || String::from_utf8_lossy(&out.stdout).contains("deny");
                let commit_outside_repo = stderr.contains("cannot be checked");
                assert!(!blocked || commit_outside_repo, "random input blocked: {what}");
                assert!(matches!(out.status.code(), Some(0..=2)), "{what}");
            }
        }
    }
}

#[test]
fn unknown_events_and_hosts_are_ignored_with_a_note() {
    let home = tempfile::tempdir().expect("home");
    for args in [["hook", "teleport", "--host", "claude"], ["hook", "pre-tool-use", "--host", "vim"]] {
        let out = codeguard(home.path()).args(args).write_stdin("{}").output().expect("run");
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("[codeguard] unknown hook"));
    }
}

#[test]
fn shipped_manifests_register_every_event_of_their_host() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
    let hosts = hosts_and_events();
    for (file, host) in [
        ("hooks.json", "claude"),
        ("codex/hooks.json", "codex"),
        ("gemini/hooks/hooks.json", "gemini"),
        ("kimi.toml", "kimi"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect("manifest");
        if Path::new(file).extension().is_some_and(|e| e == "json") {
            serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        let (_, events) = hosts.iter().find(|(h, _)| h == host).unwrap_or_else(|| panic!("no host {host}"));
        for event in events {
            assert!(text.contains(&format!("hook {event} --host {host}")), "{file} lacks {event}");
        }
    }
}

#[test]
fn copilot_pre_tool_use_context_reaches_the_model_without_an_allow() {
    let repo = scenario();
    let home = tempfile::tempdir().expect("home");
    let payload = serde_json::json!({"sessionId": "c", "cwd": repo.root(), "toolName": "bash",
        "toolArgs": {"command": "git commit -m x", "description": "commit"}});
    let out = crate::support::assert_untouched(&repo.root(), || {
        codeguard(home.path())
            .env("CODEGUARD_SKIP_GATE", "1")
            .args(["hook", "pre-tool-use", "--host", "copilot"])
            .write_stdin(payload.to_string())
            .output()
            .expect("run")
    });
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert!(v["additionalContext"].as_str().is_some_and(|t| t.contains("bypassed")), "{v}");
    assert!(v.get("permissionDecision").is_none(), "an allow would skip Copilot's own approval: {v}");
}

#[test]
fn capabilities_describe_the_contract_without_reading_stdin() {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["hook", "capabilities"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["contract_version"], "coding-ethos.hook/v1");
    assert_eq!(v["max_input_bytes"], 1024 * 1024);
    let events: Vec<&str> =
        v["events"].as_array().expect("events").iter().filter_map(Value::as_str).collect();
    assert_eq!(events, ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]);
    let effects: Vec<&str> =
        v["effects"].as_array().expect("effects").iter().filter_map(Value::as_str).collect();
    assert_eq!(effects, ["allow", "block"]);
    // Every host with payload fixtures but the neutral contract is a provider, and no other.
    let mut providers: Vec<&str> =
        v["providers"].as_array().expect("providers").iter().filter_map(|p| p["name"].as_str()).collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|h| h != NEUTRAL_HOST)
        .collect();
    providers.sort_unstable();
    on_disk.sort();
    assert_eq!(providers, on_disk, "{v}");
    assert_eq!(v["exit_codes"]["deny"], 1);
}

#[test]
fn install_capabilities_and_the_protocol_sheet_agree_with_the_host_specs() {
    let home = tempfile::tempdir().expect("home");
    let caps = codeguard(home.path()).args(["hook", "capabilities"]).output().expect("run");
    let caps: Value = serde_json::from_slice(&caps.stdout).expect("json");
    let protocol =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/__protocol__.md"))
            .expect("protocol sheet");
    for provider in caps["providers"].as_array().expect("providers") {
        let host = provider["name"].as_str().expect("name");
        // The sheet's section for the host names every shell and edit tool of its spec.
        let section = protocol
            .split("\n## ")
            .find(|s| s.starts_with(&format!("{host} ")))
            .unwrap_or_else(|| panic!("no section for {host}"));
        for tool in provider["shell_tools"]
            .as_array()
            .expect("tools")
            .iter()
            .chain(provider["edit_tools"].as_array().expect("tools").iter())
        {
            let tool = tool.as_str().expect("tool");
            assert!(section.contains(&format!("`{tool}`")), "the {host} section does not name `{tool}`");
        }
        // ZCode has nothing to install; Continue CLI's install writes git hooks into the
        // repository it runs in, and dsh's needs its bridge installed (install.rs tests both).
        if host == "zcode" || host == "continue" || host == "dsh" {
            continue;
        }
        // Installing writes the spec's own event names.
        let out = codeguard(home.path()).args(["install", "--host", host]).output().expect("install");
        assert_eq!(out.status.code(), Some(0), "{host}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let file = stdout
            .lines()
            .find_map(|l| l.split(" settings ").nth(1).and_then(|r| r.split(": ").next()))
            .unwrap_or_else(|| panic!("{host}: {stdout}"));
        let text = std::fs::read_to_string(file).expect("settings");
        for (_, name) in provider["events"].as_object().expect("events") {
            let name = name.as_str().expect("name");
            // A JSON key or TOML `event` value, or ari's `[[hooks.EVENT]]` table.
            assert!(
                text.contains(&format!("\"{name}\"")) || text.contains(&format!("[[hooks.{name}]]")),
                "{host}: {file} does not register the spec's event `{name}`"
            );
        }
    }
}

#[test]
fn shipped_manifests_use_the_host_specs_event_names_and_matchers() {
    let home = tempfile::tempdir().expect("home");
    let caps = codeguard(home.path()).args(["hook", "capabilities"]).output().expect("run");
    let caps: Value = serde_json::from_slice(&caps.stdout).expect("json");
    let provider = |host: &str| {
        caps["providers"]
            .as_array()
            .expect("providers")
            .iter()
            .find(|p| p["name"] == host)
            .expect("provider")
            .clone()
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
    for (file, host) in
        [("hooks.json", "claude"), ("codex/hooks.json", "codex"), ("gemini/hooks/hooks.json", "gemini")]
    {
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(file)).expect("manifest")).expect("json");
        let spec = provider(host);
        for (event, matcher) in [("PreToolUse", "shell_matcher"), ("PostToolUse", "edit_matcher")] {
            let name = spec["events"][event].as_str().expect("event name");
            let group = &manifest["hooks"][name][0];
            let shipped = group["matcher"].as_str().filter(|m| *m != "*");
            assert_eq!(
                shipped,
                spec[matcher].as_str(),
                "{file}: {name} matcher differs from the {host} spec"
            );
            let command = group["hooks"][0]["command"].as_str().expect("command");
            assert!(command.ends_with(&format!("--host {host}")), "{file}: {command}");
        }
    }
    let kimi = std::fs::read_to_string(dir.join("kimi.toml")).expect("kimi.toml");
    let spec = provider("kimi");
    for key in ["shell_matcher", "edit_matcher"] {
        let matcher = spec[key].as_str().expect("matcher");
        assert!(
            kimi.contains(&format!("matcher = \"{matcher}\"")),
            "kimi.toml lacks the spec's {key} `{matcher}`"
        );
    }
}

/// The neutral contract is called by supervisors of every host, so a shell command under any
/// host's shell tool name is gated (a tool name only one host uses was passed through).
#[test]
fn the_neutral_contract_gates_every_hosts_shell_tool_names() {
    for tool in ["Bash", "exec_command", "execute_bash", "run_shell_command", "powershell", "terminal"] {
        let repo = crate::support::TestRepo::new();
        repo.write("README.txt", "hello\n").commit_all("init");
        let home = tempfile::tempdir().expect("home");
        let payload = serde_json::json!({
            "contract": "coding-ethos.hook/v1",
            "event": "pre-tool-use",
            "tool_name": tool,
            "tool_input": {"command": "cd /definitely/not/here && git commit -m x"},
            "cwd": repo.root(),
        });
        let out = crate::support::codeguard(home.path())
            .args(["hook", "pre-tool-use", "--host", "neutral"])
            .write_stdin(payload.to_string())
            .output()
            .expect("hook");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(&stdout).expect("neutral response");
        assert_eq!(v["decision"], "deny", "{tool}: {stdout}");
    }
}

/// A shell tool call runs where its arguments say (Gemini CLI's `dir_path`, Qwen Code's
/// `directory`, Codex's `workdir`), not always in the session's directory: a `git commit` there
/// is judged in that repository. The session's repository is clean; the other one has a staged
/// `.env`.
#[test]
fn a_shell_call_is_judged_in_the_directory_its_arguments_name() {
    let session = TestRepo::new();
    session.write("README.txt", "hi\n").commit_all("init");
    let other = scenario();
    for (host, name, key, dir) in [
        ("gemini", "run_shell_command", "dir_path", other.root().display().to_string()),
        ("codex", "exec_command", "workdir", other.root().display().to_string()),
        ("qwen", "run_shell_command", "directory", other.root().display().to_string()),
    ] {
        let home = tempfile::tempdir().expect("home");
        let command_key = if name == "exec_command" { "cmd" } else { "command" };
        let payload = serde_json::json!({
            "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": name,
            "tool_input": {command_key: "git commit -m x", key: dir}, "cwd": session.root(),
        });
        let out = run(home.path(), host, "pre-tool-use", &payload.to_string());
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(".env"), "{host} {key}: the other repository's staged .env is judged: {text}");
    }
    // An argument the host's tool does not have changes nothing: Claude Code runs `Bash` in the
    // session's directory whatever else the call carries, so that (clean) repository is judged.
    let home = tempfile::tempdir().expect("home");
    let payload = serde_json::json!({
        "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git commit -m x", "directory": other.root()}, "cwd": session.root(),
    });
    let out = run(home.path(), "claude", "pre-tool-use", &payload.to_string());
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains(".env"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A relative directory is taken from the session's directory.
    let home = tempfile::tempdir().expect("home");
    let parent = other.root().parent().expect("parent").to_owned();
    let rel = other.root().file_name().expect("name").to_string_lossy().into_owned();
    let payload = serde_json::json!({
        "session_id": "s", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "git commit -m x", "dir_path": rel}, "cwd": parent,
    });
    let out = run(home.path(), "gemini", "pre-tool-use", &payload.to_string());
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

/// ari's contract (seed 002, its `hook` package): a payload of its own names (`event`, `tool`,
/// `input`, `session`, `cwd`), exit 2 with stderr to block, and stdout JSON its decoder reads
/// strictly (`DisallowUnknownFields`): only `continue`, `stopReason`, `additionalContext`,
/// `permission` and `hookSpecificOutput` (`hookEventName`, `permissionDecision`,
/// `permissionDecisionReason`, `updatedInput`, `additionalContext`), else the answer is lost.
#[test]
fn ari_payloads_are_read_and_every_answer_is_one_its_strict_decoder_accepts() {
    const OUTPUT: [&str; 5] =
        ["continue", "stopReason", "additionalContext", "permission", "hookSpecificOutput"];
    const SPECIFIC: [&str; 5] = [
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "additionalContext",
    ];
    let repo = scenario();
    let home = tempfile::tempdir().expect("home");
    let cwd = repo.root().display().to_string();
    let payload = |event: &str, extra: Value| {
        let mut p = serde_json::json!({"event": event, "session": "ari-s1", "cwd": cwd});
        p.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
        p.to_string()
    };
    let strict = |out: &std::process::Output, what: &str| {
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.trim().is_empty() {
            return;
        }
        let v: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {stdout}"));
        for key in v.as_object().expect("an object").keys() {
            assert!(
                OUTPUT.contains(&key.as_str()),
                "{what}: ari would drop the answer for `{key}`: {stdout}"
            );
        }
        if let Some(specific) = v.get("hookSpecificOutput").and_then(Value::as_object) {
            for key in specific.keys() {
                assert!(SPECIFIC.contains(&key.as_str()), "{what}: `hookSpecificOutput.{key}`: {stdout}");
            }
        }
    };
    // The staged `.env` blocks a commit the `sh` tool runs.
    let commit =
        payload("PreToolUse", serde_json::json!({"tool": "sh", "input": {"command": "git commit -m x"}}));
    let out = run(home.path(), "ari", "pre-tool-use", &commit);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".env") && out.stdout.is_empty());
    let ls = payload("PreToolUse", serde_json::json!({"tool": "sh", "input": {"command": "ls"}}));
    let out = run(home.path(), "ari", "pre-tool-use", &ls);
    assert!(out.status.code() == Some(0) && out.stdout.is_empty(), "{out:?}");
    // Every other event answers in keys ari knows; the write tool's file is linted.
    let written = repo.root().join("bad.py").display().to_string();
    for (event, name, extra) in [
        ("SessionStart", "session-start", serde_json::json!({"reason": "startup"})),
        ("UserPromptSubmit", "user-prompt-submit", serde_json::json!({"prompt": "commit this"})),
        (
            "PostToolUse",
            "post-tool-use",
            serde_json::json!({"tool": "write", "input": {"path": written}, "result": "ok"}),
        ),
        ("Stop", "stop", serde_json::json!({})),
    ] {
        let out = run(home.path(), "ari", name, &payload(event, extra));
        assert_eq!(out.status.code(), Some(0), "{name}");
        strict(&out, name);
        if name == "post-tool-use" {
            assert!(String::from_utf8_lossy(&out.stdout).contains("F401"), "the edit's lint result: {out:?}");
        }
    }
}

/// Cline's `run_commands` runs a list of commands at once, each on its own in the session's
/// directory, and takes its input in many shapes: a commit anywhere in it is judged, whatever
/// the shape — an argv run without a shell, a quote or heredoc one item opens that would swallow
/// the next if the items were read as one script, a `cd` in another item —, and harmless commands
/// pass.
#[test]
fn every_command_of_a_cline_run_commands_call_is_judged_in_every_input_shape() {
    use serde_json::json;
    let repo = scenario();
    let home = tempfile::tempdir().expect("home");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let root = repo.root().display().to_string();
    let payload = |input: &Value| {
        json!({"hookName": "tool_call", "taskId": "t", "workspaceRoots": [root],
            "tool_call": {"id": "c", "name": "run_commands", "input": input}})
        .to_string()
    };
    let cd = format!("cd {}", elsewhere.path().display());
    for input in [
        json!({"commands": ["ls", "git commit -m x"]}),
        json!({"commands": [cd, "git commit -m x"]}),
        json!({"commands": ["echo '", "git commit -m x", "'"]}),
        json!({"commands": ["cat <<\\EOF", "git commit -m x", "EOF"]}),
        json!({"commands": "git commit -m x"}),
        json!({"commands": [{"command": "git", "args": ["commit", "-m", "x"]}]}),
        json!({"commands": ["ls", {"command": "git", "args": ["commit", "-m", "x"]}]}),
        json!({"command": "git", "args": ["commit", "-m", "x"]}),
        json!({"command": "git commit -m x"}),
        json!({"cmd": "git commit -m x"}),
        json!(["ls", "git commit -m x"]),
        json!("git commit -m x"),
        // Shapes where Cline takes a later branch of its union than a loose reader would.
        json!({"command": "git", "args": ["commit", "-m", "x"], "commands": 5}),
        json!({"command": "git", "args": ["commit", "-m", "x"], "commands": [1]}),
        json!({"command": "git commit -m x", "args": null}),
        json!({"cmd": "git commit -m x", "command": 5}),
        json!({"cmd": "git commit -m x", "command": ["a"]}),
        json!({"commands": [{"command": ""}], "cmd": "git commit -m x"}),
        json!({"commands": {"command": ""}, "cmd": "git commit -m x"}),
        // Cline joins the items from a heredoc's opener to its delimiter, and runs them as one.
        json!({"commands": ["cat <<EOF | sh", "git \\", "commit -m x", "EOF"]}),
    ] {
        let out = run(home.path(), "cline", "pre-tool-use", &payload(&input));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("overrideInput") && stdout.contains("commit blocked"), "{input}: {stdout}");
    }
    // An input in no shape codeguard knows Cline to run is refused unread, not guessed at.
    for input in [json!({"commands": 5}), json!({"commands": [{"command": ""}]}), json!([1]), json!(null)] {
        let out = run(home.path(), "cline", "pre-tool-use", &payload(&input));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("overrideInput") && stdout.contains("cannot be read"), "{input}: {stdout}");
    }
    for input in [json!({"commands": ["ls", "git status"]}), json!({"command": "git", "args": ["status"]})] {
        let out = run(home.path(), "cline", "pre-tool-use", &payload(&input));
        assert!(
            out.status.success() && out.stdout.is_empty(),
            "{input}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
