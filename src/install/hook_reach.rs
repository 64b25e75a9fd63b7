//! Whether codeguard's git hooks are what git really runs: [`reach`] follows `core.hooksPath`
//! and each hook manager's chain for every hook, and says whether nothing between git and
//! codeguard's script can skip it; [`doors`] is what the gate counts on; the install record
//! (`record`) lets `doctor` know the gate belongs in a repository whose files a manager removed.

use std::path::{Path, PathBuf};

use super::git_hooks::{LEGACY_SUFFIX, Layout, OLD_SUFFIX, Present, executable, layout, present};
use super::hook_managers::{self as managers, Block, Owner};
use super::hook_script::{binary_of, genuine};
use crate::mode::GitHook;

/// Whether codeguard's gate is what git runs for one hook, and what git runs instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The hook.
    pub hook: GitHook,
    /// Whether git, following the manager's chain, runs codeguard.
    pub runs: bool,
    /// Whether nothing between git and codeguard's script can skip it: git runs codeguard's own
    /// script, or pre-commit/prek's, which always runs its `.legacy` script first. A lefthook
    /// command or a husky block can be switched off from outside (`LEFTHOOK=0`, `HUSKY=0`, a
    /// `skip:` in the tracked config, a binary it cannot find), so it is not; nor is a script
    /// that carries codeguard's marker but differs by one byte from what this codeguard writes.
    pub unconditional: bool,
    /// What git runs, in a sentence.
    pub detail: String,
}

/// The state file recording that `codeguard install --git-hooks` ran for the repository in
/// `layout` (under the state directory `state_home`), so `doctor` still knows the gate belongs
/// there when a manager deleted every file of it (`pre-commit install -f`).
pub(crate) fn record_path(state_home: &Path, layout: &Layout) -> PathBuf {
    let key = crate::state::key_of(&[layout.default_hooks.as_os_str().as_encoded_bytes()]);
    state_home.join("git-hooks").join(key)
}

/// Records (or, with `installed` false, forgets) an install for the repository in `layout`.
pub(crate) fn record(state_home: &Path, layout: &Layout, installed: bool) -> std::io::Result<()> {
    let path = record_path(state_home, layout);
    if !installed {
        return crate::state::remove(&path);
    }
    crate::fs::write_private(&path, layout.default_hooks.as_os_str().as_encoded_bytes())
}

/// For each hook: does the hook git runs (following `core.hooksPath` and the manager's chain)
/// run codeguard? `None` when nothing of codeguard's is installed anywhere in the repository and
/// no install is `recorded` for it.
pub(crate) fn reach(layout: &Layout, recorded: bool) -> Option<Vec<Reach>> {
    let ours = traces(layout);
    if ours.is_empty() && !recorded {
        return None;
    }
    Some(GitHook::ALL.iter().map(|hook| reach_one(layout, *hook, &ours)).collect())
}

/// codeguard's git hooks in the repository at `root`, as the gate counts on them: the hooks
/// directory and which of codeguard's hooks git runs there with nothing able to skip them (never
/// counting on an install record).
pub(crate) fn doors(root: &Path) -> Option<crate::surface::GitDoors> {
    let layout = layout(root).ok()?;
    let reach = reach(&layout, false)?;
    let sure = |hook: GitHook| reach.iter().any(|r| r.hook == hook && r.unconditional);
    Some(crate::surface::GitDoors {
        pre_commit: sure(GitHook::PreCommit),
        backstop: sure(GitHook::ReferenceTransaction),
        hooks: layout.hooks,
    })
}

/// Every file where codeguard's script or block is installed.
fn traces(layout: &Layout) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for hook in GitHook::ALL {
        for dir in layout.script_dirs() {
            for suffix in ["", LEGACY_SUFFIX, OLD_SUFFIX] {
                let slot = dir.join(format!("{}{suffix}", hook.file_name()));
                if matches!(present(&slot), Present::Ours(_)) {
                    out.push(slot);
                }
            }
        }
        for file in layout.husky_dirs().into_iter().map(|d| d.join(hook.file_name())) {
            if has_block(&file) {
                out.push(file);
            }
        }
    }
    out.extend(layout.lefthook_locals().into_iter().filter(|f| has_block(f)));
    out
}

fn has_block(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| matches!(managers::find_block(&t), Block::Present { .. }))
}

fn reach_one(layout: &Layout, hook: GitHook, ours: &[PathBuf]) -> Reach {
    let name = hook.file_name();
    let path = layout.hooks.join(name);
    let elsewhere = || {
        // This hook's files, and lefthook's local file (one block serves both hooks).
        let list: Vec<String> = ours
            .iter()
            .filter(|p| {
                p.file_name().map(|n| n.to_string_lossy()).is_some_and(|n| {
                    n.starts_with(name) || !GitHook::ALL.iter().any(|h| n.starts_with(h.file_name()))
                })
            })
            .map(|p| p.display().to_string())
            .collect();
        if ours.is_empty() {
            return "`codeguard install --git-hooks` ran in this repository, but none of its files is left (a hook manager removed them) — run `codeguard install --git-hooks` again".to_owned();
        }
        if list.is_empty() {
            return format!(
                "codeguard's {name} gate is gone (other hooks of codeguard's are still installed) — run `codeguard install --git-hooks`"
            );
        }
        format!(
            "codeguard's gate is installed in {}, which git does not run — run `codeguard install --git-hooks`",
            list.join(", ")
        )
    };
    let (runs, detail) = match present(&path) {
        Present::Nothing => {
            (false, format!("git runs no {name} hook ({} does not exist); {}", path.display(), elsewhere()))
        }
        _ if !executable(&path) => {
            (false, format!("{} is not executable, so git skips it; {}", path.display(), elsewhere()))
        }
        Present::Ours(text) => match binary_of(&text) {
            Some(exe) if !executable(Path::new(&exe)) => (
                false,
                format!(
                    "git runs codeguard's {}, but its binary {exe} is missing — run `codeguard install --git-hooks` again",
                    path.display()
                ),
            ),
            _ => (true, format!("git runs codeguard's {}", path.display())),
        },
        Present::Manager(owner @ (Owner::PreCommit | Owner::Prek)) => {
            let legacy = layout.hooks.join(format!("{name}{LEGACY_SUFFIX}"));
            let with_binary = |text: &str| binary_of(text).is_none_or(|exe| executable(Path::new(&exe)));
            if matches!(present(&legacy), Present::Ours(text) if with_binary(&text)) && executable(&legacy) {
                (
                    true,
                    format!(
                        "git runs {}'s {}, which runs codeguard's {} first",
                        owner.label(),
                        path.display(),
                        legacy.display()
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "git runs {}'s {}, which does not run codeguard (no codeguard script at {}); {}",
                        owner.label(),
                        path.display(),
                        legacy.display(),
                        elsewhere()
                    ),
                )
            }
        }
        Present::Manager(Owner::Lefthook) => {
            let command = format!("git-hook {name}");
            let found = layout.lefthook_locals().into_iter().find(|f| {
                std::fs::read_to_string(f).is_ok_and(|t| match managers::find_block(&t) {
                    Block::Present { block, .. } => block.contains(&command),
                    Block::Absent | Block::Broken => false,
                })
            });
            match found {
                Some(file) => (
                    true,
                    format!(
                        "git runs lefthook's {}, which runs codeguard's command in {}",
                        path.display(),
                        file.display()
                    ),
                ),
                None => (
                    false,
                    format!(
                        "git runs lefthook's {}, whose configuration has no codeguard command (lefthook never runs hooks it moved to {name}{OLD_SUFFIX}); {}",
                        path.display(),
                        elsewhere()
                    ),
                ),
            }
        }
        Present::Manager(Owner::Husky) => {
            let script = path.parent().and_then(Path::parent).map(|d| d.join(name));
            match script {
                Some(script) if has_block(&script) => (
                    true,
                    format!(
                        "git runs husky's {}, which runs {} with codeguard's lines",
                        path.display(),
                        script.display()
                    ),
                ),
                Some(script) if !script.is_file() => (
                    false,
                    format!(
                        "git runs husky's {}, which runs nothing: {} does not exist; {}",
                        path.display(),
                        script.display(),
                        elsewhere()
                    ),
                ),
                Some(script) => (
                    false,
                    format!(
                        "git runs husky's {}, which runs {} without codeguard's lines; {}",
                        path.display(),
                        script.display(),
                        elsewhere()
                    ),
                ),
                None => (false, elsewhere()),
            }
        }
        Present::Manager(Owner::Codeguard | Owner::Other) | Present::Other(_) => {
            (false, format!("git runs {}, which is not codeguard's; {}", path.display(), elsewhere()))
        }
    };
    let unconditional = runs
        && match present(&path) {
            Present::Ours(text) => genuine(hook, &text),
            Present::Manager(Owner::PreCommit | Owner::Prek) => {
                let legacy = layout.hooks.join(format!("{name}{LEGACY_SUFFIX}"));
                matches!(present(&legacy), Present::Ours(text) if genuine(hook, &text))
            }
            _ => false,
        };
    Reach { hook, runs, unconditional, detail }
}
