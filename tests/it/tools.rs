//! Managed tools (`codeguard tools …`): real installs from `PyPI` into a fresh `CODEGUARD_HOME`,
//! on a `PATH` without any linter, then real checks with them; installs that cannot reach their
//! registry; gates that never install.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::support::{
    TestRepo, codeguard, json_stdout, path_without_linters, pre_tool_use, require_tools, tools_install,
};

const BAD_PY: &str = "import os\n";
const BAD_SH: &str = "#!/bin/sh\ncd $1\nls\n";
const BAD_YAML: &str = "a: 1\na: 2\n";

/// `tools list --format json` as (name, version, ready, path) rows.
fn listed(home: &Path, path: &std::ffi::OsStr) -> Vec<(String, String, bool, PathBuf)> {
    let out =
        codeguard(home).env("PATH", path).args(["tools", "list", "--format", "json"]).output().expect("list");
    assert_eq!(out.status.code(), Some(0));
    let json = json_stdout(&out);
    json["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_owned(),
                t["version"].as_str().unwrap_or_default().to_owned(),
                t["ready"].as_bool().unwrap_or_default(),
                PathBuf::from(t["path"].as_str().unwrap_or_default()),
            )
        })
        .collect()
}

/// The entries of the tools directory (names), sorted; `.store`'s entries as `.store/<name>`.
fn tools_dir(home: &Path) -> Vec<String> {
    let dir = home.join(".codeguard/tools");
    let mut names = Vec::new();
    for sub in ["", ".store"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            names.push(if sub.is_empty() { name } else { format!("{sub}/{name}") });
        }
    }
    names.sort();
    names
}

#[test]
fn managed_tools_check_a_project_on_a_machine_without_linters() {
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    let first = tools_install(home.path(), &path, &["--lang", "python,shell,yaml,toml"]);
    let installed = ["ruff", "shellcheck", "shfmt", "yamllint", "taplo"];
    let stderr = String::from_utf8_lossy(&first.stderr);
    for tool in installed {
        assert!(stderr.contains(&format!("codeguard: installed {tool} ")), "{stderr}");
    }
    let rows = listed(home.path(), &path);
    let ready: Vec<&str> = rows.iter().filter(|r| r.2).map(|r| r.0.as_str()).collect();
    assert_eq!(ready, installed, "tools list shows exactly what was installed");
    let tools_root = home.path().join(".codeguard/tools");
    for (name, version, ready, place) in &rows {
        assert_eq!(place, &tools_root.join(format!("{name}-{version}")), "{name}");
        assert_eq!(*ready, place.exists(), "{name}");
    }

    // A second install is a no-op: the same copies, each said to be there already.
    let before = tools_dir(home.path());
    let second = tools_install(home.path(), &path, &["--lang", "python,shell,yaml,toml"]);
    let mut expected = String::new();
    for (name, version, _, place) in rows.iter().filter(|r| r.2) {
        let _ = writeln!(expected, "codeguard: {name} {version} already installed ({})", place.display());
    }
    assert_eq!(String::from_utf8_lossy(&second.stderr), expected);
    assert_eq!(tools_dir(home.path()), before);

    // The check runs the managed copies (nothing else is on PATH) and says so.
    let repo = TestRepo::new();
    repo.write("a.py", BAD_PY)
        .write("b.sh", BAD_SH)
        .write("c.yaml", BAD_YAML)
        .write(".yamllint.yml", "extends: relaxed\n");
    let out = codeguard(home.path())
        .env("PATH", &path)
        .args(["check", "--no-cache", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("check");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let json = json_stdout(&out);
    let languages = json["languages"].as_array().expect("languages");
    let summary: Vec<(String, String, bool, String)> = languages
        .iter()
        .map(|l| {
            let program = l["argv"][0][0].as_str().unwrap_or_default();
            let managed_dir = Path::new(program)
                .strip_prefix(&tools_root)
                .ok()
                .and_then(|p| p.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                l["language"].as_str().unwrap_or_default().to_owned(),
                l["status"].as_str().unwrap_or_default().to_owned(),
                l["managed"].as_bool().unwrap_or_default(),
                managed_dir.split('-').next().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let row = |lang: &str, tool: &str| (lang.to_owned(), "FAIL".to_owned(), true, tool.to_owned());
    assert_eq!(summary, [row("python", "ruff"), row("shell", "shellcheck"), row("yaml", "yamllint")]);
    let human = codeguard(home.path())
        .env("PATH", &path)
        .args(["check", "--no-cache"])
        .arg(repo.root())
        .output()
        .expect("check");
    let text = String::from_utf8_lossy(&human.stdout);
    for tool in
        ["ruff (managed)", "shellcheck (managed)", "yamllint (managed)", "F401", "SC2164", "key-duplicates"]
    {
        assert!(text.contains(tool), "{tool}: {text}");
    }

    // `update` removes a version this codeguard no longer pins; `remove` takes a tool out.
    let old = tools_root.join("taplo-0.0.1");
    std::fs::create_dir_all(&old).expect("old version");
    let update =
        codeguard(home.path()).env("PATH", &path).args(["tools", "update"]).output().expect("update");
    assert_eq!(update.status.code(), Some(0), "{}", String::from_utf8_lossy(&update.stderr));
    assert!(!old.exists(), "the stale version is removed");
    let remove = codeguard(home.path())
        .env("PATH", &path)
        .args(["tools", "remove", "--lang", "toml"])
        .output()
        .expect("remove");
    assert_eq!(remove.status.code(), Some(0));
    let taplo = rows.iter().find(|r| r.0 == "taplo").expect("taplo");
    assert_eq!(
        String::from_utf8_lossy(&remove.stderr),
        format!("codeguard: removed {}\n", taplo.3.display())
    );
    assert!(!tools_dir(home.path()).iter().any(|n| n.starts_with(".store/taplo-")), "its build is gone too");
    assert!(!listed(home.path(), &path).iter().any(|r| r.0 == "taplo" && r.2));
}

#[test]
fn two_concurrent_installs_leave_one_working_copy() {
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    let spawn = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("codeguard"))
            .env_clear()
            .env("PATH", &path)
            .env("HOME", home.path())
            .env("CODEGUARD_HOME", home.path().join(".codeguard"))
            .env("PIP_CACHE_DIR", crate::support::pip_cache())
            .envs(crate::support::network_env())
            .args(["tools", "install", "--lang", "yaml"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a.wait_with_output().expect("a"), b.wait_with_output().expect("b")];
    let stderr: String = outs.iter().map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).collect();
    for out in &outs {
        assert_eq!(out.status.code(), Some(0), "{stderr}");
    }
    assert_eq!(
        stderr.matches("codeguard: installed yamllint ").count(),
        1,
        "one install, one wait: {stderr}"
    );
    let entries = tools_dir(home.path());
    let builds: Vec<&String> = entries.iter().filter(|n| n.starts_with(".store/")).collect();
    assert_eq!(builds.len(), 1, "exactly one copy: {entries:?}");
    let yamllint = listed(home.path(), &path).into_iter().find(|r| r.0 == "yamllint").expect("listed");
    assert!(yamllint.2, "ready");
    let version = std::process::Command::new(yamllint.3.join("venv/bin/yamllint"))
        .arg("--version")
        .output()
        .expect("run the managed yamllint");
    assert!(version.status.success());
    assert_eq!(String::from_utf8_lossy(&version.stdout).trim(), format!("yamllint {}", yamllint.1));
}

#[test]
fn an_unreachable_registry_leaves_nothing_behind_and_says_so_in_one_line() {
    require_tools(&["npm"]);
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let empty_cache = tempfile::tempdir().expect("cache");
    let url = format!("http://127.0.0.1:{closed}/simple");
    let out = codeguard(home.path())
        .env("PATH", &path)
        .env("PIP_INDEX_URL", &url)
        .env("UV_INDEX_URL", &url)
        .env("PIP_CACHE_DIR", empty_cache.path())
        .env("npm_config_registry", format!("http://127.0.0.1:{closed}/"))
        .env("npm_config_cache", empty_cache.path().join("npm"))
        .args(["tools", "install", "--lang", "yaml,markdown"])
        .output()
        .expect("install");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let tools = home.path().join(".codeguard/tools");
    assert_eq!(lines.len(), 4, "{stderr}");
    assert_eq!(
        lines[0],
        format!(
            "codeguard: installing yamllint 1.38.0 from PyPI into {} …",
            tools.join("yamllint-1.38.0").display()
        )
    );
    assert!(
        lines[1].starts_with("codeguard: cannot install yamllint 1.38.0 (yamllint==1.38.0 from PyPI): the package registry is unreachable (")
            && lines[1].ends_with("offline, or a wrong index URL?); nothing was installed"),
        "{stderr}"
    );
    assert!(
        lines[2].starts_with("codeguard: installing markdownlint-cli2 0.24.1 from npm into "),
        "{stderr}"
    );
    assert!(
        lines[3].starts_with("codeguard: cannot install markdownlint-cli2 0.24.1 (markdownlint-cli2@0.24.1 from npm): the package registry is unreachable (")
            && lines[3].ends_with("; nothing was installed"),
        "{stderr}"
    );
    assert_eq!(
        tools_dir(home.path()),
        [".store", "markdownlint-cli2-0.24.1.lock", "yamllint-1.38.0.lock"],
        "no install, no build left: only the (empty) store and the locks"
    );
    assert!(!listed(home.path(), &path).iter().any(|r| r.2), "nothing is ready");
}

#[test]
fn a_gate_with_a_missing_managed_tool_is_unverified_names_the_install_command_and_never_installs() {
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    let repo = TestRepo::new();
    repo.write("README.txt", "hello\n").commit_all("init");
    repo.write("a.py", "x = 1\n");
    repo.git(&["add", "a.py"]);
    let path_text = path.to_string_lossy().into_owned();
    let out = pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m add", &[("PATH", &path_text)]);
    assert_eq!(out.status.code(), Some(0), "UNVERIFIED does not block");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "python UNVERIFIED: tool missing: `ruff` not found on PATH (install: codeguard tools install --lang python, or pip install ruff)"
        ),
        "{stdout}"
    );
    assert!(!home.path().join(".codeguard/tools").exists(), "a gate never installs");
    // Nor does git's own hook, nor a check that is not on a terminal.
    let check =
        codeguard(home.path()).env("PATH", &path).args(["check"]).arg(repo.root()).output().expect("check");
    assert_eq!(check.status.code(), Some(3));
    assert!(!home.path().join(".codeguard/tools").exists(), "no terminal: no install");
    // `--install` asks for it anywhere; an install that fails is one line and the check goes on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let empty_cache = tempfile::tempdir().expect("cache");
    let forced = codeguard(home.path())
        .env("PATH", &path)
        .env("PIP_INDEX_URL", format!("http://127.0.0.1:{closed}/simple"))
        .env("PIP_CACHE_DIR", empty_cache.path())
        .args(["check", "--install"])
        .arg(repo.root())
        .output()
        .expect("check --install");
    assert_eq!(forced.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&forced.stderr);
    assert!(stderr.starts_with("codeguard: installing ruff "), "{stderr}");
    assert!(stderr.contains("the package registry is unreachable"), "{stderr}");
    assert!(String::from_utf8_lossy(&forced.stdout).contains("codeguard tools install --lang python"));
    assert!(!listed(home.path(), &path).iter().any(|r| r.2), "nothing installed");
    assert!(!tools_dir(home.path()).iter().any(|n| n.starts_with(".store/")), "no build left");
}

/// `codeguard check` with stdin, stdout and stderr on a terminal (`script` gives it one).
fn check_on_a_terminal(home: &Path, path: &std::ffi::OsStr, repo: &Path, extra: &[(&str, &str)]) -> String {
    let command = format!(
        "{} check --no-cache {}",
        assert_cmd::cargo::cargo_bin("codeguard").display(),
        repo.display()
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &command, "/dev/null"])
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("CODEGUARD_HOME", home.join(".codeguard"))
        .env("PIP_CACHE_DIR", crate::support::pip_cache())
        .envs(crate::support::network_env())
        .envs(crate::support::git_env())
        .envs(extra.iter().copied());
    let out = cmd.output().expect("run script");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn check_on_a_terminal_installs_the_missing_tools_first_unless_told_not_to() {
    require_tools(&["script"]);
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    let repo = TestRepo::new();
    repo.write("c.yaml", BAD_YAML).write(".yamllint.yml", "extends: relaxed\n");
    for off in [&[("CI", "true")][..], &[("CODEGUARD_NO_INSTALL", "1")][..]] {
        let text = check_on_a_terminal(home.path(), &path, &repo.root(), off);
        assert!(text.contains("codeguard tools install --lang yaml"), "{off:?}: {text}");
        assert!(!home.path().join(".codeguard/tools").exists(), "{off:?}: no install");
    }
    let text = check_on_a_terminal(home.path(), &path, &repo.root(), &[]);
    assert!(text.contains("codeguard: installing yamllint 1.38.0 from PyPI"), "{text}");
    assert!(text.contains("FAIL") && text.contains("yamllint (managed)"), "{text}");
}

#[test]
fn installing_git_hooks_or_host_hooks_provisions_the_repository_s_tools_for_them() {
    let (_bin, path) = path_without_linters();
    let repo = TestRepo::new();
    repo.write(".yamllint.yml", "extends: relaxed\n").write("ok.yaml", "a: 1\n").commit_all("init");
    for install in [&["install", "--git-hooks"][..], &["install", "--host", "claude", "--project", "."][..]] {
        let home = tempfile::tempdir().expect("home");
        let out = codeguard(home.path())
            .current_dir(repo.root())
            .env("PATH", &path)
            .env("PIP_CACHE_DIR", crate::support::pip_cache())
            .envs(crate::support::network_env())
            .args(install)
            .output()
            .expect("install");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{install:?}: {stderr}");
        assert!(stderr.contains("codeguard: installed yamllint "), "{install:?}: {stderr}");
        let ready: Vec<String> =
            listed(home.path(), &path).into_iter().filter(|r| r.2).map(|r| r.0).collect();
        assert_eq!(ready, ["yamllint"], "{install:?}: only what the repository needs");
        if install[1] == "--git-hooks" {
            // git's own hook now blocks a bad YAML file with the managed yamllint.
            repo.write("bad.yaml", BAD_YAML);
            repo.git(&["add", "bad.yaml"]);
            let path_text = path.to_string_lossy().into_owned();
            let commit = crate::support::git_with_hooks_and(
                &repo.root(),
                home.path(),
                &["commit", "-q", "-m", "bad"],
                &[("PATH", std::ffi::OsStr::new(&path_text))],
            );
            let hook = String::from_utf8_lossy(&commit.stderr);
            assert!(!commit.status.success(), "{hook}");
            assert!(hook.contains("yaml (yamllint, managed)") && hook.contains("key-duplicates"), "{hook}");
            repo.git(&["reset", "-q"]);
            std::fs::remove_file(repo.path("bad.yaml")).expect("rm");
            let _ =
                codeguard(home.path()).current_dir(repo.root()).args(["uninstall", "--git-hooks"]).output();
        }
    }
}

#[test]
fn tools_usage_errors_are_one_line_and_exit_2() {
    let home = tempfile::tempdir().expect("home");
    for (args, stderr) in [
        (
            &["tools", "install"][..],
            "codeguard: tools install needs --lang a,b (those languages' tools) or --detected (the project's)\n",
        ),
        (
            &["tools", "install", "--lang", "nope"][..],
            "codeguard: unknown language `nope` (see `codeguard languages`)\n",
        ),
    ] {
        let out = codeguard(home.path()).args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
        assert!(out.stdout.is_empty());
    }
    let out = codeguard(home.path()).args(["tools", "install", "--lang", "rust,go"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "codeguard: rust: no managed tool (its tools come from the system: rustup component add clippy rustfmt)\n\
         codeguard: go: no managed tool (its tools come from the system: apt-get install golang-go)\n\
         codeguard: no managed tools to install\n"
    );
    assert!(!home.path().join(".codeguard/tools").exists());
}

#[test]
fn an_npm_tool_is_installed_with_its_own_prefix_and_runs_in_a_trusted_workspace() {
    require_tools(&["npm"]);
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = path_without_linters();
    tools_install(home.path(), &path, &["--lang", "markdown"]);
    let tool = listed(home.path(), &path).into_iter().find(|r| r.0 == "markdownlint-cli2").expect("listed");
    assert!(tool.2 && tool.3.join("node_modules/.bin/markdownlint-cli2").is_file(), "{tool:?}");
    let repo = TestRepo::new();
    repo.write("a.md", "# Title\n\n\n## Two blank lines above\n").write(".markdownlint.json", "{}\n");
    // markdownlint-cli2 reads JavaScript configs: the managed copy too runs only once trusted.
    let check = |home: &Path| {
        let out = codeguard(home)
            .env("PATH", &path)
            .args(["check", "--no-cache", "--format", "json"])
            .arg(repo.root())
            .output()
            .expect("check");
        let json = json_stdout(&out);
        let lang = &json["languages"][0];
        (
            lang["status"].as_str().unwrap_or_default().to_owned(),
            lang["managed"].as_bool().unwrap_or_default(),
        )
    };
    assert_eq!(check(home.path()), ("UNVERIFIED".to_owned(), false), "untrusted");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    assert_eq!(
        check(home.path()),
        ("FAIL".to_owned(), true),
        "the project adopted markdownlint (its config): its findings from the managed copy block"
    );
    let log = std::fs::read_to_string(
        home.path().join(".codeguard/logs").read_dir().expect("logs").flatten().next().expect("log").path(),
    )
    .expect("log");
    assert!(log.contains("MD012"), "{log}");
}
