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
