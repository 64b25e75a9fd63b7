//! codeguard's own JavaScript plugin for hosts that load plugins in their process instead of
//! running hook commands (opencode and its fork Kilo, pi), and its own hook scripts for hosts
//! that run a file per event from a directory (Cline).
//!
//! **In:** a host, its plugin interface and the hook entries `install` registers, in Claude's
//! JSON shape. **Out:** one dependency-free ES module: a marker line, the entries as JSON on one
//! line (`const HOOKS = …;`, what `doctor` and `uninstall` read back), the runner shared by every
//! plugin host (`plugin/runner.js`: run an entry's command with the payload on stdin, exit 2
//! blocks, the context comes back as `hookSpecificOutput.additionalContext`) and the host's own
//! glue (`plugin/opencode.js`, `plugin/pi.js`), which turns its plugin events into payloads and
//! answers into its block and context channels. The file is wholly codeguard's: install writes
//! it only where no other file is, or over an earlier one of its own; uninstall removes it.
//!
//! A hook script is a `/bin/sh` script with the same marker and entries (as a comment), which
//! runs the entry of the event its own file name names.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::host::Host;
use crate::host::spec::PluginApi;

/// The first line of every plugin file codeguard writes.
const MARKER: &str = "// codeguard: managed plugin";
/// Where the entries sit.
const HOOKS_PREFIX: &str = "const HOOKS = ";

const RUNNER: &str = include_str!("plugin/runner.js");
const OPENCODE: &str = include_str!("plugin/opencode.js");
const PI: &str = include_str!("plugin/pi.js");

/// The plugin file for `host`, running `hooks` (an object of event names to Claude-shaped
/// handler groups).
pub(crate) fn text(host: Host, api: PluginApi, hooks: &Map<String, Value>) -> String {
    let name = host.name();
    let glue = match api {
        PluginApi::Opencode => OPENCODE,
        PluginApi::Pi => PI,
    };
    let hooks = serde_json::to_string(hooks).unwrap_or_else(|_| "{}".to_owned());
    format!(
        "{MARKER} for {label}, written by `codeguard install --host {name}`;\n\
         // `codeguard uninstall --host {name}` removes it, and install rewrites it: do not edit.\n\
         {HOOKS_PREFIX}{hooks};\n\n{RUNNER}\n{glue}",
        label = crate::host::spec(host).label,
    )
}

/// The first line after the interpreter line of every hook script codeguard writes.
const SCRIPT_MARKER: &str = "#!/bin/sh\n# codeguard: managed hook script";
/// Where a script's entries sit.
const SCRIPT_HOOKS_PREFIX: &str = "# HOOKS = ";

/// The hook script for `host`: run as `FILE` (named as one of the host's events, `hooks`' keys),
/// it runs that event's entry. A pre-tool-use entry that fails, prints nothing and exits
/// non-zero stops the call with the host's own stop (`fail_closed`, printed on stdout): the
/// host would otherwise run it.
pub(crate) fn script(host: Host, hooks: &Map<String, Value>, fail_closed: &str) -> String {
    let name = host.name();
    let mut arms = String::new();
    for (event, groups) in hooks {
        let command = groups
            .pointer("/0/hooks/0/command")
            .and_then(Value::as_str)
            .unwrap_or("echo 'codeguard: no command' >&2; exit 1");
        let guard = if crate::host::Event::from_name(event) == Some(crate::host::Event::PreToolUse) {
            format!(" || printf '%s\\n' '{}'", fail_closed.replace('\'', r"'\''"))
        } else {
            String::new()
        };
        let _ = writeln!(arms, "  {event}) {command}{guard} ;;");
    }
    let hooks = serde_json::to_string(hooks).unwrap_or_else(|_| "{}".to_owned());
    format!(
        "{SCRIPT_MARKER} for {label}, written by `codeguard install --host {name}`;\n\
         # `codeguard uninstall --host {name}` removes it, and install rewrites it: do not edit.\n\
         {SCRIPT_HOOKS_PREFIX}{hooks}\n\
         case \"${{0##*/}}\" in\n{arms}esac\n",
        label = crate::host::spec(host).label,
    )
}

/// Whether `text` is a plugin file or hook script codeguard wrote.
pub(crate) fn is_ours(text: &str) -> bool {
    text.starts_with(MARKER) || text.starts_with(SCRIPT_MARKER)
}

/// The hook entries a plugin file of codeguard's carries (`None`: not one, or unreadable).
pub(crate) fn hooks(text: &str) -> Option<Map<String, Value>> {
    if !is_ours(text) {
        return None;
    }
    let line = text.lines().find_map(|l| {
        l.strip_prefix(HOOKS_PREFIX)
            .and_then(|l| l.strip_suffix(';'))
            .or_else(|| l.strip_prefix(SCRIPT_HOOKS_PREFIX))
    })?;
    match serde_json::from_str(line) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entries_read_back_as_written() {
        let hooks: Map<String, Value> =
            serde_json::from_str(r#"{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"'/a b/codeguard' hook pre-tool-use --host pi","timeout":120}]}]}"#)
                .expect("json");
        let text = text(Host::Pi, PluginApi::Pi, &hooks);
        assert!(is_ours(&text));
        assert_eq!(super::hooks(&text), Some(hooks));
        assert_eq!(super::hooks("const HOOKS = {};"), None, "not ours without the marker");
    }
}
