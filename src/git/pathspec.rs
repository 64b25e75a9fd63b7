//! Pathspecs as git reads them (globs, `:(exclude)`, `:(literal)`, `:/`, relative to the
//! directory they were given in), compiled once and matched against repository-relative paths.

use std::path::Path;

/// A compiled set of pathspecs.
pub(crate) struct Matcher {
    search: gix::pathspec::Search,
}

impl Matcher {
    /// Parses `specs`, relative to `cwd_rel` (the directory they were given in, relative to the
    /// worktree root `workdir`; `literal`: `--literal-pathspecs`); an error is a reason for
    /// people.
    pub(crate) fn new(
        cwd_rel: &str,
        specs: &[String],
        literal: bool,
        workdir: &Path,
    ) -> Result<Self, String> {
        let defaults = gix::pathspec::Defaults {
            signature: gix::pathspec::MagicSignature::empty(),
            search_mode: if literal {
                gix::pathspec::SearchMode::Literal
            } else {
                gix::pathspec::SearchMode::ShellGlob
            },
            literal,
        };
        let prefix = Path::new(cwd_rel.trim_matches('/'));
        let patterns = specs
            .iter()
            .map(|s| normalised(s, defaults, prefix, workdir).map_err(|e| bad_spec(s, &e)))
            .collect::<Result<Vec<_>, _>>()?;
        let search = gix::pathspec::Search::from_specs(patterns, None, workdir)
            .map_err(|e| bad_spec(&specs.join(" "), &e))?;
        Ok(Self { search })
    }

    /// Whether `path` (repo-relative) is selected and not excluded.
    pub(crate) fn matches(&mut self, path: &str, is_dir: bool) -> bool {
        let no_attributes = &mut |_: &gix::bstr::BStr, _, _, _: &mut _| false;
        self.search
            .pattern_matching_relative_path(path.into(), Some(is_dir), no_attributes)
            .is_some_and(|m| !m.is_excluded())
    }

    /// Whether the pathspecs select the whole tree (`.` at the root, `:/`).
    pub(crate) fn covers_everything(&self) -> bool {
        self.search.patterns().all(|p| !p.is_excluded() && p.path().is_empty())
    }
}

/// Parses one pathspec and makes it relative to the root. A pathspec naming the root itself
/// (`.` at the root, `sub/..`) becomes `:/`, which gix's search matches everything with.
fn normalised(
    spec: &str,
    defaults: gix::pathspec::Defaults,
    prefix: &Path,
    workdir: &Path,
) -> Result<gix::pathspec::Pattern, gix::Error> {
    let mut pattern = gix::pathspec::parse(spec.as_bytes(), defaults)?;
    pattern.normalize(prefix, workdir)?;
    if pattern.path() == "." {
        let top = if pattern.is_excluded() { ":(top,exclude)" } else { ":/" };
        pattern = gix::pathspec::parse(top.as_bytes(), defaults)?;
    }
    Ok(pattern)
}

fn bad_spec(spec: &str, error: &dyn std::fmt::Display) -> String {
    format!("cannot interpret pathspec `{spec}`: {error}")
}
