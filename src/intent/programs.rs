//! Reading the project files programs run commands from: `package.json` scripts (with their
//! `pre`/`post` scripts and `npm version`'s lifecycle), `.npmrc`/`.yarnrc` git tagging, and
//! justfile recipes, and Makefile recipes (the target's prerequisites first, recursively with a bound; the default
//! target; `@`/`-`/`+` prefixes; literal variables; `$(MAKE)`).
//!
//! **In:** the directory the program runs in and what it was asked to run. **Out:** the shell
//! command lines it would run, in order, with the directory they run in. **I/O:** reads at most
//! a few small files (each ≤ [`super::MAX_SCRIPT_BYTES`]). **Never:** runs anything.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::bash::PackageManager;

/// How many prerequisite levels of a Makefile are followed.
const MAX_MAKE_DEPTH: usize = 16;

/// Most recipe lines taken from one Makefile.
const MAX_MAKE_LINES: usize = 2000;

/// Shell command lines a program runs, all from one directory.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Where the lines run (the package root, the Makefile's directory).
    pub dir: PathBuf,
    /// The file they come from, for messages.
    pub file: PathBuf,
    /// `(label, command line)` in the order they run.
    pub lines: Vec<(String, String)>,
}

/// The nearest directory at or above `dir` holding a `package.json`, as npm finds it.
fn package_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join("package.json").is_file()).map(Path::to_path_buf)
}

/// The `scripts` of the `package.json` at `root`.
fn scripts(root: &Path) -> Result<HashMap<String, String>, String> {
    let path = root.join("package.json");
    let text =
        super::read_script(&path).map_err(|why| format!("{} could not be read ({why})", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON ({e})", path.display()))?;
    let mut out = HashMap::new();
    if let Some(map) = json.get("scripts").and_then(serde_json::Value::as_object) {
        for (name, body) in map {
            if let Some(body) = body.as_str() {
                out.insert(name.clone(), body.to_owned());
            }
        }
    }
    Ok(out)
}

/// `npm run X` (and `yarn X`, `pnpm X`): `preX`, `X`, `postX` from the nearest `package.json`.
/// `Ok(None)`: there is no `package.json` (the program fails without running anything).
pub(super) fn package_script(dir: &Path, script: &str) -> Result<Option<Plan>, String> {
    let Some(root) = package_root(dir) else { return Ok(None) };
    let scripts = scripts(&root)?;
    let mut lines = Vec::new();
    if scripts.contains_key(script) {
        for name in [format!("pre{script}"), script.to_owned(), format!("post{script}")] {
            if let Some(body) = scripts.get(&name) {
                lines.push((format!("script `{name}`"), body.clone()));
            }
        }
    }
    Ok(Some(Plan { file: root.join("package.json"), dir: root, lines }))
}

/// The lifecycle scripts an `install`, `publish` or `pack` runs, in order, from the nearest
/// `package.json`. `Ok(None)`: there is no `package.json`.
pub(super) fn package_lifecycle(dir: &Path, event: &str) -> Result<Option<Plan>, String> {
    let Some(root) = package_root(dir) else { return Ok(None) };
    let scripts = scripts(&root)?;
    let names: &[&str] = match event {
        "install" => {
            &["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"]
        }
        "publish" => &["prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"],
        _ => &["prepack", "prepare", "postpack"],
    };
    let lines = names
        .iter()
        .filter_map(|n| scripts.get(*n).map(|body| (format!("script `{n}`"), body.clone())))
        .collect();
    Ok(Some(Plan { file: root.join("package.json"), dir: root, lines }))
}

/// What `npm version` (or `yarn`/`pnpm version`) does in `dir`.
#[derive(Debug)]
pub(super) struct VersionPlan {
    /// Its lifecycle scripts, in order: `preversion`, `version` (before the commit) …
    pub before_commit: Plan,
    /// … and `postversion` (after the commit and tag).
    pub after_commit: Vec<(String, String)>,
    /// Whether it commits and tags.
    pub commits: bool,
    /// The files it rewrites and commits, relative to the package root.
    pub files: Vec<String>,
}

/// `npm version …` in `dir`: `Ok(None)` when there is no `package.json`.
pub(super) fn package_version(
    dir: &Path,
    manager: PackageManager,
    git_tag: Option<bool>,
) -> Result<Option<VersionPlan>, String> {
    let Some(root) = package_root(dir) else { return Ok(None) };
    let scripts = scripts(&root)?;
    let configured = match manager {
        PackageManager::Npm | PackageManager::Pnpm => npmrc_git_tag(&root),
        PackageManager::Yarn => yarnrc_git_tag(&root),
    };
    let commits = git_tag.or(configured).unwrap_or(true);
    let mut before = Vec::new();
    for name in ["preversion", "version"] {
        if let Some(body) = scripts.get(name) {
            before.push((format!("script `{name}`"), body.clone()));
        }
    }
    let after = scripts
        .get("postversion")
        .map(|b| ("script `postversion`".to_owned(), b.clone()))
        .into_iter()
        .collect();
    let mut files = vec!["package.json".to_owned()];
    for lock in ["package-lock.json", "npm-shrinkwrap.json"] {
        if root.join(lock).is_file() {
            files.push(lock.to_owned());
        }
    }
    Ok(Some(VersionPlan {
        before_commit: Plan { file: root.join("package.json"), dir: root, lines: before },
        after_commit: after,
        commits,
        files,
    }))
}

/// `git-tag-version=false` in the project's `.npmrc`.
fn npmrc_git_tag(root: &Path) -> Option<bool> {
    let text = super::read_script(&root.join(".npmrc")).ok()?;
    let mut found = None;
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else { continue };
        if k.trim() == "git-tag-version" {
            found = Some(v.trim() != "false");
        }
    }
    found
}

/// `version-git-tag false` in the project's `.yarnrc` (yarn classic).
fn yarnrc_git_tag(root: &Path) -> Option<bool> {
    let text = super::read_script(&root.join(".yarnrc")).ok()?;
    let mut found = None;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() == Some("version-git-tag") {
            found = Some(words.next().map(|v| v.trim_matches('"')) != Some("false"));
        }
    }
    found
}

/// One rule of a Makefile.
#[derive(Debug, Default, Clone)]
struct Rule {
    prerequisites: Vec<String>,
    recipe: Vec<String>,
}

/// A Makefile, read as far as recipes go.
#[derive(Debug, Default)]
struct Makefile {
    rules: HashMap<String, Rule>,
    default: Option<String>,
    vars: HashMap<String, String>,
    /// `include`d files (literal names), read once by [`make`].
    includes: Vec<String>,
}

/// `make [-f file] [targets…]` in `dir`: the recipe lines of the targets and their
/// prerequisites, prerequisites first. `Ok(None)`: there is no Makefile.
pub(super) fn make(
    dir: &Path,
    file: Option<&str>,
    targets: &[String],
    overrides: &[(String, String)],
    dry_run: bool,
) -> Result<Option<Plan>, String> {
    let path = match file {
        Some(f) => dir.join(f),
        None => {
            match ["GNUmakefile", "makefile", "Makefile"].iter().map(|n| dir.join(n)).find(|p| p.is_file()) {
                Some(p) => p,
                None => return Ok(None),
            }
        }
    };
    let text =
        super::read_script(&path).map_err(|why| format!("{} could not be read ({why})", path.display()))?;
    let mut mk = parse_makefile(&text);
    // Included files, one level: their rules and variables join the Makefile's.
    for inc in std::mem::take(&mut mk.includes) {
        let Ok(text) = super::read_script(&dir.join(&inc)) else { continue };
        let included = parse_makefile(&text);
        for (k, v) in included.vars {
            mk.vars.entry(k).or_insert(v);
        }
        for (k, v) in included.rules {
            mk.rules.entry(k).or_insert(v);
        }
        if mk.default.is_none() {
            mk.default = included.default;
        }
    }
    for (k, v) in overrides {
        mk.vars.insert(k.clone(), v.clone());
    }
    let wanted: Vec<String> =
        if targets.is_empty() { mk.default.iter().cloned().collect() } else { targets.to_vec() };
    // `$(shell …)` outside recipes runs while make reads the file, whatever the target (and
    // under `-n` too).
    let mut lines: Vec<(String, String)> = shell_calls(&text)
        .into_iter()
        .map(|code| (format!("`$(shell …)` in {}", path.display()), code))
        .collect();
    let mut done = HashSet::new();
    for t in &wanted {
        collect(&mk, t, 0, &mut done, &mut lines, dry_run);
    }
    Ok(Some(Plan { dir: dir.to_path_buf(), file: path, lines }))
}

fn collect(
    mk: &Makefile,
    target: &str,
    depth: usize,
    done: &mut HashSet<String>,
    lines: &mut Vec<(String, String)>,
    dry_run: bool,
) {
    if depth > MAX_MAKE_DEPTH || lines.len() > MAX_MAKE_LINES || !done.insert(target.to_owned()) {
        return;
    }
    let Some(rule) = mk.rules.get(target) else { return };
    for p in &rule.prerequisites {
        collect(mk, p, depth + 1, done, lines, dry_run);
    }
    for raw in &rule.recipe {
        let (line, forced) = strip_prefixes(raw);
        let mut expanded = expand(line, &mk.vars, target, &rule.prerequisites, 0);
        let submake = line.contains("$(MAKE)") || line.contains("${MAKE}");
        if dry_run && !forced && !submake {
            continue;
        }
        if dry_run && submake {
            // `make -n` runs `$(MAKE)` lines, and the sub-make inherits `-n` through MAKEFLAGS.
            expanded = expanded.replacen("make", "make -n", 1);
        }
        lines.push((format!("recipe of `{target}`"), expanded));
    }
}

/// The commands of the `$(shell …)` / `${shell …}` calls of a Makefile outside its recipe lines
/// (parentheses balanced).
fn shell_calls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('\t')) {
        for open in ["$(shell ", "${shell "] {
            let close = if open.starts_with("$(") { (b'(', b')') } else { (b'{', b'}') };
            let mut rest = line;
            while let Some(at) = rest.find(open) {
                let body = &rest[at + open.len()..];
                let mut depth = 1usize;
                let mut end = body.len();
                for (i, b) in body.bytes().enumerate() {
                    if b == close.0 {
                        depth += 1;
                    } else if b == close.1 {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                }
                out.push(body[..end].to_owned());
                rest = &body[end.min(body.len())..];
            }
        }
    }
    out
}

/// Drops the `@`, `-`, `+` prefixes of a recipe line; true when `+` (runs even under `-n`).
fn strip_prefixes(line: &str) -> (&str, bool) {
    let mut forced = false;
    let mut rest = line.trim_start();
    while let Some(c) = rest.chars().next().filter(|c| matches!(c, '@' | '-' | '+')) {
        forced |= c == '+';
        rest = rest[1..].trim_start();
    }
    (rest, forced)
}

/// Expands `$(VAR)`, `${VAR}`, `$@`, `$<`, `$^`, `$$`. A variable that is not defined
/// literally stays a shell parameter (`${VAR}`), so the analyser treats it as run-time text.
fn expand(text: &str, vars: &HashMap<String, String>, target: &str, prereqs: &[String], depth: u8) -> String {
    let mut out = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().map(|(_, c)| *c) {
            Some('$') => {
                chars.next();
                out.push('$');
            }
            Some('@') => {
                chars.next();
                out.push_str(target);
            }
            Some('<') => {
                chars.next();
                out.push_str(prereqs.first().map_or("", String::as_str));
            }
            Some('^') => {
                chars.next();
                out.push_str(&prereqs.join(" "));
            }
            Some(open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                let rest = &text[i + 2..];
                let Some(end) = rest.find(close) else {
                    out.push_str(&text[i..]);
                    break;
                };
                let name = &rest[..end];
                let value = match name {
                    "MAKE" => Some("make".to_owned()),
                    n if n.contains([' ', ',', '$', ':']) => None,
                    n => vars.get(n).map(|v| {
                        if depth < 8 { expand(v, vars, target, prereqs, depth + 1) } else { v.clone() }
                    }),
                };
                match value {
                    Some(v) => out.push_str(&v),
                    // `$(shell …)`, functions and unknown variables: left for run time.
                    None if name.contains(' ') => {
                        out.push_str("$(");
                        out.push_str(name);
                        out.push(')');
                    }
                    None => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                for _ in 0..name.chars().count() + 2 {
                    chars.next();
                }
            }
            _ => out.push('$'),
        }
    }
    out
}

/// Reads rules, recipes and literal variables. Conditionals are not evaluated: every branch's
/// rules count (the conservative reading); `define` blocks are skipped.
fn parse_makefile(text: &str) -> Makefile {
    let mut mk = Makefile::default();
    let mut current: Vec<String> = Vec::new();
    let mut in_define = false;
    let mut logical: Vec<String> = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        if let Some(stripped) = line.strip_suffix('\\') {
            pending.push_str(stripped);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        logical.push(std::mem::take(&mut pending));
    }
    if !pending.is_empty() {
        logical.push(pending);
    }
    for line in logical {
        if in_define {
            in_define = line.trim() != "endef";
            continue;
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            for t in &current {
                mk.rules.entry(t.clone()).or_default().recipe.push(recipe.to_owned());
            }
            continue;
        }
        let trimmed = line.split('#').next().unwrap_or_default().trim();
        if trimmed.is_empty() {
            continue;
        }
        let first_word = trimmed.split_whitespace().next().unwrap_or_default();
        if first_word == "define" {
            in_define = true;
            current.clear();
            continue;
        }
        if matches!(first_word, "include" | "-include" | "sinclude") {
            mk.includes
                .extend(trimmed.split_whitespace().skip(1).filter(|w| !w.contains('$')).map(str::to_owned));
            continue;
        }
        if matches!(
            first_word,
            "ifeq"
                | "ifneq"
                | "ifdef"
                | "ifndef"
                | "else"
                | "endif"
                | "include"
                | "-include"
                | "sinclude"
                | "export"
                | "unexport"
                | "override"
                | "vpath"
        ) && !trimmed.contains(':')
        {
            continue;
        }
        if let Some((name, value)) = assignment(trimmed) {
            let value = value.trim().to_owned();
            if let Some(old) = mk.vars.get_mut(&name).filter(|_| trimmed.contains("+=")) {
                old.push(' ');
                old.push_str(&value);
            } else if !(trimmed.contains("?=") && mk.vars.contains_key(&name)) {
                mk.vars.insert(name, value);
            }
            current.clear();
            continue;
        }
        let Some((targets, rest)) = trimmed.split_once(':') else {
            current.clear();
            continue;
        };
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        let (prereqs, inline) = match rest.split_once(';') {
            Some((p, r)) => (p, Some(r.trim().to_owned())),
            None => (rest, None),
        };
        let prereqs = prereqs.split('|').collect::<Vec<_>>().join(" ");
        current = targets.split_whitespace().map(|t| expand(t, &mk.vars, "", &[], 0)).collect();
        let prereqs: Vec<String> =
            expand(&prereqs, &mk.vars, "", &[], 0).split_whitespace().map(str::to_owned).collect();
        for t in &current {
            let rule = mk.rules.entry(t.clone()).or_default();
            rule.prerequisites.extend(prereqs.iter().cloned());
            if let Some(r) = &inline {
                rule.recipe.push(r.clone());
            }
            let special = t.starts_with('.') && !t.contains('/');
            if mk.default.is_none() && !special && !t.contains('%') {
                mk.default = Some(t.clone());
            }
        }
    }
    mk
}

/// `NAME = value`, `NAME := value`, `NAME ::= value`, `NAME ?= value`, `NAME += value`.
fn assignment(line: &str) -> Option<(String, String)> {
    let eq = line.find('=')?;
    let colon = line.find(':');
    if colon.is_some_and(|c| c < eq && !line[c..eq].chars().all(|ch| ch == ':')) {
        return None;
    }
    let name = line[..eq].trim_end_matches([':', '?', '+', '!']).trim();
    let name = name.strip_prefix("export ").or_else(|| name.strip_prefix("override ")).unwrap_or(name).trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        return None;
    }
    Some((name.to_owned(), line[eq + 1..].to_owned()))
}

/// One recipe of a justfile.
#[derive(Debug, Default, Clone)]
struct JustRecipe {
    before: Vec<String>,
    after: Vec<String>,
    body: Vec<String>,
}

/// `just [-f file] [recipes…]` from `dir`: the nearest `justfile`/`Justfile`/`.justfile` upward;
/// dependencies first (`a: b && c` runs `c` after), each body line as its own shell (a `#!`
/// body as one script), `@`/`-` prefixes stripped, literal `x := "v"` variables expanded in
/// `{{x}}`. `Ok(None)`: there is no justfile.
pub(super) fn just(dir: &Path, file: Option<&str>, words: &[String]) -> Result<Option<Plan>, String> {
    let path = if let Some(f) = file {
        dir.join(f)
    } else {
        let found = dir.ancestors().find_map(|d| {
            ["justfile", "Justfile", ".justfile"].iter().map(|n| d.join(n)).find(|p| p.is_file())
        });
        let Some(p) = found else { return Ok(None) };
        p
    };
    let text =
        super::read_script(&path).map_err(|why| format!("{} could not be read ({why})", path.display()))?;
    let (recipes, first, vars) = parse_justfile(&text);
    let mut wanted: Vec<String> = words.iter().filter(|w| recipes.contains_key(*w)).cloned().collect();
    if words.is_empty() {
        wanted.extend(first);
    }
    let mut lines = Vec::new();
    let mut done = HashSet::new();
    for r in &wanted {
        collect_just(&recipes, &vars, r, 0, &mut done, &mut lines);
    }
    let dir = path.parent().map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
    Ok(Some(Plan { dir, file: path, lines }))
}

fn collect_just(
    recipes: &HashMap<String, JustRecipe>,
    vars: &HashMap<String, String>,
    name: &str,
    depth: usize,
    done: &mut HashSet<String>,
    lines: &mut Vec<(String, String)>,
) {
    if depth > MAX_MAKE_DEPTH || lines.len() > MAX_MAKE_LINES || !done.insert(name.to_owned()) {
        return;
    }
    let Some(r) = recipes.get(name) else { return };
    for d in &r.before {
        collect_just(recipes, vars, d, depth + 1, done, lines);
    }
    let label = format!("recipe `{name}`");
    let expand_vars = |l: &str| {
        let mut out = l.to_owned();
        for (k, v) in vars {
            out = out.replace(&format!("{{{{{k}}}}}"), v).replace(&format!("{{{{ {k} }}}}"), v);
        }
        out
    };
    if r.body.first().is_some_and(|l| l.starts_with("#!")) {
        lines.push((label, expand_vars(&r.body.join("\n"))));
    } else {
        for l in &r.body {
            let (stripped, _) = strip_prefixes(l);
            lines.push((label.clone(), expand_vars(stripped)));
        }
    }
    for d in &r.after {
        collect_just(recipes, vars, d, depth + 1, done, lines);
    }
}

/// Recipes, the first recipe's name, and literal string variables.
fn parse_justfile(text: &str) -> (HashMap<String, JustRecipe>, Option<String>, HashMap<String, String>) {
    let mut recipes: HashMap<String, JustRecipe> = HashMap::new();
    let mut first = None;
    let mut vars = HashMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(name) = &current {
                let body = line.trim_start();
                if !body.is_empty() {
                    recipes.entry(name.clone()).or_default().body.push(body.to_owned());
                }
            }
            continue;
        }
        current = None;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('[') {
            continue;
        }
        if let Some((k, v)) = trimmed.split_once(":=") {
            let k = k.trim().trim_start_matches("export ").trim();
            let v = v.trim();
            let literal = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')));
            if let Some(lit) = literal.filter(|_| !k.contains(' ')) {
                vars.insert(k.to_owned(), lit.to_owned());
            }
            continue;
        }
        let Some((head, deps)) = trimmed.split_once(':') else { continue };
        let mut head_words = head.split_whitespace();
        let Some(name) = head_words.next().map(|n| n.trim_start_matches('@').to_owned()) else { continue };
        if matches!(name.as_str(), "set" | "alias" | "import" | "mod" | "export") || name.is_empty() {
            continue;
        }
        let (before, after) = match deps.split_once("&&") {
            Some((b, a)) => (b, a),
            None => (deps, ""),
        };
        let words = |s: &str| -> Vec<String> {
            s.split_whitespace()
                .map(|w| w.trim_matches(|c| c == '(' || c == ')').to_owned())
                .filter(|w| !w.is_empty() && !w.starts_with(['"', '\'']))
                .collect()
        };
        let recipe = recipes.entry(name.clone()).or_default();
        recipe.before = words(before);
        recipe.after = words(after);
        first.get_or_insert_with(|| name.clone());
        current = Some(name);
    }
    (recipes, first, vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makefile_rules_recipes_and_the_default_target() {
        let mk = parse_makefile(
            ".PHONY: all release\nGIT := git\nall: build\nbuild:\n\t@echo build\nrelease: all\n\t-$(GIT) commit -am \"$@\"\n\t+$(MAKE) -C sub push\n",
        );
        assert_eq!(mk.default.as_deref(), Some("all"));
        let mut lines = Vec::new();
        collect(&mk, "release", 0, &mut HashSet::new(), &mut lines, false);
        let texts: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(texts, ["echo build", "git commit -am \"release\"", "make -C sub push"]);
    }

    #[test]
    fn unknown_variables_stay_run_time_text() {
        let vars = HashMap::new();
        assert_eq!(
            expand("$(G) push $$HOME $(shell date)", &vars, "t", &[], 0),
            "${G} push $HOME $(shell date)"
        );
    }
}
