//! Whole-output snapshots: everything a caller of the real `codeguard` binary observes — exit
//! code, stdout and stderr, byte for byte — compared with the reviewed files in
//! `tests/it/snapshots/` (`insta`; `cargo insta review` after an intended change).
//!
//! - `check` in every `--format` the binary offers (read from its `--help`) on a small repository
//!   with one real ruff finding (F401) and on a clean one.
//! - Every host × every hook event the host has (read from `codeguard hook capabilities`, which is
//!   generated from `Host::ALL` and the spec table), fed the host's payload fixture
//!   (`tests/fixtures/payloads/<host>/<event>.json`) as one agent session in a repository whose
//!   staged `bad.py` fails ruff: the shell-command event twice, once for a pass-through (`ls`) and
//!   once for the fixture's own `git commit`, which codeguard denies on the host's channel.
//!
//! - Every other command people and agents read, once each on one small repository
//!   ([`COMMANDS`]): `git-hook pre-commit`, `explain` (human and JSON), `fix --dry-run`, `detect`
//!   (human and JSON) and `doctor` with only git on `PATH`, `install`/`uninstall` of git's hooks
//!   and of a host's project settings, and an MCP session (handshake and an `explain` call).
//!
//! What differs from run to run is replaced by filters: the temporary repository and home, the
//! path keys in log file names, durations and the neutral contract's tracking id. A further test reads
//! every committed `.snap` file and fails on a temporary path or a duration that got through, and
//! on a snapshot no test produces any more.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::support::{TestRepo, assert_untouched, codeguard, hosts_and_events, require_tools};

const GOOD_PY: &str = "import sys\n\nprint(sys.argv)\n";
const BAD_PY: &str = "import os\n";

/// The shell-command event, where a commit is gated.
const PRE_TOOL_USE: &str = "pre-tool-use";

/// A shell command a host's pre-tool-use step asks about.
#[derive(Clone, Copy)]
struct Shell {
    /// The end of the snapshot's name.
    suffix: &'static str,
    /// The command put into the fixture; `None` keeps the fixture's own `git commit`.
    replace_with: Option<&'static str>,
}

/// What every host's pre-tool-use is asked about: a command codeguard lets through untouched, and
/// the fixture's own `git commit` of the staged, failing content.
const SHELL_COMMANDS: [Shell; 2] =
    [Shell { suffix: "ls", replace_with: Some("ls") }, Shell { suffix: "commit", replace_with: None }];

/// The `--format` values of `codeguard check`, from its `--help` (clap lists the value enum).
fn check_formats() -> Vec<String> {
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).args(["check", "--help"]).output().expect("check --help");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let after = help.split_once("--format").map(|(_, rest)| rest).expect("check has --format");
    let values = after.split_once("Possible values:").map(|(_, rest)| rest).expect("possible values");
    let formats: Vec<String> = values
        .lines()
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- ").and_then(|v| v.split_once(':')).map(|(v, _)| v.to_owned()))
        .collect();
    assert!(formats.iter().any(|f| f == "human"), "no formats read from check --help:\n{help}");
    formats
}

/// One step of a host's session: the event, and for the shell-command event which command.
struct Step {
    event: String,
    shell: Option<Shell>,
}

impl Step {
    /// The snapshot's name: host, position in the session, event (and command).
    fn name(&self, host: &str, position: usize) -> String {
        match self.shell {
            Some(shell) => format!("hook_{host}_{position}_{}_{}", self.event, shell.suffix),
            None => format!("hook_{host}_{position}_{}", self.event),
        }
    }
}

/// A host's session: its events in the contract's order, the shell-command event once per
/// command of [`SHELL_COMMANDS`].
fn session(events: &[String]) -> Vec<Step> {
    events
        .iter()
        .flat_map(|event| {
            if event == PRE_TOOL_USE {
                SHELL_COMMANDS.iter().map(|c| Step { event: event.clone(), shell: Some(*c) }).collect()
            } else {
                vec![Step { event: event.clone(), shell: None }]
            }
        })
        .collect()
}

/// The name of every snapshot this file produces.
fn snapshot_names() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for format in check_formats() {
        for outcome in ["fail", "pass"] {
            names.push(format!("check_{outcome}_{format}"));
        }
    }
    for (host, events) in hosts_and_events() {
        for (position, step) in (1..).zip(session(&events)) {
            names.push(step.name(&host, position));
        }
    }
    names.extend(COMMANDS.iter().map(|c| format!("command_{}", c.name)));
    names
}

/// One command of [`every_other_command_prints_its_whole_output`], run in order in one
/// repository (README.txt and app.py committed, bad.py staged) with one state home.
struct CommandCase {
    /// The snapshot's name after `command_`.
    name: &'static str,
    /// The arguments (`[REPO]` is the repository's path).
    args: &'static [&'static str],
    /// Standard input.
    stdin: &'static str,
    /// Only git on `PATH` (the linters missing), for what depends on which tools are found.
    only_git: bool,
    /// It changes the repository (installs): not checked as untouched.
    writes: bool,
}

const fn case(name: &'static str, args: &'static [&'static str]) -> CommandCase {
    CommandCase { name, args, stdin: "", only_git: false, writes: false }
}

/// The MCP session: the handshake, then `explain` of a commit in the repository.
const MCP_SESSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"explain","arguments":{"command":"git commit -m x","cwd":"[REPO]"}}}"#,
    "\n",
);

const COMMANDS: &[CommandCase] = &[
    case("git_hook_pre_commit", &["git-hook", "pre-commit"]),
    case("explain_human", &["explain", "--", "git commit -m x"]),
    case("explain_json", &["explain", "--format", "json", "--", "git commit -m x"]),
    case("fix_dry_run", &["fix", "--dry-run"]),
    CommandCase { only_git: true, ..case("detect_human", &["detect"]) },
    CommandCase { only_git: true, ..case("detect_json", &["detect", "--format", "json"]) },
    CommandCase { only_git: true, ..case("doctor", &["doctor"]) },
    CommandCase { writes: true, ..case("install_git_hooks", &["install", "--git-hooks"]) },
    CommandCase { writes: true, ..case("uninstall_git_hooks", &["uninstall", "--git-hooks"]) },
    CommandCase {
        writes: true,
        ..case("install_host_claude", &["install", "--host", "claude", "--project", "[REPO]"])
    },
    CommandCase {
        writes: true,
        ..case("uninstall_host_claude", &["uninstall", "--host", "claude", "--project", "[REPO]"])
    },
    CommandCase { stdin: MCP_SESSION, ..case("mcp_explain", &["mcp"]) },
];

/// The snapshot text of a finished command: exit code, then stdout and stderr exactly as written
/// (a missing final newline is marked, since insta trims the end of a snapshot).
fn render(out: &Output) -> String {
    let stream = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        if text.is_empty() || text.ends_with('\n') { text } else { format!("{text}\n[no newline at end]\n") }
    };
    format!(
        "exit: {}\n--- stdout ---\n{}--- stderr ---\n{}",
        out.status.code().map_or_else(|| "killed by a signal".to_owned(), |c| c.to_string()),
        stream(&out.stdout),
        stream(&out.stderr)
    )
}

/// The filters that replace what differs between runs, most specific first: the repository and
/// the state home of this run (as given and canonical), any other temporary directory, the key
/// of the repository's path in log file names, durations in seconds and milliseconds (with the
/// padding that aligns them), the age of a reused result, and the neutral contract's tracking id
/// (a hash of the deny text, which names the temporary paths).
fn filters(repo: &Path, home: &Path) -> Vec<(String, String)> {
    let mut filters = Vec::new();
    let mut place = |path: &Path, to: &str| {
        for form in [path.to_path_buf(), path.canonicalize().unwrap_or_else(|_| path.to_path_buf())] {
            filters.push((regex::escape(&form.display().to_string()), to.to_owned()));
        }
    };
    place(repo, "[REPO]");
    place(home, "[HOME]");
    let temp = std::env::temp_dir();
    for form in [temp.clone(), temp.canonicalize().unwrap_or(temp)] {
        filters.push((format!(r"{}/\.tmp\w+", regex::escape(&form.display().to_string())), "[TMP]".into()));
    }
    for (pattern, to) in [
        (r"\b(\w+)-[0-9a-f]{12}-([\w-]+)\.log\b", "$1-[ID]-$2.log"),
        // The human report right-aligns durations: the padding goes with the number.
        (r" +\d+\.\d+s\b", " [DURATION]"),
        (r"\b\d+(\.\d+)?s\b", "[DURATION]"),
        (r"\b\d+ ?ms\b", "[DURATION]"),
        (r#"("\w+_ms":\s*)\d+"#, "$1[MS]"),
        (r"\bfrom \d+ s ago\b", "from [N] s ago"),
        (r#""tracking_id":\s*"[^"]*""#, r#""tracking_id":"[TRACKING-ID]""#),
    ] {
        filters.push((pattern.to_owned(), to.to_owned()));
    }
    filters
}

/// Asserts the snapshot `name` of `out`, with the run's filters and a description for readers.
fn assert_output(name: &str, description: &str, out: &Output, repo: &Path, home: &Path) {
    let mut settings = insta::Settings::clone_current();
    settings.set_description(description);
    settings.set_omit_expression(true);
    for (pattern, to) in filters(repo, home) {
        settings.add_filter(&pattern, to);
    }
    settings.bind(|| insta::assert_snapshot!(name, render(out)));
}

/// A repository with `README.txt` and `app.py` committed and the extra `files` committed on top.
fn committed(files: &[(&str, &str)]) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").write("app.py", GOOD_PY);
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.commit_all("init");
    repo
}

#[test]
fn check_in_every_format_on_a_failing_and_a_passing_repository() {
    require_tools(&["ruff"]);
    let formats = check_formats();
    let cases = [("fail", &[("bad.py", BAD_PY)][..], " and bad.py (ruff F401)"), ("pass", &[][..], "")];
    for (outcome, files, extra) in cases {
        let repo = committed(files);
        for format in &formats {
            // A fresh state home: the first check of this content, no cached result to reuse.
            let home = tempfile::tempdir().expect("home");
            let out = assert_untouched(&repo.root(), || {
                codeguard(home.path())
                    .args(["check", "--format", format])
                    .arg(repo.root())
                    .output()
                    .expect("check")
            });
            let description = format!(
                "codeguard check --format {format} [REPO]: README.txt, app.py (clean){extra} committed; \
                 real ruff; a fresh state home"
            );
            assert_output(
                &format!("check_{outcome}_{format}"),
                &description,
                &out,
                &repo.root(),
                home.path(),
            );
        }
    }
}

#[test]
fn every_other_command_prints_its_whole_output() {
    let ruff = crate::support::real_tool("ruff");
    let git = crate::support::real_tool("git");
    let repo = committed(&[]);
    repo.write("bad.py", BAD_PY);
    repo.git(&["add", "bad.py"]);
    let home = tempfile::tempdir().expect("home");
    let only_git = crate::support::bin_dir_with(&[&git]);
    let binary = assert_cmd::cargo::cargo_bin("codeguard");
    let root = repo.root().display().to_string();
    for c in COMMANDS {
        let args: Vec<String> = c.args.iter().map(|a| a.replace("[REPO]", &root)).collect();
        let mut cmd = codeguard(home.path());
        cmd.current_dir(repo.root()).args(&args).env("CODEGUARD_NO_INSTALL", "1");
        if c.only_git {
            cmd.env("PATH", only_git.path());
        } else {
            let path = std::env::join_paths(
                [ruff.parent().expect("ruff's dir").to_path_buf()]
                    .into_iter()
                    .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
            )
            .expect("PATH");
            cmd.env("PATH", path);
        }
        cmd.write_stdin(c.stdin.replace("[REPO]", &root));
        let out = if c.writes {
            cmd.output().expect(c.name)
        } else {
            assert_untouched(&repo.root(), || cmd.output().expect(c.name))
        };
        let description = format!(
            "codeguard {} (in [REPO]: README.txt and app.py committed, bad.py (ruff F401) staged; {}; \
             the commands of this test run in order with one state home)",
            c.args.join(" "),
            if c.only_git { "only git on PATH" } else { "real ruff" },
        );
        let mut settings = insta::Settings::clone_current();
        settings.add_filter(&regex::escape(&binary.display().to_string()), "[CODEGUARD]");
        settings.add_filter(r#""version":"\d+\.\d+\.\d+[^"]*""#, r#""version":"[VERSION]""#);
        settings.add_filter(r"codeguard \d+\.\d+\.\d+\b", "codeguard [VERSION]");
        settings.bind(|| {
            assert_output(&format!("command_{}", c.name), &description, &out, &repo.root(), home.path());
        });
    }
}

/// Replaces the shell command of a pre-tool-use payload (the one string that is a `git commit`),
/// wherever the host puts it.
fn set_command(payload: &mut Value, command: &str) -> usize {
    match payload {
        Value::String(s) if s.starts_with("git commit") => {
            command.clone_into(s);
            1
        }
        Value::Array(items) => items.iter_mut().map(|v| set_command(v, command)).sum(),
        Value::Object(map) => map.values_mut().map(|v| set_command(v, command)).sum(),
        _ => 0,
    }
}

fn fixture(host: &str, event: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/payloads")
        .join(host)
        .join(format!("{event}.json"))
}

#[test]
fn every_host_answers_every_event_of_a_session_on_its_own_channel() {
    require_tools(&["ruff"]);
    for (host, events) in hosts_and_events() {
        // Each host gets its own session: a repository whose staged bad.py fails ruff, and a
        // fresh state home the session's records (edits checked, the stop summary) live in.
        let repo = committed(&[]);
        repo.write("bad.py", BAD_PY);
        repo.git(&["add", "bad.py"]);
        let home = tempfile::tempdir().expect("home");
        for (position, step) in (1..).zip(session(&events)) {
            let path = fixture(&host, &step.event);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut payload: Value =
                serde_json::from_str(&text.replace("__CWD__", &repo.root().display().to_string()))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut said = String::new();
            if let Some(Shell { replace_with: Some(command), .. }) = step.shell {
                assert_eq!(
                    set_command(&mut payload, command),
                    1,
                    "{}: one git commit command",
                    path.display()
                );
                said = format!(", its command replaced by `{command}`");
            } else if step.shell.is_some() {
                said = ", its own `git commit`".to_owned();
            }
            let out = assert_untouched(&repo.root(), || {
                codeguard(home.path())
                    .args(["hook", &step.event, "--host", &host])
                    .write_stdin(payload.to_string())
                    .output()
                    .expect("hook")
            });
            let description = format!(
                "codeguard hook {event} --host {host}, step {position} of one session; payload \
                 tests/fixtures/payloads/{host}/{event}.json{said}; repository: README.txt and app.py \
                 committed, bad.py (ruff F401) staged; real ruff",
                event = step.event,
            );
            assert_output(&step.name(&host, position), &description, &out, &repo.root(), home.path());
        }
    }
}

/// The committed snapshots are exactly the ones the tests above produce, and none holds what the
/// filters should have replaced.
#[test]
fn committed_snapshots_are_all_produced_and_hold_no_temporary_paths_or_durations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "snap"))
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    let mut expected: Vec<String> =
        snapshot_names().iter().map(|n| format!("it__snapshots__{n}.snap")).collect();
    on_disk.sort();
    expected.sort();
    assert_eq!(on_disk, expected, "snapshots in {} that no test produces, or missing ones", dir.display());
    let temp = std::env::temp_dir().display().to_string();
    let leaks = regex::Regex::new(r"\.tmp\w{6}|\b\d+(\.\d+)?m?s\b|_ms\x22:\s*\d").expect("regex");
    for name in &on_disk {
        let text = std::fs::read_to_string(dir.join(name)).expect("snapshot");
        assert!(!text.contains(&format!("{temp}/")), "{name} holds a temporary path");
        assert!(!leaks.is_match(&text), "{name} holds {:?}", leaks.find(&text).map(|m| m.as_str()));
    }
}

/// An agent's one-shot lint bypass (`git -c codeguard.skipGate=true commit`) is the user's to
/// grant: each host's own payload, with ruff failing on the staged file, is put to the user on
/// the host's ask channel (or, where the host has none, goes through recorded and reported);
/// passing linters ask nothing; a secret is refused outright everywhere.
#[test]
fn an_agents_lint_bypass_is_put_to_the_user_where_the_host_can_ask() {
    const BYPASS: &str = "git -c codeguard.skipGate=true commit -m skip";
    require_tools(&["ruff"]);
    let run = |host: &str, repo: &TestRepo, home: &Path| {
        let path = fixture(host, PRE_TOOL_USE);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let mut payload: Value =
            serde_json::from_str(&text.replace("__CWD__", &repo.root().display().to_string())).expect("json");
        assert_eq!(set_command(&mut payload, BYPASS), 1, "{host}");
        assert_untouched(&repo.root(), || {
            codeguard(home)
                .args(["hook", PRE_TOOL_USE, "--host", host])
                .write_stdin(payload.to_string())
                .output()
                .expect("hook")
        })
    };
    let state = |home: &Path| {
        let out = codeguard(home).args(["state", "show"]).output().expect("state show");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // (host, the JSON pointer of its "ask"), or None where the host cannot ask.
    let hosts: [(&str, Option<&str>); 9] = [
        ("claude", Some("/hookSpecificOutput/permissionDecision")),
        ("zcode", Some("/hookSpecificOutput/permissionDecision")),
        ("gemini", None),
        ("copilot", Some("/permissionDecision")),
        ("cursor", Some("/permission")),
        ("codex", None),
        ("kimi", None),
        ("openhands", None),
        ("neutral", None),
    ];
    for (host, ask) in hosts {
        let repo = committed(&[]);
        repo.write("bad.py", BAD_PY);
        repo.git(&["add", "bad.py"]);
        let home = tempfile::tempdir().expect("home");
        let out = run(host, &repo, home.path());
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let shown = state(home.path());
        if let Some(pointer) = ask {
            {
                assert_eq!(out.status.code(), Some(0), "{host}: {stderr}");
                let v: Value = serde_json::from_str(&stdout).expect("json answer");
                assert_eq!(v.pointer(pointer).and_then(Value::as_str), Some("ask"), "{host}: {v}");
                let text = v.to_string();
                assert!(
                    text.contains("the agent asks to commit without the linters")
                        && text.contains("bad.py:1:8: F401"),
                    "{host}: the user must see what is waived: {text}"
                );
                assert!(shown.contains("asked "), "{host}: the question is recorded: {shown}");
            }
        } else {
            {
                assert_eq!(out.status.code(), Some(0), "{host}: the bypass goes through: {stderr}");
                assert!(!stdout.contains("\"ask\""), "{host} must never be sent an ask: {stdout}");
                assert!(shown.contains("inline ") && shown.contains("cannot ask you"), "{host}: {shown}");
            }
        }
        // Passing linters: nothing to waive, nothing asked, nothing recorded.
        let clean = committed(&[]);
        clean.write("ok.py", GOOD_PY);
        clean.git(&["add", "ok.py"]);
        let home = tempfile::tempdir().expect("home");
        let out = run(host, &clean, home.path());
        assert_eq!(out.status.code(), Some(0), "{host}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("\"ask\""), "{host}");
        if ask.is_some() {
            assert!(state(home.path()).contains("bypasses recorded: 0"), "{host}");
        }
        // A secret is never the user's to wave through here.
        repo.write(".env", "TOKEN=1\n");
        repo.git(&["add", ".env"]);
        let home = tempfile::tempdir().expect("home");
        let out = run(host, &repo, home.path());
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains("\"ask\"") && text.contains(".env: sensitive-file"), "{host}: {text}");
        assert!(out.status.code() != Some(0) || text.contains("deny"), "{host}: {text}");
    }
}
