//! Which files of a project are in scope: the one home of the build/dependency/artifact
//! directory list and the dot-path rule, used by detection, whole-tree checks and the safety scan.
//!
//! In: a project root. Out: repository-relative paths (`/`-separated), sorted.
//! Never: follows symlinked directories or descends into excluded directories.

use std::path::Path;

/// Directories that hold dependencies, build output, caches or local environments. They are
/// never linted, and committing them is a safety violation (with the exceptions in `safety`).
pub const ARTIFACT_DIRS: &[&str] = &[
    ".venv",
    "venv",
    "env",
    "node_modules",
    "vendor",
    "upstream",
    "build",
    "dist",
    "target",
    "out",
    ".next",
    ".nuxt",
    ".gradle",
    "coverage",
    ".terraform",
    ".tox",
    ".eggs",
    "htmlcov",
    ".turbo",
    ".parcel-cache",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".mimosa",
    ".worktrees",
];

/// Whether a repository-relative path lies in an artifact directory or under a dot-directory
/// (dot-paths such as `.github/` hold tool config, not project source: they are not linted).
pub fn is_out_of_lint_scope(rel: &str) -> bool {
    let mut segments = rel.split('/').peekable();
    while let Some(segment) = segments.next() {
        let is_dir = segments.peek().is_some();
        if segment.starts_with('.') && segment != "." && segment != ".." {
            return true;
        }
        if is_dir && ARTIFACT_DIRS.contains(&segment) {
            return true;
        }
    }
    false
}

/// Every file under `root` that is in lint scope, skipping `.git`, dot-directories and artifact
/// directories. Symlinks are listed but never followed.
pub fn project_files(root: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(root).follow_links(false).sort_by_file_name().into_iter();
    let walker = walker.filter_entry(|e| {
        e.depth() == 0 || {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_dir() && (name.starts_with('.') || ARTIFACT_DIRS.contains(&name.as_ref())))
        }
    });
    for entry in walker {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let Some(rel) = rel.to_str() else { continue };
        if !is_out_of_lint_scope(rel) {
            out.push(rel.to_owned());
        }
    }
    out.sort();
    Ok(out)
}

/// Root-level names and whether `pyproject.toml` configures ruff (the facts planning needs).
pub fn root_facts(root: &Path) -> crate::plan::RootFacts {
    let names: std::collections::BTreeSet<String> = std::fs::read_dir(root)
        .map(|rd| rd.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    let pyproject_configures_ruff = names.contains("pyproject.toml")
        && std::fs::read_to_string(root.join("pyproject.toml")).is_ok_and(|t| t.contains("[tool.ruff"));
    crate::plan::RootFacts { names, pyproject_configures_ruff }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_and_dot_paths_are_out_of_scope() {
        for rel in
            ["node_modules/x.js", "a/target/b.rs", ".github/workflows/ci.yml", ".venv/lib/x.py", "a/.tox/x"]
        {
            assert!(is_out_of_lint_scope(rel), "{rel}");
        }
        for rel in ["src/a.py", "target.py", "scripts/build.sh", "vendor.py"] {
            assert!(!is_out_of_lint_scope(rel), "{rel}");
        }
    }
}
