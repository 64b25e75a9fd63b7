//! codeguard's pre-commit, pre-push and reference-transaction hooks, wherever git will really
//! run them.
//!
//! **In:** a directory inside a git repository and the absolute path of the codeguard binary.
//! **Out:** codeguard's gate joined to what git runs for each hook. git runs the hooks directory
//! `core.hooksPath` names (relative to the worktree root), else the common git directory's
//! `hooks/` (shared by linked worktrees). What sits there decides how codeguard joins
//! (see [`hook_managers`](super::hook_managers)):
//! - nothing, or codeguard's own script: codeguard's small POSIX `sh` script;
//! - pre-commit's or prek's script: codeguard's script as `<hook>.legacy`, which both run first;
//! - lefthook's script, or a repository with a lefthook configuration: a marked `codeguard`
//!   command in the lefthook local configuration (`lefthook-local.yml`);
//! - husky's stub (`core.hooksPath` is `<dir>/_`), or a repository with `.husky/`: a marked block
//!   at the top of husky's user script `<dir>/<hook>`;
//! - any other hook: kept as `<hook>.codeguard-chained` and run first by codeguard's script (with
//!   `force`: kept as `<hook>.codeguard-replaced`, no longer run).
//!
//! [`uninstall`] takes out exactly what codeguard added, wherever a manager moved it
//! (`<hook>.legacy`, lefthook's `<hook>.old`, the default hooks directory when `core.hooksPath`
//! changed), and puts kept hooks back. `hook_reach::reach` follows what git runs to say whether codeguard is
//! in it.
//! **Never:** changes git config, runs a manager, deletes or rewrites a line that is not ours,
//! or leaves a half-written file (every check runs before the first write; files are written to a
//! temp file in the same directory, then renamed).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::hook_managers::{self as managers, Block, Owner};
use super::hook_script::{CHAINED_SUFFIX, is_ours, script};
use crate::mode::GitHook;

/// Suffix of a pre-existing hook that `--force` replaced (kept, not run).
pub(crate) const REPLACED_SUFFIX: &str = ".codeguard-replaced";

/// Where pre-commit and prek keep (and run first) a hook they found in place.
pub(crate) const LEGACY_SUFFIX: &str = ".legacy";

/// Where lefthook moves a hook it found in place (it never runs it).
pub(crate) const OLD_SUFFIX: &str = ".old";

/// lefthook's main configuration files, in the order lefthook looks for them.
const LEFTHOOK_MAIN: [&str; 4] = ["lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml"];

/// lefthook configurations codeguard cannot add a command to (not YAML).
const LEFTHOOK_OTHER: [&str; 4] = ["lefthook.toml", ".lefthook.toml", "lefthook.json", ".lefthook.json"];

/// Why hooks could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InstallError {
    /// The directory is not inside a git repository.
    #[error("not inside a git repository ({0})")]
    NotARepository(String),
    /// `core.hooksPath` could not be read.
    #[error("cannot read core.hooksPath: {0}")]
    HooksPath(String),
    /// A foreign hook and a kept one are both present: which to keep is a person's decision.
    #[error(
        "{hook} is not codeguard's and {kept} already exists; move one of them away and run the install again"
    )]
    BothPresent {
        /// The hook in place.
        hook: PathBuf,
        /// The hook kept by an earlier install.
        kept: PathBuf,
    },
    /// `--force` would stop a hook manager's hooks, which codeguard joins instead.
    #[error(
        "--force replaces a hook that is not codeguard's, but {path} is {manager}'s: codeguard runs beside {manager}'s hooks instead of replacing them (run the install without --force; to stop {manager}'s hooks, use {manager}'s own uninstall)"
    )]
    ForceWithManager {
        /// The manager's hook.
        path: PathBuf,
        /// The manager.
        manager: &'static str,
    },
    /// A lefthook configuration codeguard cannot join.
    #[error("{0}")]
    Lefthook(String),
    /// codeguard's marked block in a file was edited so its end cannot be found.
    #[error(
        "{0} holds a `# codeguard-managed-hook begin` line without its `# codeguard-managed-hook end` line; remove codeguard's lines from it by hand and run the command again"
    )]
    BrokenBlock(PathBuf),
    /// Reading or writing a file failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> InstallError {
    move |source| InstallError::Io { context: context.into(), source }
}

/// What happened to one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Our script (or block) was written where none was.
    Installed,
    /// Ours was already there, exactly as it would be written.
    Unchanged,
    /// Ours was there and was rewritten (e.g. the binary moved).
    Updated,
    /// A hook that is not ours was kept at this path and runs before ours.
    Chained(PathBuf),
    /// A hook that is not ours was kept at this path and no longer runs (`--force`).
    Replaced(PathBuf),
    /// Ours was removed; nothing was there before it.
    Removed,
    /// Our script was removed and the kept hook from this path put back.
    Restored(PathBuf),
    /// Nothing of ours was there.
    NotInstalled,
    /// The hook in place is not ours, so it was left alone.
    NotOurs,
}

/// One hook and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// The hook.
    pub hook: GitHook,
    /// The file codeguard wrote or removed (its script, or the manager's file holding its block).
    pub path: PathBuf,
    /// Who runs that file: codeguard's own hook ([`Owner::Codeguard`]) or a manager.
    pub via: Owner,
    /// What happened.
    pub action: Action,
}

/// What a person should know after `changes`: a husky script git tracks now holds codeguard's
/// lines, a lefthook local configuration (machine-specific) should stay out of git.
pub(crate) fn notes(changes: &[Change]) -> Vec<String> {
    let mut out = Vec::new();
    for change in changes.iter().filter(|c| matches!(c.action, Action::Installed | Action::Updated)) {
        let path = change.path.display();
        let note = match change.via {
            Owner::Husky => format!(
                "{path} is a husky script git tracks: commit codeguard's lines to share the gate (a clone without codeguard gets a warning, not a blocked commit), or keep them as a local change (`git checkout`/`git reset --hard` drops them; `codeguard doctor` notices)"
            ),
            Owner::Lefthook if change.hook == GitHook::PreCommit => format!(
                "{path} is lefthook's local configuration and names this machine's codeguard: keep it out of git (add it to .gitignore)"
            ),
            Owner::Lefthook | Owner::Codeguard | Owner::PreCommit | Owner::Prek | Owner::Other => continue,
        };
        out.push(note);
    }
    out
}

/// Where git and the hook managers look, for one repository.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The hooks directory git runs (`core.hooksPath` honoured).
    pub hooks: PathBuf,
    /// The common git directory's `hooks/`, where hooks live while `core.hooksPath` is unset.
    pub default_hooks: PathBuf,
    /// The worktree root; `None` in a bare repository.
    pub root: Option<PathBuf>,
}

impl Layout {
    /// The hooks directories that may hold codeguard's scripts: the one git runs first.
    pub(super) fn script_dirs(&self) -> Vec<&Path> {
        let mut dirs = vec![self.hooks.as_path()];
        if self.default_hooks != self.hooks {
            dirs.push(&self.default_hooks);
        }
        dirs
    }

    /// husky's directory when git runs husky's stubs (`core.hooksPath` is `<dir>/_`).
    fn husky_active(&self) -> Option<PathBuf> {
        let is_stub_dir = self.hooks.file_name().is_some_and(|n| n == "_") && self.hooks.join("h").is_file();
        is_stub_dir.then(|| self.hooks.parent().map(Path::to_path_buf)).flatten()
    }

    /// husky's directory: the active one, else the repository's `.husky/` while git runs the
    /// default hooks directory (a clone whose husky is not installed yet).
    fn husky_dir(&self) -> Option<PathBuf> {
        self.husky_active().or_else(|| {
            let dir = self.root.as_ref()?.join(".husky");
            (self.hooks == self.default_hooks && dir.is_dir()).then_some(dir)
        })
    }

    /// Every husky directory that may hold codeguard's block (for uninstall and reach).
    pub(super) fn husky_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.husky_active().into_iter().collect();
        if let Some(dir) = self.root.as_ref().map(|r| r.join(".husky"))
            && dir.is_dir()
            && !dirs.contains(&dir)
        {
            dirs.push(dir);
        }
        dirs
    }

    /// The lefthook local configuration beside the repository's lefthook configuration.
    fn lefthook_local(&self) -> Result<Option<PathBuf>, InstallError> {
        let Some(root) = &self.root else { return Ok(None) };
        if let Some(main) = LEFTHOOK_MAIN.iter().find(|n| root.join(n).is_file()) {
            let (stem, ext) = main.rsplit_once('.').unwrap_or((main, "yml"));
            return Ok(Some(root.join(format!("{stem}-local.{ext}"))));
        }
        if let Some(other) = LEFTHOOK_OTHER.iter().find(|n| root.join(n).is_file()) {
            return Err(InstallError::Lefthook(format!(
                "{} is not YAML; codeguard adds its commands to a YAML lefthook-local.yml only. Add a `codeguard` command running `codeguard git-hook pre-commit` (and `git-hook pre-push` with `use_stdin: true`) to it yourself",
                root.join(other).display()
            )));
        }
        Ok(None)
    }

    /// Every lefthook local configuration that may hold codeguard's block.
    pub(super) fn lefthook_locals(&self) -> Vec<PathBuf> {
        let Some(root) = &self.root else { return Vec::new() };
        LEFTHOOK_MAIN
            .iter()
            .filter_map(|m| m.rsplit_once('.').map(|(stem, ext)| root.join(format!("{stem}-local.{ext}"))))
            .filter(|p| p.is_file())
            .collect()
    }
}

/// Where git and the managers look for the repository containing `start`.
pub(crate) fn layout(start: &Path) -> Result<Layout, InstallError> {
    let cause = |e: &crate::git::Error| e.cause().unwrap_or_default().to_owned();
    let repo = crate::git::discover(start).map_err(|e| InstallError::NotARepository(cause(&e)))?;
    let hooks = crate::git::config::hooks_dir(&repo).map_err(|e| InstallError::HooksPath(cause(&e)))?;
    let root = repo.workdir().map(|w| w.canonicalize().unwrap_or_else(|_| w.to_path_buf()));
    let default_hooks = repo.common_dir().join("hooks");
    let default_hooks = default_hooks.canonicalize().unwrap_or(default_hooks);
    let hooks = hooks.canonicalize().unwrap_or(hooks);
    Ok(Layout { hooks, default_hooks, root })
}

/// One file operation of an install or uninstall, decided before any is done.
enum Op {
    Rename { from: PathBuf, to: PathBuf },
    Hook { path: PathBuf, text: String },
    File { path: PathBuf, text: String },
    Remove(PathBuf),
}

fn apply(ops: Vec<Op>) -> Result<(), InstallError> {
    for op in ops {
        match op {
            Op::Rename { from, to } => {
                std::fs::rename(&from, &to).map_err(io(format!(
                    "moving {} to {}",
                    from.display(),
                    to.display()
                )))?;
            }
            Op::Hook { path, text } => write_hook(&path, &text)?,
            Op::File { path, text } => write_file(&path, &text)?,
            Op::Remove(path) => {
                std::fs::remove_file(&path).map_err(io(format!("removing {}", path.display())))?;
            }
        }
    }
    Ok(())
}

/// Joins codeguard to every hook git runs in `layout`, each running `exe` (see the module docs).
pub(crate) fn install(layout: &Layout, exe: &Path, force: bool) -> Result<Vec<Change>, InstallError> {
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    let lefthook_local = layout.lefthook_local()?;
    let mut lefthook = lefthook_local.is_some();
    let husky = layout.husky_dir();
    for hook in GitHook::ALL {
        let path = layout.hooks.join(hook.file_name());
        let mut now = present(&path);
        // An earlier codeguard chained a manager's script (renaming it broke husky and made
        // pre-commit run itself): put it back in place and join the manager instead.
        let chained = kept(&layout.hooks, hook, CHAINED_SUFFIX);
        if let (Present::Ours(_), Present::Manager(owner)) = (&now, present(&chained)) {
            ops.push(Op::Rename { from: chained.clone(), to: path.clone() });
            let action = Action::Restored(chained);
            changes.push(Change { hook, path: path.clone(), via: owner, action });
            now = Present::Manager(owner);
        }
        if !hook.managed() {
            // Always codeguard's own script where git looks, chaining whatever is there.
            let force = force && !matches!(now, Present::Manager(_));
            changes.push(script_at(&layout.hooks, hook, &path, exe, force, Owner::Other, &mut ops)?);
            continue;
        }
        match now {
            Present::Manager(owner @ (Owner::PreCommit | Owner::Prek)) => {
                refuse_force(force, &path, owner)?;
                let slot = layout.hooks.join(format!("{}{LEGACY_SUFFIX}", hook.file_name()));
                changes.push(script_at(&layout.hooks, hook, &slot, exe, false, owner, &mut ops)?);
            }
            Present::Manager(Owner::Lefthook) => {
                refuse_force(force, &path, Owner::Lefthook)?;
                if lefthook_local.is_none() {
                    return Err(InstallError::Lefthook(format!(
                        "{} is lefthook's, but the repository has no lefthook.yml (or .lefthook.yml) for codeguard to add a command beside",
                        path.display()
                    )));
                }
                lefthook = true;
            }
            Present::Manager(Owner::Husky) => refuse_force(force, &path, Owner::Husky)?,
            Present::Manager(owner @ (Owner::Codeguard | Owner::Other)) | Present::Other(owner) => {
                changes.push(script_at(&layout.hooks, hook, &path, exe, force, owner, &mut ops)?);
            }
            Present::Nothing | Present::Ours(_) => {
                changes.push(script_at(&layout.hooks, hook, &path, exe, force, Owner::Codeguard, &mut ops)?);
            }
        }
        if let Some(dir) = &husky {
            let file = dir.join(hook.file_name());
            let block = |created| managers::husky_block(hook, exe, created);
            changes.push(block_at(hook, &file, Owner::Husky, block, &mut ops)?);
        }
    }
    if let Some(local) = lefthook_local.filter(|_| lefthook) {
        let text = read_optional(&local)?;
        for hook in GitHook::ALL.into_iter().filter(|h| h.managed()) {
            if text.as_deref().is_some_and(|t| managers::lefthook_configures(t, hook)) {
                return Err(InstallError::Lefthook(format!(
                    "{} already configures {}; add a `codeguard` command running `codeguard git-hook {}`{} to it yourself",
                    local.display(),
                    hook.file_name(),
                    hook.file_name(),
                    if hook == GitHook::PrePush { " with `use_stdin: true`" } else { "" }
                )));
            }
        }
        // One block serves both hooks: planned (and written) once, reported for each.
        let block = |created| managers::lefthook_block(exe, created);
        let change = block_at(GitHook::PreCommit, &local, Owner::Lefthook, block, &mut ops)?;
        let push = Change { hook: GitHook::PrePush, ..change.clone() };
        changes.extend([change, push]);
    }
    std::fs::create_dir_all(&layout.hooks).map_err(io(format!("creating {}", layout.hooks.display())))?;
    apply(ops)?;
    changes.sort_by_key(|c| GitHook::ALL.iter().position(|h| *h == c.hook));
    Ok(changes)
}

fn refuse_force(force: bool, path: &Path, owner: Owner) -> Result<(), InstallError> {
    if force {
        return Err(InstallError::ForceWithManager { path: path.to_path_buf(), manager: owner.label() });
    }
    Ok(())
}

/// Plans codeguard's script at `slot` (a hook path, or pre-commit's `.legacy` slot) in `dir`,
/// chaining (or with `force` replacing) a hook that is not ours.
fn script_at(
    dir: &Path,
    hook: GitHook,
    slot: &Path,
    exe: &Path,
    force: bool,
    via: Owner,
    ops: &mut Vec<Op>,
) -> Result<Change, InstallError> {
    let wanted = script(hook, exe);
    let chained = kept(dir, hook, CHAINED_SUFFIX);
    let replaced = kept(dir, hook, REPLACED_SUFFIX);
    let via = if via == Owner::Other { Owner::Codeguard } else { via };
    // In pre-commit's `.legacy` slot, a chained copy of a manager's script (an earlier codeguard's
    // chaining) would make the manager run itself ("installed in migration mode"): drop it.
    let moving = |from: &Path| ops.iter().any(|op| matches!(op, Op::Rename { from: f, .. } if f == from));
    if matches!(via, Owner::PreCommit | Owner::Prek)
        && matches!(present(&chained), Present::Manager(_))
        && !moving(&chained)
    {
        ops.push(Op::Remove(chained.clone()));
        if let Present::Ours(text) = present(slot) {
            if text != wanted {
                ops.push(Op::Hook { path: slot.to_path_buf(), text: wanted });
            }
            return Ok(Change { hook, path: slot.to_path_buf(), via, action: Action::Updated });
        }
    }
    let action = match present(slot) {
        Present::Nothing => {
            ops.push(Op::Hook { path: slot.to_path_buf(), text: wanted });
            Action::Installed
        }
        Present::Ours(_) if force && exists(&chained) && !exists(&replaced) => {
            ops.push(Op::Rename { from: chained, to: replaced.clone() });
            Action::Replaced(replaced)
        }
        Present::Ours(text) if text == wanted => Action::Unchanged,
        Present::Ours(_) => {
            ops.push(Op::Hook { path: slot.to_path_buf(), text: wanted });
            Action::Updated
        }
        Present::Manager(_) | Present::Other(_) => {
            for earlier in [&chained, &replaced] {
                if exists(earlier) {
                    return Err(InstallError::BothPresent {
                        hook: slot.to_path_buf(),
                        kept: earlier.clone(),
                    });
                }
            }
            let keep = if force { replaced } else { chained };
            ops.push(Op::Rename { from: slot.to_path_buf(), to: keep.clone() });
            ops.push(Op::Hook { path: slot.to_path_buf(), text: wanted });
            if force { Action::Replaced(keep) } else { Action::Chained(keep) }
        }
    };
    Ok(Change { hook, path: slot.to_path_buf(), via, action })
}

/// Plans codeguard's block in a manager's `file` (created when missing).
fn block_at(
    hook: GitHook,
    file: &Path,
    via: Owner,
    block: impl Fn(bool) -> String,
    ops: &mut Vec<Op>,
) -> Result<Change, InstallError> {
    let text = read_optional(file)?;
    let (action, new) = match text.as_deref() {
        None => (Action::Installed, block(true)),
        Some(text) => match managers::find_block(text) {
            Block::Absent => (Action::Installed, managers::with_block(text, &block(false))),
            Block::Present { block: old, rest } => {
                let wanted = block(rest.is_none());
                if old == wanted {
                    (Action::Unchanged, text.to_owned())
                } else {
                    (Action::Updated, text.replacen(&old, &wanted, 1))
                }
            }
            Block::Broken => return Err(InstallError::BrokenBlock(file.to_path_buf())),
        },
    };
    if action != Action::Unchanged {
        ops.push(Op::File { path: file.to_path_buf(), text: new });
    }
    Ok(Change { hook, path: file.to_path_buf(), via, action })
}

/// Takes out everything codeguard added for the repository in `layout`, wherever a manager moved
/// it, and puts kept hooks back.
pub(crate) fn uninstall(layout: &Layout) -> Result<Vec<Change>, InstallError> {
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    for hook in GitHook::ALL {
        let before = changes.len();
        for dir in layout.script_dirs() {
            let main = dir.join(hook.file_name());
            for suffix in ["", LEGACY_SUFFIX, OLD_SUFFIX] {
                let slot = dir.join(format!("{}{suffix}", hook.file_name()));
                if !matches!(present(&slot), Present::Ours(_)) {
                    continue;
                }
                ops.push(Op::Remove(slot.clone()));
                // A kept hook goes back once, into the first slot of ours found.
                let taken = |from: &Path| {
                    ops.iter().any(|op| matches!(op, Op::Rename { from: f, .. } | Op::Remove(f) if f == from))
                };
                let action = match kept_hook(dir, hook).filter(|from| !taken(from)) {
                    // A copy of a manager's script in a slot the manager runs would make it run
                    // itself: it goes, the manager's own script stays in place.
                    Some(from) if !suffix.is_empty() && matches!(present(&from), Present::Manager(_)) => {
                        ops.push(Op::Remove(from));
                        Action::Removed
                    }
                    Some(from) => {
                        ops.push(Op::Rename { from: from.clone(), to: slot.clone() });
                        Action::Restored(from)
                    }
                    None => Action::Removed,
                };
                let via = match suffix {
                    "" => Owner::Codeguard,
                    LEGACY_SUFFIX => match present(&main) {
                        Present::Manager(owner) => owner,
                        _ => Owner::Codeguard,
                    },
                    _ => Owner::Lefthook,
                };
                changes.push(Change { hook, path: slot, via, action });
            }
            if dir == layout.hooks
                && matches!(present(&main), Present::Nothing)
                && changes.len() == before
                && let Some(from) = kept_hook(dir, hook)
            {
                ops.push(Op::Rename { from: from.clone(), to: main.clone() });
                changes.push(Change {
                    hook,
                    path: main,
                    via: Owner::Codeguard,
                    action: Action::Restored(from),
                });
            }
        }
        for dir in layout.husky_dirs() {
            unblock(hook, &dir.join(hook.file_name()), Owner::Husky, &mut ops, &mut changes)?;
        }
        for local in layout.lefthook_locals() {
            unblock(hook, &local, Owner::Lefthook, &mut ops, &mut changes)?;
        }
        if changes.len() == before {
            let path = layout.hooks.join(hook.file_name());
            let action = match present(&path) {
                Present::Nothing | Present::Ours(_) => Action::NotInstalled,
                Present::Manager(_) | Present::Other(_) => Action::NotOurs,
            };
            changes.push(Change { hook, path, via: Owner::Codeguard, action });
        }
    }
    apply(ops)?;
    Ok(changes)
}

/// Plans taking codeguard's block out of `file`, if it holds one.
fn unblock(
    hook: GitHook,
    file: &Path,
    via: Owner,
    ops: &mut Vec<Op>,
    changes: &mut Vec<Change>,
) -> Result<(), InstallError> {
    let Some(text) = read_optional(file)? else { return Ok(()) };
    match managers::find_block(&text) {
        Block::Absent => {}
        Block::Broken => return Err(InstallError::BrokenBlock(file.to_path_buf())),
        Block::Present { rest, .. } => {
            if !ops.iter().any(|op| matches!(op, Op::File { path, .. } | Op::Remove(path) if path == file)) {
                ops.push(match rest {
                    Some(rest) => Op::File { path: file.to_path_buf(), text: rest },
                    None => Op::Remove(file.to_path_buf()),
                });
            }
            changes.push(Change { hook, path: file.to_path_buf(), via, action: Action::Removed });
        }
    }
    Ok(())
}

pub(crate) fn executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// What sits at a hook's path.
pub(super) enum Present {
    Nothing,
    Ours(String),
    /// A script a known manager wrote.
    Manager(Owner),
    /// Something else (a person's hook, a directory, an unreadable file).
    Other(Owner),
}

pub(super) fn present(path: &Path) -> Present {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Present::Nothing };
    if !meta.is_file() {
        return Present::Other(Owner::Other);
    }
    match std::fs::read_to_string(path) {
        Ok(text) if is_ours(&text) => Present::Ours(text),
        Ok(text) => match managers::owner(&text) {
            Owner::Other | Owner::Codeguard => Present::Other(Owner::Other),
            owner => Present::Manager(owner),
        },
        Err(_) => Present::Other(Owner::Other),
    }
}

fn kept(dir: &Path, hook: GitHook, suffix: &str) -> PathBuf {
    dir.join(format!("{}{suffix}", hook.file_name()))
}

/// The hook an earlier install kept (chained or replaced), if any.
fn kept_hook(dir: &Path, hook: GitHook) -> Option<PathBuf> {
    [kept(dir, hook, CHAINED_SUFFIX), kept(dir, hook, REPLACED_SUFFIX)].into_iter().find(|p| exists(p))
}

fn read_optional(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(format!("reading {}", path.display()))(e)),
    }
}

/// Writes a manager's file atomically, keeping its mode (a new file gets 0644; husky runs its
/// user scripts with `sh`, so they need not be executable).
fn write_file(path: &Path, text: &str) -> Result<(), InstallError> {
    write_with_mode(path, text, crate::fs::mode_or(path, 0o644))
}

/// Writes an executable hook atomically.
fn write_hook(path: &Path, text: &str) -> Result<(), InstallError> {
    write_with_mode(path, text, 0o755)
}

/// Writes `text` to `path` with `mode` ([`crate::fs::write_atomic`]: a temporary file beside it,
/// flushed, renamed over it; the hooks directory must exist).
fn write_with_mode(path: &Path, text: &str, mode: u32) -> Result<(), InstallError> {
    crate::fs::write_atomic(path, text.as_bytes(), crate::fs::Atomic::with_mode(mode))
        .map_err(io(format!("writing {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_marked_quote_the_binary_and_pass_stdin_through_for_pre_push() {
        let exe = Path::new("/opt/it's here/codeguard");
        let commit = script(GitHook::PreCommit, exe);
        assert!(commit.starts_with("#!/bin/sh\n") && is_ours(&commit));
        assert!(commit.contains(r"codeguard='/opt/it'\''s here/codeguard'"), "{commit}");
        assert!(commit.contains("exec \"$codeguard\" git-hook pre-commit \"$@\""));
        assert!(commit.contains("pre-commit.codeguard-chained"));
        let push = script(GitHook::PrePush, exe);
        assert!(push.contains("printf '%s' \"$input\" | \"$chained\""), "{push}");
        assert!(push.contains("git push --no-verify"));
        assert!(!is_ours("#!/bin/sh\necho # codeguard-managed-hook\n"), "the marker is a whole line");
    }
}
