//! Codex `apply_patch` envelopes: which files a patch adds or updates (deletions are not edits
//! to lint; a `*** Move to:` replaces the updated path with its new name). Read for the
//! `apply_patch` tool's payload and for an `apply_patch` run through the shell
//! ([`crate::bash::apply_patch_calls`]).

use std::path::PathBuf;

/// The paths a patch writes, in order, without duplicates.
pub(crate) fn written_paths(envelope: &str) -> Vec<PathBuf> {
    let mut paths: Vec<String> = Vec::new();
    for line in envelope.lines() {
        let line = line.trim_end();
        if let Some(path) =
            line.strip_prefix("*** Add File: ").or_else(|| line.strip_prefix("*** Update File: "))
        {
            paths.push(path.trim().to_owned());
        } else if let (Some(path), Some(last)) = (line.strip_prefix("*** Move to: "), paths.last_mut()) {
            path.trim().clone_into(last);
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    paths.retain(|p| !p.is_empty() && seen.insert(p.clone()));
    paths.into_iter().map(PathBuf::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_updates_and_moves_but_not_deletes() {
        let patch = "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n*** Update File: src/old.py\n*** Move to: src/renamed.py\n@@\n-a\n+b\n*** Delete File: gone.py\n*** Update File: src/new.py\n*** End Patch\n";
        assert_eq!(written_paths(patch), [PathBuf::from("src/new.py"), PathBuf::from("src/renamed.py")]);
        assert!(written_paths("not a patch").is_empty());
    }
}
