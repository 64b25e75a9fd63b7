//! The configuration that decides what a linter reports, and which part of each such file does.
//!
//! An agent's commit that also changes this configuration (switches a rule off, widens an
//! exclude, remaps a language) is judged with the base commit's (`crate::config_change`). Most
//! files are rule configuration as a whole (`ruff.toml`, `.shellcheckrc`, `eslint.config.*`,
//! `.yamllint`, `clippy.toml`, codeguard's own `codeguard.json` and `.gitattributes`, …). Some
//! also say how the project builds; only their linters' tables count there, and only those are
//! taken from the base: `pyproject.toml` (`[tool.ruff…]`, `[tool.mypy…]`, …), `setup.cfg` and
//! `tox.ini` (`[flake8]`, `[mypy…]`, …), `Cargo.toml` (`[lints…]`, `[workspace.lints…]`).
//! Build manifests a linter reads but that hold no rules (`tsconfig.json`, `go.mod`, `pom.xml`,
//! …) are not rule configuration: replacing them would judge new code against old dependencies.
//!
//! **Pure:** text in, text out; which files exist is the caller's.

use super::SupportFiles;

/// Files a linter reads for the project's build, not for its rules.
const BUILD_FILES: &[&str] = &[
    "tsconfig.json",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "mix.exs",
    "elm.json",
    "pubspec.yaml",
    "shard.yml",
    "buf.work.yaml",
    "buf.gen.yaml",
];

/// The Python tools whose tables in `pyproject.toml`, `setup.cfg` and `tox.ini` are rules.
const PYTHON_TOOLS: &[&str] = &[
    "ruff",
    "mypy",
    "pylint",
    "flake8",
    "pycodestyle",
    "pep8",
    "pydocstyle",
    "pyflakes",
    "black",
    "isort",
    "pyright",
    "basedpyright",
    "bandit",
    "codespell",
    "sqlfluff",
    "yamllint",
];

/// Which part of a configuration file holds rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// All of it.
    Whole,
    /// The `[tool.<python tool>…]` tables of `pyproject.toml`.
    PyprojectTools,
    /// The `[<python tool>…]` (or `[tool:<tool>]`) sections of `setup.cfg` / `tox.ini`.
    IniTools,
    /// The `[lints…]` and `[workspace.lints…]` tables of `Cargo.toml`.
    CargoLints,
}

/// The rule scope of the file at repository path `path`, when it is rule configuration:
/// codeguard's own files and the `support` files of the registry's languages, build manifests
/// excepted. Suffix patterns (`*.csproj`) are project files, never rules.
pub(crate) fn scope(path: &str, support: &SupportFiles) -> Option<Scope> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "pyproject.toml" => return Some(Scope::PyprojectTools),
        "setup.cfg" | "tox.ini" => return Some(Scope::IniTools),
        "Cargo.toml" => return Some(Scope::CargoLints),
        _ => {}
    }
    if BUILD_FILES.contains(&name) {
        return None;
    }
    support.matches(name.as_bytes(), false).then_some(Scope::Whole)
}

/// One section of a TOML or INI file: its header's name (empty before the first header) and
/// its lines, header included.
struct Section<'a> {
    name: String,
    lines: Vec<&'a str>,
}

fn sections(text: &str) -> Vec<Section<'_>> {
    let mut out = vec![Section { name: String::new(), lines: Vec::new() }];
    for line in text.lines() {
        let trimmed = line.trim();
        let header = trimmed
            .strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .or_else(|| trimmed.strip_prefix('[').and_then(|r| r.split_once(']')))
            .map(|(name, _)| name.trim().trim_matches('"').to_ascii_lowercase());
        match header {
            Some(name) if !trimmed.starts_with("[=") => out.push(Section { name, lines: vec![line] }),
            _ => out.last_mut().expect("a first section").lines.push(line),
        }
    }
    out
}

fn is_python_tool(name: &str) -> bool {
    let tool = name.split(['.', '-', ':']).next().unwrap_or(name);
    PYTHON_TOOLS.contains(&tool)
}

/// Whether a section of a file of `scope` holds rules.
fn holds_rules(scope: Scope, name: &str) -> bool {
    match scope {
        Scope::Whole => true,
        Scope::PyprojectTools => name.strip_prefix("tool.").is_some_and(is_python_tool),
        Scope::IniTools => is_python_tool(name.strip_prefix("tool:").unwrap_or(name)),
        Scope::CargoLints => {
            let lints = |n: &str| n == "lints" || n.starts_with("lints.");
            lints(name) || name.strip_prefix("workspace.").is_some_and(lints)
        }
    }
}

/// The lines of `text` that hold rules (all of it for [`Scope::Whole`]).
pub(crate) fn rule_lines(text: &str, scope: Scope) -> Vec<&str> {
    sections(text).into_iter().filter(|s| holds_rules(scope, &s.name)).flat_map(|s| s.lines).collect()
}

/// The file to judge with: `new` with its rules replaced by those of `base` (absent: no rules).
/// For [`Scope::Whole`] that is `base` itself (`None`: the file is absent from the base).
pub(crate) fn with_base_rules(base: Option<&str>, new: &str, scope: Scope) -> Option<String> {
    if scope == Scope::Whole {
        return base.map(str::to_owned);
    }
    let mut out: Vec<&str> =
        sections(new).into_iter().filter(|s| !holds_rules(scope, &s.name)).flat_map(|s| s.lines).collect();
    out.extend(base.map(|b| rule_lines(b, scope)).unwrap_or_default());
    let mut text = out.join("\n");
    text.push('\n');
    Some(text)
}

/// What changed in the rules between `base` and `new`: the rule lines only in `new` (`+ …`),
/// then those only in `base` (`- …`), blank and comment-only lines left out.
pub(crate) fn rule_changes(base: Option<&str>, new: Option<&str>, scope: Scope) -> Vec<String> {
    let lines = |text: Option<&str>| -> Vec<String> {
        text.map(|t| rule_lines(t, scope))
            .unwrap_or_default()
            .into_iter()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';') && !l.starts_with("//"))
            .map(str::to_owned)
            .collect()
    };
    let (old, now) = (lines(base), lines(new));
    let added = now.iter().filter(|l| !old.contains(l)).map(|l| format!("+ {l}"));
    let removed = old.iter().filter(|l| !now.contains(l)).map(|l| format!("- {l}"));
    added.chain(removed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn support() -> SupportFiles {
        SupportFiles::new([
            "ruff.toml",
            ".shellcheckrc",
            "pyproject.toml",
            "tsconfig.json",
            "*.csproj",
            "codeguard.json",
        ])
    }

    #[test]
    fn rule_files_and_their_rule_parts() {
        let s = support();
        assert_eq!(scope("ruff.toml", &s), Some(Scope::Whole));
        assert_eq!(scope("sub/dir/.shellcheckrc", &s), Some(Scope::Whole));
        assert_eq!(scope("codeguard.json", &s), Some(Scope::Whole));
        assert_eq!(scope("pyproject.toml", &s), Some(Scope::PyprojectTools));
        assert_eq!(scope("tsconfig.json", &s), None, "a build manifest");
        assert_eq!(scope("app.csproj", &s), None, "a project file");
        assert_eq!(scope("src/app.py", &s), None);
    }

    #[test]
    fn only_the_linters_tables_of_a_pyproject_are_taken_from_the_base() {
        let base = "[project]\nname = \"a\"\nversion = \"1\"\n\n[tool.ruff]\nline-length = 88\n";
        let new = "[project]\nname = \"a\"\nversion = \"2\"\n\n[tool.ruff]\nline-length = 88\n\n[tool.ruff.lint]\nignore = [\"F401\"]\n\n[tool.poetry]\nx = 1\n";
        let judged = with_base_rules(Some(base), new, Scope::PyprojectTools).expect("text");
        assert!(judged.contains("version = \"2\"") && judged.contains("[tool.poetry]"), "{judged}");
        assert!(!judged.contains("F401") && judged.contains("line-length = 88"), "{judged}");
        assert_eq!(
            rule_changes(Some(base), Some(new), Scope::PyprojectTools),
            ["+ [tool.ruff.lint]", "+ ignore = [\"F401\"]"]
        );
        // A version bump is not a rule change.
        let bumped = base.replace("version = \"1\"", "version = \"3\"");
        assert!(rule_changes(Some(base), Some(&bumped), Scope::PyprojectTools).is_empty());
    }

    #[test]
    fn ini_and_cargo_rule_sections() {
        let base = "[metadata]\nname = a\n[flake8]\nmax-line-length = 79\n";
        let new = "[metadata]\nname = b\n[flake8]\nmax-line-length = 200\nextend-ignore = E501\n[mypy-foo.*]\nignore_errors = True\n";
        let changes = rule_changes(Some(base), Some(new), Scope::IniTools);
        assert!(changes.contains(&"+ extend-ignore = E501".to_owned()), "{changes:?}");
        assert!(changes.contains(&"+ [mypy-foo.*]".to_owned()), "{changes:?}");
        assert!(changes.contains(&"- max-line-length = 79".to_owned()), "{changes:?}");
        let cargo_base = "[package]\nname = \"a\"\n[dependencies]\nx = \"1\"\n";
        let cargo_new =
            "[package]\nname = \"a\"\n[dependencies]\nx = \"2\"\n[lints.clippy]\nall = \"allow\"\n";
        let judged = with_base_rules(Some(cargo_base), cargo_new, Scope::CargoLints).expect("text");
        assert!(judged.contains("x = \"2\"") && !judged.contains("allow"), "{judged}");
        assert_eq!(rule_changes(Some(cargo_base), Some(cargo_new), Scope::CargoLints).len(), 2);
    }

    #[test]
    fn a_whole_file_is_the_base_file() {
        assert_eq!(with_base_rules(Some("a\n"), "b\n", Scope::Whole).as_deref(), Some("a\n"));
        assert_eq!(with_base_rules(None, "b\n", Scope::Whole), None);
        assert_eq!(rule_changes(None, Some("disable=SC2086\n# why\n"), Scope::Whole), ["+ disable=SC2086"]);
    }
}
