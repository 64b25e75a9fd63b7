//! Built-in registry commands that execute repository content (build wrappers, build scripts,
//! local tool binaries) end to end: in an untrusted workspace they never run — not from the
//! `PreToolUse` gate, git's pre-commit hook, `check` or the post-edit lint — and the language is
//! UNVERIFIED with the `codeguard trust` hint; after `codeguard trust` they run.

use std::path::Path;

use serde_json::json;

use crate::support::{assert_untouched, codeguard, json_stdout, pre_tool_use};

type Fixture = crate::support::Marked;

/// What these tests add to the shared marker fixture.
impl crate::support::Marked {
    /// `check --no-cache --format json --lang LANG`: exit code, the language's status and reason.
    fn check(&self, lang: &str, extra_env: &[(&str, &std::ffi::OsStr)]) -> (Option<i32>, String, String) {
        self.check_lang(lang, &["--lang", lang], extra_env)
    }

    /// Commits a `node_modules/.bin/eslint` that records its runs, an eslint config and `app.js`.
    fn commit_eslint_bin(&self) {
        self.repo
            .write("package.json", "{\"name\": \"probe\", \"private\": true}\n")
            .write("eslint.config.js", "export default [];\n")
            .write("node_modules/.bin/eslint", &self.recorder())
            .chmod_x("node_modules/.bin/eslint")
            .write("app.js", "console.log(1);\n");
        self.repo.git(&["add", "-f", "-A"]);
        self.repo.git(&["commit", "-q", "-m", "js"]);
    }

    fn trust_hint(&self) -> String {
        format!("run codeguard trust {} to allow this repository's own commands", self.repo.root().display())
    }

    fn trust(&self) {
        codeguard(self.home()).arg("trust").arg(self.repo.root()).assert().success();
    }
}

/// Asserts an UNVERIFIED check result that names the tool, says why and gives the trust hint.
fn assert_withheld(f: &Fixture, (code, status, reason): (Option<i32>, String, String), tool: &str) {
    assert_eq!((code, status.as_str()), (Some(3), "UNVERIFIED"), "{reason}");
    assert!(reason.contains(tool) && reason.contains("not trusted"), "{reason}");
    assert!(reason.ends_with(&f.trust_hint()), "{reason}");
}

#[test]
fn a_committed_gradle_wrapper_runs_only_in_a_trusted_workspace() {
    let f = Fixture::new();
    f.repo
        .write("gradlew", &f.recorder())
        .chmod_x("gradlew")
        .write("build.gradle", "plugins { id 'org.jetbrains.kotlin.jvm' }\n")
        .write("src/main/kotlin/App.kt", "fun main() = println(\"hi\")\n");
    f.repo.git(&["add", "-A"]);

    let out = assert_untouched(&f.repo.root(), || {
        pre_tool_use(f.home(), &f.repo.root(), "t-1", "git commit -m kotlin", &[])
    });
    assert_eq!(out.status.code(), Some(0), "withheld is UNVERIFIED, not a block");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("kotlin") && stdout.contains("codeguard trust"), "{stdout}");
    assert_eq!(f.runs(), 0, "the gate ran ./gradlew from the snapshot");

    let out = assert_untouched(&f.repo.root(), || {
        codeguard(f.home()).current_dir(f.repo.root()).args(["git-hook", "pre-commit"]).output().expect("run")
    });
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("codeguard trust"));
    assert_eq!(f.runs(), 0, "git's pre-commit hook ran ./gradlew");

    assert_withheld(&f, f.check("kotlin", &[]), "./gradlew");
    assert_eq!(f.runs(), 0, "check ran ./gradlew");

    f.trust();
    let (_, status, reason) = f.check("kotlin", &[]);
    assert_eq!(status, "PASS", "{reason}");
    assert_eq!(f.runs(), 1, "trusted: the wrapper ran");
}

#[test]
fn a_cargo_build_script_runs_only_in_a_trusted_workspace() {
    let cargo = crate::support::real_tool("cargo");
    let f = Fixture::new();
    let build_rs = format!(
        "use std::io::Write;\nfn main() {{\n    let mut f = std::fs::OpenOptions::new().create(true).append(true).open({:?}).unwrap();\n    writeln!(f, \"ran\").unwrap();\n    println!(\"cargo:rerun-if-changed=build.rs\");\n}}\n",
        f.marker
    );
    f.repo
        .write("Cargo.toml", "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .write("build.rs", &build_rs)
        .write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n")
        // cargo runs with --locked: the lock file is committed, as for any crate it checks.
        .write("Cargo.lock", "version = 4\n\n[[package]]\nname = \"probe\"\nversion = \"0.1.0\"\n")
        .write(".gitignore", "/target\n");
    f.repo.commit_all("rust");
    // rustup's proxies need their own homes; the tests run codeguard under a throw-away HOME.
    let cargo_home = std::env::var_os("CARGO_HOME")
        .or_else(|| cargo.parent().and_then(Path::parent).map(|p| p.as_os_str().to_owned()))
        .expect("cargo home");
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .unwrap_or_else(|| Path::new(&cargo_home).parent().expect("parent").join(".rustup").into_os_string());
    let target = tempfile::tempdir().expect("target dir");
    let env = [
        ("CARGO_HOME", cargo_home.as_os_str()),
        ("RUSTUP_HOME", rustup_home.as_os_str()),
        ("CARGO_TARGET_DIR", target.path().as_os_str()),
    ];

    assert_withheld(&f, f.check("rust", &env), "cargo");
    assert_eq!(f.runs(), 0, "check ran build.rs");

    f.trust();
    let (_, status, reason) = f.check("rust", &env);
    assert_eq!(status, "PASS", "{reason}");
    assert_eq!(f.runs(), 1, "trusted: cargo clippy ran build.rs");
}

#[test]
fn a_committed_node_modules_bin_never_runs_after_an_edit_in_an_untrusted_workspace() {
    let f = Fixture::new();
    f.commit_eslint_bin();
    let edit = || {
        let payload = json!({"session_id": "s", "cwd": f.repo.root(), "tool_name": "Write", "tool_input": {"file_path": f.repo.path("app.js"), "content": ""}});
        let out = codeguard(f.home())
            .args(["hook", "post-tool-use"])
            .write_stdin(payload.to_string())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stdout = edit();
    assert!(stdout.contains("UNVERIFIED") && stdout.contains("codeguard trust"), "{stdout}");
    assert_eq!(f.runs(), 0, "the post-edit lint ran node_modules/.bin/eslint");

    f.repo.write("app.js", "console.log(2);\n");
    f.repo.git(&["add", "app.js"]);
    let out = assert_untouched(&f.repo.root(), || {
        pre_tool_use(f.home(), &f.repo.root(), "t-1", "git commit -m js", &[])
    });
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(f.runs(), 0, "the gate ran node_modules/.bin/eslint");

    f.trust();
    edit();
    assert!(f.runs() >= 1, "trusted: the repository's eslint ran");
}

#[test]
fn session_start_names_the_linters_that_wait_for_trust() {
    let f = Fixture::new();
    f.repo
        .write("gradlew", &f.recorder())
        .chmod_x("gradlew")
        .write("build.gradle", "")
        .write("App.kt", "fun main() = println(\"hi\")\n")
        .write("app.py", "x = 1\n")
        .commit_all("kotlin");
    let start = || {
        let payload = json!({"session_id": "s", "cwd": f.repo.root(), "source": "startup"});
        let out = codeguard(f.home())
            .args(["hook", "session-start"])
            .write_stdin(payload.to_string())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = start();
    assert!(
        text.contains("Workspace untrusted: the linters of java (mvn), kotlin (./gradlew) execute this repository's own code")
            && text.contains(&f.trust_hint()),
        "{text}"
    );
    assert!(!text.contains("python (ruff)"), "ruff needs no trust: {text}");
    assert_eq!(f.runs(), 0, "session start never runs the wrapper");
}

#[test]
fn detect_never_probes_a_committed_tool_in_an_untrusted_workspace() {
    let f = Fixture::new();
    f.commit_eslint_bin();
    let detect = || {
        let out = codeguard(f.home())
            .args(["detect", "--format", "json"])
            .arg(f.repo.root())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0));
        let json = json_stdout(&out);
        let ts = json["languages"]
            .as_array()
            .expect("languages")
            .iter()
            .find(|l| l["id"] == "typescript")
            .cloned();
        ts.unwrap_or_else(|| panic!("{json}"))
    };
    let ts = detect();
    assert_eq!(ts["linter"]["ready"], false, "{ts}");
    let reason = ts["linter"]["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("not probed: `npx --no-install eslint --version`")
            && reason.ends_with(&f.trust_hint()),
        "{reason}"
    );
    assert_eq!(f.runs(), 0, "detect ran node_modules/.bin/eslint");

    f.trust();
    assert_eq!(detect()["linter"]["ready"], true);
    assert!(f.runs() >= 1, "trusted: the probe ran");
}
