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
//!
//! A build cache is only as warm as the paths and file times it was built from: a compiler's
//! incremental state is keyed by the paths it compiled, and cargo re-checks whatever is newer
//! than its last build. A gate snapshot has a new path and new file times on every run, so the
//! gate lints a building language in a [`StableTree`]: a persistent copy of the content in the
//! repository's cache, synced from the snapshot file by file (a file whose content is what it
//! was keeps its time), with its own build directory (`stable/<variable>`) that nothing else
//! builds in — so cargo's "newer than the last build" is exactly "changed since the last gate".

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::plan::{Action, Plan};
use crate::registry::Registry;
use crate::state::caches;

/// A cache not used for this long is removed by the sweep.
pub(crate) const MAX_IDLE: Duration = Duration::from_secs(14 * 24 * 3600);
/// All caches together are kept below this size by the sweep (least recently used go first).
pub(crate) const MAX_TOTAL_BYTES: u64 = 20 * 1024 * 1024 * 1024;
/// The sweep runs at most this often.
pub(crate) const SWEEP_EVERY: Duration = Duration::from_secs(24 * 3600);

/// The stamp in the cache root saying when the last sweep ran.
const LAST_SWEEP: &str = ".last-sweep";

/// The linters' environment with the build-cache variables of the planned languages pointed at
/// this repository's cache; `linter_env` unchanged when no planned job builds or the cache
/// cannot be used.
/// `stable`: the linters run in the repository's [`StableTree`] and get its build directory.
pub(crate) fn with_build_caches(
    linter_env: Env,
    plan: &Plan,
    registry: &Registry,
    workspace: &Path,
    stable: bool,
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
    let root = build_root(env);
    let Some(dir) = repo_cache(&root, workspace) else { return linter_env };
    sweep(&root, &dir);
    let dir = if stable { dir.join(STABLE) } else { dir };
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

/// The planned languages whose linter builds and whose build cache for `workspace` (in place, not
/// the stable tree) holds nothing yet: their first run builds the project and its dependencies.
/// Reads only; creates nothing.
pub(crate) fn first_builds<'a>(
    plan: &'a Plan,
    registry: &Registry,
    workspace: &Path,
    env: &Env,
) -> Vec<&'a str> {
    let dir = cache_dir(&build_root(env), workspace);
    plan.entries
        .iter()
        .filter(|e| matches!(e.action, Action::Run(_)))
        .filter(|e| {
            registry.get(&e.language).is_some_and(|l| {
                !l.build_cache_env.is_empty()
                    && l.build_cache_env.iter().all(|v| !dir.join(dir_name(v)).exists())
            })
        })
        .map(|e| e.language.as_str())
        .collect()
}

/// The part of a repository's cache that belongs to its [`StableTree`]: the tree, its manifest,
/// its lock and its own build directories.
const STABLE: &str = "stable";

/// A persistent copy of a snapshot's content at a path that stays the same, held under a lock
/// for as long as this value lives (see the module header). Made by [`StableTree::sync`].
pub(crate) struct StableTree {
    tree: PathBuf,
    _lock: crate::fs::Lock,
}

/// What the manifest records of one entry of the tree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Kept {
    /// A regular file: its content hash, whether it is executable, and the identity of the copy
    /// in the tree (inode, size, modification and change times) and of the snapshot file it
    /// came from — an unchanged source identity means unchanged content (a link into the
    /// read-only base-tree cache), so it is not read again.
    File { hash: String, exec: bool, copy: Identity, source: Identity },
    /// A symbolic link and its target.
    Link(PathBuf),
    /// A directory.
    Dir,
}

/// A file's identity: what changes when it is written or replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }
}

impl StableTree {
    /// Syncs the content in `from` (a whole snapshot) into the stable tree of `workspace`'s cache:
    /// files whose content changed are written anew (new time), unchanged ones are left as they
    /// are, entries that are gone are removed — including anything a linter wrote into the tree.
    /// `None` (lint in the snapshot instead) when the cache cannot be used, another run holds the
    /// tree, or a file cannot be synced.
    pub(crate) fn sync(from: &Path, workspace: &Path, env: &Env) -> Option<Self> {
        let root = build_root(env);
        let base = repo_cache(&root, workspace)?.join(STABLE);
        crate::fs::ensure_private_dir(&base).ok()?;
        let lock = crate::fs::try_lock(&base.join("tree"))?;
        let tree = base.join("tree");
        let manifest_path = base.join("manifest.json");
        let mut old: std::collections::BTreeMap<String, Kept> = std::fs::read(&manifest_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        if old.is_empty() && tree.exists() {
            std::fs::remove_dir_all(&tree).ok()?;
        }
        std::fs::create_dir_all(&tree).ok()?;
        // A failed sync leaves no manifest: the next run starts from an empty tree.
        let _ = std::fs::remove_file(&manifest_path);
        let mut new = std::collections::BTreeMap::new();
        let mut links_changed = false;
        for entry in walkdir::WalkDir::new(from).min_depth(1).sort_by_file_name() {
            let entry = entry.ok()?;
            let rel = entry.path().strip_prefix(from).ok()?.to_str()?.to_owned();
            let was = old.remove(&rel);
            let kept = sync_entry(&entry, &tree.join(&rel), was.clone())?;
            links_changed |= matches!(kept, Kept::Link(_)) && was.as_ref() != Some(&kept);
            new.insert(rel, kept);
        }
        links_changed |= old.values().any(|k| matches!(k, Kept::Link(_)));
        remove_extras(&tree, &new)?;
        if links_changed {
            // A build tool reads a link's target's time: a link that now leads to another
            // (unchanged, old) file would look unchanged. Every file gets a new time.
            renew_times(&tree, &mut new)?;
        }
        crate::fs::write_private_unsynced(&manifest_path, &serde_json::to_vec(&new).ok()?).ok()?;
        Some(Self { tree, _lock: lock })
    }

    /// Where the content is.
    pub(crate) fn root(&self) -> &Path {
        &self.tree
    }
}

/// Brings `target` in line with the snapshot entry, given what the manifest said of it.
fn sync_entry(entry: &walkdir::DirEntry, target: &Path, was: Option<Kept>) -> Option<Kept> {
    use std::os::unix::fs::PermissionsExt;
    let kind = entry.file_type();
    let present = std::fs::symlink_metadata(target).ok();
    if kind.is_dir() {
        if !present.as_ref().is_some_and(std::fs::Metadata::is_dir) {
            remove_any(target);
            std::fs::create_dir(target).ok()?;
        }
        return Some(Kept::Dir);
    }
    if kind.is_symlink() {
        let link = std::fs::read_link(entry.path()).ok()?;
        let same = was == Some(Kept::Link(link.clone()))
            && present.as_ref().is_some_and(|m| m.file_type().is_symlink())
            && std::fs::read_link(target).ok().as_ref() == Some(&link);
        if !same {
            remove_any(target);
            std::os::unix::fs::symlink(&link, target).ok()?;
        }
        return Some(Kept::Link(link));
    }
    let meta = entry.metadata().ok()?;
    let source = Identity::of(&meta);
    let exec = meta.permissions().mode() & 0o111 != 0;
    let copy_now = present.as_ref().filter(|m| m.is_file()).map(Identity::of);
    let unchanged_copy = match &was {
        Some(Kept::File { exec: was_exec, copy, source: was_source, .. })
            if *was_exec == exec && copy_now == Some(*copy) =>
        {
            if *was_source == source {
                return was;
            }
            Some(*copy)
        }
        _ => None,
    };
    // Read once: hashed to compare with what the tree holds, and written when it differs.
    let bytes = std::fs::read(entry.path()).ok()?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if let (Some(copy), Some(Kept::File { hash: was_hash, .. })) = (unchanged_copy, &was)
        && *was_hash == hash
    {
        return Some(Kept::File { hash, exec, copy, source });
    }
    remove_any(target);
    let mode = if exec { 0o755 } else { 0o644 };
    crate::fs::write_atomic(target, &bytes, crate::fs::Atomic::with_mode(mode).unsynced()).ok()?;
    let copy = Identity::of(&std::fs::symlink_metadata(target).ok()?);
    Some(Kept::File { hash, exec, copy, source })
}

/// Gives every file of the tree a new modification time (and records its new identity).
fn renew_times(tree: &Path, kept: &mut std::collections::BTreeMap<String, Kept>) -> Option<()> {
    let now = std::time::SystemTime::now();
    for (rel, entry) in kept.iter_mut() {
        if let Kept::File { copy, .. } = entry {
            let path = tree.join(rel);
            std::fs::OpenOptions::new().write(true).open(&path).ok()?.set_modified(now).ok()?;
            *copy = Identity::of(&std::fs::symlink_metadata(&path).ok()?);
        }
    }
    Some(())
}

/// Removes whatever is at `path` (nothing there is fine).
fn remove_any(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Removes every entry of `tree` that `kept` does not hold.
fn remove_extras(tree: &Path, kept: &std::collections::BTreeMap<String, Kept>) -> Option<()> {
    let mut walk = walkdir::WalkDir::new(tree).min_depth(1).into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.ok()?;
        let rel = entry.path().strip_prefix(tree).ok()?;
        if rel.to_str().is_some_and(|r| kept.contains_key(r)) {
            continue;
        }
        if entry.file_type().is_dir() {
            walk.skip_current_dir();
        }
        remove_any(entry.path());
        if std::fs::symlink_metadata(entry.path()).is_ok() {
            return None;
        }
    }
    Some(())
}

/// The directory a variable's cache lives in: `CARGO_TARGET_DIR` → `cargo-target-dir`.
pub(crate) fn dir_name(var: &str) -> String {
    var.to_ascii_lowercase().replace('_', "-")
}

/// Where every repository's build cache lives.
fn build_root(env: &Env) -> PathBuf {
    crate::state::home(env).join("cache").join("build")
}

/// The directory of `workspace`'s build cache under `root` (keyed by its canonical path).
fn cache_dir(root: &Path, workspace: &Path) -> PathBuf {
    let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
    root.join(crate::state::key_of(&[workspace.as_os_str().as_encoded_bytes()]))
}

/// This repository's cache directory, created and stamped as used; `None` when the state
/// directory is on tmpfs or cannot be written.
fn repo_cache(root: &Path, workspace: &Path) -> Option<PathBuf> {
    let dir = cache_dir(root, workspace);
    if on_tmpfs(&dir) {
        return None;
    }
    crate::fs::ensure_private_dir(&dir).ok()?;
    caches::mark_used(&dir).ok()?;
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

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Removes idle caches, then the least recently used ones while the total is over the cap, at
/// most once per [`SWEEP_EVERY`]; `current` (this run's) is never removed.
fn sweep(root: &Path, current: &Path) {
    let now = crate::state::now_ms();
    if now.saturating_sub(caches::read_number(&root.join(LAST_SWEEP))) < millis(SWEEP_EVERY) {
        return;
    }
    if std::fs::write(root.join(LAST_SWEEP), now.to_string()).is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p != current)
        .map(|p| (caches::last_used(&p), p))
        .collect();
    // A cache whose stable tree another run is linting in is not removed under it; the others'
    // locks are held until the sweep ends, so no run starts in one while it goes.
    let mut held = Vec::new();
    found.retain(|(_, dir)| {
        let stable = dir.join(STABLE);
        if !stable.exists() {
            return true;
        }
        crate::fs::try_lock(&stable.join("tree")).map(|lock| held.push(lock)).is_some()
    });
    found.retain(|(used, dir)| {
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
    let entries =
        found.into_iter().map(|(used, path)| caches::Entry { used, bytes: size(&path), path }).collect();
    for entry in caches::beyond_bounds(entries, (1, size(current)), usize::MAX, MAX_TOTAL_BYTES) {
        caches::retire(&entry.path);
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

    /// A state home on disk (the build cache refuses tmpfs): under the package's target dir.
    fn disk_home() -> tempfile::TempDir {
        let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("unit-tmp");
        std::fs::create_dir_all(&parent).expect("mkdir");
        tempfile::tempdir_in(parent).expect("home")
    }

    fn identity(path: &Path) -> Identity {
        Identity::of(&std::fs::symlink_metadata(path).expect("stat"))
    }

    #[test]
    fn the_stable_tree_rewrites_what_changed_and_removes_what_is_gone_or_foreign() {
        let home = disk_home();
        let env = crate::state::test_env(home.path());
        let (workspace, from) = (home.path().join("repo"), home.path().join("snapshot"));
        std::fs::create_dir_all(from.join("src")).expect("mkdir");
        std::fs::create_dir_all(&workspace).expect("mkdir");
        for (path, text) in [("Cargo.toml", "[package]\n"), ("src/a.rs", "a\n"), ("src/b.rs", "b\n")] {
            std::fs::write(from.join(path), text).expect("write");
        }
        std::os::unix::fs::symlink("a.rs", from.join("src/l.rs")).expect("link");
        let first = StableTree::sync(&from, &workspace, &env).expect("synced");
        let tree = first.root().to_path_buf();
        assert_eq!(std::fs::read_to_string(tree.join("src/b.rs")).expect("read"), "b\n");
        assert_eq!(std::fs::read_link(tree.join("src/l.rs")).expect("link"), Path::new("a.rs"));
        assert!(StableTree::sync(&from, &workspace, &env).is_none(), "one run at a time");
        drop(first);
        let (a, b) = (identity(&tree.join("src/a.rs")), identity(&tree.join("src/b.rs")));

        // The snapshot of the next run: every file written anew, one with other content.
        for (path, text) in [("Cargo.toml", "[package]\n"), ("src/a.rs", "a\n"), ("src/b.rs", "b2\n")] {
            std::fs::remove_file(from.join(path)).expect("rm");
            std::fs::write(from.join(path), text).expect("write");
        }
        std::fs::write(tree.join("src/foreign.rs"), "a linter wrote this").expect("write");
        let second = StableTree::sync(&from, &workspace, &env).expect("synced");
        assert_eq!(identity(&tree.join("src/a.rs")), a, "same content: untouched, its time kept");
        assert_ne!(identity(&tree.join("src/b.rs")), b, "new content: written anew");
        assert_eq!(std::fs::read_to_string(tree.join("src/b.rs")).expect("read"), "b2\n");
        assert!(!tree.join("src/foreign.rs").exists(), "what the content does not hold is removed");
        drop(second);

        // A link that leads elsewhere now gives every file a new time.
        std::fs::remove_file(from.join("src/l.rs")).expect("rm");
        std::os::unix::fs::symlink("b.rs", from.join("src/l.rs")).expect("link");
        let before = identity(&tree.join("src/a.rs"));
        let relinked = StableTree::sync(&from, &workspace, &env).expect("synced");
        assert_eq!(std::fs::read_link(tree.join("src/l.rs")).expect("link"), Path::new("b.rs"));
        assert_ne!(identity(&tree.join("src/a.rs")).mtime_ns, before.mtime_ns, "a link changed: new times");
        drop(relinked);

        // A file a linter changed in the tree is put back; a file the content lost goes.
        std::fs::write(tree.join("src/a.rs"), "changed in the tree").expect("write");
        std::fs::remove_file(from.join("src/b.rs")).expect("rm");
        let _third = StableTree::sync(&from, &workspace, &env).expect("synced");
        assert_eq!(std::fs::read_to_string(tree.join("src/a.rs")).expect("read"), "a\n");
        assert!(!tree.join("src/b.rs").exists());
    }

    #[test]
    fn idle_caches_are_swept_and_the_current_one_kept() {
        let root = tempfile::tempdir().expect("root");
        let (old, current) = (root.path().join("old"), root.path().join("current"));
        for dir in [&old, &current] {
            std::fs::create_dir_all(dir.join("target")).expect("mkdir");
            std::fs::write(dir.join(caches::LAST_USED), "1").expect("stamp");
        }
        sweep(root.path(), &current);
        assert!(!old.exists() && current.exists());
        std::fs::create_dir_all(old.join("target")).expect("mkdir");
        sweep(root.path(), &current);
        assert!(old.exists(), "at most one sweep per day");
        assert_eq!(dir_name("CARGO_TARGET_DIR"), "cargo-target-dir");
    }
}
