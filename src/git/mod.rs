//! The one git layer: every repository codeguard reads is opened or discovered here, and the
//! reads more than one module needs live here too.
//!
//! **In:** a directory (a worktree root to open, or any directory to discover a repository
//! from) and, for the reads, an opened [`gix::Repository`]. **Out:** the repository; the index
//! (the repository's own or the file `GIT_INDEX_FILE` names, see [`load_index`]); `HEAD`, commit
//! and tree reads and blobs ([`tree`]); the fingerprint of the index and `HEAD` ([`Observed`]);
//! the upstream of the current branch ([`upstream`]); the config values other modules ask for
//! ([`config`]). Every failure is one [`Error`], which callers map into their own errors.
//! **Never:** writes to a repository or runs a program a repository configures (filters, hooks,
//! fsmonitor); spawns `git` (through `crate::process`) only for what git alone can answer:
//! [`config::as_git_reads`] and [`advertised`]. The process environment is not read here: a caller passes the
//! index file it was given (`env.rs` is the only reader).
//!
//! What stays with the callers: the prediction's own walks, diffs and listings
//! (`surface/`), snapshot writing from blobs (`snapshot/`), and the content scan (`content.rs`)
//! use the [`gix::Repository`] they got from here.

pub(crate) mod config;
mod index;
mod pathspec;
mod refs;
mod status;
pub(crate) mod tree;

use std::path::{Path, PathBuf};

pub(crate) use index::{
    Observed, default_index, fingerprint, first_conflict, head_commit, index_digest, is_ignored, load_index,
    observe_index, sorted, tracked_files, untracked,
};
pub(crate) use pathspec::Matcher;
pub(crate) use refs::{Peeled, advertised, parse_id, peel_tags, upstream};
pub(crate) use status::{WorktreeChange, worktree_status};
pub(crate) use tree::{commit_tree, diff_trees, head_file, head_tree, tree_changes, tree_index};

/// Why a repository could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No repository is at the path (or, when discovering, at or above it).
    #[error("cannot open the git repository at {path}: {message}")]
    NotARepository {
        /// The path given.
        path: PathBuf,
        /// gix's explanation.
        message: String,
    },
    /// A repository is there but could not be opened (unreadable, bad configuration, not trusted).
    #[error("cannot open the git repository at {path}: {message}")]
    Open {
        /// The path given.
        path: PathBuf,
        /// gix's explanation.
        message: String,
    },
    /// The repository has no worktree (bare), where one is needed.
    #[error("the repository at {0} has no worktree")]
    Bare(PathBuf),
    /// The index file could not be read.
    #[error("reading the index: {message}")]
    Index {
        /// The index file.
        path: PathBuf,
        /// gix's explanation.
        message: String,
    },
    /// `HEAD` or a reference could not be read.
    #[error("{context}: {message}")]
    Ref {
        /// What was being read.
        context: &'static str,
        /// gix's explanation.
        message: String,
    },
    /// An object (commit, tree, blob) could not be read.
    #[error("{context}: {message}")]
    Object {
        /// What was being read.
        context: &'static str,
        /// gix's explanation.
        message: String,
    },
    /// A configuration value could not be read.
    #[error("cannot read {key}: {message}")]
    Config {
        /// The key (`core.hooksPath`).
        key: &'static str,
        /// gix's explanation.
        message: String,
    },
}

impl Error {
    /// gix's own explanation, without what codeguard was doing (`None` for [`Error::Bare`]).
    pub fn cause(&self) -> Option<&str> {
        match self {
            Error::NotARepository { message, .. }
            | Error::Open { message, .. }
            | Error::Index { message, .. }
            | Error::Ref { message, .. }
            | Error::Object { message, .. }
            | Error::Config { message, .. } => Some(message),
            Error::Bare(_) => None,
        }
    }

    /// A mapper for a failed object read.
    pub(crate) fn object<E: std::fmt::Display>(context: &'static str) -> impl FnOnce(E) -> Self {
        move |e| Error::Object { context, message: e.to_string() }
    }

    /// A mapper for a failed read of `HEAD` or a reference.
    pub(crate) fn reference<E: std::fmt::Display>(context: &'static str) -> impl FnOnce(E) -> Self {
        move |e| Error::Ref { context, message: e.to_string() }
    }

    /// The error for a failed open or discovery at `path`: no repository there, or one that
    /// could not be opened.
    fn opening(path: &Path, e: &gix::Error) -> Self {
        let (path, message) = (path.to_owned(), e.to_string());
        if e.is_not_found() { Error::NotARepository { path, message } } else { Error::Open { path, message } }
    }
}

/// Opens the repository whose worktree is (or contains) `root`, as gix opens a directory
/// (no upward search beyond what `gix::open` does); a bare repository is [`Error::Bare`].
pub(crate) fn open_worktree(root: &Path) -> Result<gix::Repository, Error> {
    let options = truthful(<gix::open::Options as gix::sec::trust::DefaultForLevel>::default_for_level(
        gix::sec::Trust::Full,
    ));
    #[expect(clippy::disallowed_methods, reason = "the git layer is the one opener of repositories")]
    let repo = gix::open_opts(root, options).map_err(|e| Error::opening(root, &e))?;
    if repo.workdir().is_none() {
        return Err(Error::Bare(root.to_owned()));
    }
    Ok(repo)
}

/// The repository containing `dir`, found upwards as git finds it; bare repositories too.
pub(crate) fn discover(dir: &Path) -> Result<gix::Repository, Error> {
    use gix::sec::trust::DefaultForLevel as _;
    let trust = gix::sec::trust::Mapping {
        full: truthful(gix::open::Options::default_for_level(gix::sec::Trust::Full)),
        reduced: truthful(gix::open::Options::default_for_level(gix::sec::Trust::Reduced)),
    };
    #[expect(clippy::disallowed_methods, reason = "the git layer is the one opener of repositories")]
    let found =
        gix::ThreadSafeRepository::discover_opts(dir, gix::discover::upwards::Options::default(), trust);
    found.map(gix::Repository::from).map_err(|e| Error::opening(dir, &e))
}

/// Every repository is read as git stores and sends it: replace refs (`git replace`,
/// `refs/replace/*`) are not applied. git's commit, push and fsck use the real objects, so a
/// replacement must never stand in for the content that lands or leaves.
fn truthful(options: gix::open::Options) -> gix::open::Options {
    options.config_overrides(["core.useReplaceRefs=false"])
}

/// The repository containing `dir`, found upwards as git finds it, which must have a worktree
/// ([`Error::Bare`] names `dir` otherwise).
pub(crate) fn discover_worktree(dir: &Path) -> Result<gix::Repository, Error> {
    let repo = discover(dir)?;
    if repo.workdir().is_none() {
        return Err(Error::Bare(dir.to_owned()));
    }
    Ok(repo)
}

/// The worktree root of an opened repository ([`Error::Bare`] when it has none).
pub(crate) fn workdir(repo: &gix::Repository) -> Result<&Path, Error> {
    repo.workdir().ok_or_else(|| Error::Bare(repo.path().to_owned()))
}

#[cfg(test)]
pub(crate) mod tests;
