//! codeguard's own files, which an agent's shell command must not change: its state directory
//! (trust records, allow and baseline caches, the session hooks directory), its program, the git
//! hooks it installed (they carry its marker line), the agent hosts' settings or hooks files
//! that hold its entries, its plugins and hook scripts (and the directories a host loads every
//! file of beside them, where another plugin could undo its judgment), and dsh's patch layer. The user changes them (`codeguard install`/`uninstall`, their editor);
//! an agent's `rm`, `mv`, `chmod`, redirect or `sed -i` on one is blocked by the gate.
//!
//! **In:** the absolute paths a command writes (`crate::intent::Intent::write_targets`).
//! **Out:** what each protected one is, in words. **Never:** writes; reads only files named like
//! a git hook or a settings file, a bounded prefix of each, and a bounded number of entries
//! under a directory.

use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::host::Host;

/// Files looked at under a directory the command removes or moves.
const MAX_FILES_UNDER: usize = 500;

/// What of codeguard's own the `targets` are (empty: none).
pub(crate) fn touched(targets: &[PathBuf], env: &Env) -> Vec<String> {
    if targets.is_empty() {
        return Vec::new();
    }
    let state = canonical(&crate::state::home(env));
    let program = std::env::current_exe().ok().map(|p| canonical(&p));
    let git_configs = user_git_configs(env);
    let installs = installed_files(env);
    // Those of them that are codeguard's plugins or hook scripts, read once.
    let plugins: Vec<(Host, PathBuf)> = installs
        .iter()
        .filter(|(_, f)| crate::files::read_prefix(f, 256).is_some_and(|t| super::plugin::is_ours(&t)))
        .cloned()
        .collect();
    let mut out: Vec<String> = Vec::new();
    let paths = targets.iter().flat_map(|t| expanded(&canonical(&home_expanded(t, env))));
    for path in paths {
        let what = if path.starts_with(&state) || state.starts_with(&path) {
            Some(format!("codeguard's state directory ({})", state.display()))
        } else if program.as_ref().is_some_and(|p| *p == path || p.starts_with(&path)) {
            Some(format!("the codeguard program ({})", path.display()))
        } else {
            ours_within(&path)
                .or_else(|| {
                    // Under a directory too big to walk whole (a config directory with its
                    // packages): the files codeguard installs are looked for where they are.
                    installs
                        .iter()
                        .filter(|(_, f)| f.starts_with(&path))
                        .find_map(|(_, f)| what_is(f).map(|w| (f.clone(), w)))
                })
                .map(|(file, what)| format!("{what} ({})", file.display()))
                .or_else(|| {
                    loads_beside_ours(&path, &plugins).map(|dir| {
                        format!(
                            "a directory whose every file an agent host loads beside codeguard's plugin or hook scripts, where another could undo them ({})",
                            dir.display()
                        )
                    })
                })
                .or_else(|| switches_hooks(&path, env).map(|host| format!("{host} ({})", path.display())))
                .or_else(|| {
                    git_config_file(&path, &git_configs).then(|| {
                        format!(
                            "git's configuration, which holds codeguard's settings (`codeguard.*`, `core.hooksPath`) ({})",
                            path.display()
                        )
                    })
                })
        };
        if let Some(what) = what
            && !out.contains(&what)
        {
            out.push(what);
        }
    }
    out
}

/// The path, and when its last name is a glob (`rm ~/.cline/hooks/*`, `mv hooks/Pre* x`) the
/// entries of its directory that the shell would give it (a bounded number): what the command
/// really touches.
fn expanded(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.contains(['*', '?', '['])) else {
        return out;
    };
    let (Some(dir), Ok(glob)) = (path.parent(), globset::Glob::new(name)) else { return out };
    let matcher = glob.compile_matcher();
    if let Ok(entries) = std::fs::read_dir(dir) {
        out.extend(
            entries
                .filter_map(Result::ok)
                .take(MAX_FILES_UNDER)
                .filter(|e| matcher.is_match(e.file_name()))
                .map(|e| canonical(&e.path())),
        );
    }
    out
}

/// Where codeguard's install puts its files for each host (user scope, this environment), and
/// dsh's patch layer: canonical, with the host.
fn installed_files(env: &Env) -> Vec<(Host, PathBuf)> {
    let mut out: Vec<(Host, PathBuf)> = Host::ALL
        .iter()
        .filter_map(|h| super::settings::paths(*h, None, env).ok().map(|paths| (*h, paths)))
        .flat_map(|(h, paths)| paths.into_iter().map(move |p| (h, canonical(&p))))
        .chain(super::dsh::patch_path(env).map(|p| (Host::Dsh, canonical(&p))))
        .collect();
    out.dedup();
    out
}

/// A project's directories a host loads every file of (by their last two names, right under a
/// repository's root), and the host.
const PROJECT_PLUGIN_DIRS: &[(&str, &str, Host)] = &[
    (".opencode", "plugin", Host::Opencode),
    (".opencode", "plugins", Host::Opencode),
    (".kilo", "plugin", Host::Kilo),
    (".kilo", "plugins", Host::Kilo),
    (".kilocode", "plugin", Host::Kilo),
    (".kilocode", "plugins", Host::Kilo),
    (".pi", "extensions", Host::Pi),
    (".clinerules", "hooks", Host::Cline),
    (".cline", "hooks", Host::Cline),
];

/// When `file` is in a directory its host loads every file of — the one codeguard's plugin or
/// scripts are in (opencode's and Kilo's `plugin` and `plugins` alike), or a project's, right
/// under a repository's root — and codeguard's are installed for that host: that directory.
/// Another plugin there runs in the same process or on the same event, and can change a call
/// after codeguard judged it, or answer for it (a project's is loaded at the next start).
fn loads_beside_ours(file: &Path, plugins: &[(Host, PathBuf)]) -> Option<PathBuf> {
    let dir = file.parent()?;
    let is_plugin_dir = |d: &Path| d.file_name().is_some_and(|n| n == "plugin" || n == "plugins");
    let user_dir = plugins
        .iter()
        .filter_map(|(_, f)| f.parent())
        .any(|own| own == dir || (is_plugin_dir(own) && is_plugin_dir(dir) && dir.parent() == own.parent()));
    if user_dir {
        return Some(dir.to_path_buf());
    }
    let name = dir.file_name()?.to_str()?;
    let project = dir.parent()?;
    let parent = project.file_name()?.to_str()?;
    let (_, _, host) = PROJECT_PLUGIN_DIRS.iter().find(|(p, n, _)| *p == parent && *n == name)?;
    let installed = plugins.iter().any(|(h, _)| h == host);
    (installed && project.parent()?.join(".git").exists()).then(|| dir.to_path_buf())
}

/// The path with a `~` component (a word the analyser kept as written, joined to the directory
/// it ran in) read as the shell reads it: the home directory.
fn home_expanded(path: &Path, env: &Env) -> PathBuf {
    let mut components = path.components();
    let Some(home) = env.home() else { return path.to_path_buf() };
    while let Some(c) = components.next() {
        if c.as_os_str() == "~" {
            return home.join(components.as_path());
        }
    }
    path.to_path_buf()
}

/// The path with its existing part resolved (links followed), the rest kept as written.
fn canonical(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        let Some(name) = existing.file_name().map(ToOwned::to_owned) else { return path.to_path_buf() };
        rest.push(name);
        if !existing.pop() {
            return path.to_path_buf();
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    out
}

/// The first file at or under `path` that is codeguard's, and what it is.
fn ours_within(path: &Path) -> Option<(PathBuf, &'static str)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.is_file() {
        return what_is(path).map(|w| (path.to_path_buf(), w));
    }
    if !meta.is_dir() {
        return None;
    }
    walkdir::WalkDir::new(path)
        .follow_links(false)
        .into_iter()
        .take(MAX_FILES_UNDER)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .find_map(|e| what_is(e.path()).map(|w| (e.path().to_path_buf(), w)))
}

/// The user's git configuration files, resolved: `~/.gitconfig` and `$XDG_CONFIG_HOME/git/config`
/// (`~/.config/git/config`).
fn user_git_configs(env: &Env) -> Vec<PathBuf> {
    let Some(home) = env.home() else { return Vec::new() };
    let xdg = env
        .get("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".config"), PathBuf::from);
    vec![canonical(&home.join(".gitconfig")), canonical(&xdg.join("git/config"))]
}

/// Whether `file` is one of git's configuration files, which hold codeguard's settings
/// (`codeguard.skipGate`, `codeguard.strict`) and `core.hooksPath`: a repository's
/// `.git/config` and `config.worktree`, or one of the user's (`user`, see [`user_git_configs`]).
/// A direct write there is the same as the `git config` the gate refuses.
fn git_config_file(file: &Path, user: &[PathBuf]) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = file.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("");
    (name == "config" && parent == ".git") || name == "config.worktree" || user.iter().any(|p| p == file)
}

/// The agent hosts' own directories, whose settings files can switch every hook off
/// (`disableAllHooks`, a `hooks` table, a disabled-hooks list).
const HOST_DIRS: &[&str] = &[
    ".claude",
    ".gemini",
    ".qwen",
    ".codex",
    ".kimi",
    ".kimi-code",
    ".copilot",
    ".cursor",
    ".openhands",
    ".dsh",
    ".pi",
    "opencode",
    ".opencode",
    "kilo",
    ".kilo",
    ".kilocode",
    ".cline",
    ".clinerules",
];

/// When `file` is a settings file in an agent host's directory (project or user) and codeguard's
/// hooks are installed for that host — in the same directory, or in the user's directory of that
/// host —, what it is: a setting there can switch them off (`disableAllHooks` in a project's
/// `.claude/settings.local.json`, say), so it is the user's too. Reads only settings-like files
/// of those two directories, a bounded number.
fn switches_hooks(file: &Path, env: &Env) -> Option<String> {
    if !settings_like(file.file_name()?.to_str()?) {
        return None;
    }
    let host = file.ancestors().skip(1).take(2).find_map(|dir| {
        let d = dir.file_name()?.to_str()?;
        HOST_DIRS.contains(&d).then(|| (dir.to_path_buf(), d.to_owned()))
    })?;
    let (dir, dir_name) = host;
    // codeguard's file is in the directory, or in the one under it the host loads plugins,
    // extensions or hook scripts from (pi's settings beside `agent/extensions`).
    let installed = |d: &Path| {
        ["", "plugin", "plugins", "extensions", "hooks", "agent/extensions"].iter().any(|sub| {
            std::fs::read_dir(d.join(sub)).ok().is_some_and(|entries| {
                entries.filter_map(Result::ok).take(64).any(|e| what_is(&e.path()).is_some())
            })
        })
    };
    let user = env.home().map(|h| h.join(&dir_name));
    (installed(&dir) || user.as_deref().is_some_and(installed)).then(|| {
        format!("an agent host's settings ({dir_name}), where a setting can switch codeguard's hooks off")
    })
}

/// Whether a file's name could be one of codeguard's: a git hook (any hooks directory, under
/// the names git runs) or a settings/hooks file (JSON, TOML, YAML). Other files are not read.
fn candidate(file: &Path) -> bool {
    let Some(name) = file.file_name().and_then(|n| n.to_str()) else { return false };
    let hook = name.split('.').next().is_some_and(|stem| {
        crate::mode::GitHook::ALL.iter().any(|h| h.file_name() == stem)
            || matches!(stem, "post-commit" | "commit-msg")
    });
    // A plugin file, and any file of a `hooks` directory (Cline's scripts are named as events).
    let in_hooks_dir = file.parent().and_then(Path::file_name).is_some_and(|d| d == "hooks");
    hook || settings_like(name)
        || in_hooks_dir
        || [".js", ".mjs", ".ts"].iter().any(|ext| name.ends_with(ext))
}

/// Whether a file name is a settings file's (JSON, TOML, YAML).
fn settings_like(name: &str) -> bool {
    [".json", ".jsonc", ".toml", ".yaml", ".yml"].iter().any(|ext| name.ends_with(ext))
}

/// Whether a file is one of codeguard's: a git hook it wrote (its marker line), or an agent
/// host's settings or hooks file with its entries (`codeguard … hook <event> … --host <name>`).
fn what_is(file: &Path) -> Option<&'static str> {
    if !candidate(file) {
        return None;
    }
    let text = crate::files::read_prefix(file, 256 * 1024)?;
    if text.lines().any(|l| l == super::hook_script::MARKER) {
        return Some("a git hook codeguard installed");
    }
    if super::plugin::is_ours(&text) {
        return Some("an agent host's plugin running codeguard's hooks");
    }
    if super::dsh::holds_ours(&text) {
        return Some("dsh's patch layer inserting the bridge that runs codeguard's hooks");
    }
    (text.contains("codeguard") && text.contains(" hook ") && text.contains("--host "))
        .then_some("an agent host's settings holding codeguard's hooks")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_holding_a_plugin_or_hook_script_of_codeguards_is_its_own() {
        let home = tempfile::tempdir().expect("home");
        let env = Env::from_pairs([("HOME", home.path().to_str().expect("utf-8"))]);
        let hooks = serde_json::Map::new();
        for (dir, name, text) in [
            (
                "ext",
                "codeguard.js",
                super::super::plugin::text(crate::host::Host::Pi, crate::host::spec::PluginApi::Pi, &hooks),
            ),
            ("cline/hooks", "PreToolUse", super::super::plugin::script(crate::host::Host::Cline, &hooks, "")),
        ] {
            let dir = home.path().join(dir);
            std::fs::create_dir_all(&dir).expect("dir");
            std::fs::write(dir.join(name), text).expect("write");
            assert!(!touched(&[dir.join(name)], &env).is_empty(), "{name}");
            assert!(!touched(std::slice::from_ref(&dir), &env).is_empty(), "{}", dir.display());
        }
    }
}
