//! References: the upstream of the current branch, object ids as hooks hand them
//! ([`parse_id`]), peeling through annotated tags ([`peel_tags`]), and a remote's advertised
//! refs ([`advertised`], `git ls-remote`: the one read that contacts a remote).
//!
//! **In:** an opened repository. **Out:** the first upstream candidate that exists — the
//! current branch's configured tracking ref, `origin/<branch>`, `origin/HEAD` — with its commit.
//! **Never:** contacts a remote except in [`advertised`] (the upstream is what was fetched).

use super::Error;

/// The first upstream candidate that resolves to a commit: its full ref name and id.
pub(crate) fn upstream(repo: &gix::Repository) -> Result<Option<(String, gix::ObjectId)>, Error> {
    let head_name = repo.head_name().map_err(Error::reference("reading HEAD"))?;
    let mut candidates = Vec::new();
    if let Some(name) = &head_name {
        if let Some(Ok(tracking)) =
            repo.branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)
        {
            candidates.push(tracking.as_bstr().to_string());
        }
        candidates.push(format!("refs/remotes/origin/{}", name.shorten()));
    }
    candidates.push("refs/remotes/origin/HEAD".to_owned());
    for candidate in candidates {
        let found = repo.try_find_reference(candidate.as_str()).map_err(Error::reference("reading a ref"))?;
        if let Some(mut reference) = found {
            let id = reference.peel_to_id().map_err(Error::reference("peeling the upstream ref"))?;
            return Ok(Some((candidate, id.detach())));
        }
    }
    Ok(None)
}
/// An object id as git hands it to a hook (hex; all zeros: no object), `None` for the null id.
pub(crate) fn parse_id(hex: &str) -> Result<Option<gix::ObjectId>, String> {
    let id = gix::ObjectId::from_hex(hex.as_bytes()).map_err(|e| format!("bad object id {hex:?}: {e}"))?;
    Ok((!id.is_null()).then_some(id))
}

/// What an object a ref points at is, through annotated tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Peeled {
    /// A commit, and the annotated tags passed on the way.
    Commit {
        /// The commit.
        commit: gix::ObjectId,
        /// The tags, outermost first.
        tags: Vec<gix::ObjectId>,
    },
    /// Something else (a tree, a blob), by its kind.
    Other(String),
}

/// Follows `id` through annotated tags to what they name.
pub(crate) fn peel_tags(repo: &gix::Repository, id: gix::ObjectId) -> Result<Peeled, Error> {
    let mut tags = Vec::new();
    let mut object = repo.find_object(id).map_err(Error::object("reading an object"))?;
    loop {
        match object.kind {
            gix::object::Kind::Commit => return Ok(Peeled::Commit { commit: object.id, tags }),
            gix::object::Kind::Tag => {
                tags.push(object.id);
                let target =
                    object.to_tag_ref_iter().target_id().map_err(Error::object("reading a tag's target"))?;
                object = repo.find_object(target).map_err(Error::object("reading the object a tag names"))?;
            }
            kind => return Ok(Peeled::Other(kind.to_string())),
        }
    }
}

/// Deadline for asking a remote which refs it has.
const LS_REMOTE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// The object ids the remote at `url` advertises (`git ls-remote`: every ref, tags peeled, asked
/// from `root` under `env` without a terminal prompt), or `None` when it cannot be asked.
pub(crate) fn advertised(
    root: &std::path::Path,
    url: &str,
    env: &crate::env::Env,
) -> Option<Vec<gix::ObjectId>> {
    use crate::process::{Cmd, Ending};
    let mut vars: Vec<(String, std::ffi::OsString)> =
        env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    vars.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
    let argv = vec!["git".to_owned(), "ls-remote".to_owned(), "--".to_owned(), url.to_owned()];
    let finished = Cmd::new(argv, root.to_path_buf(), vars, LS_REMOTE_DEADLINE).run();
    if finished.ending != Ending::Exited(0) {
        return None;
    }
    Some(
        finished
            .text()
            .lines()
            .filter_map(|line| gix::ObjectId::from_hex(line.split('\t').next()?.trim().as_bytes()).ok())
            .collect(),
    )
}
