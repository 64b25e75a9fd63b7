//! Verdicts people can trust: every outcome and count is the linter's own, read the way the
//! registry says the tool speaks — with the real tools (yamllint, cargo clippy, go vet, ruff,
//! hadolint, rubocop, shellcheck), through the real binary as an agent's gate or `check`.

use std::fmt::Write as _;
use std::path::Path;

use crate::support::{
    TestRepo, codeguard, gate_in, json_stdout, real_tool, repo_with, repo_with_rules, require_tools,
    rust_crate, rust_env,
};

/// The `PreToolUse` gate on `git commit` after `git add -A`, with extra environment: its exit
/// code and what it said (a block on stderr, an allowance's warning on stdout).
fn commit_gate(repo: &TestRepo, env: &[(&str, &str)]) -> (Option<i32>, String) {
    repo.git(&["add", "-A"]);
    let (code, stdout, stderr) = gate_in(repo, "git commit -m change", env);
    (code, format!("{stderr}{stdout}"))
}

/// `codeguard check --staged --format json` in `repo` with `home` and extra environment: the
/// entry of `language`.
fn staged_check(repo: &TestRepo, home: &Path, language: &str, env: &[(&str, &str)]) -> serde_json::Value {
    repo.git(&["add", "-A"]);
    let mut cmd = codeguard(home);
    cmd.current_dir(repo.root()).args(["check", "--staged", "--format", "json"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let json = json_stdout(&cmd.output().expect("check"));
    json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .find(|l| l["language"] == language)
        .unwrap_or_else(|| panic!("no {language} in {json:#}"))
        .clone()
}

#[test]
fn yamllint_with_seven_findings_says_seven_problems() {
    require_tools(&["yamllint"]);
    let bad = (1..=7).map(|i| format!("key{i}:  value")).collect::<Vec<_>>().join("\n") + "\n";
    let repo =
        repo_with_rules(&[(".yamllint", "extends: default\n")], &[("conf/app.yaml", &format!("---\n{bad}"))]);
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("yaml (yamllint): 7 problems"), "{stderr}");
    assert!(stderr.contains("[yaml] yamllint — 7 problems in 1 file (colons×7)"), "{stderr}");
    let home = tempfile::tempdir().expect("home");
    let yaml = staged_check(&repo, home.path(), "yaml", &[]);
    assert_eq!(yaml["findings"].as_array().map(Vec::len), Some(7), "{yaml:#}");
    assert_eq!(yaml["findings"][0]["path"], "conf/app.yaml", "the repository's path, not the snapshot's");
}

#[test]
fn yamllint_warnings_do_not_block_as_the_project_runs_it() {
    require_tools(&["yamllint"]);
    // `yamllint .` exits 0 on warnings only: a project running it so passes, and so does the gate.
    let repo = repo_with_rules(&[(".yamllint", "extends: default\n")], &[("conf/app.yaml", "key: value\n")]);
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "a missing document start is a warning");
}

#[test]
fn clippy_with_three_errors_says_three_problems() {
    let main = "fn main() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n}\n";
    let (repo, home) = rust_crate(crate::support::CARGO_LOCK, "fn main() {}\n", &[]);
    repo.write("src/main.rs", main);
    repo.git(&["add", "-A"]);
    let mut cmd = codeguard(home.path());
    cmd.envs(rust_env()).current_dir(repo.root()).args(["check", "--staged", "--lang", "rust"]);
    let out = cmd.output().expect("check");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("3 problems in 1 file"), "{text}");
}

#[test]
fn a_toolchain_without_clippy_is_unverified_and_says_what_is_missing() {
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc");
    let sysroot = std::path::PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    // A real toolchain whose clippy component is not installed: its cargo and rustc, and a cargo
    // home with no cargo-clippy in it.
    let bin = tempfile::tempdir().expect("bin");
    for tool in ["cargo", "rustc"] {
        std::os::unix::fs::symlink(sysroot.join("bin").join(tool), bin.path().join(tool)).expect("link");
    }
    let cargo_home = tempfile::tempdir().expect("cargo home");
    let git_dir = real_tool("git");
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        bin.path().display(),
        git_dir.parent().expect("git's directory").display()
    );
    let (repo, home) = rust_crate(crate::support::CARGO_LOCK, "fn main() {}\n", &[]);
    repo.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let env = [("PATH", path.as_str()), ("CARGO_HOME", cargo_home.path().to_str().expect("utf-8"))];
    let rust = staged_check(&repo, home.path(), "rust", &env);
    assert_eq!(rust["status"], "UNVERIFIED", "{rust:#}");
    let reason = rust["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("no such command: `clippy`"), "{reason}");
    assert!(reason.contains("rustup component add clippy"), "the install advice: {reason}");
}

#[test]
fn go_vet_findings_block_and_an_offline_module_download_does_not() {
    require_tools(&["go"]);
    let bad = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"s\")\n}\n";
    let repo = repo_with(&[("go.mod", "module example.com/m\n\ngo 1.19\n"), ("main.go", bad)]);
    let gopath = tempfile::tempdir().expect("gopath");
    let gp = gopath.path().to_str().expect("utf-8");
    let cache = format!("{gp}/cache");
    let env = [("GOPATH", gp), ("GOCACHE", cache.as_str()), ("GOFLAGS", "-mod=mod"), ("GOPROXY", "off")];
    let (code, stderr) = commit_gate(&repo, &env);
    assert_eq!(code, Some(2), "go vet exits 2 on a finding, which is a finding: {stderr}");
    assert!(stderr.contains("main.go:6:2: fmt.Printf format %d has arg"), "{stderr}");
    assert!(stderr.contains("go (go): 1 problem"), "{stderr}");

    let needs = "package main\n\nimport \"github.com/pkg/errors\"\n\nfunc main() { _ = errors.New(\"x\") }\n";
    let offline = repo_with(&[
        ("go.mod", "module example.com/m\n\ngo 1.19\n\nrequire github.com/pkg/errors v0.9.1\n"),
        (
            "go.sum",
            "github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\ngithub.com/pkg/errors v0.9.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=\n",
        ),
        ("main.go", needs),
    ]);
    let (code, stderr) = commit_gate(&offline, &env);
    assert_eq!(code, Some(0), "a module that cannot be downloaded is no finding: {stderr}");
    assert!(
        stderr.contains("go UNVERIFIED: environment error")
            && stderr.contains("module lookup disabled by GOPROXY"),
        "{stderr}"
    );
    assert!(!stderr.contains("install: apt-get install golang-go"), "go is installed: {stderr}");
}

#[test]
fn a_broken_linter_config_is_unverified_in_the_tools_own_words() {
    require_tools(&["ruff", "yamllint"]);
    let repo = repo_with_rules(&[("ruff.toml", "line-length = \"x\"\n")], &[("app.py", "print(1)\n")]);
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("python UNVERIFIED: the tool's configuration is broken"), "{stderr}");
    assert!(stderr.contains("Failed to parse ruff.toml"), "ruff's words, the repository's path: {stderr}");
    assert!(!stderr.contains("install:"), "installing ruff would not help: {stderr}");

    let yaml = repo_with_rules(
        &[(".yamllint", "extends: default\nrules:\n  no-such-rule: enable\n")],
        &[("a.yaml", "---\na: 1\n")],
    );
    let (code, stderr) = commit_gate(&yaml, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("yaml UNVERIFIED") && stderr.contains("invalid config: no such rule"),
        "{stderr}"
    );
    assert!(!stderr.contains("install:"), "{stderr}");
}

#[test]
fn a_part_that_timed_out_is_named_and_the_findings_of_the_others_stand() {
    let repo = repo_with(&[
        (
            "lint.sh",
            "#!/bin/sh\ncase \"$1\" in *slow*) sleep 30 ;; *) echo \"$1:1:1: warning: bad [SC2086]\"; exit 1 ;; esac\n",
        ),
        ("codeguard.json", "{\"languages\": {\"shell\": {\"lint\": [\"./lint.sh\", \"{file}\"]}}}\n"),
        ("bad.sh", "echo $1\n"),
        ("slow.sh", "echo ok\n"),
    ]);
    std::fs::set_permissions(repo.path("lint.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .args(["check", "--lang", "shell", "--timeout", "3", "--format", "json"])
        .output()
        .expect("check");
    let json = json_stdout(&out);
    let shell = &json["languages"][0];
    assert_eq!(shell["status"], "FAIL", "{json:#}");
    let reason = shell["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("not every file was checked: timed out (slow.sh)"), "{reason}");
    let log = std::fs::read_to_string(shell["log_path"].as_str().expect("log")).expect("log");
    assert!(log.contains("bad.sh:1:1: warning: bad"), "the finished part's findings are kept: {log}");
}

#[test]
fn an_old_hadolint_finding_does_not_block_a_clean_edit_beside_it() {
    require_tools(&["hadolint"]);
    let repo = TestRepo::new();
    repo.write("Dockerfile", "FROM debian\nRUN apt-get update && apt-get install -y curl\n")
        .commit_all("init");
    repo.write("Dockerfile", "FROM debian\nRUN apt-get update && apt-get install -y curl\nENV MODE=prod\n");
    let (code, said) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(0), "DL3006/DL3008 were in HEAD already: {said}");
    assert!(
        said.contains("4 pre-existing finding(s) exempt") && said.contains("Dockerfile:2: DL3008"),
        "{said}"
    );
    repo.write(
        "Dockerfile",
        "FROM debian\nRUN apt-get update && apt-get install -y curl\nRUN cd /tmp && ls\n",
    );
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("DL3003") && stderr.contains("1 problem in 1 file"),
        "only the new one: {stderr}"
    );
}

#[test]
fn rubocop_honours_the_projects_exclusions() {
    require_tools(&["rubocop"]);
    let repo = TestRepo::new();
    repo.write(".rubocop.yml", "AllCops:\n  NewCops: disable\n  Exclude:\n    - 'doc/**/*'\n")
        .write("Gemfile", "source 'https://rubygems.org'\n")
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    repo.write("doc/example.rb", "x = 1\nputs \"hi\"\n");
    repo.git(&["add", "-A"]);
    let out = crate::support::pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m doc", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.as_ref()), (Some(0), ""), "doc/** is excluded by the project");
    repo.write("lib/example.rb", "x = 1\nputs \"hi\"\n");
    repo.git(&["add", "-A"]);
    let out = crate::support::pre_tool_use(home.path(), &repo.root(), "t-2", "git commit -m lib", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("Lint/UselessAssignment") && stderr.contains("lib/example.rb"), "{stderr}");
    assert!(!stderr.contains("doc/example.rb:"), "no finding in the excluded file: {stderr}");
}

#[test]
fn a_shebang_less_fragment_sourced_by_bash_scripts_is_bash() {
    require_tools(&["shellcheck"]);
    let fragment = "# helpers for the scripts\nis_set() {\n  [[ -n \"${1:-}\" ]]\n}\n";
    let repo = TestRepo::new();
    repo.write(
        "bin/run",
        "#!/usr/bin/env bash\nsource \"$(dirname \"$0\")/../shell/common.sh\"\nis_set \"$1\" && echo yes\n",
    )
    .commit_all("init");
    repo.write("shell/common.sh", fragment);
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "[[ ]] is bash, as its callers are");
    // Sourced by a POSIX sh script too: it must be POSIX.
    let repo = TestRepo::new();
    repo.write("bin/run", "#!/bin/sh\n. ./shell/common.sh\n").commit_all("init");
    repo.write("shell/common.sh", fragment);
    let (code, stderr) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("SC3010"), "{stderr}");
}

const ESLINT_PACKAGE: &str = r#"{
  "name": "flat",
  "version": "1.0.0",
  "private": true,
  "type": "module",
  "devDependencies": {
    "@eslint/js": "10.0.1",
    "@stylistic/eslint-plugin": "5.10.0",
    "eslint": "10.15.0"
  }
}
"#;

const ESLINT_CONFIG: &str = r#"import js from "@eslint/js";
import stylistic from "@stylistic/eslint-plugin";

export default [
  js.configs.recommended,
  { plugins: { "@stylistic": stylistic }, rules: { "@stylistic/semi": ["error", "always"] } },
];
"#;

/// A JavaScript project whose eslint flat config imports `@eslint/js` and a plugin from its own
/// `node_modules` (installed by real npm, from a download cache shared by the suite), committed
/// with its lock file; `node_modules` is ignored, as in every such project.
fn eslint_project() -> TestRepo {
    require_tools(&["npm", "node"]);
    let repo = TestRepo::new();
    repo.write("package.json", ESLINT_PACKAGE)
        .write(".gitignore", "node_modules/\n")
        .write("eslint.config.js", ESLINT_CONFIG)
        .write("src/ok.js", "export const x = 1;\n");
    npm_install(&repo, &[]);
    repo.commit_all("init");
    repo
}

/// `npm install` in `repo` (its `package.json`, and `packages` saved as exact dev dependencies),
/// from the npm download cache the suite shares; panics when it fails.
fn npm_install(repo: &TestRepo, packages: &[&str]) {
    let out = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-dev", "--save-exact"])
        .args(packages)
        .current_dir(repo.root())
        .envs(crate::support::network_env())
        .env("npm_config_cache", Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-cache"))
        .output()
        .expect("npm");
    assert!(out.status.success(), "npm install: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_eslint_flat_config_with_its_plugins_is_really_linted_in_a_trusted_workspace() {
    let repo = eslint_project();
    repo.write("src/bad.js", "const unused = 1\nexport const y = 2;\n");
    repo.git(&["add", "-A"]);
    let home = tempfile::tempdir().expect("home");
    let gate = |id: &str| {
        let out = crate::support::assert_untouched(&repo.root(), || {
            crate::support::pre_tool_use(home.path(), &repo.root(), id, "git commit -m bad", &[])
        });
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
        (out.status.code(), said)
    };
    // Untrusted: the project's config and plugins are its code, so they do not run.
    let (code, said) = gate("t-1");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("typescript UNVERIFIED") && said.contains("codeguard trust"), "{said}");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let (code, said) = gate("t-2");
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("typescript (eslint): 2 problems"), "{said}");
    assert!(said.contains("[typescript] eslint — 2 problems in 1 file"), "{said}");
    assert!(said.contains("no-unused-vars") && said.contains("@stylistic/semi"), "the plugin ran: {said}");
    assert!(said.contains("src/bad.js"), "{said}");
    assert!(said.contains("how to fix: npx --no-install eslint --fix"), "the semicolon is fixable: {said}");
    // Only an unfixable finding: no fix advice.
    repo.write("src/bad.js", "const unused = 1;\nexport const y = 2;\n");
    repo.git(&["add", "-A"]);
    let (code, said) = gate("t-3");
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("1 problem in 1 file (no-unused-vars×1)"), "{said}");
    assert!(!said.contains("how to fix"), "eslint --fix cannot fix no-unused-vars: {said}");
    // And clean code passes with the same config.
    repo.write("src/bad.js", "export const y = 2;\n");
    repo.git(&["add", "-A"]);
    let (code, said) = gate("t-4");
    assert_eq!((code, said.as_str()), (Some(0), ""));
}

#[test]
fn the_projects_own_eslint_runs_before_the_managed_one_and_a_config_that_cannot_load_says_why() {
    let repo = eslint_project();
    let home = tempfile::tempdir().expect("home");
    let (_bin, path) = crate::support::path_without_linters();
    crate::support::tools_install(home.path(), &path, &["--lang", "typescript"]);
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    repo.write("src/bad.js", "const unused = 1\nexport const y = 2;\n");
    let check = || {
        let out = codeguard(home.path())
            .env("PATH", &path)
            .current_dir(repo.root())
            .args(["check", "--changed", "--lang", "typescript", "--format", "json"])
            .output()
            .expect("check");
        json_stdout(&out)["languages"][0].clone()
    };
    let ts = check();
    assert_eq!(
        (ts["status"].as_str(), ts["managed"].as_bool()),
        (Some("FAIL"), None),
        "the project's own: {ts:#}"
    );
    assert_eq!(ts["findings"].as_array().map(Vec::len), Some(2), "{ts:#}");
    // Without the project's dependencies, the managed eslint runs and cannot load the config:
    // no conclusion, in eslint's words — the tool is not missing.
    std::fs::remove_dir_all(repo.path("node_modules")).expect("rm node_modules");
    let ts = check();
    assert_eq!((ts["status"].as_str(), ts["managed"].as_bool()), (Some("UNVERIFIED"), Some(true)), "{ts:#}");
    let reason = ts["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("Cannot find package '@eslint/js'"), "{reason}");
    assert!(!reason.contains("tool missing"), "{reason}");
}

/// What proves a stable language with its real linter: the files a project has for it, a bad
/// file and its exact finding count, a clean file, and what it needs to run.
struct Proof {
    id: &'static str,
    tools: &'static [&'static str],
    setup: &'static [(&'static str, &'static str)],
    /// npm packages (`name@version`) the project installs into its `node_modules`.
    npm: &'static [&'static str],
    bad: (&'static str, &'static str),
    count: usize,
    clean: &'static str,
    env: &'static [(&'static str, &'static str)],
}

const GO_OFFLINE: &[(&str, &str)] = &[("GOFLAGS", "-mod=mod"), ("GOPROXY", "off")];

const PROOFS: &[Proof] = &[
    Proof {
        id: "python",
        tools: &["ruff"],
        setup: &[],
        npm: &[],
        bad: ("app.py", "import os\nimport sys\n\nprint(undefined_name)\n"),
        count: 3,
        clean: "print(1)\n",
        env: &[],
    },
    Proof {
        id: "shell",
        tools: &["shellcheck"],
        setup: &[],
        npm: &[],
        bad: ("run.sh", "#!/bin/sh\ncd $1\nif [[ -n \"$1\" ]]; then echo x; fi\n"),
        count: 2,
        clean: "#!/bin/sh\ncd \"$1\" || exit 1\n",
        env: &[],
    },
    Proof {
        id: "zsh",
        tools: &["zsh"],
        setup: &[],
        npm: &[],
        bad: ("run.zsh", "if true; then\n  echo x\n"),
        count: 1,
        clean: "echo ${(U)1}\n",
        env: &[],
    },
    Proof {
        id: "fish",
        tools: &["fish"],
        setup: &[],
        npm: &[],
        bad: ("run.fish", "if true\n  echo x\n"),
        count: 1,
        clean: "if true\n  echo x\nend\n",
        env: &[],
    },
    Proof {
        id: "yaml",
        tools: &["yamllint"],
        setup: &[(".yamllint", "extends: default\n")],
        npm: &[],
        bad: ("conf.yaml", "---\na:  1\nb:  2\n"),
        count: 2,
        clean: "---\na: 1\n",
        env: &[],
    },
    Proof {
        id: "rust",
        tools: &["cargo"],
        setup: &[
            ("Cargo.toml", crate::support::CARGO_TOML),
            ("Cargo.lock", crate::support::CARGO_LOCK),
            ("src/main.rs", "fn main() {}\n"),
        ],
        npm: &[],
        bad: ("src/main.rs", "fn main() {\n    let a = 1;\n    let b = 2;\n}\n"),
        count: 2,
        clean: "fn main() {\n    println!(\"hi\");\n}\n",
        env: &[],
    },
    Proof {
        id: "go",
        tools: &["go"],
        setup: &[("go.mod", "module example.com/m\n\ngo 1.19\n")],
        npm: &[],
        bad: (
            "main.go",
            "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d %s\\n\", \"s\")\n}\n",
        ),
        count: 1,
        clean: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
        env: GO_OFFLINE,
    },
    Proof {
        id: "ruby",
        tools: &["rubocop"],
        setup: &[(".rubocop.yml", "AllCops:\n  NewCops: disable\n")],
        npm: &[],
        bad: ("lib/a.rb", "x = 1\nputs \"hi\"\n"),
        count: 3,
        clean: "# frozen_string_literal: true\n\nputs 'hi'\n",
        env: &[],
    },
    Proof {
        id: "dockerfile",
        tools: &["hadolint"],
        setup: &[],
        npm: &[],
        bad: ("Dockerfile", "FROM debian\nRUN cd /tmp && ls\n"),
        count: 2,
        clean: "FROM debian:12\nWORKDIR /tmp\n",
        env: &[],
    },
    Proof {
        id: "typescript",
        tools: &["npm", "node"],
        setup: &[
            (
                "package.json",
                "{\"name\": \"p\", \"version\": \"1.0.0\", \"private\": true, \"type\": \"module\"}\n",
            ),
            (
                "eslint.config.js",
                "import js from \"@eslint/js\";\n\nexport default [js.configs.recommended];\n",
            ),
        ],
        npm: &["eslint@10.15.0", "@eslint/js@10.0.1"],
        bad: ("src/a.js", "const unused = 1;\nexport const y = z;\n"),
        count: 2,
        clean: "export const y = 2;\n",
        env: &[],
    },
    Proof {
        id: "markdown",
        tools: &["npm", "node"],
        setup: &[
            (".markdownlint.json", "{}\n"),
            ("package.json", "{\"name\": \"p\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ],
        npm: &["markdownlint-cli2@0.24.1"],
        bad: ("doc/a.md", "# Title\n\n\n## Two blank lines above\ntext   \n"),
        count: 3,
        clean: "# Title\n\nText.\n",
        env: &[],
    },
];

/// `check --changed --lang <id> --format json` with the proof's environment: the language's entry.
fn check_language(repo: &TestRepo, home: &Path, proof: &Proof) -> serde_json::Value {
    let mut cmd = codeguard(home);
    cmd.envs(rust_env()).current_dir(repo.root()).args([
        "check",
        "--changed",
        "--lang",
        proof.id,
        "--format",
        "json",
    ]);
    for (k, v) in proof.env {
        cmd.env(k, v);
    }
    json_stdout(&cmd.output().expect("check"))["languages"][0].clone()
}

#[test]
fn every_stable_language_is_proven_by_its_real_linter() {
    let registry: serde_json::Value =
        serde_json::from_str(include_str!("../../registry/languages.json")).expect("registry");
    let mut stable: Vec<&str> = registry["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .filter(|l| l["status"] == "stable")
        .filter_map(|l| l["id"].as_str())
        .collect();
    let mut proven: Vec<&str> = PROOFS.iter().map(|p| p.id).collect();
    stable.sort_unstable();
    proven.sort_unstable();
    assert_eq!(stable, proven, "a stable language has a real-linter proof here, else it is beta");
    for proof in PROOFS {
        require_tools(proof.tools);
        let repo = TestRepo::new();
        for (path, text) in proof.setup {
            repo.write(path, text);
        }
        repo.write(".gitignore", "node_modules/\n");
        if !proof.npm.is_empty() {
            npm_install(&repo, proof.npm);
        }
        repo.commit_all("init");
        let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("home");
        codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
        let (path, bad) = proof.bad;
        repo.write(path, bad);
        let result = check_language(&repo, home.path(), proof);
        assert_eq!(result["status"], "FAIL", "{}: {result:#}", proof.id);
        assert_eq!(
            result["findings"].as_array().map(Vec::len),
            Some(proof.count),
            "{}: the linter's own count: {result:#}",
            proof.id
        );
        repo.write(path, proof.clean);
        let result = check_language(&repo, home.path(), proof);
        assert_eq!(result["status"], "PASS", "{}: {result:#}", proof.id);
    }
}

/// The README's language table as the registry says it: language, tier, lint and format tools.
fn language_table() -> String {
    let registry: serde_json::Value =
        serde_json::from_str(include_str!("../../registry/languages.json")).expect("registry");
    let tool = |argv: &serde_json::Value| -> String {
        let words: Vec<&str> = argv.as_array().into_iter().flatten().filter_map(|w| w.as_str()).collect();
        let words: Vec<&str> = match words.first() {
            Some(&"npx") => words.iter().skip(1).copied().filter(|w| !w.starts_with('-')).collect(),
            _ => words,
        };
        let Some(first) = words.first() else { return "—".to_owned() };
        match words.get(1) {
            Some(second)
                if !second.starts_with('-')
                    && !second.contains(['{', '/', '.', '('])
                    && !second.chars().all(|c| c.is_ascii_digit()) =>
            {
                format!("`{first} {second}`")
            }
            _ => format!("`{first}`"),
        }
    };
    let mut out = String::from("| Language | Tier | Lint | Format |\n|---|---|---|---|\n");
    for lang in registry["languages"].as_array().expect("languages") {
        let lint = if lang["lint"].is_array() { tool(&lang["lint"]) } else { "—".to_owned() };
        let format = if lang["format"].is_array() { tool(&lang["format"]) } else { "—".to_owned() };
        let _ = writeln!(
            out,
            "| {} (`{}`) | {} | {lint} | {format} |",
            lang["name"].as_str().unwrap_or_default(),
            lang["id"].as_str().unwrap_or_default(),
            lang["status"].as_str().unwrap_or_default()
        );
    }
    out
}

#[test]
fn the_readme_language_table_is_the_registry() {
    let readme = include_str!("../../README.md");
    let begin = "<!-- languages:begin -->\n";
    let end = "<!-- languages:end -->";
    let start = readme.find(begin).expect("README has the languages:begin marker") + begin.len();
    let stop = readme[start..].find(end).expect("README has the languages:end marker") + start;
    let expected = language_table();
    assert!(
        readme[start..stop] == expected,
        "README.md's language table differs from the registry; it should read:\n{expected}"
    );
}

#[test]
fn doctor_warns_only_about_languages_the_repository_integrates() {
    let home = tempfile::tempdir().expect("home");
    let repo = TestRepo::new();
    // TOML files and YAML files, but no taplo or yamllint configuration: neither is integrated,
    // so neither linter's absence is worth a warning; Python is, and ruff is missing.
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n")
        .write("conf/a.toml", "a = 1\n")
        .write("ci.yml", "a: 1\n")
        .write("a.py", "x = 1\n")
        .commit_all("init");
    let empty = tempfile::tempdir().expect("empty PATH");
    let out = codeguard(home.path())
        .env("PATH", empty.path())
        .args(["doctor", "--format", "json"])
        .current_dir(repo.root())
        .output()
        .expect("doctor");
    let json = json_stdout(&out);
    let names: Vec<&str> =
        json["checks"].as_array().expect("checks").iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(names.contains(&"linter python"), "{names:?}");
    assert!(!names.contains(&"linter toml") && !names.contains(&"linter yaml"), "{names:?}");
}

#[test]
fn ruff_honours_the_projects_exclusions_and_names_with_spaces_are_counted() {
    require_tools(&["ruff", "shellcheck"]);
    let repo = repo_with_rules(
        &[("ruff.toml", "extend-exclude = [\"generated\"]\n")],
        &[("generated/api.py", "import os\n")],
    );
    let (code, said) = commit_gate(&repo, &[]);
    assert_eq!((code, said.as_str()), (Some(0), ""), "generated/ is excluded by the project");
    let repo = repo_with(&[("test cases/run it.sh", "#!/bin/sh\ncd $1\n")]);
    let (code, said) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("shell (shellcheck): 1 problem"), "{said}");
}

#[test]
fn a_helm_template_is_not_linted_as_yaml_and_a_workflow_expression_is() {
    require_tools(&["yamllint"]);
    let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.labels }}\n  labels:\n{{ toYaml .Values.labels | indent 4 }}\n{{- end }}\n";
    let repo = repo_with_rules(
        &[(".yamllint", "extends: default\nrules:\n  document-start: disable\n")],
        &[
            ("charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n"),
            ("charts/app/templates/deployment.yaml", template),
        ],
    );
    let (code, said) = commit_gate(&repo, &[]);
    assert_eq!((code, said.as_str()), (Some(0), ""), "a Go template is not YAML");
    // A GitHub workflow's `${{ … }}` is YAML, and a real error in it still blocks.
    repo.write(".github/workflows/ci.yml", "on: push\njobs:\n  t:\n    runs-on:  ubuntu-latest\n    steps:\n      - run: echo ${{ github.sha }}\n");
    let (code, said) = commit_gate(&repo, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains(".github/workflows/ci.yml:4") && said.contains("colons"), "{said}");
    assert!(!said.contains("deployment.yaml"), "{said}");
}

#[test]
fn a_trusted_projects_own_venv_tool_runs_and_an_untrusted_ones_never_does() {
    let ruff = real_tool("ruff");
    let repo = repo_with(&[
        (".gitignore", ".venv/\n"),
        // The project's own ruff: a stand-in that reports one finding of its own.
        (
            ".venv/bin/ruff",
            "#!/bin/sh\nfor a in \"$@\"; do case $a in *.py) echo \"$a:1:1: X100 the project's own ruff\";; esac; done\nexit 1\n",
        ),
        ("app.py", "print(1)\n"),
    ]);
    std::fs::set_permissions(
        repo.path(".venv/bin/ruff"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    // Even with `.venv/bin` first on a relative PATH, an untrusted repository's program never runs.
    let path = format!(".venv/bin:{}:/usr/bin:/bin", ruff.parent().expect("dir").display());
    let git = real_tool("git");
    let path = format!("{path}:{}", git.parent().expect("dir").display());
    let home = tempfile::tempdir().expect("home");
    let gate = |id: &str| {
        repo.git(&["add", "-A"]);
        let out = crate::support::pre_tool_use(
            home.path(),
            &repo.root(),
            id,
            "git commit -m x",
            &[("PATH", &path)],
        );
        (
            out.status.code(),
            format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout)),
        )
    };
    let (code, said) = gate("t-1");
    assert_eq!((code, said.as_str()), (Some(0), ""), "the real ruff ran: app.py is clean");
    // The post-edit lint runs in the worktree itself, where `.venv/bin` is the repository's.
    let payload = serde_json::json!({"session_id": "s", "cwd": repo.root(), "tool_name": "Write",
        "tool_input": {"file_path": repo.path("app.py"), "content": "print(1)\n"}});
    let out = codeguard(home.path())
        .env("PATH", &path)
        .current_dir(repo.root())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload.to_string())
        .output()
        .expect("post-tool-use");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("X100"), "an untrusted repository's own ruff ran after an edit: {stdout}");
    assert!(stdout.contains("python lint passed"), "{stdout}");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let (code, said) = gate("t-2");
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("X100 the project's own ruff"), "the trusted project's pinned ruff ran: {said}");
}

#[test]
fn a_trusted_bundler_project_runs_the_rubocop_its_gemfile_pins() {
    require_tools(&["rubocop", "bundle"]);
    let repo = TestRepo::new();
    repo.write("Gemfile", "source \"https://rubygems.org\"\ngem \"rubocop\"\n")
        .write(".rubocop.yml", "AllCops:\n  NewCops: disable\n");
    let out = std::process::Command::new("bundle")
        .args(["lock", "--local"])
        .current_dir(repo.root())
        .output()
        .expect("bundle lock");
    assert!(out.status.success(), "bundle lock: {}", String::from_utf8_lossy(&out.stderr));
    repo.commit_all("init");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    repo.write("lib/a.rb", "x = 1\nputs \"hi\"\n");
    let ruby = staged_check(&repo, home.path(), "ruby", &[]);
    assert_eq!(ruby["status"], "FAIL", "{ruby:#}");
    assert_eq!(ruby["findings"].as_array().map(Vec::len), Some(3), "{ruby:#}");
    let argv: Vec<&str> =
        ruby["argv"][0].as_array().expect("argv").iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(
        argv[..4],
        ["env", &format!("BUNDLE_GEMFILE={}/Gemfile", repo.root().display()), "bundle", "exec"],
        "{argv:?}"
    );
    assert_eq!(argv[4], "rubocop", "{argv:?}");
}

#[test]
fn a_bundle_that_is_not_installed_is_no_conclusion() {
    require_tools(&["rubocop", "bundle"]);
    let repo = TestRepo::new();
    // The lock pins a rubocop (and a plugin) that this machine does not have.
    repo.write("Gemfile", "source \"https://rubygems.org\"\ngem \"rubocop\", \"1.99.0\"\ngem \"rubocop-nonexistent\"\n")
        .write(
            "Gemfile.lock",
            "GEM\n  remote: https://rubygems.org/\n  specs:\n    rubocop (1.99.0)\n    rubocop-nonexistent (0.1.0)\n\nPLATFORMS\n  x86_64-linux\n\nDEPENDENCIES\n  rubocop (= 1.99.0)\n  rubocop-nonexistent\n\nBUNDLED WITH\n   2.3.15\n",
        )
        .commit_all("init");
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    repo.write("lib/a.rb", "x = 1\nputs \"hi\"\n");
    let ruby = staged_check(&repo, home.path(), "ruby", &[]);
    assert_eq!(ruby["status"], "UNVERIFIED", "a bundle not installed is no finding: {ruby:#}");
    let reason = ruby["reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("environment error:") && reason.contains("rubocop"), "{reason}");
}

#[test]
fn a_new_eslint_finding_that_reads_like_an_old_one_is_shown_and_counted() {
    let repo = eslint_project();
    // HEAD already has `a.js` with an unused variable; the change adds `b.js` with the same line:
    // eslint prints the very same finding line under each file name.
    repo.write("src/a.js", "const unused = 1;\n").commit_all("old finding");
    repo.write("src/b.js", "const unused = 1;\n");
    repo.write("src/a.js", "const unused = 1;\nexport const y = 2;\n");
    repo.git(&["add", "-A"]);
    let home = tempfile::tempdir().expect("home");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let out = crate::support::pre_tool_use(home.path(), &repo.root(), "t-1", "git commit -m b", &[]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("[typescript] eslint — 1 problem in 1 file (no-unused-vars×1)"), "{said}");
    assert!(said.contains("src/b.js\n") && said.contains("1:7"), "the new finding is shown: {said}");
    assert!(said.contains("1 pre-existing finding(s) exempt"), "{said}");
}
