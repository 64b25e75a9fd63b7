//! The git configuration values codeguard reads, as gix resolves them (the repository's config
//! over the user's and the system's).
//!
//! **In:** an opened repository (or, for [`alias`], a directory). **Out:** values.
//! **Never:** writes config, or reads a value a repository cannot be trusted with as a path
//! (`core.hooksPath` is read as a trusted path: only from config files gix trusts).

use std::path::{Path, PathBuf};

use super::Error;

/// `core.hooksPath` as configured (relative paths as written; git takes them relative to the
/// worktree root), `None` when unset.
pub(crate) fn hooks_path(repo: &gix::Repository) -> Result<Option<PathBuf>, Error> {
    repo.config_snapshot()
        .trusted_path("core.hooksPath")
        .map_err(|e| Error::Config { key: "core.hooksPath", message: e.to_string() })
}

/// A boolean value (`codeguard.skipGate`), `None` when unset or not a boolean.
pub(crate) fn boolean(repo: &gix::Repository, key: &str) -> Option<bool> {
    repo.config_snapshot().boolean(key)
}

/// A config value as git reads it as a boolean: a bare key (no `=`, `value` `None`) is true;
/// `true`/`yes`/`on`, `false`/`no`/`off` and the empty value (false) in any case, and any
/// integer (`0` false, others true); `None` for anything else (each caller decides what that
/// means). The same reading as [`boolean`]'s, for values found outside a config file (the git
/// hook's `git config` output, a command's `-c key=value`).
pub(crate) fn parse_boolean(value: Option<&str>) -> Option<bool> {
    value.map_or(Some(true), |v| gix::config::Boolean::try_from(v).ok().map(gix::config::Boolean::is_true))
}

/// Every value of a multi-valued key (`remote.origin.push`), in order; empty when unset.
pub(crate) fn strings(repo: &gix::Repository, key: &str) -> Vec<String> {
    repo.config_snapshot()
        .strings(key)
        .map(|values| values.iter().map(std::string::ToString::to_string).collect())
        .unwrap_or_default()
}

/// A string value (`push.default`), `None` when unset.
pub(crate) fn string(repo: &gix::Repository, key: &str) -> Option<String> {
    repo.config_snapshot().string(key).map(|v| v.to_string())
}

/// The value of `alias.NAME` as git would read it in `dir`: the config of the repository
/// containing `dir` with the user's and the system config under it, or only those two outside a
/// repository.
pub(crate) fn alias(dir: &Path, name: &str) -> Option<String> {
    let value = match super::discover(dir) {
        Ok(repo) => repo.config_snapshot().plumbing().string_by("alias", None, name),
        Err(_) => gix::config::File::from_globals().ok()?.string_by("alias", None, name),
    };
    value.map(|v| v.to_string())
}

/// The directory git runs hooks from in `repo`: `core.hooksPath` (a relative one from the
/// worktree root, or the git directory of a bare repository), else the common `hooks` directory.
pub(crate) fn hooks_dir(repo: &gix::Repository) -> Result<PathBuf, Error> {
    Ok(match hooks_path(repo)? {
        Some(path) if path.is_absolute() => path,
        Some(path) => repo.workdir().unwrap_or_else(|| repo.git_dir()).join(path),
        None => repo.common_dir().join("hooks"),
    })
}

/// Deadline for asking git for its configuration.
const CONFIG_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// The entries whose keys match `regex`, as git itself reads them in `root` under `env`: every
/// config file and the `git -c` values git hands to a hook (which only git can see). The text of
/// `git config --null --get-regexp` (`key\nvalue\0`, or `key\0` for a key without a value);
/// `None` when nothing matches.
pub(crate) fn as_git_reads(
    root: &Path,
    env: &crate::env::Env,
    regex: &'static str,
) -> Result<Option<String>, Error> {
    use crate::process::{Cmd, Ending};
    let argv = ["git", "config", "--null", "--get-regexp", regex].map(str::to_owned).to_vec();
    let vars = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let finished = Cmd::new(argv, root.to_path_buf(), vars, CONFIG_DEADLINE).run();
    match &finished.ending {
        Ending::Exited(0) => Ok(Some(finished.text())),
        Ending::Exited(1) => Ok(None),
        other => Err(Error::Config {
            key: regex,
            message: format!("git config failed ({other:?}): {}", finished.text().trim()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_read_as_git_reads_them() {
        for (value, expected) in [
            (None, Some(true)),
            (Some("on"), Some(true)),
            (Some("Yes"), Some(true)),
            (Some("TRUE"), Some(true)),
            (Some("2"), Some(true)),
            (Some("-1"), Some(true)),
            (Some("1k"), Some(true)),
            (Some("OFF"), Some(false)),
            (Some("0"), Some(false)),
            (Some(""), Some(false)),
            (Some("maybe"), None),
        ] {
            assert_eq!(parse_boolean(value), expected, "{value:?}");
        }
    }
}
