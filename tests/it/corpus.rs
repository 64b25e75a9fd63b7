//! The table-driven corpus (`tests/corpus/bash.txt`): every entry's expectation is checked
//! against the pure analyser; the file format is documented at its top.

use codeguard::stages::bash::{self, Analysis, DirPart, GitOp, Severity, Step};

#[path = "../corpus/format.rs"]
mod format;
pub(crate) use format::{Case, cases};

fn dir_text(parts: &[DirPart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            DirPart::Path(s) => s.clone(),
            DirPart::Toplevel => "^".into(),
            DirPart::Unknown(_) | DirPart::Home(_) => "?".into(),
        })
        .collect::<Vec<_>>()
        .join("/")
        .replace("//", "/")
}

fn is_dynamic(op: &GitOp) -> Option<bool> {
    match op {
        GitOp::Add { dynamic, .. } | GitOp::Commit { dynamic, .. } | GitOp::Rm { dynamic, .. } => {
            Some(*dynamic)
        }
        GitOp::Writer(w) => Some(w.dynamic),
        GitOp::Push { .. }
        | GitOp::Mv { .. }
        | GitOp::Stash { .. }
        | GitOp::SetSkipGate { .. }
        | GitOp::ConfigWrite => None,
    }
}

fn no_verify(op: &GitOp) -> bool {
    match op {
        GitOp::Commit { no_verify, .. } | GitOp::Push { no_verify, .. } => *no_verify,
        GitOp::Add { .. }
        | GitOp::Rm { .. }
        | GitOp::Mv { .. }
        | GitOp::Stash { .. }
        | GitOp::Writer(_)
        | GitOp::SetSkipGate { .. }
        | GitOp::ConfigWrite => false,
    }
}

/// Checks one case; returns a description of every mismatch.
pub(crate) fn check(case: &Case, a: &Analysis) -> Vec<String> {
    let mut errors = Vec::new();
    let mut fail = |what: String| errors.push(what);
    let guarded = a.mode().is_some() || !a.opaque.is_empty();
    let unverified =
        !a.opaque.is_empty() || a.parse_error.is_some() || a.git_calls().any(|c| !c.notes.is_empty());
    let calls: Vec<_> = a.git_calls().collect();
    let guarding = calls.iter().rev().find(|c| c.op.mode().is_some());
    let mut saw_u = false;
    for token in &case.expect {
        match token.as_str() {
            "push" | "commit" => {
                if a.mode().map(bash::Mode::as_str) != Some(token.as_str()) {
                    fail(format!("mode {:?}, expected {token}", a.mode()));
                }
            }
            "?" => {
                if !guarded || a.mode().is_some() {
                    fail(format!(
                        "expected guarded with unknown mode, got guarded={guarded} mode={:?}",
                        a.mode()
                    ));
                }
            }
            "-" => {
                if guarded {
                    fail(format!("expected not guarded, got mode {:?}, opaque {:?}", a.mode(), a.opaque));
                }
            }
            "U" => {
                saw_u = true;
                if !unverified {
                    fail("expected UNVERIFIED, analysis is exact".into());
                }
            }
            "B" => {
                if !a.opaque.iter().any(|o| o.severity == Severity::Block) {
                    fail(format!("expected a block, opaque: {:?}", a.opaque));
                }
            }
            "S" => {
                if !a.steps.iter().any(|s| matches!(s, Step::Script(_))) {
                    fail("expected a script run".into());
                }
            }
            "inline" => {
                if !guarding.is_some_and(|c| c.inline_skip_gate) {
                    fail("expected inline skipGate".into());
                }
            }
            "nv" => {
                if !guarding.is_some_and(|c| no_verify(&c.op)) {
                    fail("expected --no-verify".into());
                }
            }
            "dyn" => {
                if calls.iter().find_map(|c| is_dynamic(&c.op)) != Some(true) {
                    fail("expected dynamic paths".into());
                }
            }
            "d1" => {
                if calls.last().map(|c| c.depth) != Some(1) {
                    fail("expected the last git operation at depth 1".into());
                }
            }
            t if t.starts_with("ops=") => {
                let got = calls.iter().map(|c| c.op.kind()).collect::<Vec<_>>().join(",");
                if got != t[4..] {
                    fail(format!("ops {got}, expected {}", &t[4..]));
                }
            }
            t if t.starts_with("dir=") => {
                let got = calls.last().map(|c| dir_text(&c.dir)).unwrap_or_default();
                if got != t[4..] {
                    fail(format!("dir {got:?}, expected {:?}", &t[4..]));
                }
            }
            other => fail(format!("unknown expectation token {other}")),
        }
    }
    if !saw_u && unverified {
        fail(format!(
            "unexpected UNVERIFIED: opaque {:?}, parse error {:?}, notes {:?}",
            a.opaque,
            a.parse_error,
            calls.iter().flat_map(|c| c.notes.iter()).collect::<Vec<_>>()
        ));
    }
    errors
}

#[test]
fn corpus_is_large_and_covers_look_alikes() {
    let cases = cases();
    assert!(cases.len() >= 250, "only {} cases", cases.len());
    let not_guarded = cases.iter().filter(|c| c.expect.first().is_some_and(|e| e == "-")).count();
    assert!(not_guarded >= 60, "only {not_guarded} look-alikes");
}

#[test]
fn every_corpus_case_matches_its_expectation() {
    let mut failures = Vec::new();
    for case in cases() {
        let a = bash::analyse(&case.command);
        for e in check(&case, &a) {
            failures.push(format!("line {}: `{}`: {e}", case.line, case.command.replace('\n', "⏎")));
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}
