//! `codeguard mcp` end to end: the real binary speaks JSON-RPC over its stdin/stdout — the MCP
//! handshake, the tool list, a `check` that finds a real ruff failure in a temp repository,
//! JSON-RPC errors for what is not a fitting message, and every tool's structured content
//! validated against the `outputSchema` it declares.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    TestRepo, language_ids, mcp_command, registry_language_ids, require_tools, schema_errors,
};

/// A running `codeguard mcp` with a line reader on its stdout.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _home: tempfile::TempDir,
}

impl Session {
    fn start() -> Self {
        let home = tempfile::tempdir().expect("home");
        let mut child = mcp_command(home.path(), &[("SECRET_TOKEN_FOR_TEST", "do-not-leak-4711")])
            .spawn()
            .expect("spawn codeguard mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self { child, stdin, lines, _home: home }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next message on stdout (every stdout line must be a JSON-RPC message).
    fn next(&self) -> (Value, String) {
        let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("an answer within 60 s");
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        (message, line)
    }

    /// The answer to request `id`.
    fn answer(&self, id: u64) -> (Value, String) {
        loop {
            let (message, line) = self.next();
            if message["id"] == id {
                return (message, line);
            }
        }
    }

    /// Writes one raw line.
    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> (Value, String) {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        message["params"] = params;
        self.send(&message);
        self.answer(id)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialised() -> Session {
    let mut session = Session::start();
    let (init, _) = session.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "codeguard", "{init:#}");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert!(init["result"]["capabilities"]["tools"].is_object(), "{init:#}");
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    session
}

#[test]
fn handshake_tool_list_and_a_failing_check() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("app/main.py", "import os\nimport sys\n\nprint(sys.argv)\n").commit_all("init");
    let mut session = initialised();

    let (list, _) = session.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["check", "explain", "fix", "languages"]);
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"), "{list:#}");

    let (call, raw) = session.request(
        3,
        "tools/call",
        json!({"name": "check", "arguments": {"path": repo.root(), "languages": ["python"]}}),
    );
    let result = &call["result"];
    assert_ne!(result["isError"], true, "{call:#}");
    let text = result["content"][0]["text"].as_str().expect("text content");
    let report: Value = serde_json::from_str(text).expect("the text is the JSON report");
    assert_eq!(report, result["structuredContent"], "text and structured content agree");
    assert_eq!(report["schema_version"], "1");
    assert_eq!(report["status"], "FAIL");
    assert_eq!(report["scope"], "all");
    assert_eq!(report["languages"][0]["language"], "python");
    assert_eq!(report["languages"][0]["status"], "FAIL");
    assert_eq!(report["languages"][0]["files"], json!(["app/main.py"]));
    assert!(report["languages"][0]["log_path"].is_string());
    assert!(!raw.contains("do-not-leak-4711") && !raw.contains("SECRET_TOKEN"), "no environment in results");
}

#[test]
fn other_tools_and_errors() {
    let repo = TestRepo::new();
    repo.write("a.py", "import sys\n\nprint(sys.argv)\n").commit_all("init");
    let mut session = initialised();

    let (explain, _) = session.request(
        2,
        "tools/call",
        json!({"name": "explain", "arguments": {"command": "git commit -am wip", "cwd": repo.root()}}),
    );
    let doc = &explain["result"]["structuredContent"];
    assert_eq!(doc["guarded"], true, "{explain:#}");
    assert_eq!(doc["mode"], "commit");

    let (languages, _) = session.request(3, "tools/call", json!({"name": "languages", "arguments": {}}));
    let ids = language_ids(&languages["result"]["structuredContent"]["languages"]);
    assert_eq!(ids, registry_language_ids());

    repo.write("a.py", "import os\nimport sys\n\nprint(sys.argv)\n");
    let (fix, _) = session.request(
        4,
        "tools/call",
        json!({"name": "fix", "arguments": {"path": repo.root(), "dry_run": true}}),
    );
    let report = &fix["result"]["structuredContent"];
    assert_eq!(report["dry_run"], true, "{fix:#}");
    assert_eq!(report["formatters"][0]["status"], "PLANNED");
    assert_eq!(
        std::fs::read_to_string(repo.path("a.py")).expect("read"),
        "import os\nimport sys\n\nprint(sys.argv)\n"
    );

    let (bad, _) = session.request(5, "tools/call", json!({"name": "check", "arguments": {"colour": "red"}}));
    assert_eq!(bad["result"]["isError"], true, "{bad:#}");
    assert!(bad["result"]["content"][0]["text"].as_str().expect("text").contains("unknown field"));
    let (unknown, _) = session.request(6, "tools/call", json!({"name": "deploy", "arguments": {}}));
    assert!(
        unknown["error"]["message"].as_str().expect("error").contains("unknown tool: deploy"),
        "{unknown:#}"
    );

    drop(session.stdin.take());
    let status = session.child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "closing stdin ends the server cleanly");
}

#[test]
fn a_deeply_nested_explain_answers_and_the_server_keeps_answering() {
    let repo = TestRepo::new();
    repo.write("a.py", "import sys\n\nprint(sys.argv)\n").commit_all("init");
    let mut session = initialised();
    for (id, levels) in [(2, 2_000), (3, 20_000)] {
        let command = format!("echo {}x{} ; git commit -am wip", "$(".repeat(levels), ")".repeat(levels));
        let (explain, raw) = session.request(
            id,
            "tools/call",
            json!({"name": "explain", "arguments": {"command": command, "cwd": repo.root()}}),
        );
        let doc = &explain["result"]["structuredContent"];
        assert_eq!(doc["guarded"], true, "{levels} levels: {}", &raw[..raw.len().min(2000)]);
    }
    let (explain, _) = session.request(
        4,
        "tools/call",
        json!({"name": "explain", "arguments": {"command": "git commit -am wip", "cwd": repo.root()}}),
    );
    assert_eq!(explain["result"]["structuredContent"]["mode"], "commit", "{explain:#}");
}

#[test]
fn stdin_closed_before_initialize_exits_0_and_prints_nothing() {
    let home = tempfile::tempdir().expect("home");
    let mut command = mcp_command(home.path(), &[]);
    command.stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("spawn codeguard mcp");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        (Some(0), "", "")
    );
}

#[test]
fn what_is_not_a_fitting_message_gets_its_json_rpc_error_and_the_server_answers_on() {
    let mut session = Session::start();
    // Before `initialize` as well as after it.
    session.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    let (parse, _) = session.next();
    assert_eq!(parse["error"]["code"], -32700, "{parse:#}");
    assert!(parse["error"]["message"].as_str().expect("message").starts_with("Parse error: "), "{parse:#}");
    drop(session);

    let mut session = initialised();
    session.send_line("not json");
    let (parse, _) = session.next();
    assert_eq!((&parse["error"]["code"], parse.get("id")), (&json!(-32700), None), "{parse:#}");
    session.send_line("[1, 2]");
    let (invalid, _) = session.next();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid:#}");

    for (id, arguments, kind) in
        [(2, json!([1]), "an array"), (3, json!("path=."), "a string"), (4, json!(7), "a number")]
    {
        let (answer, _) = session.request(id, "tools/call", json!({"name": "check", "arguments": arguments}));
        assert_eq!(
            answer["error"],
            json!({"code": -32602, "message": format!("invalid params for tools/call: `arguments` must be an object, not {kind}")}),
            "{answer:#}"
        );
    }
    let (nameless, _) = session.request(5, "tools/call", json!({"arguments": {}}));
    assert_eq!(
        nameless["error"],
        json!({"code": -32602, "message": "invalid params for tools/call: missing field `name`"}),
        "{nameless:#}"
    );
    let (unknown, _) = session.request(6, "tools/deploy", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown:#}");

    let (languages, _) = session.request(7, "tools/call", json!({"name": "languages", "arguments": {}}));
    assert_eq!(languages["result"]["structuredContent"]["schema_version"], "1", "{languages:#}");
    drop(session.stdin.take());
    assert_eq!(session.child.wait().expect("wait").code(), Some(0));
}

#[test]
fn check_outside_a_repository_says_so() {
    let plain = tempfile::tempdir().expect("plain dir");
    std::fs::write(plain.path().join("a.py"), "import os\n").expect("write");
    let dir = plain.path().canonicalize().expect("canonical");
    let mut session = initialised();
    for (id, staged) in [(2, false), (3, true)] {
        let (answer, _) = session.request(
            id,
            "tools/call",
            json!({"name": "check", "arguments": {"path": dir, "staged": staged}}),
        );
        assert_eq!(answer["result"]["isError"], true, "{answer:#}");
        let text = answer["result"]["content"][0]["text"].as_str().expect("text");
        let expected = format!(
            "codeguard: `check` needs a git repository: cannot open the git repository at {}: ",
            dir.display()
        );
        assert!(text.starts_with(&expected), "{text}");
    }
    // A directory inside a repository is not outside it.
    let repo = TestRepo::new();
    repo.write("app/main.py", "import sys\n\nprint(sys.argv)\n").commit_all("init");
    let arguments = json!({"path": repo.path("app"), "languages": ["yaml"]});
    let (inside, _) = session.request(4, "tools/call", json!({"name": "check", "arguments": arguments}));
    assert_eq!(inside["result"]["structuredContent"]["root"], json!(repo.path("app")), "{inside:#}");
}

#[test]
fn every_tool_declares_an_output_schema_its_structured_content_matches() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("app/main.py", "import sys\n\nprint(sys.argv)\n").commit_all("init");
    repo.write("app/main.py", "import os\nimport sys\n\nprint(sys.argv)\n");
    repo.write("config.env", "AWS_ACCESS_KEY_ID=AKIAQWERTYUIOPASDFGH\n");
    repo.git(&["add", "-A"]);
    let mut session = initialised();
    let (list, _) = session.request(2, "tools/list", json!({}));
    let schemas: Vec<(String, Value)> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().expect("name").to_owned(), t["outputSchema"].clone()))
        .collect();
    assert!(schemas.iter().all(|(_, s)| s["type"] == "object"), "{list:#}");

    let root = repo.root();
    let calls = [
        ("check", json!({"path": root, "languages": ["python"]})),
        ("check", json!({"path": root, "staged": true})),
        ("explain", json!({"command": "git add -A && git commit -m x && git push", "cwd": root})),
        ("explain", json!({"command": "ls -la", "cwd": root})),
        ("fix", json!({"path": root, "dry_run": true})),
        ("fix", json!({"path": root, "all": true, "languages": ["python"]})),
        ("languages", json!({})),
    ];
    for (id, (name, arguments)) in (3..).zip(calls) {
        let (answer, _) = session.request(id, "tools/call", json!({"name": name, "arguments": arguments}));
        let content = &answer["result"]["structuredContent"];
        assert!(content.is_object() && answer["result"]["isError"] != true, "{answer:#}");
        let schema = &schemas.iter().find(|(n, _)| n == name).expect("declared").1;
        let errors = schema_errors(schema, content);
        assert!(
            errors.is_empty(),
            "{name} {arguments}: the result does not match its outputSchema:\n{}",
            errors.join("\n")
        );
        if name == "check" && arguments["staged"] == true {
            let kinds: Vec<&Value> =
                content["safety"].as_array().expect("safety").iter().map(|f| &f["kind"]).collect();
            assert_eq!(kinds, ["sensitive-file", "secret"], "findings are validated too: {content:#}");
        }
        // The schema is strict: a field it does not know fails.
        let mut extra = content.clone();
        extra["unexpected"] = json!(1);
        assert_eq!(schema_errors(schema, &extra).len(), 1, "{name}: extra field accepted");
    }
}
