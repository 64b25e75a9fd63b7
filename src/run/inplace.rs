//! The in-place guard: proof by content identity that linters run in the user's own worktree
//! (`check --all`/`--changed`, the post-edit lint, the prompt soft gate) left every file as it
//! was. Lint commands never fix (the registry passes each tool's no-fix switch), but a project's
//! configuration or build can still make a tool write; when one did, it is a finding.
//!
//! **In:** the project directory and the files a linter could touch (at least every file handed
//! to one), before the run; the run's results after it. **Out:** the results, where each
//! language whose run changed a file is FAIL with a reason naming the files. Each file is
//! hashed (blake3) before the run; after it, a file whose stat record (size, mtime, ctime,
//! inode) is unchanged is untouched, any other is hashed again and compared. **Never:** writes,
//! restores or stages anything — it only reads and reports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::outcome::LanguageResult;
use crate::outcome::Status;
use crate::plan::{Action, Plan};

/// How many changed files a reason names before it summarises the rest.
const NAMED: usize = 10;

/// The identities of the watched files before a run in place.
pub(crate) struct Guard {
    root: PathBuf,
    before: BTreeMap<String, Option<Identity>>,
}

/// What a file is: its stat record (cheap evidence) and the hash of its content (the proof; of
/// its target, for a symbolic link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    stat: Stat,
    hash: blake3::Hash,
    /// The file's last change was at least `cache::stat::SETTLE` before it was hashed: only then
    /// can an equal stat record afterwards prove it untouched (file times have coarse ticks, so a
    /// rewrite right after a recent change can keep size, mtime and ctime).
    settled: bool,
}

/// The parts of a stat record that any write changes: size, modification time and — which no
/// unprivileged call can set back — the status-change time, on the same inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: (u64, u64),
}

impl Stat {
    fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt as _;
        Self {
            size: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            inode: (meta.dev(), meta.ino()),
        }
    }
}

impl Identity {
    fn of(path: &Path) -> Option<Self> {
        let meta = path.symlink_metadata().ok()?;
        let hash = if meta.file_type().is_symlink() {
            blake3::hash(std::fs::read_link(path).ok()?.as_os_str().as_encoded_bytes())
        } else if meta.is_file() {
            let mut hasher = blake3::Hasher::new();
            hasher.update_reader(std::fs::File::open(path).ok()?).ok()?;
            hasher.finalize()
        } else {
            return None;
        };
        let cutoff = std::time::SystemTime::now()
            .checked_sub(crate::cache::stat::SETTLE)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        let changed = std::time::Duration::new(
            u64::try_from(std::os::unix::fs::MetadataExt::ctime(&meta)).unwrap_or(u64::MAX),
            u32::try_from(std::os::unix::fs::MetadataExt::ctime_nsec(&meta)).unwrap_or(0),
        );
        let settled = cutoff.is_some_and(|cutoff| changed < cutoff);
        Some(Self { stat: Stat::of(&meta), hash, settled })
    }

    /// Whether the file at `path` no longer has the content it had: an unchanged stat record
    /// proves it untouched without reading it; otherwise the content is hashed again (a touched
    /// but identical file is not a change).
    fn content_differs(before: Option<&Self>, path: &Path) -> bool {
        let unchanged_stat = |b: &Self| path.symlink_metadata().is_ok_and(|m| Stat::of(&m) == b.stat);
        match before {
            Some(b) if b.settled && unchanged_stat(b) => false,
            Some(b) => Self::of(path).is_none_or(|a| a.stat.size != b.stat.size || a.hash != b.hash),
            None => Self::of(path).is_some(),
        }
    }
}

impl Guard {
    /// Records, before `plan` runs in place at `root`, the identities of the `given` files —
    /// and, when the plan runs a project-level job (one that may touch any file), of every file
    /// of the project.
    pub(crate) fn before(root: &Path, given: &[&[String]], plan: &Plan) -> Self {
        let mut files: Vec<&String> = given.iter().flat_map(|g| g.iter()).collect();
        let project_level =
            plan.entries.iter().any(|e| matches!(&e.action, Action::Run(job) if job.files.is_empty()));
        let everything =
            if project_level { crate::surface::project_files(root).unwrap_or_default() } else { Vec::new() };
        files.extend(&everything);
        Self::take(root, &files)
    }

    /// Records the identities of `files` (relative to `root`) before a run.
    pub(crate) fn take(root: &Path, files: &[&String]) -> Self {
        let unique: BTreeSet<&String> = files.iter().copied().collect();
        let unique: Vec<&String> = unique.into_iter().collect();
        let before = unique.par_iter().map(|rel| ((*rel).clone(), Identity::of(&root.join(rel)))).collect();
        Self { root: root.to_path_buf(), before }
    }

    /// The watched files whose content changed since [`Guard::take`], sorted.
    fn changed(&self) -> Vec<String> {
        let entries: Vec<(&String, &Option<Identity>)> = self.before.iter().collect();
        entries
            .par_iter()
            .filter(|(rel, before)| Identity::content_differs(before.as_ref(), &self.root.join(rel)))
            .map(|(rel, _)| (*rel).clone())
            .collect()
    }

    /// Turns every language whose run changed a watched file into FAIL, naming the files. A
    /// change is blamed on the languages that were handed the file; one no language was handed
    /// goes to the project-level runs (which may touch anything), or to every run when there
    /// is none.
    pub(crate) fn verify(&self, results: &mut [LanguageResult]) {
        let changed = self.changed();
        if changed.is_empty() {
            return;
        }
        let ran = |r: &LanguageResult| !r.argv.is_empty() && r.duration > std::time::Duration::ZERO;
        let mut blamed: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for file in changed {
            let mut owners: Vec<usize> = (0..results.len())
                .filter(|&i| ran(&results[i]) && results[i].files.contains(&file))
                .collect();
            if owners.is_empty() {
                owners =
                    (0..results.len()).filter(|&i| ran(&results[i]) && results[i].files.is_empty()).collect();
            }
            if owners.is_empty() {
                owners = (0..results.len()).filter(|&i| ran(&results[i])).collect();
            }
            for i in owners {
                blamed.entry(i).or_default().push(file.clone());
            }
        }
        for (i, files) in blamed {
            let result = &mut results[i];
            let program = result.argv.first().and_then(|a| a.first()).cloned().unwrap_or_default();
            result.status = Status::Fail;
            result.reason = format!(
                "{program} modified files in place: {} (a lint must never write; only codeguard fix does)",
                name_list(&files)
            );
            let note = format!("\ncodeguard: {}\n", result.reason);
            result.output.push_str(&note);
        }
    }
}

/// `a, b, c` — or the first [`NAMED`] and how many more.
fn name_list(files: &[String]) -> String {
    let shown = files.iter().take(NAMED).map(String::as_str).collect::<Vec<_>>().join(", ");
    match files.len().checked_sub(NAMED) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn result(language: &str, program: &str, files: &[&str]) -> LanguageResult {
        let mut r = crate::outcome::LanguageResult::skipped(language, language, Status::Pass, "");
        r.argv = vec![vec![program.to_owned()]];
        r.files = files.iter().map(|f| (*f).to_owned()).collect();
        r.duration = Duration::from_millis(1);
        r
    }

    #[test]
    fn a_changed_file_fails_the_language_that_was_handed_it() {
        let dir = tempfile::tempdir().expect("dir");
        for (name, text) in [("a.py", "x = 1\n"), ("b.sh", "echo\n"), ("c.txt", "c\n")] {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let files: Vec<String> = ["a.py", "b.sh", "c.txt", "gone.py"].map(str::to_owned).to_vec();
        let guard = Guard::take(dir.path(), &files.iter().collect::<Vec<_>>());
        let mut results = [result("python", "ruff", &["a.py"]), result("shell", "shellcheck", &["b.sh"])];
        guard.verify(&mut results);
        assert!(results.iter().all(|r| r.status == Status::Pass), "nothing changed");

        std::fs::write(dir.path().join("a.py"), "x = 2\n").expect("rewrite");
        std::fs::write(dir.path().join("b.sh"), "echo\n").expect("same content, new mtime");
        guard.verify(&mut results);
        assert_eq!(results[0].status, Status::Fail);
        assert_eq!(
            results[0].reason,
            "ruff modified files in place: a.py (a lint must never write; only codeguard fix does)"
        );
        assert!(results[0].output.contains("codeguard: ruff modified files in place: a.py"));
        assert_eq!(results[1].status, Status::Pass, "identical content is not a change");

        std::fs::write(dir.path().join("c.txt"), "changed\n").expect("write");
        let mut results = [result("python", "ruff", &["a.py"]), result("rust", "cargo", &[])];
        guard.verify(&mut results);
        assert!(
            results[0].reason.starts_with("ruff modified files in place: a.py ("),
            "{}",
            results[0].reason
        );
        assert!(
            results[1].reason.starts_with("cargo modified files in place: c.txt ("),
            "a file no language was handed is blamed on the project-level run: {}",
            results[1].reason
        );
    }

    #[test]
    fn long_lists_are_summarised() {
        let files: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
        assert_eq!(name_list(&files), "f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 2 more");
        assert_eq!(name_list(&files[..2]), "f0, f1");
    }
}
