//! `codeguard explain`: show what the gate predicts for a shell command, without linting.
//!
//! In: the command text and the directory it would run in. Out: one JSON object or a short
//! human explanation on stdout; exit 0, or 2 on usage errors. Runs the analysis, the repository
//! binding and the gate's own lint planning (`content::snapshot_for_linters`, `lint::prepare`:
//! the predicted content written to a private scratch directory, the project's configuration
//! read from it), so the languages and files it names are the ones the gate would lint. No
//! linter runs, nothing is written to the repository.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Value, json};

use super::UsageError;
use crate::bash;
use crate::cli::{ExplainArgs, Format};
use crate::env::Env;
use crate::exit;
use crate::intent::{self, BoundOp, Intent, RepoIntent};
use crate::output::Output;
use crate::surface;

/// Runs `explain`.
pub(super) fn run(args: &ExplainArgs, env: &Env) -> anyhow::Result<Output> {
    let cwd = start_dir(args.cwd.as_deref())?;
    let command = args.command.join(" ");
    let mut intent = intent::resolve(&bash::analyse(&command), &cwd);
    surface::judge_writes(&mut intent, &crate::install::hook_reach::doors, &|| None);
    let text = match args.format {
        Format::Json => format!("{}\n", to_json(&intent, env)),
        // `explain` parses `--format` as human or json only; SARIF never reaches here.
        Format::Human | Format::Sarif => human(&intent, &command, env),
    };
    Ok(Output::stdout(text, exit::success()))
}

/// The JSON `explain` prints for a command run in `cwd` (for the MCP server).
pub(crate) fn explain_json(command: &str, cwd: Option<&Path>, env: &Env) -> anyhow::Result<Value> {
    let cwd = start_dir(cwd)?;
    let mut intent = intent::resolve(&bash::analyse(command), &cwd);
    surface::judge_writes(&mut intent, &crate::install::hook_reach::doors, &|| None);
    Ok(to_json(&intent, env))
}

/// The canonical directory the command starts in.
fn start_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let here = crate::env::current_dir().context("reading the current directory")?;
    let Some(dir) = given else { return Ok(here) };
    let dir = here.join(dir);
    if !dir.is_dir() {
        return Err(UsageError(format!("--cwd {}: no such directory", dir.display())).into());
    }
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// The JSON document (`schema_version` 1).
pub(super) fn to_json(intent: &Intent, env: &Env) -> Value {
    json!({
        "schema_version": "1",
        "guarded": intent.guarded,
        "mode": intent.mode.map(crate::mode::Mode::as_str),
        "repos": intent.repos.iter().map(|r| repo_json(r, env)).collect::<Vec<_>>(),
        "unverified": intent.unverified,
        "block": intent.block,
    })
}

fn repo_json(r: &RepoIntent, env: &Env) -> Value {
    let content = Content::of(r, env);
    let mut unverified = r.unverified.clone();
    unverified.extend(content.unverified);
    json!({
        "root": r.root,
        "mode": r.mode.as_str(),
        "lanes": content.lanes,
        "paths": content.paths,
        "deleted": content.deleted,
        "lint": content.lint,
        "bypass": r.bypass.map(intent::BypassKind::as_str),
        "fallback": r.fallback,
        "ops": r.ops.iter().map(op_json).collect::<Vec<_>>(),
        "unverified": unverified,
        "block": r.block.clone().or(content.block),
    })
}

/// What the commit or push of one repository would carry, as far as it can be predicted.
#[derive(Default)]
struct Content {
    lanes: Vec<&'static str>,
    paths: Vec<String>,
    deleted: Vec<String>,
    unverified: Vec<String>,
    /// Why the surface stage found the content uncheckable (see `Surface::block`).
    block: Option<String>,
    /// What the gate's linters would do with it, per language.
    lint: Vec<LintLine>,
}

/// One language of the gate's lint plan for the content.
#[derive(Debug, serde::Serialize)]
struct LintLine {
    language: String,
    /// `runs`, or the status it would get without running (`SKIPPED`, `UNVERIFIED`, …).
    action: String,
    /// The tool that runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    /// The files it is handed (empty for a project-level tool).
    files: Vec<String>,
    /// Why it is skipped.
    #[serde(skip_serializing_if = "String::is_empty")]
    reason: String,
}

impl Content {
    fn of(repo: &RepoIntent, env: &Env) -> Self {
        if repo.block.is_some() {
            return Self::default();
        }
        match surface::for_repo(repo) {
            Ok(s) => {
                let mut unverified = s.unverified.clone();
                let lint = if s.block.is_some() || s.paths.is_empty() {
                    Vec::new()
                } else if let Some(b) = repo.bypass {
                    unverified.push(format!("language linters skipped by {} skipGate", b.as_str()));
                    Vec::new()
                } else {
                    lint_plan(&s, &repo.root, env).unwrap_or_else(|e| {
                        unverified.push(e);
                        Vec::new()
                    })
                };
                // The surface's paths already hold a push's changed files that land (and its
                // deleted ones that stay deleted).
                Self {
                    lanes: s.lanes.names(),
                    paths: s.paths,
                    deleted: s.deleted,
                    unverified,
                    block: s.block,
                    lint,
                }
            }
            Err(e) => {
                Self { unverified: vec![format!("cannot read the repository: {e}")], ..Self::default() }
            }
        }
    }
}

/// The gate's lint plan for the content `surface` predicts: the same snapshot and planning the
/// gate runs, without running a linter.
fn lint_plan(surface: &surface::Surface, workspace: &Path, env: &Env) -> Result<Vec<LintLine>, String> {
    let content = crate::snapshot::Content::read(surface);
    let snapshot = crate::content::snapshot_for_linters(surface, content, env)?;
    let request = crate::lint::LintRequest::snapshot(
        &snapshot,
        workspace,
        std::time::Duration::from_secs(1),
        String::new(),
    );
    let prepared =
        crate::lint::prepare(&request, env).map_err(|e| format!("linting could not start: {e}"))?;
    let root = snapshot.root().to_path_buf();
    Ok(prepared
        .plan
        .entries
        .iter()
        .map(|entry| match &entry.action {
            crate::plan::Action::Run(job) => LintLine {
                language: entry.language.clone(),
                action: "runs".to_owned(),
                tool: Some(job.program.clone()),
                files: job.files.clone(),
                reason: String::new(),
            },
            crate::plan::Action::Skip { status, reason } => LintLine {
                language: entry.language.clone(),
                action: status.as_str().to_owned(),
                tool: None,
                files: Vec::new(),
                reason: reason.replace(&format!("{}/", root.display()), ""),
            },
        })
        .collect())
}

fn op_json(o: &BoundOp) -> Value {
    json!({
        "op": o.op.kind(),
        "cwd": o.cwd,
        "guards": o.op.mode().map(crate::mode::Mode::as_str),
        "bypass": o.bypass.map(intent::BypassKind::as_str),
        "indirect": o.indirect,
        "command": o.text,
    })
}

/// A short explanation for people.
fn human(intent: &Intent, command: &str, env: &Env) -> String {
    let mut out = String::new();
    if !intent.guarded {
        out.push_str(
            "Not guarded: this command neither commits nor pushes, so it would pass straight through.\n",
        );
        return out;
    }
    let what = match intent.mode {
        Some(m) => format!("would {}", m.as_str()),
        None => "may run a git commit or push that cannot be seen".to_owned(),
    };
    let _ = writeln!(out, "Guarded: `{}` {what}.", shorten(command));
    for r in &intent.repos {
        let _ = write!(out, "\nRepository {} ({}", r.root.display(), r.mode.as_str());
        if r.fallback {
            out.push_str(", monorepo fallback");
        }
        out.push_str(")\n");
        if let Some(b) = r.bypass {
            let _ = writeln!(
                out,
                "  bypass: {} skipGate (language linters skipped; the safety scan still runs)",
                b.as_str()
            );
        }
        for o in &r.ops {
            let _ = writeln!(out, "  - git {} in {}: `{}`", o.op.kind(), o.cwd.display(), shorten(&o.text));
        }
        let content = Content::of(r, env);
        if !content.lanes.is_empty() {
            let _ = writeln!(out, "  content from: {}", content.lanes.join(", "));
        }
        if !content.paths.is_empty() {
            let _ = writeln!(
                out,
                "  files that land (scanned for secrets and paths): {}",
                content.paths.join(", ")
            );
        }
        for l in &content.lint {
            match &l.tool {
                Some(tool) if l.files.is_empty() => {
                    let _ = writeln!(out, "  lint {}: {tool} on the whole project", l.language);
                }
                Some(tool) => {
                    let _ = writeln!(out, "  lint {}: {tool} on {}", l.language, l.files.join(", "));
                }
                None => {
                    let _ = writeln!(out, "  lint {}: {} — {}", l.language, l.action, l.reason);
                }
            }
        }
        if !content.deleted.is_empty() {
            let _ = writeln!(out, "  deleted: {}", content.deleted.join(", "));
        }
        for u in &content.unverified {
            let _ = writeln!(out, "  UNVERIFIED: {u}");
        }
        for u in r.unverified.iter().filter(|u| r.block.as_ref() != Some(*u)) {
            let _ = writeln!(out, "  UNVERIFIED: {u}");
        }
        if let Some(b) = r.block.as_ref().or(content.block.as_ref()) {
            let _ = writeln!(out, "  BLOCK: {b}");
        }
    }
    if !intent.unverified.is_empty() {
        out.push('\n');
    }
    for u in intent.unverified.iter().filter(|u| intent.block.as_ref() != Some(*u)) {
        let _ = writeln!(out, "UNVERIFIED: {u}");
    }
    if let Some(b) = &intent.block {
        let _ = writeln!(out, "BLOCK: {b}");
    }
    out
}

fn shorten(s: &str) -> String {
    let one_line = s.replace('\n', " ⏎ ");
    if one_line.chars().count() <= 120 {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(119).collect();
    cut.push('…');
    cut
}
