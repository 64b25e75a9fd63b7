//! Baseline exemption: blame only what the change introduced.
//!
//! **In:** the lint results of a snapshot, the snapshot itself (to read the lines findings
//! point at) and the surface it came from. **Out:** the same results, where every finding the
//! same tool with the same command also reports on the baseline content is moved to
//! [`LanguageResult::exempt`]; a language whose findings are all pre-existing passes.
//!
//! A finding is *pre-existing* only when the baseline run reports the same rule, in the same
//! file, on a line whose text (trimmed) is the same — matched as multisets, so a second copy of
//! an old problem is new. The baseline is `HEAD` for a commit and the one commit a push range
//! grows from for a push; with no baseline (an unborn branch, a range with several boundaries)
//! or a baseline run that reached no conclusion, nothing is exempt. Only findings codeguard can
//! parse are compared — languages whose registry entry names its lint output's
//! `findings_format`; a failure whose output holds none keeps its
//! whole-file blame, and so does everything under `gate_scope: "repo"`.
//!
//! A per-file linter's baseline run checks the baseline versions of the files it failed on. A
//! project-level one (`cargo clippy`) compares finding sets of whole trees: its baseline run
//! checks the whole baseline tree, and its result (the tree is immutable) is kept under the
//! state directory keyed by the tree, the command, the registry entry and the tools' identity
//! ([`crate::cache::tool_identity`]), so a base is paid for once ([`BaselineCache`]).
//! **Never:** exempts by path alone: a change can break an untouched line (an import whose last
//! use it removed), and that finding is new because the baseline run does not report it.

use std::collections::HashMap;
use std::path::Path;

use crate::env::Env;
use crate::findings::{Finding as LintFinding, Format, parse};
use crate::lint;
use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::registry::{Behaviour, Language, Registry};
use crate::run::RunOptions;
use crate::snapshot::{Snapshot, SnapshotOptions};
use crate::static_regex::static_regex;
use crate::surface::{Base, Mode, Surface};

static_regex! {
    /// Lines a tool prints around its findings (progress, summaries).
    static NOISE = concat!(
        r"^\s*$|^\s*(Checking|Compiling|Finished|Blocking|Downloading|Downloaded|Updating|Locking|Adding|Fresh|Running|Building|Documenting|Packaging|Unpacking)\s",
        r"|^(error|warning): could not compile |^warning: build failed|^error: aborting due to",
        r"|^(warning|error): `[^`]+` \([^)]*\) generated \d+ (warning|error)",
        r"|^Found \d+ errors?\.|^\[\*\] \d+ fixable|^No fixes available|^All checks passed",
        r"|^codeguard: "
    );
}

/// What a finding is compared by: path, rule and the trimmed text of its line.
type Key = (String, String, String);

fn key(finding: &LintFinding, lines: &Lines<'_>, cache: &mut HashMap<String, Vec<String>>) -> Key {
    let lines = cache.entry(finding.path.clone()).or_insert_with(|| lines.of(&finding.path));
    let text = finding.line.checked_sub(1).and_then(|i| lines.get(i)).cloned().unwrap_or_default();
    (finding.path.clone(), finding.key().to_owned(), text)
}

/// The commit whose content is the baseline for `surface`.
fn baseline_commit(surface: &Surface) -> Option<gix::ObjectId> {
    match surface.mode {
        Mode::Commit => match surface.grows_from {
            crate::surface::GrowsFrom::Head => surface.observed.head,
            crate::surface::GrowsFrom::Commit(c) => Some(c),
            crate::surface::GrowsFrom::Nothing => None,
        },
        Mode::Push { .. } => surface.push.as_ref().and_then(|p| p.baseline),
    }
}

/// Moves pre-existing findings of failing languages to `exempt` (see the module header).
pub(crate) fn exempt(
    registry: &Registry,
    results: &mut [LanguageResult],
    snapshot: &Snapshot,
    surface: &Surface,
    deadline: std::time::Duration,
    log_prefix: &str,
    env: &Env,
) {
    let project_level =
        |r: &LanguageResult| registry.get(&r.language).is_some_and(Language::is_project_level);
    let candidates: Vec<usize> = (0..results.len())
        .filter(|&i| {
            let r = &results[i];
            r.status == Status::Fail
                && (!r.files.is_empty() || project_level(r))
                && format_of(registry, r).is_some()
                && !r.findings.is_empty()
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    let Some(base) = baseline_commit(surface).and_then(|c| tree_of(&surface.root, c)) else { return };
    let cache = BaselineCache::new(env, base);
    let mut known: HashMap<usize, LanguageResult> = HashMap::new();
    for &i in &candidates {
        if project_level(&results[i])
            && let Some(old) = cache.get(registry, &results[i], &surface.root, env)
        {
            known.insert(i, old);
        }
    }
    let to_run: Vec<usize> = candidates.iter().copied().filter(|i| !known.contains_key(i)).collect();
    let (ran, before_root) = if to_run.is_empty() {
        (Vec::new(), None)
    } else {
        let mut paths: Vec<String> = Vec::new();
        for &i in &to_run {
            if project_level(&results[i]) {
                paths.extend(files_of_language(&surface.root, base, registry, &results[i].language));
            } else {
                paths.extend(files_in(&surface.root, base, results[i].files.clone()));
            }
        }
        paths.sort();
        paths.dedup();
        let languages: Vec<String> = to_run.iter().map(|&i| results[i].language.clone()).collect();
        match run_baseline(surface, base, paths, &languages, deadline, log_prefix, env) {
            Some((ran, before)) => (ran, Some(before)),
            None => (Vec::new(), None),
        }
    };
    for &i in &to_run {
        if let Some(old) = ran.iter().find(|b| b.language == results[i].language)
            && project_level(&results[i])
        {
            cache.put(registry, &results[i], old, &surface.root, env);
        }
    }
    for &i in &candidates {
        let Some(format) = format_of(registry, &results[i]) else { continue };
        let Some(behaviour) = registry.get(&results[i].language).map(|l| &l.verdict) else { continue };
        let old = known.get(&i).or_else(|| ran.iter().find(|b| b.language == results[i].language));
        let Some(old) = old.filter(|old| same_command(old, &results[i])) else { continue };
        let old_lines = match (&before_root, known.contains_key(&i)) {
            (Some(root), false) => Lines::Dir(root.root()),
            _ => Lines::Tree { root: &surface.root, tree: base },
        };
        compare(format, behaviour, &mut results[i], old, &Lines::Dir(snapshot.root()), &old_lines);
    }
}

/// Whether the baseline run ran the same commands as the new one (its files aside): the baseline
/// content has its own `codeguard.json`, which may configure the language otherwise — then its
/// findings say nothing about the new run's.
fn same_command(old: &LanguageResult, new: &LanguageResult) -> bool {
    let template = |r: &LanguageResult| -> Vec<Vec<String>> {
        let files: std::collections::HashSet<String> =
            r.files.iter().flat_map(|f| [f.clone(), crate::plan::path_arg(f)]).collect();
        let mut argvs: Vec<Vec<String>> = r
            .argv
            .iter()
            .map(|argv| argv.iter().filter(|a| !files.contains(*a)).cloned().collect())
            .collect();
        argvs.sort();
        argvs.dedup();
        argvs
    };
    // The baseline checks a subset of the files: fewer dialect groups or parts, the same commands.
    let new = template(new);
    template(old).iter().all(|argv| new.contains(argv))
}

/// Runs the baseline lint of `languages` on `paths` of the baseline tree (completed to the whole
/// tree when a planned linter reads it); `None` when it could not be made or did not start.
fn run_baseline(
    surface: &Surface,
    base: gix::ObjectId,
    paths: Vec<String>,
    languages: &[String],
    deadline: std::time::Duration,
    log_prefix: &str,
    env: &Env,
) -> Option<(Vec<LanguageResult>, Snapshot)> {
    if paths.is_empty() {
        return None;
    }
    let base_surface = Surface {
        mode: Mode::Push { pending_commit: false },
        paths,
        deleted: Vec::new(),
        base: Base::Tree(base),
        overlays: Vec::new(),
        push: None,
        unverified: Vec::new(),
        non_utf8_worktree: Vec::new(),
        index_file: None,
        ..surface.clone()
    };
    let support = Registry::builtin().ok()?.support_files();
    let mut before = Snapshot::materialise(&base_surface, &SnapshotOptions::from_env(env), &support).ok()?;
    let options = RunOptions { deadline, jobs: crate::run::default_jobs(), reuse: true };
    let prefix = format!("{log_prefix}-baseline");
    let ran =
        lint::lint_snapshot(&mut before, &surface.root, languages, options, &prefix, false, env).ok()?;
    Some((ran, before))
}

/// Where the lines of a baseline run's findings are read: the baseline snapshot it ran in, or
/// (for a result from the cache) the baseline tree's blobs.
enum Lines<'a> {
    Dir(&'a Path),
    Tree { root: &'a Path, tree: gix::ObjectId },
}

impl Lines<'_> {
    /// The trimmed lines of `path`, empty when it cannot be read.
    fn of(&self, path: &str) -> Vec<String> {
        let bytes = match self {
            Lines::Dir(root) => std::fs::read(root.join(path)).ok(),
            Lines::Tree { root, tree } => blob_at(root, *tree, path),
        };
        bytes
            .map(|b| String::from_utf8_lossy(&b).lines().map(|l| l.trim().to_owned()).collect())
            .unwrap_or_default()
    }
}

fn blob_at(root: &Path, tree: gix::ObjectId, path: &str) -> Option<Vec<u8>> {
    let repo = crate::git::open_worktree(root).ok()?;
    crate::git::tree::blob_at(&repo, tree, path).ok().flatten()
}

/// Finished baseline runs of project-level linters, one file per key under
/// `<state>/cache/baseline/`: the baseline tree is immutable, so a run of the same command with
/// the same tools on it gives the same findings. Only conclusive runs (PASS, FAIL) are kept, at
/// most [`BASELINE_KEEP`] files (the oldest go first), each used for [`BASELINE_TTL`]. Not seen
/// by the key: a toolchain a proxy selects (a `rustup update` behind the same `cargo`) and
/// configuration in the user's home (`~/.cargo/config.toml`) — `RUSTUP_TOOLCHAIN`, `RUSTFLAGS`
/// and the tree's own toolchain file are part of it; the time limit bounds the rest.
struct BaselineCache {
    dir: std::path::PathBuf,
    tree: gix::ObjectId,
}

/// How many baseline results the cache keeps.
const BASELINE_KEEP: usize = 64;
/// How long a stored baseline result is used: what the key cannot see (a toolchain update behind
/// the same proxy, a config in the user's home) goes unnoticed at most this long.
const BASELINE_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

#[derive(serde::Serialize, serde::Deserialize)]
struct StoredBaseline {
    status: Status,
    output: String,
}

impl BaselineCache {
    fn new(env: &Env, tree: gix::ObjectId) -> Self {
        Self { dir: crate::state::home(env).join("cache").join("baseline"), tree }
    }

    fn path(
        &self,
        registry: &Registry,
        result: &LanguageResult,
        workspace: &Path,
        env: &Env,
    ) -> std::path::PathBuf {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"codeguard baseline 1\0");
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update(self.tree.as_bytes());
        hasher.update(result.language.as_bytes());
        hasher.update(&serde_json::to_vec(&result.argv).unwrap_or_default());
        hasher.update(&serde_json::to_vec(&registry.get(&result.language)).unwrap_or_default());
        crate::cache::tool_identity::digest(&mut hasher, &result.argv, workspace, env);
        self.dir.join(format!("{}.json", hasher.finalize().to_hex()))
    }

    fn get(
        &self,
        registry: &Registry,
        result: &LanguageResult,
        workspace: &Path,
        env: &Env,
    ) -> Option<LanguageResult> {
        let path = self.path(registry, result, workspace, env);
        let age = std::fs::metadata(&path).ok()?.modified().ok()?.elapsed().unwrap_or_default();
        if age > BASELINE_TTL {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        let stored: StoredBaseline = serde_json::from_slice(&bytes).ok()?;
        matches!(stored.status, Status::Pass | Status::Fail).then(|| LanguageResult {
            status: stored.status,
            output: stored.output,
            reason: "baseline from the cache".into(),
            ..result.clone()
        })
    }

    fn put(
        &self,
        registry: &Registry,
        result: &LanguageResult,
        old: &LanguageResult,
        workspace: &Path,
        env: &Env,
    ) {
        if !matches!(old.status, Status::Pass | Status::Fail)
            || crate::fs::ensure_private_dir(&self.dir).is_err()
        {
            return;
        }
        let stored = StoredBaseline { status: old.status, output: old.output.clone() };
        let Ok(bytes) = serde_json::to_vec(&stored) else { return };
        if crate::fs::write_private(&self.path(registry, result, workspace, env), &bytes).is_err() {
            return;
        }
        let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                    .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
                    .collect()
            })
            .unwrap_or_default();
        if files.len() > BASELINE_KEEP {
            files.sort();
            for (_, path) in &files[..files.len() - BASELINE_KEEP] {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Exempts the findings of `new` that `old` (the baseline run) also reports.
///
/// The language passes only when every finding is pre-existing *and* the output holds nothing
/// else the baseline's does not: a line codeguard cannot read as a finding (a build script that
/// fails, a config the tool cannot parse) is not proven old, so the failure stands. A
/// pre-existing finding that stops the tool from checking the rest (the registry's `stopping_rules`: a syntax
/// or compile error) is never a reason to pass: what it hides was not checked, so the language
/// is UNVERIFIED unless something new fails it anyway.
fn compare(
    format: Format,
    behaviour: &Behaviour,
    new: &mut LanguageResult,
    old: &LanguageResult,
    new_lines: &Lines<'_>,
    old_lines: &Lines<'_>,
) {
    let before: Vec<LintFinding> = match old.status {
        Status::Pass => Vec::new(),
        Status::Fail => parse(format, &old.output),
        Status::Unverified | Status::Planned | Status::Skipped => return,
    };
    let mut cache = HashMap::new();
    let mut remaining: HashMap<Key, usize> = HashMap::new();
    for f in &before {
        *remaining.entry(key(f, old_lines, &mut cache)).or_default() += 1;
    }
    let mut cache = HashMap::new();
    let mut exempt_lines = std::collections::HashSet::new();
    let mut new_findings = 0;
    let mut stopping = None;
    for f in &new.findings {
        let k = key(f, new_lines, &mut cache);
        match remaining.get_mut(&k) {
            Some(n) if *n > 0 => {
                *n -= 1;
                if stopping.is_none() && behaviour.stopping_rules.is_match(f.key()) {
                    stopping = Some(format!("{}:{}: {}", f.path, f.line, f.key()));
                }
                new.exempt.push(format!("{}:{}: {}", f.path, f.line, f.key()));
                exempt_lines.insert(f.at);
            }
            _ => new_findings += 1,
        }
    }
    if new.exempt.is_empty() {
        return;
    }
    let count = new.exempt.len();
    let unexplained = unexplained_lines(format, &new.output, &old.output);
    if new_findings == 0 && unexplained.is_none() {
        if let Some(stopping) = stopping {
            new.status = Status::Unverified;
            new.reason = format!(
                "the baseline already has `{stopping}`, which stops the tool from checking the rest; what it hides was not checked"
            );
            return;
        }
        new.status = Status::Pass;
        new.reason =
            format!("{count} pre-existing finding(s) exempt: the same tool reports them on the baseline");
        new.findings.clear();
        return;
    }
    let trailer = match (new_findings, unexplained) {
        (0, Some(line)) => format!(
            "codeguard: {count} pre-existing finding(s) exempt (also reported on the baseline), not shown; the failure stands: `{line}` is not on the baseline"
        ),
        _ => format!(
            "codeguard: {count} pre-existing finding(s) exempt (also reported on the baseline), not shown"
        ),
    };
    let kept = crate::findings::without(&new.output, &mut new.findings, &exempt_lines);
    new.output = if kept.is_empty() { format!("{trailer}\n") } else { format!("{kept}\n{trailer}\n") };
}

/// The first line of `new` that is neither a finding nor a line the tool prints around findings
/// (progress, summaries) and that `old` does not hold as often: output codeguard cannot prove
/// pre-existing. `None` when there is none.
fn unexplained_lines(format: Format, new: &str, old: &str) -> Option<String> {
    let rest = |text: &str| -> Vec<String> {
        let findings: std::collections::HashSet<String> =
            parse(format, text).into_iter().map(|f| f.raw).collect();
        text.lines()
            .filter(|l| !findings.contains(*l) && !NOISE.is_match(l))
            .map(|l| l.trim().to_owned())
            .collect()
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for line in rest(old) {
        *seen.entry(line).or_default() += 1;
    }
    rest(new).into_iter().find(|line| match seen.get_mut(line) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    })
}

/// The findings format of the language's lint output, from the registry (with the project's
/// overrides: a project's own lint command has none).
fn format_of(registry: &Registry, result: &LanguageResult) -> Option<Format> {
    registry.get(&result.language).and_then(|l| l.findings_format)
}

/// Those of `paths` that are regular files in `tree` (the baseline has nothing to say of the
/// others: files the change adds, or that are links there).
fn files_in(root: &Path, tree: gix::ObjectId, paths: Vec<String>) -> Vec<String> {
    let Ok(repo) = crate::git::open_worktree(root) else { return Vec::new() };
    crate::git::tree::regular_files_in(&repo, tree, paths).unwrap_or_default()
}

/// The regular files of `tree` that are of `language` (by name: what a project-level linter's
/// baseline run needs so that the language is planned there).
fn files_of_language(root: &Path, tree: gix::ObjectId, registry: &Registry, language: &str) -> Vec<String> {
    let Ok(repo) = crate::git::open_worktree(root) else { return Vec::new() };
    let Ok(state) = crate::git::tree_index(&repo, tree) else { return Vec::new() };
    state
        .entries()
        .iter()
        .filter(|e| {
            matches!(e.mode, gix::index::entry::Mode::FILE | gix::index::entry::Mode::FILE_EXECUTABLE)
        })
        .filter_map(|e| std::str::from_utf8(e.path(&state)).ok())
        .filter(|p| registry.language_of(p).is_some_and(|l| l.id == language))
        .map(str::to_owned)
        .collect()
}

fn tree_of(root: &Path, commit: gix::ObjectId) -> Option<gix::ObjectId> {
    let repo = crate::git::open_worktree(root).ok()?;
    crate::git::commit_tree(&repo, commit).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_compile_errors_stop_analysis_and_lints_do_not() {
        let registry = Registry::builtin().expect("registry");
        let stops = |id: &str, rule: &str| registry.get(id).expect(id).verdict.stopping_rules.is_match(rule);
        for (id, rule) in [
            ("python", "invalid-syntax"),
            ("python", "E999"),
            ("shell", "SC1073"),
            ("rust", "error[E0425]: cannot find value `y` in this scope"),
            ("rust", "error: expected one of `!` or `::`, found `x`"),
            ("yaml", "syntax"),
            ("dockerfile", "DL1000"),
            ("go", "syntax error: unexpected newline"),
        ] {
            assert!(stops(id, rule), "{id}: {rule}");
        }
        for (id, rule) in [
            ("python", "F401"),
            ("shell", "SC2086"),
            ("rust", "error: unused variable: `x`"),
            ("yaml", "document-start"),
            ("dockerfile", "DL3008"),
        ] {
            assert!(!stops(id, rule), "{id}: {rule}");
        }
    }

    #[test]
    fn output_that_is_neither_a_finding_nor_noise_must_be_on_the_baseline() {
        let old = "    Checking a v0.1.0 (/tmp/x)\nsrc/a.rs:2:9: error: unused variable: `x`\nerror: could not compile `a` (lib) due to 1 previous error\n";
        let same_elsewhere = old.replace("/tmp/x", "/tmp/y");
        assert_eq!(unexplained_lines(Format::Gcc, &same_elsewhere, old), None);
        let broken =
            format!("{old}error: failed to run custom build command for `b v0.1.0`\n  --- stderr\n  boom\n");
        assert_eq!(
            unexplained_lines(Format::Gcc, &broken, old).as_deref(),
            Some("error: failed to run custom build command for `b v0.1.0`")
        );
        let ruff =
            "a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with `--fix`.\n";
        assert_eq!(unexplained_lines(Format::RuffConcise, ruff, ruff), None);
        let cannot_parse = format!("error: Failed to parse pyproject.toml\n{ruff}");
        assert!(unexplained_lines(Format::RuffConcise, &cannot_parse, ruff).is_some());
    }
}
