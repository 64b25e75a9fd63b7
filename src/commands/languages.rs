//! `codeguard languages`: list the registry.

use std::fmt::Write as _;

use crate::cli::{Format, LanguagesArgs};
use crate::output::Output;
use crate::registry::Registry;

/// The registry as `languages --format json` prints it.
pub(crate) fn to_json(registry: &Registry) -> serde_json::Value {
    serde_json::json!({
        "schema_version": crate::report::SCHEMA_VERSION,
        "languages": registry.languages(),
    })
}

/// Prints the registry and returns the exit code.
pub(super) fn run(args: &LanguagesArgs) -> anyhow::Result<Output> {
    let registry = Registry::builtin()?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&to_json(&registry))? + "\n",
        // `languages` parses `--format` as human or json only; SARIF never reaches here.
        Format::Human | Format::Sarif => {
            let mut out = String::new();
            for lang in registry.languages() {
                let matches: Vec<&str> =
                    lang.extensions.iter().chain(&lang.file_names).map(String::as_str).collect();
                let lint = lang.lint.as_ref().map_or_else(|| "(no lint command)".to_owned(), |a| a.join(" "));
                let _ = writeln!(
                    out,
                    "{:<12} {:<8} {:<28} {}",
                    lang.id,
                    format!("{:?}", lang.status).to_lowercase(),
                    matches.join(" "),
                    lint
                );
            }
            out
        }
    };
    Ok(Output::stdout(text, crate::exit::success()))
}
