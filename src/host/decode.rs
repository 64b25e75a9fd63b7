//! Tolerant decoding of host payloads: one reader that understands every host's field names
//! (`tool_name`/`toolName`, `tool_input`/`toolArgs` as object or JSON string, `file_path`/`path`,
//! `cwd`/`working_dir`/`workspace_roots`, …) and a table of each host's shell and edit tools.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{DecodeError, Event, HookEvent, Host, ToolCall, patch};

/// How a host names its tools.
struct Tools {
    shell: &'static [&'static str],
    edit: &'static [&'static str],
}

fn tools(host: Host) -> Tools {
    match host {
        Host::Claude | Host::Zcode => {
            Tools { shell: &["Bash", "PowerShell"], edit: &["Write", "Edit", "MultiEdit", "NotebookEdit"] }
        }
        Host::Codex => {
            Tools { shell: &["Bash", "shell", "exec_command"], edit: &["apply_patch", "Edit", "Write"] }
        }
        Host::Gemini => Tools { shell: &["run_shell_command"], edit: &["write_file", "replace"] },
        Host::Kimi => {
            Tools { shell: &["Bash", "Shell"], edit: &["Write", "Edit", "WriteFile", "StrReplaceFile"] }
        }
        Host::Copilot => Tools { shell: &["bash", "powershell"], edit: &["create", "edit"] },
        Host::Cursor => Tools { shell: &["Shell"], edit: &["Write", "Edit", "StrReplace"] },
        Host::OpenHands => Tools {
            shell: &["terminal", "execute_bash", "bash"],
            edit: &["file_editor", "str_replace_editor"],
        },
        Host::Neutral => Tools {
            shell: &["Bash", "PowerShell", "Shell", "shell", "run_shell_command", "bash", "terminal"],
            edit: &[
                "Write",
                "Edit",
                "MultiEdit",
                "NotebookEdit",
                "apply_patch",
                "write_file",
                "replace",
                "WriteFile",
                "StrReplaceFile",
                "create",
                "edit",
                "file_editor",
            ],
        },
    }
}

pub(super) fn decode(host: Host, event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    let value: Value = serde_json::from_slice(payload).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else { return Err(DecodeError::NotJson("not an object".into())) };
    from_map(host, event, &map)
}

/// Builds a [`HookEvent`] from a payload object.
pub(super) fn from_map(host: Host, event: Event, map: &Map<String, Value>) -> Result<HookEvent, DecodeError> {
    let input = tool_input(map)?;
    let tool_name = text(map, &["tool_name", "toolName", "tool"])?.unwrap_or_default();
    let cwd = text(map, &["cwd", "working_dir", "directory"])?
        .or_else(|| first_string(map.get("workspace_roots")))
        .filter(|c| !c.is_empty())
        .map(PathBuf::from);
    let tool = classify(host, event, &tool_name, map, input.as_ref())?;
    Ok(HookEvent {
        host,
        event,
        cwd,
        session_id: text(map, &["session_id", "sessionId", "conversation_id"])?,
        tool_use_id: text(map, &["tool_use_id", "tool_call_id", "toolCallId", "toolUseId", "generation_id"])?,
        tool_name,
        tool,
        prompt: match prompt(map)? {
            Some(text) => Some(text),
            None => input.as_ref().map(prompt).transpose()?.flatten(),
        },
        stop_hook_active: map.get("stop_hook_active").and_then(Value::as_bool).unwrap_or(false),
        correlation_id: None,
    })
}

fn classify(
    host: Host,
    event: Event,
    name: &str,
    map: &Map<String, Value>,
    input: Option<&Map<String, Value>>,
) -> Result<ToolCall, DecodeError> {
    let table = tools(host);
    let top_command = text(map, &["command"])?;
    if table.shell.contains(&name) || (name.is_empty() && event == Event::PreToolUse && top_command.is_some())
    {
        let command = match input {
            Some(input) => text(input, &["command", "cmd"])?,
            None => None,
        };
        return Ok(ToolCall::Shell { command: command.or(top_command).unwrap_or_default() });
    }
    if name == "apply_patch" {
        let envelope =
            input.map(|i| text(i, &["command", "patch", "input"])).transpose()?.flatten().unwrap_or_default();
        return Ok(ToolCall::Edit { paths: patch::written_paths(&envelope) });
    }
    if table.edit.contains(&name) || (name.is_empty() && event == Event::PostToolUse) {
        let mut paths = Vec::new();
        if let Some(input) = input {
            paths.extend(text(input, &["file_path", "path", "filePath", "notebook_path"])?);
        }
        paths.extend(text(map, &["file_path", "path"])?);
        paths.dedup();
        return Ok(ToolCall::Edit { paths: paths.into_iter().map(PathBuf::from).collect() });
    }
    Ok(if name.is_empty() { ToolCall::None } else { ToolCall::Other(name.to_owned()) })
}

/// The tool's arguments: an object, or a JSON string holding one (Copilot's `toolArgs`).
fn tool_input(map: &Map<String, Value>) -> Result<Option<Map<String, Value>>, DecodeError> {
    for key in ["tool_input", "toolArgs", "tool_args", "args"] {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(o)) => return Ok(Some(o.clone())),
            Some(Value::String(s)) => {
                return match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(o)) => Ok(Some(o)),
                    _ => Err(DecodeError::BadField("tool_input")),
                };
            }
            Some(_) => return Err(DecodeError::BadField("tool_input")),
        }
    }
    Ok(None)
}

/// The first of `keys` present as a string; a present non-string is an error.
fn text(map: &Map<String, Value>, keys: &[&'static str]) -> Result<Option<String>, DecodeError> {
    for key in keys {
        match map.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => return Ok(Some(s.clone())),
            Some(_) => return Err(DecodeError::BadField(key)),
        }
    }
    Ok(None)
}

fn first_string(value: Option<&Value>) -> Option<String> {
    value?.as_array()?.first()?.as_str().map(str::to_owned)
}

/// The prompt text: a string, or Kimi's `ContentPart[]` (`[{"type":"text","text":"…"}]`).
fn prompt(map: &Map<String, Value>) -> Result<Option<String>, DecodeError> {
    for key in ["prompt", "user_prompt", "message"] {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => return Ok(Some(s.clone())),
            Some(Value::Array(parts)) => {
                let text: Vec<&str> =
                    parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
                return Ok(Some(text.join("\n")));
            }
            Some(_) => return Err(DecodeError::BadField("prompt")),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(host: Host, event: Event, json: &str) -> HookEvent {
        decode(host, event, json.as_bytes()).expect("decodes")
    }

    #[test]
    fn shell_commands_from_every_shape() {
        let cases = [
            (Host::Claude, r#"{"tool_name":"Bash","tool_input":{"command":"git push"}}"#),
            (Host::Gemini, r#"{"tool_name":"run_shell_command","tool_input":{"command":"git push"}}"#),
            (Host::Kimi, r#"{"tool_name":"Shell","tool_input":{"command":"git push"}}"#),
            (Host::Copilot, r#"{"toolName":"bash","toolArgs":"{\"command\":\"git push\"}"}"#),
            (Host::Copilot, r#"{"toolName":"bash","toolArgs":{"command":"git push"}}"#),
            (Host::Cursor, r#"{"hook_event_name":"beforeShellExecution","command":"git push","cwd":"/r"}"#),
            (
                Host::OpenHands,
                r#"{"event_type":"PreToolUse","tool_name":"terminal","tool_input":{"command":"git push"},"working_dir":"/r"}"#,
            ),
        ];
        for (host, json) in cases {
            assert_eq!(
                event(host, Event::PreToolUse, json).tool,
                ToolCall::Shell { command: "git push".into() },
                "{host:?} {json}"
            );
        }
    }

    #[test]
    fn edited_paths_from_every_shape() {
        let cases = [
            (Host::Claude, r#"{"tool_name":"Write","tool_input":{"file_path":"/r/a.py"}}"#),
            (Host::Kimi, r#"{"tool_name":"StrReplaceFile","tool_input":{"path":"/r/a.py"}}"#),
            (Host::Copilot, r#"{"toolName":"edit","toolArgs":"{\"path\":\"/r/a.py\"}"}"#),
            (Host::Cursor, r#"{"hook_event_name":"afterFileEdit","file_path":"/r/a.py","edits":[]}"#),
            (Host::Gemini, r#"{"tool_name":"write_file","tool_input":{"file_path":"/r/a.py"}}"#),
        ];
        for (host, json) in cases {
            assert_eq!(
                event(host, Event::PostToolUse, json).tool,
                ToolCall::Edit { paths: vec!["/r/a.py".into()] },
                "{host:?}"
            );
        }
    }

    #[test]
    fn ids_cwd_and_prompts() {
        let e = event(
            Host::Kimi,
            Event::UserPromptSubmit,
            r#"{"session_id":"s","cwd":"/r","prompt":[{"type":"text","text":"commit this"}]}"#,
        );
        assert_eq!((e.session_id.as_deref(), e.prompt.as_deref()), (Some("s"), Some("commit this")));
        let e = event(
            Host::Cursor,
            Event::Stop,
            r#"{"conversation_id":"c","workspace_roots":["/w"],"status":"completed"}"#,
        );
        assert_eq!((e.session_id.as_deref(), e.cwd), (Some("c"), Some(PathBuf::from("/w"))));
        let e = event(Host::Claude, Event::Stop, r#"{"stop_hook_active":true}"#);
        assert!(e.stop_hook_active);
    }

    #[test]
    fn wrong_types_are_errors() {
        assert!(
            decode(Host::Claude, Event::PreToolUse, br#"{"tool_name":"Bash","tool_input":{"command":5}}"#)
                .is_err()
        );
        assert!(
            decode(Host::Copilot, Event::PreToolUse, br#"{"toolName":"bash","toolArgs":"not json"}"#)
                .is_err()
        );
        assert!(decode(Host::Claude, Event::PreToolUse, b"[1]").is_err());
    }
}
