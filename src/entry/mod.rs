//! Entry points: turn parsed arguments (or a host payload) into a run of the pipeline and an exit
//! code. Orchestration only; every decision lives in a pipeline stage.

mod check;
mod engine;
mod explain;
mod gate;
mod hook;
mod languages;
mod replay;
mod state_cmd;
mod trust_cmd;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::env::Env;
use crate::exit::{self, EntryPoint};

/// Parses the arguments and runs the chosen entry point. Returns the process exit code.
pub fn dispatch(args: impl IntoIterator<Item = OsString>, env: &Env) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let (entry, result) = match cli.command {
        Command::Check(args) => (EntryPoint::Check, check::run(&args, env)),
        Command::Explain(args) => (EntryPoint::Explain, explain::run(&args, env)),
        Command::Languages(args) => (EntryPoint::Languages, languages::run(&args)),
        Command::Hook(args) => return hook::run(&args, env),
        Command::Trust(args) => (EntryPoint::Trust, trust_cmd::run(&args, true, env)),
        Command::Untrust(args) => (EntryPoint::Trust, trust_cmd::run(&args, false, env)),
        Command::State(args) => (EntryPoint::State, state_cmd::run(&args, env)),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            let code = code_for(&err, entry);
            if code == exit::USAGE {
                let _ = writeln!(std::io::stderr(), "codeguard: {err}");
            } else {
                let _ = writeln!(std::io::stderr(), "codeguard: error: {err:#}");
            }
            code
        }
    }
}

/// Prints a clap error as one clear line (help and version print as usual) and picks the code.
fn usage_error(err: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                exit::USAGE
            } else {
                exit::PASS
            }
        }
        _ => {
            let rendered = err.render().to_string();
            let first = rendered.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            let first = first.trim_start_matches("error: ");
            let _ = writeln!(std::io::stderr(), "codeguard: {first} (see `codeguard --help`)");
            exit::USAGE
        }
    }
}

/// Maps an orchestration error to an exit code: usage errors are 2, the rest per entry policy.
fn code_for(err: &anyhow::Error, entry: EntryPoint) -> u8 {
    if err.downcast_ref::<UsageError>().is_some() { exit::USAGE } else { entry.internal_error_code() }
}

/// Linters run at once by default: the number of cores.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

/// A usage problem found after parsing (a missing path, a bad config): one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
