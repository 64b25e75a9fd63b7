//! The stat cache: a file's content hash, reused while its full stat data is unchanged.
//!
//! **Why not git's index stat data.** git records a file's stat data when it hashes the file,
//! and trusts it afterwards unless the entry is "racily clean" (modified in the same timestamp
//! tick the index was written). That guard does not cover a file rewritten, with the same size,
//! inside the tick in which `git add` read it: the index then holds the old blob id next to stat
//! data that matches the new content, and every later comparison calls the file clean. The
//! index also hashes *filtered* content (autocrlf, `.gitattributes` filters), so one blob id can
//! stand for different bytes on disk, and it knows nothing about untracked files. The Python
//! plugin learnt the cost of keys that are stat data and not content (its lesson 8). So this
//! cache never takes stat data from git; it records what *it* hashed, under a rule it can prove.
//!
//! **The rule.** An entry `(path, stat, hash)` is recorded only when
//! 1. the stat data (size, mtime and ctime to the nanosecond, inode, device, mode) taken before
//!    reading equals the data of the open file after reading — nothing changed while it was read;
//! 2. its ctime is at least [`SETTLE`] older than the moment the identity computation began, and
//!    not older than its mtime, and not zero.
//!
//! Any write to a file, any `chmod`, any rename over it sets its ctime to the current time, which
//! userspace cannot set back. Rule 2 puts the recorded ctime in a timestamp tick that is over
//! (with a margin covering coarse timestamps, up to the 2 s of FAT), so any later change yields a
//! different ctime and the entry stops matching; rule 1 ties the hash to that stat data. A file
//! whose ctime is newer than the cut-off is simply hashed every time. What remains outside the
//! proof, and is documented rather than guarded: a system clock stepped back by more than the
//! margin that then lands a rewrite on the same nanosecond, and filesystems that fake ctime
//! (rule 2's `ctime ≥ mtime ≠ 0` check rejects the usual fakes: zero, or a copy of mtime that
//! `touch -d` could set into the past without the ctime following).
//!
//! **Storage.** One text file per worktree in the state directory, written atomically with the
//! entries of the last computation (so it never outgrows the tree); a malformed line is ignored
//! (a missing entry only costs a re-hash). Paths with a tab or newline are never cached.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How far in the past a file's ctime must be before its hash is recorded.
pub const SETTLE: Duration = Duration::from_secs(2);

const HEADER: &str = "codeguard-stat-cache 1";

/// The stat data an entry is valid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct StatKey {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, seconds and nanoseconds.
    pub mtime: (i64, i64),
    /// Status-change time, seconds and nanoseconds.
    pub ctime: (i64, i64),
    /// Inode number.
    pub ino: u64,
    /// Device.
    pub dev: u64,
    /// File type and permission bits.
    pub mode: u32,
}

impl StatKey {
    /// The stat data of `meta`.
    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
            mode: meta.mode(),
        }
    }

    /// Rule 2: whether a hash taken of a file with this stat data, unchanged while read, may be
    /// recorded when the computation began at `began`.
    pub(crate) fn settled(&self, began: SystemTime) -> bool {
        let Some(cutoff) = began.checked_sub(SETTLE).and_then(|t| t.duration_since(UNIX_EPOCH).ok()) else {
            return false;
        };
        let cutoff = (i64::try_from(cutoff.as_secs()).unwrap_or(i64::MAX), i64::from(cutoff.subsec_nanos()));
        self.ctime != (0, 0) && self.ctime >= self.mtime && self.ctime <= cutoff
    }
}

/// One recorded hash and the stat data it is valid for.
type Recorded = (StatKey, [u8; 32]);

/// Recorded hashes by repository-relative path.
#[derive(Debug, Default)]
pub(crate) struct StatCache {
    entries: HashMap<Vec<u8>, Recorded>,
}

impl StatCache {
    /// Loads the cache file; a missing or foreign file is an empty cache.
    pub(crate) fn load(path: &Path) -> Self {
        let Ok(text) = std::fs::read_to_string(path) else { return Self::default() };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Self::default();
        }
        Self { entries: lines.filter_map(parse_line).collect() }
    }

    /// The recorded hash of `path`, when its stat data is exactly `stat`.
    pub(crate) fn get(&self, path: &[u8], stat: &StatKey) -> Option<[u8; 32]> {
        self.entries.get(path).filter(|(key, _)| key == stat).map(|(_, hash)| *hash)
    }

    #[cfg(test)]
    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(test)]
    /// Whether there are no entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A cache of exactly these entries.
    pub(crate) fn from_entries(entries: impl IntoIterator<Item = (Vec<u8>, StatKey, [u8; 32])>) -> Self {
        Self { entries: entries.into_iter().map(|(p, k, h)| (p, (k, h))).collect() }
    }

    /// Whether this cache holds the same entries as `other`.
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        self.entries == other.entries
    }

    /// Writes the cache privately and atomically.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = String::with_capacity(self.entries.len() * 160);
        text.push_str(HEADER);
        text.push('\n');
        let mut sorted: Vec<_> = self.entries.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (path, (k, hash)) in sorted {
            let Ok(path) = std::str::from_utf8(path) else { continue };
            if path.contains(['\t', '\n', '\r']) {
                continue;
            }
            let _ = writeln!(
                text,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{path}",
                blake3::Hash::from_bytes(*hash).to_hex(),
                k.size,
                k.mtime.0,
                k.mtime.1,
                k.ctime.0,
                k.ctime.1,
                k.ino,
                k.dev,
                k.mode
            );
        }
        crate::fs::write_private(path, text.as_bytes())
    }
}

fn parse_line(line: &str) -> Option<(Vec<u8>, Recorded)> {
    let mut fields = line.splitn(10, '\t');
    let hash = blake3::Hash::from_hex(fields.next()?).ok()?;
    let mut num = || fields.next()?.parse::<i64>().ok();
    let (size, ms, mn, cs, cn, ino, dev, mode) =
        (num()?, num()?, num()?, num()?, num()?, num()?, num()?, num()?);
    let path = fields.next().filter(|p| !p.is_empty())?;
    let key = StatKey {
        size: u64::try_from(size).ok()?,
        mtime: (ms, mn),
        ctime: (cs, cn),
        ino: u64::try_from(ino).ok()?,
        dev: u64::try_from(dev).ok()?,
        mode: u32::try_from(mode).ok()?,
    };
    Some((path.as_bytes().to_vec(), (key, *hash.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ctime: (i64, i64)) -> StatKey {
        StatKey { size: 3, mtime: (100, 5), ctime, ino: 7, dev: 1, mode: 0o100_644 }
    }

    #[test]
    fn only_settled_and_plausible_stat_data_is_recorded() {
        let began = UNIX_EPOCH + Duration::from_secs(1_000);
        assert!(key((200, 0)).settled(began));
        assert!(key((998, 0)).settled(began), "exactly the margin");
        assert!(!key((998, 1)).settled(began), "inside the margin");
        assert!(!key((999, 0)).settled(began));
        assert!(!key((0, 0)).settled(began), "a zero ctime is not maintained");
        assert!(!key((100, 4)).settled(began), "a ctime before the mtime is not maintained");
    }

    #[test]
    fn round_trips_and_ignores_what_it_cannot_trust() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("c.tsv");
        let hash = *blake3::hash(b"abc").as_bytes();
        let cache = StatCache::from_entries([
            (b"a b/c.py".to_vec(), key((200, 0)), hash),
            (b"tab\there".to_vec(), key((200, 0)), hash),
        ]);
        cache.save(&file).expect("save");
        let loaded = StatCache::load(&file);
        assert_eq!(loaded.len(), 1, "a path with a tab is not cached");
        assert_eq!(loaded.get(b"a b/c.py", &key((200, 0))), Some(hash));
        assert_eq!(loaded.get(b"a b/c.py", &key((200, 1))), None, "any stat difference misses");
        let text = std::fs::read_to_string(&file).expect("read");
        std::fs::write(&file, text.replace("\t3\t", "\tx\t") + "garbage\n").expect("corrupt");
        assert!(StatCache::load(&file).is_empty(), "malformed lines are ignored");
        std::fs::write(&file, "other header\n").expect("foreign");
        assert!(StatCache::load(&file).is_empty());
    }
}
