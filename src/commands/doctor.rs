//! `codeguard doctor [--host H] [--format json]`: is this machine set up so the gate really runs?
//! For each installed host (user settings and the current project's): codeguard's hooks for
//! every event, a shell matcher that covers every shell tool name of the host, the exact
//! installed command blocking a smoke commit through the host's deny channel (run as the host
//! runs it, `sh -c`), and the host willing to load the file (Codex hook and project trust,
//! Gemini folder trust, the file each Kimi really reads); anything else is a named problem with
//! its fix. Also that the linters of the current project are on the PATH a GUI-launched host
//! would see (not just the shell's), that every trusted workspace is still the repository and the
//! commands that were trusted, and that the state directory is writable. In a repository where
//! codeguard's git hooks are installed anywhere, that the hooks git really runs (following
//! `core.hooksPath` and the hook manager's chain) run codeguard.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{DoctorArgs, Format};
use crate::env::Env;
use crate::host::spec::{SessionEnv, UserFiles};
use crate::host::{Event, Host};
use crate::install::{codex, gemini, git_hooks, hosts, session_hooks, settings};
use crate::outcome::Status;
use crate::output::Output;
use crate::trust::Standing;

/// The PATH a host started from a desktop launcher typically gets.
const GUI_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    Warning,
    Problem,
}

#[derive(Debug, Serialize)]
struct Check {
    name: String,
    status: Level,
    detail: String,
}

/// Runs `doctor`: exit 0 when healthy (warnings allowed), 1 when something is broken.
pub(super) fn run(args: &DoctorArgs, env: &Env) -> anyhow::Result<Output> {
    let hosts = match &args.host {
        Some(name) => {
            vec![Host::from_name(name).ok_or_else(|| super::UsageError(format!("unknown host `{name}`")))?]
        }
        None => Host::ALL.to_vec(),
    };
    let mut checks = Vec::new();
    for host in hosts {
        checks.extend(host_checks(host, env, args.host.is_some()));
    }
    checks.extend(git_hook_checks(env));
    checks.extend(linter_checks(env));
    checks.extend(trust_checks(env));
    checks.extend(variable_checks(env));
    checks.push(state_check(env));
    let healthy = checks.iter().all(|c| c.status != Level::Problem);
    let text = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(
                &serde_json::json!({"schema_version": crate::report::SCHEMA_VERSION, "healthy": healthy, "checks": checks}),
            )? + "\n"
        }
        Format::Human | Format::Sarif => render(&checks, healthy),
    };
    Ok(Output::stdout(
        text,
        crate::exit::EntryPoint::Doctor.status_code(if healthy { Status::Pass } else { Status::Fail }),
    ))
}

fn check(name: impl Into<String>, status: Level, detail: impl Into<String>) -> Check {
    Check { name: name.into(), status, detail: detail.into() }
}

/// Every settings file of a host that could hold our hooks: the user file(s) (for Kimi, each
/// Kimi's real file and its default) and the current project's, with the project it belongs to.
fn locations(host: Host, env: &Env) -> Vec<(PathBuf, Option<PathBuf>)> {
    let mut out: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut add = |path: PathBuf, project: Option<PathBuf>| {
        if !out.iter().any(|(p, _)| *p == path) {
            out.push((path, project));
        }
    };
    match crate::host::spec(host).user_files {
        UserFiles::EachKimi => {
            for kimi in settings::Kimi::ALL {
                if let Some(path) = settings::kimi_path(kimi, env) {
                    add(path, None);
                }
                if let Some(home) = env.home() {
                    add(home.join(kimi.location().1).join("config.toml"), None);
                }
            }
        }
        // A host with a script per event: every script reads the same, the pre-tool-use one
        // stands for them (`script_reach` names a missing one).
        UserFiles::One | UserFiles::EachEvent => {
            if let Ok(path) = settings::path(host, None, env) {
                add(path, None);
            }
        }
    }
    if let Some(project) = project_root()
        && let Ok(path) = settings::path(host, Some(&project), env)
    {
        add(path, Some(project));
    }
    out
}

/// The current repository's root (else the current directory), where project settings live.
fn project_root() -> Option<PathBuf> {
    let cwd = crate::env::current_dir().ok()?;
    let root = crate::intent::repository_at(&cwd).map_or(cwd, |(root, _)| root);
    Some(root.canonicalize().unwrap_or(root))
}

/// A host's installs, each checked for what the host really does with it: every event has a
/// hook, the shell matcher covers every shell tool name, the exact installed command blocks a
/// smoke commit through the host's deny channel, and the host will load the file (Codex hook
/// trust and project trust, Gemini folder trust, the Kimi file each Kimi really reads). Hosts
/// that were not asked about and have nothing installed are not reported.
fn host_checks(host: Host, env: &Env, asked: bool) -> Vec<Check> {
    let name = format!("host {}", host.name());
    if crate::host::spec(host).hooks_file == crate::host::spec::HooksFile::GitHooksOnly {
        return git_gate_checks(host, asked);
    }
    let mut out = Vec::new();
    let mut found = false;
    for (path, project) in locations(host, env) {
        let text = match settings::read(&path) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(e) => {
                out.push(check(&name, Level::Problem, e.to_string()));
                continue;
            }
        };
        let declared = hosts::declared(host, &text);
        if declared.is_empty() {
            continue;
        }
        found = true;
        out.extend(file_checks(host, &path, project.as_deref(), &text, &declared, env));
    }
    match crate::host::spec(host).user_files {
        UserFiles::EachKimi => out.extend(kimi_reach(env)),
        UserFiles::EachEvent => out.extend(script_reach(host, env)),
        UserFiles::One => {}
    }
    if found {
        out.push(backstop_check(host, env));
        out.push(bypass_check(host));
    }
    if !found && asked {
        let path = settings::path(host, None, env)
            .map_or_else(|_| "its settings".to_owned(), |p| p.display().to_string());
        out.push(check(
            name,
            Level::Problem,
            format!(
                "{path} does not exist or has no codeguard hooks: run `codeguard install --host {}`",
                host.name()
            ),
        ));
    }
    out
}

/// A host that runs no hook of its own is gated by codeguard's git hooks, per repository: in
/// force in the current one when git runs codeguard's reference-transaction backstop there (a
/// pre-commit hook alone is skipped by `--no-verify`, and no hook of the host's refuses that
/// first), else a problem when the host was asked about.
fn git_gate_checks(host: Host, asked: bool) -> Vec<Check> {
    let name = format!("host {}", host.name());
    let label = crate::host::spec(host).label;
    let root =
        crate::env::current_dir().ok().and_then(|cwd| crate::intent::repository_at(&cwd)).map(|(r, _)| r);
    let doors = root.as_deref().and_then(crate::install::hook_reach::doors);
    match (root, doors) {
        // Without a hook of its own, nothing refuses `--no-verify` before it runs: only the
        // backstop holds.
        (Some(root), Some(doors)) if doors.backstop => vec![
            check(
                name,
                Level::Ok,
                format!(
                    "{label} runs no hook of its own; the gate in force in {} is codeguard's git hooks ({}{}{})",
                    root.display(),
                    if doors.pre_commit { "pre-commit" } else { "" },
                    if doors.pre_commit && doors.backstop { ", " } else { "" },
                    if doors.backstop { "the reference-transaction backstop" } else { "" },
                ),
            ),
            check(
                format!("host {} push", host.name()),
                Level::Warning,
                format!(
                    "{label} runs no hook of its own, so nothing refuses `git push --no-verify` before it runs, which skips codeguard's pre-push hook: a commit that moved no branch (`git commit-tree`) can still be pushed"
                ),
            ),
        ],
        (root, _) if asked => vec![check(
            name,
            Level::Problem,
            match root {
                Some(root) => format!(
                    "{label} runs no hook of its own, and codeguard's reference-transaction backstop is not in force in {}: its commits (with `--no-verify`, at least) go ungated — run `codeguard install --host {}` there",
                    root.display(),
                    host.name()
                ),
                None => format!(
                    "{label} runs no hook of its own; its gate is codeguard's git hooks in each repository, and this directory is not in one: run `codeguard doctor --host {}` in the repository",
                    host.name()
                ),
            },
        )],
        _ => Vec::new(),
    }
}

/// Who decides an agent's one-shot lint bypass (`git -c codeguard.skipGate=true`): the user,
/// where the host can put a tool call to them; where it cannot, the bypass goes through and is
/// only recorded — a fact the user must know.
fn bypass_check(host: Host) -> Check {
    let name = format!("host {} lint bypass", host.name());
    let spec = crate::host::spec(host);
    if !spec.can_ask() {
        return check(
            name,
            Level::Warning,
            format!(
                "{} cannot ask you to confirm a command from a hook: an agent's `git -c codeguard.skipGate=true commit|push` goes through with the linters skipped (the safety scan still runs); every use is recorded and listed in the Stop summary and `codeguard state show`",
                spec.label
            ),
        );
    }
    check(
        name,
        Level::Ok,
        "an agent's `git -c codeguard.skipGate=true commit|push` with failing linters is put to you to confirm before it runs",
    )
}

/// Whether the git backstop stands for the host's agent shell: its mechanism names codeguard's
/// session hooks directory, and every script there is the one this codeguard writes.
fn backstop_check(host: Host, env: &Env) -> Check {
    let name = format!("host {} git backstop", host.name());
    let dir = session_hooks::dir(env);
    let (named, place) = match crate::host::spec(host).session_env {
        SessionEnv::None => {
            return check(
                name,
                Level::Warning,
                format!(
                    "{} gives codeguard no way to set its shell's git environment: the backstop is `codeguard install --git-hooks` in each repository",
                    crate::host::spec(host).label
                ),
            );
        }
        SessionEnv::SettingsEnv => {
            let files: Vec<PathBuf> = locations(host, env).into_iter().map(|(p, _)| p).collect();
            let named = files.iter().any(|p| {
                settings::read(p).ok().flatten().is_some_and(|t| session_hooks::json_arranged(&t, &dir))
            });
            (named, "the settings' `env`".to_owned())
        }
        SessionEnv::CodexShellPolicy => {
            let config = codex::config_path(env);
            let named = config
                .as_ref()
                .and_then(|p| settings::read(p).ok().flatten())
                .is_some_and(|t| session_hooks::codex_arranged(&t, &dir));
            (
                named,
                config.map_or_else(
                    || "config.toml".to_owned(),
                    |p| format!("{}'s [shell_environment_policy.set]", p.display()),
                ),
            )
        }
    };
    if !named {
        return check(
            name,
            Level::Warning,
            format!(
                "{place} does not name {} as git's core.hooksPath: the gate alone guards this host (it denies what it cannot predict) — run `codeguard install --host {}`",
                dir.display(),
                host.name()
            ),
        );
    }
    match session_hooks::problem(&dir) {
        None => check(
            name,
            Level::Ok,
            format!(
                "{place} names {} as git's core.hooksPath for the agent's shell: git judges every commit, tag and push there",
                dir.display()
            ),
        ),
        Some(why) => check(
            name,
            Level::Problem,
            format!(
                "{why}: git stops or skips the backstop — run `codeguard install --host {}` again",
                host.name()
            ),
        ),
    }
}

fn file_checks(
    host: Host,
    path: &Path,
    project: Option<&Path>,
    text: &str,
    declared: &[hosts::Declared],
    env: &Env,
) -> Vec<Check> {
    let name = format!("host {}", host.name());
    let spec = crate::host::spec(host);
    let fix = format!("run `codeguard install --host {}`", host.name());
    let mut out = Vec::new();
    let missing: Vec<&str> =
        Event::ALL.iter().filter(|e| !declared.iter().any(|d| d.event == **e)).map(|e| e.name()).collect();
    out.push(if missing.is_empty() {
        check(&name, Level::Ok, format!("{}: hooks for all five events", path.display()))
    } else {
        check(
            &name,
            Level::Problem,
            format!("{}: no codeguard hook for {} — {fix}", path.display(), missing.join(", ")),
        )
    });
    let pre: Vec<&hosts::Declared> = declared.iter().filter(|d| d.event == Event::PreToolUse).collect();
    for tool in spec.shell_tools {
        if !pre.is_empty() && !pre.iter().any(|d| spec.matcher.covers(d.matcher.as_deref(), tool)) {
            let matchers: Vec<&str> = pre.iter().filter_map(|d| d.matcher.as_deref()).collect();
            out.push(check(
                format!("{name} matcher"),
                Level::Problem,
                format!(
                    "{}: the pre-tool-use matcher `{}` does not cover `{tool}`, a shell tool of {}: its commands pass unchecked — {fix}",
                    path.display(),
                    matchers.join("`, `"),
                    spec.label
                ),
            ));
        }
    }
    let unguarded: Vec<&str> = spec
        .edit_tools
        .iter()
        .copied()
        .filter(|tool| {
            !pre.is_empty() && !pre.iter().any(|d| spec.matcher.covers(d.matcher.as_deref(), tool))
        })
        .collect();
    if !unguarded.is_empty() {
        out.push(check(
            format!("{name} matcher"),
            Level::Warning,
            format!(
                "{}: the pre-tool-use matcher does not cover {} ({}'s file-writing tools): their writes to codeguard's own files are not refused — {fix}",
                path.display(),
                unguarded.join(", "),
                spec.label
            ),
        ));
    }
    let mut commands: Vec<&str> = pre.iter().map(|d| d.command.as_str()).collect();
    commands.dedup();
    for command in commands {
        out.push(match smoke(host, command, env) {
            Ok(()) => {
                check(format!("{name} smoke"), Level::Ok, format!("`{command}` blocks an uncheckable commit"))
            }
            Err(why) => check(format!("{name} smoke"), Level::Problem, format!("`{command}` {why} — {fix}")),
        });
    }
    for program in hosts::our_programs(host, text) {
        let runnable = std::fs::metadata(&program).is_ok_and(|m| {
            m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
        });
        if !runnable {
            out.push(check(
                format!("{name} binary"),
                Level::Problem,
                format!("{program} is not an executable file: the host's hooks would fail open — reinstall"),
            ));
        }
    }
    out.extend(load_checks(host, path, project, text, env));
    out
}

/// Whether the host will load this file at all (its trust rules).
fn load_checks(host: Host, path: &Path, project: Option<&Path>, text: &str, env: &Env) -> Vec<Check> {
    let name = format!("host {} trust", host.name());
    let mut out = plugin_checks(host, env);
    match crate::host::spec(host).trust {
        crate::host::spec::Trust::None => {}
        crate::host::spec::Trust::CodexHookState => {
            let config_path = codex::config_path(env);
            let config =
                config_path.as_deref().and_then(|p| settings::read(p).ok().flatten()).unwrap_or_default();
            let shown = config_path.map_or_else(|| "config.toml".to_owned(), |p| p.display().to_string());
            let records = codex::records(path, text);
            let untrusted: Vec<String> = records
                .iter()
                .filter_map(|r| match codex::recorded(&config, &r.key) {
                    None => Some(format!("{} (not trusted)", r.key)),
                    Some((_, true)) => Some(format!("{} (disabled: enabled = false)", r.key)),
                    Some((hash, false)) if hash != r.hash => {
                        Some(format!("{} (modified since it was trusted)", r.key))
                    }
                    Some(_) => None,
                })
                .collect();
            out.push(if untrusted.is_empty() {
                check(&name, Level::Ok, format!("{} hooks recorded as reviewed in {shown}", records.len()))
            } else {
                check(
                    &name,
                    Level::Problem,
                    format!(
                        "Codex skips these hooks without a message, they are not trusted in {shown}: {} — run `codeguard install --host codex{}` (it records them as reviewed), or review them in Codex",
                        untrusted.join(", "),
                        project.map_or_else(String::new, |p| format!(" --project {}", p.display()))
                    ),
                )
            });
            if let Some(dir) = project
                && !codex::project_trusted(&config, dir)
            {
                out.push(check(
                    &name,
                    Level::Problem,
                    format!(
                        "Codex loads nothing from {}/.codex: the project is not trusted in {shown} — trust it in Codex, or install user-wide with `codeguard install --host codex --user`",
                        dir.display()
                    ),
                ));
            }
        }
        crate::host::spec::Trust::DshBridge => out.push(match crate::install::dsh::in_force(env, path) {
            Ok(why) => check(&name, Level::Ok, why),
            Err(why) => check(&name, Level::Problem, format!("dsh does not run {}: {why}", path.display())),
        }),
        crate::host::spec::Trust::GeminiFolder => {
            if let Some(dir) = project {
                out.push(match gemini::folder_trust(env, dir) {
                    gemini::FolderTrust::Trusted(why) => check(&name, Level::Ok, why),
                    gemini::FolderTrust::Untrusted(why) => check(
                        &name,
                        Level::Problem,
                        format!(
                            "Gemini CLI does not trust {} ({why}), so it ignores {}: run `codeguard install --host gemini --project {} --trust-folder`, or install with --user",
                            dir.display(),
                            path.display(),
                            dir.display()
                        ),
                    ),
                });
            }
        }
    }
    out
}

/// A host that runs a script per event runs ours only for the events whose script is there: each
/// one missing (or not codeguard's) is an event the host runs nothing of codeguard's for.
fn script_reach(host: Host, env: &Env) -> Vec<Check> {
    let scopes = [None, project_root()];
    let mut out = Vec::new();
    for project in &scopes {
        let Ok(paths) = settings::paths(host, project.as_deref(), env) else { continue };
        let ours = |p: &PathBuf| {
            settings::read(p).ok().flatten().is_some_and(|t| !hosts::declared(host, &t).is_empty())
        };
        if !paths.iter().any(ours) {
            continue;
        }
        let missing: Vec<String> =
            paths.iter().filter(|p| !ours(p)).map(|p| p.display().to_string()).collect();
        if !missing.is_empty() {
            out.push(check(
                format!("host {}", host.name()),
                Level::Problem,
                format!(
                    "no codeguard hook script at {}: {} runs nothing of codeguard's for that event — run `codeguard install --host {}`",
                    missing.join(", "),
                    crate::host::spec(host).label,
                    host.name()
                ),
            ));
        }
    }
    out
}

/// What a host that loads codeguard's plugin needs besides the file, and whether its plugins are
/// switched off for every run here (a variable; a flag on one run is the user's to see).
fn plugin_checks(host: Host, env: &Env) -> Vec<Check> {
    let crate::host::spec::HooksFile::JsPlugin(api) = crate::host::spec(host).hooks_file else {
        return Vec::new();
    };
    let name = format!("host {} plugin", host.name());
    let (pure, needs) = match api {
        crate::host::spec::PluginApi::Opencode => (
            Some(format!("{}_PURE", host.name().to_ascii_uppercase())),
            format!(
                "{} loads codeguard's plugin in its own process (no package needed: at every start it installs its own plugin package into its config directory, and `npm_config_offline=true` skips that offline); `--pure` starts it without any plugin",
                crate::host::spec(host).label
            ),
        ),
        crate::host::spec::PluginApi::Pi => (
            None,
            "pi loads codeguard's extension from its agent directory in every run (pi 1.6 needs Node 22.19 or later); `pi -ne` starts it without extensions".to_owned(),
        ),
    };
    let mut out = vec![check(&name, Level::Ok, needs)];
    if api == crate::host::spec::PluginApi::Pi
        && let Some(dir) =
            settings::path(host, None, env).ok().and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
        && let Some(excluded) = pi_excludes_codeguard(&dir.join("settings.json"))
    {
        out.push(check(
            &name,
            Level::Problem,
            format!(
                "{}: its `extensions` list leaves codeguard's extension out (`{excluded}`), so pi runs no gate — remove that entry",
                dir.join("settings.json").display()
            ),
        ));
    }
    if let Some(var) = pure.filter(|v| env.get(v).is_some_and(|x| !x.is_empty() && x != "0" && x != "false"))
    {
        out.push(check(
            &name,
            Level::Problem,
            format!("{var} is set here: the host starts without plugins, so codeguard's gate does not run"),
        ));
    }
    out
}

/// The entry of pi's `settings.json` `extensions` list that leaves codeguard's extension out, if
/// any, by pi's rules: `!PATTERN` a glob matched against the path relative to the agent
/// directory, the file name and the absolute path; `-PATH` an exact exclusion (relative or
/// absolute); `+PATH` an exact inclusion that wins over both.
fn pi_excludes_codeguard(settings: &Path) -> Option<String> {
    let text = settings::read(settings).ok().flatten()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let agent = settings.parent()?;
    let file = agent.join("extensions/codeguard.js");
    let relative = "extensions/codeguard.js";
    let absolute = file.display().to_string();
    let names = [relative, "codeguard.js", absolute.as_str()];
    let entries: Vec<&str> =
        value.get("extensions")?.as_array()?.iter().filter_map(serde_json::Value::as_str).collect();
    if entries.iter().any(|e| e.strip_prefix('+').is_some_and(|p| p == relative || p == absolute)) {
        return None;
    }
    entries
        .iter()
        .find(|e| match (e.strip_prefix('!'), e.strip_prefix('-')) {
            (Some(pattern), _) => globset::Glob::new(pattern)
                .map(|g| g.compile_matcher())
                .is_ok_and(|m| names.iter().any(|n| m.is_match(n))),
            (None, Some(path)) => path == relative || path == absolute,
            (None, None) => false,
        })
        .map(|e| (*e).to_owned())
}

/// Each Kimi reads one file (its variable, else its default): hooks in the other one do nothing.
fn kimi_reach(env: &Env) -> Vec<Check> {
    let Some(home) = env.home() else { return Vec::new() };
    let has_hooks = |p: &Path| {
        settings::read(p).ok().flatten().is_some_and(|t| !hosts::declared(Host::Kimi, &t).is_empty())
    };
    settings::Kimi::ALL
        .iter()
        .filter_map(|&kimi| {
            let real = settings::kimi_path(kimi, env)?;
            let default = home.join(kimi.location().1).join("config.toml");
            (real != default && !has_hooks(&real) && has_hooks(&default)).then(|| {
                check(
                    "host kimi reach",
                    Level::Problem,
                    format!(
                        "{} reads {} (${}), which has no codeguard hooks; the hooks in {} are not read — run `codeguard install --host kimi` with {} set as the host sees it",
                        kimi.label(),
                        real.display(),
                        kimi.location().0,
                        default.display(),
                        kimi.location().0
                    ),
                )
            })
        })
        .collect()
}

/// Runs an installed command as the host does (`sh -c`, payload on stdin) with this host's
/// pre-tool-use payload for `git commit` in an empty directory — a commit that cannot be
/// checked, which codeguard must block through the host's deny channel.
fn smoke(host: Host, command: &str, env: &Env) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("could not be tried: {e}"))?;
    let cwd = dir.path().canonicalize().unwrap_or_else(|_| dir.path().to_path_buf());
    let payload = smoke_payload(host, &cwd);
    let file = cwd.join("payload.json");
    std::fs::write(&file, payload.to_string()).map_err(|e| format!("could not be tried: {e}"))?;
    let vars: Vec<(String, std::ffi::OsString)> = env.vars().map(|(k, v)| (k.clone(), v.clone())).collect();
    let argv = vec![
        "/bin/sh".to_owned(),
        "-c".to_owned(),
        format!("{command} < \"$1\""),
        "sh".to_owned(),
        file.display().to_string(),
    ];
    let finished = crate::process::Cmd::new(argv, cwd, vars, std::time::Duration::from_secs(30)).run();
    let output = finished.text();
    let first = output.lines().next().unwrap_or("").chars().take(160).collect::<String>();
    let blocked = match (crate::host::spec(host).deny, &finished.ending) {
        (crate::host::spec::DenyChannel::ExitTwo, crate::process::Ending::Exited(2)) => {
            output.contains("codeguard")
        }
        (crate::host::spec::DenyChannel::JsonDeny, crate::process::Ending::Exited(0)) => {
            output.contains("deny") && output.contains("codeguard")
        }
        (crate::host::spec::DenyChannel::ReplaceCall, crate::process::Ending::Exited(0)) => {
            output.contains("overrideInput") && output.contains("codeguard")
        }
        (crate::host::spec::DenyChannel::Neutral, crate::process::Ending::Exited(1)) => {
            output.contains("\"deny\"")
        }
        _ => false,
    };
    if blocked {
        Ok(())
    } else {
        Err(format!(
            "did not block a commit it must block ({:?}, output: {})",
            finished.ending,
            if first.is_empty() { "nothing" } else { &first }
        ))
    }
}

/// The host's own pre-tool-use payload shape for `git commit -m smoke` in `cwd`.
fn smoke_payload(host: Host, cwd: &Path) -> serde_json::Value {
    let spec = crate::host::spec(host);
    let tool = spec.shell_tools.first().copied().unwrap_or("Bash");
    let command = "git commit -m codeguard-doctor-smoke";
    let id = format!("codeguard-doctor-{}", std::process::id());
    match host {
        Host::Copilot => {
            serde_json::json!({"sessionId": id, "cwd": cwd, "toolName": tool, "toolArgs": {"command": command}})
        }
        Host::Cursor => {
            serde_json::json!({"hook_event_name": "beforeShellExecution", "conversation_id": id, "command": command, "cwd": cwd})
        }
        Host::Cline => {
            serde_json::json!({"hookName": "tool_call", "taskId": id, "workspaceRoots": [cwd],
                "tool_call": {"id": id, "name": tool, "input": {"commands": [command]}}})
        }
        Host::Ari => {
            serde_json::json!({"event": "PreToolUse", "tool": tool, "input": {"command": command}, "session": id, "cwd": cwd})
        }
        Host::OpenHands => {
            serde_json::json!({"event_type": spec.event_name(Event::PreToolUse).unwrap_or(Event::PreToolUse.claude_name()), "session_id": id, "tool_name": tool, "tool_input": {"command": command}, "working_dir": cwd})
        }
        Host::Claude
        | Host::Codex
        | Host::Gemini
        | Host::Kimi
        | Host::Qwen
        | Host::Goose
        | Host::Opencode
        | Host::Kilo
        | Host::Pi
        | Host::Continue
        | Host::Dsh
        | Host::Zcode
        | Host::Neutral => {
            serde_json::json!({
            "hook_event_name": spec.event_name(Event::PreToolUse).unwrap_or(Event::PreToolUse.claude_name()),
            "session_id": id, "tool_use_id": id, "tool_name": tool, "tool_input": {"command": command}, "cwd": cwd})
        }
    }
}

/// The current repository's git hooks, when codeguard's gate is installed anywhere in it: for
/// each hook, whether what git runs (following `core.hooksPath` and the hook manager's chain)
/// runs codeguard. A gate git does not run is a problem.
fn git_hook_checks(env: &Env) -> Vec<Check> {
    let Ok(cwd) = crate::env::current_dir() else { return Vec::new() };
    let Ok(layout) = git_hooks::layout(&cwd) else { return Vec::new() };
    let recorded = crate::install::hook_reach::record_path(&crate::state::home(env), &layout).is_file();
    crate::install::hook_reach::reach(&layout, recorded)
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let status = if r.runs { Level::Ok } else { Level::Problem };
            check(format!("git-hooks {}", r.hook.file_name()), status, r.detail)
        })
        .collect()
}

/// The `CODEGUARD_*` variables set in this environment, each with what it does
/// (`env::VARIABLES`); `CODEGUARD_SKIP_GATE` is a warning: while it is set nothing is checked.
fn variable_checks(env: &Env) -> Vec<Check> {
    crate::env::VARIABLES
        .iter()
        .filter(|v| env.get(v.name).is_some_and(|value| !value.is_empty()))
        .map(|v| {
            let level = if v.name == "CODEGUARD_SKIP_GATE" { Level::Warning } else { Level::Ok };
            check(format!("variable {}", v.name), level, format!("set: {}", v.what))
        })
        .collect()
}

/// The current project's linters: on the shell's PATH, and on the PATH a GUI host sees.
fn linter_checks(env: &Env) -> Vec<Check> {
    let Ok(cwd) = crate::env::current_dir() else { return Vec::new() };
    let Some((root, _)) = crate::intent::repository_at(&cwd) else { return Vec::new() };
    let listing = crate::surface::listing(&root).unwrap_or_default();
    let Some((project, _)) = crate::project::Inventory::or_builtin(&root, &listing) else {
        return Vec::new();
    };
    let registry = &project.project.registry;
    let gui = Env::from_pairs([("PATH", GUI_PATH)]);
    // A language the project did not integrate (no config its linter requires) is skipped by
    // every check, never UNVERIFIED: its tool's absence is nothing to warn about.
    project
        .integrated()
        .filter_map(|lang| Some((lang, lang.lint_program()?)))
        .filter(|(_, program)| !program.starts_with('.'))
        .map(|(lang, program)| {
            let name = format!("linter {}", lang.id);
            match crate::tools::locate(registry, env, program) {
                Some(managed) => check(name, Level::Ok, format!("{} (managed)", managed.display())),
                None => linter_check(&lang.id, program, &lang.install_advice(registry), env, &gui, &root),
            }
        })
        .collect()
}

fn linter_check(id: &str, program: &str, hint: &str, env: &Env, gui: &Env, root: &Path) -> Check {
    let name = format!("linter {id}");
    match (env.which(program), gui.which(program)) {
        (None, _) => check(
            name,
            Level::Warning,
            format!(
                "`{program}` not found on PATH (install: {hint}); {id} checks in {} are UNVERIFIED",
                root.display()
            ),
        ),
        (Some(path), None) => check(
            name,
            Level::Warning,
            format!(
                "`{program}` is at {} but not on the PATH a desktop-launched host gets ({GUI_PATH}): link it into /usr/local/bin or start the host from a shell",
                path.display()
            ),
        ),
        (Some(path), Some(_)) => check(name, Level::Ok, path.display().to_string()),
    }
}

/// Every trusted workspace: still the repository that was trusted, with the commands that were
/// trusted? A stale trust is a problem (its commands silently stopped running); a workspace that
/// no longer exists is a warning.
fn trust_checks(env: &Env) -> Vec<Check> {
    crate::trust::decisions(env)
        .into_iter()
        .filter(|(_, decision)| decision.trusted)
        .map(|(root, _)| {
            let name = format!("trust {}", root.display());
            if !root.is_dir() {
                return check(name, Level::Warning, "no longer exists; nothing there is trusted");
            }
            let config = match crate::registry::ProjectConfig::load(&root) {
                Ok(config) => config,
                Err(e) => return check(name, Level::Warning, format!("{e}: its checks are UNVERIFIED")),
            };
            let standing = crate::trust::standing(env, &root, &config);
            let own: Vec<&str> = config.overridden_languages().collect();
            match standing {
                Standing::Trusted if own.is_empty() => {
                    check(name, Level::Ok, "trusted (its codeguard.json defines no commands of its own)")
                }
                Standing::Trusted => {
                    check(name, Level::Ok, format!("its own commands ({}) may run", own.join(", ")))
                }
                Standing::Untrusted => {
                    check(name, Level::Warning, "recorded as trusted but not found as a workspace")
                }
                Standing::Outdated | Standing::Replaced | Standing::CommandsChanged => {
                    check(name, Level::Problem, standing.problem(&root).unwrap_or_default())
                }
            }
        })
        .collect()
}

fn state_check(env: &Env) -> Check {
    let dir = crate::state::home(env);
    let probe = dir.join(".doctor-probe");
    match crate::fs::write_private(&probe, b"ok") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            check("state directory", Level::Ok, dir.display().to_string())
        }
        Err(e) => check("state directory", Level::Problem, format!("{} is not writable: {e}", dir.display())),
    }
}

fn render(checks: &[Check], healthy: bool) -> String {
    let mut out = String::new();
    for c in checks {
        let mark = match c.status {
            Level::Ok => "ok     ",
            Level::Warning => "warning",
            Level::Problem => "PROBLEM",
        };
        let _ = writeln!(out, "{mark}  {}: {}", c.name, c.detail);
    }
    let _ = writeln!(out, "codeguard doctor: {}", if healthy { "healthy" } else { "problems found" });
    out
}
