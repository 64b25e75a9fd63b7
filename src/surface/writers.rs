//! From a [`crate::bash::GitOp::Writer`] (merge, rebase, cherry-pick, revert, am, commit-tree, pull,
//! checkout/switch, restore, reset, apply, read-tree, update-index) to staging actions.
//!
//! In: the parsed sub-command, the directory it runs in and the repository root. Out: the
//! [`StagingAction`]s that model it, or an UNVERIFIED reason for the forms whose effect cannot
//! be read before they run (interactive, `--continue`, stdin). Reads nothing but, for the
//! ambiguous `checkout X Y` / `reset X Y` forms, whether `X` names a revision.

use std::path::Path;

use crate::bash::Writer;

use super::{Pathspecs, Replay, StagingAction, revs};

/// One parsed writer sub-command.
pub(super) struct WriterCall<'a> {
    /// Which sub-command.
    pub kind: Writer,
    /// Flags as written.
    pub flags: &'a [String],
    /// Option values.
    pub values: &'a [(String, String)],
    /// Operands before `--`.
    pub operands: &'a [String],
    /// Operands after `--`.
    pub paths: &'a [String],
    /// It commits.
    pub commits: bool,
    /// Something is known only at run time.
    pub dynamic: bool,
    /// The command words.
    pub text: &'a str,
}

impl WriterCall<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }

    fn value(&self, names: &[&str]) -> Option<&str> {
        self.values.iter().rev().find(|(f, _)| names.contains(&f.as_str())).map(|(_, v)| v.as_str())
    }

    fn unverifiable(&self, why: &str) -> StagingAction {
        StagingAction::Unverifiable(format!("`{}` {why}", self.text))
    }
}

/// The staging actions of one writer call run in `cwd` (absolute), `cwd_rel` below `root`.
pub(super) fn actions(call: &WriterCall<'_>, root: &Path, cwd: &Path, cwd_rel: &str) -> Vec<StagingAction> {
    if call.dynamic {
        let mut out = vec![call.unverifiable("names revisions or paths known only at run time")];
        if call.commits {
            out.push(StagingAction::Commit);
        }
        return out;
    }
    let specs = |paths: &[String]| Pathspecs::new(cwd_rel, paths.iter().cloned());
    let replay =
        |replay: Replay, commit: bool| StagingAction::Replay { replay, commit, text: call.text.to_owned() };
    let resumes = call.has(&["--continue", "--skip", "--resolved"]);
    let stops = call.has(&["--abort", "--quit", "--show-current-patch", "--edit-todo"]);
    match call.kind {
        Writer::Merge | Writer::CherryPick | Writer::Revert | Writer::Am | Writer::Rebase if stops => {
            Vec::new()
        }
        Writer::Merge | Writer::CherryPick | Writer::Revert | Writer::Am | Writer::Rebase if resumes => vec![
            call.unverifiable("continues an operation in progress: the index as it stands is predicted"),
            StagingAction::Commit,
        ],
        Writer::Merge => {
            let revs = if call.operands.is_empty() {
                vec!["@{upstream}".to_owned()]
            } else {
                call.operands.to_vec()
            };
            vec![replay(Replay::Merge(revs), call.commits)]
        }
        Writer::CherryPick | Writer::Revert => {
            let mut out = Vec::new();
            if call.value(&["-m", "--mainline"]).is_some() {
                out.push(call.unverifiable("replays a merge commit against one of its parents"));
            }
            let revs = call.operands.to_vec();
            let kind = if call.kind == Writer::Revert { Replay::Revert(revs) } else { Replay::Pick(revs) };
            out.push(replay(kind, call.commits));
            out
        }
        Writer::Rebase => rebase(call, cwd_rel),
        Writer::Pull => pull(call),
        Writer::Am => {
            let files = call.operands.iter().chain(call.paths).map(|p| cwd.join(p)).collect();
            vec![replay(Replay::Patches(files), true)]
        }
        Writer::Apply => {
            let applies =
                !call.has(&["--check", "--stat", "--numstat", "--summary"]) || call.has(&["--apply"]);
            if !applies {
                return Vec::new();
            }
            let files = call.operands.iter().chain(call.paths).map(|p| cwd.join(p)).collect();
            vec![replay(Replay::Patches(files), false)]
        }
        Writer::CommitTree => vec![replay(Replay::CommitTree, true)],
        Writer::Checkout => checkout(call, root, cwd_rel),
        Writer::Restore => {
            if call.has(&["-p", "--patch"]) || call.value(&["--pathspec-from-file"]).is_some() {
                return vec![call.unverifiable("restores content that cannot be known before it runs")];
            }
            let staged = call.has(&["-S", "--staged"]);
            let worktree = call.has(&["-W", "--worktree"]) || !staged;
            let source = call.value(&["-s", "--source"]).map(str::to_owned);
            let overlay = call.has(&["--overlay"]);
            let all: Vec<String> = call.operands.iter().chain(call.paths).cloned().collect();
            match (staged, worktree) {
                (true, true) => vec![StagingAction::CheckoutPaths {
                    rev: Some(source.unwrap_or_else(|| "HEAD".to_owned())),
                    specs: specs(&all),
                    index: true,
                    overlay,
                }],
                (true, false) => vec![StagingAction::ResetIndex {
                    rev: source.unwrap_or_else(|| "HEAD".to_owned()),
                    specs: specs(&all),
                }],
                (false, _) => {
                    vec![StagingAction::CheckoutPaths {
                        rev: source,
                        specs: specs(&all),
                        index: false,
                        overlay,
                    }]
                }
            }
        }
        Writer::Reset => reset(call, root, cwd_rel),
        Writer::ReadTree => {
            let simple =
                !call.has(&["-m", "--empty"]) && call.value(&["--prefix", "--index-output"]).is_none();
            match call.operands {
                [rev] if simple => {
                    vec![StagingAction::ResetIndex { rev: rev.clone(), specs: Pathspecs::default() }]
                }
                _ => vec![call.unverifiable("merges or prefixes trees into the index: not modelled")],
            }
        }
        Writer::UpdateIndex => update_index(call, cwd_rel),
    }
}

fn rebase(call: &WriterCall<'_>, _cwd_rel: &str) -> Vec<StagingAction> {
    let mut out = Vec::new();
    if call.has(&["-i", "--interactive", "--root", "-x", "--exec", "--autosquash", "-r", "--rebase-merges"])
        || call.value(&["-x", "--exec"]).is_some()
    {
        out.push(call.unverifiable(
            "edits the replayed commits (interactive, exec, root or merges): predicted as a plain rebase",
        ));
    }
    let upstream = call.operands.first().cloned();
    if let Some(branch) = call.operands.get(1) {
        out.push(StagingAction::Switch { rev: Some(branch.clone()) });
    }
    let onto = call.value(&["--onto"]).map(str::to_owned);
    out.push(StagingAction::Replay {
        replay: Replay::Rebase { upstream, onto },
        commit: true,
        text: call.text.to_owned(),
    });
    out
}

fn pull(call: &WriterCall<'_>) -> Vec<StagingAction> {
    let rev = match call.operands {
        [] | [_] => "@{upstream}".to_owned(),
        [remote, branch, ..] => {
            let src = branch.trim_start_matches('+').split(':').next().unwrap_or(branch);
            format!("refs/remotes/{remote}/{}", src.trim_start_matches("refs/heads/"))
        }
    };
    let reason = format!(
        "fetches commits when it runs: only what `{rev}` already holds here is predicted; the fetched commits were checked (or not) where they were made"
    );
    let rebase = call.has(&["-r", "--rebase"]) || call.flags.iter().any(|f| f.starts_with("--rebase="));
    let replay =
        if rebase { Replay::Rebase { upstream: Some(rev), onto: None } } else { Replay::Merge(vec![rev]) };
    vec![
        call.unverifiable(&reason),
        StagingAction::Replay { replay, commit: call.commits, text: call.text.to_owned() },
    ]
}

/// Whether `rev` names a commit in the repository at `root`.
fn is_rev(root: &Path, rev: &str) -> bool {
    crate::git::open_worktree(root).ok().is_some_and(|repo| revs::resolve(&repo, rev).is_some())
}

fn checkout(call: &WriterCall<'_>, root: &Path, cwd_rel: &str) -> Vec<StagingAction> {
    if call.has(&["-p", "--patch"]) || call.value(&["--pathspec-from-file"]).is_some() {
        return vec![call.unverifiable("checks out content that cannot be known before it runs")];
    }
    if call.value(&["--orphan"]).is_some() {
        return vec![StagingAction::Switch { rev: None }];
    }
    let specs = |paths: &[String]| Pathspecs::new(cwd_rel, paths.iter().cloned());
    let overlay = !call.has(&["--no-overlay"]);
    let creates = call.value(&["-b", "-B", "-c", "-C", "--create", "--force-create"]).is_some();
    let dashdash = !call.paths.is_empty() || call.text.split_whitespace().any(|w| w == "--");
    if dashdash {
        let rev = call.operands.first().cloned();
        if call.paths.is_empty() {
            return rev.map(|r| StagingAction::Switch { rev: Some(r) }).into_iter().collect();
        }
        return vec![StagingAction::CheckoutPaths {
            index: rev.is_some(),
            rev,
            specs: specs(call.paths),
            overlay,
        }];
    }
    match call.operands {
        [] => Vec::new(),
        [only] if creates || is_rev(root, only) => vec![StagingAction::Switch { rev: Some(only.clone()) }],
        [first, rest @ ..] if !creates && is_rev(root, first) => {
            vec![StagingAction::CheckoutPaths {
                rev: Some(first.clone()),
                specs: specs(rest),
                index: true,
                overlay,
            }]
        }
        all => vec![StagingAction::CheckoutPaths { rev: None, specs: specs(all), index: false, overlay }],
    }
}

fn reset(call: &WriterCall<'_>, root: &Path, cwd_rel: &str) -> Vec<StagingAction> {
    if call.has(&["-p", "--patch"]) || call.value(&["--pathspec-from-file"]).is_some() {
        return vec![call.unverifiable("resets content that cannot be known before it runs")];
    }
    let specs = |paths: &[String]| Pathspecs::new(cwd_rel, paths.iter().cloned());
    let dashdash = !call.paths.is_empty() || call.text.split_whitespace().any(|w| w == "--");
    let (rev, paths): (String, Vec<String>) = if dashdash {
        (call.operands.first().cloned().unwrap_or_else(|| "HEAD".to_owned()), call.paths.to_vec())
    } else {
        match call.operands {
            [] => ("HEAD".to_owned(), Vec::new()),
            [first, rest @ ..] if is_rev(root, first) => (first.clone(), rest.to_vec()),
            all => ("HEAD".to_owned(), all.to_vec()),
        }
    };
    if !paths.is_empty() {
        return vec![StagingAction::ResetIndex { rev, specs: specs(&paths) }];
    }
    let soft = call.has(&["--soft"]);
    let hard = call.has(&["--hard", "--keep", "--merge"]);
    vec![StagingAction::Reset { rev, index: !soft, worktree: hard }]
}

fn update_index(call: &WriterCall<'_>, cwd_rel: &str) -> Vec<StagingAction> {
    if call.has(&["--index-info", "--stdin", "-z", "--unresolve", "--again", "-g"]) {
        return vec![call.unverifiable("updates the index from input known only at run time")];
    }
    let mut out = Vec::new();
    let mut rest: Vec<String> = call.operands.iter().chain(call.paths).cloned().collect();
    for (flag, value) in call.values {
        if flag != "--cacheinfo" {
            continue;
        }
        let parts: Vec<&str> = value.splitn(3, ',').collect();
        let (mode, id, path) = match parts.as_slice() {
            [mode, id, path] => ((*mode).to_owned(), (*id).to_owned(), (*path).to_owned()),
            _ if rest.len() >= 2 => {
                let id = rest.remove(0);
                let path = rest.remove(0);
                (value.clone(), id, path)
            }
            _ => return vec![call.unverifiable("sets an index entry codeguard cannot read")],
        };
        let path = if cwd_rel.is_empty() { path } else { format!("{cwd_rel}/{path}") };
        out.push(StagingAction::CacheInfo { path, id, mode });
    }
    if rest.is_empty() {
        return out;
    }
    let literal = Pathspecs { cwd_rel: cwd_rel.to_owned(), specs: rest, literal: true };
    if let Some(chmod) = call.value(&["--chmod"]) {
        out.push(StagingAction::Chmod { specs: literal.clone(), executable: chmod.starts_with('+') });
    }
    if call.has(&["--force-remove"]) {
        out.push(StagingAction::Rm { specs: literal, cached: true });
        return out;
    }
    let only_flags =
        call.has(&["--assume-unchanged", "--no-assume-unchanged", "--skip-worktree", "--no-skip-worktree"]);
    if !only_flags || call.has(&["--add", "--remove"]) {
        out.push(StagingAction::Add {
            specs: literal,
            all: call.has(&["--remove"]),
            update: !call.has(&["--add"]),
            force: false,
        });
    }
    out
}
