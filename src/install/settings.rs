//! Where each host keeps its settings, and changing that file safely: atomic replace keeping the
//! file's mode, a byte-exact backup of what was there before our first install, and an
//! uninstall that restores that backup when nothing but our entries changed. The same rules hold
//! for the hook entries and for the MCP server entry (`--mcp`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::hosts::{self, HostInstallError};
use crate::env::Env;
use crate::host::Host;
use crate::host::spec::UserFiles;

/// Suffix of the copy of a settings file as it was before codeguard first changed it.
pub(crate) const BACKUP_SUFFIX: &str = ".codeguard-backup";

/// Which of codeguard's registrations a settings change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The hook entries.
    Hooks,
    /// The MCP server entry (`--mcp`).
    Mcp,
}

/// What happened to a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Written (created or changed).
    Written,
    /// Already as it should be.
    Unchanged,
    /// Restored byte for byte from the backup.
    Restored,
    /// Removed: it held nothing but our entries.
    Removed,
    /// Dry run: this is what would change (a line diff).
    WouldChange(String),
}

/// A settings-file problem.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    /// The host's own rules.
    #[error("{0}")]
    Host(#[from] HostInstallError),
    /// No home directory to find user settings in.
    #[error("no home directory (HOME is not set); use --project DIR")]
    NoHome,
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The settings file of a host: the user's (`project` = None) or a project's.
pub(crate) fn path(host: Host, project: Option<&Path>, env: &Env) -> Result<PathBuf, SettingsError> {
    if let Some(dir) = project {
        return project_path(host, dir);
    }
    let home = env.home().ok_or(SettingsError::NoHome)?;
    Ok(match host {
        Host::Claude => home.join(".claude/settings.json"),
        Host::Codex => super::codex::home(env).unwrap_or_else(|| home.join(".codex")).join("hooks.json"),
        Host::Gemini => home.join(".gemini/settings.json"),
        Host::Kimi => kimi_path(Kimi::Code, env).ok_or(SettingsError::NoHome)?,
        Host::Copilot => home.join(".copilot/hooks/codeguard.json"),
        Host::Cursor => home.join(".cursor/hooks.json"),
        Host::OpenHands => home.join(".openhands/hooks.json"),
        // `QWEN_HOME` replaces the `.qwen` directory itself.
        Host::Qwen => match env.get("QWEN_HOME").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir).join("settings.json"),
            None => home.join(".qwen/settings.json"),
        },
        Host::Ari => home.join(".ari/config.toml"),
        // A plugin directory of codeguard's own: goose finds `hooks/hooks.json` in every
        // directory of `~/.agents/plugins` (`$GOOSE_PATH_ROOT/.agents/plugins` when set).
        Host::Goose => env
            .get("GOOSE_PATH_ROOT")
            .filter(|v| !v.is_empty())
            .map_or(home, PathBuf::from)
            .join(GOOSE_PLUGIN_HOOKS),
        // Plugin files of codeguard's own, in the directories the hosts load every file of.
        Host::Opencode => xdg_config(env, &home).join("opencode").join(OPENCODE_PLUGIN),
        Host::Kilo => xdg_config(env, &home).join("kilo").join(OPENCODE_PLUGIN),
        // Its hooks directory (`$CLINE_DIR/hooks`), a script per event: this is the
        // pre-tool-use one, [`paths`] names them all.
        Host::Cline => match env.get("CLINE_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir).join("hooks"),
            None => home.join(".cline/hooks"),
        }
        .join(event_file(host, crate::host::Event::PreToolUse)),
        Host::Pi => match env.get("PI_CODING_AGENT_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir).join(PI_EXTENSION),
            None => home.join(".pi/agent").join(PI_EXTENSION),
        },
        // codeguard's hooks file for dsh's bridge, in dsh's home (`crate::install::dsh`).
        Host::Dsh => super::dsh::home(env).ok_or(SettingsError::NoHome)?.join("codeguard-hooks.json"),
        Host::Zcode | Host::Neutral | Host::Continue => return Err(unsupported(host)),
    })
}

/// The name of a host's hook script for `event` (its own event name).
fn event_file(host: Host, event: crate::host::Event) -> &'static str {
    crate::host::spec(host).event_name(event).unwrap_or_else(|| event.claude_name())
}

/// `$XDG_CONFIG_HOME`, else `~/.config`.
fn xdg_config(env: &Env, home: &Path) -> PathBuf {
    env.get("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map_or_else(|| home.join(".config"), PathBuf::from)
}

/// codeguard's plugin for opencode and Kilo, under their config directories (a project's:
/// `.opencode`, `.kilo`).
const OPENCODE_PLUGIN: &str = "plugin/codeguard.js";
/// codeguard's extension for pi, under its agent directory (a project's: `.pi`).
const PI_EXTENSION: &str = "extensions/codeguard.js";

/// codeguard's plugin for goose, under the user's (or the project's) directory.
const GOOSE_PLUGIN_HOOKS: &str = ".agents/plugins/codeguard/hooks/hooks.json";

/// The two Kimi hosts: the same `[[hooks]]` format in different files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kimi {
    /// Kimi CLI (the `kimi-cli` package on `PyPI`): `$KIMI_SHARE_DIR/config.toml`, default `~/.kimi/config.toml`.
    Cli,
    /// Kimi Code CLI, its successor: `$KIMI_CODE_HOME/config.toml`, default
    /// `~/.kimi-code/config.toml`.
    Code,
}

impl Kimi {
    /// Both.
    pub(crate) const ALL: [Self; 2] = [Self::Cli, Self::Code];

    /// The variable that moves its data directory, and the default directory under `$HOME`.
    pub(crate) fn location(self) -> (&'static str, &'static str) {
        match self {
            Self::Cli => ("KIMI_SHARE_DIR", ".kimi"),
            Self::Code => ("KIMI_CODE_HOME", ".kimi-code"),
        }
    }

    /// Its name for people.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Cli => "Kimi CLI",
            Self::Code => "Kimi Code",
        }
    }
}

/// The config file a Kimi host really reads (its variable, else its default under `$HOME`).
pub(crate) fn kimi_path(kimi: Kimi, env: &Env) -> Option<PathBuf> {
    let (var, default) = kimi.location();
    match env.get(var).filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir).join("config.toml")),
        None => env.home().map(|h| h.join(default).join("config.toml")),
    }
}

/// Every settings file an install for `host` writes: for Kimi (user scope) the config of each
/// Kimi whose data directory exists or whose variable is set, both when neither is there yet;
/// for every other host its one file.
pub(crate) fn paths(host: Host, project: Option<&Path>, env: &Env) -> Result<Vec<PathBuf>, SettingsError> {
    match crate::host::spec(host).user_files {
        UserFiles::EachEvent => {
            let first = path(host, project, env)?;
            let dir = first.parent().map(Path::to_path_buf).unwrap_or_default();
            return Ok(crate::host::Event::ALL.iter().map(|e| dir.join(event_file(host, *e))).collect());
        }
        _ if project.is_some() => return Ok(vec![path(host, project, env)?]),
        UserFiles::One => return Ok(vec![path(host, project, env)?]),
        UserFiles::EachKimi => {}
    }
    let all: Vec<PathBuf> = Kimi::ALL.iter().filter_map(|k| kimi_path(*k, env)).collect();
    if all.is_empty() {
        return Err(SettingsError::NoHome);
    }
    let present: Vec<PathBuf> = Kimi::ALL
        .iter()
        .filter(|k| env.get(k.location().0).is_some_and(|v| !v.is_empty()))
        .filter_map(|k| kimi_path(*k, env))
        .chain(all.iter().filter(|p| p.parent().is_some_and(Path::is_dir)).cloned())
        .fold(Vec::new(), |mut acc, p| {
            if !acc.contains(&p) {
                acc.push(p);
            }
            acc
        });
    Ok(if present.is_empty() { all } else { present })
}

fn project_path(host: Host, dir: &Path) -> Result<PathBuf, SettingsError> {
    Ok(match host {
        Host::Claude => dir.join(".claude/settings.json"),
        Host::Codex => dir.join(".codex/hooks.json"),
        Host::Gemini => dir.join(".gemini/settings.json"),
        Host::Copilot => dir.join(".github/hooks/codeguard.json"),
        Host::Cursor => dir.join(".cursor/hooks.json"),
        Host::OpenHands => dir.join(".openhands/hooks.json"),
        Host::Qwen => dir.join(".qwen/settings.json"),
        Host::Goose => dir.join(GOOSE_PLUGIN_HOOKS),
        Host::Cline => dir.join(".clinerules/hooks").join(event_file(host, crate::host::Event::PreToolUse)),
        Host::Opencode => dir.join(".opencode").join(OPENCODE_PLUGIN),
        Host::Kilo => dir.join(".kilo").join(OPENCODE_PLUGIN),
        // Hosts whose project-level hooks would not run: why, and what to do instead.
        Host::Pi => {
            return Err(user_only(
                "pi loads a project's extensions (.pi/extensions) only when the run approves the project (`--approve`), and skips them silently otherwise: install with --user (its agent directory's extensions always load)",
            ));
        }
        Host::Ari => {
            return Err(user_only(
                "ari runs a project's hooks (.ari/config.toml) only after `ari trust` there, which codeguard cannot check: install with --user (~/.ari/config.toml), whose hooks ari always runs",
            ));
        }
        Host::Dsh => {
            return Err(user_only(
                "dsh's bridge reads one hooks file per run, named in the patch layer every profile loads: install with --user ($DSH_HOME/codeguard-hooks.json, default ~/.dsh)",
            ));
        }
        Host::Kimi => {
            return Err(user_only(
                "Kimi CLI and Kimi Code read hooks from their user config only (~/.kimi/config.toml or $KIMI_SHARE_DIR; ~/.kimi-code/config.toml or $KIMI_CODE_HOME): install with --user",
            ));
        }
        Host::Zcode | Host::Neutral | Host::Continue => return Err(unsupported(host)),
    })
}

/// A `--project` install refused for a host that would not run it, with `why`.
fn user_only(why: &str) -> SettingsError {
    SettingsError::Host(HostInstallError::Unsupported(why.to_owned()))
}

/// The file a host reads its MCP servers from: Claude's user config `~/.claude.json` or a
/// project's `.mcp.json`; Gemini's `settings.json`; Codex's `config.toml` (user or project).
pub(crate) fn mcp_path(host: Host, project: Option<&Path>, env: &Env) -> Result<PathBuf, SettingsError> {
    let base = match project {
        Some(dir) => dir.to_path_buf(),
        None => env.home().ok_or(SettingsError::NoHome)?,
    };
    // Which hosts codeguard registers with is `hosts::mcp_format`'s to say.
    hosts::mcp_format(host).map_err(SettingsError::Host)?;
    Ok(match (host, project.is_some()) {
        (Host::Claude, false) => base.join(".claude.json"),
        (Host::Claude, true) => base.join(".mcp.json"),
        (Host::Gemini, _) => base.join(".gemini/settings.json"),
        (Host::Codex, _) => base.join(".codex/config.toml"),
        _ => {
            return Err(SettingsError::Host(HostInstallError::Unsupported(format!(
                "no MCP settings for {}",
                host.name()
            ))));
        }
    })
}

fn unsupported(host: Host) -> SettingsError {
    match hosts::merged(host, None, Path::new("codeguard")) {
        Err(e) => SettingsError::Host(e),
        Ok(_) => {
            SettingsError::Host(HostInstallError::Unsupported(format!("{} cannot be installed", host.name())))
        }
    }
}

/// Installs (or, with `dry_run`, shows) our entries in the settings file at `path`.
pub(crate) fn install(
    kind: Kind,
    host: Host,
    path: &Path,
    exe: &Path,
    dry_run: bool,
) -> Result<Outcome, SettingsError> {
    write_change(path, dry_run, |old| {
        Ok(match kind {
            Kind::Hooks => hosts::merged(host, old, exe)?,
            Kind::Mcp => hosts::mcp_merged(host, old, exe)?,
        })
    })
}

/// Writes `new(old text)` to `path` (or, with `dry_run`, shows the diff), keeping a byte-exact
/// backup of the file as it was before codeguard first changed it.
pub(crate) fn write_change(
    path: &Path,
    dry_run: bool,
    new: impl FnOnce(Option<&str>) -> Result<String, SettingsError>,
) -> Result<Outcome, SettingsError> {
    let old = read(path)?;
    let new = new(old.as_deref())?;
    if old.as_deref() == Some(new.as_str()) || (old.is_none() && new.is_empty()) {
        return Ok(Outcome::Unchanged);
    }
    if dry_run {
        return Ok(Outcome::WouldChange(line_diff(old.as_deref().unwrap_or(""), &new)));
    }
    let backup = backup_path(path);
    // A plugin file of codeguard's own is rewritten whole: nothing of anyone else's to keep (and
    // a copy beside it could be loaded by the host as another plugin).
    if let (Some(old), false) = (old.as_ref().filter(|t| !super::plugin::is_ours(t)), backup.exists()) {
        write_atomic(&backup, old.as_bytes(), path)?;
    }
    write_atomic(path, new.as_bytes(), path)?;
    Ok(Outcome::Written)
}

/// Removes our entries; restores the pre-install bytes when nothing else changed since. The
/// backup is kept until it is restored (or the file removed), so that taking out hooks and the
/// MCP server from one file in two steps still ends with the original bytes.
pub(crate) fn uninstall(kind: Kind, host: Host, path: &Path) -> Result<Outcome, SettingsError> {
    let toml = match kind {
        Kind::Hooks => crate::host::spec(host).hooks_file.is_toml(),
        Kind::Mcp => hosts::mcp_format(host).is_ok_and(|f| f == hosts::McpFormat::Toml),
    };
    remove_change(path, toml, |current| {
        Ok(match kind {
            Kind::Hooks => hosts::stripped(host, current)?,
            Kind::Mcp => hosts::mcp_stripped(host, current)?,
        })
    })
}

/// Writes `stripped(current text)` to `path` (`None`: nothing but ours was there, the file
/// goes), restoring the backup instead when that is what the result says (`toml`: compared byte
/// for byte, else as JSON values).
pub(crate) fn remove_change(
    path: &Path,
    toml: bool,
    stripped: impl FnOnce(&str) -> Result<Option<String>, SettingsError>,
) -> Result<Outcome, SettingsError> {
    let Some(current) = read(path)? else { return Ok(Outcome::Unchanged) };
    let backup_file = backup_path(path);
    let backup = read(&backup_file)?;
    let stripped = stripped(&current)?;
    let outcome = match (&stripped, &backup) {
        (_, Some(original)) if same_content(toml, stripped.as_deref().unwrap_or(""), original) => {
            write_atomic(path, original.as_bytes(), path)?;
            Outcome::Restored
        }
        (None, _) => {
            std::fs::remove_file(path)
                .map_err(|source| SettingsError::Io { path: path.to_owned(), source })?;
            Outcome::Removed
        }
        (Some(text), _) if *text == current => Outcome::Unchanged,
        (Some(text), _) => {
            write_atomic(path, text.as_bytes(), path)?;
            Outcome::Written
        }
    };
    if backup.is_some() && matches!(outcome, Outcome::Restored | Outcome::Removed) {
        let _ = std::fs::remove_file(&backup_file);
    }
    Ok(outcome)
}

/// Whether two settings texts say the same (JSON compared as values, an empty `hooks` or
/// `mcpServers` object counting as absent — what stripping our entries can leave; TOML byte for
/// byte).
fn same_content(toml: bool, a: &str, b: &str) -> bool {
    if toml {
        return a == b;
    }
    let parse = |t: &str| {
        let mut value = if t.trim().is_empty() {
            serde_json::json!({})
        } else {
            serde_json::from_str::<serde_json::Value>(t).ok()?
        };
        if let Some(map) = value.as_object_mut() {
            map.retain(|k, v| {
                !(matches!(k.as_str(), "hooks" | "mcpServers" | "env")
                    && v.as_object().is_some_and(serde_json::Map::is_empty))
            });
        }
        Some(value)
    };
    parse(a).is_some_and(|x| parse(b) == Some(x))
}

fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

/// The file's text, `None` when it does not exist.
pub(crate) fn read(path: &Path) -> Result<Option<String>, SettingsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingsError::Io { path: path.to_owned(), source }),
    }
}

/// Writes atomically ([`crate::fs::write_atomic`], flushed), creating the directory, keeping the
/// mode of `mode_of` (0644 for a new file, 0755 for a new script).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], mode_of: &Path) -> Result<(), SettingsError> {
    // A hook script is a program (its host runs it with its `#!` interpreter either way).
    let new_mode = if bytes.starts_with(b"#!") { 0o755 } else { 0o644 };
    let how =
        crate::fs::Atomic::with_mode(crate::fs::mode_or(mode_of, new_mode)).parent(crate::fs::Parent::Create);
    crate::fs::write_atomic(path, bytes, how)
        .map_err(|source| SettingsError::Io { path: path.to_owned(), source })
}

/// A minimal line diff (`-` removed, `+` added), enough to review a settings change.
pub(crate) fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            let _ = writeln!(out, "+ {}", b[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "- {}", a[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_only_changed_lines() {
        assert_eq!(line_diff("a\nb\nc\n", "a\nx\nc\n"), "- b\n+ x\n");
        assert_eq!(line_diff("", "a\n"), "+ a\n");
    }
}
