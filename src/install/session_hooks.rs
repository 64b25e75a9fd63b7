//! The backstop for agent sessions: a hooks directory of codeguard's that the host's shell
//! environment names as git's `core.hooksPath` (`GIT_CONFIG_COUNT=1`, `GIT_CONFIG_KEY_0=core.hooksPath`,
//! `GIT_CONFIG_VALUE_0=<dir>`), so every git the agent runs, in any repository, judges what lands
//! before a branch or tag moves (reference-transaction) and what leaves (pre-push), whichever
//! program moved it. Every other hook name runs the repository's own hook of that name, with its
//! arguments, stdin and exit code: the hooks directory git would use without the session's
//! entry (its `core.hooksPath` — husky, lefthook, pre-commit, prek — or `.git/hooks`).
//!
//! How the environment reaches the agent's shell is a host fact ([`SessionEnv`] in the host's
//! spec): Claude Code's settings `env` (which its hook commands see too), Codex's
//! `[shell_environment_policy.set]` (which they do not, so the gate reads the config).
//!
//! **Never:** arranges anything the user did not ask for with `install --host`; overwrites an
//! environment entry that is not ours (the install says the backstop is not arranged instead).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::git_hooks;
use super::hook_script::{self, Chain, MARKER};
use super::hosts::{self, HostInstallError};
use crate::env::Env;
use crate::host::Host;
use crate::host::spec::SessionEnv;
use crate::mode::GitHook;

/// The hooks git runs on the client side; each is in the session's directory, so none of the
/// repository's own is lost. Server-side hooks (and `push-to-checkout`, `proc-receive`, whose
/// mere presence changes git's behaviour) are not: git clears this configuration for a local
/// push's receiving end, and a remote never sees it.
pub(crate) const CLIENT_HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "reference-transaction",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "post-index-change",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
];

/// The environment entries that name the directory, in order.
pub(crate) const VARS: [&str; 3] = ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"];

/// The session hooks directory: `<state home>/git-hooks`.
pub(crate) fn dir(env: &Env) -> PathBuf {
    crate::state::home(env).join("git-hooks")
}

/// The values of [`VARS`] for `dir`.
pub(crate) fn values(dir: &Path) -> [String; 3] {
    ["1".to_owned(), "core.hooksPath".to_owned(), dir.display().to_string()]
}

/// The script for hook `name`: codeguard's judging hooks, or a hook that only runs the
/// repository's own.
pub(crate) fn script(name: &str, exe: &Path) -> String {
    match GitHook::ALL.iter().find(|h| h.file_name() == name && **h != GitHook::PreCommit) {
        Some(hook) => hook_script::script_in(*hook, exe, Chain::Repository),
        None => format!(
            "#!/bin/sh
{MARKER}
# Written by `codeguard install --host H` into codeguard's hooks directory for agent sessions,
# which the host's shell environment names as core.hooksPath (GIT_CONFIG_COUNT): this runs the
# repository's own {name} hook, if it has one, as git would have.
{}if [ -x \"$chained\" ]; then
  exec \"$chained\" \"$@\"
fi
exit 0
",
            hook_script::repository_hook(name)
        ),
    }
}

/// Writes every script into `dir` (created private) for `exe`; returns whether anything changed.
pub(crate) fn write(dir: &Path, exe: &Path) -> std::io::Result<bool> {
    crate::fs::ensure_private_dir(dir)?;
    let mut changed = false;
    for name in CLIENT_HOOKS {
        let path = dir.join(name);
        let text = script(name, exe);
        if std::fs::read_to_string(&path).is_ok_and(|t| t == text) && git_hooks::executable(&path) {
            continue;
        }
        crate::fs::write_atomic(&path, text.as_bytes(), crate::fs::Atomic::with_mode(0o755))?;
        changed = true;
    }
    Ok(changed)
}

/// Why `dir` is not the backstop this binary installs (`None`: every script is there, executable
/// and byte for byte what this codeguard writes, running this very binary).
pub(crate) fn problem(dir: &Path) -> Option<String> {
    for name in CLIENT_HOOKS {
        let path = dir.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Some(format!("{} is missing", path.display()));
        };
        // The judging scripts must run this very binary; the others name none.
        let exe = if text.contains("\ncodeguard=") {
            hook_script::runs_this_binary(&text)
        } else {
            Some(PathBuf::new())
        };
        if exe.is_none_or(|exe| text != script(name, &exe)) || !git_hooks::executable(&path) {
            return Some(format!("{} is not the script this codeguard writes", path.display()));
        }
    }
    None
}

/// Whether the environment `env` names `dir` exactly as the install arranges it.
pub(crate) fn named_by(env: &Env, dir: &Path) -> bool {
    VARS.iter()
        .zip(values(dir))
        .all(|(var, value)| env.get(var).is_some_and(|v| v.to_str() == Some(value.as_str())))
}

/// Whether the backstop stands for the agent shells of `host` in `session` (the one reading the
/// gate uses): the host's mechanism names the directory and every script in it is genuine.
/// `Some` carries the reason, for the gate's note.
pub(crate) fn in_place(host: Host, env: &Env, session: Option<&str>) -> Option<&'static str> {
    let dir = dir(env);
    let named = match crate::host::spec(host).session_env {
        SessionEnv::None => false,
        // The host's settings `env` reaches its hook commands as well as its shell.
        SessionEnv::SettingsEnv => named_by(env, &dir),
        // Codex reads its config when a session starts: a block written later (by the agent,
        // say) is not in this session's shell.
        SessionEnv::CodexShellPolicy => {
            session.is_some_and(|s| started_with(env, s)) && codex_config_arranged(env, &dir)
        }
    };
    (named && problem(&dir).is_none()).then_some(
        "codeguard's git backstop is in place for this agent's shell (its hooks directory judges the real content before any branch or tag moves, and what a push sends)",
    )
}

fn codex_config_arranged(env: &Env, dir: &Path) -> bool {
    super::codex::config_path(env)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .is_some_and(|text| codex_arranged(&text, dir))
}

/// Where the sessions that started with the backstop arranged are recorded.
fn started_file(env: &Env, session: &str) -> PathBuf {
    let key = blake3::hash(session.as_bytes()).to_hex();
    crate::state::home(env).join("session-backstop").join(key.as_str())
}

/// At a session's start (its `SessionStart` hook), records that the host's shell got the
/// backstop — for a host that reads it only then (Codex). Best effort: without the record the
/// gate does not count on the backstop.
pub(crate) fn record_start(host: Host, env: &Env, session: Option<&str>) {
    let Some(session) = session else { return };
    if crate::host::spec(host).session_env != SessionEnv::CodexShellPolicy
        || !codex_config_arranged(env, &dir(env))
    {
        return;
    }
    let file = started_file(env, session);
    if let Some(parent) = file.parent()
        && crate::fs::ensure_private_dir(parent).is_ok()
    {
        crate::state::sweep(
            parent,
            std::time::Duration::from_secs(crate::state::SESSION_RECORD_DAYS * 86_400),
        );
        let _ = crate::fs::write_private_unsynced(&file, b"1");
    }
}

fn started_with(env: &Env, session: &str) -> bool {
    started_file(env, session).is_file()
}

// ---- Claude Code: the settings file's `env` object ------------------------------------------

/// `settings` with the entries in its `env` object. `Err` when `env` already sets one of them to
/// something else (the user's own git configuration from the environment: not ours to replace).
pub(crate) fn json_merged(settings: &str, dir: &Path) -> Result<String, HostInstallError> {
    let mut root = object(settings)?;
    let env = root.entry("env").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(env) = env else {
        return Err(HostInstallError::Unreadable("`env` is not an object".into()));
    };
    for (var, value) in VARS.iter().zip(values(dir)) {
        match env.get(*var) {
            Some(Value::String(v)) if *v == value => {}
            Some(other) if !is_our_stale(env, dir) => {
                return Err(HostInstallError::Unsupported(format!(
                    "the settings' `env` already sets {var} ({other}); codeguard's backstop needs GIT_CONFIG_COUNT=1, GIT_CONFIG_KEY_0=core.hooksPath, GIT_CONFIG_VALUE_0={}",
                    dir.display()
                )));
            }
            _ => {
                env.insert((*var).to_owned(), Value::String(value));
            }
        }
    }
    Ok(hosts::pretty(&root))
}

/// An earlier install of ours with another directory (`CODEGUARD_HOME` moved): ours to replace.
/// A directory of someone else's is not: it must hold codeguard's own backstop script.
fn is_our_stale(env: &Map<String, Value>, dir: &Path) -> bool {
    let get = |k: &str| env.get(k).and_then(Value::as_str);
    get(VARS[0]) == Some("1")
        && get(VARS[1]) == Some("core.hooksPath")
        && get(VARS[2]).is_some_and(|v| {
            let named = Path::new(v);
            named != dir
                && std::fs::read_to_string(named.join(GitHook::ReferenceTransaction.file_name()))
                    .is_ok_and(|t| hook_script::is_ours(&t))
        })
}

/// `settings` without our entries (an `env` left empty goes).
pub(crate) fn json_stripped(settings: &str, dir: &Path) -> Result<String, HostInstallError> {
    let mut root = object(settings)?;
    let Some(Value::Object(env)) = root.get_mut("env") else { return Ok(settings.to_owned()) };
    let ours = VARS
        .iter()
        .zip(values(dir))
        .all(|(var, value)| env.get(*var).and_then(Value::as_str) == Some(&value))
        || is_our_stale(env, dir);
    if !ours {
        return Ok(settings.to_owned());
    }
    for var in VARS {
        env.remove(var);
    }
    if env.is_empty() {
        root.remove("env");
    }
    Ok(hosts::pretty(&root))
}

/// Whether a settings text arranges the backstop for `dir`.
pub(crate) fn json_arranged(settings: &str, dir: &Path) -> bool {
    let Ok(root) = object(settings) else { return false };
    let Some(Value::Object(env)) = root.get("env") else { return false };
    VARS.iter().zip(values(dir)).all(|(var, value)| env.get(*var).and_then(Value::as_str) == Some(&value))
}

fn object(text: &str) -> Result<Map<String, Value>, HostInstallError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(HostInstallError::Unreadable("the settings file is not a JSON object".into())),
    }
}

// ---- Codex: `[shell_environment_policy.set]` in the user's config.toml ----------------------

const CODEX_BEGIN: &str = "# codeguard-env:begin — codeguard's git backstop for the agent's shell, set by `codeguard install --host codex`; `codeguard uninstall --host codex` removes it";
const CODEX_END: &str = "# codeguard-env:end";

/// The config with our block (`Err`: the user's own `shell_environment_policy` sets variables or
/// filters them with `include_only`, which Codex applies after `set`; not ours to rewrite).
pub(crate) fn codex_merged(config: &str, dir: &Path) -> Result<String, HostInstallError> {
    let theirs = hosts::block_stripped(config, CODEX_BEGIN, CODEX_END);
    if let Some(why) = codex_conflict(&theirs) {
        return Err(HostInstallError::Unsupported(format!(
            "{why}; add GIT_CONFIG_COUNT = \"1\", GIT_CONFIG_KEY_0 = \"core.hooksPath\", GIT_CONFIG_VALUE_0 = {} to its `set` yourself",
            hosts::toml_string(&dir.display().to_string())
        )));
    }
    let mut body = String::from("[shell_environment_policy.set]\n");
    for (var, value) in VARS.iter().zip(values(dir)) {
        let _ = writeln!(body, "{var} = {}", hosts::toml_string(&value));
    }
    Ok(hosts::block_merged(config, CODEX_BEGIN, CODEX_END, &body))
}

/// The config without our block.
pub(crate) fn codex_stripped(config: &str) -> String {
    hosts::block_stripped(config, CODEX_BEGIN, CODEX_END)
}

/// Whether the config holds our block for `dir`, and nothing of the user's undoes it.
pub(crate) fn codex_arranged(config: &str, dir: &Path) -> bool {
    let (Some(begin), Some(end)) = (config.find(CODEX_BEGIN), config.find(CODEX_END)) else { return false };
    let block = &config[begin..end];
    let theirs = codex_stripped(config);
    codex_conflict(&theirs).is_none()
        && VARS
            .iter()
            .zip(values(dir))
            .all(|(var, value)| block.contains(&format!("{var} = {}\n", hosts::toml_string(&value))))
}

/// Why the user's own config keeps our `set` table from working (or from parsing).
fn codex_conflict(theirs: &str) -> Option<String> {
    let mut in_policy = false;
    for line in theirs.lines().map(str::trim) {
        if line.starts_with('[') {
            let table = line.trim_start_matches('[').trim_end_matches(']').trim();
            in_policy = table == "shell_environment_policy";
            if table.starts_with("shell_environment_policy.set") {
                return Some("the config already has a [shell_environment_policy.set] table".into());
            }
            continue;
        }
        let key = line.split('=').next().unwrap_or("").trim();
        if key.starts_with("shell_environment_policy") {
            return Some("the config sets shell_environment_policy inline".into());
        }
        if in_policy && (key == "set" || key.starts_with("set.")) {
            return Some("the config's [shell_environment_policy] already has `set`".into());
        }
        if in_policy && key == "include_only" {
            return Some(
                "the config's [shell_environment_policy] has `include_only`, which Codex applies after `set`"
                    .into(),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = "/home/u/.codeguard/git-hooks";

    #[test]
    fn every_client_hook_chains_and_only_the_judging_ones_run_codeguard() {
        let exe = Path::new("/opt/codeguard");
        for name in CLIENT_HOOKS {
            let text = script(name, exe);
            assert!(hook_script::is_ours(&text), "{name}");
            assert!(
                text.contains("GIT_CONFIG_COUNT=0 git rev-parse --git-path hooks 2>")
                    && text.contains(&format!("chained=${{hooks:+$hooks/{name}}}")),
                "{name} finds the repository's own hook: {text}"
            );
            let judges = text.contains("git-hook ");
            assert_eq!(judges, matches!(*name, "pre-push" | "reference-transaction"), "{name}");
        }
    }

    #[test]
    fn settings_env_is_merged_stripped_and_never_overwrites_the_users() {
        let dir = Path::new(DIR);
        let theirs = r#"{"env": {"FOO": "1"}, "model": "x"}"#;
        let merged = json_merged(theirs, dir).expect("merge");
        assert!(json_arranged(&merged, dir));
        assert_eq!(json_merged(&merged, dir).expect("again"), merged, "idempotent");
        let back: Value = serde_json::from_str(&json_stripped(&merged, dir).expect("strip")).expect("json");
        assert_eq!(back, serde_json::from_str::<Value>(theirs).expect("json"));
        let users = r#"{"env": {"GIT_CONFIG_COUNT": "2"}}"#;
        assert!(json_merged(users, dir).is_err(), "the user's own GIT_CONFIG_COUNT is left alone");
        // An earlier install of ours elsewhere is replaced; someone else's directory is not.
        let elsewhere = tempfile::tempdir().expect("dir");
        assert!(json_merged(&merged, elsewhere.path()).is_err(), "not codeguard's: left alone");
        let older = tempfile::tempdir().expect("dir");
        write(older.path(), Path::new("/opt/codeguard")).expect("write");
        let ours_there = json_merged(theirs, older.path()).expect("merge");
        let moved = json_merged(&ours_there, dir).expect("ours, moved");
        assert!(json_arranged(&moved, dir), "{moved}");
    }

    #[test]
    fn codex_block_is_refused_where_the_users_policy_would_clash_or_filter_it_out() {
        let dir = Path::new(DIR);
        let merged = codex_merged("model = \"o3\"\n\n[shell_environment_policy]\ninherit = \"core\"\n", dir)
            .expect("merge");
        assert!(codex_arranged(&merged, dir), "{merged}");
        assert_eq!(
            codex_stripped(&merged),
            "model = \"o3\"\n\n[shell_environment_policy]\ninherit = \"core\"\n"
        );
        for clash in [
            "[shell_environment_policy]\nset = { A = \"1\" }\n",
            "[shell_environment_policy.set]\nA = \"1\"\n",
            "[shell_environment_policy]\ninclude_only = [\"PATH\"]\n",
            "shell_environment_policy.inherit = \"all\"\n",
        ] {
            assert!(codex_merged(clash, dir).is_err(), "{clash}");
        }
    }
}
