//! From the git operations bound to one repository (the intent stage) to staging actions and a
//! surface mode: what `git add`/`rm`/`mv`/`commit`/`push` in a command do to the content, with
//! interactive and run-time staging turned into UNVERIFIED reasons.

use std::path::Path;

use crate::bash::GitOp;
use crate::intent::RepoIntent;

use super::{Mode, Pathspecs, StagingAction, Surface, SurfaceError, SurfaceOptions};

/// Predicts the surface of one repository's share of a command. Actions after the last commit
/// are left out only for commands typed directly (through a script the order is less certain).
/// A construct that cannot be seen into may stage anything first, and a repository that may be
/// pushed only by such a construct (`$g push`, `eval "$cmd"`) gets the push surface too, with
/// whatever its index holds as a pending commit.
pub fn for_repo(repo: &RepoIntent) -> Result<Surface, SurfaceError> {
    let (mut mode, mut actions) = staging_actions(repo);
    if repo.opaque {
        // What it stages is unknown: the most it could take comes first.
        actions.insert(0, anything_staged(false, false));
    }
    if repo.mode == crate::bash::Mode::Push && mode == Mode::Commit {
        mode = Mode::Push { pending_commit: true };
    }
    let options = SurfaceOptions { through_last_commit: !repo.ops.iter().any(|o| o.indirect) };
    super::predict_with_index(&repo.root, mode, &actions, options, repo.index_file.as_deref())
}

/// Translates the bound operations of one repository into staging actions and a surface mode.
pub fn staging_actions(repo: &RepoIntent) -> (Mode, Vec<StagingAction>) {
    let mut actions = Vec::new();
    let mut committed = false;
    let mut pushes = false;
    for bound in &repo.ops {
        let cwd_rel = relative(&repo.root, &bound.cwd);
        match &bound.op {
            GitOp::Add {
                pathspecs,
                all,
                update,
                force,
                interactive,
                pathspec_from_file,
                dry_run,
                intent_to_add,
                dynamic,
            } => {
                if *interactive || *pathspec_from_file || *dynamic {
                    actions.push(StagingAction::Unverifiable(format!(
                        "`{}` stages content that cannot be known before it runs",
                        bound.text
                    )));
                    actions.push(anything_staged(*interactive && !*pathspec_from_file && !*dynamic, *force));
                } else if !*dry_run && !*intent_to_add {
                    actions.push(StagingAction::Add {
                        specs: Pathspecs::new(cwd_rel, pathspecs.clone()),
                        all: *all,
                        update: *update,
                        force: *force,
                    });
                }
            }
            GitOp::Commit { all, only_paths, include, interactive, pathspec_from_file, dynamic, .. } => {
                committed = true;
                if *interactive || *pathspec_from_file || *dynamic {
                    actions.push(StagingAction::Unverifiable(format!(
                        "`{}` commits content that cannot be known before it runs",
                        bound.text
                    )));
                }
                actions.push(if *interactive || *pathspec_from_file || *dynamic {
                    // What it picks is unknown; every tracked change is the most it can take.
                    StagingAction::CommitAll
                } else if *all {
                    StagingAction::CommitAll
                } else if only_paths.is_empty() {
                    StagingAction::Commit
                } else if *include {
                    StagingAction::CommitInclude(Pathspecs::new(cwd_rel, only_paths.clone()))
                } else {
                    StagingAction::CommitOnly(Pathspecs::new(cwd_rel, only_paths.clone()))
                });
            }
            GitOp::Push { dry_run, .. } => pushes |= !*dry_run,
            GitOp::Rm { pathspecs, cached, dry_run, dynamic, .. } => {
                if *dynamic {
                    actions.push(StagingAction::Unverifiable(format!(
                        "`{}` removes paths known only at run time",
                        bound.text
                    )));
                } else if !*dry_run {
                    actions.push(StagingAction::Rm {
                        specs: Pathspecs::new(cwd_rel, pathspecs.clone()),
                        cached: *cached,
                    });
                }
            }
            GitOp::Mv { from, to, dry_run, dynamic } => {
                if *dynamic {
                    actions.push(StagingAction::Unverifiable(format!(
                        "`{}` moves paths known only at run time",
                        bound.text
                    )));
                    actions.push(anything_staged(false, false));
                } else if !*dry_run {
                    actions.extend(from.iter().map(|f| StagingAction::Mv {
                        cwd_rel: cwd_rel.clone(),
                        from: f.clone(),
                        to: to.clone(),
                    }));
                }
            }
            GitOp::Stash { action, .. } => {
                if !matches!(action.as_str(), "list" | "show") {
                    actions.push(StagingAction::Unverifiable(format!(
                        "`{}` changes the index and worktree before the commit",
                        bound.text
                    )));
                }
            }
            GitOp::SetSkipGate { .. } => {}
        }
    }
    let mode = if pushes { Mode::Push { pending_commit: committed } } else { Mode::Commit };
    (mode, actions)
}

/// The most a `git add` whose paths are unknown can stage, so that the surface is a superset of
/// what lands: every tracked change for `-p`/`-i` (they pick hunks of tracked files), else every
/// change, untracked files included (ignored ones too under `-f`). Paths are the repository's
/// own, whatever directory the add runs in (`../` reaches anywhere).
fn anything_staged(tracked_only: bool, force: bool) -> StagingAction {
    StagingAction::Add {
        specs: Pathspecs::new(String::new(), Vec::<String>::new()),
        all: !tracked_only,
        update: tracked_only,
        force,
    }
}

fn relative(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root).ok().and_then(Path::to_str).unwrap_or("").to_owned()
}
