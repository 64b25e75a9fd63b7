//! `codeguard state show|clear`: inspect and reset codeguard's state directory.
//!
//! `show` prints the sessions' statistics, the recorded bypasses, the dedup and cache entry
//! counts and the trust decisions (human text, or one JSON document). `clear` deletes session
//! statistics, dedup records, pending edits and caches; it never deletes trust decisions (use `untrust`) or the
//! audit log (an agent able to run `clear` must not be able to hide its bypasses).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use crate::cli::{Format, StateAction, StateArgs};
use crate::env::Env;
use crate::output::Output;
use crate::state::audit::Bypass;
use crate::state::session::SessionStats;
use crate::state::{self, audit, dedup, session};
use crate::trust::Decision;

/// Runs `state show` or `state clear` and returns the exit code.
pub(super) fn run(args: &StateArgs, env: &Env) -> anyhow::Result<Output> {
    let text = match &args.action {
        StateAction::Show { session, format } => {
            let view = View::gather(env, session.as_deref());
            match format {
                Format::Human | Format::Sarif => view.human(),
                Format::Json => serde_json::to_string_pretty(&view)? + "\n",
            }
        }
        StateAction::Clear { session } => clear(env, session.as_deref())?,
    };
    Ok(Output::stdout(text, crate::exit::success()))
}

/// Everything `show` prints.
#[derive(Debug, Serialize)]
struct View {
    schema_version: &'static str,
    home: PathBuf,
    sessions: Vec<SessionStats>,
    bypasses: Vec<Bypass>,
    rule_changes: Vec<audit::RuleChangeRecord>,
    dedup: Vec<DedupCount>,
    soft_cache_entries: usize,
    /// Per-file lint results kept (`cache::file_results`).
    file_results: usize,
    trust: Vec<TrustEntry>,
}

#[derive(Debug, Serialize)]
struct DedupCount {
    file: &'static str,
    entries: usize,
}

#[derive(Debug, Serialize)]
struct TrustEntry {
    root: PathBuf,
    #[serde(flatten)]
    decision: Decision,
}

impl View {
    fn gather(env: &Env, only: Option<&str>) -> Self {
        let sessions = session::list(env)
            .into_iter()
            .map(|(_, stats)| stats)
            .filter(|s| only.is_none() || s.session.as_deref() == only)
            .collect();
        Self {
            schema_version: crate::report::SCHEMA_VERSION,
            home: state::home(env),
            sessions,
            bypasses: audit::bypasses(env, only),
            rule_changes: audit::rule_changes(env, only),
            dedup: dedup::counts(env)
                .into_iter()
                .map(|(file, entries)| DedupCount { file, entries })
                .collect(),
            soft_cache_entries: crate::cache::soft::count(env),
            file_results: crate::cache::file_results::count(env),
            trust: crate::trust::decisions(env)
                .into_iter()
                .map(|(root, decision)| TrustEntry { root, decision })
                .collect(),
        }
    }

    fn human(&self) -> String {
        let mut out = format!("codeguard state: {}\n", self.home.display());
        let _ = writeln!(out, "sessions: {}", self.sessions.len());
        for s in &self.sessions {
            let worktree = s.worktree.as_ref().map_or_else(String::new, |w| w.display().to_string());
            let _ = writeln!(out, "  {} in {worktree}", s.session.as_deref().unwrap_or("(no session id)"));
            for (lang, n) in &s.languages {
                let _ = writeln!(
                    out,
                    "    {lang}: {} checks, {} passed, {} failed, {} unverified, {} auto-fixed",
                    n.total, n.passed, n.failed, n.unverified, n.auto_fixed
                );
            }
        }
        let _ = writeln!(out, "bypasses recorded: {}", self.bypasses.len());
        for b in &self.bypasses {
            let session = b.session.as_deref().unwrap_or("-");
            let _ = writeln!(
                out,
                "  {} {} session {session} at {} ms ({})",
                b.kind.as_str(),
                b.repo.display(),
                b.ts_ms,
                b.kind.meaning()
            );
        }
        let _ = writeln!(out, "lint rule changes let through: {}", self.rule_changes.len());
        for r in &self.rule_changes {
            let session = r.session.as_deref().unwrap_or("-");
            let _ = writeln!(
                out,
                "  {} {} session {session} at {} ms",
                r.files.join(","),
                r.repo.display(),
                r.ts_ms
            );
        }
        let counts: Vec<String> = self.dedup.iter().map(|d| format!("{} {}", d.file, d.entries)).collect();
        let _ = writeln!(out, "dedup entries: {}", counts.join(", "));
        let _ = writeln!(out, "soft cache entries: {}", self.soft_cache_entries);
        let _ = writeln!(out, "per-file lint results kept: {}", self.file_results);
        let _ = writeln!(out, "workspaces: {}", self.trust.len());
        for t in &self.trust {
            let word = if t.decision.trusted { "trusted" } else { "untrusted" };
            let _ = writeln!(out, "  {word} {}", t.root.display());
        }
        out
    }
}

fn clear(env: &Env, session: Option<&str>) -> anyhow::Result<String> {
    let sessions = session::clear(env, session).context("removing session statistics")?;
    if session.is_some() {
        return Ok(format!("codeguard: removed {sessions} session file(s)\n"));
    }
    dedup::clear(env).context("removing dedup records")?;
    state::pending::clear(env).context("removing pending edits")?;
    let caches = crate::cache::soft::clear(env).context("removing caches")?
        + crate::cache::file_results::clear(env).context("removing per-file lint results")?;
    Ok(format!(
        "codeguard: removed {sessions} session file(s), the dedup records, the pending edits and {caches} cache file(s); trust decisions and the audit log are kept\n"
    ))
}
