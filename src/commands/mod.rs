//! Entry points: turn parsed arguments (or a host payload) into a run of the pipeline and an exit
//! code. Orchestration only; every decision lives in a pipeline stage.

mod check;
mod detect;
mod doctor;
mod explain;
mod fix;
mod git_hook;
mod init;
mod install;
mod languages;
mod mcp;
mod state;
mod tools;
mod trust;

use std::ffi::OsString;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::env::Env;
use crate::exit::{self, EntryPoint};
use crate::output::{Output, Partial};

/// Parses the arguments, runs the chosen entry point and delivers its output — the only place
/// a command's output is written (`crate::output::deliver`). Returns the process exit code.
pub(crate) fn dispatch(args: impl IntoIterator<Item = OsString>, env: &Env) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    if let [_, command, marker] = args.as_slice()
        && command == crate::process::WATCHDOG_COMMAND
    {
        return crate::process::watchdog(&marker.to_string_lossy());
    }
    if let Some(hook_args) = hook_fast_path(&args) {
        return run_hook(&hook_args, env);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    arm_supervision(&cli.command);
    let (entry, result) = match cli.command {
        Command::Check(args) => (EntryPoint::Check, check::run(&args, env)),
        Command::Explain(args) => (EntryPoint::Explain, explain::run(&args, env)),
        Command::Languages(args) => (EntryPoint::Languages, languages::run(&args)),
        Command::Hook(args) => return run_hook(&args, env),
        Command::GitHook(args) => (EntryPoint::GitHook, git_hook::run(&args, env)),
        Command::Install(args) => (EntryPoint::Install, install::install(&args, env)),
        Command::Uninstall(args) => (EntryPoint::Install, install::uninstall(&args, env)),
        Command::Doctor(args) => (EntryPoint::Doctor, doctor::run(&args, env)),
        Command::Fix(args) => (EntryPoint::Fix, fix::run(&args, env)),
        Command::Init(args) => (EntryPoint::Init, init::run(&args)),
        Command::Detect(args) => (EntryPoint::Detect, detect::run(&args, env)),
        Command::Mcp => (EntryPoint::Mcp, mcp::run(env)),
        Command::Trust(args) => (EntryPoint::Trust, trust::run(&args, true, env)),
        Command::Untrust(args) => (EntryPoint::Trust, trust::run(&args, false, env)),
        Command::State(args) => (EntryPoint::State, state::run(&args, env)),
        Command::Tools(args) => (EntryPoint::Tools, tools::run(&args, env)),
    };
    let output = result.unwrap_or_else(|err| error_output(&err, entry));
    finish(&output, entry)
}

/// Delivers a command's output and returns its exit code — or, when the output could not be
/// written (a closed pipe, a full disk), says so and returns the entry point's internal-error
/// code: a report nobody received is never a pass.
fn finish(output: &Output, entry: EntryPoint) -> u8 {
    if crate::output::deliver(output) {
        return output.code;
    }
    crate::output::write_both("", "codeguard: error: writing the output failed\n");
    entry.internal_error_code()
}

/// Runs a hook and delivers its answer: 0 (fail-open) when the answer could not be written,
/// rather than block without a reason; a delivered fresh answer is recorded for replay.
fn run_hook(args: &crate::cli::HookArgs, env: &Env) -> u8 {
    let outcome = crate::hook::run(args, env);
    if !crate::output::deliver(&outcome.output) {
        return EntryPoint::Hook.internal_error_code();
    }
    let code = outcome.output.code;
    outcome.delivered(env);
    code
}

/// An orchestration error as one or two lines on stderr, with the entry point's code, after
/// whatever the command had already produced (the changes it made before failing).
fn error_output(err: &anyhow::Error, entry: EntryPoint) -> Output {
    let done = err.downcast_ref::<Partial>();
    let mut output = done.map(|p| p.0.clone()).unwrap_or_default();
    let messages: Vec<String> =
        err.chain().skip(usize::from(done.is_some())).map(ToString::to_string).collect();
    let usage = err.downcast_ref::<UsageError>().is_some();
    output.code = if usage { exit::usage() } else { entry.internal_error_code() };
    if usage {
        output.note(&format!("codeguard: {}", messages.first().map_or("", String::as_str)));
    } else {
        output.note(&format!("codeguard: error: {}", messages.join(": ")));
        if let Some(hint) = entry.bypass_hint() {
            output.note(&format!("codeguard: {hint}"));
        }
    }
    output
}

/// What a signal means for each entry point while its children run: the entry point's internal-
/// error code (see [`exit`]), with the fail-closed gate's bypass hint. The hook arms itself.
fn arm_supervision(command: &Command) {
    let entry = match command {
        Command::Hook(_) => return,
        Command::Check(_) => EntryPoint::Check,
        Command::Explain(_) => EntryPoint::Explain,
        Command::Languages(_) => EntryPoint::Languages,
        Command::GitHook(_) => EntryPoint::GitHook,
        Command::Install(_) | Command::Uninstall(_) => EntryPoint::Install,
        Command::Doctor(_) => EntryPoint::Doctor,
        Command::Fix(_) => EntryPoint::Fix,
        Command::Init(_) => EntryPoint::Init,
        Command::Detect(_) => EntryPoint::Detect,
        Command::Mcp => EntryPoint::Mcp,
        Command::Trust(_) | Command::Untrust(_) => EntryPoint::Trust,
        Command::State(_) => EntryPoint::State,
        Command::Tools(_) => EntryPoint::Tools,
    };
    crate::process::arm(entry.internal_error_code(), move || {
        let hint = entry.bypass_hint().map(|h| format!("codeguard: {h}\n")).unwrap_or_default();
        (String::new(), hint)
    });
}

/// `hook <event> [--host H]` parsed without building the whole command-line model: the hook runs
/// on every shell command an agent types, so its start-up is kept to the bare minimum. Anything
/// else (help, unusual spellings) goes through clap.
fn hook_fast_path(args: &[OsString]) -> Option<crate::cli::HookArgs> {
    let words: Vec<&str> = args.iter().skip(1).map(|a| a.to_str()).collect::<Option<_>>()?;
    let host = match words.as_slice() {
        ["hook", event] if !event.starts_with('-') => "claude",
        ["hook", event, "--host", host] if !event.starts_with('-') => host,
        ["hook", event, flag] if !event.starts_with('-') => flag.strip_prefix("--host=")?,
        _ => return None,
    };
    Some(crate::cli::HookArgs { event: words[1].to_owned(), host: host.to_owned() })
}

/// Prints a clap error as one clear line (help and version print as clap prints them, styled on
/// a terminal) and returns the code.
fn usage_error(err: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let code = if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                exit::usage()
            } else {
                exit::success()
            };
            if crate::output::clap_message(err) {
                return code;
            }
            crate::output::write_both("", "codeguard: error: writing the output failed\n");
            exit::usage()
        }
        _ => {
            let rendered = err.render().to_string();
            let first = rendered.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            let first = first.trim_start_matches("error: ");
            let line = format!("codeguard: {first} (see `codeguard --help`)\n");
            crate::output::write_both("", &line);
            exit::usage()
        }
    }
}

/// `GIT_INDEX_FILE` (git points its pre-commit hook at the index it is about to commit), made
/// absolute against the current directory, as git resolves it; `None` when unset.
pub(crate) fn index_file(env: &Env) -> anyhow::Result<Option<std::path::PathBuf>> {
    use anyhow::Context as _;
    let Some(value) = env.get("GIT_INDEX_FILE").filter(|v| !v.is_empty()) else { return Ok(None) };
    let path = std::path::absolute(std::path::PathBuf::from(value)).context("resolving GIT_INDEX_FILE")?;
    Ok(Some(path))
}

/// A usage problem found after parsing (a missing path, a bad config): one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// The project at `path` (default: the current directory), read once.
pub(super) fn inventory(path: Option<&std::path::Path>) -> anyhow::Result<crate::project::Inventory> {
    let root = project_root(path)?;
    let listing = anyhow::Context::with_context(crate::surface::listing(&root), || {
        format!("listing files under {}", root.display())
    })?;
    Ok(crate::project::Inventory::of(&root, &listing).map_err(|e| UsageError(e.to_string()))?)
}

/// The project directory: the given path (or the current directory), which must exist.
pub(super) fn project_root(path: Option<&std::path::Path>) -> anyhow::Result<std::path::PathBuf> {
    let path = path.map_or_else(|| std::path::PathBuf::from("."), std::path::Path::to_path_buf);
    let meta =
        std::fs::metadata(&path).map_err(|e| UsageError(format!("cannot use {}: {e}", path.display())))?;
    if !meta.is_dir() {
        return Err(UsageError(format!("{} is not a directory", path.display())).into());
    }
    anyhow::Context::with_context(path.canonicalize(), || format!("resolving {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_after_changes_keeps_what_was_done_and_its_code() {
        let mut done = Output::default();
        done.stdout.push_str("codeguard: claude settings /x: updated\n");
        let failed = done.finish(Err(anyhow::anyhow!("disk full").context("writing /y")));
        let out = error_output(&failed.expect_err("an error"), EntryPoint::Install);
        assert_eq!(out.stdout, "codeguard: claude settings /x: updated\n");
        assert_eq!(out.stderr, "codeguard: error: writing /y: disk full\n");
        assert_eq!(out.code, EntryPoint::Install.internal_error_code());
    }

    #[test]
    fn a_usage_error_is_one_line_with_code_2_even_after_output() {
        let done = Output::stdout("partial\n", 0);
        let failed = done.finish(Err(UsageError("unknown host `x`".into()).into()));
        let out = error_output(&failed.expect_err("an error"), EntryPoint::Install);
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str(), out.code),
            ("partial\n", "codeguard: unknown host `x`\n", exit::usage())
        );
    }

    #[test]
    fn nothing_done_is_the_plain_error() {
        let failed = Output::default().finish(Err(anyhow::anyhow!("no repository")));
        let out = error_output(&failed.expect_err("an error"), EntryPoint::Check);
        assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("", "codeguard: error: no repository\n"));
    }
}
