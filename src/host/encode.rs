//! Encoding an [`Answer`] through the channel each host honours.
//!
//! Blocks happen only on pre-tool-use: exit 2 + stderr where the host reads it, a JSON deny with
//! exit 0 where exit codes do not block (Copilot) or where exit 2 has been seen to fail open
//! (Codex). Context goes where the host injects it into the agent's context; where a host ignores
//! an event's output, nothing is printed (the findings surface at the next blocking point).
//! A Stop answer is always a user-facing message, never something that continues the turn.

use serde_json::{Value, json};

use super::spec::AskChannel;
use super::{Answer, Event, HookEvent, Host, ToolCall, neutral::CONTRACT_VERSION};
use crate::exit;
use crate::output::Output;

/// Encodes `answer` for the host and event of `event`; `runtime_ms` feeds the neutral contract.
/// Every text is redacted first: reports quote the agent's command and linter output, either of
/// which can hold a secret, and nothing codeguard prints may echo one.
pub(crate) fn encode(event: &HookEvent, answer: &Answer, runtime_ms: u64) -> Output {
    let redacted = match redacted(answer) {
        Answer::Ask(report) => match super::spec::spec(event.host).ask {
            channel if event.event == Event::PreToolUse && channel != AskChannel::None => {
                return ask(event.host, channel, &report);
            }
            // A host that cannot ask refuses: the user's confirmation is never assumed.
            _ => Answer::Block(report),
        },
        other => other,
    };
    let answer = &redacted;
    match event.host {
        Host::Neutral => neutral(event, answer, runtime_ms),
        Host::Claude | Host::Zcode => claude(event.event, answer),
        Host::Codex => codex(event.event, answer),
        Host::Gemini => gemini(event.event, answer),
        Host::Kimi => kimi(event.event, answer),
        Host::Copilot => copilot(event.event, answer),
        Host::Cursor => cursor(event.event, answer),
        Host::OpenHands | Host::Ari => top_level_context(event.event, answer),
        Host::Goose => goose(event.event, answer),
        Host::Cline => cline(event, answer),
        // Claude's shape, which codeguard's own plugin reads (`src/install/plugin/runner.js`).
        Host::Qwen => claude_shaped(event.event, answer, Host::Qwen),
        // Continue CLI runs none of its hooks (its gate is git's): were one run, a block in
        // Claude's shape, and nothing else.
        Host::Continue => deny_only(event.event, answer, block_on_stderr),
        Host::Dsh | Host::Opencode | Host::Kilo | Host::Pi => no_stop_output(event.event, answer, event.host),
    }
}

/// What a hook script prints, where the host would otherwise run a call codeguard could not
/// judge, to stop it (`None`: the host stops on a failed hook by itself, or codeguard's own
/// plugin does). Cline runs the call after a hook that failed: its `cancel` ends the run.
pub(crate) fn fail_closed_stop(host: Host) -> Option<String> {
    (host == Host::Cline).then(|| {
        json!({"cancel": true, "errorMessage": "codeguard: the gate could not run, so the run is stopped"}).to_string()
    })
}

/// Cline acts on stdout JSON alone (exit codes are ignored). A block replaces the call's whole
/// input (`overrideInput`): a shell call's by one command that prints the report and fails,
/// which the model reads as the tool's result; an edit's by one its own check refuses, the
/// report following as context (`contextModification`, also how context reaches the model).
/// `cancel` would end the run with the reason shown to nobody: only where nothing else can stop
/// the call. Task start, prompt submission and task completion run detached: their output goes
/// nowhere.
fn cline(event: &HookEvent, answer: &Answer) -> Output {
    match (event.event, answer) {
        (_, Answer::Allow) | (Event::SessionStart | Event::UserPromptSubmit | Event::Stop, _) => {
            Output::default()
        }
        (Event::PreToolUse, Answer::Block(report)) => stdout_json(&match &event.tool {
            ToolCall::Shell { .. } | ToolCall::Unreadable(_) => json!({"overrideInput": {"commands": [
                format!("printf '%s\\n' {} >&2; exit 1", super::decode::quote(report))]}}),
            ToolCall::Edit { .. } if event.tool_name == "apply_patch" => {
                json!({"overrideInput": {"input": ""}, "contextModification": report})
            }
            ToolCall::Edit { .. } => json!({"overrideInput": {"path": ""}, "contextModification": report}),
            ToolCall::None | ToolCall::Other(_) => json!({"cancel": true, "errorMessage": report}),
        }),
        _ => context_of(answer)
            .map_or_else(Output::default, |(text, _)| stdout_json(&json!({"contextModification": text}))),
    }
}

/// Claude's shape, for hosts where a Stop's output reaches nobody: dsh's bridge (it passes no
/// `systemMessage` on; a block would force another turn) and codeguard's own plugin (it writes
/// nothing to the host's output, where a terminal interface may be drawing).
fn no_stop_output(event: Event, answer: &Answer, host: Host) -> Output {
    match event {
        Event::Stop => Output::default(),
        _ => claude_shaped(event, answer, host),
    }
}

fn redacted(answer: &Answer) -> Answer {
    let clean = |t: &str| crate::secrets::redact(t).into_owned();
    match answer {
        Answer::Allow => Answer::Allow,
        Answer::Context { text, user } => {
            Answer::Context { text: clean(text), user: user.as_deref().map(clean) }
        }
        Answer::Block(report) => Answer::Block(clean(report)),
        Answer::Ask(report) => Answer::Ask(clean(report)),
    }
}

/// A pre-tool-use call put to the user through the host's own confirmation (`channel`), with
/// `report` saying what the agent asks for and why codeguard would otherwise refuse.
fn ask(host: Host, channel: AskChannel, report: &str) -> Output {
    let first = report.lines().next().unwrap_or("codeguard asks you to confirm this command");
    let value = match channel {
        AskChannel::PermissionDecision => json!({"hookSpecificOutput": {
            "hookEventName": event_name(host, Event::PreToolUse),
            "permissionDecision": "ask",
            "permissionDecisionReason": report}}),
        AskChannel::TopLevelPermission => {
            json!({"permissionDecision": "ask", "permissionDecisionReason": report})
        }
        AskChannel::Permission => {
            json!({"permission": "ask", "user_message": first, "agent_message": report})
        }
        AskChannel::None => return block_on_stderr(report),
    };
    stdout_json(&value)
}

fn stdout_json(value: &Value) -> Output {
    Output { stdout: format!("{value}\n"), ..Output::default() }
}

fn block_on_stderr(report: &str) -> Output {
    Output { stderr: report.to_owned(), code: exit::HookExit::BlockOnStderr.code(), ..Output::default() }
}

/// Context as `hookSpecificOutput.additionalContext` (+ `systemMessage` for the user).
fn additional_context(name: &str, text: &str, user: Option<&String>) -> Output {
    let mut value = json!({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}});
    if let Some(user) = user {
        value["systemMessage"] = json!(user);
    }
    stdout_json(&value)
}

/// A pre-tool-use block report, or the context of any other answer for events that never block.
fn context_of(answer: &Answer) -> Option<(&str, Option<&String>)> {
    match answer {
        Answer::Allow => None,
        Answer::Context { text, user } => Some((text, user.as_ref())),
        Answer::Block(report) | Answer::Ask(report) => Some((report, None)),
    }
}

/// Claude's shape (Gemini's too, with its own event names): exit 2 + stderr blocks; context as
/// `hookSpecificOutput.additionalContext`; a Stop answer as `systemMessage` only.
/// The host's own name for `event`, from its spec (the one home of event names).
fn event_name(host: Host, event: Event) -> &'static str {
    super::spec::spec(host).event_name(event).unwrap_or_else(|| event.claude_name())
}

fn claude_shaped(event: Event, answer: &Answer, host: Host) -> Output {
    match (event, answer) {
        (_, Answer::Allow) => Output::default(),
        (Event::PreToolUse, Answer::Block(report)) => block_on_stderr(report),
        (Event::Stop, _) => context_of(answer)
            .map_or_else(Output::default, |(t, _)| stdout_json(&json!({"systemMessage": t}))),
        (Event::SessionStart | Event::UserPromptSubmit | Event::PreToolUse | Event::PostToolUse, _) => {
            context_of(answer)
                .map_or_else(Output::default, |(t, u)| additional_context(event_name(host, event), t, u))
        }
    }
}

fn claude(event: Event, answer: &Answer) -> Output {
    claude_shaped(event, answer, Host::Claude)
}

fn codex(event: Event, answer: &Answer) -> Output {
    match (event, answer) {
        (_, Answer::Allow) => Output::default(),
        (Event::PreToolUse, Answer::Block(report)) => stdout_json(&json!({"hookSpecificOutput": {
            "hookEventName": event_name(Host::Codex, event), "permissionDecision": "deny", "permissionDecisionReason": report}})),
        (Event::SessionStart | Event::UserPromptSubmit, _) => context_of(answer)
            .map_or_else(Output::default, |(t, _)| Output { stdout: format!("{t}\n"), ..Output::default() }),
        (Event::Stop, _) => context_of(answer)
            .map_or_else(Output::default, |(t, _)| stdout_json(&json!({"systemMessage": t}))),
        (Event::PreToolUse | Event::PostToolUse, _) => context_of(answer)
            .map_or_else(Output::default, |(t, u)| additional_context(event_name(Host::Codex, event), t, u)),
    }
}

fn gemini(event: Event, answer: &Answer) -> Output {
    claude_shaped(event, answer, Host::Gemini)
}

fn kimi(event: Event, answer: &Answer) -> Output {
    match (event, answer) {
        (_, Answer::Allow) => Output::default(),
        (Event::PreToolUse, Answer::Block(report)) => block_on_stderr(report),
        (Event::SessionStart | Event::Stop, _) => {
            context_of(answer).map_or_else(Output::default, |(t, _)| stdout_json(&json!({"message": t})))
        }
        (Event::UserPromptSubmit | Event::PreToolUse | Event::PostToolUse, _) => context_of(answer)
            .map_or_else(Output::default, |(t, u)| additional_context(event.claude_name(), t, u)),
    }
}

/// Copilot: exit codes never block pre-tool-use, so a block is a JSON deny with exit 0. Context
/// is `additionalContext`, which Copilot injects for sessionStart, userPromptSubmitted, preToolUse
/// and postToolUse — never with a `permissionDecision` of allow, which would skip Copilot's own
/// approval. agentStop output could only force another turn, so nothing is printed there.
fn copilot(event: Event, answer: &Answer) -> Output {
    match (event, answer) {
        (_, Answer::Allow) | (Event::Stop, _) => Output::default(),
        (Event::PreToolUse, Answer::Block(report)) => {
            stdout_json(&json!({"permissionDecision": "deny", "permissionDecisionReason": report}))
        }
        (Event::SessionStart | Event::UserPromptSubmit | Event::PreToolUse | Event::PostToolUse, _) => {
            context_of(answer)
                .map_or_else(Output::default, |(t, _)| stdout_json(&json!({"additionalContext": t})))
        }
    }
}

/// Cursor: `beforeShellExecution` reads `{"permission": "deny", …}`; its after-events are
/// fire-and-forget and prompts cannot receive context, so nothing else is printed.
fn cursor(event: Event, answer: &Answer) -> Output {
    deny_only(event, answer, |report| {
        stdout_json(&json!({
            "permission": "deny",
            "user_message": report.lines().next().unwrap_or("codeguard blocked this command"),
            "agent_message": report}))
    })
}

/// Hosts that honour nothing but a pre-tool-use deny (`deny`: its channel there), and silence
/// for everything else.
fn deny_only(event: Event, answer: &Answer, deny: impl FnOnce(&str) -> Output) -> Output {
    match (event, answer) {
        (Event::PreToolUse, Answer::Block(report)) => deny(report),
        (
            Event::SessionStart
            | Event::UserPromptSubmit
            | Event::PreToolUse
            | Event::PostToolUse
            | Event::Stop,
            _,
        ) => Output::default(),
    }
}

/// goose: exit 2 with the report on stderr blocks; stdout must stay empty (anything but its own
/// decision JSON is a hook failure there), and nothing else a hook says reaches its model.
fn goose(event: Event, answer: &Answer) -> Output {
    deny_only(event, answer, block_on_stderr)
}

/// `OpenHands` and ari: exit 2 blocks; context is top-level `additionalContext` (the only key: ari
/// decodes its hooks' JSON strictly). A Stop output can only continue the turn there, so a Stop
/// summary is not printed.
fn top_level_context(event: Event, answer: &Answer) -> Output {
    match (event, answer) {
        (_, Answer::Allow) | (Event::Stop, _) => Output::default(),
        (Event::PreToolUse, Answer::Block(report)) => block_on_stderr(report),
        (Event::SessionStart | Event::UserPromptSubmit | Event::PreToolUse | Event::PostToolUse, _) => {
            context_of(answer)
                .map_or_else(Output::default, |(t, _)| stdout_json(&json!({"additionalContext": t})))
        }
    }
}

/// The neutral contract's single JSON response; exit 1 on deny.
fn neutral(event: &HookEvent, answer: &Answer, runtime_ms: u64) -> Output {
    let (decision, effect, status) = match answer {
        Answer::Allow => ("allow", json!({"action": "allow"}), "allowed"),
        Answer::Context { text, .. } => {
            ("allow", json!({"action": "allow", "additional_context": text}), "allowed")
        }
        Answer::Block(report) if event.event == Event::PreToolUse => {
            ("deny", json!({"action": "block", "reason": report}), "blocked")
        }
        Answer::Block(report) | Answer::Ask(report) => {
            ("allow", json!({"action": "allow", "additional_context": report}), "allowed")
        }
    };
    let mut value = json!({
        "contract_version": CONTRACT_VERSION,
        "correlation_id": event.correlation_id.clone().unwrap_or_else(|| format!("codeguard-{}", std::process::id())),
        "event": {"name": event.event.claude_name(), "provider": event.provider.as_deref().unwrap_or("neutral"), "tool": event.tool_name},
        "decision": decision,
        "effect": effect,
        "status": status,
        "decisions": [],
        "advice": {},
        "runtime_ms": runtime_ms,
    });
    if decision == "deny" {
        value["tracking_id"] =
            json!(format!("codeguard-{:016x}", fxhash(value["effect"]["reason"].as_str().unwrap_or(""))));
    }
    Output {
        stdout: format!("{value}\n"),
        code: if decision == "deny" {
            exit::HookExit::ContractDeny.code()
        } else {
            exit::HookExit::Proceed.code()
        },
        ..Output::default()
    }
}

/// A short stable hash for tracking ids.
fn fxhash(text: &str) -> u64 {
    let digest = blake3::hash(text.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest.as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(host: Host, event: Event, answer: &Answer) -> Output {
        encode(&HookEvent::bare(host, event), answer, 3)
    }

    #[test]
    fn blocks_use_each_hosts_channel() {
        let block = Answer::Block("codeguard: commit blocked".into());
        for host in [Host::Claude, Host::Zcode, Host::Gemini, Host::Kimi, Host::OpenHands] {
            let e = enc(host, Event::PreToolUse, &block);
            assert_eq!((e.code, e.stderr.as_str()), (2, "codeguard: commit blocked"), "{host:?}");
        }
        for host in [Host::Codex, Host::Copilot, Host::Cursor] {
            let e = enc(host, Event::PreToolUse, &block);
            assert_eq!(e.code, 0, "{host:?} must deny through JSON");
            let v: Value = serde_json::from_str(&e.stdout).expect("json");
            let text = v.to_string();
            assert!(text.contains("deny") && text.contains("commit blocked"), "{host:?}: {text}");
        }
        let neutral = enc(Host::Neutral, Event::PreToolUse, &block);
        let v: Value = serde_json::from_str(&neutral.stdout).expect("json");
        assert_eq!(
            (neutral.code, v["decision"].as_str(), v["effect"]["action"].as_str()),
            (1, Some("deny"), Some("block"))
        );
    }

    #[test]
    fn an_ask_reaches_the_user_where_the_host_can_ask_and_is_a_refusal_elsewhere() {
        use crate::host::spec::{DenyChannel, spec};
        let question = Answer::Ask("codeguard: the agent asks to commit without the linters".into());
        for host in Host::ALL {
            let e = enc(host, Event::PreToolUse, &question);
            let text = format!("{}{}", e.stdout, e.stderr);
            assert!(text.contains("without the linters"), "{host:?}: the reason is lost: {e:?}");
            if spec(host).ask == AskChannel::None {
                {
                    let refused = match spec(host).deny {
                        DenyChannel::ExitTwo => e.code == 2,
                        DenyChannel::JsonDeny => e.code == 0 && e.stdout.contains("\"deny\""),
                        DenyChannel::Neutral => e.code == 1,
                        DenyChannel::ReplaceCall => e.code == 0 && e.stdout.contains("without the linters"),
                    };
                    assert!(
                        refused && !e.stdout.contains("\"ask\""),
                        "{host:?} cannot ask, so it must refuse: {e:?}"
                    );
                }
            } else {
                {
                    assert_eq!(e.code, 0, "{host:?}");
                    let v: Value = serde_json::from_str(&e.stdout).expect("json");
                    let said = [
                        &v["hookSpecificOutput"]["permissionDecision"],
                        &v["permissionDecision"],
                        &v["permission"],
                    ];
                    assert!(said.iter().any(|d| d.as_str() == Some("ask")), "{host:?}: {v}");
                }
            }
        }
        // Codex fails open on "ask": it must never be given one.
        assert_eq!(spec(Host::Codex).ask, AskChannel::None);
        // Outside pre-tool-use nothing is asked.
        let e = enc(Host::Claude, Event::PostToolUse, &question);
        assert!(!e.stdout.contains("\"ask\""));
    }

    #[test]
    fn codex_denials_carry_no_extra_fields() {
        let e = enc(Host::Codex, Event::PreToolUse, &Answer::Block("no".into()));
        let v: Value = serde_json::from_str(&e.stdout).expect("json");
        let keys: Vec<&String> = v["hookSpecificOutput"].as_object().expect("object").keys().collect();
        assert_eq!(keys, ["hookEventName", "permissionDecision", "permissionDecisionReason"]);
    }

    #[test]
    fn stop_never_continues_the_turn() {
        for host in Host::ALL {
            let e = enc(host, Event::Stop, &Answer::context("summary"));
            assert_eq!(e.code, 0, "{host:?}");
            assert!(
                !e.stdout.contains("\"decision\":\"block\"")
                    && !e.stdout.contains("additionalContext")
                    && !e.stdout.contains("followup_message"),
                "{host:?}: {}",
                e.stdout
            );
        }
    }

    #[test]
    fn allow_is_silent_except_for_the_neutral_contract() {
        for host in Host::ALL {
            for event in Event::ALL {
                let e = enc(host, event, &Answer::Allow);
                assert_eq!(e.code, 0);
                assert_eq!(e.stdout.is_empty(), crate::host::spec(host).provider, "{host:?} {event:?}");
            }
        }
    }

    #[test]
    fn the_encoder_answers_through_the_channels_the_spec_names() {
        use crate::host::spec::{Delivery, DenyChannel, spec};
        for host in Host::ALL {
            let s = spec(host);
            let block =
                encode(&HookEvent::bare(host, Event::PreToolUse), &Answer::Block("codeguard: no".into()), 0);
            match s.deny {
                DenyChannel::ExitTwo => {
                    assert_eq!((block.code, block.stderr.as_str()), (2, "codeguard: no"), "{host:?}");
                }
                DenyChannel::JsonDeny => {
                    assert!(block.code == 0 && block.stdout.contains("deny"), "{host:?}: {block:?}");
                }
                DenyChannel::Neutral => {
                    assert!(block.code == 1 && block.stdout.contains("\"deny\""), "{host:?}");
                }
                DenyChannel::ReplaceCall => {
                    assert!(block.code == 0 && block.stdout.contains("codeguard: no"), "{host:?}: {block:?}");
                }
            }
            for event in Event::ALL {
                let said = encode(&HookEvent::bare(host, event), &Answer::context("codeguard: note"), 0);
                match s.delivery(event) {
                    Delivery::Model | Delivery::User => {
                        assert!(
                            said.stdout.contains("codeguard: note"),
                            "{host:?} {event:?} drops what the host delivers"
                        );
                    }
                    Delivery::Ignored => {}
                }
            }
        }
    }
}
