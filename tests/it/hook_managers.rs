//! codeguard's git hooks beside the real git hook managers (pre-commit 4.7.0, prek 0.5.11,
//! lefthook 2.2.2, husky 9.1.7) and a custom `core.hooksPath`, installed in both orders: the
//! manager's own hook and codeguard's gate both run and each can block a commit and a push,
//! re-running the manager's install keeps both, `uninstall --git-hooks` restores the exact files
//! the manager alone would have, and `doctor` reports a gate git does not run.
//!
//! The manager's hook blocks a file holding `MANAGER-STOP`; codeguard's gate blocks a `.env`
//! (its content-safety scan: no linter needed). Every process runs with an isolated `HOME`,
//! `XDG_CACHE_HOME`, `XDG_CONFIG_HOME` and `PRE_COMMIT_HOME`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{TestRepo, codeguard, git_env, git_in, real_tool};

/// The managers (and the plain `core.hooksPath` case) these tests pair codeguard with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manager {
    PreCommit,
    Prek,
    Lefthook,
    Husky,
    HooksPath,
}

/// The manager's hook: logs that it ran, fails on a file holding the stop marker (the marker is
/// spelled in two halves so the configuration does not match itself). `language: system` needs
/// no network: pre-commit 4.7.0 reads it as its new name `unsupported` without a warning, prek
/// 0.5.11 accepts both.
const PRE_COMMIT_CONFIG: &str = r#"repos:
- repo: local
  hooks:
  - id: manager-stop
    name: manager stop
    entry: sh -c 'echo ran >> "$HOME/manager.log"; ! grep -l "MANAGER""-STOP" "$@"' manager
    language: system
    stages: [pre-commit, pre-push]
"#;

const LEFTHOOK_CONFIG: &str = r#"pre-commit:
  commands:
    manager-stop:
      run: sh -c 'echo ran >> "$HOME/manager.log"; ! grep -l "MANAGER""-STOP" "$@"' manager {staged_files}
pre-push:
  commands:
    manager-stop:
      run: sh -c 'echo ran >> "$HOME/manager.log"; ! grep -l "MANAGER""-STOP" "$@"' manager {push_files}
"#;

/// A user's own hooks (husky's user scripts, or a `core.hooksPath` directory's scripts);
/// pre-push also records the ref lines it gets on stdin.
const OWN_PRE_COMMIT: &str = "#!/bin/sh\necho ran >> \"$HOME/manager.log\"\n! git diff --cached --name-only | xargs -r grep -l \"MANAGER\"\"-STOP\"\n";
const OWN_PRE_PUSH: &str = "#!/bin/sh\ncat >> \"$HOME/manager-stdin.log\"\necho ran >> \"$HOME/manager.log\"\n! git grep -q -e \"MANAGER\"\"-STOP\" HEAD --\n";

const PACKAGE_JSON: &str =
    "{\n  \"name\": \"demo\",\n  \"private\": true,\n  \"scripts\": {\n    \"prepare\": \"husky\"\n  }\n}\n";

/// One repository paired with one manager, with its own home.
struct Case {
    manager: Manager,
    tool: Option<PathBuf>,
    repo: TestRepo,
    home: tempfile::TempDir,
    origin: tempfile::TempDir,
}

impl Case {
    /// A repository whose first commit holds the manager's configuration (a clone of a project
    /// that uses the manager); panics when the manager is not installed.
    fn new(manager: Manager) -> Self {
        let tool = match manager {
            Manager::PreCommit => Some(real_tool("pre-commit")),
            Manager::Prek => Some(real_tool("prek")),
            Manager::Lefthook => Some(real_tool("lefthook")),
            Manager::Husky => Some(real_tool("husky")),
            Manager::HooksPath => None,
        };
        let case = Self {
            manager,
            tool,
            repo: TestRepo::new(),
            home: tempfile::tempdir().expect("home"),
            origin: tempfile::tempdir().expect("origin"),
        };
        case.repo.write("notes.txt", "hello\n");
        case.write_config();
        case.repo.commit_all("init");
        git_in(case.origin.path(), &["init", "-q", "--bare", "-b", "main"]);
        case.repo.git(&["remote", "add", "origin", case.origin.path().to_str().expect("utf-8")]);
        case
    }

    fn write_config(&self) {
        match self.manager {
            Manager::PreCommit | Manager::Prek => {
                self.repo.write(".pre-commit-config.yaml", PRE_COMMIT_CONFIG);
            }
            Manager::Lefthook => {
                self.repo.write("lefthook.yml", LEFTHOOK_CONFIG);
            }
            Manager::Husky => {
                self.repo
                    .write("package.json", PACKAGE_JSON)
                    .write(".husky/pre-commit", &OWN_PRE_COMMIT.replacen("#!/bin/sh\n", "", 1))
                    .write(".husky/pre-push", &OWN_PRE_PUSH.replacen("#!/bin/sh\n", "", 1));
            }
            Manager::HooksPath => {
                self.repo
                    .write("githooks/pre-commit", OWN_PRE_COMMIT)
                    .chmod_x("githooks/pre-commit")
                    .write("githooks/pre-push", OWN_PRE_PUSH)
                    .chmod_x("githooks/pre-push");
            }
        }
    }

    /// The isolated environment every process of the case runs with.
    fn env(&self) -> Vec<(&'static str, OsString)> {
        let home = self.home.path();
        let mut env: Vec<(&'static str, OsString)> =
            git_env().into_iter().map(|(k, v)| (k, OsString::from(v))).collect();
        env.extend([
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", home.into()),
            ("CODEGUARD_HOME", home.join(".codeguard").into()),
            ("XDG_CACHE_HOME", home.join(".cache").into()),
            ("XDG_CONFIG_HOME", home.join(".config").into()),
            ("PRE_COMMIT_HOME", home.join(".pre-commit").into()),
        ]);
        env
    }

    fn run(&self, program: &Path, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(self.repo.root())
            .env_clear()
            .envs(self.env())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()))
    }

    /// The manager's own install, as its users run it.
    fn manager_install(&self) {
        let tool = self.tool.as_deref();
        let out = match (self.manager, tool) {
            (Manager::PreCommit | Manager::Prek, Some(tool)) => {
                self.run(tool, &["install", "-t", "pre-commit", "-t", "pre-push"])
            }
            (Manager::Lefthook, Some(tool)) => self.run(tool, &["install"]),
            // What `npm install` runs through the `prepare` script.
            (Manager::Husky, Some(tool)) => self.run(tool, &[]),
            _ => self.run(Path::new("git"), &["config", "core.hooksPath", "githooks"]),
        };
        assert!(
            out.status.success(),
            "{:?} install: {}{}",
            self.manager,
            text(&out.stdout),
            text(&out.stderr)
        );
    }

    fn codeguard(&self, args: &[&str]) -> Output {
        let mut cmd = codeguard(self.home.path());
        cmd.envs(self.env()).current_dir(self.repo.root()).args(args);
        cmd.output().expect("codeguard")
    }

    fn install(&self) -> String {
        let out = self.codeguard(&["install", "--git-hooks"]);
        assert_eq!(out.status.code(), Some(0), "install: {}", text(&out.stderr));
        text(&out.stdout)
    }

    fn uninstall(&self) -> String {
        let out = self.codeguard(&["uninstall", "--git-hooks"]);
        assert_eq!(out.status.code(), Some(0), "uninstall: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// `doctor`'s git-hooks lines and whether it called the setup healthy.
    fn doctor(&self) -> (bool, Vec<String>) {
        let out = self.codeguard(&["doctor"]);
        let stdout = text(&out.stdout);
        let lines: Vec<String> =
            stdout.lines().filter(|l| l.contains("git-hooks ")).map(str::to_owned).collect();
        let healthy = out.status.code() == Some(0);
        assert_eq!(healthy, stdout.ends_with("codeguard doctor: healthy\n"), "{stdout}");
        (healthy, lines)
    }

    fn assert_doctor_ok(&self) {
        let (healthy, lines) = self.doctor();
        let all = || text(&self.codeguard(&["doctor"]).stdout);
        assert!(healthy, "{}", all());
        assert_eq!(lines.len(), 3, "{}", all());
        assert!(lines.iter().all(|l| l.starts_with("ok       git-hooks ")), "{lines:#?}");
    }

    fn git(&self, args: &[&str]) -> Output {
        self.run(Path::new("git"), args)
    }

    fn runs(&self) -> usize {
        std::fs::read_to_string(self.home.path().join("manager.log")).map_or(0, |t| t.lines().count())
    }

    /// Every file of the worktree (`.git` excluded) and of `.git/hooks`, with mode and bytes.
    fn files(&self) -> BTreeMap<PathBuf, (u32, String)> {
        use std::os::unix::fs::PermissionsExt;
        let root = self.repo.root();
        let walk = walkdir::WalkDir::new(&root).into_iter().filter_entry(|e| e.file_name() != ".git");
        let hooks = walkdir::WalkDir::new(root.join(".git/hooks")).into_iter();
        walk.chain(hooks)
            .map(|e| e.expect("walk"))
            .filter(|e| e.file_type().is_file() && e.path().extension().is_none_or(|x| x != "sample"))
            .filter(|e| !e.file_name().to_string_lossy().starts_with("clean-"))
            .map(|e| {
                let mode = e.metadata().expect("meta").permissions().mode();
                let rel = e.path().strip_prefix(&root).expect("rel").to_path_buf();
                (rel, (mode, text(&std::fs::read(e.path()).expect("read"))))
            })
            .collect()
    }

    /// Stages `path` with `content` and commits it through every hook.
    fn commit(&self, path: &str, content: &str) -> Output {
        self.repo.write(path, content);
        self.repo.git(&["add", "-f", path]);
        self.git(&["commit", "-q", "-m", path])
    }

    /// Drops the staged `path` after a blocked commit.
    fn drop_staged(&self, path: &str) {
        self.repo.git(&["rm", "-q", "--cached", path]);
        std::fs::remove_file(self.repo.path(path)).expect("rm");
    }

    /// Commits `path` without hooks and pushes through them; the commit is undone afterwards.
    fn push_with(&self, path: &str, content: &str) -> Output {
        self.repo.write(path, content);
        self.repo.git(&["add", "-f", path]);
        self.repo.git(&["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", path]);
        let out = self.git(&["push", "-q", "origin", "main"]);
        if !out.status.success() {
            // `--keep`, not `--hard`: codeguard's lines in husky's tracked scripts stay.
            self.repo.git(&["reset", "-q", "--keep", "HEAD~1"]);
        }
        out
    }

    /// Both the manager's hook and codeguard's gate run on a commit and on a push, and each can
    /// block either.
    fn assert_both_run_and_block(&self) {
        let runs = self.runs();
        let out = self.commit(&format!("clean-{runs}.txt"), "fine\n");
        let said = assert_passed(&out);
        assert!(said.contains("codeguard: commit checked — PASS"), "codeguard ran:\n{said}");
        assert!(self.runs() > runs, "the manager's pre-commit hook ran:\n{said}");

        let said = assert_blocked(&self.commit(".env", "TOKEN=abc\n"));
        assert!(said.contains("codeguard: commit blocked — 1 file must not be committed"), "{said}");
        self.drop_staged(".env");

        let said = assert_blocked(&self.commit("stop.txt", "MANAGER-STOP\n"));
        assert!(!said.contains("codeguard: commit blocked"), "the manager blocked, not codeguard:\n{said}");
        self.drop_staged("stop.txt");

        let runs = self.runs();
        let said = assert_passed(&self.git(&["push", "-q", "origin", "main"]));
        assert!(said.contains("codeguard: push checked — PASS"), "codeguard ran on push:\n{said}");
        assert!(self.runs() > runs, "the manager's pre-push hook ran:\n{said}");
        if matches!(self.manager, Manager::Husky | Manager::HooksPath) {
            let head = self.repo.git(&["rev-parse", "HEAD"]);
            let seen =
                std::fs::read_to_string(self.home.path().join("manager-stdin.log")).unwrap_or_default();
            assert!(
                seen.contains(&format!("refs/heads/main {}", head.trim())),
                "the ref lines reached the manager's hook too: {seen:?}"
            );
        }

        let said = assert_blocked(&self.push_with(".env", "TOKEN=abc\n"));
        assert!(said.contains("codeguard: push blocked"), "{said}");
        let said = assert_blocked(&self.push_with("stop.txt", "MANAGER-STOP\n"));
        assert!(!said.contains("codeguard: push blocked"), "the manager blocked, not codeguard:\n{said}");
    }
}

/// Asserts two file maps are equal, naming each file that differs.
fn assert_same(
    left: &BTreeMap<PathBuf, (u32, String)>,
    right: &BTreeMap<PathBuf, (u32, String)>,
    what: &str,
) {
    let keys: std::collections::BTreeSet<&PathBuf> = left.keys().chain(right.keys()).collect();
    let differ: Vec<String> = keys
        .into_iter()
        .filter(|k| left.get(*k) != right.get(*k))
        .map(|k| format!("{}:\n  now:      {:?}\n  expected: {:?}", k.display(), left.get(k), right.get(k)))
        .collect();
    assert!(differ.is_empty(), "{what}:\n{}", differ.join("\n"));
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_passed(out: &Output) -> String {
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "git was stopped:\n{said}");
    said
}

fn assert_blocked(out: &Output) -> String {
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_ne!(out.status.code(), Some(0), "git went ahead:\n{said}");
    said
}

/// What `install --git-hooks` prints when the manager was installed first.
fn expected_install(manager: Manager, root: &Path) -> String {
    let r = root.display();
    match manager {
        Manager::PreCommit | Manager::Prek => {
            let label = if manager == Manager::Prek { "prek" } else { "pre-commit" };
            format!(
                "codeguard: git hooks in {r}/.git/hooks\n  pre-commit: installed ({label}: {r}/.git/hooks/pre-commit.legacy)\n  pre-push: installed ({label}: {r}/.git/hooks/pre-push.legacy)\n  reference-transaction: installed\n"
            )
        }
        Manager::Lefthook => format!(
            "codeguard: git hooks in {r}/.git/hooks\n  pre-commit: installed (lefthook: {r}/lefthook-local.yml)\n  pre-push: installed (lefthook: {r}/lefthook-local.yml)\n  reference-transaction: installed\ncodeguard: note: {r}/lefthook-local.yml is lefthook's local configuration and names this machine's codeguard: keep it out of git (add it to .gitignore)\n"
        ),
        Manager::Husky => {
            let note = |hook: &str| {
                format!(
                    "codeguard: note: {r}/.husky/{hook} is a husky script git tracks: commit codeguard's lines to share the gate (a clone without codeguard gets a warning, not a blocked commit), or keep them as a local change (`git checkout`/`git reset --hard` drops them; `codeguard doctor` notices)\n"
                )
            };
            format!(
                "codeguard: git hooks in {r}/.husky/_\n  pre-commit: installed (husky: {r}/.husky/pre-commit)\n  pre-push: installed (husky: {r}/.husky/pre-push)\n  reference-transaction: installed\n{}{}",
                note("pre-commit"),
                note("pre-push")
            )
        }
        Manager::HooksPath => format!(
            "codeguard: git hooks in {r}/githooks\n  pre-commit: installed; the existing hook is kept as pre-commit.codeguard-chained and runs first\n  pre-push: installed; the existing hook is kept as pre-push.codeguard-chained and runs first\n  reference-transaction: installed\n"
        ),
    }
}

/// The manager first, then codeguard: both run and block; the manager's install again keeps
/// both; a second codeguard install changes nothing; uninstall gives back the manager's files.
fn manager_then_codeguard(manager: Manager) {
    let case = Case::new(manager);
    case.manager_install();
    let before = case.files();
    let said = case.install();
    assert_eq!(said, expected_install(manager, &case.repo.root()), "install says where codeguard joined");
    case.assert_doctor_ok();
    case.assert_both_run_and_block();

    case.manager_install();
    case.assert_doctor_ok();
    case.assert_both_run_and_block();
    let installed = case.files();
    let said = case.install();
    assert!(
        said.contains("pre-commit: already installed") && said.contains("pre-push: already installed"),
        "{said}"
    );
    assert_same(&case.files(), &installed, "a second install changes nothing");

    case.uninstall();
    assert_same(&case.files(), &before, "uninstall restores the manager's files byte for byte");
    let (healthy, lines) = case.doctor();
    assert!(healthy && lines.is_empty(), "nothing of codeguard's is left to check: {lines:#?}");
}

/// codeguard first (in a clone whose manager is configured but not installed yet), then the
/// manager's install: both run and block, the manager's install again keeps both, and uninstall
/// leaves exactly what the manager alone would have written.
fn codeguard_then_manager(manager: Manager) {
    let case = Case::new(manager);
    let alone = Case::new(manager);
    alone.manager_install();

    case.install();
    case.manager_install();
    // Where git no longer looks for codeguard's hooks, doctor says so and a new install fixes it:
    // `core.hooksPath` set by hand hides all of them; husky's carries no reference-transaction
    // hook, so only the backstop is gone.
    let hidden = match manager {
        Manager::HooksPath => Some((
            0,
            "PROBLEM  git-hooks pre-commit: git runs",
            ".git/hooks/pre-commit, which git does not run",
        )),
        Manager::Husky => Some((
            2,
            "PROBLEM  git-hooks reference-transaction: git runs no",
            "reference-transaction does not exist",
        )),
        Manager::PreCommit | Manager::Prek | Manager::Lefthook => None,
    };
    if let Some((line, starts, says)) = hidden {
        let (healthy, lines) = case.doctor();
        assert!(!healthy, "{lines:#?}");
        assert!(lines[line].starts_with(starts) && lines[line].contains(says), "{lines:#?}");
        case.install();
    }
    case.assert_doctor_ok();
    case.assert_both_run_and_block();
    case.manager_install();
    case.assert_doctor_ok();
    case.assert_both_run_and_block();

    case.uninstall();
    assert_same(&case.files(), &alone.files(), "uninstall leaves what the manager alone writes");
}

#[test]
fn pre_commit_then_codeguard() {
    manager_then_codeguard(Manager::PreCommit);
}

#[test]
fn codeguard_then_pre_commit() {
    codeguard_then_manager(Manager::PreCommit);
}

#[test]
fn prek_then_codeguard() {
    manager_then_codeguard(Manager::Prek);
}

#[test]
fn codeguard_then_prek() {
    codeguard_then_manager(Manager::Prek);
}

#[test]
fn lefthook_then_codeguard() {
    manager_then_codeguard(Manager::Lefthook);
}

#[test]
fn codeguard_then_lefthook() {
    codeguard_then_manager(Manager::Lefthook);
}

#[test]
fn husky_then_codeguard() {
    manager_then_codeguard(Manager::Husky);
}

#[test]
fn codeguard_then_husky() {
    codeguard_then_manager(Manager::Husky);
}

#[test]
fn core_hooks_path_then_codeguard() {
    manager_then_codeguard(Manager::HooksPath);
}

#[test]
fn codeguard_then_core_hooks_path() {
    codeguard_then_manager(Manager::HooksPath);
}

/// A manager that takes the hooks over after codeguard was installed hides the gate: doctor
/// names what git runs instead of codeguard's pre-commit (`expected(root)`: the whole line after
/// `PROBLEM  git-hooks pre-commit: `), and `install --git-hooks` again joins.
fn doctor_reports_a_hidden_gate(case: &Case, take_over: impl Fn(&Case), expected: impl Fn(&str) -> String) {
    case.install();
    case.assert_doctor_ok();
    take_over(case);
    let (healthy, lines) = case.doctor();
    assert!(!healthy, "{lines:#?}");
    let root = case.repo.root().display().to_string();
    assert_eq!(lines[0], format!("PROBLEM  git-hooks pre-commit: {}", expected(&root)));
    case.install();
    case.assert_doctor_ok();
    let said = assert_blocked(&case.commit(".env", "TOKEN=abc\n"));
    assert!(said.contains("codeguard: commit blocked"), "{said}");
}

const RUN_INSTALL: &str = "run `codeguard install --git-hooks`";

#[test]
fn doctor_reports_pre_commit_and_prek_install_force_dropping_the_gate() {
    for manager in [Manager::PreCommit, Manager::Prek] {
        let case = Case::new(manager);
        case.manager_install();
        let force = |case: &Case| {
            let tool = case.tool.as_deref().expect("tool");
            let out = case.run(tool, &["install", "-f", "-t", "pre-commit", "-t", "pre-push"]);
            assert!(out.status.success(), "{}", text(&out.stderr));
        };
        let label = if manager == Manager::Prek { "prek" } else { "pre-commit" };
        doctor_reports_a_hidden_gate(&case, force, |r| {
            format!(
                "git runs {label}'s {r}/.git/hooks/pre-commit, which does not run codeguard (no codeguard script at {r}/.git/hooks/pre-commit.legacy); codeguard's pre-commit gate is gone (other hooks of codeguard's are still installed) — {RUN_INSTALL}"
            )
        });
    }
}

#[test]
fn doctor_reports_lefthook_arriving_after_codeguard() {
    let case = Case::new(Manager::Lefthook);
    // The repository had no lefthook configuration when codeguard was installed.
    std::fs::remove_file(case.repo.path("lefthook.yml")).expect("rm");
    case.repo.git(&["commit", "-q", "-a", "-m", "no lefthook yet"]);
    let arrive = |case: &Case| {
        case.repo.write("lefthook.yml", LEFTHOOK_CONFIG);
        case.manager_install();
    };
    doctor_reports_a_hidden_gate(&case, arrive, |r| {
        format!(
            "git runs lefthook's {r}/.git/hooks/pre-commit, whose configuration has no codeguard command (lefthook never runs hooks it moved to pre-commit.old); codeguard's gate is installed in {r}/.git/hooks/pre-commit.old, which git does not run — {RUN_INSTALL}"
        )
    });
}

#[test]
fn doctor_reports_core_hooks_path_set_after_codeguard() {
    let case = Case::new(Manager::HooksPath);
    doctor_reports_a_hidden_gate(&case, Case::manager_install, |r| {
        format!(
            "git runs {r}/githooks/pre-commit, which is not codeguard's; codeguard's gate is installed in {r}/.git/hooks/pre-commit, which git does not run — {RUN_INSTALL}"
        )
    });
}

#[test]
fn doctor_reports_a_husky_script_rewritten_without_codeguard() {
    let case = Case::new(Manager::Husky);
    case.manager_install();
    // `husky init` writes its sample script over the user script.
    let init = |case: &Case| {
        case.repo.write(".husky/pre-commit", "npm test\n");
    };
    doctor_reports_a_hidden_gate(&case, init, |r| {
        format!(
            "git runs husky's {r}/.husky/_/pre-commit, which runs {r}/.husky/pre-commit without codeguard's lines; codeguard's pre-commit gate is gone (other hooks of codeguard's are still installed) — {RUN_INSTALL}"
        )
    });
}

#[test]
fn force_is_refused_beside_a_manager_and_stops_a_chained_hook() {
    let case = Case::new(Manager::PreCommit);
    case.manager_install();
    let before = case.files();
    let out = case.codeguard(&["install", "--git-hooks", "--force"]);
    assert_ne!(out.status.code(), Some(0), "refused");
    let said = text(&out.stderr);
    assert!(said.contains("--force replaces a hook that is not codeguard's, but"), "{said}");
    assert!(said.contains("pre-commit is pre-commit's: codeguard runs beside pre-commit's hooks"), "{said}");
    assert_same(&case.files(), &before, "a refused install writes nothing");

    // Without a manager, --force after a chained install stops running the chained hook.
    let case = Case::new(Manager::HooksPath);
    case.manager_install();
    let said = case.install();
    assert!(said.contains("the existing hook is kept as pre-commit.codeguard-chained"), "{said}");
    let runs = case.runs();
    assert_passed(&case.commit("a.txt", "fine\n"));
    assert!(case.runs() > runs, "the chained hook runs");
    let out = case.codeguard(&["install", "--git-hooks", "--force"]);
    let said = text(&out.stdout);
    assert!(
        said.contains(
            "pre-commit: installed; the existing hook no longer runs (kept as pre-commit.codeguard-replaced)"
        ),
        "{said}"
    );
    let runs = case.runs();
    assert_passed(&case.commit("stop.txt", "MANAGER-STOP\n"));
    assert_eq!(case.runs(), runs, "the replaced hook no longer runs");
    case.uninstall();
    assert_eq!(
        std::fs::read_to_string(case.repo.path("githooks/pre-commit")).expect("restored"),
        OWN_PRE_COMMIT
    );
}

#[test]
fn a_lefthook_local_file_that_configures_a_hook_is_refused_and_nothing_is_written() {
    let case = Case::new(Manager::Lefthook);
    case.manager_install();
    let local = "pre-commit:\n  commands:\n    mine:\n      run: echo mine\n";
    case.repo.write("lefthook-local.yml", local);
    let before = case.files();
    let out = case.codeguard(&["install", "--git-hooks"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(said.contains("lefthook-local.yml already configures pre-commit; add a `codeguard` command running `codeguard git-hook pre-commit` to it yourself"), "{said}");
    assert_same(&case.files(), &before, "a refused install writes nothing");
}

/// What an earlier codeguard left beside a manager: the manager's script renamed to
/// `<hook>.codeguard-chained` and codeguard's script in its place; a new install undoes that.
#[test]
fn an_earlier_install_that_chained_a_managers_script_is_repaired() {
    for manager in [Manager::PreCommit, Manager::Husky] {
        let case = Case::new(manager);
        let alone = Case::new(manager);
        alone.manager_install();
        case.manager_install();
        let hooks = case.repo.path(if manager == Manager::Husky { ".husky/_" } else { ".git/hooks" });
        for hook in ["pre-commit", "pre-push"] {
            std::fs::rename(hooks.join(hook), hooks.join(format!("{hook}.codeguard-chained"))).expect("mv");
        }
        if manager == Manager::Husky {
            // The earlier codeguard wrote its own script where husky's stub was.
            for hook in ["pre-commit", "pre-push"] {
                std::fs::write(hooks.join(hook), "#!/bin/sh\n# codeguard-managed-hook\nexit 0\n")
                    .expect("write");
            }
        } else {
            case.install();
            // … and pre-commit's install then moved codeguard's script to `.legacy`: every
            // commit failed ("installed in migration mode").
            case.manager_install();
            assert_blocked(&case.commit("a.txt", "fine\n"));
            case.repo.git(&["rm", "-q", "--cached", "a.txt"]);
        }
        let said = case.install();
        assert!(!said.contains("error"), "{said}");
        case.assert_doctor_ok();
        case.assert_both_run_and_block();
        case.uninstall();
        let mut now = case.files();
        now.remove(Path::new("a.txt"));
        assert_same(&now, &alone.files(), "uninstall leaves what the manager alone writes");
    }
}

/// Content written in the same call as the commit cannot be checked by the agent gate; when the
/// pre-commit hook git runs is pre-commit's or prek's, which always runs codeguard's `.legacy`
/// script first, git checks it at commit time, so the gate lets the call go ahead with a note;
/// a lefthook command or husky block can be skipped from outside, so there the call is refused.
#[test]
fn the_agent_gate_counts_a_gate_behind_pre_commit_as_installed_and_not_one_a_manager_can_skip() {
    for manager in [Manager::PreCommit, Manager::Prek, Manager::Lefthook, Manager::Husky] {
        let case = Case::new(manager);
        let command = "echo fine > written.txt && git add written.txt && git commit -m w";
        let gate = |id| crate::support::pre_tool_use(case.home.path(), &case.repo.root(), id, command, &[]);
        let before = gate("t-1");
        assert_eq!(
            before.status.code(),
            Some(2),
            "{manager:?}: no gate installed yet: {}",
            text(&before.stderr)
        );
        case.manager_install();
        case.install();
        let out = gate("t-2");
        if matches!(manager, Manager::Lefthook | Manager::Husky) {
            // `LEFTHOOK=0`, `HUSKY=0`, a `skip:` in the tracked config or a binary the hook cannot
            // find switch these off without a trace: git may never run the pre-commit gate. The
            // backstop is codeguard's own script, which they cannot switch off.
            assert_eq!(out.status.code(), Some(0), "{manager:?}: {}", text(&out.stderr));
            assert!(
                text(&out.stdout).contains("codeguard's git backstop (its reference-transaction hook)"),
                "{manager:?}: {}",
                text(&out.stdout)
            );
            let hooks = case.repo.path(if manager == Manager::Husky { ".husky/_" } else { ".git/hooks" });
            std::fs::remove_file(hooks.join("reference-transaction")).expect("rm backstop");
            let out = gate("t-3");
            assert_eq!(out.status.code(), Some(2), "{manager:?}: {}", text(&out.stdout));
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{manager:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("codeguard's git pre-commit hook is installed in this repository"),
            "{manager:?}: {}",
            text(&out.stdout)
        );
    }
}
