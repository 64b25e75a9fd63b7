//! `codeguard init`: propose the default linter configurations a project lacks and codeguard's
//! block in `AGENTS.md`; with `--apply`, write them.
//!
//! In: a project directory and `--apply`. Out: the proposals on stdout; exit 0 (1 when a write
//! failed, 2 on usage errors).
//! Never: overwrites a file (new files are created exclusively, so a file that appeared meanwhile
//! is left alone), changes `AGENTS.md` outside our marked block, or writes through a symlink.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;

use super::UsageError;
use crate::cli::InitArgs;
use crate::outcome::Status;
use crate::output::Output;
use crate::plan::setup::{AGENTS_FILE, Change, Proposal};
use crate::project::Inventory;

/// Runs `init`.
pub(super) fn run(args: &InitArgs) -> anyhow::Result<Output> {
    let root = super::project_root(args.path.as_deref())?;
    let listing = crate::surface::listing(&root).with_context(|| format!("listing {}", root.display()))?;
    let inventory = Inventory::of(&root, &listing).map_err(|e| UsageError(e.to_string()))?;
    let (detected, facts) = (&inventory.detected, &inventory.facts);
    let agents_path = root.join(AGENTS_FILE);
    if agents_path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Err(UsageError(format!(
            "{} is not a regular file; init leaves it alone",
            agents_path.display()
        ))
        .into());
    }
    let agents = match std::fs::read_to_string(&agents_path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", agents_path.display())),
    };
    let proposals = crate::plan::setup::propose(detected, facts, agents.as_deref());
    let mut out = String::new();
    let mode = if args.apply { "applying" } else { "dry run: nothing is written; run with --apply to write" };
    let _ = writeln!(out, "codeguard init: {} ({mode})", root.display());
    let ids: Vec<&str> = detected.iter().map(|d| d.id.as_str()).collect();
    let integrated: Vec<&str> = inventory.integrated().map(|l| l.id.as_str()).collect();
    let _ = writeln!(
        out,
        "  languages: {} (integrated: {})",
        if ids.is_empty() { "none".to_owned() } else { ids.join(", ") },
        if integrated.is_empty() { "none".to_owned() } else { integrated.join(", ") }
    );
    let mut failed = false;
    for proposal in &proposals {
        let outcome = if args.apply { apply(&root, proposal) } else { Ok(describe(proposal)) };
        match outcome {
            Ok(line) => {
                let _ = writeln!(out, "  {line}");
            }
            Err(e) => {
                failed = true;
                let _ = writeln!(out, "  FAILED {}: {e:#}", proposal.path);
            }
        }
        if let (false, Change::Create(text)) = (args.apply, &proposal.change) {
            for line in text.lines() {
                let _ = writeln!(out, "      | {line}");
            }
        }
    }
    Ok(Output::stdout(
        out,
        crate::exit::EntryPoint::Init.status_code(if failed { Status::Fail } else { Status::Pass }),
    ))
}

fn describe(p: &Proposal) -> String {
    let verb = match p.change {
        Change::Create(_) => "would create",
        Change::Update(_) => "would update",
        Change::Keep => "keep",
    };
    format!("{verb:<12} {:<16} {}", p.path, p.why)
}

/// Writes one proposal; returns the line to show.
fn apply(root: &Path, p: &Proposal) -> anyhow::Result<String> {
    let path = root.join(&p.path);
    let verb = match &p.change {
        Change::Keep => "kept",
        Change::Create(text) => {
            let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
            match created {
                Ok(mut file) => {
                    file.write_all(text.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
                    "created"
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => "kept (it appeared meanwhile)",
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
        Change::Update(text) => {
            crate::install::settings::write_atomic(&path, text.as_bytes(), &path)?;
            "updated"
        }
    };
    Ok(format!("{verb:<12} {:<16} {}", p.path, p.why))
}
