//! codeguard's pre-commit and pre-push hooks in a repository's hooks directory.
//!
//! **In:** a directory inside a git repository and the absolute path of the codeguard binary.
//! **Out:** in the hooks directory git uses (`core.hooksPath` when set, relative to the worktree
//! root; else the common git directory's `hooks/`, which linked worktrees share), one small POSIX
//! `sh` script per hook that runs `codeguard git-hook <hook>`. A hook that was there before and is
//! not ours is kept beside it as `<hook>.codeguard-chained` and runs first (pre-push's stdin is
//! handed to both); with `force` it is kept as `<hook>.codeguard-replaced` and no longer runs.
//! [`uninstall`] removes our scripts and puts the kept hook back.
//! **Never:** changes git config, deletes or rewrites a hook that is not ours, or leaves a
//! half-written hook (a temp file in the same directory, then a rename).

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::cli::GitHook;

/// The line that marks a hook script as codeguard's own.
pub const MARKER: &str = "# codeguard-managed-hook";

/// Suffix of a pre-existing hook that ours runs first.
pub const CHAINED_SUFFIX: &str = ".codeguard-chained";

/// Suffix of a pre-existing hook that `--force` replaced (kept, not run).
pub const REPLACED_SUFFIX: &str = ".codeguard-replaced";

/// Why hooks could not be installed or removed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
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
pub enum Action {
    /// Our script was written where no hook was.
    Installed,
    /// Our script was already there, exactly as it would be written.
    Unchanged,
    /// Our script was there and was rewritten (e.g. the binary moved).
    Updated,
    /// A hook that is not ours was kept at this path and runs before ours.
    Chained(PathBuf),
    /// A hook that is not ours was kept at this path and no longer runs (`--force`).
    Replaced(PathBuf),
    /// Our script was removed; nothing was there before it.
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
pub struct Change {
    /// The hook.
    pub hook: GitHook,
    /// Its path.
    pub path: PathBuf,
    /// What happened.
    pub action: Action,
}

/// The hooks directory git uses for the repository containing `start`.
pub fn hooks_dir(start: &Path) -> Result<PathBuf, InstallError> {
    let repo = gix::discover(start).map_err(|e| InstallError::NotARepository(e.to_string()))?;
    let configured = repo
        .config_snapshot()
        .trusted_path("core.hooksPath")
        .map_err(|e| InstallError::HooksPath(e.to_string()))?;
    match configured {
        Some(path) if path.is_absolute() => Ok(path),
        Some(path) => Ok(repo.workdir().unwrap_or_else(|| repo.git_dir()).join(path)),
        None => Ok(repo.common_dir().join("hooks")),
    }
}

/// Installs both hooks into `dir`, each running `exe`.
pub fn install(dir: &Path, exe: &Path, force: bool) -> Result<Vec<Change>, InstallError> {
    std::fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    GitHook::ALL.iter().map(|hook| install_one(dir, *hook, exe, force)).collect()
}

/// Removes both hooks from `dir`, restoring what they chained to or replaced.
pub fn uninstall(dir: &Path) -> Result<Vec<Change>, InstallError> {
    GitHook::ALL.iter().map(|hook| uninstall_one(dir, *hook)).collect()
}

/// What sits at a hook's path.
enum Present {
    Nothing,
    Ours(String),
    Foreign,
}

fn present(path: &Path) -> Present {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Present::Nothing };
    if !meta.is_file() {
        return Present::Foreign;
    }
    match std::fs::read_to_string(path) {
        Ok(text) if is_ours(&text) => Present::Ours(text),
        Ok(_) | Err(_) => Present::Foreign,
    }
}

/// Whether a hook script is one codeguard wrote.
pub fn is_ours(text: &str) -> bool {
    text.lines().any(|line| line == MARKER)
}

fn kept(dir: &Path, hook: GitHook, suffix: &str) -> PathBuf {
    dir.join(format!("{}{suffix}", hook.file_name()))
}

fn install_one(dir: &Path, hook: GitHook, exe: &Path, force: bool) -> Result<Change, InstallError> {
    let path = dir.join(hook.file_name());
    let wanted = script(hook, exe);
    let action = match present(&path) {
        Present::Nothing => {
            write_hook(&path, &wanted)?;
            Action::Installed
        }
        Present::Ours(text) if text == wanted => Action::Unchanged,
        Present::Ours(_) => {
            write_hook(&path, &wanted)?;
            Action::Updated
        }
        Present::Foreign => {
            let keep = kept(dir, hook, if force { REPLACED_SUFFIX } else { CHAINED_SUFFIX });
            for earlier in [kept(dir, hook, CHAINED_SUFFIX), kept(dir, hook, REPLACED_SUFFIX)] {
                if std::fs::symlink_metadata(&earlier).is_ok() {
                    return Err(InstallError::BothPresent { hook: path, kept: earlier });
                }
            }
            std::fs::rename(&path, &keep).map_err(io(format!("keeping {}", path.display())))?;
            write_hook(&path, &wanted)?;
            if force { Action::Replaced(keep) } else { Action::Chained(keep) }
        }
    };
    Ok(Change { hook, path, action })
}

fn uninstall_one(dir: &Path, hook: GitHook) -> Result<Change, InstallError> {
    let path = dir.join(hook.file_name());
    let action = match present(&path) {
        Present::Foreign => Action::NotOurs,
        Present::Ours(_) => {
            std::fs::remove_file(&path).map_err(io(format!("removing {}", path.display())))?;
            restore_kept(dir, hook, &path)?.map_or(Action::Removed, Action::Restored)
        }
        Present::Nothing => restore_kept(dir, hook, &path)?.map_or(Action::NotInstalled, Action::Restored),
    };
    Ok(Change { hook, path, action })
}

/// Puts a kept hook back at `path`; returns where it came from.
fn restore_kept(dir: &Path, hook: GitHook, path: &Path) -> Result<Option<PathBuf>, InstallError> {
    for from in [kept(dir, hook, CHAINED_SUFFIX), kept(dir, hook, REPLACED_SUFFIX)] {
        if std::fs::symlink_metadata(&from).is_ok() {
            std::fs::rename(&from, path).map_err(io(format!("restoring {}", from.display())))?;
            return Ok(Some(from));
        }
    }
    Ok(None)
}

/// Writes an executable hook atomically.
fn write_hook(path: &Path, text: &str) -> Result<(), InstallError> {
    let context = || format!("writing {}", path.display());
    let dir = path.parent().ok_or_else(|| io(context())(std::io::Error::other("no parent directory")))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(context()))?;
    tmp.write_all(text.as_bytes()).map_err(io(context()))?;
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o755)).map_err(io(context()))?;
    tmp.as_file().sync_all().map_err(io(context()))?;
    tmp.persist(path).map_err(|e| io(context())(e.error))?;
    Ok(())
}

/// The hook script for `hook`, running `exe`. A chained hook runs first and its failure stops
/// git; pre-push's stdin (the ref lines) is read once and handed to both.
pub fn script(hook: GitHook, exe: &Path) -> String {
    let name = hook.file_name();
    let command = hook.command();
    let exe = sh_quote(&exe.to_string_lossy());
    let run = match hook {
        GitHook::PreCommit => format!(
            "if [ -x \"$chained\" ]; then\n  \"$chained\" \"$@\" || exit $?\nfi\nexec \"$codeguard\" git-hook {name} \"$@\"\n"
        ),
        GitHook::PrePush => format!(
            "input=$(cat; echo x)\ninput=${{input%x}}\nif [ -x \"$chained\" ]; then\n  printf '%s' \"$input\" | \"$chained\" \"$@\" || exit $?\nfi\nprintf '%s' \"$input\" | \"$codeguard\" git-hook {name} \"$@\"\n"
        ),
    };
    format!(
        "#!/bin/sh
{MARKER}
# Written by `codeguard install --git-hooks`; `codeguard uninstall --git-hooks` removes it.
# A hook that was here before is kept as {name}{CHAINED_SUFFIX} and runs first.
codeguard={exe}
chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"
if [ ! -x \"$codeguard\" ]; then
  echo \"codeguard: $codeguard is missing; run 'codeguard install --git-hooks' again, or bypass once with git {command} --no-verify\" >&2
  exit 1
fi
{run}"
    )
}

/// Quotes a string for `sh` (single quotes; an embedded `'` becomes `'\''`).
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
