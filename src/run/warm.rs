//! Warm toolchains: a persistent build cache per repository for linters that build (`cargo
//! clippy`), so a gate run in a fresh snapshot does not rebuild the crate from nothing and a
//! check in place never writes the user's own `target/`.
//!
//! **In:** the environment the linters would get, the plan, the registry (each language's
//! `build_cache_env`: the variables that point its tool at a build directory), the user's
//! workspace (the cache key) and the state directory. **Out:** the linters' environment with each
//! such variable set to `<state>/cache/build/<repo-key>/<variable>` — whatever the user set it to,
//! so a gate never shares or locks the user's own build directory. **Bounds:** a cache not used
//! for [`MAX_IDLE`] is removed, and while all caches together exceed [`MAX_TOTAL_BYTES`] the
//! least recently used go; this sweep runs at most once per [`SWEEP_EVERY`] (a stamp file), so a
//! run normally costs two small file writes. **Never:** a cache on tmpfs (RAM): there, the
//! variables are left as they are; fails a run — any I/O problem just leaves the cache out.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::plan::{Action, Plan};
use crate::registry::Registry;

/// A cache not used for this long is removed by the sweep.
pub(crate) const MAX_IDLE: Duration = Duration::from_secs(14 * 24 * 3600);
/// All caches together are kept below this size by the sweep (least recently used go first).
pub(crate) const MAX_TOTAL_BYTES: u64 = 20 * 1024 * 1024 * 1024;
/// The sweep runs at most this often.
pub(crate) const SWEEP_EVERY: Duration = Duration::from_secs(24 * 3600);

/// The stamp in each cache saying when it was last used (milliseconds since the epoch).
const LAST_USED: &str = ".last-used";
/// The stamp in the cache root saying when the last sweep ran.
const LAST_SWEEP: &str = ".last-sweep";

/// The linters' environment with the build-cache variables of the planned languages pointed at
/// this repository's cache; `linter_env` unchanged when no planned job builds or the cache
/// cannot be used.
pub(crate) fn with_build_caches(
    linter_env: Env,
    plan: &Plan,
    registry: &Registry,
    workspace: &Path,
    env: &Env,
) -> Env {
    let mut vars: Vec<&str> = plan
        .entries
        .iter()
        .filter(|e| matches!(e.action, Action::Run(_)))
        .filter_map(|e| registry.get(&e.language))
        .flat_map(|l| l.build_cache_env.iter().map(String::as_str))
        .collect();
    vars.sort_unstable();
    vars.dedup();
    if vars.is_empty() {
        return linter_env;
    }
    let root = crate::state::home(env).join("cache").join("build");
    let Some(dir) = repo_cache(&root, workspace) else { return linter_env };
    sweep(&root, &dir);
    let set: Vec<(String, std::ffi::OsString)> =
        vars.iter().map(|v| ((*v).to_owned(), dir.join(dir_name(v)).into_os_string())).collect();
    Env::from_pairs(
        linter_env
            .vars()
            .filter(|(k, _)| !vars.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .chain(set),
    )
}

/// The directory a variable's cache lives in: `CARGO_TARGET_DIR` → `cargo-target-dir`.
pub(crate) fn dir_name(var: &str) -> String {
    var.to_ascii_lowercase().replace('_', "-")
}

/// This repository's cache directory, created and stamped as used; `None` when the state
/// directory is on tmpfs or cannot be written.
fn repo_cache(root: &Path, workspace: &Path) -> Option<PathBuf> {
    let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
    let key = crate::state::key_of(&[workspace.as_os_str().as_encoded_bytes()]);
    let dir = root.join(key);
    if on_tmpfs(&dir) {
        return None;
    }
    crate::state::ensure_private_dir(&dir).ok()?;
    std::fs::write(dir.join(LAST_USED), crate::state::now_ms().to_string()).ok()?;
    Some(dir)
}

/// Whether `path` lies on a tmpfs (or ramfs) mount, by the longest matching mount point in
/// `/proc/self/mountinfo`; false where that file does not exist.
fn on_tmpfs(path: &Path) -> bool {
    let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") else { return false };
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    mount_type(&info, &path).is_some_and(|t| t == "tmpfs" || t == "ramfs")
}

/// The file-system type of the mount holding `path`, from a `mountinfo` text.
fn mount_type<'a>(info: &'a str, path: &Path) -> Option<&'a str> {
    info.lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let mount_point = fields.nth(4)?;
            let fs_type = line.split(" - ").nth(1)?.split(' ').next()?;
            let mount_point = mount_point.replace("\\040", " ");
            path.starts_with(&mount_point).then_some((mount_point.len(), fs_type))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, fs_type)| fs_type)
}

/// Milliseconds since the epoch recorded in a stamp file (0 when absent or unreadable).
fn stamp(path: &Path) -> u64 {
    std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Removes idle caches, then the least recently used ones while the total is over the cap, at
/// most once per [`SWEEP_EVERY`]; `current` (this run's) is never removed.
fn sweep(root: &Path, current: &Path) {
    let now = crate::state::now_ms();
    if now.saturating_sub(stamp(&root.join(LAST_SWEEP))) < millis(SWEEP_EVERY) {
        return;
    }
    if std::fs::write(root.join(LAST_SWEEP), now.to_string()).is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let mut caches: Vec<(u64, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p != current)
        .map(|p| (stamp(&p.join(LAST_USED)), p))
        .collect();
    caches.retain(|(used, dir)| {
        let idle = now.saturating_sub(*used) > millis(MAX_IDLE);
        !(idle && std::fs::remove_dir_all(dir).is_ok())
    });
    let size = |dir: &Path| -> u64 {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    };
    let mut total: u64 = size(current) + caches.iter().map(|(_, d)| size(d)).sum::<u64>();
    caches.sort_by_key(|(used, _)| *used);
    for (_, dir) in &caches {
        if total <= MAX_TOTAL_BYTES {
            break;
        }
        let bytes = size(dir);
        if std::fs::remove_dir_all(dir).is_ok() {
            total = total.saturating_sub(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_mount_point_decides_the_file_system() {
        let info = "22 1 8:1 / / rw - ext4 /dev/vda rw\n\
                    30 22 0:5 / /dev/shm rw - tmpfs tmpfs rw\n\
                    31 22 0:6 / /home/u/my\\040dir rw,nosuid - tmpfs tmpfs rw\n";
        assert_eq!(mount_type(info, Path::new("/home/u/.codeguard")), Some("ext4"));
        assert_eq!(mount_type(info, Path::new("/dev/shm/x")), Some("tmpfs"));
        assert_eq!(mount_type(info, Path::new("/home/u/my dir/state")), Some("tmpfs"));
    }

    #[test]
    fn idle_caches_are_swept_and_the_current_one_kept() {
        let root = tempfile::tempdir().expect("root");
        let (old, current) = (root.path().join("old"), root.path().join("current"));
        for dir in [&old, &current] {
            std::fs::create_dir_all(dir.join("target")).expect("mkdir");
            std::fs::write(dir.join(LAST_USED), "1").expect("stamp");
        }
        sweep(root.path(), &current);
        assert!(!old.exists() && current.exists());
        std::fs::create_dir_all(old.join("target")).expect("mkdir");
        sweep(root.path(), &current);
        assert!(old.exists(), "at most one sweep per day");
        assert_eq!(dir_name("CARGO_TARGET_DIR"), "cargo-target-dir");
    }
}
