//! Workspace trust: whether a repository's own commands may run.
//!
//! A `codeguard.json` can replace a language's lint, format or gate command with any argv, and
//! the file arrives with the repository — a clone the user never read could run code the moment
//! an agent commits in it. Such commands run only in a workspace the user trusted with
//! `codeguard trust [DIR]`. So do the built-in registry commands marked `runs_repo_code`, which
//! execute what the repository holds (a committed `./gradlew`, `cargo`'s build scripts, `npx`
//! resolving a committed `node_modules/.bin`); the other built-in commands never need trust.
//!
//! **In:** a directory. **Out:** decisions in `trust.json` in the state directory, keyed by the
//! canonical worktree root (the repository's worktree containing the directory, or the
//! directory itself outside a repository). **Never:** trusts by default, treats an unreadable
//! or corrupt trust file as anything but "nothing is trusted", or grants trust from a hook —
//! only the `trust` command calls [`trust`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;

/// The trust store, in the state directory.
pub const TRUST_FILE: &str = "trust.json";

/// One recorded decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Whether the workspace's own commands may run.
    pub trusted: bool,
    /// When it was decided (ms since the epoch).
    pub decided_ms: u64,
    /// Who decided: always `"user"` (the `trust`/`untrust` commands).
    pub decided_by: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Store {
    version: u32,
    workspaces: BTreeMap<PathBuf, Decision>,
}

const STORE_VERSION: u32 = 1;

/// The trust key of `dir`: the canonical root of the git worktree containing it, or the
/// canonical directory itself when it is in no repository.
pub fn workspace_root(dir: &Path) -> std::io::Result<PathBuf> {
    let dir = dir.canonicalize()?;
    let worktree = gix::discover(&dir).ok().and_then(|repo| repo.workdir().map(Path::to_path_buf));
    match worktree {
        Some(root) => root.canonicalize(),
        None => Ok(dir),
    }
}

fn path(env: &Env) -> PathBuf {
    crate::state::home(env).join(TRUST_FILE)
}

/// Reads the store; anything but a well-formed store of this version is empty (trusts nothing).
fn load(env: &Env) -> Store {
    let store: Store = crate::state::read_json(&path(env));
    if store.version == STORE_VERSION { store } else { Store::default() }
}

/// Whether the workspace containing `dir` was trusted by the user (and not revoked since).
/// Unknown workspaces, unreadable directories and corrupt trust files are untrusted.
pub fn is_trusted(env: &Env, dir: &Path) -> bool {
    let Ok(root) = workspace_root(dir) else { return false };
    load(env).workspaces.get(&root).is_some_and(|d| d.trusted)
}

/// Records the user's decision to trust the workspace containing `dir`; returns its root.
pub fn trust(env: &Env, dir: &Path) -> std::io::Result<PathBuf> {
    decide(env, dir, true)
}

/// Revokes trust in the workspace containing `dir` (the decision is kept, as untrusted);
/// returns its root.
pub fn untrust(env: &Env, dir: &Path) -> std::io::Result<PathBuf> {
    decide(env, dir, false)
}

fn decide(env: &Env, dir: &Path, trusted: bool) -> std::io::Result<PathBuf> {
    let root = workspace_root(dir)?;
    let decision = Decision { trusted, decided_ms: crate::state::now_ms(), decided_by: "user".into() };
    crate::state::update_json(&path(env), |store: &mut Store| {
        if store.version != STORE_VERSION {
            *store = Store::default();
        }
        store.version = STORE_VERSION;
        store.workspaces.insert(root.clone(), decision);
    })?;
    Ok(root)
}

/// Every recorded decision, by workspace root.
pub fn decisions(env: &Env) -> Vec<(PathBuf, Decision)> {
    load(env).workspaces.into_iter().collect()
}

/// The one-line hint shown where a repository's own command did not run.
pub fn hint(root: &Path) -> String {
    format!("run codeguard trust {} to allow this repository's own commands", shell_quote(root))
}

/// Quotes a path for a POSIX shell when it needs it.
fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ',' | ':' | '@');
    if !text.is_empty() && text.chars().all(plain) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_env as env;

    #[test]
    fn trust_is_explicit_revocable_and_keyed_by_the_canonical_root() {
        let home = tempfile::tempdir().expect("home");
        let env = env(home.path());
        let ws = tempfile::tempdir().expect("ws");
        std::fs::create_dir(ws.path().join("sub")).expect("mkdir");
        assert!(!is_trusted(&env, ws.path()), "nothing is trusted by default");
        let root = trust(&env, &ws.path().join("sub/..")).expect("trust");
        assert_eq!(root, ws.path().canonicalize().expect("canonical"));
        assert!(is_trusted(&env, ws.path()));
        assert!(!is_trusted(&env, &ws.path().join("sub")), "outside a repository the directory is the key");
        untrust(&env, ws.path()).expect("untrust");
        assert!(!is_trusted(&env, ws.path()));
        assert_eq!(decisions(&env).len(), 1, "the revocation is recorded");
    }

    #[test]
    fn a_corrupt_or_foreign_trust_file_trusts_nothing() {
        let home = tempfile::tempdir().expect("home");
        let env = env(home.path());
        let ws = tempfile::tempdir().expect("ws");
        trust(&env, ws.path()).expect("trust");
        let file = home.path().join(TRUST_FILE);
        let good = std::fs::read_to_string(&file).expect("read");
        for bad in [
            good[..good.len() / 2].to_owned(),
            good.replace("\"version\":1", "\"version\":2"),
            good.replace("\"trusted\":true", "\"trusted\":\"yes\""),
            good.replace('}', ",\"extra\":1}"),
            "[]".to_owned(),
        ] {
            std::fs::write(&file, &bad).expect("corrupt");
            assert!(!is_trusted(&env, ws.path()), "{bad}");
        }
        trust(&env, ws.path()).expect("trusting again replaces the corrupt file");
        assert!(is_trusted(&env, ws.path()));
    }

    #[test]
    fn the_hint_quotes_paths_for_the_shell() {
        assert_eq!(
            hint(Path::new("/a/b")),
            "run codeguard trust /a/b to allow this repository's own commands"
        );
        assert!(hint(Path::new("/Application Support/it's")).contains(r"'/Application Support/it'\''s'"));
    }
}
