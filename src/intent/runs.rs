//! What a command runs besides git: scripts on disk (read and analysed, within bounds), known
//! programs that commit or push (release tools, `npm version`, package scripts through
//! `programs.rs`), aliases, and code that cannot be seen into (its repository is unverified).

use std::path::Path;

use super::{
    AliasCall, Event, FileWrite, GitCall, Interpreter, MAX_HOPS, Program, ProgramRun, Resolver, ScriptRun,
    Severity, Unreadable, WriteKind, Written, bash, normalise, programs, read_script,
};

impl Resolver {
    pub(super) fn script(&mut self, run: &ScriptRun, base: &Path) {
        let text_looks = bash::looks_like(&run.text);
        let dir = match self.locate(base, &run.dir) {
            Ok(d) => d,
            Err(why) => {
                let reason =
                    format!("script `{}` runs from a directory only known at run time ({why})", run.path);
                self.opaque_event(reason, text_looks, &[], base, Severity::Unverified);
                return;
            }
        };
        let path = normalise(&dir.join(&run.path));
        let from_command = match self.written.get(&path) {
            Some(Written::Known(body)) => Some(Ok(body.clone())),
            Some(Written::Unknown(how)) => {
                let reason = format!(
                    "script `{}` is written by this same command ({how}) with content only known at run time",
                    path.display()
                );
                self.unknown_code(reason, &dir);
                return;
            }
            Some(Written::Deleted) => Some(Err(Unreadable::Deleted)),
            None => None,
        };
        let body = match from_command.unwrap_or_else(|| read_script(&path)) {
            Ok(body) => body,
            Err(why) => {
                // A binary, or a file not readable as text: it may write any file.
                self.unseen_writes(&run.path, &dir);
                if text_looks.is_some() {
                    let reason = format!("script `{}` could not be read ({why})", path.display());
                    self.opaque_event(reason, text_looks, &[], &dir, Severity::Unverified);
                }
                return;
            }
        };
        let interpreter = match run.interpreter {
            // A file without a `#!` line is run by the shell (execve fails, the shell reads it).
            Interpreter::Shebang if !body.starts_with("#!") => Some(Interpreter::Shell),
            Interpreter::Shebang => Interpreter::from_shebang(body.lines().next().unwrap_or_default()),
            known @ (Interpreter::Shell | Interpreter::Python | Interpreter::Node) => Some(known),
        };
        let body_looks = if body.contains("git") { bash::looks_like(&body) } else { None };
        // A script run by a project file's command line (`"release": "./release.sh"`) is the
        // one level that is read; deeper ones are not.
        let from_program = self.program_level > 0 && run.depth <= 1;
        if run.depth >= 1 && !from_program {
            if let Some(mode) = body_looks {
                let reason = format!(
                    "script `{}` is run from inside an indirect command and mentions git {}: more than one level of indirection is not modelled",
                    path.display(),
                    mode.as_str()
                );
                self.opaque_event(reason, Some(mode), &[], &dir, Severity::Block);
            }
            return;
        }
        if self.hops >= MAX_HOPS {
            let reason = format!(
                "script `{}` is reached through {MAX_HOPS} scripts and project-file programs: deeper chains are not followed",
                path.display()
            );
            self.unknown_code(reason, &dir);
            return;
        }
        if let Some(kind) = interpreter {
            let inner = bash::analyse_script(&body, kind);
            let level = std::mem::replace(&mut self.program_level, 0);
            self.hops += 1;
            self.expand(&inner, &dir, Some(&path));
            self.hops -= 1;
            self.program_level = level;
            if inner.parse_error.is_some() && inner.mode().is_some() {
                let reason = format!("script `{}` could not be parsed exactly", path.display());
                self.opaque_event(reason, inner.mode(), &[], &dir, Severity::Unverified);
            }
        } else {
            // Not read into: it may write any file before a later step stages it.
            self.unseen_writes(&run.path, &dir);
            if let Some(mode) = body_looks {
                let reason = format!(
                    "script `{}` is not a shell, Python or Node script and mentions git {}: it cannot be modelled",
                    path.display(),
                    mode.as_str()
                );
                self.opaque_event(reason, Some(mode), &[], &dir, Severity::Unverified);
            }
        }
    }

    /// A program run from `dir` whose writes cannot be named (`program`, for messages).
    pub(super) fn unseen_writes(&mut self, program: &str, dir: &Path) {
        let write = FileWrite {
            path: None,
            dir: Vec::new(),
            kind: WriteKind::Modify,
            text: program.to_owned(),
            home_rest: None,
        };
        self.write(&write, dir);
    }

    /// Code that runs in `dir` but cannot be seen (a program's script named at run time, a
    /// script the command writes with content only known at run time): it may stage anything,
    /// commit and push. Unverified with `reason`; in a repository, the surface takes every
    /// change and the branch's unpushed commits.
    pub(super) fn unknown_code(&mut self, reason: String, dir: &Path) {
        // Bound in a repository, the opaque event marks it `opaque`: its surface then takes every
        // change first and, the mode being push, the branch's unpushed commits too.
        self.opaque_event(reason, Some(crate::mode::Mode::Push), &[], dir, Severity::Unverified);
    }

    /// A program that runs commands from a project file: reads the file (one level, bounded)
    /// and follows the command lines it would run, from the directory they run in.
    pub(super) fn program(&mut self, run: &ProgramRun, base: &Path) {
        let dir = match self.locate(base, &run.dir) {
            Ok(d) => d,
            Err(why) => {
                let reason = format!("`{}` runs from a directory only known at run time ({why})", run.text);
                self.unknown_code(reason, base);
                return;
            }
        };
        if self.program_level >= 2 || self.hops >= MAX_HOPS {
            let reason = format!(
                "`{}` is run by a command of a project file run by another one: more than two levels are not followed",
                run.text
            );
            self.unknown_code(reason, &dir);
            return;
        }
        self.program_level += 1;
        self.hops += 1;
        let unreadable = |why: String| format!("`{}` cannot be followed: {why}", run.text);
        match &run.program {
            Program::PackageScript { script, .. } => match programs::package_script(&dir, script) {
                Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                Ok(None) => {}
                Err(why) => {
                    self.unknown_code(unreadable(why), &dir);
                }
            },
            Program::PackageLifecycle { event, .. } => match programs::package_lifecycle(&dir, event) {
                Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                Ok(None) => {}
                Err(why) => self.unknown_code(unreadable(why), &dir),
            },
            Program::PackageVersion { manager, git_tag, no_commit_hooks } => {
                match programs::package_version(&dir, *manager, *git_tag) {
                    Ok(Some(plan)) => self.version(run, &plan, *no_commit_hooks),
                    Ok(None) => {}
                    Err(why) => {
                        self.unknown_code(unreadable(why), &dir);
                    }
                }
            }
            Program::Make { file, targets, overrides, dry_run } => {
                match programs::make(&dir, file.as_deref(), targets, overrides, *dry_run) {
                    Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                    Ok(None) => {}
                    Err(why) => {
                        self.unknown_code(unreadable(why), &dir);
                    }
                }
            }
            Program::Just { file, recipes, dry_run } => {
                if !*dry_run {
                    match programs::just(&dir, file.as_deref(), recipes) {
                        Ok(Some(plan)) => self.run_plan(&plan.lines, &plan.dir, &plan.file),
                        Ok(None) => {}
                        Err(why) => self.unknown_code(unreadable(why), &dir),
                    }
                }
            }
            Program::Dynamic(why) => {
                let reason = format!("{why}: what it runs is only known at run time");
                self.unknown_code(reason, &dir);
            }
        }
        self.hops -= 1;
        self.program_level -= 1;
    }

    /// `npm version`: its `preversion`/`version` scripts, the rewrite of `package.json`, its own
    /// `git add` + `git commit` (unless git tagging is off), then `postversion`.
    pub(super) fn version(&mut self, run: &ProgramRun, plan: &programs::VersionPlan, no_commit_hooks: bool) {
        let root = plan.before_commit.dir.clone();
        let file = plan.before_commit.file.clone();
        for f in &plan.files {
            let write = FileWrite {
                path: Some(f.clone()),
                dir: Vec::new(),
                kind: WriteKind::Modify,
                text: format!("{} (rewrites {f})", run.text),
                home_rest: None,
            };
            self.write(&write, &root);
        }
        self.run_plan(&plan.before_commit.lines, &root, &file);
        if plan.commits {
            let call = |op: bash::GitOp, what: &str| GitCall {
                op,
                dir: Vec::new(),
                chain: run.chain,
                depth: 1,
                inline_skip_gate: false,
                notes: Vec::new(),
                env: bash::GitEnv::default(),
                text: format!("{} ({what})", run.text),
            };
            let add = bash::GitOp::Add {
                pathspecs: plan.files.clone(),
                all: false,
                update: false,
                force: false,
                interactive: false,
                pathspec_from_file: false,
                dry_run: false,
                intent_to_add: false,
                dynamic: false,
            };
            let commit = bash::GitOp::Commit {
                all: false,
                only_paths: Vec::new(),
                include: false,
                amend: false,
                no_verify: no_commit_hooks,
                interactive: false,
                pathspec_from_file: false,
                dynamic: false,
            };
            for (op, what) in [(add, "its own git add"), (commit, "its own git commit and tag")] {
                self.events.push(Event::Git { call: call(op, what), base: root.clone(), indirect: true });
            }
        }
        self.run_plan(&plan.after_commit, &root, &file);
    }

    /// Follows the command lines of a project file, each as its own shell, from `dir`.
    pub(super) fn run_plan(&mut self, lines: &[(String, String)], dir: &Path, file: &Path) {
        for (label, line) in lines {
            let inner = bash::analyse_script(line, Interpreter::Shell);
            self.expand(&inner, dir, Some(file));
            if inner.parse_error.is_some() && inner.mode().is_some() {
                let reason = format!("the {label} in {} could not be parsed exactly", file.display());
                self.opaque_event(reason, inner.mode(), &[], dir, Severity::Unverified);
            }
        }
    }

    /// `git NAME` where NAME is no git command: the alias `alias.NAME` from the git config git
    /// would read there (the repository's, the user's, the system's), expanded and followed;
    /// without one it is an external `git-NAME` program or a typo, which may commit or push:
    /// UNVERIFIED, never a silent pass.
    pub(super) fn alias(&mut self, call: &AliasCall, base: &Path, script: Option<&Path>) {
        // git runs an external `git-NAME` before it looks for an alias of that name.
        if let Some(program) = external_git_command(&call.name) {
            let reason = format!(
                "`{}`: git runs the program {} (an external `git-{}` comes before any alias of that name); it may commit or push",
                call.text,
                program.display(),
                call.name
            );
            let looks = bash::looks_like(&call.text);
            self.opaque_event(reason, looks, &call.config_dir, base, Severity::Unverified);
            return;
        }
        let value = self
            .locate(base, &call.config_dir)
            .ok()
            .and_then(|dir| crate::git::config::alias(&dir, &call.name));
        if let Some(value) = value {
            let inner = bash::expand_alias(call, &value);
            self.expand(&inner, base, script);
            return;
        }
        let reason = format!(
            "`{}`: `{}` is neither a git command nor an alias in the git config; it may run a program that commits or pushes",
            call.text, call.name
        );
        let looks = bash::looks_like(&call.text);
        self.opaque_event(reason, looks, &call.config_dir, base, Severity::Unverified);
    }
}

/// The external program git runs for `git NAME`: an executable `git-NAME` in git's exec path
/// (`GIT_EXEC_PATH`, or the usual `git-core` directories) or on `PATH`.
fn external_git_command(name: &str) -> Option<std::path::PathBuf> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    let env = crate::env::Env::from_process();
    let program = format!("git-{name}");
    let exec_dirs = env.text("GIT_EXEC_PATH").map(str::to_owned).into_iter().chain(
        ["/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/libexec/git-core"].map(str::to_owned),
    );
    exec_dirs
        .map(|d| std::path::Path::new(&d).join(&program))
        .find(|p| crate::env::search_path(p.parent().unwrap_or(p).as_os_str(), &program).is_some())
        .or_else(|| env.which(&program))
}
