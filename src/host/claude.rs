//! Claude Code (and Claude-compatible hosts): `tool_name` / `tool_input` payloads; exit 2 with
//! the report on stderr blocks; context goes out as `hookSpecificOutput.additionalContext` JSON.

use serde_json::{Value, json};

use super::{Answer, DecodeError, Encoded, Event, HookEvent, ToolCall};

/// Tool names that run shell commands.
const SHELL_TOOLS: &[&str] = &["Bash", "Shell", "run_shell_command", "PowerShell"];

pub(super) fn decode(event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    let value: Value = serde_json::from_slice(payload).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else { return Err(DecodeError::NotJson("not an object".into())) };
    let text = |key: &'static str| -> Result<Option<String>, DecodeError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(DecodeError::BadField(key)),
        }
    };
    let tool_name = text("tool_name")?.unwrap_or_default();
    let tool = if SHELL_TOOLS.contains(&tool_name.as_str()) {
        let command = match map.get("tool_input").and_then(|i| i.get("command")) {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(_) => return Err(DecodeError::BadField("tool_input.command")),
        };
        ToolCall::Shell { command }
    } else {
        ToolCall::Other(tool_name)
    };
    Ok(HookEvent {
        event,
        cwd: text("cwd")?.filter(|c| !c.is_empty()).map(Into::into),
        session_id: text("session_id")?,
        tool_use_id: text("tool_use_id")?,
        tool,
    })
}

pub(super) fn encode(event: Event, answer: &Answer) -> Encoded {
    match answer {
        Answer::Allow => Encoded::default(),
        Answer::Context(text) => Encoded {
            stdout: json!({"hookSpecificOutput": {"hookEventName": event.claude_name(), "additionalContext": text}})
                .to_string()
                + "\n",
            ..Encoded::default()
        },
        Answer::Block(report) => Encoded { stderr: report.clone(), exit: crate::exit::HOOK_BLOCK, ..Encoded::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_bash_call() {
        let payload = br#"{"tool_name":"Bash","tool_input":{"command":"git commit -m x","description":"d"},"cwd":"/r","session_id":"s","tool_use_id":"t","extra":1}"#;
        let event = decode(Event::PreToolUse, payload).expect("decodes");
        assert_eq!(event.tool, ToolCall::Shell { command: "git commit -m x".into() });
        assert_eq!(event.cwd.as_deref(), Some(std::path::Path::new("/r")));
        assert_eq!(event.tool_use_id.as_deref(), Some("t"));
    }

    #[test]
    fn rejects_bad_shapes() {
        assert!(decode(Event::PreToolUse, b"[]").is_err());
        assert!(decode(Event::PreToolUse, b"nope").is_err());
        assert!(decode(Event::PreToolUse, br#"{"tool_name":"Bash","tool_input":{"command":5}}"#).is_err());
    }

    #[test]
    fn encodes_block_and_context() {
        let block = encode(Event::PreToolUse, &Answer::Block("no".into()));
        assert_eq!((block.exit, block.stderr.as_str(), block.stdout.as_str()), (2, "no", ""));
        let context = encode(Event::PreToolUse, &Answer::Context("note".into()));
        let json: Value = serde_json::from_str(&context.stdout).expect("json");
        assert_eq!(json["hookSpecificOutput"]["additionalContext"], "note");
        assert_eq!(context.exit, 0);
        assert_eq!(encode(Event::PreToolUse, &Answer::Allow), Encoded::default());
    }
}
