//! The provider-neutral contract (`coding-ethos.hook/v1`): a normalised request in, one JSON
//! response out, exit 0 for allow and 1 for deny whatever the provider.
//!
//! A request that declares `contract_version` is validated strictly: unknown top-level fields,
//! unknown providers or events, overlong identifiers, control characters in identifiers and
//! paths, trailing JSON and an unsupported version are rejected. Undeclared requests are read as
//! tolerantly as every other host's.

use serde_json::{Map, Value};

use super::{DecodeError, Event, HookEvent, Host};

/// The contract version codeguard speaks.
pub(super) const CONTRACT_VERSION: &str = "coding-ethos.hook/v1";

const FIELDS: &[&str] = &[
    "contract_version",
    "correlation_id",
    "provider",
    "hook_event_name",
    "session_id",
    "cwd",
    "tool_name",
    "tool_input",
];
const PROVIDERS: &[&str] = &["claude", "codex", "gemini", "kimi", "copilot", "cursor", "openhands", "zcode"];
const MAX_CORRELATION_BYTES: usize = 128;
const MAX_ID_BYTES: usize = 256;

pub(super) fn decode(event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    let value: Value = serde_json::from_slice(payload).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else { return Err(DecodeError::NotJson("not an object".into())) };
    if map.contains_key("contract_version") {
        validate(&map, event)?;
    }
    let provider =
        map.get("provider").and_then(Value::as_str).and_then(Host::from_name).unwrap_or(Host::Neutral);
    let mut decoded = super::decode::from_map(provider, event, &map)?;
    decoded.host = Host::Neutral;
    decoded.correlation_id = map.get("correlation_id").and_then(Value::as_str).map(str::to_owned);
    decoded.provider = map
        .get("provider")
        .and_then(Value::as_str)
        .map(|p| p.chars().filter(|c| !c.is_control()).take(MAX_ID_BYTES).collect());
    Ok(decoded)
}

/// What `codeguard hook capabilities` reports, so a supervisor discovers codeguard instead of
/// guessing: the contract version, the input limit, the events, the effects, the exit codes and
/// every provider adapter (its event names, tool names and how it is answered).
pub(crate) fn capabilities() -> Value {
    let providers: Vec<Value> = Host::ALL
        .iter()
        .filter(|h| super::spec(**h).provider)
        .map(|&host| {
            let spec = super::spec(host);
            let events: Map<String, Value> = Event::ALL
                .iter()
                .map(|e| (e.claude_name().to_owned(), Value::from(spec.event_name(*e).unwrap_or(""))))
                .collect();
            serde_json::json!({
                "name": host.name(),
                "label": spec.label,
                "events": events,
                "shell_tools": spec.shell_tools,
                "edit_tools": spec.edit_tools,
                "shell_matcher": spec.shell_matcher,
                "edit_matcher": spec.edit_matcher,
                "ask": match spec.ask {
                    super::spec::AskChannel::None => "none: an agent's lint bypass goes through, recorded",
                    super::spec::AskChannel::PermissionDecision => "hookSpecificOutput.permissionDecision ask",
                    super::spec::AskChannel::TopLevelPermission => "permissionDecision ask",
                    super::spec::AskChannel::Permission => "permission ask",
                },
                "deny": match spec.deny {
                    super::spec::DenyChannel::ExitTwo => "exit 2 + stderr",
                    super::spec::DenyChannel::JsonDeny => "JSON deny on stdout, exit 0",
                    super::spec::DenyChannel::Neutral => "neutral response, exit 1",
                    super::spec::DenyChannel::ReplaceCall => "the call replaced on stdout (overrideInput), exit 0",
                },
                "tested": match spec.tested {
                    super::spec::Tested::Pinned { package, .. } => {
                        format!("{package}: its released package, in codeguard's end-to-end suite")
                    }
                    super::spec::Tested::Without(why) => why.to_owned(),
                },
            })
        })
        .collect();
    serde_json::json!({
        "contract_version": CONTRACT_VERSION,
        "max_input_bytes": super::MAX_PAYLOAD_BYTES,
        "events": Event::ALL.iter().map(|e| e.claude_name()).collect::<Vec<_>>(),
        "effects": ["allow", "block"],
        "decisions": ["allow", "deny"],
        "exit_codes": {"allow": crate::exit::HookExit::Proceed.code(), "deny": crate::exit::HookExit::ContractDeny.code()},
        "strict_fields": FIELDS,
        "providers": providers,
    })
}

fn validate(map: &Map<String, Value>, event: Event) -> Result<(), DecodeError> {
    let reject = |why: String| Err(DecodeError::Contract(why));
    if map.get("contract_version").and_then(Value::as_str) != Some(CONTRACT_VERSION) {
        return reject(format!("unsupported contract_version (expected {CONTRACT_VERSION})"));
    }
    if let Some(unknown) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return reject(format!("unknown field `{unknown}`"));
    }
    for (key, limit) in [
        ("correlation_id", MAX_CORRELATION_BYTES),
        ("session_id", MAX_ID_BYTES),
        ("provider", MAX_ID_BYTES),
        ("tool_name", MAX_ID_BYTES),
        ("cwd", 4096),
    ] {
        match map.get(key) {
            Some(Value::String(s)) if s.len() > limit => {
                return reject(format!("`{key}` is longer than {limit} bytes"));
            }
            Some(Value::String(s)) if s.chars().any(char::is_control) => {
                return reject(format!("`{key}` contains control characters"));
            }
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => return reject(format!("`{key}` must be a string")),
        }
    }
    if let Some(provider) = map.get("provider").and_then(Value::as_str).filter(|p| !PROVIDERS.contains(p)) {
        return reject(format!("unknown provider `{provider}`"));
    }
    match map.get("hook_event_name").and_then(Value::as_str).map(Event::from_name) {
        Some(None) => reject("unknown hook_event_name".into()),
        Some(Some(named)) if named != event => {
            reject(format!("hook_event_name does not match the `{}` hook", event.name()))
        }
        None | Some(Some(_)) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(extra: &str) -> String {
        format!(
            r#"{{"contract_version":"coding-ethos.hook/v1","provider":"claude","hook_event_name":"PreToolUse","session_id":"s","cwd":"/r","tool_name":"Bash","tool_input":{{"command":"git push"}}{extra}}}"#
        )
    }

    #[test]
    fn strict_requests_are_validated() {
        let ok = decode(Event::PreToolUse, strict(r#","correlation_id":"c-1""#).as_bytes()).expect("valid");
        assert_eq!(ok.correlation_id.as_deref(), Some("c-1"));
        assert_eq!(ok.host, Host::Neutral);
        for bad in [
            strict(r#","colour":"red""#),
            strict(&format!(r#","correlation_id":"{}""#, "x".repeat(129))),
            strict(r#","correlation_id":"a\u0007b""#),
            strict("").replace("\"claude\"", "\"vim\""),
            strict("").replace("PreToolUse", "Teleport"),
            strict("").replace("hook/v1", "hook/v9"),
            format!("{} {{}}", strict("")),
        ] {
            assert!(decode(Event::PreToolUse, bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn undeclared_requests_are_tolerant() {
        let e = decode(
            Event::PreToolUse,
            br#"{"provider":"kimi","tool_name":"Shell","tool_input":{"command":"ls"},"extra":1}"#,
        )
        .expect("tolerant");
        assert_eq!(e.tool, super::super::ToolCall::Shell { command: "ls".into() });
    }
}
