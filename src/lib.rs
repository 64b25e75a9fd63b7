//! codeguard — a commit/push quality gate for AI coding agents.
//!
//! The pipeline (see `ARCHITECTURE.md` §1) flows top to bottom and never back up:
//!
//! ```text
//! host payload / CLI args
//!   → bash::analyse      (pure: does this shell command commit or push, and where?)
//!   → intent::resolve    (bind each git operation to a repository)
//!   → surface::predict   (which lanes and paths the commit/push would carry)
//!   → content::judge     (the safety scan of the surface's blobs, then the snapshot: exactly
//!                         that content from git blobs, never touching the repo)
//!   → plan::build   (which linters run on which files, and why others are skipped)
//!   → run::execute       (parallel, deadline per job, process-group kill)
//!   → verdict            (ending + output → PASS / FAIL / UNVERIFIED / SKIPPED / PLANNED)
//!   → report             (agent-facing text, capped, full logs on disk)
//!   → host encoder       (the answer as an `Output`; `output` is the only writer of stdout)
//! ```
//!
//! Every stage lives in its own module; the analysis stages are pure and I/O sits at the edges.

mod baseline;
mod bash;
mod cache;
mod cli;
mod commands;
mod config_change;
mod content;
mod env;
mod exit;
mod files;
mod findings;
mod fs;
mod git;
mod hook;
mod host;
mod hunks;
mod install;
mod intent;
mod lint;
mod mode;
mod outcome;
mod output;
mod plan;
mod process;
mod project;
mod registry;
mod report;
mod run;
mod safety;
mod secrets;
mod snapshot;
mod state;
mod static_regex;
mod surface;
mod tools;
mod trust;
mod verdict;

/// The stage API: the few stage entry points and types that benches, the `materialise`
/// example and the stage-level tests (real git repositories, no binary) drive directly. This
/// list is the whole library surface; everything else is `pub(crate)` (`unreachable_pub`).
#[doc(hidden)]
pub mod stages {
    /// The shell analyser.
    pub mod bash {
        pub use crate::bash::{Analysis, DirPart, GitOp, Severity, Step, analyse};
        pub use crate::mode::Mode;
    }
    /// Content identity.
    pub mod cache {
        /// The worktree identity.
        pub mod identity {
            pub use crate::cache::identity::{Budget, NoIdentity, Worktree, worktree};
        }
        /// Stat-based change detection.
        pub mod stat {
            pub use crate::cache::stat::SETTLE;
        }
    }
    /// The environment.
    pub mod env {
        pub use crate::env::Env;
    }
    /// Binding analysed commands to repositories.
    pub mod intent {
        pub use crate::intent::resolve;
    }
    /// Statuses.
    pub mod outcome {
        pub use crate::outcome::Status;
    }
    /// The language registry.
    pub mod registry {
        pub use crate::registry::Registry;
    }
    /// Rendering.
    pub mod report {
        pub use crate::report::{GateReport, MAX_REPORT_CHARS, render_gate};
    }
    /// Linter results.
    pub mod run {
        pub use crate::outcome::LanguageResult;
    }
    /// The safety scan's findings.
    pub mod safety {
        pub use crate::secrets::{Finding, Kind};
    }
    /// Materialising content for linters.
    pub mod snapshot {
        pub use crate::snapshot::{Snapshot, SnapshotError, SnapshotOptions};
    }
    /// Predicting what a commit or push carries.
    pub mod surface {
        pub use crate::surface::{
            Base, Lanes, Mode, Pathspecs, PushBase, StagingAction, Surface, SurfaceOptions, predict,
            staged_only, working_changes,
        };
    }
    /// The state directory's session records.
    pub mod state {
        /// Per-session statistics.
        pub mod session {
            pub use crate::state::session::{Scope, SessionStats, file, read, update};
        }
    }
}

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs codeguard with the given command-line arguments (the first one is the program name)
/// and returns the process exit code. All exit decisions are made in [`exit`].
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let env = env::Env::from_process();
    ExitCode::from(commands::dispatch(args, &env))
}
