//! Codex `apply_patch` envelopes: which files a patch adds or updates (deletions are not edits
//! to lint; a `*** Move to:` replaces the updated path with its new name). Read for the
//! `apply_patch` tool's payload and for an `apply_patch` run through the shell
//! ([`crate::bash::apply_patch_calls`]).

use std::path::PathBuf;

/// The paths a patch writes, in order, without duplicates.
pub(crate) fn written_paths(envelope: &str) -> Vec<PathBuf> {
    let mut seen = std::collections::BTreeSet::new();
    crate::bash::envelope_files(envelope)
        .into_iter()
        .filter(|(p, deleted)| !deleted && seen.insert(p.clone()))
        .map(|(p, _)| PathBuf::from(p))
        .collect()
}

/// Every path a patch names — what it adds, updates, moves to and deletes: what a pre-tool-use
/// check of codeguard's own files must see (a deletion is the surest way to switch one off).
pub(crate) fn touched_paths(envelope: &str) -> Vec<PathBuf> {
    let mut seen = std::collections::BTreeSet::new();
    crate::bash::envelope_files(envelope)
        .into_iter()
        .filter(|(p, _)| seen.insert(p.clone()))
        .map(|(p, _)| PathBuf::from(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_updates_and_moves_but_not_deletes() {
        let patch = "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n*** Update File: src/old.py\n*** Move to: src/renamed.py\n@@\n-a\n+b\n*** Delete File: gone.py\n*** Update File: src/new.py\n*** End Patch\n";
        assert_eq!(written_paths(patch), [PathBuf::from("src/new.py"), PathBuf::from("src/renamed.py")]);
        assert!(written_paths("not a patch").is_empty());
        assert!(touched_paths(patch).contains(&PathBuf::from("gone.py")));
    }
}
