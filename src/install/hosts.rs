//! codeguard's hook entries in agent hosts' settings files.
//!
//! **In:** a host, the settings file's current text (if any) and the absolute path of the
//! codeguard binary. **Out:** the new text — our entries merged in beside everyone else's, or
//! taken out again. Pure: reading and writing the file is the caller's job.
//! Rules: every other entry is preserved (JSON key order included); our entries are recognised by
//! their command (`… hook <event> --host <host>`) and replaced, so running install twice gives the
//! same text; timeouts are explicit and above codeguard's own gate budget (100 s), so codeguard's
//! budget answers before the host's timeout could fail open. Kimi's TOML gets a marked block,
//! which leaves every other byte of the file alone. With `--mcp`, the MCP server is registered
//! the same way: an `mcpServers.codeguard` entry in JSON settings, a marked block in Codex's TOML.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::host::spec::HooksFile;
use crate::host::{Event, Host};

/// Why a settings file cannot be changed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HostInstallError {
    /// The existing file is not what the host reads (not a JSON object, say).
    #[error("{0}")]
    Unreadable(String),
    /// The host has no hook configuration codeguard can write.
    #[error("{0}")]
    Unsupported(String),
}

/// One entry codeguard registers.
struct Entry {
    event: Event,
    /// The host's name for the event.
    key: &'static str,
    /// Tool matcher, where the host uses one.
    matcher: Option<&'static str>,
    /// Seconds.
    timeout: u64,
}

const fn entry(event: Event, key: &'static str, matcher: Option<&'static str>, timeout: u64) -> Entry {
    Entry { event, key, matcher, timeout }
}

/// The entries of a host: its own event names and tool matchers, from its [`crate::host::spec::HostSpec`].
fn entries(host: Host) -> Result<Vec<Entry>, HostInstallError> {
    match host {
        Host::Zcode => {
            return Err(HostInstallError::Unsupported(
                "ZCode has no documented hook settings; it runs Claude Code, Codex or Gemini CLI, whose own hooks apply: install for those hosts".into(),
            ));
        }
        Host::Neutral => {
            return Err(HostInstallError::Unsupported(
                "the neutral contract is called by a supervisor, not installed: run `codeguard hook <event> --host neutral` from it".into(),
            ));
        }
        Host::Continue => return Err(HostInstallError::Unsupported(CONTINUE_GATE.into())),
        Host::Claude
        | Host::Codex
        | Host::Gemini
        | Host::Kimi
        | Host::Copilot
        | Host::Cursor
        | Host::OpenHands
        | Host::Qwen
        | Host::Ari
        | Host::Goose
        | Host::Opencode
        | Host::Kilo
        | Host::Pi
        | Host::Cline
        | Host::Dsh => {}
    }
    let spec = crate::host::spec(host);
    Event::ALL
        .iter()
        .map(|&event| {
            let key = spec.event_name(event).ok_or_else(|| {
                HostInstallError::Unsupported(format!("{} has no {} event", spec.label, event.name()))
            })?;
            let (matcher, timeout) = match event {
                Event::SessionStart => (None, 30),
                Event::UserPromptSubmit => (None, 120),
                Event::PreToolUse => (spec.shell_matcher, 120),
                Event::PostToolUse => (spec.edit_matcher, 60),
                Event::Stop => (None, 15),
            };
            Ok(entry(event, key, matcher, timeout))
        })
        .collect()
}

/// Why Continue CLI gets no hook entries, and what gates it instead.
pub(crate) const CONTINUE_GATE: &str = "Continue CLI (1.5.47) loads hooks but never runs them (the module that fires them is not in its build): its gate is codeguard's git hooks in each repository, which `codeguard install --host continue` writes into the repository it runs in (or --project DIR)";

/// The shell command a host runs for an event.
pub(crate) fn command(exe: &Path, host: Host, event: Event) -> String {
    format!("{} hook {} --host {}", shell_quote(&exe.display().to_string()), event.name(), host.name())
}

fn shell_quote(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Whether a command is one of ours for this host.
pub(crate) fn is_ours(command: &str, host: Host) -> bool {
    let program = program_of(command);
    let name = program.rsplit('/').next().unwrap_or(program);
    name.starts_with("codeguard")
        && command.contains(" hook ")
        && command.trim_end().ends_with(&format!("--host {}", host.name()))
}

/// The program of a shell command: the first word, or the first single-quoted string.
fn program_of(command: &str) -> &str {
    let command = command.trim_start();
    match command.strip_prefix('\'') {
        Some(rest) => rest.split('\'').next().unwrap_or(rest),
        None => command.split_whitespace().next().unwrap_or(""),
    }
}

/// The settings text with our entries merged in (replacing any earlier ones of ours).
pub(crate) fn merged(host: Host, old: Option<&str>, exe: &Path) -> Result<String, HostInstallError> {
    let entries = entries(host)?;
    let format = crate::host::spec(host).hooks_file;
    if format.is_toml() {
        return Ok(toml_merged(host, old.unwrap_or(""), &entries, exe));
    }
    if format.is_ours_whole() {
        if old.is_some_and(|t| !t.trim().is_empty() && !super::plugin::is_ours(t)) {
            return Err(HostInstallError::Unreadable(
                "a file that codeguard did not write is already there; it was left alone".into(),
            ));
        }
        let mut hooks = Map::new();
        for e in &entries {
            let mut group = handler(host, e, &command(exe, host, e.event));
            if let HooksFile::JsPlugin(_) = format {
                // The plugin spawns codeguard itself: no shell in between.
                group["hooks"][0]["argv"] =
                    json!([exe.display().to_string(), "hook", e.event.name(), "--host", host.name()]);
            }
            hooks.insert(e.key.to_owned(), json!([group]));
        }
        return Ok(match format {
            HooksFile::JsPlugin(api) => super::plugin::text(host, api, &hooks),
            _ => {
                super::plugin::script(host, &hooks, &crate::host::fail_closed_stop(host).unwrap_or_default())
            }
        });
    }
    let mut root = parse_object(old)?;
    strip_ours(&mut root, host);
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err(HostInstallError::Unreadable("`hooks` is not an object".into()));
    };
    for e in &entries {
        let list = hooks.entry(e.key).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(HostInstallError::Unreadable(format!("`hooks.{}` is not a list", e.key)));
        };
        list.push(handler(host, e, &command(exe, host, e.event)));
    }
    if format == HooksFile::VersionedJson {
        root.entry("version").or_insert(json!(1));
    }
    Ok(pretty(&root))
}

/// The settings text with our entries taken out; `None` when nothing else is left (the file was
/// ours alone).
pub(crate) fn stripped(host: Host, current: &str) -> Result<Option<String>, HostInstallError> {
    entries(host)?;
    if crate::host::spec(host).hooks_file.is_ours_whole() {
        // Wholly ours, or not ours at all.
        return Ok((!super::plugin::is_ours(current)).then(|| current.to_owned()));
    }
    if crate::host::spec(host).hooks_file.is_toml() {
        let text = block_stripped(current, &toml_begin(host), TOML_END);
        return Ok((!text.trim().is_empty()).then_some(text));
    }
    let mut root = parse_object(Some(current))?;
    strip_ours(&mut root, host);
    Ok(skeleton_to_none(&pretty(&root)))
}

/// `None` when a JSON settings text holds nothing but the skeleton install leaves (an empty
/// `hooks` object, `version`) and a settings-format version the host writes into any settings
/// file it reads (Qwen Code 0.24.4 adds `"$version": 4` to a file without one): the file was ours
/// alone.
pub(crate) fn skeleton_to_none(text: &str) -> Option<String> {
    let Ok(root) = parse_object(Some(text)) else { return Some(text.to_owned()) };
    let only_skeleton = root.iter().all(|(k, v)| {
        (k == "hooks" && v.as_object().is_some_and(Map::is_empty)) || k == "version" || k == "$version"
    });
    (!only_skeleton).then(|| text.to_owned())
}

#[cfg(test)]
/// Whether the settings text registers codeguard for every event this host supports.
pub(crate) fn installed_events(host: Host, text: &str) -> Vec<Event> {
    let Ok(entries) = entries(host) else { return Vec::new() };
    entries
        .iter()
        .filter(|e| {
            text.lines().any(|l| l.contains(&format!("hook {} --host {}", e.event.name(), host.name())))
        })
        .map(|e| e.event)
        .collect()
}

/// The program paths our entries in this text run (for `doctor`).
pub(crate) fn our_programs(host: Host, text: &str) -> Vec<String> {
    let mut out: Vec<String> =
        declared(host, text).iter().map(|d| program_of(&d.command).to_owned()).collect();
    out.sort();
    out.dedup();
    out
}

/// One of codeguard's handlers as a settings text declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    /// The event.
    pub event: Event,
    /// The group's tool matcher, if any.
    pub matcher: Option<String>,
    /// The command the host runs.
    pub command: String,
}

/// codeguard's handlers in a settings text (JSON settings, or the TOML tables of Kimi and ari).
pub(crate) fn declared(host: Host, text: &str) -> Vec<Declared> {
    if crate::host::spec(host).hooks_file.is_toml() {
        return toml_declared(host, text);
    }
    let root = match crate::host::spec(host).hooks_file {
        HooksFile::JsPlugin(_) | HooksFile::EventScripts => match super::plugin::hooks(text) {
            Some(hooks) => Map::from_iter([("hooks".to_owned(), Value::Object(hooks))]),
            None => return Vec::new(),
        },
        _ => match parse_object(Some(text)) {
            Ok(root) => root,
            Err(_) => return Vec::new(),
        },
    };
    let Some(Value::Object(events)) = root.get("hooks") else { return Vec::new() };
    let mut out = Vec::new();
    for (key, groups) in events {
        let (Some(event), Some(groups)) = (Event::from_name(key), groups.as_array()) else { continue };
        for group in groups {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_owned);
            let direct = std::iter::once(group);
            let nested = group.get("hooks").and_then(Value::as_array).into_iter().flatten();
            for handler in direct.chain(nested) {
                let command =
                    ["command", "bash"].iter().find_map(|k| handler.get(*k).and_then(Value::as_str));
                if let Some(command) = command.filter(|c| is_ours(c, host)) {
                    out.push(Declared { event, matcher: matcher.clone(), command: command.to_owned() });
                }
            }
        }
    }
    out
}

/// codeguard's hook tables in a TOML config, read line by line: Kimi's `[[hooks]]` with an
/// `event` key, ari's `[[hooks.EVENT]]`; `matcher` and `command` as TOML basic strings.
fn toml_declared(host: Host, text: &str) -> Vec<Declared> {
    let mut out = Vec::new();
    let mut current: (Option<String>, Option<String>, Option<String>) = (None, None, None);
    let flush = |current: &mut (Option<String>, Option<String>, Option<String>), out: &mut Vec<Declared>| {
        if let (Some(event), matcher, Some(command)) = std::mem::take(current)
            && let Some(event) = Event::from_name(&event)
            && is_ours(&command, host)
        {
            out.push(Declared { event, matcher, command });
        }
    };
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            flush(&mut current, &mut out);
            if let Some(event) = line.strip_prefix("[[hooks.").and_then(|l| l.strip_suffix("]]")) {
                current.0 = Some(event.trim().to_owned());
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let value = toml_unquote(value.trim());
        match key.trim() {
            "event" => current.0 = Some(value),
            "matcher" => current.1 = Some(value),
            "command" => current.2 = Some(value),
            _ => {}
        }
    }
    flush(&mut current, &mut out);
    out
}

/// The value of a TOML basic string written by [`toml_string`].
pub(crate) fn toml_unquote(value: &str) -> String {
    let inner = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

fn handler(host: Host, e: &Entry, command: &str) -> Value {
    match host {
        Host::Copilot => json!({"type": "command", "bash": command, "timeoutSec": e.timeout}),
        Host::Cursor => json!({"command": command}),
        Host::Gemini => {
            json!({"matcher": e.matcher.unwrap_or("*"), "hooks": [{"type": "command", "name": "codeguard", "command": command, "timeout": e.timeout * 1000}]})
        }
        // Qwen Code reads `timeout` in seconds (a value of 1000 or more as milliseconds).
        Host::Claude
        | Host::Codex
        | Host::OpenHands
        | Host::Kimi
        | Host::Qwen
        | Host::Ari
        | Host::Goose
        | Host::Opencode
        | Host::Kilo
        | Host::Pi
        | Host::Cline
        | Host::Continue
        | Host::Dsh
        | Host::Zcode
        | Host::Neutral => {
            let mut group = json!({"hooks": [{"type": "command", "command": command, "timeout": e.timeout}]});
            if let Some(matcher) = e.matcher {
                group["matcher"] = json!(matcher);
            }
            group
        }
    }
}

fn parse_object(text: Option<&str>) -> Result<Map<String, Value>, HostInstallError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return Ok(Map::new()) };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(HostInstallError::Unreadable(
            "the settings file is not a JSON object; it was left alone".into(),
        )),
        Err(e) => Err(HostInstallError::Unreadable(format!(
            "the settings file is not valid JSON ({e}); it was left alone"
        ))),
    }
}

/// Removes our handlers (and the groups, event lists and `hooks` object they leave empty).
fn strip_ours(root: &mut Map<String, Value>, host: Host) {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else { return };
    for list in hooks.values_mut() {
        let Value::Array(groups) = list else { continue };
        groups.retain_mut(|group| retain_group(group, host));
    }
    hooks.retain(|_, list| !list.as_array().is_some_and(Vec::is_empty));
}

/// Keeps a handler group unless it is ours or becomes empty by removing ours.
fn retain_group(group: &mut Value, host: Host) -> bool {
    let direct = ["command", "bash"]
        .iter()
        .filter_map(|k| group.get(*k).and_then(Value::as_str))
        .any(|c| is_ours(c, host));
    if direct {
        return false;
    }
    let Some(Value::Array(handlers)) = group.get_mut("hooks") else { return true };
    let before = handlers.len();
    handlers.retain(|h| !h.get("command").and_then(Value::as_str).is_some_and(|c| is_ours(c, host)));
    !(handlers.is_empty() && before > 0)
}

pub(crate) fn pretty(root: &Map<String, Value>) -> String {
    serde_json::to_string_pretty(root).map(|s| s + "\n").unwrap_or_default()
}

/// The first line of codeguard's marked block of hook tables in a host's TOML config.
fn toml_begin(host: Host) -> String {
    let name = host.name();
    format!(
        "# codeguard:begin — managed by `codeguard install --host {name}`; `codeguard uninstall --host {name}` removes it"
    )
}
const TOML_END: &str = "# codeguard:end";

/// The TOML config with codeguard's hook tables in its marked block: Kimi's `[[hooks]]` with
/// `event` and a timeout in seconds, ari's `[[hooks.EVENT]]` with a Go duration (`"120s"`), and
/// nothing else (ari's loader knows `matcher`, `if`, `command`, `shell`, `timeout`, `once`,
/// `async`).
fn toml_merged(host: Host, old: &str, entries: &[Entry], exe: &Path) -> String {
    let mut body = String::new();
    for e in entries {
        let matcher = e.matcher.map(|m| format!("matcher = {}\n", toml_string(m))).unwrap_or_default();
        let command = toml_string(&command(exe, host, e.event));
        let _ = match crate::host::spec(host).hooks_file {
            HooksFile::TomlEventTables => write!(
                body,
                "[[hooks.{}]]\n{matcher}command = {command}\ntimeout = \"{}s\"\n",
                e.key, e.timeout
            ),
            HooksFile::TomlBlock
            | HooksFile::Json
            | HooksFile::VersionedJson
            | HooksFile::JsPlugin(_)
            | HooksFile::EventScripts
            | HooksFile::GitHooksOnly => write!(
                body,
                "[[hooks]]\nevent = {}\n{matcher}command = {command}\ntimeout = {}\n",
                toml_string(e.key),
                e.timeout
            ),
        };
    }
    block_merged(old, &toml_begin(host), TOML_END, &body)
}

/// `old` without any earlier copy of our marked block, with the block (holding `body`) appended
/// after a blank line.
pub(crate) fn block_merged(old: &str, begin: &str, end: &str, body: &str) -> String {
    // In place when it is there: another block of ours after it stays where it is.
    if let (Some(b), Some(e)) = (old.find(begin), old.find(end))
        && b < e
    {
        return format!("{}{begin}\n{body}{}", &old[..b], &old[e..]);
    }
    let mut text = block_stripped(old, begin, end);
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !text.is_empty() {
        text.push('\n');
    }
    let _ = write!(text, "{begin}\n{body}{end}\n");
    text
}

/// The text without our marked block (and the blank line install put before it).
pub(crate) fn block_stripped(text: &str, begin_marker: &str, end_marker: &str) -> String {
    let (Some(begin), Some(end)) = (text.find(begin_marker), text.find(end_marker)) else {
        return text.to_owned();
    };
    let after = (end + end_marker.len() + 1).min(text.len());
    let before = text[..begin].strip_suffix("\n\n").map_or(&text[..begin], |t| &text[..=t.len()]);
    let before = if text[..begin].trim().is_empty() { "" } else { before };
    format!("{before}{}", &text[after..])
}

const CODEX_MCP_BEGIN: &str = "# codeguard-mcp:begin — managed by `codeguard install --host codex --mcp`; `codeguard uninstall --host codex --mcp` removes it";
const CODEX_MCP_END: &str = "# codeguard-mcp:end";
/// The name our MCP server is registered under.
const MCP_NAME: &str = "codeguard";

/// The settings text with codeguard's MCP server registered (`mcpServers.codeguard` in Claude's
/// and Gemini's JSON, a marked `[mcp_servers.codeguard]` block in Codex's `config.toml`),
/// replacing an earlier registration of ours. A server of that name that is not ours is refused.
pub(crate) fn mcp_merged(host: Host, old: Option<&str>, exe: &Path) -> Result<String, HostInstallError> {
    let exe_text = exe.display().to_string();
    match mcp_format(host)? {
        McpFormat::Toml => {
            let old = old.unwrap_or("");
            if block_stripped(old, CODEX_MCP_BEGIN, CODEX_MCP_END).contains("[mcp_servers.codeguard]") {
                return Err(HostInstallError::Unreadable(
                    "config.toml already has an [mcp_servers.codeguard] table that codeguard did not write; it was left alone".into(),
                ));
            }
            let body =
                format!("[mcp_servers.{MCP_NAME}]\ncommand = {}\nargs = [\"mcp\"]\n", toml_string(&exe_text));
            Ok(block_merged(old, CODEX_MCP_BEGIN, CODEX_MCP_END, &body))
        }
        McpFormat::Json { typed } => {
            let mut root = parse_object(old)?;
            let servers = root.entry("mcpServers").or_insert_with(|| json!({}));
            let Value::Object(servers) = servers else {
                return Err(HostInstallError::Unreadable("`mcpServers` is not an object".into()));
            };
            if servers.get(MCP_NAME).is_some_and(|s| !is_our_server(s)) {
                return Err(HostInstallError::Unreadable(
                    "an MCP server named `codeguard` that codeguard did not write is already registered; it was left alone".into(),
                ));
            }
            let mut entry = json!({"command": exe_text, "args": ["mcp"]});
            if typed {
                entry["type"] = json!("stdio");
            }
            servers.insert(MCP_NAME.to_owned(), entry);
            Ok(pretty(&root))
        }
    }
}

/// The settings text without our MCP server; `None` when nothing else is left.
pub(crate) fn mcp_stripped(host: Host, current: &str) -> Result<Option<String>, HostInstallError> {
    match mcp_format(host)? {
        McpFormat::Toml => {
            let text = block_stripped(current, CODEX_MCP_BEGIN, CODEX_MCP_END);
            Ok((!text.trim().is_empty()).then_some(text))
        }
        McpFormat::Json { .. } => {
            let mut root = parse_object(Some(current))?;
            if let Some(Value::Object(servers)) = root.get_mut("mcpServers") {
                if servers.get(MCP_NAME).is_some_and(is_our_server) {
                    servers.remove(MCP_NAME);
                }
                if servers.is_empty() {
                    root.remove("mcpServers");
                }
            }
            Ok((!root.is_empty()).then(|| pretty(&root)))
        }
    }
}

#[cfg(test)]
/// Whether the text registers our MCP server.
pub(crate) fn mcp_installed(host: Host, text: &str) -> bool {
    match mcp_format(host) {
        Ok(McpFormat::Toml) => text.contains(CODEX_MCP_BEGIN),
        Ok(McpFormat::Json { .. }) => parse_object(Some(text)).is_ok_and(|root| {
            root.get("mcpServers").and_then(|s| s.get(MCP_NAME)).is_some_and(is_our_server)
        }),
        Err(_) => false,
    }
}

/// How a host's settings register MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpFormat {
    /// An `mcpServers` object in JSON; `typed`: each server says `"type": "stdio"` (Claude).
    Json {
        /// Whether the entry carries `"type": "stdio"`.
        typed: bool,
    },
    /// A marked `[mcp_servers.codeguard]` block in Codex's `config.toml`.
    Toml,
}

/// How `host` registers MCP servers; an error for a host codeguard does not register with.
pub(crate) fn mcp_format(host: Host) -> Result<McpFormat, HostInstallError> {
    match host {
        Host::Claude => Ok(McpFormat::Json { typed: true }),
        Host::Gemini => Ok(McpFormat::Json { typed: false }),
        Host::Codex => Ok(McpFormat::Toml),
        Host::Kimi
        | Host::Copilot
        | Host::Cursor
        | Host::OpenHands
        | Host::Qwen
        | Host::Ari
        | Host::Goose
        | Host::Opencode
        | Host::Kilo
        | Host::Pi
        | Host::Cline
        | Host::Continue
        | Host::Dsh
        | Host::Zcode
        | Host::Neutral => Err(HostInstallError::Unsupported(format!(
            "codeguard registers its MCP server for claude, codex and gemini only, not {}",
            host.name()
        ))),
    }
}

/// An MCP server entry whose program is a codeguard binary run as `… mcp`.
fn is_our_server(server: &Value) -> bool {
    let program = server.get("command").and_then(Value::as_str).unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    name.starts_with("codeguard") && server.get("args") == Some(&json!(["mcp"]))
}

/// A TOML basic string.
pub(crate) fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXE: &str = "/opt/code guard/bin/codeguard";

    #[test]
    fn merging_keeps_other_entries_and_is_idempotent() {
        let theirs = r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "dcg check"}]}]}}"#;
        let once = merged(Host::Claude, Some(theirs), Path::new(EXE)).expect("merge");
        let twice = merged(Host::Claude, Some(&once), Path::new(EXE)).expect("merge");
        assert_eq!(once, twice);
        assert!(once.contains("dcg check") && once.contains("\"model\": \"x\""));
        assert!(once.contains(r"'/opt/code guard/bin/codeguard' hook pre-tool-use --host claude"));
        assert_eq!(installed_events(Host::Claude, &once).len(), 5);
        let back = stripped(Host::Claude, &once).expect("strip").expect("theirs remain");
        let parsed: Value = serde_json::from_str(&back).expect("json");
        assert_eq!(parsed, serde_json::from_str::<Value>(theirs).expect("json"));
    }

    #[test]
    fn a_file_that_was_ours_alone_is_removed() {
        for host in [
            Host::Claude,
            Host::Codex,
            Host::Gemini,
            Host::Copilot,
            Host::Cursor,
            Host::OpenHands,
            Host::Kimi,
            Host::Qwen,
            Host::Ari,
            Host::Goose,
            Host::Opencode,
            Host::Kilo,
            Host::Pi,
            Host::Cline,
            Host::Dsh,
        ] {
            let text = merged(host, None, Path::new(EXE)).expect("merge");
            assert_eq!(installed_events(host, &text).len(), 5, "{host:?}");
            assert_eq!(stripped(host, &text).expect("strip"), None, "{host:?}");
        }
    }

    #[test]
    fn the_settings_written_have_the_shape_the_host_spec_names() {
        for host in Host::ALL {
            let Ok(text) = merged(host, None, Path::new(EXE)) else { continue };
            let json = serde_json::from_str::<Value>(&text).ok();
            match crate::host::spec(host).hooks_file {
                HooksFile::Json => assert!(json.is_some_and(|v| v.get("version").is_none()), "{host:?}"),
                HooksFile::VersionedJson => {
                    assert_eq!(json.and_then(|v| v.get("version").cloned()), Some(json!(1)));
                }
                HooksFile::TomlBlock => assert!(json.is_none() && text.contains("[[hooks]]"), "{host:?}"),
                HooksFile::TomlEventTables => {
                    assert!(json.is_none() && text.contains("[[hooks.PreToolUse]]"), "{host:?}");
                }
                HooksFile::JsPlugin(_) | HooksFile::EventScripts => {
                    assert!(json.is_none() && super::super::plugin::is_ours(&text), "{host:?}");
                }
                HooksFile::GitHooksOnly => panic!("{host:?} has no hook entries, yet merged wrote some"),
            }
            assert_eq!(installed_events(host, &text).len(), Event::ALL.len(), "{host:?}");
            assert_eq!(declared(host, &text).len(), Event::ALL.len(), "{host:?}");
        }
        assert!(matches!(mcp_format(Host::Claude), Ok(McpFormat::Json { typed: true })));
    }

    /// ari's contract (seed 002, its `hook` package): `[[hooks.EVENT]]` tables of its `Spec`
    /// (`toml:"matcher"`, `toml:"if"`, `toml:"command"`, `toml:"shell"`, `toml:"timeout"` as a Go
    /// duration, `toml:"once"`, `toml:"async"`) under the `hooks` key, one per event it knows;
    /// a pipe-list matcher is an exact set of its tool names (`sh`, `edit`, `write`).
    #[test]
    fn ari_config_is_tables_of_its_hook_spec_and_keeps_every_other_byte() {
        const SPEC_KEYS: [&str; 7] = ["matcher", "if", "command", "shell", "timeout", "once", "async"];
        const EVENTS: [&str; 5] = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];
        let theirs = "[provider.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n\n[[hooks.PostToolUse]]\nmatcher = \"edit\"\ncommand = \"gofmt -l .\"\n";
        let once = merged(Host::Ari, Some(theirs), Path::new(EXE)).expect("merge");
        assert!(once.starts_with(theirs), "{once}");
        assert_eq!(merged(Host::Ari, Some(&once), Path::new(EXE)).expect("merge"), once, "idempotent");
        let doc: toml_edit::DocumentMut = once.parse().expect("valid TOML");
        let hooks = doc["hooks"].as_table().expect("a `hooks` table");
        for (event, tables) in hooks {
            assert!(EVENTS.contains(&event), "an event ari knows: {event}");
            for table in tables.as_array_of_tables().expect("[[hooks.EVENT]]") {
                for (key, _) in table {
                    assert!(SPEC_KEYS.contains(&key), "{event}: `{key}` is not a field of ari's hook Spec");
                }
            }
        }
        for event in EVENTS {
            let ours: Vec<&toml_edit::Table> = hooks[event]
                .as_array_of_tables()
                .expect("tables")
                .iter()
                .filter(|t| t["command"].as_str().is_some_and(|c| is_ours(c, Host::Ari)))
                .collect();
            assert_eq!(ours.len(), 1, "{event}");
            let timeout = ours[0]["timeout"].as_str().expect("a Go duration string");
            assert!(timeout.strip_suffix('s').is_some_and(|n| n.parse::<u64>().is_ok()), "{timeout}");
            if event == "PreToolUse" {
                let matcher = ours[0]["matcher"].as_str().expect("matcher");
                for tool in ["sh", "edit", "write"] {
                    assert!(matcher.split('|').any(|m| m == tool), "{tool} in {matcher}");
                }
            }
        }
        assert_eq!(hooks["PostToolUse"].as_array_of_tables().expect("tables").len(), 2, "theirs stays");
        assert_eq!(declared(Host::Ari, &once).len(), 5);
        assert_eq!(stripped(Host::Ari, &once).expect("strip").as_deref(), Some(theirs), "byte for byte");
    }

    #[test]
    fn kimi_toml_keeps_every_other_byte() {
        let theirs =
            "# my config\n[model]\nname = \"k2\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify\"\n";
        let once = merged(Host::Kimi, Some(theirs), Path::new(EXE)).expect("merge");
        assert_eq!(merged(Host::Kimi, Some(&once), Path::new(EXE)).expect("merge"), once);
        assert!(once.starts_with(theirs));
        assert_eq!(stripped(Host::Kimi, &once).expect("strip").as_deref(), Some(theirs));
    }

    #[test]
    fn the_mcp_server_is_merged_beside_others_and_removed_again() {
        let theirs = r#"{"theme": "dark", "mcpServers": {"github": {"command": "gh-mcp"}}}"#;
        for host in [Host::Claude, Host::Gemini] {
            let once = mcp_merged(host, Some(theirs), Path::new(EXE)).expect("merge");
            assert_eq!(mcp_merged(host, Some(&once), Path::new(EXE)).expect("merge"), once);
            assert!(mcp_installed(host, &once) && once.contains("gh-mcp"), "{once}");
            let back = mcp_stripped(host, &once).expect("strip").expect("theirs remain");
            assert_eq!(
                serde_json::from_str::<Value>(&back).expect("json"),
                serde_json::from_str::<Value>(theirs).expect("json")
            );
            let alone = mcp_merged(host, None, Path::new(EXE)).expect("merge");
            assert_eq!(mcp_stripped(host, &alone).expect("strip"), None);
        }
        let foreign = r#"{"mcpServers": {"codeguard": {"command": "/other/tool"}}}"#;
        assert!(
            mcp_merged(Host::Claude, Some(foreign), Path::new(EXE)).is_err(),
            "a foreign entry is never replaced"
        );
        assert!(mcp_merged(Host::Cursor, None, Path::new(EXE)).is_err());
    }

    #[test]
    fn codex_mcp_block_keeps_every_other_byte() {
        let theirs = "model = \"o4\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n";
        let once = mcp_merged(Host::Codex, Some(theirs), Path::new(EXE)).expect("merge");
        assert_eq!(mcp_merged(Host::Codex, Some(&once), Path::new(EXE)).expect("merge"), once);
        assert!(
            once.starts_with(theirs)
                && once.contains(
                    "[mcp_servers.codeguard]\ncommand = \"/opt/code guard/bin/codeguard\"\nargs = [\"mcp\"]"
                )
        );
        assert_eq!(mcp_stripped(Host::Codex, &once).expect("strip").as_deref(), Some(theirs));
        let foreign = "[mcp_servers.codeguard]\ncommand = \"x\"\n";
        assert!(mcp_merged(Host::Codex, Some(foreign), Path::new(EXE)).is_err());
    }

    #[test]
    fn broken_files_and_unsupported_hosts_are_refused() {
        assert!(merged(Host::Claude, Some("[1]"), Path::new(EXE)).is_err());
        assert!(merged(Host::Claude, Some("{oops"), Path::new(EXE)).is_err());
        assert!(merged(Host::Zcode, None, Path::new(EXE)).is_err());
        assert!(merged(Host::Neutral, None, Path::new(EXE)).is_err());
    }
}
