//! References: the upstream of the current branch.
//!
//! **In:** an opened repository. **Out:** the first upstream candidate that exists — the
//! current branch's configured tracking ref, `origin/<branch>`, `origin/HEAD` — with its commit.
//! **Never:** contacts a remote (what is known is what was fetched).

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
