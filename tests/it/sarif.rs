//! `codeguard check --format sarif`: real linters' findings round-trip into SARIF 2.1.0 that
//! validates against the OASIS schema (tests/fixtures/sarif-2.1.0.json, checked with Python's
//! `jsonschema`), and incomplete checks show up as failed invocations, never as clean runs.

use std::path::Path;

use serde_json::Value;

use crate::support::{
    TestRepo, check_with_only, codeguard, json_stdout, real_tool, require_tools, schema_errors,
};

const BAD_PY: &str = "import os\nimport sys\n\nprint(sys.argv)\n";
const BAD_SH: &str = "#!/bin/sh\ncd $1\necho finished\n";
const GOOD_SH: &str = "#!/bin/sh\ncd \"$1\" || exit 1\necho finished\n";

/// Asserts that `document` validates against the SARIF 2.1.0 schema (the validator is a real
/// tool: missing, it fails the test).
fn validate(document: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-2.1.0.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(path).expect("schema")).expect("schema JSON");
    let errors = schema_errors(&schema, document);
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
}

fn run_named<'a>(sarif: &'a Value, driver: &str) -> &'a Value {
    sarif["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| r["tool"]["driver"]["name"] == driver)
        .unwrap_or_else(|| panic!("no run for {driver}: {sarif:#}"))
}

/// `(uri, startLine, ruleId, level)` of each result of a run.
fn results(run: &Value) -> Vec<(String, u64, String, String)> {
    run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"];
            assert_eq!(location["artifactLocation"]["uriBaseId"], "SRCROOT");
            (
                location["artifactLocation"]["uri"].as_str().expect("uri").to_owned(),
                location["region"]["startLine"].as_u64().unwrap_or(0),
                r["ruleId"].as_str().expect("rule").to_owned(),
                r["level"].as_str().expect("level").to_owned(),
            )
        })
        .collect()
}

fn entry(uri: &str, line: u64, rule: &str, level: &str) -> (String, u64, String, String) {
    (uri.to_owned(), line, rule.to_owned(), level.to_owned())
}

#[test]
fn findings_round_trip_with_file_line_and_rule_and_the_log_validates() {
    require_tools(&["ruff", "shellcheck", "yamllint"]);
    let repo = TestRepo::new();
    repo.write("app/main.py", BAD_PY)
        .write("scripts/run.sh", BAD_SH)
        .write(".yamllint", "extends: default\n")
        .write("conf/app.yaml", "---\nkey:  value\n")
        .write(".env", "TOKEN=abc\n");
    repo.git(&["add", "-A", "-f"]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .args(["check", "--staged", "--format", "sarif"])
        .arg(repo.root())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let sarif = json_stdout(&out);
    assert_eq!(sarif["version"], "2.1.0");
    let root_uri = format!("file://{}/", repo.root().display());
    assert_eq!(run_named(&sarif, "ruff")["originalUriBaseIds"]["SRCROOT"]["uri"], root_uri.as_str());

    assert_eq!(results(run_named(&sarif, "ruff")), [entry("app/main.py", 1, "F401", "error")]);
    let ruff = &run_named(&sarif, "ruff")["results"][0];
    assert_eq!(ruff["locations"][0]["physicalLocation"]["region"]["startColumn"], 8);
    assert!(ruff["message"]["text"].as_str().expect("message").contains("`os` imported but unused"));
    assert_eq!(run_named(&sarif, "ruff")["tool"]["driver"]["rules"][0]["id"], "F401");
    assert_eq!(results(run_named(&sarif, "shellcheck")), [entry("scripts/run.sh", 2, "SC2164", "warning")]);
    assert_eq!(results(run_named(&sarif, "yamllint")), [entry("conf/app.yaml", 2, "colons", "error")]);
    assert_eq!(results(run_named(&sarif, "codeguard-safety")), [entry(".env", 0, "sensitive-file", "error")]);
    for driver in ["ruff", "shellcheck", "yamllint"] {
        assert_eq!(run_named(&sarif, driver)["invocations"][0]["executionSuccessful"], true, "{driver}");
    }
    validate(&sarif);
}

#[test]
fn incomplete_checks_are_failed_invocations_not_clean_runs() {
    let ruff = real_tool("ruff");
    let repo = TestRepo::new();
    repo.write("a.py", "import sys\n\nprint(sys.argv)\n").write("run.sh", GOOD_SH).commit_all("init");
    let out = check_with_only(&[&ruff], "sarif", &repo.root());
    assert_eq!(out.status.code(), Some(3), "incomplete, never a pass");
    let sarif = json_stdout(&out);
    let ruff_run = run_named(&sarif, "ruff");
    assert_eq!(ruff_run["invocations"][0]["executionSuccessful"], true);
    assert!(ruff_run["results"].as_array().expect("results").is_empty());
    let shell = run_named(&sarif, "shellcheck");
    let invocation = &shell["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let note = &invocation["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "error");
    assert!(note["message"]["text"].as_str().expect("text").starts_with("UNVERIFIED: "), "{note}");
    assert_eq!(sarif["properties"]["status"], "UNVERIFIED");
    assert!(
        sarif["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .all(|r| r["tool"]["driver"]["name"] != "codeguard-safety"),
        "a whole-tree check runs no safety scan, so it reports none"
    );
    validate(&sarif);
}

#[test]
fn only_check_speaks_sarif() {
    let home = tempfile::tempdir().expect("home");
    for args in
        [&["explain", "--format", "sarif", "--", "git commit"][..], &["languages", "--format", "sarif"]]
    {
        let out = codeguard(home.path()).args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("sarif"), "{args:?}");
    }
}
