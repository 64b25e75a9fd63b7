//! One project, one answer: `detect`, `init`, `doctor`, the session start and the gate read a
//! project's languages through the same inventory (`project::Inventory`), so on one repository
//! they name the same languages, and the same ones as integrated.
//!
//! The fixture holds what once made them disagree: an extension-less script known by its `#!`
//! line, vendored Go (never linted), YAML without a yamllint configuration (detected, not
//! integrated), a `codeguard.json` that excludes a directory, and Python.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{TestRepo, codeguard, require_tools};

type Ids = BTreeSet<String>;

fn fixture() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app.py", "import sys\n\nprint(sys.argv)\n")
        .write("bin/deploy", "#!/bin/bash\necho deploy\n")
        .write("third_party/x/main.go", "package main\n")
        .write("gen/tool.rb", "puts 1\n")
        .write("ci.yml", "a: 1\n")
        .write("codeguard.json", r#"{"exclude": ["gen/**"]}"#);
    repo.chmod_x("bin/deploy");
    repo.git(&["add", "-A"]);
    repo
}

fn ids<'a>(items: impl IntoIterator<Item = &'a str>) -> Ids {
    items.into_iter().map(str::to_owned).collect()
}

/// `detect --format json`: every detected language, and the integrated ones.
fn detect(repo: &TestRepo, home: &std::path::Path) -> (Ids, Ids) {
    let out = codeguard(home)
        .current_dir(repo.root())
        .args(["detect", "--format", "json"])
        .output()
        .expect("detect");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let langs = v["languages"].as_array().expect("languages");
    let all = ids(langs.iter().filter_map(|l| l["id"].as_str()));
    let integrated = ids(langs.iter().filter(|l| l["integrated"] == true).filter_map(|l| l["id"].as_str()));
    (all, integrated)
}

/// `init` (a dry run): its `languages: a, b (integrated: a)` line.
fn init(repo: &TestRepo, home: &std::path::Path) -> (Ids, Ids) {
    let out = codeguard(home).current_dir(repo.root()).arg("init").output().expect("init");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find_map(|l| l.trim().strip_prefix("languages: ")).expect("a languages line");
    let (all, integrated) = line.split_once(" (integrated: ").expect("integrated part");
    let list = |s: &str| ids(s.trim_end_matches(')').split(", ").filter(|s| *s != "none"));
    (list(all), list(integrated))
}

/// The session start's `Languages:` line.
fn session_start(repo: &TestRepo, home: &std::path::Path) -> Ids {
    let payload = serde_json::json!({
        "session_id": "s-1",
        "cwd": repo.root(),
        "hook_event_name": "SessionStart",
        "source": "startup",
    });
    let out = codeguard(home)
        .args(["hook", "session-start", "--host", "claude"])
        .write_stdin(payload.to_string())
        .output()
        .expect("session start");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let context = v["hookSpecificOutput"]["additionalContext"].as_str().expect("context").to_owned();
    let line = context.lines().find_map(|l| l.strip_prefix("Languages: ")).expect("a Languages line");
    ids(line.split("; ").map(|part| part.split(" (").next().unwrap_or(part)))
}

/// `doctor`'s `linter <id>` checks: one per integrated language.
fn doctor(repo: &TestRepo, home: &std::path::Path) -> Ids {
    let out = codeguard(home).current_dir(repo.root()).arg("doctor").output().expect("doctor");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    text.lines()
        .filter_map(|l| l.split_once("linter ").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(':').next())
        .map(str::to_owned)
        .collect()
}

/// The gate on the whole staged project (`check --staged`): the languages it planned, and the
/// ones it did not skip as not integrated.
fn gate(repo: &TestRepo) -> (Ids, Ids) {
    let v = crate::support::staged_report(repo);
    let langs = v["languages"].as_array().expect("languages");
    let all = ids(langs.iter().filter_map(|l| l["language"].as_str()));
    let integrated = ids(langs
        .iter()
        .filter(|l| !l["reason"].as_str().unwrap_or("").starts_with("not integrated"))
        .filter_map(|l| l["language"].as_str()));
    (all, integrated)
}

#[test]
fn detect_init_doctor_session_start_and_the_gate_name_the_same_languages() {
    require_tools(&["ruff", "shellcheck"]);
    let repo = fixture();
    let home = tempfile::tempdir().expect("home");
    let (detected, integrated) = detect(&repo, home.path());
    assert_eq!(
        detected,
        ids(["python", "shell", "yaml"]),
        "vendored Go and excluded Ruby are not the project's"
    );
    assert_eq!(integrated, ids(["python", "shell"]), "yaml has no yamllint configuration");
    assert_eq!(init(&repo, home.path()), (detected.clone(), integrated.clone()), "init");
    assert_eq!(session_start(&repo, home.path()), detected, "session start");
    assert_eq!(doctor(&repo, home.path()), integrated, "doctor");
    assert_eq!(gate(&repo), (detected, integrated), "the gate");
}
