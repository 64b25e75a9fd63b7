//! The caches under the state directory (the base-tree cache, the build caches): the one reading
//! of when a cache directory was last used, which ones a sweep removes, and how a directory is
//! taken out of use. `snapshot/trees.rs` and `run/warm.rs` keep their own bounds and ask here.

use std::path::{Path, PathBuf};

/// The stamp file in a cache directory: when it was last used (milliseconds since the epoch).
pub(crate) const LAST_USED: &str = ".last-used";

/// Records that the cache directory `dir` is being used now.
pub(crate) fn mark_used(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join(LAST_USED), super::now_ms().to_string())
}

/// When `dir` was last used (0: never recorded, or unreadable).
pub(crate) fn last_used(dir: &Path) -> u64 {
    read_number(&dir.join(LAST_USED))
}

/// A number written in a stamp file (0 when absent or unreadable).
pub(crate) fn read_number(path: &Path) -> u64 {
    std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0)
}

/// One cache directory a sweep may remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// When it was last used (see [`last_used`]).
    pub used: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// The directory.
    pub path: PathBuf,
}

/// The entries to remove, least recently used first, so that what stays — `kept` (the entries
/// in use now: their count and bytes) and the rest of `entries` — holds at most `max_count`
/// entries and `max_bytes` bytes.
pub(crate) fn beyond_bounds(
    mut entries: Vec<Entry>,
    kept: (usize, u64),
    max_count: usize,
    max_bytes: u64,
) -> Vec<Entry> {
    let mut count = kept.0 + entries.len();
    let mut total = kept.1 + entries.iter().map(|e| e.bytes).sum::<u64>();
    entries.sort_by_key(|e| e.used);
    entries
        .into_iter()
        .take_while(|e| {
            let over = count > max_count || total > max_bytes;
            if over {
                count -= 1;
                total = total.saturating_sub(e.bytes);
            }
            over
        })
        .collect()
}

/// Takes a cache directory out of use at once (renamed away beside it, so no reader finds it
/// half removed), then removes it; false when it could not be moved.
pub(crate) fn retire(dir: &Path) -> bool {
    let Some(parent) = dir.parent() else { return false };
    let away = parent.join(format!(".evict-{}-{}", std::process::id(), super::now_ms()));
    if std::fs::rename(dir, &away).is_err() {
        return false;
    }
    let _ = std::fs::remove_dir_all(&away);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(used: u64, bytes: u64, name: &str) -> Entry {
        Entry { used, bytes, path: PathBuf::from(name) }
    }

    #[test]
    fn the_least_recently_used_go_until_count_and_bytes_fit() {
        let entries = vec![entry(3, 10, "c"), entry(1, 10, "a"), entry(2, 10, "b")];
        let names = |v: Vec<Entry>| v.into_iter().map(|e| e.path.display().to_string()).collect::<Vec<_>>();
        assert_eq!(names(beyond_bounds(entries.clone(), (1, 10), 4, 1000)), Vec::<String>::new());
        assert_eq!(names(beyond_bounds(entries.clone(), (1, 10), 2, 1000)), ["a", "b"]);
        assert_eq!(names(beyond_bounds(entries.clone(), (1, 10), 10, 25)), ["a", "b"]);
        assert_eq!(names(beyond_bounds(entries, (0, 0), 10, 20)), ["a"]);
    }

    #[test]
    fn a_retired_directory_is_gone_and_a_stamp_reads_back() {
        let dir = tempfile::tempdir().expect("dir");
        let cache = dir.path().join("entry");
        std::fs::create_dir(&cache).expect("mkdir");
        mark_used(&cache).expect("stamp");
        assert!(last_used(&cache) > 0);
        assert!(retire(&cache));
        assert!(!cache.exists() && std::fs::read_dir(dir.path()).expect("read").next().is_none());
    }
}
