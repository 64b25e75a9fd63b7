//! Which files of a project are in lint scope: the one home of the build/dependency/cache
//! directory list, and of the vendored/generated/fixture exclusions ([`LintScope`]).
//!
//! In: a project root. Out: repository-relative paths (`/`-separated), sorted.
//! Dot-directories and dotfiles (`.github/workflows/ci.yml`, `.pre-commit-hooks.yaml`) are
//! linted like any other path; only the directories of [`ARTIFACT_DIRS`] (dependencies, build
//! output, caches, local environments, `.git`) are not. Each of them also says whether a commit
//! may carry it ([`Commit`]), which the safety scan (`crate::safety`) enforces; lint scope never
//! narrows that scan (vendored, generated and fixture files are still scanned).
//! Never: follows symlinked directories or descends into excluded directories.

use std::path::Path;

use crate::registry::shebang_interpreter;

/// Whether the safety scan refuses a commit that carries an artifact directory's files
/// (`crate::safety`'s `artifact-directory` rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Commit {
    /// Refused at any depth: dependencies, caches, local environments.
    Refused,
    /// Refused at the repository root only: a common source name deeper down (`src/build/`,
    /// `pkg/env/`).
    RefusedAtRoot,
    /// Not the safety scan's business: version-control data git never commits, or caches some
    /// projects commit on purpose (`.yarn/`, `.bundle/`).
    Allowed,
}

/// A directory name that holds dependencies, build output, caches, local environments or version
/// control data: never linted, at any depth; whether committing it is refused is [`Commit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArtifactDir {
    /// The directory's name (one path segment).
    pub name: &'static str,
    /// Whether a commit may carry it.
    pub commit: Commit,
}

const fn dir(name: &'static str, commit: Commit) -> ArtifactDir {
    ArtifactDir { name, commit }
}

use Commit::{Allowed, Refused, RefusedAtRoot};

/// The artifact directories: the one list the lint scope ([`is_out_of_lint_scope`],
/// [`project_files`]) and the safety scan's `artifact-directory` rule read.
pub(crate) const ARTIFACT_DIRS: &[ArtifactDir] = &[
    dir(".git", Allowed),
    dir(".hg", Allowed),
    dir(".svn", Allowed),
    dir(".venv", Refused),
    dir("venv", Refused),
    dir("env", RefusedAtRoot),
    dir("node_modules", Refused),
    dir("upstream", RefusedAtRoot),
    dir("build", RefusedAtRoot),
    dir("dist", Refused),
    dir("target", Refused),
    dir("out", RefusedAtRoot),
    dir(".next", Refused),
    dir(".nuxt", Refused),
    dir(".gradle", Refused),
    dir("coverage", Refused),
    dir(".terraform", Refused),
    dir(".tox", Refused),
    dir(".eggs", Refused),
    dir("htmlcov", Refused),
    dir(".turbo", Refused),
    dir(".parcel-cache", Refused),
    dir("__pycache__", Refused),
    dir(".pytest_cache", Refused),
    dir(".mypy_cache", Refused),
    dir(".ruff_cache", Refused),
    dir(".mimosa", Refused),
    dir(".worktrees", Refused),
    dir(".direnv", Allowed),
    dir(".cache", Allowed),
    dir(".bundle", Allowed),
    dir(".yarn", Allowed),
    dir(".pnpm-store", Allowed),
    dir(".dart_tool", Allowed),
    dir(".stack-work", Allowed),
    dir(".svelte-kit", Allowed),
    dir(".nox", Refused),
    dir(".hypothesis", Allowed),
];

/// Whether `name` (one path segment) is one of the [`ARTIFACT_DIRS`].
pub(crate) fn is_artifact_dir(name: &str) -> bool {
    artifact_dir(name).is_some()
}

/// The [`ARTIFACT_DIRS`] entry named `name`, if any.
pub(crate) fn artifact_dir(name: &str) -> Option<&'static ArtifactDir> {
    ARTIFACT_DIRS.iter().find(|d| d.name == name)
}

/// Whether a repository-relative path lies in one of the [`ARTIFACT_DIRS`]. Dot-paths are in
/// scope: `.github/workflows/ci.yml` is linted like `ci/workflow.yml`.
pub(crate) fn is_out_of_lint_scope(rel: &str) -> bool {
    let mut segments = rel.split('/').peekable();
    while let Some(segment) = segments.next() {
        let is_dir = segments.peek().is_some();
        if is_dir && is_artifact_dir(segment) {
            return true;
        }
    }
    false
}

/// Every file under `root` that is in lint scope, skipping the [`ARTIFACT_DIRS`] (`.git`
/// among them). Symlinks are listed but never followed.
pub(crate) fn project_files(root: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(root).follow_links(false).sort_by_file_name().into_iter();
    let walker = walker.filter_entry(|e| {
        e.depth() == 0 || {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_dir() && is_artifact_dir(&name))
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

/// The facts planning needs about the content in `root` for linting `files`: the root facts,
/// the interpreter of each file whose `#!` line can decide its language, and the files that name
/// their own dialect to their tool (their language's `dialect_directive`), and the dialect a
/// shebang-less shell fragment of `selected` takes from the scripts that source it (`workspace`:
/// where files not in `root` are read, for a snapshot).
pub(crate) fn lint_facts(
    root: &Path,
    workspace: Option<&Path>,
    files: &[String],
    selected: &[String],
    registry: &crate::registry::Registry,
) -> RootFacts {
    let mut facts = root_facts(root);
    for file in files.iter().filter(|f| registry.reads_interpreter(f)) {
        let Some(head) = head(&root.join(file)) else { continue };
        let interpreter = shebang_interpreter(&head);
        let directive = registry
            .language_of_file(file, interpreter.as_deref())
            .and_then(|l| l.dialect_directive.as_deref());
        if directive.is_some_and(|d| names_dialect(&head, d)) {
            facts.directed.insert(file.clone());
        }
        if let Some(interpreter) = interpreter {
            facts.interpreters.insert(file.clone(), interpreter);
        }
    }
    sourced_fragments(root, workspace, files, selected, registry, &mut facts);
    templates(root, selected, registry, &mut facts);
    facts
}

/// Bytes of a file read to tell a template from its language.
const TEMPLATE_BYTES: u64 = 64 * 1024;

/// Marks the selected files that are templates of their language (a line matches the language's
/// `template_lines`: `name: {{ .Release.Name }}` in a Helm chart), read in `root`.
fn templates(root: &Path, selected: &[String], registry: &crate::registry::Registry, facts: &mut RootFacts) {
    for file in selected {
        let Some(pattern) = registry.language_of(file).and_then(|l| l.template_lines.as_ref()) else {
            continue;
        };
        if read_prefix(&root.join(file), TEMPLATE_BYTES).is_some_and(|text| pattern.is_match(&text)) {
            facts.templates.insert(file.clone());
        }
    }
}

/// Shell files a [`sourced_fragments`] search reads at most, and the bytes it reads of each.
const SOURCING_FILES: usize = 2000;
const SOURCING_BYTES: u64 = 256 * 1024;

/// Gives a shebang-less shell fragment (`lib/common.sh`, no `#!`, no directive) the dialect of
/// the scripts that `source` it: when every one of them is bash or zsh, the fragment is read as
/// bash (its extension alone would make it POSIX sh, and bash-isms it shares with its callers
/// would be false findings). A fragment sourced by an `sh` script, or by nobody, keeps its
/// extension's dialect. Callers are read in `root`, else in `workspace` (the repository a
/// snapshot of changed files came from).
fn sourced_fragments(
    root: &Path,
    workspace: Option<&Path>,
    files: &[String],
    selected: &[String],
    registry: &crate::registry::Registry,
    facts: &mut RootFacts,
) {
    let Some(shell) = registry.get("shell").filter(|l| l.dialect_option.is_some()) else { return };
    let fragments: Vec<&String> = selected
        .iter()
        .filter(|f| registry.language_of(f).is_some_and(|l| l.id == shell.id))
        .filter(|f| !facts.interpreters.contains_key(*f) && !facts.directed.contains(*f))
        .filter(|f| shell.dialect_of(f, None) == Some("sh"))
        .collect();
    if fragments.is_empty() {
        return;
    }
    let read = |rel: &str| {
        read_prefix(&root.join(rel), SOURCING_BYTES)
            .or_else(|| workspace.and_then(|w| read_prefix(&w.join(rel), SOURCING_BYTES)))
    };
    // Candidate callers: files of a shell-like language or without an extension, of the content
    // and (for a snapshot of changed files) of the repository it came from.
    let tracked =
        workspace.filter(|w| *w != root).and_then(|w| crate::git::tracked_files(w).ok()).unwrap_or_default();
    let listed: std::collections::HashSet<&String> = files.iter().collect();
    let callers = files
        .iter()
        .chain(tracked.iter().filter(|t| !listed.contains(t)))
        .filter(|f| {
            registry.language_of(f).is_some_and(|l| !l.interpreters.is_empty())
                || crate::registry::extension_of(f.rsplit('/').next().unwrap_or(f)).is_none()
        })
        .take(SOURCING_FILES);
    let mut dialects: std::collections::BTreeMap<&str, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for caller in callers {
        let Some(text) = read(caller) else { continue };
        let sourced: Vec<&&String> = fragments.iter().filter(|frag| sources(&text, frag)).collect();
        if sourced.is_empty() {
            continue;
        }
        let name = caller.rsplit('/').next().unwrap_or(caller);
        let dialect = shebang_interpreter(&text)
            .or_else(|| match crate::registry::extension_of(name).as_deref() {
                Some(".bash") => Some("bash".into()),
                Some(".zsh") => Some("zsh".into()),
                Some(".sh") => Some("sh".into()),
                _ => None,
            })
            .unwrap_or_else(|| "unknown".into());
        for frag in sourced {
            dialects.entry(frag.as_str()).or_default().insert(dialect.clone());
        }
    }
    for (fragment, by) in dialects {
        if by.iter().all(|d| d == "bash" || d == "zsh") {
            facts.interpreters.insert(fragment.to_owned(), "bash".to_owned());
        }
    }
}

/// Whether `text` has a `source` or `.` command naming a path that ends in `fragment`'s file name
/// (`source "${DIR}/common.sh"`, `. ./lib/common.sh`).
fn sources(text: &str, fragment: &str) -> bool {
    let name = fragment.rsplit('/').next().unwrap_or(fragment);
    text.lines().any(|line| {
        let line = line.trim_start();
        let rest = line.strip_prefix("source ").or_else(|| line.strip_prefix(". "));
        // The path word may hold a command substitution with spaces (`"$(dirname "$0")/x.sh"`):
        // any piece of the rest of the line, split at blanks, quotes and `;`, naming the file.
        rest.is_some_and(|r| {
            r.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|'))
                .any(|word| word == name || word.ends_with(&format!("/{name}")))
        })
    })
}

/// Bytes of a file read for its `#!` line and the comment block at its top.
const HEAD_BYTES: u64 = 1024;

/// The first [`HEAD_BYTES`] of a regular file (lossily decoded). Symlinks are not followed.
fn head(path: &Path) -> Option<String> {
    read_prefix(path, HEAD_BYTES)
}

/// The first `max` bytes of `path` when it is a regular file (lossily decoded); a symbolic link
/// is never followed (it could point anywhere), and a file that cannot be read is `None`. The one
/// bounded read of the files planning looks into (`#!` lines, templates, sourcing scripts, the
/// files that say a project runs a formatter).
pub(crate) fn read_prefix(path: &Path, max: u64) -> Option<String> {
    use std::io::Read as _;
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).ok()?.take(max).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The interpreter a file's `#!` line names (`#!/bin/bash` → `bash`, `#!/usr/bin/env -S zsh -f`
/// → `zsh`), if it has one. Symlinks are not followed.
pub(crate) fn interpreter(path: &Path) -> Option<String> {
    shebang_interpreter(&head(path)?)
}

/// Whether the comment block at the top of `text` (before its first command) carries
/// `directive` — `<tool> <key>` as in `shellcheck shell=`: a comment whose first word is the
/// tool and one of whose later words starts with the key (`# shellcheck disable=SC1 shell=bash`).
fn names_dialect(text: &str, directive: &str) -> bool {
    let Some((tool, key)) = directive.trim().split_once(' ') else { return false };
    let key = key.trim();
    text.lines()
        .map(str::trim)
        .take_while(|line| line.is_empty() || line.starts_with('#'))
        .filter_map(|line| line.strip_prefix('#'))
        .any(|comment| {
            let mut words = comment.split_whitespace();
            words.next() == Some(tool) && words.any(|w| w.starts_with(key) && w.len() > key.len())
        })
}

/// Facts about the project root that planning needs (gathered by the caller).
#[derive(Debug, Clone, Default)]
pub(crate) struct RootFacts {
    /// Names of the entries directly in the root directory.
    pub names: std::collections::BTreeSet<String>,
    /// Whether `pyproject.toml` has a `[tool.ruff]` section.
    pub pyproject_configures_ruff: bool,
    /// The interpreter named by the `#!` line of each file where it can decide the language or
    /// dialect (path → interpreter; see `Registry::reads_interpreter`).
    pub interpreters: std::collections::BTreeMap<String, String>,
    /// Files that name their own dialect to their tool by a comment directive (the language's
    /// `dialect_directive`): planned without the dialect option.
    pub directed: std::collections::BTreeSet<String>,
    /// Files that are templates of their language, not the language (a line matches its
    /// `template_lines`): never linted as it.
    pub templates: std::collections::BTreeSet<String>,
}

impl RootFacts {
    pub(crate) fn has_ruff_config(&self) -> bool {
        self.pyproject_configures_ruff
            || self.names.contains("ruff.toml")
            || self.names.contains(".ruff.toml")
    }

    /// Whether any of the given names or simple globs (`*.sln`) exists at the root.
    pub(crate) fn has_any(&self, patterns: &[String]) -> bool {
        patterns.iter().any(|p| match p.strip_prefix('*') {
            Some(suffix) => self.names.iter().any(|n| n.ends_with(suffix)),
            None => self.names.contains(p),
        })
    }
}

/// Root-level names and whether `pyproject.toml` configures ruff (the facts planning needs).
pub(crate) fn root_facts(root: &Path) -> RootFacts {
    let names: std::collections::BTreeSet<String> = std::fs::read_dir(root)
        .map(|rd| rd.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    let pyproject_configures_ruff = names.contains("pyproject.toml")
        && std::fs::read_to_string(root.join("pyproject.toml")).is_ok_and(|t| t.contains("[tool.ruff"));
    RootFacts { names, pyproject_configures_ruff, ..Default::default() }
}

/// Directories whose files are vendored code or test fixtures, at any depth: not linted while
/// `codeguard.json`'s `exclude_vendored` is on (the default).
pub(crate) const VENDORED_DIRS: &[&str] = &["vendor", "third_party", "testdata"];

/// Directory pairs (`<parent>/<child>`, at any depth) that hold test fixtures.
pub(crate) const FIXTURE_DIRS: &[(&str, &str)] = &[("test", "fixtures"), ("tests", "fixtures")];

/// The `.gitattributes` attributes that mark a file as not the project's own source.
const VENDORED_ATTRIBUTES: [&str; 2] = ["linguist-vendored", "linguist-generated"];

/// Which files are excluded from linting as vendored, generated or fixtures: the
/// [`VENDORED_DIRS`] and [`FIXTURE_DIRS`], and the files the root `.gitattributes` of the content
/// being checked marks `linguist-vendored` or `linguist-generated` (read raw, last matching line
/// wins per attribute, as in git). Linting only: the safety scan still reads these files.
#[derive(Debug, Default)]
pub(crate) struct LintScope {
    /// False when the project turned the exclusions off (`"exclude_vendored": false`).
    enabled: bool,
    /// `(pattern, matches the base name, attribute index, set)`, in file order.
    rules: Vec<(globset::GlobMatcher, bool, usize, bool)>,
}

impl LintScope {
    /// The scope of the content in `dir`; `enabled` is the project's `exclude_vendored`.
    /// An unreadable or absent `.gitattributes` means no attribute rules.
    pub(crate) fn load(dir: &Path, enabled: bool) -> Self {
        let text = if enabled { std::fs::read_to_string(dir.join(".gitattributes")).ok() } else { None };
        Self::parse(text.as_deref().unwrap_or(""), enabled)
    }

    /// The scope described by `.gitattributes` text.
    pub(crate) fn parse(gitattributes: &str, enabled: bool) -> Self {
        let mut rules = Vec::new();
        for line in gitattributes.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with("[attr]") || line.starts_with('"')
            {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(pattern) = words.next() else { continue };
            let attrs: Vec<(usize, bool)> = words.filter_map(attribute_state).collect();
            if attrs.is_empty() {
                continue;
            }
            let Some((matcher, basename)) = attribute_pattern(pattern) else { continue };
            for (attr, set) in attrs {
                rules.push((matcher.clone(), basename, attr, set));
            }
        }
        Self { enabled, rules }
    }

    /// Whether `rel` is excluded from linting as vendored, generated or a fixture.
    pub(crate) fn excludes(&self, rel: &str) -> bool {
        if !self.enabled {
            return false;
        }
        let dirs: Vec<&str> = rel.split('/').collect();
        let dirs = &dirs[..dirs.len().saturating_sub(1)];
        if dirs.iter().any(|d| VENDORED_DIRS.contains(d))
            || dirs.windows(2).any(|w| FIXTURE_DIRS.contains(&(w[0], w[1])))
        {
            return true;
        }
        let name = rel.rsplit('/').next().unwrap_or(rel);
        (0..VENDORED_ATTRIBUTES.len()).any(|attr| {
            self.rules
                .iter()
                .rev()
                .find(|(m, basename, a, _)| *a == attr && m.is_match(if *basename { name } else { rel }))
                .is_some_and(|(.., set)| *set)
        })
    }
}

/// The attribute a `.gitattributes` word sets or unsets, if it is one of [`VENDORED_ATTRIBUTES`].
fn attribute_state(word: &str) -> Option<(usize, bool)> {
    let (name, set) = if let Some(name) = word.strip_prefix('-').or_else(|| word.strip_prefix('!')) {
        (name, false)
    } else if let Some((name, value)) = word.split_once('=') {
        (name, !matches!(value, "false" | "0"))
    } else {
        (word, true)
    };
    VENDORED_ATTRIBUTES.iter().position(|a| *a == name).map(|i| (i, set))
}

/// A `.gitattributes` pattern as a matcher, and whether it matches the file's base name (a
/// pattern without `/`) rather than its root-relative path.
fn attribute_pattern(pattern: &str) -> Option<(globset::GlobMatcher, bool)> {
    let basename = !pattern.trim_end_matches('/').contains('/');
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    let glob = globset::GlobBuilder::new(pattern).literal_separator(true).build().ok()?;
    Some((glob.compile_matcher(), basename))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_paths_are_out_of_scope_and_dot_paths_are_in() {
        for rel in ["node_modules/x.js", "a/target/b.rs", ".venv/lib/x.py", "a/.tox/x", ".git/config"] {
            assert!(is_out_of_lint_scope(rel), "{rel}");
        }
        for rel in [
            "src/a.py",
            "target.py",
            "scripts/build.sh",
            "vendor.py",
            ".github/workflows/ci.yml",
            ".pre-commit-hooks.yaml",
            ".readthedocs.yaml",
        ] {
            assert!(!is_out_of_lint_scope(rel), "{rel}");
        }
    }

    #[test]
    fn artifact_dirs_are_listed_once() {
        let mut names: Vec<&str> = ARTIFACT_DIRS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a directory listed twice");
        assert!(ARTIFACT_DIRS.iter().all(|d| !d.name.is_empty() && !d.name.contains('/')));
    }

    #[test]
    fn a_top_comment_directive_names_the_dialect_and_a_later_one_does_not() {
        let d = "shellcheck shell=";
        assert!(names_dialect("#!/bin/sh\n# shellcheck shell=bash\necho\n", d));
        assert!(names_dialect("# Copyright\n\n# shellcheck disable=SC2034 shell=ksh\n", d));
        assert!(!names_dialect("#!/bin/sh\necho hi\n# shellcheck shell=bash\n", d), "after a command");
        assert!(!names_dialect("# shellcheck disable=SC2034\n", d));
        assert!(!names_dialect("# shellcheck shell=\n", d), "no dialect named");
    }

    #[test]
    fn shebangs_name_their_interpreter() {
        let cases = [
            ("#!/bin/bash\necho", Some("bash")),
            ("#!/usr/bin/env zsh\n", Some("zsh")),
            ("#! /usr/bin/env -S fish --no-config\n", Some("fish")),
            ("#!/usr/bin/env LC_ALL=C ksh\n", Some("ksh")),
            ("#!/bin/busybox sh\n", Some("busybox")),
            ("#!/usr/bin/env\n", None),
            ("echo hi\n#!/bin/sh", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(shebang_interpreter(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn vendored_generated_and_fixture_files_are_excluded_unless_turned_off() {
        let attrs = "# comment\nlib/** linguist-vendored\n*.gen.py linguist-generated=true\nlib/own.py -linguist-vendored\n/top.py linguist-vendored\n";
        let scope = LintScope::parse(attrs, true);
        for rel in [
            "vendor/x.py",
            "a/third_party/b.py",
            "pkg/testdata/c.sh",
            "tests/fixtures/bad.py",
            "a/test/fixtures/x.yml",
            "lib/dep.py",
            "lib/deep/dep.py",
            "src/api.gen.py",
            "top.py",
        ] {
            assert!(scope.excludes(rel), "{rel}");
        }
        for rel in ["src/a.py", "lib/own.py", "fixtures/x.py", "tests/unit.py", "sub/top.py", "vendor.py"] {
            assert!(!scope.excludes(rel), "{rel}");
        }
        let off = LintScope::parse(attrs, false);
        assert!(!off.excludes("vendor/x.py") && !off.excludes("lib/dep.py"));
    }
}
