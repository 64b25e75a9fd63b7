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

/// Detects active languages from the given files and root-level names, in registry order.
/// A language counts when it has at least one file or one marker at the root.
pub(crate) fn detect_project(
    registry: &Registry,
    files: &[String],
    root_names: &BTreeSet<String>,
) -> Vec<DetectedLanguage> {
    detect_with_interpreters(registry, files, root_names, &BTreeMap::new())
}

/// [`detect_project`], with the interpreters read from the files' `#!` lines (path →
/// interpreter), which can decide a file's language (see [`Registry::language_of_file`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_markers_are_evidence() {
        let registry = Registry::builtin().expect("registry");
        let files = vec!["b.py".to_owned(), "a.py".to_owned(), "run.sh".to_owned(), "notes.txt".to_owned()];
        let root: BTreeSet<String> = ["Cargo.toml".to_owned()].into();
        let found = detect_project(&registry, &files, &root);
        let ids: Vec<_> = found.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["rust", "python", "shell"]);
        assert_eq!(found[1].files, ["a.py", "b.py"]);
        assert_eq!(found[0].markers, ["Cargo.toml"]);
    }
}
