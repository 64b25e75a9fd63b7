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
//! **Never:** exempts by path alone: a change can break an untouched line (an import whose last
//! use it removed), and that finding is new because the baseline run does not report it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::entry::engine;
use crate::env::Env;
use crate::registry::{FindingsFormat as Format, Registry};
use crate::run::{LanguageResult, RunOptions};
use crate::snapshot::{Snapshot, SnapshotOptions};
use crate::surface::{Base, Mode, Surface};
use crate::verdict::Status;

/// One finding read from a linter's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LintFinding {
    /// Repo-relative path (a leading `./` removed).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// The rule (or, without one, the message).
    pub rule: String,
    /// The output line it came from.
    pub raw: String,
}

static LOCATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)?\s*(?P<rest>.*)$")
        .unwrap_or_else(|e| unreachable!("static pattern: {e}"))
});
static TRAILING_BRACKET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[(?P<rule>SC\d+)\]\s*$").unwrap_or_else(|e| unreachable!("static pattern: {e}"))
});
static TRAILING_PAREN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\((?P<rule>[a-z][a-z0-9-]*)\)\s*$").unwrap_or_else(|e| unreachable!("static pattern: {e}"))
});

/// The findings in `output`, in order.
pub(crate) fn parse(format: Format, output: &str) -> Vec<LintFinding> {
    output
        .lines()
        .filter_map(|raw| {
            let caps = LOCATED.captures(raw)?;
            let path = caps["path"].trim_start_matches("./").to_owned();
            let line = caps["line"].parse().ok()?;
            let rest = caps["rest"].trim();
            let rule = match format {
                Format::RuffConcise => rest.split([' ', ':']).next().unwrap_or(rest).to_owned(),
                Format::Gcc => {
                    TRAILING_BRACKET.captures(rest).map_or_else(|| rest.to_owned(), |c| c["rule"].to_owned())
                }
                Format::YamllintParsable => {
                    TRAILING_PAREN.captures(rest).map_or_else(|| rest.to_owned(), |c| c["rule"].to_owned())
                }
            };
            Some(LintFinding { path, line, rule, raw: raw.to_owned() })
        })
        .collect()
}

/// What a finding is compared by: path, rule and the trimmed text of its line.
type Key = (String, String, String);

fn key(finding: &LintFinding, root: &Path, cache: &mut HashMap<String, Vec<String>>) -> Key {
    let lines = cache.entry(finding.path.clone()).or_insert_with(|| {
        std::fs::read(root.join(&finding.path))
            .map(|b| String::from_utf8_lossy(&b).lines().map(|l| l.trim().to_owned()).collect())
            .unwrap_or_default()
    });
    let text = finding.line.checked_sub(1).and_then(|i| lines.get(i)).cloned().unwrap_or_default();
    (finding.path.clone(), finding.rule.clone(), text)
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
/// `notes` hears why the comparison could not be made when it could not.
pub(crate) fn exempt(
    registry: &Registry,
    results: &mut [LanguageResult],
    snapshot: &Snapshot,
    surface: &Surface,
    deadline: std::time::Duration,
    log_prefix: &str,
    env: &Env,
) {
    let candidates: Vec<usize> = (0..results.len())
        .filter(|&i| {
            let r = &results[i];
            r.status == Status::Fail
                && !r.files.is_empty()
                && format_of(registry, r).is_some_and(|f| !parse(f, &r.output).is_empty())
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    let Some(base) = baseline_commit(surface).and_then(|c| tree_of(&surface.root, c)) else { return };
    let languages: Vec<String> = candidates.iter().map(|&i| results[i].language.clone()).collect();
    let mut paths: Vec<String> = candidates.iter().flat_map(|&i| results[i].files.iter().cloned()).collect();
    paths.sort();
    paths.dedup();
    let paths = files_in(&surface.root, base, paths);
    if paths.is_empty() {
        return;
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
    let Ok(support) = Registry::builtin().map(|r| r.support_files()) else { return };
    let Ok(mut before) = Snapshot::materialise(&base_surface, &SnapshotOptions::from_env(env), &support)
    else {
        return;
    };
    let options = RunOptions { deadline, jobs: crate::entry::default_jobs() };
    let prefix = format!("{log_prefix}-baseline");
    let Ok(baseline) = engine::lint_snapshot(&mut before, &surface.root, &languages, options, &prefix, env)
    else {
        return;
    };
    for &i in &candidates {
        let Some(old) = baseline.iter().find(|b| b.language == results[i].language) else { continue };
        let Some(format) = format_of(registry, &results[i]) else { continue };
        compare(format, &mut results[i], old, snapshot.root(), before.root());
    }
}

/// Exempts the findings of `new` that `old` (the baseline run) also reports.
fn compare(format: Format, new: &mut LanguageResult, old: &LanguageResult, new_root: &Path, old_root: &Path) {
    let before: Vec<LintFinding> = match old.status {
        Status::Pass => Vec::new(),
        Status::Fail => parse(format, &old.output),
        Status::Unverified | Status::Planned | Status::Skipped => return,
    };
    let mut cache = HashMap::new();
    let mut remaining: HashMap<Key, usize> = HashMap::new();
    for f in &before {
        *remaining.entry(key(f, old_root, &mut cache)).or_default() += 1;
    }
    let mut cache = HashMap::new();
    let mut exempt_lines = Vec::new();
    let mut new_findings = 0;
    for f in parse(format, &new.output) {
        let k = key(&f, new_root, &mut cache);
        match remaining.get_mut(&k) {
            Some(n) if *n > 0 => {
                *n -= 1;
                new.exempt.push(format!("{}:{}: {}", f.path, f.line, f.rule));
                exempt_lines.push(f.raw);
            }
            _ => new_findings += 1,
        }
    }
    if new.exempt.is_empty() {
        return;
    }
    let count = new.exempt.len();
    if new_findings == 0 {
        new.status = Status::Pass;
        new.reason =
            format!("{count} pre-existing finding(s) exempt: the same tool reports them on the baseline");
        return;
    }
    let mut kept: Vec<&str> = new.output.lines().filter(|l| !exempt_lines.iter().any(|e| e == l)).collect();
    let trailer = format!(
        "codeguard: {count} pre-existing finding(s) exempt (also reported on the baseline), not shown"
    );
    kept.push(&trailer);
    new.output = kept.join("\n") + "\n";
}

/// The findings format of the language's lint output, from the registry (with the project's
/// overrides: a project's own lint command has none).
fn format_of(registry: &Registry, result: &LanguageResult) -> Option<Format> {
    registry.get(&result.language).and_then(|l| l.findings_format)
}

/// Those of `paths` that are regular files in `tree` (the baseline has nothing to say of the
/// others: files the change adds, or that are links there).
fn files_in(root: &Path, tree: gix::ObjectId, paths: Vec<String>) -> Vec<String> {
    let Ok(repo) = crate::surface::open_repo(root) else { return Vec::new() };
    let Ok(tree) = repo.find_tree(tree) else { return Vec::new() };
    paths
        .into_iter()
        .filter(|p| {
            tree.lookup_entry_by_path(p)
                .ok()
                .flatten()
                .is_some_and(|e| e.mode().is_blob() && !e.mode().is_link())
        })
        .collect()
}

fn tree_of(root: &Path, commit: gix::ObjectId) -> Option<gix::ObjectId> {
    let repo = crate::surface::open_repo(root).ok()?;
    let commit = repo.find_commit(commit).ok()?;
    commit.tree_id().ok().map(gix::Id::detach)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_yields_path_line_and_rule() {
        let ruff = "a.py:1:8: F401 [*] `os` imported but unused\n./-x.py:3:1: E999 SyntaxError: bad\nFound 2 errors.\n";
        let got: Vec<(String, usize, String)> =
            parse(Format::RuffConcise, ruff).into_iter().map(|f| (f.path, f.line, f.rule)).collect();
        assert_eq!(got, [("a.py".into(), 1, "F401".into()), ("-x.py".into(), 3, "E999".into())]);
        let gcc = "run.sh:2:4: warning: Double quote to prevent globbing. [SC2086]\n";
        assert_eq!(parse(Format::Gcc, gcc)[0].rule, "SC2086");
        let yaml = "x.yml:1:1: [warning] missing document start \"---\" (document-start)\nx.yml:3:2: [error] syntax error: mapping values are not allowed here\n";
        let rules: Vec<String> = parse(Format::YamllintParsable, yaml).into_iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["document-start", "[error] syntax error: mapping values are not allowed here"]);
    }
}
