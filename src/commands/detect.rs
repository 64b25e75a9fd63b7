//! `codeguard detect`: the languages of a project, with the evidence (root markers, file
//! extensions and counts), whether the project is integrated for each, and whether its linter
//! and formatter are ready on this machine.
//!
//! In: a project directory. Out: text or one JSON document on stdout; exit 0 (2 on usage errors).
//! Never: runs a linter or writes anything (tools are only probed for availability), or runs a
//! probe that can execute repository content (`runs_repo_code`) in an untrusted workspace.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::cli::{DetectArgs, Format};
use crate::env::Env;
use crate::output::Output;
use crate::project::Inventory;
use crate::registry::{CommandField, Language, Registry, extension_of};

/// The result of `codeguard detect`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Detection {
    /// Always `1`.
    pub schema_version: &'static str,
    /// The project root.
    pub root: PathBuf,
    /// The detected languages, in registry order.
    pub languages: Vec<DetectedReport>,
}

/// One detected language.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DetectedReport {
    /// Registry id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Marker files found at the root.
    pub markers: Vec<String>,
    /// How many of the project's files are of this language.
    pub files: usize,
    /// Files per extension (or exact file name, such as `Dockerfile`).
    pub extensions: BTreeMap<String, usize>,
    /// A few of the files, as examples.
    pub examples: Vec<String>,
    /// False when the language needs a config the project lacks (it is then skipped, never
    /// blocking); `missing_config` lists what would integrate it.
    pub integrated: bool,
    /// The config files that would integrate it (when not integrated).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_config: Vec<String>,
    /// The lint tool and whether it is ready.
    pub linter: Option<ToolState>,
    /// The formatter and whether it is ready.
    pub formatter: Option<ToolState>,
}

/// Whether a tool can run here.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ToolState {
    /// The program.
    pub program: String,
    /// codeguard's managed copy is installed, or it is on `PATH` (and its explicit probe, if any,
    /// succeeds).
    pub ready: bool,
    /// Why not, with the install hint.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// Runs `detect`.
pub(super) fn run(args: &DetectArgs, env: &Env) -> anyhow::Result<Output> {
    let detection = detect(args.path.as_deref(), env)?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&detection)? + "\n",
        Format::Human | Format::Sarif => human(&detection),
    };
    Ok(Output::stdout(text, crate::exit::success()))
}

/// Detects the languages of the project at `path` (default: the current directory).
pub(crate) fn detect(path: Option<&Path>, env: &Env) -> anyhow::Result<Detection> {
    let scan = super::inventory(path)?;
    let Inventory { root, project, detected, .. } = &scan;
    let root = root.clone();
    let trusted = crate::trust::is_trusted(env, &root, &project.config);
    let languages = detected
        .par_iter()
        .filter_map(|d| project.registry.get(&d.id).map(|lang| (lang, d)))
        .map(|(lang, d)| {
            let mut extensions = BTreeMap::new();
            for file in &d.files {
                let name = file.rsplit('/').next().unwrap_or(file);
                let key = if lang.file_names.iter().any(|n| n == name) {
                    name.to_owned()
                } else {
                    extension_of(name).unwrap_or_else(|| name.to_owned())
                };
                *extensions.entry(key).or_insert(0) += 1;
            }
            let missing_config = scan.missing_config(lang);
            DetectedReport {
                id: lang.id.clone(),
                name: lang.name.clone(),
                markers: d.markers.clone(),
                files: d.files.len(),
                extensions,
                examples: d.files.iter().take(5).cloned().collect(),
                integrated: missing_config.is_empty(),
                missing_config,
                linter: lang.lint_program().map(|p| tool_state(lang, p, true, (&root, trusted), env)),
                formatter: lang
                    .format
                    .as_ref()
                    .and_then(|f| f.first())
                    .map(|p| tool_state(lang, p, false, (&root, trusted), env)),
            }
        })
        .collect();
    Ok(Detection { schema_version: crate::report::SCHEMA_VERSION, root, languages })
}

fn tool_state(
    lang: &Language,
    program: &str,
    lint: bool,
    (root, trusted): (&Path, bool),
    env: &Env,
) -> ToolState {
    let probe = if lint
        || lang.format.as_ref().and_then(|f| f.first()) == lang.lint.as_ref().and_then(|l| l.first())
    {
        lang.probe.as_ref()
    } else {
        None
    };
    if let Some(probe) = probe.filter(|_| !trusted && lang.runs_repo_code(CommandField::Probe)) {
        let root = crate::trust::workspace_root(root).unwrap_or_else(|_| root.to_path_buf());
        let reason = format!(
            "not probed: `{}` can execute this repository's own code and the workspace is not trusted; {}",
            probe.join(" "),
            crate::trust::hint(&root)
        );
        return ToolState { program: program.to_owned(), ready: false, reason };
    }
    let advice = Registry::builtin().map(|r| lang.install_advice(&r)).unwrap_or_default();
    let missing = crate::run::missing_tool(program, probe, &advice, root, env);
    ToolState { program: program.to_owned(), ready: missing.is_none(), reason: missing.unwrap_or_default() }
}

fn human(detection: &Detection) -> String {
    let mut out = format!("codeguard detect: {}\n", detection.root.display());
    if detection.languages.is_empty() {
        out.push_str("  no known language detected\n");
    }
    for lang in &detection.languages {
        let counts: Vec<String> = lang.extensions.iter().map(|(ext, n)| format!("{ext}×{n}")).collect();
        let _ = write!(out, "  {:<12} {} file(s)", lang.id, lang.files);
        if !counts.is_empty() {
            let _ = write!(out, " ({})", counts.join(" "));
        }
        if !lang.markers.is_empty() {
            let _ = write!(out, "; markers: {}", lang.markers.join(", "));
        }
        out.push('\n');
        if !lang.integrated {
            let _ = writeln!(
                out,
                "      not integrated: add one of {} to have it checked",
                lang.missing_config.join(", ")
            );
        }
        for (role, tool) in [("linter", &lang.linter), ("formatter", &lang.formatter)] {
            match tool {
                Some(t) if t.ready => {
                    let _ = writeln!(out, "      {role} {}: ready", t.program);
                }
                Some(t) => {
                    let _ = writeln!(out, "      {role} {}: MISSING — {}", t.program, t.reason);
                }
                None => {
                    let _ = writeln!(out, "      {role}: none in the registry");
                }
            }
        }
    }
    out
}
