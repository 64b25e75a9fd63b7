//! Language detection (pure): which registry languages a set of files and root markers shows.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::Registry;

/// A language found in a project, with the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DetectedLanguage {
    /// Registry id.
    pub id: String,
    /// Marker files found at the root.
    pub markers: Vec<String>,
    /// The project's files of this language (repository-relative), sorted.
    pub files: Vec<String>,
}

/// Detects active languages from the given files, root-level names and the interpreters read
/// from the files' `#!` lines (path → interpreter, which can decide a file's language, see
/// [`Registry::language_of_file`]), in registry order. A language counts when it has at least
/// one file or one marker at the root. `crate::project::Inventory` is the one caller that names a
/// project's languages; planning detects the content it is handed the same way.
pub(crate) fn detect_with_interpreters(
    registry: &Registry,
    files: &[String],
    root_names: &BTreeSet<String>,
    interpreters: &BTreeMap<String, String>,
) -> Vec<DetectedLanguage> {
    let mut found: Vec<DetectedLanguage> = registry
        .languages()
        .iter()
        .filter(|l| l.status.is_active())
        .map(|l| DetectedLanguage {
            id: l.id.clone(),
            markers: l.markers.iter().filter(|m| root_names.contains(*m)).cloned().collect(),
            files: Vec::new(),
        })
        .collect();
    for file in files {
        let lang = registry.language_of_file(file, interpreters.get(file).map(String::as_str));
        if let Some(entry) = lang.and_then(|lang| found.iter_mut().find(|d| d.id == lang.id)) {
            entry.files.push(file.clone());
        }
    }
    found.retain(|d| !d.files.is_empty() || !d.markers.is_empty());
    for d in &mut found {
        d.files.sort();
    }
    found
}

/// The interpreter named by the `#!` line at the start of `text`.
pub(crate) fn shebang_interpreter(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let program = words.next()?.rsplit('/').next()?;
    let name = if program == "env" {
        words.find(|w| !w.starts_with('-') && !w.contains('='))?.rsplit('/').next()?
    } else {
        program
    };
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_markers_are_evidence() {
        let registry = Registry::builtin().expect("registry");
        let files = vec!["b.py".to_owned(), "a.py".to_owned(), "run.sh".to_owned(), "notes.txt".to_owned()];
        let root: BTreeSet<String> = ["Cargo.toml".to_owned()].into();
        let found = detect_with_interpreters(&registry, &files, &root, &BTreeMap::new());
        let ids: Vec<_> = found.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["rust", "python", "shell"]);
        assert_eq!(found[1].files, ["a.py", "b.py"]);
        assert_eq!(found[0].markers, ["Cargo.toml"]);
    }
}
