//! An agent's change to the rule configuration (`crate::registry::rule_config`) is named, and a
//! commit that changes it together with other files is linted with the base commit's rules.
//!
//! **In:** the [`Surface`] an agent's commit or push would land, the content read for it, and the
//! registry's support files. **Out:** every rule file whose rules change, with the changed rule
//! lines (what a person must see: "this commit turns off …"), and — when other files change too
//! and there is a base commit — the surface to lint: the same content with each such file's rules
//! taken from the base (the whole file for a rule file, its linters' tables for `pyproject.toml`,
//! `setup.cfg`, `tox.ini`, `Cargo.toml`). The safety scan and the change's identity keep the real
//! surface. A commit of configuration alone is linted as it is (there is nothing else to lint
//! with it), and named all the same.
//! **Never:** writes to the repository (the substituted bytes are an overlay of the snapshot).

use std::borrow::Cow;

use crate::registry::SupportFiles;
use crate::registry::rule_config::{self, Scope};
use crate::snapshot::Content;
use crate::surface::{GrowsFrom, Overlay, OverlaySource, Surface};

/// One rule file the change touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleChange {
    /// Repo-relative path.
    pub path: String,
    /// The rule lines it adds (`+ …`) and removes (`- …`).
    pub lines: Vec<String>,
    /// The linters ran with the base commit's rules instead of these.
    pub judged_with_base: bool,
}

impl RuleChange {
    /// One line for people: `ruff.toml: + ignore = ["F401"]; - select = ["E"]` (at most
    /// `max` rule lines, then how many more).
    pub(crate) fn describe(&self, max: usize) -> String {
        let shown: Vec<&str> = self.lines.iter().take(max).map(String::as_str).collect();
        let more = self.lines.len().saturating_sub(max);
        let tail = if more > 0 { format!("; … {more} more") } else { String::new() };
        format!("{}: {}{tail}", self.path, shown.join("; "))
    }
}

/// The commit whose rules count: the push's base, or the commit the new one grows from.
fn base_commit(surface: &Surface) -> Option<gix::ObjectId> {
    match &surface.push {
        Some(range) => range.baseline,
        None => match surface.grows_from {
            GrowsFrom::Head => surface.observed.head,
            GrowsFrom::Commit(id) => Some(id),
            GrowsFrom::Nothing => None,
        },
    }
}

/// The rule changes of `surface`, and the surface its linters run on (see the module docs).
pub(crate) fn plan<'s>(
    surface: &'s Surface,
    content: &Content,
    support: &SupportFiles,
) -> (Cow<'s, Surface>, Vec<RuleChange>) {
    let touched: Vec<(&String, Scope)> = surface
        .paths
        .iter()
        .chain(&surface.deleted)
        .filter_map(|p| rule_config::scope(p, support).map(|scope| (p, scope)))
        .collect();
    if touched.is_empty() {
        return (Cow::Borrowed(surface), Vec::new());
    }
    let base = base_commit(surface);
    let text = |bytes: Option<Vec<u8>>| bytes.and_then(|b| String::from_utf8(b).ok());
    let mut changes = Vec::new();
    let mut substitutes: Vec<(String, Option<String>)> = Vec::new();
    for (path, scope) in touched {
        let old = text(base.and_then(|b| content.file_at(b, path)));
        let new = text(content.file(surface, path));
        let lines = rule_config::rule_changes(old.as_deref(), new.as_deref(), scope);
        if lines.is_empty() {
            continue; // no rule changed (a version bump in `pyproject.toml`, say)
        }
        let judged = match &new {
            Some(new) => rule_config::with_base_rules(old.as_deref(), new, scope),
            None => old.clone(), // deleted: judge with the file it had
        };
        substitutes.push((path.clone(), judged));
        changes.push(RuleChange { path: path.clone(), lines, judged_with_base: false });
    }
    let others =
        surface.paths.iter().chain(&surface.deleted).any(|p| !substitutes.iter().any(|(s, _)| s == p));
    if substitutes.is_empty() || !others || base.is_none() {
        return (Cow::Borrowed(surface), changes);
    }
    let mut lint = surface.clone();
    for (path, judged) in substitutes {
        lint.paths.retain(|p| *p != path);
        lint.deleted.retain(|p| *p != path);
        let source = judged.map_or(OverlaySource::Absent, |t| OverlaySource::Bytes(t.into_bytes()));
        match lint.overlays.binary_search_by(|o| o.path.as_str().cmp(path.as_str())) {
            Ok(i) => lint.overlays[i].source = source,
            Err(i) => lint.overlays.insert(i, Overlay { path, source }),
        }
    }
    for change in &mut changes {
        change.judged_with_base = true;
    }
    (Cow::Owned(lint), changes)
}
