//! Workspace trust: whether a repository's own commands may run.
//!
//! A `codeguard.json` can replace a language's lint, format or gate command with any argv, and
//! the file arrives with the repository — a clone the user never read could run code the moment
//! an agent commits in it. Such commands run only in a workspace the user trusted with
//! `codeguard trust [DIR]`. So do the built-in registry commands marked `runs_repo_code`, which
//! execute what the repository holds (a committed `./gradlew`, `cargo`'s build scripts, `npx`
//! resolving a committed `node_modules/.bin`); the other built-in commands never need trust.
//!
//! **In:** a directory and the project configuration whose commands would run. **Out:**
//! decisions in `trust.json` in the state directory, keyed by the canonical worktree root (the
//! repository's worktree containing the directory, or the directory itself outside a
//! repository) and bound to two things besides the path: the [`Identity`] of the repository's
//! git directory (device, inode and, where the file system records it, birth time — so a
//! repository deleted and replaced by another at the same path is not trusted) and a blake3
//! digest of the commands `codeguard.json` defines (so editing them needs a new trust). A
//! record without both (written by an older codeguard) trusts nothing. **Never:** trusts by
//! default, treats an unreadable or corrupt trust file as anything but "nothing is trusted",
//! or grants trust from a hook — only the `trust` command calls [`trust`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::registry::{ConfigError, ProjectConfig};

/// The trust store, in the state directory.
pub(crate) const TRUST_FILE: &str = "trust.json";

/// Which repository a decision was made about, beyond its path: the git directory's (the
/// directory's, outside a repository) device, inode and birth time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Identity {
    /// The device.
    pub dev: u64,
    /// The inode.
    pub ino: u64,
    /// The birth time (ns since the epoch), where the file system records one; it tells a
    /// re-created repository apart even when its inode number was reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub born_ns: Option<u64>,
}

impl Identity {
    /// The same directory: device and inode equal, and the birth times equal where both sides
    /// have one (a system that cannot report it this time is no proof of a replacement).
    fn same_as(&self, other: &Self) -> bool {
        self.dev == other.dev
            && self.ino == other.ino
            && self.born_ns.zip(other.born_ns).is_none_or(|(a, b)| a == b)
    }
}

/// One recorded decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Decision {
    /// Whether the workspace's own commands may run.
    pub trusted: bool,
    /// When it was decided (ms since the epoch).
    pub decided_ms: u64,
    /// Who decided: always `"user"` (the `trust`/`untrust` commands).
    pub decided_by: String,
    /// The repository trusted (absent in records of store version 1, which trust nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// blake3 (hex) of the commands `codeguard.json` defined when trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<String>,
}

/// Where a workspace stands, for the gate (only [`Standing::Trusted`] runs its commands) and
/// for `doctor` (which names every other state of a trusted record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Trusted, and both the repository and its commands are the ones trusted.
    Trusted,
    /// Never trusted, or trust was revoked.
    Untrusted,
    /// Trusted by an older codeguard that recorded no identity: nothing is trusted.
    Outdated,
    /// The repository at the path is not the one trusted (deleted and re-created or replaced).
    Replaced,
    /// `codeguard.json`'s commands changed since the trust was recorded.
    CommandsChanged,
}

impl Standing {
    /// Why a trusted record no longer trusts, ending in what to do (`None` when trusted or
    /// never trusted).
    pub(crate) fn problem(self, root: &Path) -> Option<String> {
        let again = format!("codeguard trust {} again", shell_quote(root));
        match self {
            Self::Trusted | Self::Untrusted => None,
            Self::Outdated => Some(format!(
                "recorded by an older codeguard without the repository's identity, so nothing is trusted; run {again}"
            )),
            Self::Replaced => Some(format!(
                "the repository there is not the one that was trusted (it was deleted or replaced); its own commands do not run until you run {again}"
            )),
            Self::CommandsChanged => Some(format!(
                "codeguard.json's commands changed since it was trusted; they do not run until you run {again}"
            )),
        }
    }
}

/// Trust could not be recorded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TrustError {
    /// The directory, its repository or the trust store could not be read or written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The workspace's `codeguard.json` is unusable, so there are no commands to trust.
    #[error("{0}")]
    Config(#[from] ConfigError),
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Store {
    version: u32,
    workspaces: BTreeMap<PathBuf, Decision>,
}

/// The store version written; version 1 (no identities) is still read, and trusts nothing.
const STORE_VERSION: u32 = 2;
const OLD_STORE_VERSION: u32 = 1;

/// The trust key of `dir`: the canonical root of the git worktree containing it, or the
/// canonical directory itself when it is in no repository.
pub(crate) fn workspace_root(dir: &Path) -> std::io::Result<PathBuf> {
    locate(dir).map(|(root, _)| root)
}

/// The workspace root of `dir` and the directory its identity is taken from (the repository's
/// git directory, or the root itself outside a repository).
fn locate(dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    let dir = dir.canonicalize()?;
    let repo = crate::git::discover(&dir).ok();
    match repo.as_ref().and_then(|r| r.workdir().map(|w| (w.to_path_buf(), r.git_dir().to_path_buf()))) {
        Some((root, git_dir)) => Ok((root.canonicalize()?, git_dir)),
        None => Ok((dir.clone(), dir)),
    }
}

/// The identity of the directory at `anchor`.
fn identity_of(anchor: &Path) -> std::io::Result<Identity> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(anchor)?;
    let born_ns = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| u64::try_from(d.as_nanos()).ok());
    Ok(Identity { dev: meta.dev(), ino: meta.ino(), born_ns })
}

/// blake3 (hex) over the normalised commands `config` defines.
fn commands_digest(config: &ProjectConfig) -> String {
    let own = config.own_commands();
    let bytes = serde_json::to_vec(&own).unwrap_or_default();
    blake3::hash(&bytes).to_hex().to_string()
}

fn path(env: &Env) -> PathBuf {
    crate::state::home(env).join(TRUST_FILE)
}

/// Reads the store; anything but a well-formed store of a known version is empty (trusts
/// nothing).
fn load(env: &Env) -> Store {
    let store: Store = crate::state::read_json(&path(env));
    if matches!(store.version, STORE_VERSION | OLD_STORE_VERSION) { store } else { Store::default() }
}

/// Where the workspace containing `dir` stands when `config`'s commands would run.
/// Unknown workspaces, unreadable directories and corrupt trust files are untrusted.
pub(crate) fn standing(env: &Env, dir: &Path, config: &ProjectConfig) -> Standing {
    let Ok((root, anchor)) = locate(dir) else { return Standing::Untrusted };
    let store = load(env);
    let Some(decision) = store.workspaces.get(&root).filter(|d| d.trusted) else {
        return Standing::Untrusted;
    };
    let (Some(identity), Some(commands)) = (decision.identity, decision.commands.as_deref()) else {
        return Standing::Outdated;
    };
    if !identity_of(&anchor).is_ok_and(|now| now.same_as(&identity)) {
        Standing::Replaced
    } else if commands_digest(config) != commands {
        Standing::CommandsChanged
    } else {
        Standing::Trusted
    }
}

/// Whether the user trusted the workspace containing `dir` — this repository, not merely its
/// path — with exactly the commands `config` defines (and did not revoke it since).
pub(crate) fn is_trusted(env: &Env, dir: &Path, config: &ProjectConfig) -> bool {
    standing(env, dir, config) == Standing::Trusted
}

/// Records the user's decision to trust the workspace containing `dir` with the commands its
/// `codeguard.json` defines now; returns its root.
pub(crate) fn trust(env: &Env, dir: &Path) -> Result<PathBuf, TrustError> {
    let (root, anchor) = locate(dir)?;
    let config = ProjectConfig::load(&root)?;
    let identity = identity_of(&anchor)?;
    record(
        env,
        root,
        Decision {
            trusted: true,
            decided_ms: crate::state::now_ms(),
            decided_by: "user".into(),
            identity: Some(identity),
            commands: Some(commands_digest(&config)),
        },
    )
}

/// Revokes trust in the workspace containing `dir` (the decision is kept, as untrusted);
/// returns its root.
pub(crate) fn untrust(env: &Env, dir: &Path) -> Result<PathBuf, TrustError> {
    let (root, _) = locate(dir)?;
    record(
        env,
        root,
        Decision {
            trusted: false,
            decided_ms: crate::state::now_ms(),
            decided_by: "user".into(),
            identity: None,
            commands: None,
        },
    )
}

fn record(env: &Env, root: PathBuf, decision: Decision) -> Result<PathBuf, TrustError> {
    crate::state::update_json(&path(env), |store: &mut Store| {
        if !matches!(store.version, STORE_VERSION | OLD_STORE_VERSION) {
            *store = Store::default();
        }
        store.version = STORE_VERSION;
        store.workspaces.insert(root.clone(), decision);
    })?;
    Ok(root)
}

/// Every recorded decision, by workspace root.
pub(crate) fn decisions(env: &Env) -> Vec<(PathBuf, Decision)> {
    load(env).workspaces.into_iter().collect()
}

/// The one-line hint shown where a repository's own command did not run.
pub(crate) fn hint(root: &Path) -> String {
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

    fn none() -> ProjectConfig {
        ProjectConfig::default()
    }

    #[test]
    fn a_missing_birth_time_on_one_side_is_no_replacement() {
        let with = Identity { dev: 1, ino: 2, born_ns: Some(3) };
        assert!(with.same_as(&Identity { born_ns: None, ..with }));
        assert!(!with.same_as(&Identity { born_ns: Some(4), ..with }));
        assert!(!with.same_as(&Identity { ino: 5, ..with }));
    }

    #[test]
    fn trust_is_explicit_revocable_and_keyed_by_the_canonical_root() {
        let home = tempfile::tempdir().expect("home");
        let env = env(home.path());
        let ws = tempfile::tempdir().expect("ws");
        std::fs::create_dir(ws.path().join("sub")).expect("mkdir");
        assert!(!is_trusted(&env, ws.path(), &none()), "nothing is trusted by default");
        let root = trust(&env, &ws.path().join("sub/..")).expect("trust");
        assert_eq!(root, ws.path().canonicalize().expect("canonical"));
        assert!(is_trusted(&env, ws.path(), &none()));
        assert!(
            !is_trusted(&env, &ws.path().join("sub"), &none()),
            "outside a repository the directory is the key"
        );
        untrust(&env, ws.path()).expect("untrust");
        assert!(!is_trusted(&env, ws.path(), &none()));
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
            good.replace("\"version\":2", "\"version\":3"),
            good.replace("\"trusted\":true", "\"trusted\":\"yes\""),
            good.replace('}', ",\"extra\":1}"),
            "[]".to_owned(),
        ] {
            std::fs::write(&file, &bad).expect("corrupt");
            assert!(!is_trusted(&env, ws.path(), &none()), "{bad}");
        }
        trust(&env, ws.path()).expect("trusting again replaces the corrupt file");
        assert!(is_trusted(&env, ws.path(), &none()));
    }

    #[test]
    fn trust_binds_to_the_directory_identity_and_the_commands() {
        let home = tempfile::tempdir().expect("home");
        let env = env(home.path());
        let ws = tempfile::tempdir().expect("ws");
        let dir = ws.path().join("w");
        std::fs::create_dir(&dir).expect("mkdir");
        let lint = |argv: &str| {
            let text = format!(r#"{{"languages": {{"python": {{"lint": {argv}}}}}}}"#);
            ProjectConfig::parse(&text, PathBuf::from("codeguard.json")).expect("config")
        };
        std::fs::write(dir.join("codeguard.json"), r#"{"languages": {"python": {"lint": ["a"]}}}"#)
            .expect("write");
        trust(&env, &dir).expect("trust");
        assert_eq!(standing(&env, &dir, &lint(r#"["a"]"#)), Standing::Trusted);
        assert_eq!(standing(&env, &dir, &lint(r#"["a", "b"]"#)), Standing::CommandsChanged);
        assert_eq!(standing(&env, &dir, &none()), Standing::CommandsChanged, "removing commands counts too");
        std::fs::remove_dir_all(&dir).expect("delete");
        std::fs::create_dir(&dir).expect("re-create");
        assert_eq!(standing(&env, &dir, &lint(r#"["a"]"#)), Standing::Replaced);
        let root = dir.canonicalize().expect("canonical");
        assert!(Standing::Replaced.problem(&root).is_some_and(|p| p.contains("trust")));
        assert_eq!(Standing::Trusted.problem(&root), None);
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
