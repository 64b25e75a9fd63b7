//! The README's table for people choosing a host: for each host, what codeguard does at each of
//! its events, where `install --host` writes, what `doctor --host` checks, and what proves it —
//! all read from the host's spec ([`crate::host::spec::HostSpec`]) and the install layer, so
//! the table cannot say what the code does not do (a test keeps README.md equal to it).

use std::fmt::Write as _;
use std::path::Path;

use crate::env::Env;
use crate::host::spec::{AskChannel, Delivery, DenyChannel, MatcherRule, SessionEnv, Tested, Trust};
use crate::host::{Event, Host};

/// The table as markdown. `version` gives the version `tests/e2e/run.sh` pins under a variable.
pub(crate) fn markdown(version: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::from(
        "| host | session start | prompt | before a tool | after an edit | stop | `install --host` writes | `doctor --host` checks | proven with |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for host in Host::ALL {
        let spec = crate::host::spec(host);
        let events: Vec<String> = Event::ALL.iter().map(|e| event_cell(host, *e)).collect();
        let (install, doctor) = match super::hosts::merged(host, None, Path::new("codeguard")) {
            Ok(_) => (install_cell(host), doctor_cell(host)),
            Err(_) if spec.hooks_file == crate::host::spec::HooksFile::GitHooksOnly => (
                "codeguard's git hooks (`pre-commit`, `pre-push`, the `reference-transaction` backstop) in the repository it runs in, or `--project DIR`'s: the host runs none of its own hooks".to_owned(),
                "that git runs codeguard's hooks in the current repository".to_owned(),
            ),
            Err(why) => (format!("nothing: {why}"), "—".to_owned()),
        };
        let proven = match spec.tested {
            Tested::Pinned { package, var } => match version(var) {
                Some(v) => format!("`{package}` {v}, the released package, in the e2e suite"),
                None => format!("`{package}` (pin `{var}` not found)"),
            },
            Tested::Without(why) => why.to_owned(),
        };
        let _ = writeln!(
            out,
            "| `{}` ({}) | {} | {install} | {doctor} | {proven} |",
            host.name(),
            spec.label,
            events.join(" | ")
        );
    }
    out
}

/// What codeguard does at one event of a host.
fn event_cell(host: Host, event: Event) -> String {
    let spec = crate::host::spec(host);
    let Some(name) = spec.event_name(event) else { return "—".to_owned() };
    if spec.hooks_file == crate::host::spec::HooksFile::GitHooksOnly {
        return match event {
            Event::PreToolUse => format!(
                "`{name}` never runs; git's hooks refuse a bad commit instead (the report is the command's output, to the model) — but not a `git push --no-verify`"
            ),
            _ => format!("`{name}` never runs"),
        };
    }
    let shown = |what: &str| match spec.delivery(event) {
        Delivery::Model => format!("{what} → the model"),
        Delivery::User => format!("{what} → the user"),
        Delivery::Ignored => format!("{what}, not shown (the host drops it)"),
    };
    let what = match event {
        Event::SessionStart => shown("the repository's languages and rules"),
        Event::UserPromptSubmit => shown("for a commit/push prompt, what would block"),
        Event::PreToolUse => {
            let deny = match spec.deny {
                DenyChannel::ExitTwo => "blocks a bad commit/push (exit 2, the report to the model)",
                DenyChannel::JsonDeny => "blocks a bad commit/push (a JSON deny with the report)",
                DenyChannel::Neutral => "denies a bad commit/push (the contract's response, exit 1)",
                DenyChannel::ReplaceCall => {
                    "blocks a bad commit/push (the call replaced by one that hands the report to the model)"
                }
            };
            let deny = match spec.hooks_file {
                crate::host::spec::HooksFile::JsPlugin(_) => {
                    format!(
                        "{deny}, through codeguard's plugin, which also refuses a call when codeguard cannot be run or does not answer in time"
                    )
                }
                _ => deny.to_owned(),
            };
            match spec.ask {
                AskChannel::None => deny,
                _ => format!("{deny}; puts an agent's lint bypass to the user"),
            }
        }
        Event::PostToolUse => shown("lints the edited file"),
        Event::Stop => shown("the session's summary"),
    };
    format!("`{name}`: {what}")
}

/// Where `install --host` writes for a host (user scope), and what else it arranges.
fn install_cell(host: Host) -> String {
    let spec = crate::host::spec(host);
    let env = Env::from_pairs([("HOME", "~")]);
    let files: Vec<String> = super::settings::paths(host, None, &env)
        .map(|paths| paths.iter().map(|p| format!("`{}`", p.display())).collect())
        .unwrap_or_default();
    let mut cell = files.join(" and ");
    match spec.trust {
        Trust::None => {}
        Trust::CodexHookState => cell.push_str(", with its hook-trust records"),
        Trust::GeminiFolder => cell.push_str(" (`--project` in an untrusted folder: `--trust-folder`)"),
        Trust::DshBridge => {
            cell.push_str(", and the entry inserting dsh's Claude-hooks bridge (the user's) in `~/.dsh/cordis.patch.yml`");
        }
    }
    match spec.session_env {
        SessionEnv::None => cell.push_str("; the git backstop: `install --git-hooks` per repository"),
        SessionEnv::SettingsEnv => cell.push_str("; the git backstop for its shell, in the settings' `env`"),
        SessionEnv::CodexShellPolicy => {
            cell.push_str("; the git backstop for its shell, in `[shell_environment_policy.set]`");
        }
    }
    cell
}

/// What `doctor --host` checks for a host.
fn doctor_cell(host: Host) -> String {
    let spec = crate::host::spec(host);
    let mut checks = vec!["every event registered where the host reads it".to_owned()];
    if spec.matcher != MatcherRule::None && spec.shell_matcher.is_some() {
        checks.push(format!("the matcher covers {}", spec.shell_tools.join(", ")));
    }
    match spec.trust {
        Trust::None => {}
        Trust::CodexHookState => checks.push("Codex's trust in each hook".to_owned()),
        Trust::GeminiFolder => checks.push("folder trust for a project install".to_owned()),
        Trust::DshBridge => checks.push("the patch layer inserts the bridge, which is there".to_owned()),
    }
    if let crate::host::spec::HooksFile::JsPlugin(_) = spec.hooks_file {
        checks.push("what else the host needs, and whether its plugins are switched off".to_owned());
    }
    checks.push("the installed command blocks a smoke commit".to_owned());
    if spec.session_env != SessionEnv::None {
        checks.push("the session backstop is arranged and genuine".to_owned());
    }
    checks.join("; ")
}

#[cfg(test)]
mod tests {
    /// README.md's host table is this one, with the versions `tests/e2e/run.sh` pins.
    #[test]
    fn the_readme_host_table_is_the_host_specs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pins = std::fs::read_to_string(root.join("tests/e2e/run.sh")).expect("run.sh");
        let version = |var: &str| {
            pins.lines().find_map(|l| l.strip_prefix(&format!("{var}="))).map(|v| v.trim().to_owned())
        };
        let table = super::markdown(&version);
        assert!(!table.contains("not found"), "a pin the table names is not in run.sh:\n{table}");
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
        let block = readme
            .split("<!-- hosts:begin -->\n")
            .nth(1)
            .and_then(|rest| rest.split("<!-- hosts:end -->").next())
            .expect("README.md has a hosts block");
        if block != table {
            let _ = std::fs::write(root.join("target/hosts-table.md"), &table);
        }
        assert_eq!(
            block, table,
            "README.md's host table is not the host specs' (new one: target/hosts-table.md)"
        );
    }
}
