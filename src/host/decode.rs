//! Tolerant decoding of host payloads: one reader that understands every host's field names
//! (`tool_name`/`toolName`, `tool_input`/`toolArgs` as object or JSON string, `file_path`/`path`,
//! `cwd`/`working_dir`/`workspace_roots`, …) and a table of each host's shell and edit tools.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{DecodeError, Event, HookEvent, Host, ToolCall, patch_files};

/// Whether `name` is one of the host's shell tools (`shell`) or edit tools. The neutral contract
/// is called by supervisors of any host, so it accepts every host's names.
fn is_tool(host: Host, name: &str, shell: bool) -> bool {
    let listed = |h: &Host| {
        let spec = super::spec(*h);
        if shell { spec.shell_tools } else { spec.edit_tools }.contains(&name)
    };
    if super::spec(host).provider { listed(&host) } else { Host::ALL.iter().any(listed) }
}

pub(super) fn decode(host: Host, event: Event, payload: &[u8]) -> Result<HookEvent, DecodeError> {
    let value: Value = serde_json::from_slice(payload).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else { return Err(DecodeError::NotJson("not an object".into())) };
    from_map(host, event, &map)
}

/// Builds a [`HookEvent`] from a payload object.
pub(super) fn from_map(host: Host, event: Event, map: &Map<String, Value>) -> Result<HookEvent, DecodeError> {
    let (lifted, unreadable) = match lifted_call(map) {
        Some((lifted, unreadable)) => (Some(lifted), unreadable),
        None => (lifted_prompt(map), false),
    };
    let map = lifted.as_ref().unwrap_or(map);
    let input = tool_input(map)?;
    let tool_name = text(map, &["tool_name", "toolName", "tool"])?.unwrap_or_default();
    let cwd = text(map, &["cwd", "working_dir", "directory"])?
        .or_else(|| first_string(map.get("workspace_roots")))
        .or_else(|| first_string(map.get("workspaceRoots")))
        .filter(|c| !c.is_empty())
        .map(PathBuf::from);
    let tool = if unreadable && event == Event::PreToolUse {
        ToolCall::Unreadable(format!(
            "the input of `{tool_name}` fits none of the shapes the host runs, so what it would run cannot be read"
        ))
    } else {
        classify(host, event, &tool_name, map, input.as_ref())?
    };
    let cwd = match (&tool, input.as_ref()) {
        (ToolCall::Shell { .. }, Some(input)) => shell_dir(input, super::spec(host).shell_dir_keys, cwd)?,
        _ => cwd,
    };
    Ok(HookEvent {
        host,
        event,
        cwd,
        session_id: text(map, &["session_id", "sessionId", "conversation_id", "taskId"])?
            .or_else(|| only_string(map, "session")),
        tool_use_id: text(map, &["tool_use_id", "tool_call_id", "toolCallId", "toolUseId", "generation_id"])?,
        tool_name,
        tool,
        prompt: match prompt(map)? {
            Some(text) => Some(text),
            None => input.as_ref().map(prompt).transpose()?.flatten(),
        }
        .map(|text| {
            if super::spec(host).prompt_hook_context { without_hook_context(&text).to_owned() } else { text }
        }),
        stop_hook_active: map.get("stop_hook_active").and_then(Value::as_bool).unwrap_or(false),
        correlation_id: None,
        provider: None,
    })
}

fn classify(
    host: Host,
    event: Event,
    name: &str,
    map: &Map<String, Value>,
    input: Option<&Map<String, Value>>,
) -> Result<ToolCall, DecodeError> {
    let top_command = shell_text(map, &["command"])?;
    if is_tool(host, name, true) || (name.is_empty() && event == Event::PreToolUse && top_command.is_some()) {
        let command = match input {
            Some(input) => shell_text(input, &["command", "cmd"])?,
            None => None,
        };
        return Ok(ToolCall::Shell { command: command.or(top_command).unwrap_or_default() });
    }
    // A patch (Codex's and Copilot's `apply_patch`; opencode's and Kilo's `apply_patch` and
    // `patch` send it as `patchText`): the files it writes.
    if name == "apply_patch" || input.is_some_and(|i| i.contains_key("patchText")) {
        let envelope = input
            .map(|i| text(i, &["command", "patch", "input", "patchText"]))
            .transpose()?
            .flatten()
            .unwrap_or_default();
        // Before it runs, every file it names is checked (codeguard's own files: a deletion
        // too); after, the files it wrote are linted.
        let paths = if event == Event::PreToolUse {
            patch_files::touched_paths(&envelope)
        } else {
            patch_files::written_paths(&envelope)
        };
        return Ok(ToolCall::Edit { paths });
    }
    if is_tool(host, name, false) || (name.is_empty() && event == Event::PostToolUse) {
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

/// A call in Cline's shape (`tool_call: {id, name, input}` before it runs, `tool_result` with the
/// same keys after), and whether its shell input could not be read, as the fields every host's reader
/// knows (`tool_name`, `tool_input`, `tool_use_id`); `None` for any other payload. Only an object
/// there is taken, so the name holding anything else in another host's payload changes nothing.
fn lifted_call(map: &Map<String, Value>) -> Option<(Map<String, Value>, bool)> {
    let call = ["tool_call", "tool_result"].iter().find_map(|k| map.get(*k)?.as_object())?;
    let mut lifted = map.clone();
    for (from, to) in [("name", "tool_name"), ("input", "tool_input"), ("id", "tool_use_id")] {
        if let Some(value) = call.get(from) {
            lifted.entry(to).or_insert_with(|| value.clone());
        }
    }
    // What Cline runs, exactly; an input codeguard cannot read that way is not guessed at.
    let mut unreadable = false;
    if call.get("name").and_then(Value::as_str) == Some("run_commands") {
        let script = call.get("input").and_then(run_commands_script);
        unreadable = script.is_none();
        lifted.insert(
            "tool_input".to_owned(),
            Value::Object(Map::from_iter([("command".to_owned(), script.unwrap_or_default().into())])),
        );
    }
    Some((lifted, unreadable))
}

/// One thing Cline's `run_commands` runs: a shell command, or an argv run without a shell.
enum ClineItem {
    Shell(String),
    Argv(Vec<String>),
}

crate::static_regex::static_regex! {
    /// The delimiter of the first heredoc a Cline command opens (its own rule: `<<` not after
    /// another `<`, an optional `-`, a quoted or bare word).
    static CLINE_HEREDOC = r#"(?:^|[^<])<<-?\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_./-]+))"#;
}

/// What Cline's `run_commands` runs, as one script to judge — read as `@cline/core` 0.0.86 reads
/// it: the first shape of its union the input fits (`{commands: [string]}`, `{commands: [string
/// or argv]}`, `{commands: string or argv}`, `[argv]`, an argv, `{command: string}`, `{cmd:
/// string}`, `[string]`, a string; an argv is `{command: non-empty string, args?: [string]}`), its
/// mapping to a list (an argv without `args` at the top is a shell command), and its joining of
/// the string items from one that opens a heredoc up to its delimiter. Cline runs the items at
/// once, each in the session's directory: each is judged as its own `bash -c` (an argv as its
/// quoted words), in the order given, so that a quote or a `cd` one opens does not reach another.
/// `None`: no shape codeguard knows Cline to run (the call is refused unread).
fn run_commands_script(input: &Value) -> Option<String> {
    let mut joined: Vec<ClineItem> = Vec::new();
    let mut strings: Vec<String> = Vec::new();
    let flush = |strings: &mut Vec<String>, joined: &mut Vec<ClineItem>| {
        let mut i = 0;
        while i < strings.len() {
            let delimiter = CLINE_HEREDOC
                .captures(&strings[i])
                .and_then(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
                .map(|m| m.as_str().to_owned());
            let end = delimiter.and_then(|d| (i + 1..strings.len()).find(|&k| strings[k].trim() == d));
            let last = end.unwrap_or(i);
            joined.push(ClineItem::Shell(strings[i..=last].join("\n")));
            i = last + 1;
        }
        strings.clear();
    };
    for item in cline_items(input)? {
        match item {
            ClineItem::Shell(command) => strings.push(command),
            argv @ ClineItem::Argv(_) => {
                flush(&mut strings, &mut joined);
                joined.push(argv);
            }
        }
    }
    flush(&mut strings, &mut joined);
    let words = |argv: &[String]| argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    Some(match joined.as_slice() {
        [ClineItem::Shell(one)] => one.clone(),
        [ClineItem::Argv(argv)] => words(argv),
        many => many
            .iter()
            .map(|i| match i {
                ClineItem::Shell(command) => format!("bash -c {}", quote(command)),
                ClineItem::Argv(argv) => words(argv),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

/// Cline's union and its mapping to a list of items (see [`run_commands_script`]).
fn cline_items(input: &Value) -> Option<Vec<ClineItem>> {
    // An argv: a non-empty `command`, `args` absent or a list of strings (`null` does not fit).
    let argv = |v: &Value| -> Option<(String, Option<Vec<String>>)> {
        let o = v.as_object()?;
        let command = o.get("command")?.as_str().filter(|c| !c.is_empty())?.to_owned();
        let args = match o.get("args") {
            None => None,
            Some(Value::Array(a)) => {
                Some(a.iter().map(|w| w.as_str().map(str::to_owned)).collect::<Option<_>>()?)
            }
            Some(_) => return None,
        };
        Some((command, args))
    };
    // An item of a list: a string (a shell command) or an argv (run as its words).
    let item = |v: &Value| -> Option<ClineItem> {
        match v {
            Value::String(s) => Some(ClineItem::Shell(s.clone())),
            _ => argv(v).map(|(command, args)| {
                let mut words = vec![command];
                words.extend(args.unwrap_or_default());
                ClineItem::Argv(words)
            }),
        }
    };
    let strings = |v: &Value| -> Option<Vec<ClineItem>> {
        v.as_array()?.iter().map(|s| s.as_str().map(|s| ClineItem::Shell(s.to_owned()))).collect()
    };
    let commands = input.as_object().and_then(|o| o.get("commands"));
    // The union's shapes, in Cline's order: the first that fits is what runs.
    if let Some(list) = commands.and_then(strings) {
        return Some(list);
    }
    if let Some(list) =
        commands.and_then(Value::as_array).and_then(|l| l.iter().map(item).collect::<Option<Vec<_>>>())
    {
        return Some(list);
    }
    if let Some(one) = commands.filter(|c| !c.is_array()).and_then(item) {
        return Some(vec![one]);
    }
    if let Some(list) = input
        .as_array()
        .and_then(|l| l.iter().map(|v| argv(v).and_then(|_| item(v))).collect::<Option<Vec<_>>>())
    {
        return Some(list);
    }
    if let Some((command, rest)) = argv(input) {
        // At the top, an argv with `args` runs as one; without, its `command` is a shell command.
        return Some(vec![match rest {
            Some(words) => ClineItem::Argv(std::iter::once(command).chain(words).collect()),
            None => ClineItem::Shell(command),
        }]);
    }
    let field =
        |key: &str| input.as_object()?.get(key)?.as_str().map(|s| vec![ClineItem::Shell(s.to_owned())]);
    field("command")
        .or_else(|| field("cmd"))
        .or_else(|| strings(input))
        .or_else(|| input.as_str().map(|s| vec![ClineItem::Shell(s.to_owned())]))
}

/// Cline's prompt (`userPromptSubmit.prompt`) as the `prompt` every host's reader knows.
fn lifted_prompt(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let prompt = map.get("userPromptSubmit")?.get("prompt")?.as_str()?;
    let mut lifted = map.clone();
    lifted.entry("prompt").or_insert_with(|| Value::from(prompt));
    Some(lifted)
}

/// Where a shell tool call runs: the directory its arguments name under the host's own key
/// (`keys`, from its spec: Gemini CLI's `dir_path`, Qwen Code's `directory`, Codex's `workdir`;
/// relative to the session's directory, as the hosts resolve it), else the session's directory.
/// A command is judged where it runs: the session's repository is not the one a `git commit` in
/// another directory commits to.
fn shell_dir(
    input: &Map<String, Value>,
    keys: &'static [&'static str],
    session: Option<PathBuf>,
) -> Result<Option<PathBuf>, DecodeError> {
    let Some(dir) = text(input, keys)?.filter(|d| !d.is_empty()) else {
        return Ok(session);
    };
    let dir = PathBuf::from(dir);
    Ok(Some(match session {
        Some(base) if dir.is_relative() => base.join(dir),
        Some(_) | None => dir,
    }))
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
                    // A freeform `apply_patch` (Copilot CLI with GPT models) passes the patch
                    // itself as its arguments.
                    _ if ["tool_name", "toolName"]
                        .iter()
                        .any(|k| map.get(*k).and_then(Value::as_str) == Some("apply_patch")) =>
                    {
                        Ok(Some(Map::from_iter([("input".to_owned(), Value::from(s.as_str()))])))
                    }
                    _ => Err(DecodeError::BadField("tool_input")),
                };
            }
            Some(_) => return Err(DecodeError::BadField("tool_input")),
        }
    }
    // ari sends its tool's arguments as `input`: only an object is taken, so a key of that name
    // another host fills with something else never turns a payload into an error (which fails
    // open).
    Ok(map.get("input").and_then(Value::as_object).cloned())
}

/// `key` when it holds a string; anything else there is not this field (ari's `session`, a name
/// another host may use otherwise).
fn only_string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
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

/// A shell command: a string, or an argv array (Codex's shell tool sends
/// `["bash", "-lc", "script"]`): the script of a `sh -c`-style argv, else the words quoted for
/// the shell, so the analyser reads exactly what would run.
fn shell_text(map: &Map<String, Value>, keys: &[&'static str]) -> Result<Option<String>, DecodeError> {
    for key in keys {
        match map.get(*key) {
            Some(Value::Array(items)) => {
                let words: Vec<&str> = items
                    .iter()
                    .map(Value::as_str)
                    .collect::<Option<_>>()
                    .ok_or(DecodeError::BadField(key))?;
                let shell = words.first().is_some_and(|w| {
                    matches!(w.rsplit('/').next(), Some("bash" | "sh" | "zsh" | "dash" | "ksh"))
                });
                if let [_, flag, script] = words.as_slice()
                    && shell
                    && flag.starts_with('-')
                    && flag.ends_with('c')
                {
                    return Ok(Some((*script).to_owned()));
                }
                return Ok(Some(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")));
            }
            _ => {
                if let Some(found) = text(map, &[key])? {
                    return Ok(Some(found));
                }
            }
        }
    }
    Ok(None)
}

/// One word quoted for a POSIX shell (unchanged when it needs no quotes).
pub(super) fn quote(word: &str) -> String {
    let plain =
        !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+%".contains(&b));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', "'\\''")) }
}

/// The user's own words of a Gemini CLI prompt: Gemini puts the context hooks gave earlier (at
/// session start) before the prompt it sends to `BeforeAgent` and `AfterAgent`, as
/// `<hook_context>…</hook_context>\n\n` blocks (seen from Gemini CLI 0.61.0 in the e2e suite).
/// Read whole, codeguard's own "every git commit and push is checked" made any prompt look like
/// a request to commit.
fn without_hook_context(text: &str) -> &str {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    let mut rest = text;
    while let Some(block) = rest.trim_start().strip_prefix(OPEN) {
        let Some(end) = block.find(CLOSE) else { break };
        rest = &block[end + CLOSE.len()..];
    }
    if rest.len() == text.len() { text } else { rest.trim_start() }
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

    /// ari's `input` and `session` are read only as what ari sends (an object, a string): the
    /// same names holding anything else in another host's payload are not its fields, and never
    /// make the payload an error (which would let the command through).
    #[test]
    fn aris_names_in_another_hosts_payload_are_not_an_error() {
        let odd =
            r#"{"tool_name":"Bash","tool_input":{"command":"git push"},"input":"text","session":{"id":1}}"#;
        let e = event(Host::Claude, Event::PreToolUse, odd);
        assert_eq!(e.tool, ToolCall::Shell { command: "git push".into() });
        assert_eq!(e.session_id, None);
        let ari =
            r#"{"event":"PreToolUse","tool":"sh","input":{"command":"git push"},"session":"s1","cwd":"/r"}"#;
        let e = event(Host::Ari, Event::PreToolUse, ari);
        assert_eq!(
            (e.tool, e.session_id.as_deref()),
            (ToolCall::Shell { command: "git push".into() }, Some("s1"))
        );
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
            (
                Host::Copilot,
                r#"{"toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Add File: /r/a.py\n+import os\n*** End Patch\n"}"#,
            ),
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
    fn a_gemini_prompt_is_read_without_the_hook_context_gemini_puts_before_it() {
        let prompt = |host: Host, text: &str| {
            let json = serde_json::json!({"hook_event_name": "BeforeAgent", "prompt": text}).to_string();
            event(host, Event::UserPromptSubmit, &json).prompt.expect("prompt")
        };
        let sent = "<hook_context>## codeguard\nEvery git commit and push is checked.\n</hook_context>\n\n\
                    <hook_context>other</hook_context>\n\nWhat does app.py do?";
        assert_eq!(prompt(Host::Gemini, sent), "What does app.py do?");
        assert_eq!(prompt(Host::Gemini, "Commit the staged change."), "Commit the staged change.");
        let unclosed = "<hook_context>no end\n\ncommit now";
        assert_eq!(prompt(Host::Gemini, unclosed), unclosed);
        assert_eq!(prompt(Host::Claude, sent), sent, "only Gemini wraps context this way");
    }

    #[test]
    fn an_argv_array_command_is_read_as_the_shell_would_run_it() {
        let shell = |payload: &str| match decode(Host::Codex, Event::PreToolUse, payload.as_bytes())
            .expect("ok")
            .tool
        {
            ToolCall::Shell { command } => command,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            shell(r#"{"tool_name":"shell","tool_input":{"command":["bash","-lc","git commit -m x"]}}"#),
            "git commit -m x"
        );
        assert_eq!(
            shell(r#"{"tool_name":"shell","tool_input":{"command":["git","commit","-m","a b"]}}"#),
            "git commit -m 'a b'"
        );
        assert!(
            decode(
                Host::Codex,
                Event::PreToolUse,
                br#"{"tool_name":"shell","tool_input":{"command":["git",5]}}"#
            )
            .is_err()
        );
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
