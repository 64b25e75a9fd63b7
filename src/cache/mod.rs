//! Content identity, the soft result cache, and per-file lint results.
//!
//! **In:** a worktree, a planned check, the environment. **Out:** a content [`identity::Identity`] (blake3
//! over what a check can see: files, index, `HEAD`, upstream — [`identity`]), a key that adds
//! the check's plan, registry, tools and environment ([`soft`], [`tool_identity`]), and stored complete
//! results under that key. **Never:** used by the hard gate, stores an UNVERIFIED result, or
//! trusts stat data it did not verify itself ([`stat`] says why and how).
//!
//! [`file_results`] is the one cache every entry point shares, the hard gate included: it keeps
//! one file's clean result of a linter that judges files alone, keyed by the bytes and everything
//! else the result depends on, so it can never stand for content it did not see.
//!
//! Identity files are stat'ed and hashed in parallel (rayon); a warm identity of a 10,000-file
//! tree reads only the files whose stat data changed.

pub(crate) mod file_results;
pub(crate) mod identity;
pub(crate) mod soft;
pub(crate) mod stat;
pub(crate) mod tool_identity;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

pub(crate) use soft::{CheckFacts, Hit, SoftKey};

/// The content stamp of one file (content and mode), for `PostToolUse` dedup keys; `None` when
/// it cannot be read or changes while it is read.
pub(crate) fn file_stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let before = stat::StatKey::of(&meta);
    let hash = identity::hash_file(path, &before).ok()?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&hash);
    hasher.update(&(meta.mode() & 0o170_777).to_le_bytes());
    Some(hasher.finalize().to_hex().to_string())
}
