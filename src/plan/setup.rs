//! Project setup (pure): the default linter configurations a project lacks, and codeguard's
//! block in `AGENTS.md`.
//!
//! In: the detected languages, facts about the project root and the current `AGENTS.md` text.
//! Out: a list of [`Proposal`]s — a file to create, the `AGENTS.md` text with our marked block
//! added or replaced, or a file left alone and why.
//! Never: touches the filesystem. The caller writes only [`Change::Create`] files that still do
//! not exist and replaces only the text between our markers, so applying twice changes nothing.

use crate::files::RootFacts;
use crate::registry::DetectedLanguage;

/// The line that opens codeguard's block in `AGENTS.md`.
pub(crate) const BLOCK_BEGIN: &str = "<!-- codeguard:begin -->";
/// The line that closes it.
pub(crate) const BLOCK_END: &str = "<!-- codeguard:end -->";
/// The agent-instructions file.
pub(crate) const AGENTS_FILE: &str = "AGENTS.md";

/// A default configuration codeguard can propose for a language.
struct ConfigDefault {
    language: &'static str,
    file: &'static str,
    /// Root-level names that already configure the tool (any one means "configured").
    existing: &'static [&'static str],
    content: &'static str,
    why: &'static str,
}

const DEFAULTS: &[ConfigDefault] = &[
    ConfigDefault {
        language: "python",
        file: "ruff.toml",
        existing: &["ruff.toml", ".ruff.toml"],
        content: include_str!("../../registry/defaults/ruff.toml"),
        why: "pins ruff's rules to the ones the gate checks",
    },
    ConfigDefault {
        language: "shell",
        file: ".shellcheckrc",
        existing: &[".shellcheckrc"],
        content: include_str!("../../registry/defaults/shellcheckrc"),
        why: "project-wide shellcheck settings",
    },
    ConfigDefault {
        language: "yaml",
        file: ".yamllint.yml",
        existing: &[".yamllint", ".yamllint.yaml", ".yamllint.yml"],
        content: include_str!("../../registry/defaults/yamllint.yml"),
        why: "integrates YAML: without a yamllint config it is skipped",
    },
];

const AGENTS_BLOCK: &str = include_str!("../../registry/defaults/agents-block.md");

/// One proposed change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Proposal {
    /// The file, relative to the project root.
    pub path: String,
    /// What to do with it.
    pub change: Change,
    /// Why (shown to the user).
    pub why: String,
}

/// What to do with a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// Create it with this content (it does not exist).
    Create(String),
    /// Replace the whole text with this (our block added or refreshed; the rest kept byte for byte).
    Update(String),
    /// Leave it alone.
    Keep,
}

/// What `init` proposes for a project.
pub(crate) fn propose(
    detected: &[DetectedLanguage],
    facts: &RootFacts,
    agents_md: Option<&str>,
) -> Vec<Proposal> {
    let mut out = Vec::new();
    for default in DEFAULTS.iter().filter(|d| detected.iter().any(|l| l.id == d.language)) {
        let configured =
            default.existing.iter().find(|name| facts.names.contains(**name)).map(|n| (*n).to_owned());
        let configured = configured.or_else(|| {
            (default.language == "python" && facts.pyproject_configures_ruff)
                .then(|| "pyproject.toml [tool.ruff]".to_owned())
        });
        out.push(match configured {
            Some(existing) => Proposal {
                path: default.file.to_owned(),
                change: Change::Keep,
                why: format!("{}: already configured by {existing}; left as it is", default.language),
            },
            None => Proposal {
                path: default.file.to_owned(),
                change: Change::Create(default.content.to_owned()),
                why: format!("{}: {}", default.language, default.why),
            },
        });
    }
    out.push(agents_proposal(agents_md));
    out
}

/// The marked block, markers included, ending in a newline. It names no project facts (such as
/// the languages), so that writing config files or the block itself never makes it stale.
pub(crate) fn agents_block() -> String {
    format!("{BLOCK_BEGIN}\n{AGENTS_BLOCK}{BLOCK_END}\n")
}

fn agents_proposal(current: Option<&str>) -> Proposal {
    let block = agents_block();
    let proposal = |change, why: &str| Proposal { path: AGENTS_FILE.to_owned(), change, why: why.to_owned() };
    let Some(text) = current else {
        return proposal(Change::Create(block), "how the commit gate works, for agents");
    };
    let updated = with_block(text, &block);
    if updated == text {
        proposal(Change::Keep, "codeguard's block is up to date")
    } else if text.contains(BLOCK_BEGIN) {
        proposal(Change::Update(updated), "refresh codeguard's block (the rest of the file is kept)")
    } else {
        proposal(Change::Update(updated), "append codeguard's block (the rest of the file is kept)")
    }
}

/// `text` with our block replaced (between the first begin marker and the end marker after it),
/// or appended after a blank line when it has none.
fn with_block(text: &str, block: &str) -> String {
    if let Some(begin) = text.find(BLOCK_BEGIN)
        && let Some(end) = text[begin..].find(BLOCK_END).map(|i| begin + i + BLOCK_END.len())
    {
        let rest = text[end..].strip_prefix('\n').unwrap_or(&text[end..]);
        return format!("{}{block}{rest}", &text[..begin]);
    }
    let separator = match text {
        "" => "",
        t if t.ends_with("\n\n") => "",
        t if t.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    format!("{text}{separator}{block}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(id: &str) -> DetectedLanguage {
        DetectedLanguage { id: id.to_owned(), markers: Vec::new(), files: vec![format!("x.{id}")] }
    }

    fn facts(names: &[&str]) -> RootFacts {
        RootFacts { names: names.iter().map(|s| (*s).to_owned()).collect(), ..RootFacts::default() }
    }

    #[test]
    fn missing_configs_are_created_existing_ones_kept() {
        let found = propose(&[lang("python"), lang("shell"), lang("yaml")], &facts(&[".yamllint"]), None);
        let summary: Vec<(&str, bool)> =
            found.iter().map(|p| (p.path.as_str(), matches!(p.change, Change::Create(_)))).collect();
        assert_eq!(
            summary,
            [("ruff.toml", true), (".shellcheckrc", true), (".yamllint.yml", false), ("AGENTS.md", true)]
        );
        let mut ruff_in_pyproject = facts(&["pyproject.toml"]);
        ruff_in_pyproject.pyproject_configures_ruff = true;
        let found = propose(&[lang("python")], &ruff_in_pyproject, None);
        assert_eq!(found[0].change, Change::Keep, "{:?}", found[0]);
    }

    #[test]
    fn the_agents_block_is_appended_once_and_replaced_in_place() {
        let detected = [lang("python")];
        let mine = "# Agents\n\nBe nice.\n";
        let Change::Update(once) = propose(&detected, &facts(&[]), Some(mine)).remove(1).change else {
            panic!("appended")
        };
        assert!(once.starts_with(mine) && once.ends_with(&agents_block()));
        assert_eq!(propose(&detected, &facts(&[]), Some(&once)).remove(1).change, Change::Keep);
        let stale = once.replace("separate tool calls", "one call") + "\nMy notes after.\n";
        let Change::Update(fresh) = propose(&detected, &facts(&[]), Some(&stale)).remove(1).change else {
            panic!("refreshed")
        };
        assert_eq!(fresh, once.clone() + "\nMy notes after.\n", "only the block changed");
    }
}
