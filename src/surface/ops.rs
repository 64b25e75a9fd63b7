//! From the git operations bound to one repository (the intent stage) to staging actions and a
//! surface mode: what `git add`/`rm`/`mv`/`commit`/`push` in a command do to the content, with
//! interactive and run-time staging turned into UNVERIFIED reasons.

use std::path::Path;

use crate::bash::GitOp;
use crate::intent::{BoundOp, RepoIntent};

use super::{Mode, Pathspecs, StagingAction, Surface, SurfaceError, SurfaceOptions};

/// Predicts the surface of one repository's share of a command. Actions after the last commit
/// are left out only for commands typed directly (through a script the order is less certain).
/// A construct that cannot be seen into may stage anything first, and a repository that may be
/// pushed only by such a construct (`$g push`, `eval "$cmd"`) gets the push surface too, with
/// whatever its index holds as a pending commit.
pub(crate) fn for_repo(repo: &RepoIntent) -> Result<Surface, SurfaceError> {
    let (mut mode, mut actions) = staging_actions(repo);
    if repo.opaque {
        // What it stages is unknown: the most it could take comes first.
        actions.insert(0, anything_staged(false, false));
    }
    if repo.mode == crate::mode::Mode::Push && mode == Mode::Commit {
        mode = Mode::Push { pending_commit: true };
    }
    let options = SurfaceOptions { through_last_commit: !repo.ops.iter().any(|o| o.indirect) };
    let pushes = push_calls(repo);
    super::predict_with_index(&repo.root, mode, &actions, options, repo.index_file.as_deref(), &pushes)
}

/// The pushes of one repository's share of a command (dry runs and deletions left out), with
/// `HEAD` and bare pushes after a `git checkout X` read as X, and a branch the command creates
/// first (`git checkout -b nb [START]`) read as its start.
pub(crate) fn push_calls(repo: &RepoIntent) -> Vec<super::PushCall> {
    let mut pushes: Vec<super::PushCall> = Vec::new();
    let mut switched: Option<String> = None;
    let mut created: Vec<(String, String)> = Vec::new();
    for bound in &repo.ops {
        if let GitOp::Writer(w) = &bound.op {
            if let Some(target) = switch_target(w) {
                switched = Some(target);
            }
            if let Some(alias) = created_branch(w) {
                created.push(alias);
            }
            continue;
        }
        let GitOp::Push { dry_run: false, delete: false, remote, refspecs, all_refs, tags, .. } = &bound.op
        else {
            continue;
        };
        // After `git checkout X` in the same command, `HEAD` (and a bare push) means X.
        let refspecs = match &switched {
            Some(x) if refspecs.is_empty() && !*all_refs && !*tags => vec![x.clone()],
            Some(x) => refspecs
                .iter()
                .map(|r| match r.split_once(':') {
                    Some(("HEAD" | "@", dst)) => format!("{x}:{dst}"),
                    None if r == "HEAD" || r == "@" => x.clone(),
                    Some(_) | None => r.clone(),
                })
                .collect(),
            None => refspecs.clone(),
        };
        // A branch the command creates first (`checkout -b nb && git push origin nb`) is its start.
        let refspecs = refspecs
            .into_iter()
            .map(|r| {
                let (force, rest) = r.strip_prefix('+').map_or(("", r.as_str()), |x| ("+", x));
                let (src, dst) = rest.split_once(':').map_or((rest, None), |(a, b)| (a, Some(b)));
                match created.iter().rev().find(|(name, _)| name == src) {
                    Some((name, start)) => format!("{force}{start}:{}", dst.unwrap_or(name)),
                    None => r.clone(),
                }
            })
            .collect();
        pushes.push(super::PushCall {
            remote: remote.clone(),
            refspecs,
            all_refs: *all_refs,
            tags: *tags,
            text: bound.text.clone(),
        });
    }
    pushes
}

/// Translates the bound operations of one repository into staging actions and a surface mode.
pub(crate) fn staging_actions(repo: &RepoIntent) -> (Mode, Vec<StagingAction>) {
    let actions = repo.ops.iter().flat_map(|bound| op_actions(&repo.root, bound)).collect();
    let committed = repo.ops.iter().any(|b| b.op.mode() == Some(crate::mode::Mode::Commit));
    let pushes = repo.ops.iter().any(|b| matches!(b.op, GitOp::Push { dry_run: false, .. }));
    let mode = if pushes { Mode::Push { pending_commit: committed } } else { Mode::Commit };
    (mode, actions)
}

/// What one git operation does to the content, as staging actions: the one reading of `git
/// add`/`rm`/`mv`/`commit`/`stash` and the writers' flags (the surface simulates these; the rule
/// on files written in the same call asks them what would be staged from the worktree).
pub(crate) fn op_actions(root: &Path, bound: &BoundOp) -> Vec<StagingAction> {
    let mut actions = Vec::new();
    let cwd_rel = relative(root, &bound.cwd);
    let op = with_pwd(&bound.op, &bound.cwd);
    match op.as_ref() {
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
            } else if *intent_to_add && !*dry_run {
                actions.push(StagingAction::IntentToAdd(Pathspecs::new(cwd_rel, pathspecs.clone())));
            } else if !*dry_run {
                actions.push(StagingAction::Add {
                    specs: Pathspecs::new(cwd_rel, pathspecs.clone()),
                    all: *all,
                    update: *update,
                    force: *force,
                });
            }
        }
        GitOp::Commit {
            all, only_paths, include, interactive, pathspec_from_file, dynamic, amend, ..
        } => {
            if *amend {
                actions.push(StagingAction::Amend);
            }
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
        GitOp::Stash { action, args } => {
            let flag = |names: &[&str]| args.iter().any(|a| names.contains(&a.as_str()));
            let operands = args.iter().skip(1).filter(|a| !a.starts_with('-')).count();
            let plain_push = matches!(action.as_str(), "push" | "save")
                && !flag(&["-p", "--patch", "--staged", "-S", "--pathspec-from-file"])
                && !args.iter().any(|a| a == "--")
                && (action == "save" || operands == 0);
            let newest = args.iter().skip(1).filter(|a| !a.starts_with('-')).all(|a| a == "stash@{0}");
            if plain_push {
                actions.push(StagingAction::StashPush {
                    untracked: flag(&["-u", "--include-untracked", "-a", "--all"]),
                    keep_index: flag(&["-k", "--keep-index"]),
                });
            } else if matches!(action.as_str(), "pop" | "apply") && newest {
                actions.push(StagingAction::StashApply { index: flag(&["--index"]) });
            } else if !matches!(action.as_str(), "list" | "show") {
                actions.push(StagingAction::Unverifiable(format!(
                    "`{}` changes the index and worktree before the commit",
                    bound.text
                )));
            }
        }
        GitOp::Push { .. } | GitOp::SetSkipGate { .. } | GitOp::ConfigWrite => {}
        GitOp::Writer(w) => {
            let call = super::writers::WriterCall {
                kind: w.kind,
                flags: &w.flags,
                values: &w.values,
                operands: &w.operands,
                paths: &w.paths,
                commits: w.commits,
                dynamic: w.dynamic,
                text: &bound.text,
            };
            actions.extend(super::writers::actions(&call, root, &bound.cwd, &cwd_rel));
        }
    }
    actions
}

/// The revision a `git checkout X` / `git switch X` (no paths) moves `HEAD` to, if it moves.
fn switch_target(w: &crate::bash::WriterOp) -> Option<String> {
    if w.kind != crate::bash::Writer::Checkout || !w.paths.is_empty() {
        return None;
    }
    let creates = w
        .values
        .iter()
        .any(|(f, _)| matches!(f.as_str(), "-b" | "-B" | "-c" | "-C" | "--create" | "--force-create"));
    match w.operands.as_slice() {
        [only] if !creates => Some(only.clone()),
        [_, start] if creates => Some(start.clone()),
        [..] => None,
    }
}

/// The branch a `checkout -b N [START]` / `switch -c N [START]` creates, and its start.
fn created_branch(w: &crate::bash::WriterOp) -> Option<(String, String)> {
    if w.kind != crate::bash::Writer::Checkout {
        return None;
    }
    let (_, name) = w.values.iter().find(|(f, _)| {
        matches!(f.as_str(), "-b" | "-B" | "-c" | "-C" | "--create" | "--force-create" | "--orphan")
    })?;
    let start = w.operands.first().cloned().unwrap_or_else(|| "HEAD".to_owned());
    Some((name.clone(), start))
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

/// `op` with `$PWD/…`, `${PWD}/…`, `$(pwd)/…` and `` `pwd`/… `` path prefixes replaced by the
/// directory the operation runs in, which the shell substitutes there; an operation whose only
/// expansions were those prefixes is then exact.
fn with_pwd<'a>(op: &'a GitOp, cwd: &Path) -> std::borrow::Cow<'a, GitOp> {
    use std::borrow::Cow;
    let resolve = |specs: &[String]| -> Option<Vec<String>> {
        let dir = cwd.to_str()?;
        let mut changed = false;
        let out: Vec<String> = specs
            .iter()
            .map(|s| {
                let rest = ["$PWD", "${PWD}", "$(pwd)", "`pwd`"]
                    .iter()
                    .find_map(|p| s.strip_prefix(p).filter(|r| r.is_empty() || r.starts_with('/')));
                match rest {
                    Some(rest) => {
                        changed = true;
                        format!("{dir}{rest}")
                    }
                    None => s.clone(),
                }
            })
            .collect();
        (changed && !out.iter().any(|s| s.contains(['$', '`']))).then_some(out)
    };
    match op {
        GitOp::Add { pathspecs, dynamic: true, .. } => match resolve(pathspecs) {
            Some(specs) => {
                let mut owned = op.clone();
                if let GitOp::Add { pathspecs, dynamic, .. } = &mut owned {
                    *pathspecs = specs;
                    *dynamic = false;
                }
                Cow::Owned(owned)
            }
            None => Cow::Borrowed(op),
        },
        GitOp::Commit { only_paths, dynamic: true, .. } => match resolve(only_paths) {
            Some(specs) => {
                let mut owned = op.clone();
                if let GitOp::Commit { only_paths, dynamic, .. } = &mut owned {
                    *only_paths = specs;
                    *dynamic = false;
                }
                Cow::Owned(owned)
            }
            None => Cow::Borrowed(op),
        },
        GitOp::Rm { pathspecs, dynamic: true, .. } => match resolve(pathspecs) {
            Some(specs) => {
                let mut owned = op.clone();
                if let GitOp::Rm { pathspecs, dynamic, .. } = &mut owned {
                    *pathspecs = specs;
                    *dynamic = false;
                }
                Cow::Owned(owned)
            }
            None => Cow::Borrowed(op),
        },
        GitOp::Add { .. }
        | GitOp::Commit { .. }
        | GitOp::Rm { .. }
        | GitOp::Push { .. }
        | GitOp::Mv { .. }
        | GitOp::Stash { .. }
        | GitOp::Writer(_)
        | GitOp::SetSkipGate { .. }
        | GitOp::ConfigWrite => Cow::Borrowed(op),
    }
}

fn relative(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root).ok().and_then(Path::to_str).unwrap_or("").to_owned()
}
