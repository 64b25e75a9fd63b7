//! `codeguard fix` end to end: real repositories, real ruff and shfmt, fake formatters for exit
//! codes and project-level commands. Every test checks bytes on disk, not only the report.

use std::path::Path;

use crate::support::{TestRepo, assert_untouched, bin_dir_with, codeguard, json_stdout, require_tools};

const UNUSED_IMPORT: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const CLEAN_PY: &str = "import sys\n\nprint(sys.argv)\n";
const UGLY_SH: &str = "#!/bin/sh\nif [ -n \"$1\" ]; then\necho   \"$1\"\nfi\n";
const PRETTY_SH: &str = "#!/bin/sh\nif [ -n \"$1\" ]; then\n\techo \"$1\"\nfi\n";

fn read(repo: &TestRepo, rel: &str) -> String {
    std::fs::read_to_string(repo.path(rel)).expect("read")
}

fn strings(json: &serde_json::Value) -> Vec<String> {
    json.as_array().expect("array").iter().map(|v| v.as_str().expect("string").to_owned()).collect()
}

fn formatter<'j>(json: &'j serde_json::Value, id: &str) -> &'j serde_json::Value {
    json["formatters"].as_array().expect("formatters").iter().find(|f| f["language"] == id).expect(id)
}

fn fix(home: &Path, repo: &TestRepo, args: &[&str]) -> std::process::Output {
    codeguard(home).current_dir(repo.root()).arg("fix").args(args).output().expect("run")
}

#[test]
fn only_changed_files_are_rewritten_and_a_second_run_changes_nothing() {
    require_tools(&["ruff", "shfmt", "shellcheck"]);
    let repo = TestRepo::new();
    repo.write("old.py", UNUSED_IMPORT)
        .write("old.sh", UGLY_SH)
        .write("app/b.py", CLEAN_PY)
        .commit_all("init");
    repo.write("app/b.py", UNUSED_IMPORT).write("run.sh", UGLY_SH).write("notes.txt", "  untouched  \n");
    let home = tempfile::tempdir().expect("home");

    let out = fix(home.path(), &repo, &["--format", "json"]);
    let json = json_stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    assert_eq!(json["status"], "PASS");
    assert_eq!(strings(&json["changed"]), ["app/b.py", "run.sh"]);
    assert_eq!(strings(&formatter(&json, "python")["files"]), ["app/b.py"]);
    assert_eq!(strings(&formatter(&json, "shell")["changed"]), ["run.sh"]);
    assert_eq!(read(&repo, "app/b.py"), CLEAN_PY, "ruff removed the unused import");
    assert_eq!(read(&repo, "run.sh"), PRETTY_SH, "shfmt re-indented the changed script");
    assert_eq!(read(&repo, "old.py"), UNUSED_IMPORT, "an unchanged file is never rewritten");
    assert_eq!(read(&repo, "old.sh"), UGLY_SH, "an unchanged script is never rewritten");
    let recheck: Vec<_> =
        json["recheck"].as_array().expect("recheck").iter().map(|r| r["status"].clone()).collect();
    assert_eq!(recheck, ["PASS", "PASS"], "{json:#}");

    let again = assert_untouched(&repo.root(), || fix(home.path(), &repo, &["--format", "json"]));
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(strings(&json_stdout(&again)["changed"]), Vec::<String>::new());

    let human = fix(home.path(), &repo, &[]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("no file changed") && text.contains("FIXED — 0 file(s) changed"), "{text}");
}

#[test]
fn unfixable_problems_remain_listed_with_exit_1() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", CLEAN_PY).commit_all("init");
    repo.write("a.py", "import os\n\nprint(undefined_name)\n");
    let home = tempfile::tempdir().expect("home");
    let out = fix(home.path(), &repo, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(read(&repo, "a.py"), "\nprint(undefined_name)\n", "the fixable part was fixed");
    assert!(text.contains("F821") && text.contains("problems remain in python"), "{text}");
}

#[test]
fn symlinked_and_outside_targets_are_refused() {
    require_tools(&["ruff"]);
    let outside = tempfile::tempdir().expect("outside");
    let outside_file = outside.path().join("victim.py");
    std::fs::write(&outside_file, UNUSED_IMPORT).expect("write");
    let repo = TestRepo::new();
    repo.write("real.py", UNUSED_IMPORT).commit_all("init");
    std::os::unix::fs::symlink(&outside_file, repo.path("ext.py")).expect("symlink out");
    std::os::unix::fs::symlink("real.py", repo.path("alias.py")).expect("symlink in");
    let home = tempfile::tempdir().expect("home");

    let out = fix(home.path(), &repo, &["--format", "json"]);
    let json = json_stdout(&out);
    let refused: Vec<(String, String)> = json["refused"]
        .as_array()
        .expect("refused")
        .iter()
        .map(|r| {
            (r["path"].as_str().expect("path").to_owned(), r["status"].as_str().expect("status").to_owned())
        })
        .collect();
    assert_eq!(refused, [("alias.py".into(), "UNVERIFIED".into()), ("ext.py".into(), "UNVERIFIED".into())]);
    assert!(json["refused"][1]["reason"].as_str().expect("reason").contains("outside the project"));
    assert_eq!(
        std::fs::read_to_string(&outside_file).expect("read"),
        UNUSED_IMPORT,
        "outside file untouched"
    );
    assert_eq!(read(&repo, "real.py"), UNUSED_IMPORT, "nothing was written through the link");
    assert!(std::fs::symlink_metadata(repo.path("alias.py")).expect("meta").file_type().is_symlink());
    assert_eq!(strings(&json["changed"]), Vec::<String>::new());

    let human = fix(home.path(), &repo, &[]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("UNVERIFIED ext.py: not fixed: a symbolic link to a file outside the project"),
        "{text}"
    );
}

#[test]
fn a_failing_formatter_exits_1_with_its_output() {
    let repo = TestRepo::new();
    // The project configures shfmt, so it is adopted without checking HEAD's layout.
    repo.write("run.sh", PRETTY_SH)
        .write(".editorconfig", "[*.sh]\nswitch_case_indent = true\n")
        .commit_all("init");
    repo.write("run.sh", UGLY_SH);
    let fake = tempfile::tempdir().expect("fake");
    let shfmt = fake.path().join("shfmt");
    std::fs::write(&shfmt, "#!/bin/sh\necho \"shfmt: cannot parse $2: boom\" >&2\nexit 3\n").expect("write");
    repo_chmod_x(&shfmt);
    let bin = bin_dir_with(&[&shfmt]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .current_dir(repo.root())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
        .args(["fix", "--lang", "shell"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL       shell") && text.contains("exited with 3"), "{text}");
    assert!(text.contains("shfmt: cannot parse run.sh: boom"), "the formatter's own words are shown: {text}");
    assert!(text.contains("full output:"), "{text}");
    assert_eq!(read(&repo, "run.sh"), UGLY_SH);
}

fn repo_chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn dry_run_leaves_every_byte_as_it_was() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("a.py", CLEAN_PY).commit_all("init");
    repo.write("a.py", UNUSED_IMPORT).write("b.py", UNUSED_IMPORT);
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || fix(home.path(), &repo, &["--dry-run"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("PLANNED    python")
            && text.contains("--fix --no-unsafe-fixes --force-exclude a.py b.py"),
        "{text}"
    );
    assert!(text.contains("nothing was changed"), "{text}");
    assert!(!home.path().join(".codeguard/logs").exists(), "a dry run writes no logs either");
}

#[test]
fn project_level_formatters_run_only_with_all() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"x\"\n")
        .write("src/main.rs", "fn main(){}\n")
        .commit_all("init");
    repo.write("src/main.rs", "fn main(){ }\n");
    let fake = tempfile::tempdir().expect("fake");
    let cargo = fake.path().join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\necho \"$@\" >> \"$CARGO_CALLS\"\n[ \"$1\" = fmt ] && printf 'fn main() {}\\n' > src/main.rs\nexit 0\n")
        .expect("write");
    repo_chmod_x(&cargo);
    let bin = bin_dir_with(&[&cargo]);
    let calls = fake.path().join("calls");
    let home = tempfile::tempdir().expect("home");
    let run = |args: &[&str]| {
        codeguard(home.path())
            .current_dir(repo.root())
            .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
            .env("CARGO_CALLS", &calls)
            .arg("fix")
            .args(args)
            .output()
            .expect("run")
    };
    let partial = run(&["--lang", "rust", "--format", "json"]);
    let json = json_stdout(&partial);
    assert_eq!(formatter(&json, "rust")["status"], "SKIPPED");
    assert!(formatter(&json, "rust")["reason"].as_str().expect("reason").contains("only with --all"));
    assert!(!calls.exists(), "cargo fmt never ran without --all");
    assert_eq!(read(&repo, "src/main.rs"), "fn main(){ }\n");

    // cargo runs repository code (.cargo/config aliases, toolchain files): only once trusted.
    let untrusted = json_stdout(&run(&["--all", "--lang", "rust", "--format", "json"]));
    assert_eq!(formatter(&untrusted, "rust")["status"], "UNVERIFIED", "{untrusted:#}");
    assert!(formatter(&untrusted, "rust")["reason"].as_str().expect("reason").contains("codeguard trust"));
    assert!(!calls.exists(), "cargo fmt never ran in an untrusted workspace");
    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();

    let whole = run(&["--all", "--lang", "rust", "--format", "json"]);
    let json = json_stdout(&whole);
    assert_eq!(whole.status.code(), Some(0), "{json:#}");
    assert_eq!(strings(&formatter(&json, "rust")["changed"]), ["src/main.rs"]);
    assert_eq!(std::fs::read_to_string(&calls).expect("calls").lines().next(), Some("fmt"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.py"), CLEAN_PY).expect("write");
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path()).arg("fix").arg(dir.path()).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "changed files need git");
    assert!(String::from_utf8_lossy(&out.stderr).contains("use --all"));
    let repo = TestRepo::new();
    let out = fix(home.path(), &repo, &["--lang", "klingon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown language `klingon`"));
}

#[test]
fn a_formatter_the_project_defines_runs_only_in_a_trusted_workspace() {
    let repo = TestRepo::new();
    repo.write("a.py", CLEAN_PY)
        // It writes a first line: beside the edit's `import os`, so it meets the change.
        .write("fmt.sh", "#!/bin/sh\nfor f in \"$@\"; do printf '# formatted\\n' | cat - \"$f\" > \"$f.new\" && mv \"$f.new\" \"$f\"; done\n")
        .chmod_x("fmt.sh")
        .write(
            "codeguard.json",
            r#"{"languages": {"python": {"lint": ["true", "{files}"], "format": ["./fmt.sh", "{files}"]}}}"#,
        )
        .commit_all("init");
    repo.write("a.py", UNUSED_IMPORT);
    let home = tempfile::tempdir().expect("home");

    let out = fix(home.path(), &repo, &["--format", "json"]);
    let json = json_stdout(&out);
    let python = formatter(&json, "python");
    assert_eq!(python["status"], "UNVERIFIED", "{json:#}");
    assert!(python["reason"].as_str().expect("reason").contains("not trusted"), "{json:#}");
    assert_eq!(read(&repo, "a.py"), UNUSED_IMPORT, "an untrusted repository's command never ran");
    assert_eq!(out.status.code(), Some(1));

    codeguard(home.path()).arg("trust").arg(repo.root()).assert().success();
    let out = fix(home.path(), &repo, &["--format", "json"]);
    let json = json_stdout(&out);
    assert_eq!(strings(&formatter(&json, "python")["changed"]), ["a.py"], "{json:#}");
    assert_eq!(read(&repo, "a.py"), format!("# formatted\n{UNUSED_IMPORT}"));
}

/// A repository's configuration never turns on unsafe fixes: with `unsafe-fixes = true` in its
/// `ruff.toml`, `codeguard fix` still applies only ruff's safe fixes (an unused local variable,
/// F841, whose fix is unsafe, stays; an unused import, F401, safe, goes).
#[test]
fn repository_configuration_never_turns_on_unsafe_fixes() {
    require_tools(&["ruff"]);
    let repo = TestRepo::new();
    repo.write("ruff.toml", "unsafe-fixes = true\n[lint]\nselect = [\"F401\", \"F841\"]\n")
        .write("app.py", "x = 1\n")
        .commit_all("init");
    repo.write("app.py", "import os\n\n\ndef f():\n    unused = 1\n    return 2\n");
    let home = tempfile::tempdir().expect("home");
    let out = fix(home.path(), &repo, &[]);
    let text = read(&repo, "app.py");
    assert!(
        !text.contains("import os"),
        "the safe fix ran: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("unused = 1"), "the unsafe fix did not run: {text}");
}
