//! The only reader of the process environment.
//!
//! Every stage that needs an environment variable takes an [`Env`] value, so tests inject one
//! instead of mutating process-wide state. Nothing here writes the environment.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The process's current directory (where a command was started, or a hook's fallback when the
/// host sent no `cwd`).
pub(crate) fn current_dir() -> std::io::Result<std::path::PathBuf> {
    #[expect(clippy::disallowed_methods, reason = "env.rs is the one reader of the process's surroundings")]
    std::env::current_dir()
}

/// The system's directory for temporary files (`TMPDIR`, else `/tmp`).
pub(crate) fn temp_dir() -> std::path::PathBuf {
    #[expect(clippy::disallowed_methods, reason = "env.rs is the one reader of the process's surroundings")]
    std::env::temp_dir()
}

/// A frozen view of the environment variables codeguard reads.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, OsString>,
}

impl Env {
    /// Captures the current process environment.
    #[expect(clippy::disallowed_methods, reason = "the one reader of the process environment")]
    pub fn from_process() -> Self {
        Self::from_pairs(std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v))))
    }

    /// Builds an environment from explicit pairs (for tests and child processes).
    pub fn from_pairs<K: Into<String>, V: Into<OsString>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        Self { vars: pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }

    /// The raw value of a variable, if set.
    pub fn get(&self, key: &str) -> Option<&OsString> {
        self.vars.get(key)
    }

    /// The value of a variable as UTF-8 text, if set and valid.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(|v| v.to_str())
    }

    /// Whether a variable holds one of the truthy words of a switch ([`parse_bool`]: `1`,
    /// `true`, `yes`, case-insensitive). `0`, `false` and anything else are not truthy.
    pub fn is_truthy(&self, key: &str) -> bool {
        self.text(key).is_some_and(|v| parse_bool(v) == Some(true))
    }

    /// Finds an executable by name on `PATH` (or returns the path itself when it contains a slash
    /// and is executable).
    pub fn which(&self, program: &str) -> Option<PathBuf> {
        if program.contains('/') {
            let p = PathBuf::from(program);
            return is_executable(&p).then_some(p);
        }
        search_path(self.get("PATH")?, program)
    }

    /// The user's home directory.
    pub fn home(&self) -> Option<PathBuf> {
        self.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
    }

    /// All variables, for handing to a child process.
    pub fn vars(&self) -> impl Iterator<Item = (&String, &OsString)> {
        self.vars.iter()
    }
}

/// The one reader of codeguard's own switches (`CODEGUARD_SKIP_GATE`, `CODEGUARD_NO_INSTALL`;
/// the hard-gate spec): `Some(true)` for `1`, `true`, `yes`, `Some(false)` for `0`, `false`,
/// `no` (case-insensitive, surrounding whitespace ignored), `None` for anything else — each
/// caller decides what a value that is no switch word means. Git's booleans are git's:
/// `crate::git::config::parse_boolean`.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// The first executable regular file named `program` in the absolute directories of `path` (a
/// `PATH` value). A relative directory (`.venv/bin`, `node_modules/.bin`, `./bin`, the empty one)
/// names a different place in every directory a tool runs in — inside a repository, the
/// repository's own programs — so it never resolves one.
pub(crate) fn search_path(path: &OsStr, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// `path` (a `PATH` value) without its relative directories (see [`search_path`]).
pub(crate) fn absolute_path_entries(path: &OsStr) -> std::ffi::OsString {
    let dirs: Vec<PathBuf> = std::env::split_paths(path).filter(|d| d.is_absolute()).collect();
    std::env::join_paths(dirs).unwrap_or_default()
}

fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthy_words_are_strict() {
        for (value, expected) in [
            ("1", true),
            ("TRUE", true),
            ("yes", true),
            ("0", false),
            ("false", false),
            ("no", false),
            ("", false),
        ] {
            let env = Env::from_pairs([("X", value)]);
            assert_eq!(env.is_truthy("X"), expected, "{value:?}");
        }
        assert!(!Env::default().is_truthy("X"));
        assert!(!Env::from_pairs([("X", "on")]).is_truthy("X"), "on/off are git's words only");
    }

    #[test]
    fn switch_words_and_anything_else_is_none() {
        // Git's own words (`on`, `off`, integers, the empty value) are `git::config::parse_boolean`'s.
        for (text, expected) in [
            (" Yes ", Some(true)),
            ("0", Some(false)),
            ("no", Some(false)),
            ("on", None),
            ("", None),
            ("maybe", None),
            ("2", None),
        ] {
            assert_eq!(parse_bool(text), expected, "{text:?}");
        }
    }
}
