//! What is judged: the git command a gate guards ([`Mode`]), the git hook it runs as
//! ([`GitHook`]) and the content `check` looks at ([`Scope`]). A leaf: every layer names these,
//! so they live below all of them.

/// What a guarded command does at worst: push wins over commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Creates a commit.
    Commit,
    /// Publishes commits.
    Push,
}

impl Mode {
    /// `"commit"` or `"push"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Commit => "commit",
            Self::Push => "push",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which content `check` (and `fix`) looks at; in JSON `all`, `changed` or `staged`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Scope {
    /// Every file of the project.
    All,
    /// Working-tree changes against HEAD (tracked changes plus untracked, not ignored files).
    Changed,
    /// Exactly the content of the index, as `git commit` would record it.
    Staged,
}

impl Scope {
    /// `all`, `changed` or `staged`, as in JSON and SARIF.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Changed => "changed",
            Self::Staged => "staged",
        }
    }

    /// The `check` flag that selects it.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Self::All => "--all",
            Self::Changed => "--changed",
            Self::Staged => "--staged",
        }
    }
}

/// The git hooks codeguard serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GitHook {
    /// Before git records a commit: checks the index git is about to commit.
    PreCommit,
    /// Before git sends refs: checks the commits of every pushed ref (ref lines on stdin).
    PrePush,
    /// Before any branch or tag moves, whatever moved it (`commit --no-verify`, `update-ref`,
    /// `fast-import`, `merge`, `am`, a release tool): checks the commits and tags that land
    /// (state `prepared`; ref lines on stdin). The backstop behind the agent gate.
    ReferenceTransaction,
}

impl GitHook {
    /// Every hook, in installation order.
    pub(crate) const ALL: [GitHook; 3] =
        [GitHook::PreCommit, GitHook::PrePush, GitHook::ReferenceTransaction];

    /// Whether hook managers (pre-commit, prek, husky, lefthook) carry this hook, so codeguard
    /// joins them; reference-transaction is always codeguard's own script in git's hooks
    /// directory (the managers install no such hook).
    pub(crate) fn managed(self) -> bool {
        matches!(self, GitHook::PreCommit | GitHook::PrePush)
    }

    /// The hook's file name in git's hooks directory.
    pub(crate) fn file_name(self) -> &'static str {
        match self {
            GitHook::PreCommit => "pre-commit",
            GitHook::PrePush => "pre-push",
            GitHook::ReferenceTransaction => "reference-transaction",
        }
    }

    /// The git command the hook guards.
    pub(crate) fn command(self) -> Mode {
        match self {
            GitHook::PreCommit | GitHook::ReferenceTransaction => Mode::Commit,
            GitHook::PrePush => Mode::Push,
        }
    }
}
