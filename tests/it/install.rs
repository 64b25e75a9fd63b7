//! `codeguard install --host` / `uninstall --host`: settings merged beside other tools' hooks,
//! idempotent, dry-run writes nothing, uninstall restores the original bytes.

use crate::support::codeguard;
use std::fmt::Write as _;

/// The pre-tool-use hook's timeout (seconds) codeguard writes into a host's settings.
const PRE_TOOL_USE_TIMEOUT_S: u64 = 120;

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
    assert_eq!(pre[1]["hooks"][0]["timeout"], PRE_TOOL_USE_TIMEOUT_S);
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
    assert_eq!(json["hooks"]["preToolUse"][0]["timeoutSec"], PRE_TOOL_USE_TIMEOUT_S);
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
    let ruff = crate::support::real_tool("ruff");
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
    assert!(again.matches("nothing changed").count() == 4, "idempotent: {again}");

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

/// SHA-256 of the canonical JSON Codex hashes for one handler (keys sorted, no whitespace),
/// written the way Codex writes `trusted_hash` — computed here independently of codeguard.
fn codex_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    use sha2::Digest as _;
    let matcher = matcher.map(|m| format!(",\"matcher\":{}", serde_json::json!(m))).unwrap_or_default();
    let text = format!(
        "{{\"event_name\":\"{event}\",\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]{matcher}}}",
        serde_json::json!(command)
    );
    let digest = sha2::Sha256::digest(text.as_bytes());
    let hex: Vec<String> = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{}", hex.concat())
}

#[test]
fn codex_install_records_hook_trust_as_codex_does_and_uninstall_removes_it() {
    let home = tempfile::tempdir().expect("home");
    let codex_home = home.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).expect("mkdir");
    let config = codex_home.join("config.toml");
    let original = "model = \"o4\"\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n";
    std::fs::write(&config, original).expect("write");
    let with_home = |args: &[&str]| {
        let out = codeguard(home.path()).env("CODEX_HOME", &codex_home).args(args).output().expect("run");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, stdout) = with_home(&["install", "--host", "codex"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("consent"), "the output says the install is the consent: {stdout}");
    let hooks_path = codex_home.join("hooks.json");
    let hooks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks_path).expect("hooks.json in CODEX_HOME"))
            .expect("json");
    let text = std::fs::read_to_string(&config).expect("config");
    assert!(text.starts_with(original), "the user's config is kept: {text}");
    for (event, snake) in [
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "user_prompt_submit"),
        ("PreToolUse", "pre_tool_use"),
        ("PostToolUse", "post_tool_use"),
        ("Stop", "stop"),
    ] {
        let group = &hooks["hooks"][event][0];
        let handler = &group["hooks"][0];
        let hash = codex_hash(
            snake,
            group["matcher"].as_str(),
            handler["command"].as_str().expect("command"),
            handler["timeout"].as_u64().expect("timeout"),
        );
        let record =
            format!("[hooks.state.\"{}:{snake}:0:0\"]\ntrusted_hash = \"{hash}\"\n", hooks_path.display());
        assert!(text.contains(&record), "{event}: no trust record {record} in\n{text}");
    }
    let (_, again) = with_home(&["install", "--host", "codex"]);
    assert_eq!(again.matches("nothing changed").count(), 3, "idempotent (hooks, trust, backstop): {again}");
    let (code, _) = with_home(&["uninstall", "--host", "codex"]);
    assert_eq!(code, Some(0));
    assert_eq!(std::fs::read_to_string(&config).expect("config"), original, "trust removed byte for byte");
    assert!(!hooks_path.exists());
}

/// Gemini's trusted-folders file in an isolated home.
fn gemini_trusted(home: &std::path::Path) -> std::path::PathBuf {
    home.join(".gemini/trustedFolders.json")
}

#[test]
fn gemini_project_install_in_an_untrusted_folder_says_so_and_can_trust_it() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let dir = project.path().canonicalize().expect("canon");
    let dir_text = dir.to_str().expect("utf8");
    let (code, stdout, stderr) = run(home.path(), &["install", "--host", "gemini", "--project", dir_text]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("inactive") && stdout.contains("--user") && stdout.contains("--trust-folder"),
        "an untrusted folder's hooks are never loaded by Gemini; say so: {stdout}"
    );
    assert!(!gemini_trusted(home.path()).exists(), "nothing trusted without asking");

    let (code, stdout, stderr) =
        run(home.path(), &["install", "--host", "gemini", "--project", dir_text, "--trust-folder"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("inactive"), "{stdout}");
    let trusted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(gemini_trusted(home.path())).expect("written"))
            .expect("json");
    assert_eq!(trusted[dir_text], "TRUST_FOLDER", "{trusted}");

    // A parent folder trusted by the user counts, through Gemini's own rules.
    let nested = dir.join("sub");
    std::fs::create_dir_all(&nested).expect("mkdir");
    let (_, stdout, _) =
        run(home.path(), &["install", "--host", "gemini", "--project", nested.to_str().expect("utf8")]);
    assert!(!stdout.contains("inactive"), "a subfolder of a trusted folder is trusted: {stdout}");
}

#[test]
fn kimi_install_reaches_both_kimi_cli_and_kimi_code() {
    let home = tempfile::tempdir().expect("home");
    let (code, stdout, stderr) = run(home.path(), &["install", "--host", "kimi"]);
    assert_eq!(code, Some(0), "{stderr}");
    for file in [".kimi/config.toml", ".kimi-code/config.toml"] {
        let text = std::fs::read_to_string(home.path().join(file))
            .unwrap_or_else(|e| panic!("{file} not written ({e}): {stdout}"));
        assert!(text.contains("hook pre-tool-use --host kimi"), "{file}: {text}");
    }
    let (code, _, _) = run(home.path(), &["uninstall", "--host", "kimi"]);
    assert_eq!(code, Some(0));
    assert!(
        !home.path().join(".kimi/config.toml").exists()
            && !home.path().join(".kimi-code/config.toml").exists()
    );

    let share = home.path().join("share");
    let out = codeguard(home.path())
        .env("KIMI_SHARE_DIR", &share)
        .env("KIMI_CODE_HOME", home.path().join("code-home"))
        .args(["install", "--host", "kimi"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(share.join("config.toml")).expect("KIMI_SHARE_DIR").contains("--host kimi")
    );
    assert!(home.path().join("code-home/config.toml").is_file(), "KIMI_CODE_HOME");
    assert!(!home.path().join(".kimi/config.toml").exists(), "the env var replaces the default");
}

#[test]
fn openhands_matcher_covers_every_shell_tool_name_the_decoder_accepts() {
    let home = tempfile::tempdir().expect("home");
    assert_eq!(run(home.path(), &["install", "--host", "openhands"]).0, Some(0));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".openhands/hooks.json")).expect("read"),
    )
    .expect("json");
    let matcher = json["hooks"]["PreToolUse"][0]["matcher"].as_str().expect("matcher");
    // OpenHands treats a matcher holding regex characters as an anchored regex, else exact.
    let covers = |name: &str| {
        if matcher.chars().any(|c| "|.*+?[]()^$\\".contains(c)) {
            regex::Regex::new(&format!("^(?:{matcher})$")).expect("regex").is_match(name)
        } else {
            matcher == name
        }
    };
    for name in ["terminal", "execute_bash", "bash"] {
        assert!(covers(name), "`{name}` is a shell tool the decoder accepts but `{matcher}` misses it");
    }
}

/// `codeguard doctor --host H --format json` in `cwd` with extra environment: exit code and the
/// problems (name: detail).
fn doctor_problems(
    home: &std::path::Path,
    host: &str,
    cwd: &std::path::Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> (Option<i32>, Vec<String>) {
    let mut cmd = codeguard(home);
    cmd.args(["doctor", "--host", host, "--format", "json"]).current_dir(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run");
    let json = crate::support::json_stdout(&out);
    let problems = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "problem")
        .map(|c| format!("{}: {}", c["name"].as_str().unwrap_or(""), c["detail"].as_str().unwrap_or("")))
        .collect();
    (out.status.code(), problems)
}

#[test]
fn doctor_is_healthy_after_install_and_names_codex_hooks_codex_will_not_run() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    assert_eq!(run(home.path(), &["install", "--host", "codex"]).0, Some(0));
    let (code, problems) = doctor_problems(home.path(), "codex", cwd.path(), &[]);
    assert_eq!((code, &problems), (Some(0), &Vec::new()), "a fresh install is healthy");

    // The hooks without their trust records (an older install, or a review Codex never saw).
    let config = home.path().join(".codex/config.toml");
    std::fs::remove_file(&config).expect("drop the trust records");
    let (code, problems) = doctor_problems(home.path(), "codex", cwd.path(), &[]);
    assert_eq!(code, Some(1), "{problems:?}");
    assert!(
        problems.iter().any(|p| p.contains("not trusted") && p.contains("codeguard install --host codex")),
        "{problems:?}"
    );
}

#[test]
fn doctor_names_a_gemini_project_install_in_an_untrusted_folder() {
    let home = tempfile::tempdir().expect("home");
    let repo = crate::support::TestRepo::new();
    let root = repo.root().canonicalize().expect("canon");
    let dir = root.to_str().expect("utf8");
    assert_eq!(run(home.path(), &["install", "--host", "gemini", "--user"]).0, Some(0));
    assert_eq!(run(home.path(), &["install", "--host", "gemini", "--project", dir]).0, Some(0));
    let (code, problems) = doctor_problems(home.path(), "gemini", &root, &[]);
    assert_eq!(code, Some(1), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("not trust") && p.contains("--trust-folder")), "{problems:?}");
    assert_eq!(
        run(home.path(), &["install", "--host", "gemini", "--project", dir, "--trust-folder"]).0,
        Some(0)
    );
    let (code, problems) = doctor_problems(home.path(), "gemini", &root, &[]);
    assert_eq!((code, &problems), (Some(0), &Vec::new()));
}

#[test]
fn doctor_names_a_kimi_file_the_host_does_not_read() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    assert_eq!(run(home.path(), &["install", "--host", "kimi"]).0, Some(0));
    let (code, problems) = doctor_problems(home.path(), "kimi", cwd.path(), &[]);
    assert_eq!((code, &problems), (Some(0), &Vec::new()));
    let share = home.path().join("elsewhere");
    let (code, problems) =
        doctor_problems(home.path(), "kimi", cwd.path(), &[("KIMI_SHARE_DIR", share.as_os_str())]);
    assert_eq!(code, Some(1), "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("Kimi CLI") && p.contains(&share.join("config.toml").display().to_string())),
        "{problems:?}"
    );
}

#[test]
fn doctor_names_a_matcher_missing_a_shell_tool_name() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    assert_eq!(run(home.path(), &["install", "--host", "openhands"]).0, Some(0));
    let file = home.path().join(".openhands/hooks.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("terminal|execute_bash|bash|file_editor", "terminal|file_editor"))
        .expect("write");
    let (code, problems) = doctor_problems(home.path(), "openhands", cwd.path(), &[]);
    assert_eq!(code, Some(1), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("execute_bash") && p.contains("matcher")), "{problems:?}");
}

#[test]
fn doctor_runs_the_installed_command_and_names_one_that_does_not_answer() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    assert_eq!(run(home.path(), &["install", "--host", "claude"]).0, Some(0));
    let (code, problems) = doctor_problems(home.path(), "claude", cwd.path(), &[]);
    assert_eq!((code, &problems), (Some(0), &Vec::new()));
    // An executable called codeguard that answers nothing: it would let every commit through.
    let fake = home.path().join("bin/codeguard");
    std::fs::create_dir_all(fake.parent().expect("dir")).expect("mkdir");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").expect("write");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let settings = home.path().join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("read");
    let exe = assert_cmd::cargo::cargo_bin("codeguard");
    std::fs::write(&settings, text.replace(exe.to_str().expect("utf8"), fake.to_str().expect("utf8")))
        .expect("write");
    let (code, problems) = doctor_problems(home.path(), "claude", cwd.path(), &[]);
    assert_eq!(code, Some(1), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("did not block")), "{problems:?}");
}

#[test]
fn codex_user_and_project_installs_keep_each_others_trust_records() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let dir = project.path().canonicalize().expect("canon");
    let dir_text = dir.to_str().expect("utf8");
    let config = home.path().join(".codex/config.toml");
    assert_eq!(run(home.path(), &["install", "--host", "codex"]).0, Some(0));
    let user_only = std::fs::read_to_string(&config).expect("config");
    let (code, stdout, _) = run(home.path(), &["install", "--host", "codex", "--project", dir_text]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("inactive") && stdout.contains("trust_level"),
        "an untrusted project says so: {stdout}"
    );
    let both = std::fs::read_to_string(&config).expect("config");
    let user_key = format!("{}:pre_tool_use:0:0", home.path().join(".codex/hooks.json").display());
    let project_key = format!("{}:pre_tool_use:0:0", dir.join(".codex/hooks.json").display());
    assert!(both.contains(&user_key) && both.contains(&project_key), "{both}");
    assert_eq!(run(home.path(), &["uninstall", "--host", "codex", "--project", dir_text]).0, Some(0));
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        user_only,
        "the user install's trust stays"
    );
    assert_eq!(run(home.path(), &["uninstall", "--host", "codex"]).0, Some(0));
    assert!(!config.exists(), "nothing of ours is left");
}

/// What `install` printed before provisioning tools is a report too: when stdout cannot take it
/// (a full disk), the install says so and ends in its internal-error code, not 0.
#[cfg(target_os = "linux")]
#[test]
fn an_install_whose_report_cannot_be_written_is_an_error() {
    let home = tempfile::tempdir().expect("home");
    let empty = tempfile::tempdir().expect("cwd");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("codeguard"));
    cmd.args(["install", "--host", "claude"])
        .current_dir(empty.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("CODEGUARD_HOME", home.path().join(".codeguard"))
        .envs(crate::support::git_env());
    assert_eq!(crate::support::with_unwritable_stdout(&mut cmd), Some(1));
    assert!(home.path().join(".claude/settings.json").is_file(), "the install itself was done");
}

/// Qwen Code: its user settings (moved whole by `QWEN_HOME`) get Claude-shaped hooks with
/// `timeout` in seconds and matchers naming its shell tools (`monitor` runs commands too); doctor
/// is healthy, then names the entry the user removed; uninstall gives back the file byte for byte,
/// another tool's hook and Qwen Code's own settings kept.
#[test]
fn qwen_install_doctor_and_uninstall_round_trip() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    let qwen_home = home.path().join("qwen-home");
    std::fs::create_dir_all(&qwen_home).expect("mkdir");
    let settings = qwen_home.join("settings.json");
    let theirs = "{\n  \"$version\": 4,\n  \"general\": {\"enableAutoUpdate\": false},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"other-tool\"}]}]}\n}\n";
    std::fs::write(&settings, theirs).expect("write");
    let with_home = |args: &[&str]| {
        codeguard(home.path())
            .args(args)
            .env("QWEN_HOME", &qwen_home)
            .current_dir(cwd.path())
            .output()
            .expect("run")
    };
    assert_eq!(with_home(&["install", "--host", "qwen"]).status.code(), Some(0));
    assert!(!home.path().join(".qwen").exists(), "QWEN_HOME replaces ~/.qwen");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("json");
    let pre = json["hooks"]["PreToolUse"].as_array().expect("PreToolUse");
    assert!(
        pre.iter().any(|g| g["hooks"][0]["command"] == "other-tool"),
        "the other tool's hook stays: {json}"
    );
    let ours =
        pre.iter().find(|g| g["hooks"][0]["command"].as_str().is_some_and(|c| c.contains("--host qwen")));
    let ours = ours.expect("codeguard's PreToolUse entry");
    assert_eq!(ours["hooks"][0]["timeout"], 120, "seconds, under Qwen Code's reading");
    let matcher = ours["matcher"].as_str().expect("matcher");
    for tool in ["run_shell_command", "monitor", "write_file", "edit", "notebook_edit"] {
        assert!(matcher.split('|').any(|m| m == tool), "{tool} in {matcher}");
    }
    for event in ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"] {
        assert!(json["hooks"][event].is_array(), "{event}: {json}");
    }
    let doctor = |expect: i32| {
        let out = with_home(&["doctor", "--host", "qwen", "--format", "json"]);
        assert_eq!(out.status.code(), Some(expect), "{}", String::from_utf8_lossy(&out.stdout));
    };
    doctor(0);
    // The user takes codeguard's PreToolUse entry out by hand.
    let mut edited = json.clone();
    edited["hooks"]["PreToolUse"]
        .as_array_mut()
        .expect("array")
        .retain(|g| !g["hooks"][0]["command"].as_str().is_some_and(|c| c.contains("--host qwen")));
    std::fs::write(&settings, serde_json::to_string_pretty(&edited).expect("json")).expect("write");
    doctor(1);
    assert_eq!(with_home(&["install", "--host", "qwen"]).status.code(), Some(0));
    assert_eq!(with_home(&["uninstall", "--host", "qwen"]).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), theirs, "byte for byte");

    // A file the install made, which Qwen Code then stamped with its settings version when it
    // read it, goes away with the uninstall.
    std::fs::remove_file(&settings).expect("remove");
    assert_eq!(with_home(&["install", "--host", "qwen"]).status.code(), Some(0));
    let mut stamped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("json");
    stamped["$version"] = 4.into();
    std::fs::write(&settings, serde_json::to_string_pretty(&stamped).expect("json")).expect("write");
    assert_eq!(with_home(&["uninstall", "--host", "qwen"]).status.code(), Some(0));
    assert!(!settings.exists(), "the file held only codeguard's entries and Qwen Code's version stamp");
}

/// ari: a marked block of `[[hooks.EVENT]]` tables in `~/.ari/config.toml` (the user layer, which
/// ari always runs); doctor is healthy, then names the table the user removed; uninstall gives
/// the config back byte for byte; a project install is refused (ari runs those only after
/// `ari trust`).
#[test]
fn ari_install_doctor_and_uninstall_round_trip() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    let config = home.path().join(".ari/config.toml");
    std::fs::create_dir_all(config.parent().expect("dir")).expect("mkdir");
    let theirs = "[provider.local]\nkind = \"openai\"\n";
    std::fs::write(&config, theirs).expect("write");
    let go = |args: &[&str]| codeguard(home.path()).args(args).current_dir(cwd.path()).output().expect("run");
    assert_eq!(go(&["install", "--host", "ari"]).status.code(), Some(0));
    let text = std::fs::read_to_string(&config).expect("read");
    assert!(
        text.starts_with(theirs) && text.contains("[[hooks.PreToolUse]]\nmatcher = \"sh|edit|write\""),
        "{text}"
    );
    assert_eq!(go(&["doctor", "--host", "ari"]).status.code(), Some(0));
    // The user deletes codeguard's PreToolUse table by hand.
    let start = text.find("[[hooks.PreToolUse]]").expect("table");
    let end = start + text[start..].find("[[hooks.PostToolUse]]").expect("next");
    std::fs::write(&config, format!("{}{}", &text[..start], &text[end..])).expect("write");
    let out = go(&["doctor", "--host", "ari"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(go(&["uninstall", "--host", "ari"]).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&config).expect("read"), theirs, "byte for byte");
    let out = go(&["install", "--host", "ari", "--project", &cwd.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ari trust"));
}

/// goose: a plugin directory of codeguard's own (`~/.agents/plugins/codeguard/hooks/hooks.json`,
/// under `$GOOSE_PATH_ROOT` when set), Claude-shaped with anchored matchers (goose's are
/// unanchored regexes); doctor is healthy, then names the entry the user removed; uninstall takes
/// the file away.
#[test]
fn goose_install_doctor_and_uninstall_round_trip() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    let root = home.path().join("goose-root");
    let go = |args: &[&str]| {
        codeguard(home.path())
            .args(args)
            .env("GOOSE_PATH_ROOT", &root)
            .current_dir(cwd.path())
            .output()
            .expect("run")
    };
    assert_eq!(go(&["install", "--host", "goose"]).status.code(), Some(0));
    let file = root.join(".agents/plugins/codeguard/hooks/hooks.json");
    assert!(!home.path().join(".agents").exists(), "GOOSE_PATH_ROOT replaces the home");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    let matcher = json["hooks"]["PreToolUse"][0]["matcher"].as_str().expect("matcher");
    let re = regex::Regex::new(matcher).expect("a regex goose compiles");
    for tool in ["shell", "developer__shell", "write", "edit"] {
        assert!(re.is_match(tool), "{tool}");
    }
    assert!(!re.is_match("shell_history") && !re.is_match("rewrite"), "anchored: {matcher}");
    assert_eq!(json["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 120, "seconds");
    assert_eq!(go(&["doctor", "--host", "goose"]).status.code(), Some(0));
    let mut edited = json.clone();
    edited["hooks"].as_object_mut().expect("hooks").remove("PreToolUse");
    std::fs::write(&file, edited.to_string()).expect("write");
    assert_eq!(go(&["doctor", "--host", "goose"]).status.code(), Some(1));
    assert_eq!(go(&["install", "--host", "goose"]).status.code(), Some(0));
    assert_eq!(go(&["uninstall", "--host", "goose"]).status.code(), Some(0));
    assert!(!file.exists(), "the plugin's hooks are gone");
}

/// opencode, Kilo and pi: a plugin file of codeguard's own in the directory the host loads every
/// file of; doctor is healthy, then names the plugin the user removed; install refuses to
/// replace a file it did not write; uninstall takes the file away, and nothing else is left behind.
#[test]
fn plugin_hosts_install_doctor_and_uninstall_round_trip() {
    for (host, file) in [
        ("opencode", "xdg/opencode/plugin/codeguard.js"),
        ("kilo", "xdg/kilo/plugin/codeguard.js"),
        ("pi", "pi-agent/extensions/codeguard.js"),
    ] {
        let home = tempfile::tempdir().expect("home");
        let cwd = tempfile::tempdir().expect("cwd");
        let go = |args: &[&str]| {
            codeguard(home.path())
                .args(args)
                .env("XDG_CONFIG_HOME", home.path().join("xdg"))
                .env("PI_CODING_AGENT_DIR", home.path().join("pi-agent"))
                .current_dir(cwd.path())
                .output()
                .expect("run")
        };
        let file = home.path().join(file);
        std::fs::create_dir_all(file.parent().expect("dir")).expect("dir");
        std::fs::write(&file, "export default function theirs() {}\n").expect("write");
        let refused = go(&["install", "--host", host]);
        assert_ne!(refused.status.code(), Some(0), "{host}: a file codeguard did not write is left alone");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "export default function theirs() {}\n");
        std::fs::remove_file(&file).expect("rm");
        let out = go(&["install", "--host", host]);
        assert_eq!(out.status.code(), Some(0), "{host}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&file).expect("read");
        assert!(text.starts_with("// codeguard: managed plugin"), "{host}: {text}");
        assert!(text.contains(&format!("hook pre-tool-use --host {host}")), "{host}");
        // The plugin spawns codeguard directly (its argv), the command's words without a shell.
        assert!(
            text.contains(&format!(
                r#""argv":["{}","hook","pre-tool-use","--host","{host}"]"#,
                std::fs::canonicalize(assert_cmd::cargo::cargo_bin("codeguard")).expect("exe").display()
            )),
            "{host}: {text}"
        );
        assert_eq!(go(&["install", "--host", host]).status.code(), Some(0), "{host}: again");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), text, "{host}: idempotent");
        let siblings: Vec<_> = std::fs::read_dir(file.parent().expect("dir")).expect("ls").collect();
        assert_eq!(siblings.len(), 1, "{host}: no backup beside the plugin (the host would load it)");
        assert_eq!(go(&["doctor", "--host", host]).status.code(), Some(0), "{host}");
        if host == "pi" {
            // pi's own settings can leave the extension out: doctor names it.
            // pi's rules: `!` a glob, `-` an exact path, `+` an exact path that wins.
            let settings = home.path().join("pi-agent/settings.json");
            for (entries, left_out) in [
                (r#"["-extensions/codeguard.js"]"#, true),
                (r#"["!*.js"]"#, true),
                (r#"["!codeguard.js"]"#, true),
                (r#"["-codeguard.js"]"#, false),
                (r#"["!*.js", "+extensions/codeguard.js"]"#, false),
            ] {
                std::fs::write(&settings, format!(r#"{{"extensions": {entries}}}"#)).expect("settings");
                let code = go(&["doctor", "--host", host]).status.code();
                assert_eq!(code, Some(i32::from(left_out)), "pi settings {entries}");
            }
            std::fs::remove_file(&settings).expect("rm");
        }
        std::fs::remove_file(&file).expect("rm");
        assert_eq!(go(&["doctor", "--host", host]).status.code(), Some(1), "{host}: the plugin removed");
        assert_eq!(go(&["install", "--host", host]).status.code(), Some(0));
        assert_eq!(go(&["uninstall", "--host", host]).status.code(), Some(0));
        assert!(!file.exists(), "{host}: the plugin is gone");
    }
}

/// pi loads a project's extensions only in a run that approves the project: a `--project`
/// install would do nothing, and is refused with the reason.
#[test]
fn pi_project_install_is_refused_with_the_reason() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let out = codeguard(home.path())
        .args(["install", "--host", "pi", "--project", &project.path().display().to_string()])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--approve"));
    assert!(!project.path().join(".pi").exists());
}

/// The plugin's runner, run by Node: a hook command that cannot run, fails or answers exit 2
/// refuses the call before a tool (a gate that could not judge never lets a call through);
/// after a tool it only drops what it could not get.
#[test]
fn the_plugin_refuses_a_call_when_the_gate_cannot_judge_it() {
    crate::support::require_tools(&["node"]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["install", "--host", "pi"])
        .env("PI_CODING_AGENT_DIR", home.path().join("agent"))
        .output()
        .expect("install");
    assert_eq!(out.status.code(), Some(0));
    let plugin = std::fs::read_to_string(home.path().join("agent/extensions/codeguard.js")).expect("read");
    let runner = plugin.split("export default").next().expect("runner");
    let probe = home.path().join("probe.mjs");
    let cases = [
        ("'/nonexistent/codeguard' hook pre-tool-use --host pi", "PreToolUse", true),
        ("exit 3", "PreToolUse", true),
        ("echo 'codeguard: no' >&2; exit 2", "PreToolUse", true),
        ("sleep 5", "PreToolUse", true),
        ("exit 0", "PreToolUse", false),
        ("exit 3", "PostToolUse", false),
    ];
    let mut hooks: Vec<(String, &str, bool)> =
        cases.iter().map(|(c, e, r)| (format!("{{command: {c:?}, timeout: 1}}"), *e, *r)).collect();
    // An entry's argv is spawned without a shell, and wins over its command.
    hooks.push((
        r#"{argv: ["/nonexistent/codeguard", "hook"], command: "exit 0", timeout: 1}"#.into(),
        "PreToolUse",
        true,
    ));
    hooks.push((
        r#"{argv: ["/bin/sh", "-c", "exit 0"], command: "exit 3", timeout: 1}"#.into(),
        "PreToolUse",
        false,
    ));
    let mut script = runner.replacen("const HOOKS = ", "let HOOKS = ", 1);
    for (hook, event, _) in &hooks {
        let _ = writeln!(
            script,
            "HOOKS = {{{event:?}: [{{hooks: [{hook}]}}]}};\nconsole.log(JSON.stringify((await codeguard({event:?}, \"bash\", {{cwd: process.cwd()}})).block));"
        );
    }
    std::fs::write(&probe, script).expect("probe");
    let ran = std::process::Command::new("node").arg(&probe).output().expect("node");
    let lines: Vec<String> = String::from_utf8_lossy(&ran.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), hooks.len(), "{}", String::from_utf8_lossy(&ran.stderr));
    for ((hook, event, refused), line) in hooks.iter().zip(&lines) {
        assert_eq!(line != "null", *refused, "{event} `{hook}`: {line}");
        if *refused {
            assert!(line.contains("codeguard"), "{line}");
        }
    }
}

/// Cline: a script per event in its hooks directory (`$CLINE_DIR/hooks`), each running the entry
/// its name names; doctor is healthy, then names a script the user removed; uninstall takes them
/// all away.
#[test]
fn cline_install_doctor_and_uninstall_round_trip() {
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    let dir = home.path().join("cline-dir");
    let go = |args: &[&str]| {
        codeguard(home.path())
            .args(args)
            .env("CLINE_DIR", &dir)
            .current_dir(cwd.path())
            .output()
            .expect("run")
    };
    // Another tool's hook script in the same directory is left alone, byte for byte.
    let theirs = dir.join("hooks/PostToolUse.py");
    std::fs::create_dir_all(theirs.parent().expect("dir")).expect("dir");
    std::fs::write(&theirs, "print('theirs')\n").expect("theirs");
    assert_eq!(go(&["install", "--host", "cline"]).status.code(), Some(0));
    let events = ["TaskStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete"];
    for event in events {
        let script = dir.join("hooks").join(event);
        let text = std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("{event}: {e}"));
        assert!(text.starts_with("#!/bin/sh\n"), "{event}");
        // Run as Cline runs it (`sh FILE`), it runs the entry its name names: here, a stand-in.
        let probe = cwd.path().join(event);
        let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("codeguard")).expect("exe");
        std::fs::write(&probe, text.replace(&exe.display().to_string(), "echo ran")).expect("probe");
        let out = std::process::Command::new("sh").arg(&probe).output().expect("sh");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.starts_with("ran hook "), "{event}: {said}");
    }
    assert!(!home.path().join(".cline").exists(), "CLINE_DIR replaces ~/.cline");
    assert_eq!(go(&["doctor", "--host", "cline"]).status.code(), Some(0));
    std::fs::remove_file(dir.join("hooks/PostToolUse")).expect("rm");
    let doctor = go(&["doctor", "--host", "cline"]);
    assert_eq!(doctor.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("PostToolUse"));
    assert_eq!(go(&["install", "--host", "cline"]).status.code(), Some(0));
    assert_eq!(go(&["uninstall", "--host", "cline"]).status.code(), Some(0));
    assert!(events.iter().all(|e| !dir.join("hooks").join(e).exists()), "every script is gone");
    assert_eq!(std::fs::read_to_string(&theirs).expect("theirs"), "print('theirs')\n");
}

/// Continue CLI runs none of its hooks: `install --host continue` puts codeguard's git hooks into
/// the repository (here `--project`), doctor says they are the gate in force there, and
/// uninstall takes them out (doctor then names the ungated repository); outside a repository the
/// install says where to run it.
#[test]
fn continue_is_gated_by_the_repositorys_git_hooks() {
    let home = tempfile::tempdir().expect("home");
    let repo = crate::support::TestRepo::new();
    let root = repo.root().display().to_string();
    let go = |args: &[&str], cwd: &std::path::Path| {
        codeguard(home.path())
            .args(args)
            .env("CODEGUARD_NO_INSTALL", "1")
            .current_dir(cwd)
            .output()
            .expect("run")
    };
    let outside = tempfile::tempdir().expect("outside");
    let refused = go(&["install", "--host", "continue"], outside.path());
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--project"));
    assert_eq!(
        go(&["doctor", "--host", "continue"], &repo.root()).status.code(),
        Some(1),
        "not installed yet"
    );
    let out = go(&["install", "--host", "continue", "--project", &root], outside.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("never runs them"));
    let hook = repo.root().join(".git/hooks/pre-commit");
    assert!(std::fs::read_to_string(&hook).expect("pre-commit").contains("codeguard"));
    let doctor = go(&["doctor", "--host", "continue"], &repo.root());
    assert_eq!(doctor.status.code(), Some(0), "{}", String::from_utf8_lossy(&doctor.stdout));
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("the gate in force"));
    assert_eq!(go(&["uninstall", "--host", "continue"], &repo.root()).status.code(), Some(0));
    assert!(!hook.exists());
    assert_eq!(go(&["doctor", "--host", "continue"], &repo.root()).status.code(), Some(1));
}

/// dsh: the hooks file in dsh's home and the bridge's entry in the patch layer every profile
/// loads (in place of dsh's empty list, which uninstall puts back byte for byte). The bridge is
/// found beside the `dsh` on PATH; without it nothing is written. doctor is healthy, then names
/// the bridge the user removed.
#[test]
fn dsh_install_doctor_and_uninstall_round_trip() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let home = tempfile::tempdir().expect("home");
    let prefix = home.path().join("prefix/node_modules");
    let bin = prefix.join("@deepseek-ai/dsh/lib/bin.js");
    std::fs::create_dir_all(bin.parent().expect("dir")).expect("dir");
    std::fs::write(&bin, "#!/usr/bin/env node\n").expect("bin");
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::create_dir_all(prefix.join(".bin")).expect("dir");
    symlink("../@deepseek-ai/dsh/lib/bin.js", prefix.join(".bin/dsh")).expect("link");
    let dsh_home = home.path().join("dsh-home");
    std::fs::create_dir_all(&dsh_home).expect("dir");
    let layer = "# Your patch layer for this dsh profile.\n[]\n";
    std::fs::write(dsh_home.join("cordis.patch.yml"), layer).expect("layer");
    let path = format!("{}:{}", prefix.join(".bin").display(), std::env::var("PATH").unwrap_or_default());
    let go = |args: &[&str]| {
        codeguard(home.path()).args(args).env("DSH_HOME", &dsh_home).env("PATH", &path).output().expect("run")
    };
    let refused = go(&["install", "--host", "dsh"]);
    assert_eq!(refused.status.code(), Some(2), "no bridge yet");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("dsh-hooks-claude-code"));
    assert!(!dsh_home.join("codeguard-hooks.json").exists(), "nothing written without the bridge");
    let bridge = prefix.join("@deepseek-ai/dsh-hooks-claude-code/lib/index.js");
    std::fs::create_dir_all(bridge.parent().expect("dir")).expect("dir");
    std::fs::write(&bridge, "export default {};\n").expect("bridge");
    let out = go(&["install", "--host", "dsh"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let hooks: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dsh_home.join("codeguard-hooks.json")).expect("hooks file"),
    )
    .expect("json");
    assert_eq!(hooks["hooks"]["PreToolUse"][0]["matcher"], "bash|write|edit|str_replace_editor");
    let patched = std::fs::read_to_string(dsh_home.join("cordis.patch.yml")).expect("layer");
    assert!(
        !patched.lines().any(|l| l.starts_with("[]"))
            && patched.contains(&bridge.canonicalize().expect("real").display().to_string())
    );
    assert_eq!(go(&["doctor", "--host", "dsh"]).status.code(), Some(0));
    std::fs::remove_file(&bridge).expect("rm");
    assert_eq!(go(&["doctor", "--host", "dsh"]).status.code(), Some(1), "the bridge is gone");
    assert_eq!(go(&["uninstall", "--host", "dsh"]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dsh_home.join("cordis.patch.yml")).expect("layer"),
        layer,
        "byte for byte"
    );
    assert!(!dsh_home.join("codeguard-hooks.json").exists());
}
