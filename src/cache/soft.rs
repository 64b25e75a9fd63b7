//! The soft result cache: a complete check result, reused while nothing it depended on changed.
//!
//! **Key:** the content identity of the worktree ([`super::identity`]), the plan (languages,
//! exact argv lists, files, skips — which carries the effective `codeguard.json`, the registry
//! commands and the trust decision), the effective registry, the tools and environment
//! ([`super::tool_identity`]), and what was asked (scope/lanes, language subset). **Stored:** only
//! complete results (every language PASS, FAIL or SKIPPED — never UNVERIFIED or PLANNED) whose
//! worktree identity, recomputed after the run, is the one the run started from; at most
//! [`KEEP`] entries per worktree, each valid for the TTL. **Used by** `codeguard check` and the
//! `UserPromptSubmit` hook; the hard gate never reads it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::identity::{self, Budget, Identity, NoIdentity};
use crate::env::Env;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::plan::{Action, Plan};
use crate::registry::Registry;

/// Sub-directory of the state directory holding one soft-cache file per worktree.
pub(crate) const SOFT_DIR: &str = "soft-cache";
/// Sub-directory of the state directory holding one stat cache per worktree.
pub(crate) const STAT_DIR: &str = "stat-cache";
/// How long a stored result stays valid by default.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(300);
/// Entries kept per worktree (one per scope and language subset, typically).
pub(crate) const KEEP: usize = 8;
/// Results with more linter output than this are not stored.
const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// What a check is, besides the content it looks at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckFacts<'a> {
    /// The user's project directory (never a snapshot).
    pub workspace: &'a Path,
    /// The plan about to run.
    pub plan: &'a Plan,
    /// The effective registry (built-in plus the project's overrides).
    pub registry: &'a Registry,
    /// The content looked at: `all`, `changed` or `staged` (or a hook's lane set).
    pub scope: crate::mode::Scope,
    /// The language subset asked for (empty = all).
    pub only: &'a [String],
}

/// The key of one check, with what is needed to verify it after the run.
#[derive(Debug, Clone)]
pub(crate) struct SoftKey {
    file: PathBuf,
    stat_file: PathBuf,
    root: PathBuf,
    worktree: Identity,
    key: String,
    budget: Budget,
}

/// A reused result.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    /// The stored results (linter output included).
    pub results: Vec<LanguageResult>,
    /// How old they are.
    pub age: Duration,
}

/// What happened to a result offered to [`store`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Stored.
    Yes,
    /// Not stored: some language has no conclusion (UNVERIFIED or PLANNED).
    Incomplete,
    /// Not stored: the worktree changed during the run (or its identity is gone).
    Changed,
    /// Not stored: the linter output is too large to keep.
    TooLarge,
    /// Not stored: the cache could not be written.
    Failed(String),
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    ts_ms: u64,
    results: Vec<LanguageResult>,
    outputs: Vec<String>,
}

/// The time a stored result stays valid: `CODEGUARD_SOFT_CACHE_TTL_SECS` or [`DEFAULT_TTL`];
/// `None` (no soft caching) when it is 0.
pub(crate) fn ttl(env: &Env) -> Option<Duration> {
    let secs = env.text("CODEGUARD_SOFT_CACHE_TTL_SECS").and_then(|v| v.trim().parse::<u64>().ok());
    match secs {
        Some(0) => None,
        Some(secs) => Some(Duration::from_secs(secs)),
        None => Some(DEFAULT_TTL),
    }
}

/// Computes the key of a check (this reads and hashes the worktree, reusing the stat cache).
pub(crate) fn key(env: &Env, facts: &CheckFacts<'_>) -> Result<SoftKey, NoIdentity> {
    let home = crate::state::home(env);
    let budget = Budget::from_env(env);
    let dir_key = |root: &Path| crate::state::key_of(&[root.as_os_str().as_encoded_bytes()]);
    let workspace_key = dir_key(facts.workspace);
    let stat_file = home.join(STAT_DIR).join(format!("{workspace_key}.tsv"));
    let worktree = identity::worktree(facts.workspace, &budget, Some(&stat_file))?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"codeguard soft cache 1\0");
    hasher.update(&worktree.identity.0);
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(&[0]);
    hasher.update(facts.scope.as_str().as_bytes());
    hasher.update(&[0]);
    for id in facts.only {
        hasher.update(id.as_bytes());
        hasher.update(b",");
    }
    digest_plan(&mut hasher, facts.plan);
    hasher.update(&serde_json::to_vec(facts.registry.languages()).unwrap_or_default());
    super::tool_identity::digest(&mut hasher, commands(facts.plan), facts.workspace, env);
    Ok(SoftKey {
        file: home.join(SOFT_DIR).join(format!("{}.json", dir_key(&worktree.root))),
        stat_file,
        root: worktree.root,
        worktree: worktree.identity,
        key: hasher.finalize().to_hex().to_string(),
        budget,
    })
}

/// The stored result for `key`, if one is younger than `ttl`.
pub(crate) fn lookup(key: &SoftKey, ttl: Duration) -> Option<Hit> {
    let file: CacheFile = crate::state::read_json(&key.file);
    let entry = file.entries.get(&key.key)?;
    let now = crate::state::now_ms();
    let age = Duration::from_millis(now.checked_sub(entry.ts_ms)?);
    if age > ttl || entry.outputs.len() != entry.results.len() {
        return None;
    }
    let mut results = entry.results.clone();
    for (result, output) in results.iter_mut().zip(&entry.outputs) {
        result.output.clone_from(output);
    }
    Some(Hit { results, age })
}

/// Stores a check's results under `key` if they are complete and the worktree did not change
/// while they were computed.
pub(crate) fn store(key: &SoftKey, results: &[LanguageResult]) -> Stored {
    let complete = results.iter().all(|r| match r.status {
        Status::Pass | Status::Fail | Status::Skipped => true,
        Status::Unverified | Status::Planned => false,
    });
    if !complete {
        return Stored::Incomplete;
    }
    if results.iter().map(|r| r.output.len()).sum::<usize>() > MAX_OUTPUT_BYTES {
        return Stored::TooLarge;
    }
    match identity::worktree(&key.root, &key.budget, Some(&key.stat_file)) {
        Ok(after) if after.identity == key.worktree => {}
        Ok(_) | Err(_) => return Stored::Changed,
    }
    let entry = Entry {
        ts_ms: crate::state::now_ms(),
        results: results.to_vec(),
        outputs: results.iter().map(|r| r.output.clone()).collect(),
    };
    let written = crate::state::update_json(&key.file, |file: &mut CacheFile| {
        file.entries.insert(key.key.clone(), entry);
        while file.entries.len() > KEEP {
            let oldest = file.entries.iter().min_by_key(|(_, e)| e.ts_ms).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                file.entries.remove(&oldest);
            }
        }
    });
    match written {
        Ok(()) => Stored::Yes,
        Err(e) => Stored::Failed(e.to_string()),
    }
}

/// Every argv the plan would execute or probe.
fn commands(plan: &Plan) -> impl Iterator<Item = &crate::registry::Argv> {
    plan.entries.iter().flat_map(|entry| match &entry.action {
        Action::Run(job) => job.invocations.iter().chain(job.probe.iter()).collect::<Vec<_>>(),
        Action::Skip { .. } => Vec::new(),
    })
}

/// The plan, without the directory it runs in (a snapshot's path differs on every run).
fn digest_plan(hasher: &mut blake3::Hasher, plan: &Plan) {
    for entry in &plan.entries {
        let value = match &entry.action {
            Action::Run(job) => serde_json::json!({
                "language": entry.language,
                "program": job.program,
                "invocations": job.invocations,
                "files": job.files,
                "probe": job.probe,
                "fix": job.fix,
                "advisory": job.advisory,
            }),
            Action::Skip { status, reason } => serde_json::json!({
                "language": entry.language,
                "skip": status,
                "reason": reason,
            }),
        };
        hasher.update(value.to_string().as_bytes());
        hasher.update(b"\n");
    }
}

/// Number of stored results over all worktrees.
pub(crate) fn count(env: &Env) -> usize {
    files(env).iter().map(|p| crate::state::read_json::<CacheFile>(p).entries.len()).sum()
}

/// Deletes every stored result and stat cache; returns how many files were removed.
pub(crate) fn clear(env: &Env) -> std::io::Result<usize> {
    let home = crate::state::home(env);
    let mut removed = 0;
    for (dir, ext) in [(SOFT_DIR, "json"), (STAT_DIR, "tsv")] {
        for path in crate::state::files_with(&home.join(dir), ext) {
            crate::state::remove(&path)?;
            removed += 1;
        }
    }
    Ok(removed)
}

fn files(env: &Env) -> Vec<PathBuf> {
    crate::state::files_with(&crate::state::home(env).join(SOFT_DIR), "json")
}
