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

/// One `CODEGUARD_*` variable codeguard reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Variable {
    /// The name.
    pub name: &'static str,
    /// Who may set it.
    pub who: &'static str,
    /// What it does.
    pub what: &'static str,
}

/// Every `CODEGUARD_*` variable codeguard reads, in one place (README.md's table is made from
/// it and a test keeps both equal to the names the source reads). An agent's command that sets
/// any of them is blocked (`bash::effects::guard_variable`): they are the user's.
pub(crate) const VARIABLES: &[Variable] = &[
    Variable {
        name: "CODEGUARD_HOME",
        who: "the user (shell profile, host settings)",
        what: "where codeguard keeps its state, caches and managed tools (default `~/.codeguard`)",
    },
    Variable {
        name: "CODEGUARD_SKIP_GATE",
        who: "the user, for one command in their own terminal",
        what: "`1`: the agent gate and git's hooks check nothing (git's backstop still runs the safety scan); every use is audited and reported",
    },
    Variable {
        name: "CODEGUARD_NO_INSTALL",
        who: "the user",
        what: "`1`: `check` and `install` never download managed tools",
    },
    Variable {
        name: "CODEGUARD_GATE_BUDGET_SECS",
        who: "the user (host settings)",
        what: "the agent gate's overall time budget (default 100 s)",
    },
    Variable {
        name: "CODEGUARD_SNAPSHOT_MAX_FILES",
        who: "the user",
        what: "most files one snapshot writes (default 250,000)",
    },
    Variable {
        name: "CODEGUARD_SNAPSHOT_MAX_BYTES",
        who: "the user",
        what: "most bytes one snapshot writes (default 2 GiB)",
    },
    Variable {
        name: "CODEGUARD_TREE_CACHE_FROM",
        who: "the user",
        what: "contents of at least this many entries are linked from the base-tree cache (default 2,000)",
    },
    Variable {
        name: "CODEGUARD_IDENTITY_MAX_FILES",
        who: "the user",
        what: "most files a content identity reads for the soft cache",
    },
    Variable {
        name: "CODEGUARD_IDENTITY_MAX_BYTES",
        who: "the user",
        what: "most bytes a content identity reads for the soft cache",
    },
    Variable {
        name: "CODEGUARD_SOFT_CACHE_TTL_SECS",
        who: "the user",
        what: "how long a soft-gate result is reused",
    },
    Variable {
        name: "CODEGUARD_SUPERVISOR",
        who: "codeguard itself (set on every linter it runs)",
        what: "marks the processes of one supervised run, so the watchdog finds what escaped",
    },
];

/// README.md's table of [`VARIABLES`].
#[cfg(test)]
pub(crate) fn variables_table() -> String {
    use std::fmt::Write as _;
    let mut out = String::from("| variable | who may set it | what it does |\n|---|---|---|\n");
    for v in VARIABLES {
        let _ = writeln!(out, "| `{}` | {} | {} |", v.name, v.who, v.what);
    }
    out
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

    /// The table holds exactly the `CODEGUARD_*` names the source reads, and README.md shows it.
    #[test]
    fn every_variable_codeguard_reads_is_in_the_one_table_and_the_readme() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let named = regex::Regex::new(r#""(CODEGUARD_[A-Z_]+)""#).expect("regex");
        let mut read = std::collections::BTreeSet::new();
        for entry in walkdir::WalkDir::new(root.join("src")).into_iter().filter_map(Result::ok) {
            // env.rs holds the table itself.
            if entry.path().extension().is_some_and(|e| e == "rs") && !entry.path().ends_with("src/env.rs") {
                let text = std::fs::read_to_string(entry.path()).expect("source");
                read.extend(named.captures_iter(&text).map(|c| c[1].to_owned()));
            }
        }
        let listed: std::collections::BTreeSet<String> =
            VARIABLES.iter().map(|v| v.name.to_owned()).collect();
        assert_eq!(read, listed, "the variables the source reads and env::VARIABLES differ");
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
        let block = readme
            .split("<!-- variables:begin -->\n")
            .nth(1)
            .and_then(|rest| rest.split("<!-- variables:end -->").next())
            .expect("README.md has a variables block");
        assert_eq!(block, variables_table(), "README.md's variables table is not env::VARIABLES");
    }
}
