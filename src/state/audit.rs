//! The audit log: one JSON object per line, bounded to the last [`KEEP`] lines.
//!
//! **In:** records (bypasses of the gate, decisions). **Out:** `audit.jsonl` in the state
//! directory, and readers for `codeguard state show` and the Stop hook's per-session summary.
//! **Never:** records a command's text — it may carry secrets; a bypass is recorded by kind,
//! repository, session and time only.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;

/// The bypass and decision audit log (JSON lines, bounded).
pub(crate) const AUDIT_FILE: &str = "audit.jsonl";

/// Lines kept in the audit log.
pub(crate) const KEEP: usize = 500;

/// How the gate was bypassed: the one type for the audit log, `crate::intent` (which finds the
/// `codeguard.skipGate` kinds) and the gate's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BypassKind {
    /// `CODEGUARD_SKIP_GATE` in the hook's own environment: the only full bypass.
    Env,
    /// `git -c codeguard.skipGate=true …`: linters skipped, safety scan ran (a host that cannot
    /// ask its user).
    Inline,
    /// `git -c codeguard.skipGate=true …` with failing linters, put to the user through the
    /// host's own confirmation (whose answer codeguard does not see).
    Asked,
    /// `git config codeguard.skipGate true && … git commit`: linters skipped, safety scan ran.
    Chain,
    /// `codeguard.skipGate` set in the repository's config: linters skipped, safety scan ran.
    Persisted,
    /// The command ran outside any repository and the child repositories the monorepo fallback
    /// found had nothing to check.
    Fallback,
}

impl BypassKind {
    /// What the kind means, for the people reading the Stop summary and `state show`.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Env => "CODEGUARD_SKIP_GATE: nothing was checked",
            Self::Inline => {
                "the agent's `git -c codeguard.skipGate=true`: linters skipped (this host cannot ask you first)"
            }
            Self::Asked => {
                "the agent's `git -c codeguard.skipGate=true` with lint failures, put to you to confirm"
            }
            Self::Chain => "`git config codeguard.skipGate true` in the same command: linters skipped",
            Self::Persisted => "codeguard.skipGate set in the repository's config: linters skipped",
            Self::Fallback => "run outside any repository; the child repositories had nothing to check",
        }
    }

    /// The kind as written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Env => "env",
            Self::Inline => "inline",
            Self::Asked => "asked",
            Self::Chain => "chain",
            Self::Persisted => "persisted",
            Self::Fallback => "fallback",
        }
    }
}

/// One recorded bypass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Bypass {
    /// When, in milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// Always `"bypass"` (the log may hold other record kinds).
    pub event: String,
    /// How.
    pub kind: BypassKind,
    /// The repository (or the directory, for `env` and `fallback`).
    pub repo: PathBuf,
    /// The host's session id, when the hook was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Appends one record to the audit log, keeping the last [`KEEP`] lines only.
pub(crate) fn audit(env: &Env, record: &serde_json::Value) -> std::io::Result<()> {
    let path = super::home(env).join(AUDIT_FILE);
    super::with_lock(&path, || {
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines: Vec<&str> = existing.lines().filter(|l| !l.trim().is_empty()).collect();
        let new_line = record.to_string();
        lines.push(&new_line);
        let start = lines.len().saturating_sub(KEEP);
        let mut text = lines[start..].join("\n");
        text.push('\n');
        crate::fs::write_private(&path, text.as_bytes())
    })
}

/// Records a bypass of the gate (kind, repository, session, time — never the command).
pub(crate) fn record_bypass(
    env: &Env,
    kind: BypassKind,
    repo: &Path,
    session: Option<&str>,
) -> std::io::Result<()> {
    let record = Bypass {
        ts_ms: super::now_ms(),
        event: "bypass".into(),
        kind,
        repo: repo.to_path_buf(),
        session: session.map(str::to_owned),
    };
    audit(env, &serde_json::to_value(&record).map_err(std::io::Error::other)?)
}

/// One commit or push of an agent's that changed lint rule configuration and was let through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RuleChangeRecord {
    /// When, in milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// Always `"rules"`.
    pub event: String,
    /// The repository.
    pub repo: PathBuf,
    /// The host's session id, when the hook was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The rule files it changed (names only, never their text).
    pub files: Vec<String>,
}

/// Records that an agent's commit or push changing the rule files `files` was let through.
pub(crate) fn record_rule_change(
    env: &Env,
    repo: &Path,
    session: Option<&str>,
    files: &[&str],
) -> std::io::Result<()> {
    let record = RuleChangeRecord {
        ts_ms: super::now_ms(),
        event: "rules".into(),
        repo: repo.to_path_buf(),
        session: session.map(str::to_owned),
        files: files.iter().map(|f| (*f).to_owned()).collect(),
    };
    audit(env, &serde_json::to_value(&record).map_err(std::io::Error::other)?)
}

/// The recorded rule changes, oldest first; with `session`, only those of that session.
pub(crate) fn rule_changes(env: &Env, session: Option<&str>) -> Vec<RuleChangeRecord> {
    of_event(env, "rules", session)
}

/// The records of one `event` that read as `T`, oldest first; with `session`, only that
/// session's.
fn of_event<T: serde::de::DeserializeOwned>(env: &Env, event: &str, session: Option<&str>) -> Vec<T> {
    records(env)
        .into_iter()
        .filter(|v| v["event"] == event && (session.is_none() || v["session"].as_str() == session))
        .filter_map(|v| serde_json::from_value::<T>(v).ok())
        .collect()
}

/// Every record of the audit log that parses as a JSON object, oldest first.
pub(crate) fn records(env: &Env) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(super::home(env).join(AUDIT_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(serde_json::Value::is_object)
        .collect()
}

/// The recorded bypasses, oldest first; with `session`, only those of that session.
pub(crate) fn bypasses(env: &Env, session: Option<&str>) -> Vec<Bypass> {
    of_event(env, "bypass", session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_is_bounded_and_survives_concurrent_writers() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = crate::state::test_env(tmp.path());
        std::thread::scope(|scope| {
            for t in 0..4 {
                let env = &env;
                scope.spawn(move || {
                    for i in 0..100 {
                        audit(env, &serde_json::json!({"t": t, "i": i})).expect("audit");
                    }
                });
            }
        });
        let text = std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("log");
        assert_eq!(text.lines().count(), 400, "no update lost under the lock");
        assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
        for i in 0..150 {
            audit(&env, &serde_json::json!({"more": i})).expect("audit");
        }
        let text = std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("log");
        assert_eq!(text.lines().count(), KEEP, "bounded");
        assert!(text.ends_with("{\"more\":149}\n"));
    }

    #[test]
    fn bypasses_are_read_back_per_session_and_never_hold_a_command() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = crate::state::test_env(tmp.path());
        record_bypass(&env, BypassKind::Env, Path::new("/r"), Some("s1")).expect("a");
        audit(&env, &serde_json::json!({"event": "other"})).expect("b");
        std::fs::write(
            tmp.path().join(AUDIT_FILE),
            std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("read") + "garbage\n",
        )
        .expect("corrupt line");
        record_bypass(&env, BypassKind::Inline, Path::new("/r"), Some("s2")).expect("c");
        record_bypass(&env, BypassKind::Fallback, Path::new("/d"), None).expect("d");
        let all = bypasses(&env, None);
        assert_eq!(
            all.iter().map(|b| b.kind).collect::<Vec<_>>(),
            [BypassKind::Env, BypassKind::Inline, BypassKind::Fallback]
        );
        let s2 = bypasses(&env, Some("s2"));
        assert_eq!(s2.len(), 1);
        assert_eq!(s2[0].repo, Path::new("/r"));
        let text = std::fs::read_to_string(tmp.path().join(AUDIT_FILE)).expect("log");
        assert!(!text.contains("command"), "{text}");
    }
}
