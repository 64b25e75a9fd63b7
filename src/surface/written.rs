//! Content the command writes before it commits: it does not exist when the gate runs, so it
//! cannot be checked now.
//!
//! **In:** an [`Intent`] whose repositories carry the files the command writes
//! ([`RepoIntent::writes`]). **Out:** per repository, when a written path would land — a later
//! step of the same repository stages it from the worktree (`git add <pathspec>` matching it,
//! `git add -A`/`.`/a directory, `-u`/`commit -a` for a tracked path, `commit <paths>`) and a
//! commit follows — a block with the directive to run the write first and commit in a separate
//! call; unless codeguard's own pre-commit hook is installed in that repository (and the commit
//! does not skip hooks), in which case git checks the real content at commit time and the note
//! says so. A write to an ignored file, outside the repository, or outside every later add's
//! pathspecs does not land. A write whose path is only known at run time lands when any later
//! step stages from the worktree, and any write lands when a construct that cannot be seen into
//! runs in the repository ([`RepoIntent::opaque`]: it may stage and commit anything). **Never:** writes anything; reads the index, `.gitignore`
//! rules and the hooks directory through gix.

use std::path::Path;

use crate::bash::GitOp;
use crate::intent::{BoundOp, BoundWrite, Intent, RepoIntent};

use super::{PathKind, Pathspecs};

/// codeguard's git hooks in one repository, as the installer reads them
/// (`crate::install::hook_reach::doors`): where git runs hooks from and which of codeguard's run
/// there with nothing able to skip them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitDoors {
    /// The hooks directory git runs them from.
    pub hooks: std::path::PathBuf,
    /// codeguard's pre-commit hook runs there unconditionally.
    pub pre_commit: bool,
    /// codeguard's reference-transaction backstop runs there unconditionally.
    pub backstop: bool,
}

/// Applies the rule to every repository of `intent`. `doors` reads codeguard's git hooks in a
/// repository (by its root); `session` says, when asked, whether the agent's shell carries
/// codeguard's git backstop (its session hooks directory as git's `core.hooksPath`): then git
/// judges the real content whatever the command writes, unless the commit's own environment or
/// `-c` moves the hooks.
pub(crate) fn judge_writes(
    intent: &mut Intent,
    doors: &dyn Fn(&Path) -> Option<GitDoors>,
    session: &dyn Fn() -> Option<&'static str>,
) {
    // A write outside every repository may be to the session's hooks directory or the host's
    // settings themselves: the session backstop is not counted on after one. Asked once.
    let outside = intent.writes_outside;
    let asked = std::cell::OnceCell::new();
    let session = || *asked.get_or_init(|| if outside { None } else { session() });
    for repo in &mut intent.repos {
        if repo.writes.is_empty() || repo.block.is_some() {
            continue;
        }
        let Some((write, commit)) = first_landing(repo) else { continue };
        let what = write
            .path
            .as_deref()
            .map_or_else(|| "files only known at run time".to_owned(), |p| format!("`{p}`"));
        // Only the program's name: the rest of the words may hold the very text written (a key).
        // An empty text: the command could not be parsed exactly (what it writes is unknown).
        let writer = write
            .text
            .split_whitespace()
            .next()
            .map_or_else(|| "a command codeguard could not parse exactly".to_owned(), |w| format!("`{w}`"));
        // Only `git commit` runs the pre-commit hook; merge/cherry-pick `--continue`, am and
        // commit-tree do not.
        let hooks_run = commit.is_some_and(|c| matches!(c.op, GitOp::Commit { no_verify: false, .. }));
        let commit_text = commit.map_or_else(|| "a later step".to_owned(), |c| format!("`{}`", c.text));
        // The session backstop is named by git's environment: it counts where that environment
        // is known — a commit this command spells out without changing it, or a known program
        // that keeps it (a release tool) — not where unseen code may set its own.
        let judged = match commit {
            Some(c) if c.config_env => None,
            Some(_) => git_judges(repo, doors, hooks_run).or_else(session),
            None if repo.opaque_env => None,
            None => session(),
        };
        if let Some(judge) = judged {
            let note = format!(
                "{writer} writes or deletes {what} in this same call before {commit_text} commits it; {judge} (not checked now)"
            );
            if !repo.unverified.contains(&note) {
                repo.unverified.push(note);
            }
        } else {
            repo.block = Some(format!(
                "{writer} writes or deletes {what} in this same call before {commit_text} commits it: that content does not exist yet, so it cannot be checked now. Run the write first, then commit in a separate call (or install codeguard's git backstop — `codeguard install --host <agent>` for the agent's shell, or `codeguard install --git-hooks` in this repository — so git checks the real content at commit time)"
            ));
        }
    }
}

/// The first write that lands, and the commit that takes it.
fn first_landing(repo: &RepoIntent) -> Option<(BoundWrite, Option<&BoundOp>)> {
    let mut state = State::open(&repo.root);
    for write in &repo.writes {
        if write.delete && write.path.as_deref().is_some_and(|p| !state.tracked(p)) {
            continue; // deleting untracked files changes nothing a commit takes
        }
        for (i, op) in repo.ops.iter().enumerate().skip(write.before_op) {
            if !state.stages(&repo.root, op, write.path.as_deref(), &repo.ops[write.before_op..i]) {
                continue;
            }
            if let Some(commit) =
                repo.ops[i..].iter().find(|o| o.op.mode() == Some(crate::mode::Mode::Commit))
            {
                return Some((write.clone(), Some(commit)));
            }
        }
        if repo.opaque {
            // Code that cannot be seen runs here: it may stage (even `-f`) and commit anything.
            return Some((write.clone(), None));
        }
    }
    None
}

/// What is known about the repository: its index (tracked paths) and ignore rules.
struct State {
    repo: Option<gix::Repository>,
    index: Option<gix::worktree::Index>,
}

impl State {
    fn open(root: &Path) -> Self {
        let repo = crate::git::open_worktree(root).ok();
        let index = repo.as_ref().and_then(|r| crate::git::load_index(r, None).ok());
        Self { repo, index }
    }

    /// Whether the index holds `path`, or files below it when it is a directory.
    fn tracked(&self, path: &str) -> bool {
        // Unreadable: assume tracked (the conservative reading).
        let Some(index) = &self.index else { return true };
        if index.entry_by_path(path.into()).is_some() {
            return true;
        }
        let below = format!("{}/", path.trim_end_matches('/'));
        index.entries().iter().any(|e| e.path(index).starts_with(below.as_bytes()))
    }

    fn is_dir(&self, path: &str) -> bool {
        self.repo.as_ref().and_then(|r| r.workdir()).is_some_and(|w| w.join(path).is_dir())
    }

    fn ignored(&self, path: &str) -> bool {
        let (Some(repo), Some(index)) = (&self.repo, &self.index) else { return false };
        crate::git::is_ignored(repo, index, path, self.is_dir(path))
    }

    /// Whether `op` stages `path` (`None`: a path only known at run time) from the worktree, as
    /// its staging actions say (`ops::op_actions`, the surface's own reading of the op).
    /// `earlier` are the repository's operations between the write and `op`: one that adds
    /// makes the path tracked for a later `commit -a`.
    fn stages(&mut self, root: &Path, op: &BoundOp, path: Option<&str>, earlier: &[BoundOp]) -> bool {
        let kind = || {
            let Some(p) = path else { return PathKind::Tracked };
            if self.tracked(p) || earlier.iter().any(|e| matches!(&e.op, GitOp::Add { .. })) {
                PathKind::Tracked
            } else if self.ignored(p) {
                PathKind::Ignored
            } else {
                PathKind::Untracked
            }
        };
        let selects = |specs: &Pathspecs| -> bool {
            let Some(path) = path else { return true };
            specs.matcher(root).map_or(true, |mut m| m.matches(path, false))
        };
        super::ops::op_actions(root, op).iter().any(|a| a.takes_from_worktree(path, &kind, &selects))
    }
}

/// Which of codeguard's git hooks will judge the real content when the command commits, in
/// words for the note: codeguard's own pre-commit hook (when the commit runs hooks) or its
/// reference-transaction backstop (which no `--no-verify` skips), each only when git runs it
/// with nothing able to skip it (see `install::hook_reach::Reach::unconditional`: byte for byte the script
/// this codeguard writes, or pre-commit/prek running its `.legacy` one), and the command cannot
/// change that before it commits: it writes nothing inside `.git`, nothing in the hooks
/// directory, and no file whose path is only known at run time.
fn git_judges(
    repo: &RepoIntent,
    doors: &dyn Fn(&Path) -> Option<GitDoors>,
    hooks_run: bool,
) -> Option<&'static str> {
    let doors = doors(&repo.root)?;
    let hooks = doors.hooks.strip_prefix(&repo.root).ok().map(Path::to_path_buf);
    let touches_hooks = repo.writes_git_dir
        || repo.writes.iter().any(|w| {
            w.path.as_deref().is_none_or(|p| hooks.as_ref().is_some_and(|h| Path::new(p).starts_with(h)))
        });
    if touches_hooks {
        return None;
    }
    if hooks_run && doors.pre_commit {
        return Some(
            "codeguard's git pre-commit hook is installed in this repository, so git checks the real content at commit time",
        );
    }
    doors.backstop.then_some(
        "codeguard's git backstop (its reference-transaction hook) is installed in this repository, so git judges the real content before any branch or tag moves, --no-verify or not",
    )
}
