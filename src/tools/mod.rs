//! Managed tools: codeguard's own copies of the registry's pinned tools, in
//! `CODEGUARD_HOME/tools/<name>-<version>/`.
//!
//! In: the registry's `tools` table and the environment. Out: installs, removals and listings,
//! and [`locate`]: the managed executable of a program, which the runner prefers to `PATH`.
//! An install is built beside its final place (`tools/.store/<name>-<version>.<random>/`: a
//! Python virtual environment — by `uv` when it is on `PATH`, else `python3 -m venv` and pip — or
//! an `npm install --prefix`), verified by running the tool's version command, marked complete,
//! and only then put into place by renaming a symlink onto `tools/<name>-<version>`; the whole
//! install holds the tool's lock, so two concurrent installs end with one good copy. A failure
//! removes the build: nothing half-installed is left.
//! Never: runs during a gate (hooks only [`locate`]), installs a system toolchain, or looks for a
//! tool inside the repository being checked (managed tools are codeguard's, not the project's).

pub(crate) mod provision;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::plan::{Action, Plan};
use crate::process::{Cmd, Ending};
use crate::registry::{Argv, ManagedTool, Registry, ToolSource};

/// The file a complete install holds (written after verification, before it is put into place).
const MARKER: &str = "codeguard-tool.json";

/// How long one installer step (venv, pip, npm) may take.
const STEP_DEADLINE: Duration = Duration::from_secs(600);

/// How long the version command of a new install may take.
const VERIFY_DEADLINE: Duration = Duration::from_secs(60);

/// How long an install waits for another process installing the same tool.
const LOCK_WAIT: Duration = Duration::from_secs(900);

/// The directory holding managed tools: `CODEGUARD_HOME/tools`.
pub(crate) fn dir(env: &Env) -> PathBuf {
    crate::state::home(env).join("tools")
}

/// Where a tool's install is (or would be): `tools/<name>-<version>`.
pub(crate) fn install_dir(env: &Env, tool: &ManagedTool) -> PathBuf {
    dir(env).join(tool.dir_name())
}

/// The executable `bin` of an install rooted at `root`.
fn executable(root: &Path, tool: &ManagedTool, bin: &str) -> PathBuf {
    match tool.source() {
        ToolSource::Pypi(_) => root.join("venv").join("bin").join(bin),
        ToolSource::Npm(_) => root.join("node_modules").join(".bin").join(bin),
    }
}

/// Whether the install at `root` is complete: marked, with every program executable.
fn complete(root: &Path, tool: &ManagedTool) -> bool {
    root.join(MARKER).is_file() && tool.bins.iter().all(|b| is_executable(&executable(root, tool, b)))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The managed executable of `program` (a bare program name), when codeguard manages the tool
/// providing it and its pinned version is installed and complete.
pub(crate) fn locate(registry: &Registry, env: &Env, program: &str) -> Option<PathBuf> {
    let tool = registry.managed_tool(program)?;
    let root = install_dir(env, tool);
    complete(&root, tool).then(|| executable(&root, tool, program))
}

/// Points `argv` at the managed executable of the tool it runs, when codeguard manages that tool
/// and has it installed: `ruff check …` becomes `<tools>/ruff-0.17.6/venv/bin/ruff check …`,
/// `npx --no-install eslint …` becomes `<tools>/eslint-…/node_modules/.bin/eslint …`. Returns
/// whether it did; other commands (and tools not installed) are left for `PATH`.
pub(crate) fn resolve_argv(argv: &mut Argv, registry: &Registry, env: &Env) -> bool {
    let Some(tool) = crate::registry::command_tool(argv).map(str::to_owned) else { return false };
    let Some(path) = locate(registry, env, &tool) else { return false };
    let Some(at) = argv.iter().position(|a| *a == tool) else { return false };
    argv.splice(..=at, [path.to_string_lossy().into_owned()]);
    true
}

/// How a plan entry runs the copy of its tool the project installed itself.
pub(crate) enum OwnTool {
    /// A program at this path (`.venv/bin/ruff`), standing for the tool's name in the command.
    Path {
        /// The tool's name in the command.
        tool: String,
        /// Where the project's copy is.
        path: String,
    },
    /// The command run through the project's runner: these words first (`bundle exec`).
    Runner(Vec<String>),
}

/// The tools the project at `workspace` installed itself, by plan entry — only when the user
/// trusted the workspace (its own programs run its code; an untrusted workspace's never run, and
/// never keep the managed copy from running). For each job: a `<dir>/<tool>` regular file of its
/// language's `project_bin_dirs` (`.venv/bin/ruff`, `node_modules/.bin/eslint`), else the
/// language's `project_runner` when the project's lock file pins the tool (`bundle exec rubocop`).
/// Trust is read only when there is something to trust.
pub(crate) fn trusted_own_tools(
    plan: &Plan,
    registry: &Registry,
    workspace: &Path,
    env: &Env,
    config: &crate::registry::ProjectConfig,
) -> BTreeMap<usize, OwnTool> {
    let own: BTreeMap<usize, OwnTool> = plan
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let Action::Run(job) = &entry.action else { return None };
            let lang = registry.get(&entry.language)?;
            let tool = job.invocations.first().and_then(|argv| crate::registry::command_tool(argv));
            let path = tool.and_then(|tool| {
                lang.project_bin_dirs
                    .iter()
                    .map(|dir| workspace.join(dir).join(tool))
                    .find(|path| std::fs::metadata(path).is_ok_and(|m| m.is_file()))
                    .map(|path| OwnTool::Path {
                        tool: tool.to_owned(),
                        path: path.to_string_lossy().into_owned(),
                    })
            });
            let runner = || {
                let runner = lang.project_runner.as_ref().filter(|r| runner_applies(workspace, r))?;
                let root = workspace.to_string_lossy();
                Some(OwnTool::Runner(runner.argv.iter().map(|a| a.replace("{root}", &root)).collect()))
            };
            path.or_else(runner).map(|own| (i, own))
        })
        .collect();
    if own.is_empty() || !crate::trust::is_trusted(env, workspace, config) {
        return BTreeMap::new();
    }
    own
}

/// Whether the project at `workspace` pins the tool its runner runs (the runner's file, a regular
/// file of at most 1 MiB, matches its pattern).
fn runner_applies(workspace: &Path, runner: &crate::registry::ProjectRunner) -> bool {
    let path = workspace.join(&runner.when.file);
    std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20)
        && std::fs::read_to_string(&path).is_ok_and(|text| runner.when.contains.is_match(&text))
}

/// Resolves every job of `plan` to the copy of its tool that runs: the project's own (`own`, from
/// [`trusted_own_tools`]), else codeguard's managed one, else the one on `PATH`.
///
/// The project's own: a bare program becomes its path (an `npx` command finds
/// `node_modules/.bin/<tool>` itself), or the command runs through its runner; the job is marked
/// as running repository content. A managed, installed tool: its invocations and its program
/// become the managed executable, with no probe (its install was verified), marked `managed` so
/// the report says which copy ran. Jobs already withheld stay withheld.
pub(crate) fn resolve(plan: &mut Plan, registry: &Registry, env: &Env, own: &BTreeMap<usize, OwnTool>) {
    for (i, entry) in plan.entries.iter_mut().enumerate() {
        let Action::Run(job) = &mut entry.action else { continue };
        match own.get(&i) {
            Some(OwnTool::Path { tool, path }) => {
                for argv in &mut job.invocations {
                    if argv.first() == Some(tool) {
                        argv[0].clone_from(path);
                    }
                }
                if job.program == *tool {
                    job.program.clone_from(path);
                }
                job.runs_repo_code = true;
                continue;
            }
            Some(OwnTool::Runner(prefix)) => {
                for argv in &mut job.invocations {
                    argv.splice(0..0, prefix.iter().cloned());
                }
                job.program.clone_from(&prefix[0]);
                job.runs_repo_code = true;
                continue;
            }
            None => {}
        }
        let Some(first) = job.invocations.first() else { continue };
        let mut program = first.clone();
        if !resolve_argv(&mut program, registry, env) {
            continue;
        }
        for argv in &mut job.invocations {
            resolve_argv(argv, registry, env);
        }
        job.program.clone_from(&program[0]);
        job.probe = None;
        job.managed = true;
    }
}

/// Whether the tool's pinned version is installed and complete.
pub(crate) fn is_installed(env: &Env, tool: &ManagedTool) -> bool {
    complete(&install_dir(env, tool), tool)
}

/// What an install did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Installed {
    /// It was installed now.
    New,
    /// It was already there (a no-op).
    Already,
}

/// Why an install failed: one line, and nothing of it is left behind.
#[derive(Debug, thiserror::Error)]
#[error("cannot install {tool} {version} ({requirement} from {registry}): {why}; nothing was installed")]
pub(crate) struct InstallError {
    /// The tool.
    pub tool: String,
    /// Its pinned version.
    pub version: String,
    /// The package as the installer was asked for it.
    pub requirement: String,
    /// `PyPI` or `npm`.
    pub registry: &'static str,
    /// What went wrong (the installer's last error line).
    pub why: String,
}

/// The name of a tool's package registry, for messages.
pub(crate) fn registry_name(tool: &ManagedTool) -> &'static str {
    match tool.source() {
        ToolSource::Pypi(_) => "PyPI",
        ToolSource::Npm(_) => "npm",
    }
}

/// Installs the tool's pinned version unless it is there already, under its lock.
pub(crate) fn install(env: &Env, tool: &ManagedTool) -> Result<Installed, InstallError> {
    let fail = |why: String| InstallError {
        tool: tool.name.clone(),
        version: tool.version.clone(),
        requirement: tool.requirement(),
        registry: registry_name(tool),
        why,
    };
    let tools = dir(env);
    let store = tools.join(".store");
    crate::fs::ensure_private_dir(&store).map_err(|e| fail(format!("{}: {e}", store.display())))?;
    let final_path = install_dir(env, tool);
    let _lock = crate::fs::lock(&final_path, LOCK_WAIT).map_err(|e| fail(e.to_string()))?;
    if complete(&final_path, tool) {
        return Ok(Installed::Already);
    }
    sweep_builds(&store, tool, &final_path);
    let build = tempfile::Builder::new()
        .prefix(&format!("{}.", tool.dir_name()))
        .tempdir_in(&store)
        .map_err(|e| fail(format!("{}: {e}", store.display())))?;
    build_into(build.path(), tool, env).map_err(fail)?;
    verify(build.path(), tool, env).map_err(fail)?;
    let marker = serde_json::json!({
        "name": tool.name,
        "version": tool.version,
        "requirement": tool.requirement(),
        "registry": registry_name(tool),
        "installed_ms": crate::state::now_ms(),
    });
    std::fs::write(build.path().join(MARKER), marker.to_string())
        .map_err(|e| fail(format!("writing the install marker: {e}")))?;
    // The symlink is renamed onto the final name: readers see the old state or the new one.
    let relative = Path::new(".store").join(build.path().file_name().unwrap_or_default());
    let link = tools.join(format!(".{}.link-{}", tool.dir_name(), std::process::id()));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&relative, &link).map_err(|e| fail(format!("{}: {e}", link.display())))?;
    if std::fs::symlink_metadata(&final_path).is_ok_and(|m| m.is_dir()) {
        // A directory in the way (not one of ours: ours are symlinks) is incomplete: replaced.
        let _ = std::fs::remove_dir_all(&final_path);
    }
    if let Err(e) = std::fs::rename(&link, &final_path) {
        let _ = std::fs::remove_file(&link);
        return Err(fail(format!("{}: {e}", final_path.display())));
    }
    let _ = build.keep();
    sweep_builds(&store, tool, &final_path);
    Ok(Installed::New)
}

/// Removes every installed version of the tool (the pinned one and older ones), under the
/// pinned version's lock. Returns the removed install directories.
pub(crate) fn remove(env: &Env, tool: &ManagedTool) -> std::io::Result<Vec<PathBuf>> {
    let tools = dir(env);
    let final_path = install_dir(env, tool);
    let _lock = crate::fs::lock(&final_path, LOCK_WAIT)?;
    let mut removed = Vec::new();
    for path in versions(env, tool) {
        remove_install(&path)?;
        removed.push(path);
    }
    sweep_builds(&tools.join(".store"), tool, &final_path);
    Ok(removed)
}

/// Installed versions of the tool other than the pinned one (left by an older codeguard).
pub(crate) fn stale_versions(env: &Env, tool: &ManagedTool) -> Vec<PathBuf> {
    let pinned = install_dir(env, tool);
    versions(env, tool).into_iter().filter(|p| *p != pinned).collect()
}

/// Removes one install: its symlink, then what it points to.
pub(crate) fn remove_install(path: &Path) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path)?;
        std::fs::remove_file(path)?;
        let target = path.parent().map_or(target.clone(), |p| p.join(&target));
        match std::fs::remove_dir_all(&target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    } else {
        std::fs::remove_dir_all(path)?;
    }
    Ok(())
}

/// Every install directory of the tool, any version (`tools/<name>-<version>`).
fn versions(env: &Env, tool: &ManagedTool) -> Vec<PathBuf> {
    let prefix = format!("{}-", tool.name);
    let Ok(entries) = std::fs::read_dir(dir(env)) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix(&prefix).is_some_and(|rest| {
                rest.starts_with(|c: char| c.is_ascii_digit())
                    && std::path::Path::new(&name).extension().is_none_or(|e| e != "lock")
            })
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// Removes builds of this tool's pinned version that no install points to: what an interrupted
/// install left. Called under the tool's lock, so no build of it is in progress.
fn sweep_builds(store: &Path, tool: &ManagedTool, final_path: &Path) {
    let live = std::fs::read_link(final_path).ok().and_then(|t| t.file_name().map(ToOwned::to_owned));
    let prefix = format!("{}.", tool.dir_name());
    let Ok(entries) = std::fs::read_dir(store) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(&prefix) && live.as_ref() != Some(&name) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The environment installers run with: the user's (proxies, index URLs, caches).
fn child_env(env: &Env) -> Vec<(String, OsString)> {
    env.vars().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Runs one installer step; `Err` holds its last error line.
fn step(argv: Vec<String>, cwd: &Path, env: &Env, what: &str) -> Result<(), String> {
    let cmd = Cmd::new(argv, cwd.to_path_buf(), child_env(env), STEP_DEADLINE);
    let argv = &cmd.argv;
    let done = cmd.run();
    match done.ending {
        Ending::Exited(0) => Ok(()),
        Ending::NotFound => Err(format!("`{}` not found on PATH (needed to {what})", argv[0])),
        Ending::TimedOut => {
            Err(format!("`{}` timed out after {} s", argv.join(" "), STEP_DEADLINE.as_secs()))
        }
        _ => Err(last_error_line(&done.text()).unwrap_or_else(|| format!("`{}` failed", argv.join(" ")))),
    }
}

/// Words of installer output that mean the package registry could not be reached.
const UNREACHABLE: &[&str] = &[
    "Connection refused",
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "Name or service not known",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No route to host",
];

/// What went wrong, from an installer's output, in one line: "the package registry is
/// unreachable" (with the network error) when it could not connect, else its last error line
/// (not a stack frame nor a pointer to a log file), else its last non-empty line.
fn last_error_line(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let unreachable = lines.iter().find_map(|l| UNREACHABLE.iter().find(|w| l.contains(*w)));
    if let Some(word) = unreachable {
        return Some(format!("the package registry is unreachable ({word}; offline, or a wrong index URL?)"));
    }
    let telling = |l: &&&str| {
        let lower = l.to_ascii_lowercase();
        let error =
            lower.starts_with("error") || lower.starts_with("npm error") || lower.starts_with("npm err!");
        let noise = ["a complete log", "code ", "errno ", "syscall ", "at "].iter().any(|n| {
            lower.trim_start_matches("npm error").trim_start_matches("npm err!").trim_start().starts_with(n)
        });
        error && !noise
    };
    let error = lines.iter().rev().find(telling);
    error.or(lines.last()).map(|l| crate::secrets::redact(l).chars().take(300).collect())
}

/// Builds the install in `root`.
fn build_into(root: &Path, tool: &ManagedTool, env: &Env) -> Result<(), String> {
    let text = |p: &Path| p.to_string_lossy().into_owned();
    match tool.source() {
        ToolSource::Pypi(_) => {
            let venv = root.join("venv");
            let python = venv.join("bin").join("python");
            if env.which("uv").is_some() {
                step(
                    vec!["uv".into(), "venv".into(), "--quiet".into(), text(&venv)],
                    root,
                    env,
                    "create a venv",
                )?;
                step(
                    vec![
                        "uv".into(),
                        "pip".into(),
                        "install".into(),
                        "--quiet".into(),
                        "--python".into(),
                        text(&python),
                        tool.requirement(),
                    ],
                    root,
                    env,
                    "install the package",
                )
            } else {
                pip_install(&venv, &python, &tool.requirement(), root, env)
            }
        }
        ToolSource::Npm(_) => step(
            vec![
                "npm".into(),
                "install".into(),
                "--prefix".into(),
                text(root),
                "--no-audit".into(),
                "--no-fund".into(),
                "--ignore-scripts".into(),
                "--loglevel=error".into(),
                "--fetch-retries=1".into(),
                "--fetch-retry-mintimeout=2000".into(),
                "--fetch-retry-maxtimeout=10000".into(),
                tool.requirement(),
            ],
            root,
            env,
            "install the package",
        ),
    }
}

/// `python3 -m venv` and pip: the venv is made without pip of its own, and `python3`'s pip
/// installs into it (`pip --python`, much faster than seeding every venv with pip); when that
/// pip is missing or too old for `--python`, the venv gets its own (`ensurepip`).
fn pip_install(venv: &Path, python: &Path, requirement: &str, root: &Path, env: &Env) -> Result<(), String> {
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
    step(
        [words(&["python3", "-m", "venv", "--without-pip"]), vec![text(venv)]].concat(),
        root,
        env,
        "create a venv",
    )?;
    let host_pip = [words(&["python3", "-m", "pip", "--python"]), vec![text(python)]].concat();
    let usable = step([host_pip.clone(), words(&["--version"])].concat(), root, env, "run pip").is_ok();
    let pip = if usable {
        host_pip
    } else {
        step(
            [vec![text(python)], words(&["-m", "ensurepip", "--default-pip"])].concat(),
            root,
            env,
            "seed pip",
        )?;
        [vec![text(python)], words(&["-m", "pip"])].concat()
    };
    let options = ["install", "--quiet", "--disable-pip-version-check", "--no-input", "--retries", "2"];
    step([pip, words(&options), vec![requirement.to_owned()]].concat(), root, env, "install the package")
}

/// Runs the new install's version command and checks every program it should provide.
fn verify(root: &Path, tool: &ManagedTool, env: &Env) -> Result<(), String> {
    if let Some(bin) = tool.bins.iter().find(|b| !is_executable(&executable(root, tool, b))) {
        return Err(format!("the package installed no `{bin}` program"));
    }
    let first = tool.bins.first().map_or("", String::as_str);
    let mut argv = vec![executable(root, tool, first).to_string_lossy().into_owned()];
    argv.extend(tool.version_args.iter().cloned());
    let done = Cmd::new(argv.clone(), root.to_path_buf(), child_env(env), VERIFY_DEADLINE).run();
    match done.ending {
        Ending::Exited(0) => Ok(()),
        _ => Err(format!(
            "its version command `{first} {}` failed: {}",
            tool.version_args.join(" "),
            last_error_line(&done.text()).unwrap_or_default()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_line_is_the_installer_s_last_error() {
        let pip = "WARNING: Retrying (Retry(total=1)) after connection broken\nERROR: Could not find a version that satisfies the requirement ruff==0.17.6 (from versions: none)\nERROR: No matching distribution found for ruff==0.17.6\n";
        assert_eq!(
            last_error_line(pip).as_deref(),
            Some("ERROR: No matching distribution found for ruff==0.17.6")
        );
        assert_eq!(last_error_line("just this\n\n").as_deref(), Some("just this"));
        let offline = "WARNING: Retrying after connection broken by 'NewConnectionError(... [Errno 111] Connection refused')'\nERROR: No matching distribution found for ruff==0.17.6\n";
        assert_eq!(
            last_error_line(offline).as_deref(),
            Some("the package registry is unreachable (Connection refused; offline, or a wrong index URL?)")
        );
        let npm = "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found\nnpm error A complete log of this run can be found in: /x.log\n";
        assert_eq!(
            last_error_line(npm).as_deref(),
            Some("npm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found")
        );
        assert_eq!(last_error_line(""), None);
    }

    /// Makes `tool` look installed under `env`'s home: its programs (scripts) and the marker.
    fn fake_install(env: &Env, tool: &ManagedTool) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let root = install_dir(env, tool);
        for bin in &tool.bins {
            let path = executable(&root, tool, bin);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        std::fs::write(root.join(MARKER), "{}").expect("marker");
        root
    }

    #[test]
    fn resolving_points_commands_and_npx_at_the_managed_copy_and_leaves_the_rest() {
        let home = tempfile::tempdir().expect("home");
        let env = crate::state::test_env(home.path());
        let registry = Registry::builtin().expect("registry");
        let ruff = fake_install(&env, registry.managed_tool("ruff").expect("ruff"));
        let eslint = fake_install(&env, registry.managed_tool("eslint").expect("eslint"));
        let argv = |words: &[&str]| -> Argv { words.iter().map(|w| (*w).to_owned()).collect() };
        let path = |p: PathBuf| p.to_string_lossy().into_owned();
        let mut lint = argv(&["ruff", "check", "--no-fix", "a.py"]);
        assert!(resolve_argv(&mut lint, &registry, &env));
        assert_eq!(
            lint,
            [path(ruff.join("venv/bin/ruff")), "check".into(), "--no-fix".into(), "a.py".into()]
        );
        let mut npx = argv(&["npx", "--no-install", "eslint", "a.js"]);
        assert!(resolve_argv(&mut npx, &registry, &env));
        assert_eq!(npx, [path(eslint.join("node_modules/.bin/eslint")), "a.js".into()]);
        for other in
            [&["shellcheck", "a.sh"][..], &["cargo", "clippy"][..], &["bash", "-c", "ruff check ."][..]]
        {
            let mut unchanged = argv(other);
            assert!(!resolve_argv(&mut unchanged, &registry, &env), "{other:?}");
            assert_eq!(unchanged, argv(other));
        }
    }

    #[test]
    fn nothing_is_located_before_an_install_is_complete() {
        let home = tempfile::tempdir().expect("home");
        let env = crate::state::test_env(home.path());
        let registry = Registry::builtin().expect("registry");
        assert_eq!(locate(&registry, &env, "ruff"), None);
        let tool = registry.managed_tool("ruff").expect("ruff");
        let root = install_dir(&env, tool);
        let bin = root.join("venv/bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::write(bin.join("ruff"), "#!/bin/sh\n").expect("write");
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(bin.join("ruff"), std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        assert_eq!(locate(&registry, &env, "ruff"), None, "no marker: incomplete");
        std::fs::write(root.join(MARKER), "{}").expect("marker");
        assert_eq!(locate(&registry, &env, "ruff"), Some(bin.join("ruff")));
        assert_eq!(locate(&registry, &env, "cargo"), None, "not managed");
    }
}
