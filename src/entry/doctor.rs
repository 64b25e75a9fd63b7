//! `codeguard doctor [--host H] [--format json]`: is this machine set up so the gate really runs?
//! Checks that the binary each host would run resolves, that the host settings contain
//! codeguard's hooks for every event, that the linters of the current project are on the PATH
//! a GUI-launched host would see (not just the shell's), that every trusted workspace is still
//! the repository and the commands that were trusted, and that the state directory is writable.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::cli::{DoctorArgs, Format};
use crate::env::Env;
use crate::host::{Event, Host};
use crate::install::{hosts, settings};
use crate::registry::Registry;
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
pub fn run(args: &DoctorArgs, env: &Env) -> anyhow::Result<u8> {
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
    checks.extend(linter_checks(env));
    checks.extend(trust_checks(env));
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
    std::io::stdout().write_all(text.as_bytes()).context("writing the report")?;
    Ok(if healthy { crate::exit::PASS } else { crate::exit::FAIL })
}

fn check(name: impl Into<String>, status: Level, detail: impl Into<String>) -> Check {
    Check { name: name.into(), status, detail: detail.into() }
}

/// The host's user settings: our hooks present for every event, and their program runnable.
/// Hosts that were not asked about and have no settings file are not reported.
fn host_checks(host: Host, env: &Env, asked: bool) -> Vec<Check> {
    let name = format!("host {}", host.name());
    let Ok(path) = settings::path(host, None, env) else {
        return if asked {
            vec![check(name, Level::Warning, "no installable settings for this host")]
        } else {
            Vec::new()
        };
    };
    let text = match settings::read(&path) {
        Ok(Some(text)) => text,
        Ok(None) if asked => {
            return vec![check(
                name,
                Level::Problem,
                format!("{} does not exist: run `codeguard install --host {}`", path.display(), host.name()),
            )];
        }
        Ok(None) => return Vec::new(),
        Err(e) => return vec![check(name, Level::Problem, e.to_string())],
    };
    let installed = hosts::installed_events(host, &text);
    if installed.is_empty() && !asked {
        return Vec::new();
    }
    let missing: Vec<&str> = Event::ALL.iter().filter(|e| !installed.contains(e)).map(|e| e.name()).collect();
    let mut out = vec![if missing.is_empty() {
        check(&name, Level::Ok, format!("{}: hooks for all five events", path.display()))
    } else {
        check(
            &name,
            Level::Problem,
            format!(
                "{}: no codeguard hook for {} — run `codeguard install --host {}`",
                path.display(),
                missing.join(", "),
                host.name()
            ),
        )
    }];
    for program in hosts::our_programs(host, &text) {
        let runnable = std::fs::metadata(&program).is_ok_and(|m| {
            m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
        });
        out.push(if runnable {
            check(format!("{name} binary"), Level::Ok, program)
        } else {
            check(
                format!("{name} binary"),
                Level::Problem,
                format!("{program} is not an executable file: the host's hooks would fail open — reinstall"),
            )
        });
    }
    out
}

/// The current project's linters: on the shell's PATH, and on the PATH a GUI host sees.
fn linter_checks(env: &Env) -> Vec<Check> {
    let Ok(cwd) = std::env::current_dir() else { return Vec::new() };
    let Some((root, _)) = crate::intent::repository_at(&cwd) else { return Vec::new() };
    let Ok(registry) = Registry::builtin() else { return Vec::new() };
    let files = crate::surface::project_files(&root).unwrap_or_default();
    let facts = crate::files::root_facts(&root);
    let detected = crate::registry::detect_project(&registry, &files, &facts.names);
    let gui = Env::from_pairs([("PATH", GUI_PATH)]);
    detected
        .iter()
        .filter_map(|d| registry.get(&d.id))
        .filter_map(|lang| Some((lang, lang.lint_program()?)))
        .filter(|(_, program)| !program.starts_with('.'))
        .map(|(lang, program)| linter_check(&lang.id, program, &lang.install_hint, env, &gui, &root))
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
    match crate::state::write_private(&probe, b"ok") {
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
