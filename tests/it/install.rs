//! `codeguard install --host` / `uninstall --host`: settings merged beside other tools' hooks,
//! idempotent, dry-run writes nothing, uninstall restores the original bytes.

use crate::support::codeguard;

fn run(home: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = codeguard(home).args(args).output().expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn claude_settings_keep_other_hooks_and_round_trip() {
    let home = tempfile::tempdir().expect("home");
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    let original = "{\"model\":\"opus\",\n \"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"dcg check\"}]}]}}\n";
    std::fs::write(&settings, original).expect("write");

    let (code, stdout, stderr) = run(home.path(), &["install", "--host", "claude", "--dry-run"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("would change")
            && stdout.contains("+ ")
            && stdout.contains("hook pre-tool-use --host claude"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), original, "dry run writes nothing");

    assert_eq!(run(home.path(), &["install", "--host", "claude"]).0, Some(0));
    let once = std::fs::read_to_string(&settings).expect("read");
    let json: serde_json::Value = serde_json::from_str(&once).expect("json");
    assert_eq!(json["model"], "opus");
    let pre = json["hooks"]["PreToolUse"].as_array().expect("list");
    assert_eq!(pre[0]["hooks"][0]["command"], "dcg check", "theirs intact and first");
    assert!(
        pre[1]["hooks"][0]["command"].as_str().expect("ours").ends_with("hook pre-tool-use --host claude")
    );
    assert_eq!(pre[1]["hooks"][0]["timeout"], 120);
    for event in ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"] {
        assert!(json["hooks"][event].is_array(), "{event}");
    }

    let (_, stdout, _) = run(home.path(), &["install", "--host", "claude"]);
    assert!(stdout.contains("nothing changed"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), once, "install twice changes nothing");

    let (code, stdout, _) = run(home.path(), &["uninstall", "--host", "claude"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("restored"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        original,
        "uninstall restores the original bytes"
    );
}

#[test]
fn project_scope_kimi_toml_and_fresh_files() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let dir = project.path().to_str().expect("utf8");
    assert_eq!(run(home.path(), &["install", "--host", "copilot", "--project", dir]).0, Some(0));
    let copilot = project.path().canonicalize().expect("canon").join(".github/hooks/codeguard.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&copilot).expect("read")).expect("json");
    assert_eq!(json["version"], 1);
    assert_eq!(json["hooks"]["preToolUse"][0]["timeoutSec"], 120);
    assert!(
        json["hooks"]["preToolUse"][0]["bash"]
            .as_str()
            .expect("cmd")
            .ends_with("hook pre-tool-use --host copilot")
    );
    let (_, stdout, _) = run(home.path(), &["uninstall", "--host", "copilot", "--project", dir]);
    assert!(stdout.contains("removed") && !copilot.exists(), "{stdout}");

    let kimi = home.path().join(".kimi-code/config.toml");
    std::fs::create_dir_all(kimi.parent().expect("dir")).expect("mkdir");
    std::fs::write(&kimi, "# mine\n[model]\nname = \"k2\"\n").expect("write");
    assert_eq!(run(home.path(), &["install", "--host", "kimi"]).0, Some(0));
    let text = std::fs::read_to_string(&kimi).expect("read");
    assert!(
        text.starts_with("# mine\n[model]\nname = \"k2\"\n") && text.contains("event = \"PreToolUse\""),
        "{text}"
    );
    run(home.path(), &["uninstall", "--host", "kimi"]);
    assert_eq!(std::fs::read_to_string(&kimi).expect("read"), "# mine\n[model]\nname = \"k2\"\n");
}

#[test]
fn bad_targets_are_usage_errors_and_broken_settings_are_left_alone() {
    let home = tempfile::tempdir().expect("home");
    assert_eq!(run(home.path(), &["install", "--host", "vim"]).0, Some(2));
    assert_eq!(run(home.path(), &["install", "--host", "kimi", "--project", "."]).0, Some(2));
    assert_eq!(run(home.path(), &["install"]).0, Some(2));
    let settings = home.path().join(".codex/hooks.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    std::fs::write(&settings, "{ not json").expect("write");
    let (code, _, stderr) = run(home.path(), &["install", "--host", "codex"]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), "{ not json");
}

#[test]
fn doctor_reports_missing_hooks_unreachable_linters_and_a_healthy_setup() {
    let Some(ruff) = crate::support::real_tool("ruff") else { return };
    let home = tempfile::tempdir().expect("home");
    let repo = crate::support::TestRepo::new();
    repo.write("a.py", "x = 1\n").commit_all("init");
    let bin = crate::support::bin_dir_with(&[&ruff]);
    let doctor = |args: &[&str]| {
        let out = codeguard(home.path())
            .env("PATH", bin.path())
            .args(args)
            .current_dir(repo.root())
            .output()
            .expect("run");
        (out.status.code(), crate::support::json_stdout(&out))
    };
    let (code, json) = doctor(&["doctor", "--host", "claude", "--format", "json"]);
    assert_eq!((code, json["healthy"].as_bool()), (Some(1), Some(false)), "{json}");
    assert!(json.to_string().contains("codeguard install --host claude"), "{json}");
    let linter = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "linter python")
        .expect("python");
    assert_eq!(linter["status"], "warning", "ruff is only on the shell PATH, not a GUI host's: {linter}");

    assert_eq!(run(home.path(), &["install", "--host", "claude"]).0, Some(0));
    let (code, json) = doctor(&["doctor", "--host", "claude", "--format", "json"]);
    assert_eq!((code, json["healthy"].as_bool()), (Some(0), Some(true)), "{json}");
    assert!(
        json["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .any(|c| c["name"] == "state directory" && c["status"] == "ok")
    );
}

#[test]
fn mcp_registration_round_trips_for_claude_gemini_and_codex() {
    let home = tempfile::tempdir().expect("home");
    let claude_json = home.path().join(".claude.json");
    let claude_original = "{\"numStartups\": 3, \"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}}}\n";
    std::fs::write(&claude_json, claude_original).expect("write");
    let gemini = home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().expect("dir")).expect("mkdir");
    let gemini_original = "{\"theme\": \"dark\"}\n";
    std::fs::write(&gemini, gemini_original).expect("write");
    let codex = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(codex.parent().expect("dir")).expect("mkdir");
    let codex_original = "model = \"o4\"\n";
    std::fs::write(&codex, codex_original).expect("write");

    for host in ["claude", "gemini", "codex"] {
        let (code, stdout, stderr) = run(home.path(), &["install", "--host", host, "--mcp"]);
        assert_eq!(code, Some(0), "{host}: {stderr}");
        assert!(stdout.contains("MCP server registration"), "{stdout}");
    }
    let claude: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&claude_json).expect("read")).expect("json");
    assert_eq!(claude["numStartups"], 3);
    assert_eq!(claude["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(claude["mcpServers"]["codeguard"]["args"], serde_json::json!(["mcp"]));
    let exe = claude["mcpServers"]["codeguard"]["command"].as_str().expect("command").to_owned();
    assert!(std::path::Path::new(&exe).is_absolute() && exe.contains("codeguard"), "{exe}");
    let gemini_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&gemini).expect("read")).expect("json");
    assert_eq!(gemini_json["mcpServers"]["codeguard"]["command"], exe.as_str());
    assert!(gemini_json["hooks"]["BeforeTool"].is_array(), "hooks and the server share Gemini's file");
    let codex_text = std::fs::read_to_string(&codex).expect("read");
    assert!(
        codex_text.starts_with(codex_original) && codex_text.contains("[mcp_servers.codeguard]"),
        "{codex_text}"
    );
    assert!(home.path().join(".codex/hooks.json").is_file(), "codex hooks are installed too");

    let (_, again, _) = run(home.path(), &["install", "--host", "codex", "--mcp"]);
    assert!(again.matches("nothing changed").count() == 2, "idempotent: {again}");

    for host in ["claude", "gemini", "codex"] {
        let (code, _, stderr) = run(home.path(), &["uninstall", "--host", host, "--mcp"]);
        assert_eq!(code, Some(0), "{host}: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(&claude_json).expect("read"), claude_original, "byte for byte");
    assert_eq!(std::fs::read_to_string(&gemini).expect("read"), gemini_original, "byte for byte");
    assert_eq!(std::fs::read_to_string(&codex).expect("read"), codex_original, "byte for byte");
    assert!(
        !home.path().join(".claude/settings.json").exists()
            && !home.path().join(".codex/hooks.json").exists()
    );

    let (code, _, stderr) = run(home.path(), &["install", "--host", "cursor", "--mcp"]);
    assert_eq!(code, Some(2), "no MCP registration for cursor: {stderr}");
    assert!(stderr.contains("claude, codex and gemini"), "{stderr}");
}
