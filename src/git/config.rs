//! The git configuration values codeguard reads, as gix resolves them (the repository's config
//! over the user's and the system's).
//!
//! **In:** an opened repository (or, for [`alias`], a directory). **Out:** values.
//! **Never:** writes config, or reads a value a repository cannot be trusted with as a path
//! (`core.hooksPath` is read as a trusted path: only from config files gix trusts).

use std::path::{Path, PathBuf};

use super::Error;

/// `core.hooksPath` as configured (relative paths as written; git takes them relative to the
/// worktree root), `None` when unset.
pub(crate) fn hooks_path(repo: &gix::Repository) -> Result<Option<PathBuf>, Error> {
    repo.config_snapshot()
        .trusted_path("core.hooksPath")
        .map_err(|e| Error::Config { key: "core.hooksPath", message: e.to_string() })
}

/// A boolean value (`codeguard.skipGate`), `None` when unset or not a boolean.
pub(crate) fn boolean(repo: &gix::Repository, key: &str) -> Option<bool> {
    repo.config_snapshot().boolean(key)
}

/// A string value (`push.default`), `None` when unset.
pub(crate) fn string(repo: &gix::Repository, key: &str) -> Option<String> {
    repo.config_snapshot().string(key).map(|v| v.to_string())
}

/// The value of `alias.NAME` as git would read it in `dir`: the config of the repository
/// containing `dir` with the user's and the system config under it, or only those two outside a
/// repository.
pub(crate) fn alias(dir: &Path, name: &str) -> Option<String> {
    let value = match gix::discover(dir) {
        Ok(repo) => repo.config_snapshot().plumbing().string_by("alias", None, name),
        Err(_) => gix::config::File::from_globals().ok()?.string_by("alias", None, name),
    };
    value.map(|v| v.to_string())
}
