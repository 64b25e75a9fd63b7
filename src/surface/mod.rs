//! Predicts the content a commit or push would carry, per repository.
//!
//! **In:** a repository root, a [`Mode`], and the ordered [`StagingAction`]s that the shell
//! command would run *in that repository* (the caller splits per repository, so another
//! repository's `git add -A` never widens this one).
//! **Out:** a [`Surface`]: the lanes involved, the exact changed paths (repo-relative, sorted),
//! deletions, the push range, the recipe the snapshot follows (a [`Base`] listing plus
//! [`Overlay`]s), the reasons the prediction is not exact, and an
//! [`Observed`](crate::git::Observed) fingerprint of the index and `HEAD` taken while predicting.
//! **Never:** writes anything. It reads the index, `HEAD`, refs and the worktree through the git
//! layer (`crate::git`, and gix on the repository it opens) and never spawns `git`, never
//! refreshes or rewrites the index, never runs filters or hooks.
//!
//! The prediction simulates git on a *virtual* index and `HEAD` (see `surface/model/`):
//! it starts from the real index, applies every action in order (pathspecs matched with gix's
//! pathspec engine, relative to the action's working directory, `.gitignore` honoured through
//! gix's directory walk), and takes the content of the last commit point.

mod model;
mod ops;
mod push;
mod revs;
mod view;
mod writers;
mod written;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;

pub(crate) use ops::{for_repo, push_calls};
pub use push::PushBase;
pub(crate) use push::{
    PushAgainst, PushCall, PushRange, PushRefs, PushedHistory, landing, pushed, pushed_history,
};
pub(crate) use written::{GitDoors, judge_writes};

/// What the git command chain ends with in this repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A commit (no push).
    Commit,
    /// A push; `pending_commit` is true when the same chain commits in this repository first.
    Push {
        /// The chain commits before it pushes, so the pushed content includes that commit.
        pending_commit: bool,
    },
}

impl Mode {
    /// `"commit"` or `"push"`, as printed by `explain`.
    pub fn as_str(self) -> &'static str {
        self.git_command().as_str()
    }

    /// The git command this content is predicted for.
    pub fn git_command(self) -> crate::mode::Mode {
        match self {
            Mode::Commit => crate::mode::Mode::Commit,
            Mode::Push { .. } => crate::mode::Mode::Push,
        }
    }

    /// Whether a commit is made (a commit, or a push preceded by a commit).
    fn commits(self) -> bool {
        match self {
            Mode::Commit => true,
            Mode::Push { pending_commit } => pending_commit,
        }
    }
}

/// Pathspecs as given on a command line, with the directory they are relative to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pathspecs {
    /// The action's working directory relative to the repository root (`""` at the root,
    /// `"src/app"` below it). Relative pathspecs are resolved against it, as git does.
    pub cwd_rel: String,
    /// The pathspecs, unquoted: globs, directories, `:(exclude)`/`:!`, `:(literal)`, `:(top)`/`:/`.
    pub specs: Vec<String>,
    /// `git --literal-pathspecs` (or `GIT_LITERAL_PATHSPECS`): no globbing, no magic.
    pub literal: bool,
}

impl Pathspecs {
    /// The pathspecs compiled for matching in the worktree at `workdir`; an error is a reason
    /// for people (an unverified note).
    pub(crate) fn matcher(&self, workdir: &Path) -> Result<crate::git::Matcher, String> {
        crate::git::Matcher::new(&self.cwd_rel, &self.specs, self.literal, workdir)
    }

    /// Pathspecs relative to `cwd_rel`, with globbing on.
    pub fn new(cwd_rel: impl Into<String>, specs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self { cwd_rel: cwd_rel.into(), specs: specs.into_iter().map(Into::into).collect(), literal: false }
    }
}

/// One git operation that changes what gets committed, in chain order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StagingAction {
    /// `git add [-A|-u] [-f] [<pathspec>…]`. With no pathspecs, `-A`/`-u` act on the whole tree and
    /// a bare `git add` adds nothing.
    Add {
        /// The pathspecs and the directory they are relative to.
        specs: Pathspecs,
        /// `-A`/`--all`: also removals and untracked files (the default for pathspecs anyway).
        all: bool,
        /// `-u`/`--update`: tracked files only, never untracked ones.
        update: bool,
        /// `-f`/`--force`: ignored files may be added too.
        force: bool,
    },
    /// A plain `git commit` (commits the index as it stands).
    Commit,
    /// `git commit -a`: stages every tracked change (modifications and deletions), then commits.
    CommitAll,
    /// `git commit [--only] <paths>`: commits `HEAD` plus the worktree content of the given tracked
    /// paths, ignoring whatever else is staged.
    CommitOnly(Pathspecs),
    /// `git commit --include <paths>`: stages the tracked paths' worktree content, then commits the index.
    CommitInclude(Pathspecs),
    /// `git rm [--cached] <pathspec>…`: removes matching tracked paths from the index.
    Rm {
        /// The pathspecs and the directory they are relative to.
        specs: Pathspecs,
        /// `--cached`: the files stay on disk (and become untracked).
        cached: bool,
    },
    /// `git mv <from> <to>` (one source; split multi-source forms). Paths relative to `cwd_rel`.
    Mv {
        /// The action's working directory relative to the repository root.
        cwd_rel: String,
        /// The source path (a tracked file or directory).
        from: String,
        /// The destination path (moved *into* it when it is an existing directory).
        to: String,
    },
    /// `git add -N <pathspec>…`: matching untracked files become intent-to-add entries, which a
    /// later `commit -a` commits with their worktree content.
    IntentToAdd(Pathspecs),
    /// `git checkout [REV] -- <paths>`, `git restore --source=REV --staged --worktree`: the
    /// matching entries of REV (of the index when `rev` is `None`) are written to the worktree,
    /// and to the index when `index` is true.
    CheckoutPaths {
        /// The revision the content comes from; `None`: the index.
        rev: Option<String>,
        /// The paths, relative to their directory.
        specs: Pathspecs,
        /// The index is written too (not only the worktree).
        index: bool,
        /// Overlay mode (`git checkout`): tracked paths REV lacks are kept; without it
        /// (`git restore`, `--no-overlay`) they are removed.
        overlay: bool,
    },
    /// `git reset [REV] -- <paths>`, `git restore --staged`, `git read-tree REV`: the matching
    /// index entries (all of them when `specs` is empty) become REV's; the worktree is untouched.
    ResetIndex {
        /// The revision the entries come from.
        rev: String,
        /// The paths (none: the whole index).
        specs: Pathspecs,
    },
    /// `git reset --soft|--mixed|--hard REV`: `HEAD` moves to REV; the index follows unless soft,
    /// the worktree follows when hard. The next commit grows from REV.
    Reset {
        /// The revision `HEAD` moves to.
        rev: String,
        /// The index becomes REV's tree (`--mixed`, `--hard`).
        index: bool,
        /// The tracked worktree files become REV's too (`--hard`).
        worktree: bool,
    },
    /// `git checkout REV` / `git switch REV` (`--orphan`: `rev` is `None`): `HEAD` moves to REV,
    /// index entries that match the old `HEAD` follow, staged changes are carried over.
    Switch {
        /// The revision switched to; `None` for an orphan branch (an empty `HEAD`).
        rev: Option<String>,
    },
    /// `git update-index --chmod=±x <paths>`: the index entries' executable bit.
    Chmod {
        /// The paths (literal).
        specs: Pathspecs,
        /// `+x` (true) or `-x`.
        executable: bool,
    },
    /// `git update-index --cacheinfo MODE,ID,PATH`: an index entry set to a blob by id.
    CacheInfo {
        /// Repo-relative path.
        path: String,
        /// The blob id, in hex.
        id: String,
        /// The mode, in octal as written.
        mode: String,
    },
    /// `git stash [push|save] [-u]` without pathspecs: the index and the tracked worktree files
    /// go back to `HEAD` (untracked files too with `-u`), remembered for a later `pop`.
    StashPush {
        /// `-u`/`--include-untracked`/`-a`.
        untracked: bool,
        /// `-k`/`--keep-index`: the index stays as it is.
        keep_index: bool,
    },
    /// `git stash pop|apply [--index] [stash@{0}]`: the stash (made earlier in the command, else
    /// `refs/stash`) comes back into the worktree; new files and, with `--index`, the staged
    /// changes come back into the index.
    StashApply {
        /// `--index`.
        index: bool,
    },
    /// `git commit --amend`: the next commit replaces `HEAD`, so it also carries what `HEAD`
    /// changed against its parent.
    Amend,
    /// Commits (or staged changes, when `commit` is false) made from content committed elsewhere:
    /// merge, cherry-pick, revert, rebase, am, apply, commit-tree, pull.
    Replay {
        /// What is replayed.
        replay: Replay,
        /// It commits (false: `--no-commit`, `--squash`, `apply --index`).
        commit: bool,
        /// The command words, for reasons.
        text: String,
    },
    /// Staging whose content cannot be known statically (`git add -p`, `--pathspec-from-file`,
    /// `$var` paths…): the reason ends up in [`Surface::unverified`].
    Unverifiable(String),
}

/// What a [`StagingAction::Replay`] replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// `git merge REV…`, `git pull` (the upstream as fetched so far): each REV's changes since
    /// its merge base with `HEAD`.
    Merge(Vec<String>),
    /// `git cherry-pick REV…`: each commit's own changes (`A..B`: the commits of the range).
    Pick(Vec<String>),
    /// `git revert REV…`: each commit's changes, undone.
    Revert(Vec<String>),
    /// `git rebase [--onto ONTO] [UPSTREAM]`: the current branch's commits that UPSTREAM (the
    /// configured upstream by default) does not have, replayed on ONTO (UPSTREAM by default).
    Rebase {
        /// The upstream operand.
        upstream: Option<String>,
        /// `--onto`.
        onto: Option<String>,
    },
    /// `git am` / `git apply --index|--cached` patch files (absolute paths): the paths they
    /// touch are read from them; their new content is not known before they apply.
    Patches(Vec<PathBuf>),
    /// `git commit-tree`: a commit object written from a tree (predicted as the index).
    CommitTree,
}

/// What a path is in the repository before a command stages it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathKind {
    /// In the index (or added by an earlier step).
    Tracked,
    /// Not in the index, not ignored.
    Untracked,
    /// Not in the index and ignored.
    Ignored,
}

impl StagingAction {
    /// Whether this action may stage `path` (`None`: a path only known at run time) with the
    /// content the worktree has when it runs. `kind` says what the path is; `selects` whether a
    /// pathspec selects it. Staging that cannot be known may take anything.
    pub(crate) fn takes_from_worktree(
        &self,
        path: Option<&str>,
        kind: &dyn Fn() -> PathKind,
        selects: &dyn Fn(&Pathspecs) -> bool,
    ) -> bool {
        let tracked = || path.is_none() || kind() == PathKind::Tracked;
        match self {
            StagingAction::Add { specs, all, update, force } => {
                let selected = if specs.specs.is_empty() { *all || *update } else { selects(specs) };
                selected
                    && (path.is_none()
                        || match kind() {
                            PathKind::Tracked => true,
                            PathKind::Untracked => !*update,
                            // A literal path (`update-index --add`) is added whatever the ignore
                            // rules say.
                            PathKind::Ignored => !*update && (*force || specs.literal),
                        })
            }
            StagingAction::CommitAll => tracked(),
            StagingAction::CommitOnly(specs) | StagingAction::CommitInclude(specs) => {
                selects(specs) && tracked()
            }
            StagingAction::Unverifiable(_) => true,
            StagingAction::Commit
            | StagingAction::Rm { .. }
            | StagingAction::Mv { .. }
            | StagingAction::IntentToAdd(_)
            | StagingAction::CheckoutPaths { .. }
            | StagingAction::ResetIndex { .. }
            | StagingAction::Reset { .. }
            | StagingAction::Switch { .. }
            | StagingAction::Chmod { .. }
            | StagingAction::CacheInfo { .. }
            | StagingAction::StashPush { .. }
            | StagingAction::StashApply { .. }
            | StagingAction::Amend
            | StagingAction::Replay { .. } => false,
        }
    }

    /// Whether this action makes a commit.
    fn is_commit(&self) -> bool {
        match self {
            StagingAction::Commit
            | StagingAction::CommitAll
            | StagingAction::CommitOnly(_)
            | StagingAction::CommitInclude(_) => true,
            StagingAction::Replay { commit, .. } => *commit,
            StagingAction::Add { .. }
            | StagingAction::Rm { .. }
            | StagingAction::Mv { .. }
            | StagingAction::IntentToAdd(_)
            | StagingAction::CheckoutPaths { .. }
            | StagingAction::ResetIndex { .. }
            | StagingAction::Reset { .. }
            | StagingAction::Switch { .. }
            | StagingAction::Chmod { .. }
            | StagingAction::CacheInfo { .. }
            | StagingAction::Amend
            | StagingAction::StashPush { .. }
            | StagingAction::StashApply { .. }
            | StagingAction::Unverifiable(_) => false,
        }
    }
}

/// Knobs for [`predict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceOptions {
    /// Ignore actions after the last commit action (`git commit -m x && git add .env` does not
    /// put `.env` into the commit). When false, trailing actions count as if a commit followed
    /// them (the conservative choice when the chain's control flow is not fully known).
    pub through_last_commit: bool,
}

impl Default for SurfaceOptions {
    fn default() -> Self {
        Self { through_last_commit: true }
    }
}

/// Which kinds of change the surface draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lanes {
    /// Content already in the index (`git diff --cached`).
    pub staged: bool,
    /// Tracked worktree changes not yet staged (`git diff`).
    pub unstaged: bool,
    /// Untracked files (not ignored unless forced).
    pub untracked: bool,
}

impl Lanes {
    /// The lane names in fixed order, as printed by `explain`.
    pub fn names(self) -> Vec<&'static str> {
        [(self.staged, "staged"), (self.unstaged, "unstaged"), (self.untracked, "untracked")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect()
    }
}

/// What a predicted commit grows from: its parent-to-be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GrowsFrom {
    /// `HEAD`, as usual.
    #[default]
    Head,
    /// Another commit (the amended commit's parent, the target of `reset --soft`, …).
    Commit(ObjectId),
    /// Nothing: the new commit is a root commit.
    Nothing,
}

/// The listing the snapshot starts from before applying overlays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The index entries (stage 0; intent-to-add entries are not content).
    Index,
    /// The tree of `HEAD` (a pure push, or `git commit --only`).
    HeadTree,
    /// The tree of a given commit (what git's pre-push hook says is being pushed): immutable
    /// content, so later changes to the index or `HEAD` do not affect it.
    Tree(ObjectId),
}

/// Where an overlaid path's content comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverlaySource {
    /// The current worktree file at this repo-relative path (copied at materialisation time).
    Worktree {
        /// Repo-relative worktree path (differs from the overlay path after a `git mv`).
        from: String,
    },
    /// A blob already in the object database (e.g. an index entry moved by `git mv`).
    Blob {
        /// The object id.
        id: ObjectId,
        /// The git mode (file, executable, symlink, gitlink).
        mode: gix::index::entry::Mode,
    },
    /// The path is absent from the committed content (deleted, or never really added).
    Absent,
    /// Given bytes: never a prediction of what lands, only what the linters are run with in its
    /// place (the base commit's rule configuration, `crate::config_change`).
    Bytes(Vec<u8>),
}

/// A change applied to the [`Base`] listing to obtain the predicted content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    /// Repo-relative path in the predicted content.
    pub path: String,
    /// Where its content comes from.
    pub source: OverlaySource,
}

/// The predicted content of a commit or push in one repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    /// The repository's worktree root.
    pub root: PathBuf,
    /// Commit or push.
    pub mode: Mode,
    /// The lanes the content draws from.
    pub lanes: Lanes,
    /// Changed files present in the predicted content, repo-relative, sorted, deletions excluded:
    /// what the linters should run on.
    pub paths: Vec<String>,
    /// Files the commit/push deletes, repo-relative, sorted.
    pub deleted: Vec<String>,
    /// The listing the snapshot starts from.
    pub base: Base,
    /// Changes to apply over the base listing, sorted by path.
    pub overlays: Vec<Overlay>,
    /// The unpushed range, for a push.
    pub push: Option<PushRange>,
    /// Why the prediction is not exact (empty when it is).
    pub unverified: Vec<String>,
    /// Why what lands cannot be predicted at all (a patch applied to the index that cannot be
    /// read now): the commit must be blocked as uncheckable.
    pub block: Option<String>,
    /// The commit the predicted commit grows from (`--amend`: `HEAD`'s parent; `reset --soft
    /// REV`, a branch switch, a rebase: that commit; an orphan branch or an amended root commit:
    /// nothing (an orphan branch, amending a root commit). Pre-existing findings are measured there.
    pub grows_from: GrowsFrom,
    /// The index and `HEAD` as they were while predicting.
    pub observed: crate::git::Observed,
    /// The index file read instead of the repository's own (git's `GIT_INDEX_FILE` in a
    /// pre-commit hook); `None` for the repository's index.
    pub index_file: Option<PathBuf>,
    /// Changed or untracked worktree files with names that are not UTF-8, which the prediction
    /// cannot follow (see `unverified`) but a staging step of the command may take: repo-relative
    /// raw paths, for the safety scan only. Empty when nothing is staged from the worktree.
    pub non_utf8_worktree: Vec<PathBuf>,
}

/// Why a prediction could not be made at all.
#[derive(Debug, thiserror::Error)]
pub enum SurfaceError {
    /// The repository could not be opened (not one, bare) or read (index, `HEAD`, trees).
    #[error(transparent)]
    Repository(#[from] crate::git::Error),
    /// Reading what the prediction walks (history, refs, diffs, the worktree status) failed.
    #[error("{context}: {message}")]
    Git {
        /// What was being read.
        context: &'static str,
        /// gix's explanation.
        message: String,
    },
}

impl SurfaceError {
    fn git(context: &'static str) -> impl FnOnce(gix::Error) -> Self {
        move |e| SurfaceError::Git { context, message: e.to_string() }
    }
}

/// Predicts the content `actions` would commit (and, for a push, what would be pushed) in the
/// repository whose worktree root is `repo_root`.
pub fn predict(
    repo_root: &Path,
    mode: Mode,
    actions: &[StagingAction],
    options: &SurfaceOptions,
) -> Result<Surface, SurfaceError> {
    predict_with_index(repo_root, mode, actions, *options, None, &[])
}

fn predict_with_index(
    repo_root: &Path,
    mode: Mode,
    actions: &[StagingAction],
    options: SurfaceOptions,
    index_file: Option<&Path>,
    pushes: &[PushCall],
) -> Result<Surface, SurfaceError> {
    let repo = crate::git::open_worktree(repo_root)?;
    let actions = trimmed(actions, options);
    let plain = mode == Mode::Commit && actions.iter().all(|a| matches!(a, StagingAction::Commit));
    let view = if plain {
        view::RepoView::load_for_plain_commit(&repo, index_file)?
    } else {
        view::RepoView::load(&repo, worktree_scan(mode, actions), index_file)?
    };
    let commit = mode.commits().then(|| model::simulate(&repo, &view, actions));
    let (push, others) = match mode {
        Mode::Commit => (None, None),
        Mode::Push { .. } => {
            let others = push::other_refs(&repo, &view, pushes)?;
            let range = if others.current {
                push::range_to(&repo, &view, others.current_remote.as_deref())?
            } else {
                PushRange {
                    base: PushBase::RemoteTracking { refs: 0 },
                    commits: 0,
                    changed: Vec::new(),
                    deleted: Vec::new(),
                    baseline: None,
                    introduced: Vec::new(),
                    messages: Vec::new(),
                }
            };
            (Some(range), Some(others))
        }
    };
    let mut surface = assemble(view, mode, commit, push, others);
    surface.index_file = index_file.map(Path::to_path_buf);
    Ok(surface)
}

/// The surface of a plain `git commit`: exactly what is staged.
pub fn staged_only(repo_root: &Path) -> Result<Surface, SurfaceError> {
    staged_from(repo_root, None)
}

/// Exactly what is staged in `index_file` (the repository's index when `None`): what git's
/// pre-commit hook is asked about. `git commit -a` and `git commit <paths>` point the hook at a
/// temporary index through `GIT_INDEX_FILE`; the caller passes that path here.
pub(crate) fn staged_from(repo_root: &Path, index_file: Option<&Path>) -> Result<Surface, SurfaceError> {
    predict_with_index(repo_root, Mode::Commit, &[], SurfaceOptions::default(), index_file, &[])
}

/// Tracked changes plus untracked, not-ignored files compared with `HEAD` (for `check --changed`):
/// the surface of `git add -A && git commit`.
pub fn working_changes(repo_root: &Path) -> Result<Surface, SurfaceError> {
    let add_all = StagingAction::Add { specs: Pathspecs::default(), all: true, update: false, force: false };
    predict(repo_root, Mode::Commit, &[add_all, StagingAction::Commit], &SurfaceOptions::default())
}

/// Whether `dir` is inside the worktree of a git repository, found upwards as git finds it (the
/// error says why not).
pub(crate) fn within_worktree(dir: &Path) -> Result<(), SurfaceError> {
    crate::git::discover_worktree(dir)?;
    Ok(())
}

/// Every file of the worktree that git considers part of the project: tracked files still on
/// disk plus untracked, not-ignored ones, sorted (for whole-tree checks).
/// The files of the project at `root`: as git lists them (tracked, and untracked not ignored)
/// when `root` is a worktree, else every file under it; only those present as files. The one
/// listing `check`, `fix`, `detect`, `init`, `doctor` and the session start read a project by.
pub(crate) fn listing(root: &Path) -> std::io::Result<Vec<String>> {
    match project_files(root) {
        Ok(files) => Ok(files.into_iter().filter(|f| root.join(f).is_file()).collect()),
        Err(_) => crate::files::project_files(root),
    }
}

/// Tracked (not deleted) and untracked, not ignored files of the worktree at `repo_root`.
pub(crate) fn project_files(repo_root: &Path) -> Result<Vec<String>, SurfaceError> {
    let repo = crate::git::open_worktree(repo_root)?;
    let view = view::RepoView::load(&repo, view::WorktreeScan::Changes, None)?;
    let tracked = view.index.keys().filter(|p| !matches!(view.pending.get(*p), Some(view::Pending::Deleted)));
    let untracked =
        view.pending.iter().filter(|(_, p)| matches!(p, view::Pending::Untracked { .. })).map(|(k, _)| k);
    let mut files: Vec<String> = tracked.chain(untracked).cloned().collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// The actions that count: through the last commit when asked (and when there is one).
fn trimmed(actions: &[StagingAction], options: SurfaceOptions) -> &[StagingAction] {
    match actions.iter().rposition(StagingAction::is_commit) {
        Some(last) if options.through_last_commit => &actions[..=last],
        Some(_) | None => actions,
    }
}

/// How much of the worktree the actions need: none for a plain commit or a pure push (the
/// index and `HEAD` suffice), ignored files only when some `add -f` could take them.
fn worktree_scan(mode: Mode, actions: &[StagingAction]) -> view::WorktreeScan {
    let reads_worktree = |a: &StagingAction| match a {
        StagingAction::Commit
        | StagingAction::Unverifiable(_)
        | StagingAction::Amend
        | StagingAction::Switch { .. }
        | StagingAction::Chmod { .. }
        | StagingAction::CacheInfo { .. }
        | StagingAction::Replay { .. } => false,
        StagingAction::IntentToAdd(_)
        | StagingAction::StashPush { .. }
        | StagingAction::StashApply { .. }
        | StagingAction::CheckoutPaths { .. }
        | StagingAction::ResetIndex { .. }
        | StagingAction::Reset { .. }
        | StagingAction::Add { .. }
        | StagingAction::CommitAll
        | StagingAction::CommitOnly(_)
        | StagingAction::CommitInclude(_)
        | StagingAction::Rm { .. }
        | StagingAction::Mv { .. } => true,
    };
    if !mode.commits() || !actions.iter().any(reads_worktree) {
        view::WorktreeScan::Skip
    } else if actions.iter().any(|a| matches!(a, StagingAction::Add { force: true, .. })) {
        view::WorktreeScan::WithIgnored
    } else {
        view::WorktreeScan::Changes
    }
}

/// Combines the commit simulation and the push range into a [`Surface`].
fn assemble(
    view: view::RepoView,
    mode: Mode,
    commit: Option<model::Outcome>,
    push: Option<PushRange>,
    others: Option<push::OtherRefs>,
) -> Surface {
    let commits = commit.is_some();
    let block = commit.as_ref().and_then(|o| o.block.clone());
    let grows_from_commit = commit.as_ref().map_or(GrowsFrom::Head, |o| o.grows_from_commit);
    let (mut content, lanes, mut unverified, from_head, grows_from, mut carried) = match commit {
        Some(o) => (o.content, o.lanes, o.unverified, o.only, o.grows_from, o.carried),
        None => (view.head.clone(), Lanes::default(), Vec::new(), true, Vec::new(), BTreeSet::new()),
    };
    let (base, base_listing) =
        if from_head { (Base::HeadTree, &view.head) } else { (Base::Index, &view.index) };
    if let Some(others) = others {
        for (path, source) in others.files {
            match content.get(&path) {
                Some(now) if *now == source => {}
                Some(now) if view.head.get(&path) != Some(now) => unverified.push(format!(
                    "{path} is changed both by this command and by another pushed ref; it is checked as committed here"
                )),
                Some(_) | None => {
                    content.insert(path.clone(), source);
                }
            }
            carried.insert(path);
        }
        carried.extend(others.deleted.into_iter().filter(|p| !model::present(&content, p)));
        unverified.extend(others.unverified);
    }
    let overlays = model::overlays(base_listing, &content, &mut unverified);
    let (mut paths, mut deleted) = model::changes(&view.head, &content);
    for listing in &grows_from {
        let (changed, removed) = model::changes(listing, &content);
        paths.extend(changed);
        deleted.extend(removed);
    }
    for path in carried {
        if model::present(&content, &path) {
            paths.push(path);
        } else {
            deleted.push(path);
        }
    }
    if let Some(range) = &push {
        paths.extend(range.changed.iter().filter(|p| model::present(&content, p)).cloned());
        deleted.extend(range.deleted.iter().filter(|p| !model::present(&content, p)).cloned());
    }
    paths.sort();
    paths.dedup();
    deleted.sort();
    deleted.dedup();
    unverified.extend(view.unverified);
    let non_utf8_worktree = if commits { view.non_utf8_worktree } else { Vec::new() };
    Surface {
        root: view.workdir,
        mode,
        lanes,
        paths,
        deleted,
        base,
        overlays,
        push,
        unverified,
        block,
        grows_from: grows_from_commit,
        observed: view.observed,
        index_file: None,
        non_utf8_worktree,
    }
}
