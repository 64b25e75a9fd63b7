//! Codex hook trust: Codex runs a command hook only when the user's `config.toml` records it as
//! reviewed (`[hooks.state."<key>"] trusted_hash = "sha256:…"`); a new hook is skipped without
//! a message. `codeguard install --host codex` is the user's explicit consent, so it records
//! codeguard's own handlers the way Codex persists a reviewed hook, and `uninstall` takes the
//! records out again.
//!
//! **In:** the `hooks.json` text codeguard wrote (and its absolute path), the user's
//! `config.toml` text. **Out:** the records (key and hash per handler of ours), the config text
//! with them in a marked block (or without it), and what a config says about a key. Pure.
//! Key: `<declaring file>:<event snake_case>:<group index>:<handler index>`. Hash: SHA-256 of
//! the handler normalised as Codex does — `{"event_name","matcher"?,"hooks":[{"type","command",
//! "timeout","async"}]}` with keys sorted recursively and no whitespace.
//! Never: records trust for a handler that is not codeguard's, or touches a record the user (or
//! Codex) wrote outside the block.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::Digest as _;

use super::hosts;
use crate::env::Env;
use crate::host::{Event, Host};

const BEGIN: &str = "# codeguard-trust:begin — codeguard's hooks recorded as reviewed by `codeguard install --host codex` (your consent); `codeguard uninstall --host codex` removes them";
const END: &str = "# codeguard-trust:end";

/// Codex's user layer: `$CODEX_HOME` (canonical, as Codex resolves it) or `~/.codex`.
pub(crate) fn home(env: &Env) -> Option<PathBuf> {
    match env.get("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            Some(dir.canonicalize().unwrap_or(dir))
        }
        None => env.home().map(|h| h.join(".codex")),
    }
}

/// The user `config.toml` that holds hook trust (only the user layer's records count).
pub(crate) fn config_path(env: &Env) -> Option<PathBuf> {
    home(env).map(|h| h.join("config.toml"))
}

/// One trust record: the hook's key and the hash Codex compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// `<file>:<event>:<group>:<handler>`.
    pub key: String,
    /// `sha256:<hex>`.
    pub hash: String,
}

/// Codex's snake-case label of an event key in `hooks.json`.
fn snake(key: &str) -> Option<&'static str> {
    Some(match Event::from_name(key)? {
        Event::SessionStart => "session_start",
        Event::UserPromptSubmit => "user_prompt_submit",
        Event::PreToolUse => "pre_tool_use",
        Event::PostToolUse => "post_tool_use",
        Event::Stop => "stop",
    })
}

/// The records for codeguard's handlers in a `hooks.json` text declared at `file`.
pub(crate) fn records(file: &Path, hooks_json: &str) -> Vec<Record> {
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(hooks_json) else { return Vec::new() };
    let Some(Value::Object(events)) = root.get("hooks") else { return Vec::new() };
    let mut out = Vec::new();
    for (name, groups) in events {
        let (Some(label), Some(groups)) = (snake(name), groups.as_array()) else { continue };
        for (g, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else { continue };
            for (h, handler) in handlers.iter().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else { continue };
                if !hosts::is_ours(command, Host::Codex) {
                    continue;
                }
                out.push(Record {
                    key: format!("{}:{label}:{g}:{h}", file.display()),
                    hash: hash(label, group.get("matcher"), handler),
                });
            }
        }
    }
    out
}

/// The hash Codex computes for one handler.
fn hash(label: &str, matcher: Option<&Value>, handler: &Value) -> String {
    let timeout = handler.get("timeout").and_then(Value::as_u64).unwrap_or(600).max(1);
    let mut normal = json!({"type": "command", "command": handler.get("command"), "timeout": timeout,
        "async": handler.get("async").and_then(Value::as_bool).unwrap_or(false)});
    if let Some(status) = handler.get("statusMessage").filter(|s| !s.is_null()) {
        normal["statusMessage"] = status.clone();
    }
    let mut identity = json!({"event_name": label, "hooks": [normal]});
    if let Some(matcher) = matcher.filter(|m| !m.is_null()) {
        identity["matcher"] = matcher.clone();
    }
    let digest = sha2::Sha256::digest(canonical(&identity).as_bytes());
    let mut hex = String::with_capacity(71);
    hex.push_str("sha256:");
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// JSON with object keys sorted recursively and no whitespace.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let items: Vec<String> =
                keys.iter().map(|k| format!("{}:{}", Value::from(k.as_str()), canonical(&map[*k]))).collect();
            format!("{{{}}}", items.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => value.to_string(),
    }
}

/// The TOML table header of a record.
fn header(key: &str) -> String {
    format!("[hooks.state.{}]", hosts::toml_string(key))
}

/// The records in our block.
fn block_records(config: &str) -> Vec<Record> {
    let (Some(begin), Some(end)) = (config.find(BEGIN), config.find(END)) else { return Vec::new() };
    if begin >= end {
        return Vec::new();
    }
    let mut out: Vec<Record> = Vec::new();
    for line in config[begin..end].lines().map(str::trim) {
        if let Some(quoted) = line.strip_prefix("[hooks.state.").and_then(|l| l.strip_suffix(']')) {
            out.push(Record { key: hosts::toml_unquote(quoted), hash: String::new() });
        } else if let (Some(("trusted_hash", value)), Some(last)) =
            (line.split_once('=').map(|(k, v)| (k.trim(), v.trim())), out.last_mut())
        {
            last.hash = hosts::toml_unquote(value);
        }
    }
    out
}

/// `config` with our block holding `records` for the hooks declared in `file`, beside the
/// records our block already holds for other files (a user and a project install), replacing an
/// earlier block where it stands. A key the text already records outside the block is left to
/// that record (a duplicate table would make Codex refuse the whole file).
pub(crate) fn merged(config: Option<&str>, file: &Path, records: &[Record]) -> String {
    let old = config.unwrap_or("");
    let prefix = format!("{}:", file.display());
    let mut all: Vec<Record> =
        block_records(old).into_iter().filter(|r| !r.key.starts_with(&prefix)).collect();
    all.extend(records.iter().cloned());
    let theirs = hosts::block_stripped(old, BEGIN, END);
    let mut body = String::new();
    for record in all.iter().filter(|r| !theirs.contains(&header(&r.key))) {
        let _ =
            write!(body, "{}\ntrusted_hash = {}\n", header(&record.key), hosts::toml_string(&record.hash));
    }
    if body.is_empty() {
        return theirs;
    }
    if let (Some(begin), Some(end)) = (old.find(BEGIN), old.find(END))
        && begin < end
    {
        return format!("{}{BEGIN}\n{body}{}", &old[..begin], &old[end..]);
    }
    hosts::block_merged(old, BEGIN, END, &body)
}

/// `config` without our records for the hooks declared in `file` (the block goes when it is
/// left empty); `None` when nothing else is left.
pub(crate) fn stripped(config: &str, file: &Path) -> Option<String> {
    let text = merged(Some(config), file, &[]);
    (!text.trim().is_empty()).then_some(text)
}

/// The `trusted_hash` the config records for `key` (anywhere in the file), and whether that
/// record disables the hook (`enabled = false`).
pub(crate) fn recorded(config: &str, key: &str) -> Option<(String, bool)> {
    let head = header(key);
    let start = config.find(&head)? + head.len();
    let table = &config[start..];
    let table = table.find("\n[").map_or(table, |end| &table[..end]);
    let mut hash = None;
    let mut disabled = false;
    for line in table.lines() {
        let Some((name, value)) = line.split_once('=') else { continue };
        let value = value.trim().trim_matches('"').to_owned();
        match name.trim() {
            "trusted_hash" => hash = Some(value),
            "enabled" => disabled = value == "false",
            _ => {}
        }
    }
    Some((hash.unwrap_or_default(), disabled))
}

/// Whether the user config marks `project` as a trusted project (Codex loads no project layer,
/// hooks included, otherwise).
pub(crate) fn project_trusted(config: &str, project: &Path) -> bool {
    let head = format!("[projects.{}]", hosts::toml_string(&project.display().to_string()));
    config.find(&head).is_some_and(|at| {
        let table = &config[at + head.len()..];
        let table = table.find("\n[").map_or(table, |end| &table[..end]);
        table.lines().any(|l| {
            l.split_once('=')
                .is_some_and(|(k, v)| k.trim() == "trust_level" && v.trim().trim_matches('"') == "trusted")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOKS: &str = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"other"}]},{"matcher":"Bash","hooks":[{"type":"command","command":"/bin/codeguard hook pre-tool-use --host codex","timeout":120}]}]}}"#;

    #[test]
    fn records_only_ours_with_positional_keys() {
        let records = records(Path::new("/h/hooks.json"), HOOKS);
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].key, "/h/hooks.json:pre_tool_use:1:0");
        assert!(records[0].hash.starts_with("sha256:") && records[0].hash.len() == 71);
    }

    #[test]
    fn canonical_form_sorts_keys() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": [{"d": true, "c": "x"}]})),
            r#"{"a":[{"c":"x","d":true}],"b":1}"#
        );
    }

    #[test]
    fn the_block_round_trips_and_respects_foreign_records() {
        let records = records(Path::new("/h/hooks.json"), HOOKS);
        let theirs = "model = \"o4\"\n";
        let file = Path::new("/h/hooks.json");
        let once = merged(Some(theirs), file, &records);
        assert_eq!(merged(Some(&once), file, &records), once);
        assert_eq!(recorded(&once, &records[0].key).map(|r| r.0), Some(records[0].hash.clone()));
        assert_eq!(block_records(&once), records);
        let project = Path::new("/p/.codex/hooks.json");
        let theirs_too = super::records(project, HOOKS);
        let both = merged(Some(&once), project, &theirs_too);
        assert!(recorded(&both, &records[0].key).is_some() && recorded(&both, &theirs_too[0].key).is_some());
        assert_eq!(
            stripped(&both, project).as_deref(),
            Some(once.as_str()),
            "the user install's record stays"
        );
        assert_eq!(stripped(&once, file).as_deref(), Some(theirs));
        let foreign = format!("{}\ntrusted_hash = \"sha256:00\"\n", header(&records[0].key));
        assert_eq!(merged(Some(&foreign), file, &records), foreign, "no duplicate table");
        assert!(project_trusted("[projects.\"/p\"]\ntrust_level = \"trusted\"\n", Path::new("/p")));
        assert!(!project_trusted("[projects.\"/p\"]\ntrust_level = \"untrusted\"\n", Path::new("/p")));
    }
}
