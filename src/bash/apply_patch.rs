//! `apply_patch` run through the shell (Codex's model calls it as a command: `apply_patch
//! <<'EOF' … EOF`, or with the patch as its one argument, optionally after `cd DIR &&`).
//!
//! **In:** a command's text. **Out:** each top-level `apply_patch` / `applypatch` invocation with
//! its literal patch text and the literal `cd` directory before it, in order. Only what the
//! command spells out literally counts (an expanding here-doc, a variable, a sub-shell are not
//! read): a patch missed here is still checked at commit. **Never:** reads anything or parses a
//! command that does not name `apply_patch` (the pass-through stays one substring search).

use super::bounds;
use super::syntax::{Command, Script, ShellParser, Word};

/// One `apply_patch` invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatchCall {
    /// The directory the command `cd`s into first (relative to where it starts, or absolute).
    pub dir: Option<String>,
    /// The patch text (`*** Begin Patch` … `*** End Patch`).
    pub patch: String,
}

/// The files a patch envelope touches, in order: `(path, deleted)`. An added or updated file is
/// written; `*** Move to:` writes the new name and deletes the old one.
pub(crate) fn envelope_files(envelope: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for line in envelope.lines() {
        let line = line.trim_end();
        if let Some(path) =
            line.strip_prefix("*** Add File: ").or_else(|| line.strip_prefix("*** Update File: "))
        {
            out.push((path.trim().to_owned(), false));
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            out.push((path.trim().to_owned(), true));
        } else if let Some(path) = line.strip_prefix("*** Move to: ") {
            if let Some(last) = out.last_mut() {
                last.1 = true;
            }
            out.push((path.trim().to_owned(), false));
        }
    }
    out.retain(|(p, _)| !p.is_empty());
    out
}

/// The `apply_patch` invocations of `command`.
pub(crate) fn apply_patch_calls(command: &str) -> Vec<PatchCall> {
    if !command.contains("apply_patch") && !command.contains("applypatch") {
        return Vec::new();
    }
    let Ok(marks) = bounds::check(command) else { return Vec::new() };
    let parse = || super::BrushParser.parse(command).ok();
    let script =
        if bounds::fits_here(marks) { parse() } else { bounds::on_big_stack_thread(marks, parse).flatten() };
    script.map(|s| calls(&s)).unwrap_or_default()
}

fn calls(script: &Script) -> Vec<PatchCall> {
    let mut out = Vec::new();
    let mut dir: Option<String> = None;
    for item in &script.0 {
        let list = &item.list;
        for pipeline in std::iter::once(&list.first).chain(list.rest.iter().map(|(_, p)| p)) {
            let [Command::Simple(simple)] = pipeline.0.as_slice() else { continue };
            let words: Vec<Option<&str>> = simple.words.iter().map(Word::value).collect();
            match words.as_slice() {
                [Some("cd"), Some(target)] => {
                    dir = Some(match &dir {
                        Some(d) if !target.starts_with('/') => format!("{d}/{target}"),
                        _ => (*target).to_owned(),
                    });
                }
                [Some(name), rest @ ..]
                    if matches!(name.rsplit('/').next(), Some("apply_patch" | "applypatch")) =>
                {
                    let patch = match rest {
                        [Some(patch)] => Some((*patch).to_owned()),
                        [] => super::syntax::literal_stdin(&simple.redirects),
                        _ => None,
                    };
                    out.extend(patch.map(|patch| PatchCall { dir: dir.clone(), patch }));
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\n*** Add File: a.py\n+import os\n*** End Patch\n";

    #[test]
    fn heredoc_argument_and_cd_forms() {
        let heredoc = format!("apply_patch <<'EOF'\n{PATCH}EOF\n");
        assert_eq!(apply_patch_calls(&heredoc), [PatchCall { dir: None, patch: PATCH.into() }]);
        let argument = format!("applypatch '{PATCH}'");
        assert_eq!(apply_patch_calls(&argument), [PatchCall { dir: None, patch: PATCH.into() }]);
        let cd = format!("cd sub && apply_patch <<\"EOF\"\n{PATCH}EOF");
        assert_eq!(apply_patch_calls(&cd), [PatchCall { dir: Some("sub".into()), patch: PATCH.into() }]);
    }

    #[test]
    fn what_is_not_literal_or_not_apply_patch_is_not_read() {
        for command in [
            "ls -la".to_owned(),
            "echo apply_patch".to_owned(),
            "apply_patch \"$PATCH\"".to_owned(),
            format!("apply_patch <<EOF\n{PATCH}$(touch x)\nEOF"),
            format!("(apply_patch <<'EOF'\n{PATCH}EOF\n)"),
        ] {
            assert!(apply_patch_calls(&command).is_empty(), "{command}");
        }
    }
}
