//! Per-file results of the linters that judge each file alone (a language's registry
//! `one_file`): a clean result, kept under a key that holds everything it depends on, spares every
//! later run — the lint after an edit, the agent's gate, git's hooks, `codeguard check` — the same
//! work on the same bytes.
//!
//! **Key** (blake3, 128 bits): this format and codeguard's version; the language's registry entry
//! (commands, verdict rules, `one_file`); whether the workspace is trusted; the program the
//! invocation runs, by path and stat data (an upgrade or a reinstall changes it), and the
//! variables that steer it ([`super::tool_identity::RELEVANT_ENV`] but `PATH`, whose part is the
//! program it resolves to, and the language's `env_prefixes`); the user-level configuration files
//! it names (`user_configs`: bytes, or absent); the invocation's options (its argv without the
//! files); the file's path and bytes; and each configuration file of the language
//! (`linter_config_files`) in the file's directory and every directory above it up to the one the
//! linter runs in (bytes, or absent).
//!
//! **Kept:** the files of a run that passed with no finding, each only when its key computed again
//! after the run is the one computed before it (nothing it depends on changed while the linter
//! read it). Never a failure, a time-out, a missing tool or a result with findings. A file whose
//! text makes the tool read another file (`unless_file`: a shell `source`), or under a
//! configuration file that does (`unless_config`: `extend = "../base.toml"`), gets no key.
//!
//! **Store:** [`DIR`] under the state directory (which an agent's command may not write:
//! `install::protected`), 16 shards of `key milliseconds` lines, each at most [`SHARD_KEEP`] (the
//! oldest go), rewritten whole under its lock. A key names content, not a session: two sessions
//! can only ever share the same fact, never a stale one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::outcome::{LanguageResult, Status};
use crate::plan::{Action, Job, Plan};
use crate::registry::{Language, OneFile, Registry};

/// Sub-directory of the state directory holding the kept results.
pub(crate) const DIR: &str = "file-results";
/// Keys kept per shard (16 shards).
pub(crate) const SHARD_KEEP: usize = 4096;
/// Files larger than this get no key (read whole to hash them).
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The keys of a plan's files before it runs, and which of them are known clean.
#[derive(Debug, Default)]
pub(crate) struct Reuse {
    /// Per plan entry: file → key (empty when the language keeps no per-file result).
    keys: Vec<BTreeMap<String, String>>,
    /// Per plan entry: the files whose clean result was found.
    proven: Vec<BTreeSet<String>>,
    /// Whether the workspace was trusted (part of every key).
    trusted: bool,
}

impl Reuse {
    /// Computes the keys of every file of `plan` whose language judges files alone, and, when
    /// `reuse`, finds those already known clean.
    pub(crate) fn look_up(plan: &Plan, registry: &Registry, env: &Env, trusted: bool, reuse: bool) -> Self {
        let keys: Vec<BTreeMap<String, String>> =
            plan.entries.iter().map(|entry| entry_keys(entry, registry, env, trusted)).collect();
        let known = if reuse { known(env, keys.iter().flat_map(BTreeMap::values)) } else { HashSet::new() };
        let proven = keys
            .iter()
            .map(|k| k.iter().filter(|(_, key)| known.contains(*key)).map(|(f, _)| f.clone()).collect())
            .collect();
        Self { keys, proven, trusted }
    }

    /// Whether any file's clean result was found.
    pub(crate) fn any(&self) -> bool {
        self.proven.iter().any(|p| !p.is_empty())
    }

    /// `plan` without the files whose clean result was found: an invocation left with none of
    /// its files does not run, and a job left with no file becomes a pass without a run.
    pub(crate) fn remaining(&self, plan: &Plan) -> Plan {
        let mut plan = plan.clone();
        for (entry, proven) in plan.entries.iter_mut().zip(&self.proven) {
            if proven.is_empty() {
                continue;
            }
            let Action::Run(job) = &mut entry.action else { continue };
            let args: HashMap<String, String> =
                file_args(job).into_iter().map(|(arg, file)| (arg, file.clone())).collect();
            let gone: HashSet<&str> =
                args.iter().filter(|(_, file)| proven.contains(*file)).map(|(arg, _)| arg.as_str()).collect();
            let invocations: Vec<_> = job
                .invocations
                .iter()
                .filter_map(|argv| {
                    let named_files = argv.iter().any(|a| args.contains_key(a.as_str()));
                    let kept: Vec<String> =
                        argv.iter().filter(|a| !gone.contains(a.as_str())).cloned().collect();
                    let keeps_files = kept.iter().any(|a| args.contains_key(a.as_str()));
                    (!named_files || keeps_files).then_some(kept)
                })
                .collect();
            job.files.retain(|f| !proven.contains(f));
            job.invocations = invocations;
            if job.files.is_empty() {
                entry.action = Action::Skip { status: Status::Pass, reason: String::new() };
            }
        }
        plan
    }

    /// Keeps the files of each passing result of `ran` (the results of `remaining`, `plan` being
    /// what ran) whose key is unchanged since [`Reuse::look_up`].
    pub(crate) fn record(&self, ran: &Plan, results: &[LanguageResult], registry: &Registry, env: &Env) {
        let mut clean: Vec<String> = Vec::new();
        for ((entry, result), before) in ran.entries.iter().zip(results).zip(&self.keys) {
            let passed = matches!(entry.action, Action::Run(_))
                && result.status == Status::Pass
                && result.findings.is_empty()
                && result.cause.is_none();
            if before.is_empty() || !passed {
                continue;
            }
            let after = entry_keys(entry, registry, env, self.trusted);
            clean.extend(
                after.iter().filter(|(file, key)| before.get(*file) == Some(*key)).map(|(_, k)| k.clone()),
            );
        }
        if !clean.is_empty() {
            let _ = keep(env, &clean);
        }
    }

    /// The results of the whole plan from those of `remaining`: the files found clean are added
    /// back to their language's result (counted in `reused`), and a language whose every file
    /// was found clean passes without having run.
    pub(crate) fn merge(&self, plan: &Plan, mut results: Vec<LanguageResult>) -> Vec<LanguageResult> {
        for ((entry, result), proven) in plan.entries.iter().zip(&mut results).zip(&self.proven) {
            if proven.is_empty() {
                continue;
            }
            let Action::Run(job) = &entry.action else { continue };
            result.files.clone_from(&job.files);
            result.reused = proven.len();
            result.managed = job.managed;
        }
        results
    }
}

/// file → key for the files of one plan entry (none unless its language judges files alone).
fn entry_keys(
    entry: &crate::plan::Entry,
    registry: &Registry,
    env: &Env,
    trusted: bool,
) -> BTreeMap<String, String> {
    let Action::Run(job) = &entry.action else { return BTreeMap::new() };
    let Some(lang) = registry.get(&entry.language) else { return BTreeMap::new() };
    let Some(one) = &lang.one_file else { return BTreeMap::new() };
    job_keys(job, lang, one, env, trusted)
}

/// The argument each file of `job` can be given as (its path, or [`crate::plan::path_arg`]'s
/// `./path`), to the file.
fn file_args(job: &Job) -> HashMap<String, &String> {
    job.files.iter().flat_map(|f| [(f.clone(), f), (crate::plan::path_arg(f), f)]).collect()
}

fn job_keys(job: &Job, lang: &Language, one: &OneFile, env: &Env, trusted: bool) -> BTreeMap<String, String> {
    let mut base = blake3::Hasher::new();
    base.update(b"codeguard file result 1\0");
    base.update(env!("CARGO_PKG_VERSION").as_bytes());
    base.update(b"\0");
    base.update(&serde_json::to_vec(lang).unwrap_or_default());
    base.update(&[u8::from(trusted)]);
    let mut names: BTreeSet<&str> =
        super::tool_identity::RELEVANT_ENV.iter().copied().filter(|k| *k != "PATH").collect();
    names.extend(
        env.vars()
            .map(|(k, _)| k.as_str())
            .filter(|k| one.env_prefixes.iter().any(|p| k.starts_with(p.as_str()))),
    );
    super::tool_identity::environment(&mut base, env, names);
    for spec in &one.user_configs {
        base.update(spec.as_bytes());
        match user_path(spec, env) {
            Some(path) => content(&mut base, &path),
            None => {
                base.update(b"\0unplaced\0");
            }
        }
    }
    let args = file_args(job);
    let mut configs = Configs { root: &job.cwd, names: &lang.linter_config_files, one, dirs: HashMap::new() };
    let mut out = BTreeMap::new();
    for argv in &job.invocations {
        let mut invocation = base.clone();
        if let Some(program) = argv.first() {
            super::tool_identity::program_file(&mut invocation, program, &job.cwd, env);
        }
        for word in argv.iter().skip(1).filter(|a| !args.contains_key(a.as_str())) {
            invocation.update(word.as_bytes());
            invocation.update(b"\0");
        }
        for file in argv.iter().filter_map(|a| args.get(a.as_str())) {
            let Some(bytes) = regular_file(&job.cwd.join(file.as_str())) else { continue };
            if one.unless_file.as_ref().is_some_and(|p| p.is_match(&String::from_utf8_lossy(&bytes))) {
                continue;
            }
            let Some(configs) = configs.above(file) else { continue };
            let mut hasher = invocation.clone();
            hasher.update(&configs);
            hasher.update(&(file.len() as u64).to_le_bytes());
            hasher.update(file.as_bytes());
            hasher.update(&bytes);
            out.insert((*file).clone(), hasher.finalize().to_hex()[..32].to_owned());
        }
    }
    out
}

/// The configuration files of one language, digested per directory.
struct Configs<'a> {
    root: &'a Path,
    names: &'a [String],
    one: &'a OneFile,
    /// directory → digest of its configuration files (`None`: one of them reads another file).
    dirs: HashMap<String, Option<[u8; 32]>>,
}

impl Configs<'_> {
    /// The digest of the configuration in `file`'s directory and every one above it; `None`
    /// when one of them makes the tool read another file.
    fn above(&mut self, file: &str) -> Option<[u8; 32]> {
        let mut hasher = blake3::Hasher::new();
        let mut dirs = vec![String::new()];
        let mut at = 0;
        while let Some(slash) = file[at..].find('/') {
            dirs.push(file[..at + slash].to_owned());
            at += slash + 1;
        }
        for dir in dirs {
            let digest = if let Some(digest) = self.dirs.get(&dir) {
                *digest
            } else {
                let digest = self.digest(&dir);
                self.dirs.insert(dir, digest);
                digest
            };
            hasher.update(&digest?);
        }
        Some(*hasher.finalize().as_bytes())
    }

    fn digest(&self, dir: &str) -> Option<[u8; 32]> {
        let mut hasher = blake3::Hasher::new();
        hasher.update(dir.as_bytes());
        hasher.update(b"\0");
        let base = if dir.is_empty() { self.root.to_path_buf() } else { self.root.join(dir) };
        for name in self.names {
            hasher.update(name.as_bytes());
            let path = base.join(name);
            match read_bounded(&path, true) {
                Ok(bytes) => {
                    if self
                        .one
                        .unless_config
                        .as_ref()
                        .is_some_and(|p| p.is_match(&String::from_utf8_lossy(&bytes)))
                    {
                        return None;
                    }
                    hasher.update(b"\0present\0");
                    hasher.update(&(bytes.len() as u64).to_le_bytes());
                    hasher.update(&bytes);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    hasher.update(b"\0absent\0");
                }
                // Unreadable (a directory of that name, no permission, a device, a FIFO, too
                // large): whatever the tool makes of it, no result is kept under it.
                Err(_) => return None,
            }
        }
        Some(*hasher.finalize().as_bytes())
    }
}

/// A file's bytes when it is a regular file (not a link) of reasonable size.
fn regular_file(path: &Path) -> Option<Vec<u8>> {
    read_bounded(path, false).ok()
}

/// The bytes of the regular file at `path` (through a link when `follow`), at most
/// [`MAX_FILE_BYTES`]. Anything else is an error, found without blocking or reading without end:
/// the file is opened non-blocking (a FIFO does not wait for a writer) and judged by the opened
/// descriptor, so a repository's `ruff.toml -> /dev/zero` or a FIFO costs one `open`.
fn read_bounded(path: &Path, follow: bool) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let flags = libc::O_NONBLOCK | if follow { 0 } else { libc::O_NOFOLLOW };
    let file = std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return Err(std::io::Error::other("not a regular file of bounded size"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other("grew past the bound while read"));
    }
    Ok(bytes)
}

/// Feeds a file's bytes (or that it is absent or unreadable) into `hasher`.
fn content(hasher: &mut blake3::Hasher, path: &Path) {
    match read_bounded(path, true) {
        Ok(bytes) => {
            hasher.update(b"\0present\0");
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            hasher.update(b"\0absent\0");
        }
        Err(e) => {
            hasher.update(b"\0unreadable\0");
            hasher.update(e.to_string().as_bytes());
        }
    }
}

/// Where a `user_configs` entry points: `~/…` under the home directory, `$XDG_CONFIG_HOME/…`
/// under that directory (default `~/.config`), `$VAR/…` under the variable's directory.
fn user_path(spec: &str, env: &Env) -> Option<PathBuf> {
    if let Some(rest) = spec.strip_prefix("~/") {
        return env.home().map(|h| h.join(rest));
    }
    let rest = spec.strip_prefix('$')?;
    let (var, rest) = rest.split_once('/')?;
    match env.get(var).filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir).join(rest)),
        None if var == "XDG_CONFIG_HOME" => env.home().map(|h| h.join(".config").join(rest)),
        None => None,
    }
}

fn shard(env: &Env, key: &str) -> PathBuf {
    let first = key.get(..1).unwrap_or("0");
    crate::state::home(env).join(DIR).join(format!("{first}.tsv"))
}

/// `keys` grouped by the shard file each belongs in.
fn by_shard<'a>(env: &Env, keys: impl IntoIterator<Item = &'a String>) -> BTreeMap<PathBuf, Vec<&'a String>> {
    let mut shards: BTreeMap<PathBuf, Vec<&String>> = BTreeMap::new();
    for key in keys {
        shards.entry(shard(env, key)).or_default().push(key);
    }
    shards
}

/// The kept keys of a shard, with when each was kept (milliseconds since the epoch).
fn read_shard(path: &Path) -> HashMap<String, u64> {
    let Ok(text) = std::fs::read_to_string(path) else { return HashMap::new() };
    text.lines()
        .filter_map(|line| {
            let (key, secs) = line.split_once(' ')?;
            (key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (key.to_owned(), secs.trim().parse().unwrap_or(0)))
        })
        .collect()
}

/// Which of `keys` are kept.
fn known<'a>(env: &Env, keys: impl IntoIterator<Item = &'a String>) -> HashSet<String> {
    let mut found = HashSet::new();
    for (path, keys) in by_shard(env, keys) {
        let kept = read_shard(&path);
        found.extend(keys.into_iter().filter(|k| kept.contains_key(*k)).cloned());
    }
    found
}

/// Keeps `keys` (now), each shard under its lock, dropping the oldest beyond [`SHARD_KEEP`].
fn keep(env: &Env, keys: &[String]) -> std::io::Result<()> {
    let now = crate::state::now_ms();
    for (path, keys) in by_shard(env, keys) {
        crate::fs::ensure_private_dir(path.parent().unwrap_or(&path))?;
        crate::state::with_lock(&path, || {
            let mut kept = read_shard(&path);
            for key in keys {
                kept.insert(key.clone(), now);
            }
            let mut lines: Vec<(String, u64)> = kept.into_iter().collect();
            if lines.len() > SHARD_KEEP {
                lines.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                lines.truncate(SHARD_KEEP);
            }
            lines.sort();
            let mut text = String::with_capacity(lines.len() * 48);
            for (key, at) in &lines {
                use std::fmt::Write as _;
                let _ = writeln!(text, "{key} {at}");
            }
            crate::fs::write_private_unsynced(&path, text.as_bytes())
        })?;
    }
    Ok(())
}

/// Number of kept results.
pub(crate) fn count(env: &Env) -> usize {
    shards(env).iter().map(|p| read_shard(p).len()).sum()
}

/// Removes every kept result; returns how many shard files were removed.
pub(crate) fn clear(env: &Env) -> std::io::Result<usize> {
    let mut removed = 0;
    for path in shards(env) {
        crate::state::remove(&path)?;
        removed += 1;
    }
    Ok(removed)
}

fn shards(env: &Env) -> Vec<PathBuf> {
    crate::state::files_with(&crate::state::home(env).join(DIR), "tsv")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_keeps_the_newest_keys_within_its_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let env = crate::state::test_env(dir.path());
        let keys: Vec<String> = (0..SHARD_KEEP + 10).map(|i| format!("a{i:031x}")).collect();
        keep(&env, &keys[..10]).expect("keep");
        std::thread::sleep(std::time::Duration::from_millis(5));
        keep(&env, &keys[10..]).expect("keep");
        let kept = read_shard(&shard(&env, &keys[0]));
        assert_eq!(kept.len(), SHARD_KEEP);
        assert!(keys[10..].iter().all(|k| kept.contains_key(k)), "the newest stay");
        assert_eq!(known(&env, &keys[..10]).len(), 0, "the oldest went");
        assert_eq!(count(&env), SHARD_KEEP);
        assert_eq!(clear(&env).expect("clear"), 1);
        assert_eq!(count(&env), 0);
    }

    #[test]
    fn concurrent_writers_lose_no_key() {
        let dir = tempfile::tempdir().expect("dir");
        let env = crate::state::test_env(dir.path());
        let keys: Vec<Vec<String>> =
            (0..8).map(|w| (0..100).map(|i| format!("b{w:015x}{i:016x}")).collect()).collect();
        std::thread::scope(|s| {
            for mine in &keys {
                let env = &env;
                s.spawn(move || {
                    for key in mine {
                        keep(env, std::slice::from_ref(key)).expect("keep");
                    }
                });
            }
        });
        let all: Vec<&String> = keys.iter().flatten().collect();
        assert_eq!(known(&env, all.iter().copied()).len(), 800, "every writer's keys are there");
    }

    #[test]
    fn user_configs_are_placed_under_home_and_xdg() {
        let env = Env::from_pairs([("HOME".to_owned(), std::ffi::OsString::from("/h"))]);
        assert_eq!(user_path("~/.shellcheckrc", &env), Some(PathBuf::from("/h/.shellcheckrc")));
        assert_eq!(
            user_path("$XDG_CONFIG_HOME/ruff/ruff.toml", &env),
            Some(PathBuf::from("/h/.config/ruff/ruff.toml"))
        );
        let env = Env::from_pairs([
            ("HOME".to_owned(), std::ffi::OsString::from("/h")),
            ("XDG_CONFIG_HOME".to_owned(), std::ffi::OsString::from("/x")),
        ]);
        assert_eq!(
            user_path("$XDG_CONFIG_HOME/ruff/ruff.toml", &env),
            Some(PathBuf::from("/x/ruff/ruff.toml"))
        );
        assert_eq!(user_path("$NOPE/a", &env), None);
    }
}
