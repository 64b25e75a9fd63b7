//! dsh (the `DeepSeek` Harness) runs Claude-shaped hooks through its bridge plugin
//! (`@deepseek-ai/dsh-hooks-claude-code`), which a profile loads only when a patch layer inserts
//! it with the hooks file's path (`configPath`). codeguard's hooks file is its settings file for
//! dsh (`$DSH_HOME/codeguard-hooks.json`); this module is the rest: the bridge's entry in dsh's
//! home-level patch layer (`$DSH_HOME/cordis.patch.yml`, applied over every profile), which names
//! the bridge by its file, found beside the `dsh` on `PATH` or in a profile's packages.
//!
//! **In:** the environment, the hooks file's path. **Out:** the patch layer's text with
//! codeguard's entry in a marked block (replacing the empty list `[]` dsh writes, and putting it
//! back when the block goes), and whether it is in force. **Never:** installs a package: the
//! bridge is the user's (`dsh plugin --profile P add …`, or beside dsh).

use std::path::{Path, PathBuf};

use crate::env::Env;

/// The bridge package, as its directory under a `node_modules`.
const BRIDGE: &str = "@deepseek-ai/dsh-hooks-claude-code";
const BEGIN: &str = "# codeguard:begin — managed by `codeguard install --host dsh`; `codeguard uninstall --host dsh` removes it";
const END: &str = "# codeguard:end";
/// Inside the block, the line it took the place of (dsh's empty list), given back on uninstall.
const REPLACED: &str = "# codeguard:replaced ";
/// The loader entry id codeguard's bridge instance goes by.
const ENTRY_ID: &str = "codeguard-hooks";

/// Whether a patch layer holds codeguard's entry (emptying it switches the gate off).
pub(crate) fn holds_ours(text: &str) -> bool {
    text.contains(BEGIN)
}

/// dsh's home: `$DSH_HOME`, else `~/.dsh`.
pub(crate) fn home(env: &Env) -> Option<PathBuf> {
    match env.get("DSH_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => env.home().map(|h| h.join(".dsh")),
    }
}

/// The home-level patch layer, applied over every profile.
pub(crate) fn patch_path(env: &Env) -> Option<PathBuf> {
    home(env).map(|h| h.join("cordis.patch.yml"))
}

/// The bridge's entry module: beside the `dsh` on `PATH` (its package's `node_modules`), else
/// in a profile's own packages (`$DSH_HOME/profiles/*/node_modules`, where `dsh plugin add`
/// puts it).
pub(crate) fn bridge(env: &Env) -> Option<PathBuf> {
    let entry = |modules: &Path| Some(modules.join(BRIDGE).join("lib/index.js")).filter(|p| p.is_file());
    let beside = env
        .get("PATH")
        .and_then(|path| crate::env::search_path(path, "dsh"))
        .and_then(|dsh| std::fs::canonicalize(dsh).ok())
        .and_then(|real| {
            real.ancestors().find(|a| a.file_name().is_some_and(|n| n == "node_modules")).and_then(entry)
        });
    beside.or_else(|| {
        let profiles = home(env)?.join("profiles");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(profiles)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("node_modules"))
            .collect();
        dirs.sort();
        dirs.iter().find_map(|d| entry(d))
    })
}

/// A YAML single-quoted string.
fn yaml_string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The patch layer with codeguard's entry: the bridge (`bridge`, its file) reading `hooks`.
pub(crate) fn merged(old: &str, bridge: &Path, hooks: &Path) -> String {
    let body = format!(
        "- insert:\n    - id: {ENTRY_ID}\n      name: {}\n      config:\n        configPath: {}\n",
        yaml_string(&bridge.display().to_string()),
        yaml_string(&hooks.display().to_string())
    );
    if let (Some(b), Some(e)) = (old.find(BEGIN), old.find(END)) {
        // Again: the same place, keeping what the block replaced.
        let replaced = old[b..e].lines().find(|l| l.starts_with(REPLACED)).map(|l| format!("{l}\n"));
        return format!("{}{BEGIN}\n{}{body}{}", &old[..b], replaced.unwrap_or_default(), &old[e..]);
    }
    // dsh writes a new layer as comments and the empty list `[]` (a comment may follow it): the
    // block takes the list's place (a YAML list cannot follow `[]`), and keeps the line to give
    // it back byte for byte.
    let mut lines: Vec<&str> = old.split_inclusive('\n').collect();
    if let Some(i) = lines.iter().position(|l| l.split('#').next().is_some_and(|v| v.trim() == "[]")) {
        let line = lines[i].strip_suffix('\n').unwrap_or(lines[i]);
        let block = format!("{BEGIN}\n{REPLACED}{line}\n{body}{END}\n");
        lines[i] = &block;
        return lines.concat();
    }
    super::hosts::block_merged(old, BEGIN, END, &body)
}

/// The patch layer without codeguard's entry (`[]` back where it stood when nothing else is
/// left but comments); `None` when nothing is left at all.
pub(crate) fn stripped(text: &str) -> Option<String> {
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else { return Some(text.to_owned()) };
    if let Some(line) = text[b..e].lines().find_map(|l| l.strip_prefix(REPLACED)) {
        let after = (e + END.len() + 1).min(text.len());
        return Some(format!("{}{line}\n{}", &text[..b], &text[after..]));
    }
    let rest = super::hosts::block_stripped(text, BEGIN, END);
    (!rest.trim().is_empty()).then_some(rest)
}

/// Whether dsh will run the hooks in `hooks`: the patch layer inserts the bridge reading that
/// file, and the bridge is there. `Err`: why not, in words.
pub(crate) fn in_force(env: &Env, hooks: &Path) -> Result<String, String> {
    let Some(patch) = patch_path(env) else { return Err("no home directory".into()) };
    let text = std::fs::read_to_string(&patch).unwrap_or_default();
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        return Err(format!(
            "{} does not insert dsh's Claude-hooks bridge for codeguard's hooks",
            patch.display()
        ));
    };
    let block = &text[b..e];
    let named = |key: &str| {
        block.lines().find_map(|l| l.trim().strip_prefix(key)).map(|v| {
            let v = v.trim();
            v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(v).replace("''", "'")
        })
    };
    if named("configPath:").as_deref() != Some(&hooks.display().to_string()) {
        return Err(format!("{}: the bridge entry does not read {}", patch.display(), hooks.display()));
    }
    match named("name:") {
        Some(module) if Path::new(&module).is_file() => {
            Ok(format!("{} inserts the bridge ({module}) for every profile", patch.display()))
        }
        Some(module) => Err(format!(
            "the bridge the patch layer names is gone ({module}): install it beside dsh (`npm install -g {BRIDGE} @deepseek-ai/dsh-hook-protocol --legacy-peer-deps`) or into a profile (`dsh plugin --profile P add {BRIDGE}`), then `codeguard install --host dsh`"
        )),
        None => Err(format!("{}: the bridge entry names no module", patch.display())),
    }
}

/// Why the bridge cannot be found, and how to get it.
pub(crate) fn no_bridge() -> String {
    format!(
        "dsh runs Claude-shaped hooks only through its bridge plugin, which is not beside the `dsh` on PATH nor in a profile: install it (`npm install -g {BRIDGE} @deepseek-ai/dsh-hook-protocol --legacy-peer-deps` beside dsh, or `dsh plugin --profile P add {BRIDGE} @deepseek-ai/dsh-hook-protocol`), then run `codeguard install --host dsh` again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_takes_the_empty_lists_place_and_gives_it_back() {
        let fresh = "# Your patch layer for this dsh profile.\n[]  # nothing yet\n# end\n";
        let (bridge, hooks) = (Path::new("/opt/dsh/node_modules/b/lib/index.js"), Path::new("/h/it's.json"));
        let once = merged(fresh, bridge, hooks);
        assert!(
            !once.lines().any(|l| l.starts_with("[]")) && once.contains("configPath: '/h/it''s.json'"),
            "{once}"
        );
        assert_eq!(merged(&once, bridge, hooks), once, "idempotent");
        assert_eq!(stripped(&once).as_deref(), Some(fresh), "byte for byte");
        let theirs = "- disable: [telemetry]\n";
        let with = merged(theirs, bridge, hooks);
        assert_eq!(stripped(&with).as_deref(), Some(theirs));
        assert_eq!(stripped(&merged("", bridge, hooks)), None, "a layer that was ours alone goes");
        let only = "[]\n";
        assert_eq!(stripped(&merged(only, bridge, hooks)).as_deref(), Some(only), "the list comes back");
        assert_eq!(stripped(&merged(&merged(only, bridge, hooks), bridge, hooks)).as_deref(), Some(only));
    }
}
