//! Gemini CLI folder trust: in an untrusted folder Gemini leaves the workspace
//! `.gemini/settings.json` out of the merge and registers none of its hooks ("Project hooks
//! disabled because the folder is not trusted"), so a project install there does nothing.
//!
//! **In:** the environment (where the trusted-folders file is, the overrides) and a folder.
//! **Out:** whether Gemini will trust it, and the trusted-folders text with the folder added
//! (`--trust-folder`, the user's explicit request). Rules as Gemini applies them: the file maps a
//! path to `TRUST_FOLDER`, `TRUST_PARENT` (the rule is about the path's parent) or
//! `DO_NOT_TRUST`; paths are real paths, subfolders inherit, the longest matching rule wins;
//! `GEMINI_CLI_TRUST_WORKSPACE=true|false` overrides; `security.folderTrust.enabled = false` in
//! the user settings turns the feature off (everything trusted).
//! Never: trusts a folder unless asked.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::hosts::HostInstallError;
use crate::env::Env;

/// How Gemini will treat a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FolderTrust {
    /// Its project hooks load; why.
    Trusted(String),
    /// Its project hooks are ignored; why.
    Untrusted(String),
}

/// The trusted-folders file: `$GEMINI_CLI_TRUSTED_FOLDERS_PATH` or `~/.gemini/trustedFolders.json`.
pub(crate) fn trusted_folders_path(env: &Env) -> Option<PathBuf> {
    match env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH").filter(|v| !v.is_empty()) {
        Some(path) => Some(PathBuf::from(path)),
        None => env.home().map(|h| h.join(".gemini/trustedFolders.json")),
    }
}

/// Whether Gemini will load the project hooks of `folder`.
pub(crate) fn folder_trust(env: &Env, folder: &Path) -> FolderTrust {
    match env.get("GEMINI_CLI_TRUST_WORKSPACE").and_then(|v| v.to_str()) {
        Some("true") => return FolderTrust::Trusted("GEMINI_CLI_TRUST_WORKSPACE=true".into()),
        Some("false") => return FolderTrust::Untrusted("GEMINI_CLI_TRUST_WORKSPACE=false".into()),
        Some(_) | None => {}
    }
    let user_settings = env.home().map(|h| h.join(".gemini/settings.json"));
    let disabled = user_settings
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.pointer("/security/folderTrust/enabled").and_then(Value::as_bool))
        == Some(false);
    if disabled {
        return FolderTrust::Trusted("folder trust is turned off (security.folderTrust.enabled)".into());
    }
    let Some(file) = trusted_folders_path(env) else {
        return FolderTrust::Untrusted("no home directory to find Gemini's trusted folders in".into());
    };
    let rules = std::fs::read_to_string(&file).ok().and_then(|t| parse(&t).ok()).unwrap_or_default();
    let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
    let best = rules
        .iter()
        .filter_map(|(path, level)| {
            let level = level.as_str()?;
            let path = PathBuf::from(path);
            let path = path.canonicalize().unwrap_or(path);
            let scope = if level == "TRUST_PARENT" { path.parent()?.to_path_buf() } else { path };
            folder.starts_with(&scope).then(|| (scope.components().count(), scope, level.to_owned()))
        })
        .max_by_key(|(depth, _, _)| *depth);
    match best {
        Some((_, scope, level)) if level == "TRUST_FOLDER" || level == "TRUST_PARENT" => {
            FolderTrust::Trusted(format!("{} trusts {}", file.display(), scope.display()))
        }
        Some((_, scope, _)) => {
            FolderTrust::Untrusted(format!("{} says not to trust {}", file.display(), scope.display()))
        }
        None => FolderTrust::Untrusted(format!("{} is not in {}", folder.display(), file.display())),
    }
}

/// The trusted-folders file's rules (comments, which Gemini allows, are stripped first).
fn parse(text: &str) -> Result<Map<String, Value>, HostInstallError> {
    let clean: String =
        text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    if clean.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&clean) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) | Err(_) => Err(HostInstallError::Unreadable(
            "Gemini's trusted-folders file is not a JSON object; it was left alone".into(),
        )),
    }
}

/// The trusted-folders text with `folder` trusted (`TRUST_FOLDER`), every other rule kept.
pub(crate) fn trusted_merged(old: Option<&str>, folder: &Path) -> Result<String, HostInstallError> {
    let mut rules = parse(old.unwrap_or(""))?;
    rules.insert(folder.display().to_string(), Value::from("TRUST_FOLDER"));
    Ok(serde_json::to_string_pretty(&Value::Object(rules)).map(|s| s + "\n").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_rule_wins_and_parents_count() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path().canonicalize().expect("canon");
        let inner = root.join("a/b");
        std::fs::create_dir_all(&inner).expect("mkdir");
        let file = root.join("trusted.json");
        let env = Env::from_pairs([
            ("HOME", root.as_os_str().to_owned()),
            ("GEMINI_CLI_TRUSTED_FOLDERS_PATH", file.as_os_str().to_owned()),
        ]);
        assert!(matches!(folder_trust(&env, &inner), FolderTrust::Untrusted(_)));
        std::fs::write(&file, trusted_merged(None, &root).expect("merge")).expect("write");
        assert!(matches!(folder_trust(&env, &inner), FolderTrust::Trusted(_)));
        let text = format!(
            "// mine\n{{\"{}\": \"TRUST_FOLDER\", \"{}\": \"DO_NOT_TRUST\"}}",
            root.display(),
            root.join("a").display()
        );
        std::fs::write(&file, text).expect("write");
        assert!(matches!(folder_trust(&env, &inner), FolderTrust::Untrusted(_)), "the longer rule wins");
        std::fs::write(&file, format!("{{\"{}\": \"TRUST_PARENT\"}}", inner.display())).expect("write");
        assert!(matches!(folder_trust(&env, &root.join("a")), FolderTrust::Trusted(_)));
    }
}
