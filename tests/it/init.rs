//! `codeguard init` end to end: a dry run writes nothing, `--apply` creates only what is missing,
//! keeps the user's files byte for byte, is idempotent, and the configs it writes work with the
//! real linters.

use crate::support::{TestRepo, assert_untouched, codeguard, json_stdout, require_tools};

const MY_SHELLCHECKRC: &str = "# mine\ndisable=SC2086\n";
const MY_AGENTS: &str = "# Notes for agents\n\nRun the tests before you commit.\n";

fn project() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/main.py", "import sys\n\nprint(sys.argv)\n")
        .write("scripts/run.sh", "#!/bin/sh\necho \"$1\"\n")
        .write("ci/pipeline.yml", "on:\n  push:\njobs:\n  test:\n    runs-on: linux\n")
        .write(".shellcheckrc", MY_SHELLCHECKRC)
        .write("AGENTS.md", MY_AGENTS)
        .commit_all("init");
    repo
}

#[test]
fn dry_run_is_the_default_and_writes_nothing() {
    let repo = project();
    let home = tempfile::tempdir().expect("home");
    let out = assert_untouched(&repo.root(), || {
        codeguard(home.path()).current_dir(repo.root()).arg("init").output().expect("run")
    });
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("dry run"), "{text}");
    assert!(text.contains("would create ruff.toml") && text.contains("would create .yamllint.yml"), "{text}");
    assert!(text.contains("keep         .shellcheckrc"), "{text}");
    assert!(text.contains("would update AGENTS.md") && text.contains("| select = [\"E4\""), "{text}");
}

#[test]
fn apply_creates_only_missing_files_keeps_yours_and_is_idempotent() {
    let repo = project();
    let home = tempfile::tempdir().expect("home");
    let apply =
        || codeguard(home.path()).current_dir(repo.root()).args(["init", "--apply"]).output().expect("run");
    let out = apply();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(repo.path("ruff.toml").is_file() && repo.path(".yamllint.yml").is_file(), "{text}");
    assert_eq!(std::fs::read_to_string(repo.path(".shellcheckrc")).expect("rc"), MY_SHELLCHECKRC);
    let agents = std::fs::read_to_string(repo.path("AGENTS.md")).expect("agents");
    assert!(agents.starts_with(MY_AGENTS), "your text stays first, byte for byte: {agents}");
    assert_eq!(agents.matches("<!-- codeguard:begin -->").count(), 1);
    assert!(agents.trim_end().ends_with("<!-- codeguard:end -->"));
    assert!(agents.contains("separate tool calls"), "{agents}");

    let again = assert_untouched(&repo.root(), apply);
    assert_eq!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stdout).contains("kept"));

    require_tools(&["ruff", "shellcheck", "yamllint"]);
    let check = codeguard(home.path())
        .args(["check", "--lang", "python,shell,yaml", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("check");
    let json = json_stdout(&check);
    let statuses: Vec<(String, String)> = json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| (l["language"].as_str().expect("id").into(), l["status"].as_str().expect("status").into()))
        .collect();
    let expected: Vec<(String, String)> = [("python", "PASS"), ("shell", "PASS"), ("yaml", "PASS")]
        .iter()
        .map(|(a, b)| ((*a).into(), (*b).into()))
        .collect();
    assert_eq!(statuses, expected, "the written configs are valid for the real tools: {json:#}");
}

#[test]
fn a_stale_block_is_replaced_in_place() {
    let repo = project();
    let stale = format!(
        "{MY_AGENTS}\n<!-- codeguard:begin -->\nold words\n<!-- codeguard:end -->\n\n## Later section\n"
    );
    repo.write("AGENTS.md", &stale);
    let home = tempfile::tempdir().expect("home");
    let out =
        codeguard(home.path()).current_dir(repo.root()).args(["init", "--apply"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let agents = std::fs::read_to_string(repo.path("AGENTS.md")).expect("agents");
    assert!(agents.starts_with(&format!("{MY_AGENTS}\n<!-- codeguard:begin -->\n")), "{agents}");
    assert!(agents.ends_with("<!-- codeguard:end -->\n\n## Later section\n"), "{agents}");
    assert!(!agents.contains("old words"));
}
