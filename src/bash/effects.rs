//! Programs that commit by themselves and files the command writes.
//!
//! In: one simple command (after wrappers are unwrapped) and its redirections. Out:
//! [`Step::Program`] records for `npm`/`yarn`/`pnpm` scripts and `version`, `make` and `just`, which
//! [`crate::intent`] follows by reading `package.json` and the Makefile; and [`Step::Write`]
//! records for every file the command writes, changes or deletes before later steps run
//! (redirections, `tee`, `sed -i`, `perl -i`, `cp`, `mv`, `rm`, `touch`, `chmod`, `truncate`,
//! `dd of=`, `ln`, `install`, `patch`, `git apply`, inline programs that write). Pure: nothing is
//! read here; the records say what the text says, and `None` where only run time knows.

use super::syntax::{Redirect, Simple, Word};
use super::walk::Walker;
use super::{DirPart, FileWrite, PackageManager, Program, ProgramRun, Step, WriteKind};

/// The yarn (classic and berry) commands that are not a `package.json` script name.
const YARN_BUILTINS: &[&str] = &[
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "why",
    "workspace",
    "workspaces",
];

/// The pnpm commands that are not a `package.json` script name.
const PNPM_BUILTINS: &[&str] = &[
    "add",
    "audit",
    "bin",
    "config",
    "create",
    "dedupe",
    "deploy",
    "dlx",
    "env",
    "exec",
    "fetch",
    "help",
    "i",
    "import",
    "init",
    "install",
    "install-test",
    "it",
    "licenses",
    "link",
    "list",
    "ln",
    "ls",
    "outdated",
    "pack",
    "patch",
    "patch-commit",
    "prune",
    "publish",
    "rb",
    "rebuild",
    "remove",
    "rm",
    "root",
    "server",
    "setup",
    "store",
    "un",
    "uninstall",
    "unlink",
    "up",
    "update",
    "upgrade",
    "why",
];

/// npm options that take a separate value (the ones agents use; others are read as flags).
const NPM_WITH_VALUE: &[&str] = &[
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "-w",
    "--workspace",
    "--filter",
    "-F",
    "--loglevel",
    "--registry",
    "--userconfig",
    "--preid",
    "-m",
    "--message",
    "--tag-version-prefix",
    "--sign-git-tag",
    "--new-version",
];

/// Programs whose writes [`Walker::file_effects`] names from their arguments.
const FILE_WRITERS: &[&str] = &[
    "tee", "touch", "chmod", "chown", "chgrp", "setfacl", "rm", "unlink", "shred", "truncate", "cp",
    "install", "ln", "rsync", "mv", "dd", "patch",
];

/// Programs that never write a file by themselves (what they print may be redirected, which is
/// read as a write of its own): anything not here, and not modelled by name, may write files
/// the analyser cannot name ([`Walker::unknown_program`]).
const READS_ONLY: &[&str] = &[
    ":",
    "[",
    "[[",
    "b2sum",
    "base64",
    "basename",
    "cat",
    "cksum",
    "clear",
    "column",
    "comm",
    "cut",
    "date",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "expand",
    "expr",
    "false",
    "fgrep",
    "file",
    "fmt",
    "fold",
    "free",
    "getconf",
    "grep",
    "hash",
    "head",
    "help",
    "hexdump",
    "history",
    "hostname",
    "id",
    "jobs",
    "join",
    "kill",
    "less",
    "locale",
    "logger",
    "ls",
    "lsof",
    "man",
    "md5sum",
    "mkdir",
    "more",
    "nl",
    "nproc",
    "od",
    "paste",
    "pgrep",
    "pidof",
    "pkill",
    "printenv",
    "printf",
    "ps",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "rg",
    "ag",
    "ack",
    "rmdir",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shasum",
    "sleep",
    "stat",
    "strings",
    "sum",
    "tac",
    "tail",
    "test",
    "tput",
    "tr",
    "tree",
    "true",
    "tty",
    "type",
    "ulimit",
    "umask",
    "uname",
    "unexpand",
    "uptime",
    "wait",
    "wc",
    "whereis",
    "which",
    "whoami",
    "yes",
    "jq",
    "exit",
    "return",
    "break",
    "continue",
    "let",
    "shopt",
    "local",
    "fd",
    "bat",
    "delta",
    "env",
    "ping",
    "pytest",
    "py.test",
    "mypy",
    "pyright",
    "flake8",
    "pylint",
    "shellcheck",
    "hadolint",
    "yamllint",
    "tokei",
    "cloc",
    "wget2",
    "nvidia-smi",
    "gh",
    "ssh",
    "codespell",
    "vulture",
    "bandit",
    "semgrep",
    "gitleaks",
    "trufflehog",
    "actionlint",
    "golangci-lint",
    "staticcheck",
    "ktlint",
    "checkstyle",
    "rubocop",
    "htop",
    "top",
];

/// Python modules run with `-m` that write no file of the project.
const PYTHON_MODULES_READ_ONLY: &[&str] = &[
    "pytest",
    "unittest",
    "mypy",
    "pyright",
    "flake8",
    "pylint",
    "pip",
    "json.tool",
    "http.server",
    "venv",
    "timeit",
    "pydoc",
    "doctest",
    "compileall",
    "py_compile",
    "site",
    "platform",
    "tabnanny",
    "bandit",
    "vulture",
];

/// Whether a word has glob characters the shell would expand.
fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

impl Walker<'_> {
    /// Records the files a simple command's redirections open for writing. `cat > f <<'E'`,
    /// `tee f <<'E'`, `echo '…' > f` and `printf '…' > f` spell out the content.
    pub(super) fn redirect_writes(&mut self, s: &Simple, text: &str) {
        let literal_content = literal_output(s);
        for r in &s.redirects {
            let Redirect::Write { target, append } = r else { continue };
            let content = literal_content.clone();
            let kind = if *append { WriteKind::Append(content) } else { WriteKind::Content(content) };
            let op = if *append { ">>" } else { ">" };
            let shown = if text.is_empty() {
                format!("{op} {}", target.raw)
            } else {
                format!("{text} {op} {}", target.raw)
            };
            self.record_write(target, kind, &shown);
        }
    }

    /// Records one write of the file named by `target`.
    fn record_write(&mut self, target: &Word, kind: WriteKind, text: &str) {
        if target.literal && (target.text.starts_with("/dev/") || target.text.starts_with("/proc/")) {
            return;
        }
        let path = (target.literal && !has_glob(&target.text) && !target.text.starts_with('~'))
            .then(|| target.text.clone());
        let mut dir = self.dir.clone();
        if target.text.starts_with('~') {
            // Under a home directory only known at run time: where it lands is not known here.
            dir.push(DirPart::Unknown(format!("`{}`", target.text)));
        }
        // `~/rest`, `$HOME/rest`, `${HOME}/rest`: the home directory's, which the environment
        // knows (the protected-files check reads it there, and expands a glob in its last name
        // against the directory as the shell would).
        let home_rest = target.home_relative();
        if let WriteKind::Content(Some(content)) | WriteKind::Append(Some(content)) = &kind
            && sets_a_switch(&target.text, content)
        {
            self.out.control.push(format!(
                "`{}` puts one of codeguard's switches (`CODEGUARD_*`, `codeguard.*`, `core.hooksPath`) into a shell's startup or environment file",
                target.raw
            ));
        }
        self.out.steps.push(Step::Write(FileWrite { path, dir, kind, text: text.to_owned(), home_rest }));
    }
}

/// Whether writing `content` to the file `target` sets one of codeguard's switches for shells
/// that start later (a `CODEGUARD_*` variable, `codeguard.*` or `core.hooksPath` through git's
/// `GIT_CONFIG_*`): a startup or environment file (`~/.bashrc`, `~/.profile`, `.envrc`, `.env`,
/// …) whose new text names one.
fn sets_a_switch(target: &str, content: &str) -> bool {
    const STARTUP: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".kshrc",
        ".mkshrc",
        ".envrc",
        ".env",
        "environment",
        "config.fish",
    ];
    let name = target.rsplit('/').next().unwrap_or(target);
    // The name first: every spelled-out write passes here, most are no startup file.
    if !STARTUP.contains(&name) {
        return false;
    }
    let lower = content.to_ascii_lowercase();
    content.contains("CODEGUARD_")
        || lower.contains("codeguard.")
        || lower.contains("hookspath")
        || lower.contains("git_config_count")
}

impl Walker<'_> {
    /// A write whose target only exists at run time (`xargs rm`, `patch < x.diff`).
    pub(super) fn dynamic_write(&mut self, text: &str) {
        let dir = self.dir.clone();
        self.out.steps.push(Step::Write(FileWrite {
            path: None,
            dir,
            kind: WriteKind::Modify,
            text: text.to_owned(),
            home_rest: None,
        }));
    }

    /// The files a program writes by its arguments (`tee`, `sed -i`, `cp`, `mv`, `rm`, …).
    /// `from_stdin`: its arguments come from `xargs`/`find -exec`, so the targets are unknown.
    pub(super) fn file_effects(
        &mut self,
        base: &str,
        args: &[Word],
        from_stdin: bool,
        stdin: Option<&str>,
        text: &str,
    ) {
        let writer = FILE_WRITERS.contains(&base)
            || (matches!(base, "sed" | "gsed" | "perl" | "ruby")
                && args.iter().any(|w| w.text.starts_with("-i") || is_short_cluster_with(&w.text, 'i')));
        if from_stdin && writer {
            self.dynamic_write(text);
            return;
        }
        let operands: Vec<&Word> =
            args.iter().filter(|w| !(w.text.starts_with('-') && w.text.len() > 1)).collect();
        let writes_operands = |kind: WriteKind| -> Vec<(&Word, WriteKind)> {
            operands.iter().map(|w| (*w, kind.clone())).collect()
        };
        let targets: Vec<(&Word, WriteKind)> = match base {
            "tee" => {
                let append = args.iter().any(|w| w.text == "-a" || w.text == "--append");
                let content = stdin.map(str::to_owned);
                let kind = if append { WriteKind::Append(content) } else { WriteKind::Content(content) };
                writes_operands(kind)
            }
            "touch" | "chmod" | "chown" | "chgrp" | "setfacl" => {
                // The first operand of chmod/chown is the mode or owner — unless chmod's mode
                // looks like an option (`chmod -x f`: a mode, not one of chmod's options).
                let dash_mode = base == "chmod"
                    && args.iter().any(|w| {
                        w.text.len() > 1
                            && w.text.starts_with('-')
                            && !w.text.starts_with("--")
                            && w.text[1..].chars().all(|c| "rwxXst".contains(c))
                    });
                let skip = usize::from(
                    base != "touch" && !dash_mode && !args.iter().any(|w| w.text.starts_with("--reference")),
                );
                operands.iter().skip(skip).map(|w| (*w, WriteKind::Mode)).collect()
            }
            "rm" | "unlink" | "shred" => writes_operands(WriteKind::Delete),
            "truncate" => {
                let sized: Vec<&Word> = operands_after_values(args, &["-s", "--size", "-r", "--reference"]);
                sized.into_iter().map(|w| (w, WriteKind::Modify)).collect()
            }
            "cp" | "install" | "ln" | "rsync" | "mv" => {
                let Some(target) = last_operand_target(args, &operands, &["-t", "--target-directory"]) else {
                    return;
                };
                let sources: Vec<&Word> =
                    operands.iter().copied().filter(|w| !std::ptr::eq(*w, target)).collect();
                let mut out = Vec::new();
                for src in &sources {
                    if src.literal && !has_glob(&src.text) && base != "ln" {
                        out.push((target, WriteKind::Copy(src.text.clone())));
                    } else if sources.len() == 1 {
                        out.push((target, WriteKind::Content(None)));
                    } else {
                        self.dynamic_write(text);
                    }
                    if base == "mv" {
                        out.push((*src, WriteKind::Delete));
                    }
                }
                out
            }
            "sed" | "gsed"
                if args.iter().any(|w| {
                    w.text.starts_with("-i")
                        || w.text.starts_with("--in-place")
                        || is_short_cluster_with(&w.text, 'i')
                }) =>
            {
                sed_files(args).into_iter().map(|w| (w, WriteKind::Modify)).collect()
            }
            "perl" | "ruby"
                if args.iter().any(|w| w.text.starts_with("-i") || is_short_cluster_with(&w.text, 'i')) =>
            {
                perl_files(args).into_iter().map(|w| (w, WriteKind::Modify)).collect()
            }
            "dd" => {
                for w in args {
                    if let Some(p) = w.text.strip_prefix("of=") {
                        let word = Word { text: p.to_owned(), ..w.clone() };
                        self.record_write(&word, WriteKind::Content(None), text);
                    }
                }
                Vec::new()
            }
            "patch" => {
                self.dynamic_write(text);
                Vec::new()
            }
            _ => Vec::new(),
        };
        for (w, kind) in targets {
            self.record_write(w, kind, text);
        }
    }

    /// A program the analyser does not model by name ran: unless it is known to write nothing
    /// (or to write only with options that are absent), it may write files nobody can name now.
    /// Recorded as a write only run time knows, so a later `git add` + commit in the same call
    /// is judged by the write-then-commit rule (denied, or left to git's backstop).
    pub(super) fn unknown_program(&mut self, base: &str, args: &[Word], stdin: Option<&str>, text: &str) {
        if base == "codeguard" {
            self.guard_codeguard(args);
        }
        if matches!(base, "apply_patch" | "applypatch") {
            let envelope = match args {
                [one] if one.literal => Some(one.text.as_str()),
                [] => stdin,
                _ => None,
            };
            let files = envelope.map(super::apply_patch::envelope_files).unwrap_or_default();
            if files.is_empty() {
                self.dynamic_write(text);
            }
            for (path, deleted) in files {
                let word = Word { text: path, literal: true, ..Word::default() };
                self.record_write(&word, if deleted { WriteKind::Delete } else { WriteKind::Modify }, text);
            }
            return;
        }
        if !may_write(base, args) {
            return;
        }
        self.dynamic_write(text);
        self.named_writes(args, text);
    }

    /// The arguments of a program that may write files by itself (`tar -C DIR x`, `unzip -d
    /// DIR`, a tool's output path) that name one of codeguard's own files or directories: each
    /// is read as a write there, so the protected-files check sees it. A `key=/path` value counts
    /// as its path; inline code that names codeguard's state directory (`python3 -c "…~/.codeguard…"`)
    /// counts as a write of it. Other arguments stay the unknown write already recorded.
    pub(super) fn named_writes(&mut self, args: &[Word], text: &str) {
        for w in args {
            let path = w.text.split_once('=').map_or(w.text.as_str(), |(_, v)| v);
            let clean = w.literal || w.home_relative().is_some();
            if clean && !path.contains(char::is_whitespace) && super::may_name_codeguards_own(path) {
                let word = if path.len() == w.text.len() {
                    w.clone()
                } else {
                    Word { text: path.to_owned(), raw: path.to_owned(), literal: true, ..Word::default() }
                };
                self.record_write(&word, WriteKind::Modify, text);
            }
            if ["~/.codeguard", "/.codeguard"].iter().any(|n| w.text.contains(n) || w.raw.contains(n)) {
                let home =
                    Word { text: "~/.codeguard".into(), raw: "~/.codeguard".into(), ..Word::default() };
                self.record_write(&home, WriteKind::Modify, text);
            }
        }
    }

    /// Records what a `codeguard` call would loosen of codeguard's own controls, if anything.
    pub(super) fn guard_codeguard(&mut self, args: &[Word]) {
        if let Some(what) = codeguard_control(args) {
            self.out.control.push(what);
        }
    }

    /// Records a `git config` write of codeguard's own settings (`codeguard.*`: `skipGate`,
    /// `strict`, …) or of where git runs hooks (`core.hooksPath`: codeguard's git hooks and
    /// backstop live there), in any configuration file: the user's to change, not the agent's.
    pub(super) fn guard_git_config(&mut self, args: &[Word]) {
        let Some(key) = super::git::config_key_written(args) else { return };
        let lower = key.to_ascii_lowercase();
        // `include.path` / `includeIf.<cond>.path` pull in a file that can set any of them.
        let include = lower == "include.path"
            || (lower.starts_with("includeif.") && lower.rsplit('.').next() == Some("path"));
        if key == "*"
            || lower.starts_with("codeguard.")
            || lower == "core.hookspath"
            || include
            || !args.iter().all(|w| w.literal)
        {
            let what =
                if key == "*" { "`git config --edit`".to_owned() } else { format!("`git config {key}`") };
            self.out.control.push(format!("{what}, a setting codeguard's gate reads"));
        }
    }

    /// Records a `CODEGUARD_*` variable the command sets (`CODEGUARD_SKIP_GATE=1 git commit`,
    /// `export`, `env`): codeguard's git hooks run inside the command and read its environment,
    /// so setting one is changing codeguard's controls.
    pub(super) fn guard_variable(&mut self, name: &str) {
        if name.starts_with("CODEGUARD_") {
            let what = match crate::env::VARIABLES.iter().find(|v| v.name == name) {
                Some(v) => format!("`{name}=`, a variable codeguard reads (set by {})", v.who),
                None => format!("`{name}=`, a variable in codeguard's namespace"),
            };
            self.out.control.push(what);
        }
    }

    /// Inline code of an interpreter that may write files (`python3 -c "open('f','w')…"`).
    pub(super) fn inline_code_writes(&mut self, code: &str, text: &str) {
        let writes = ["open(", "write", "rename", "unlink", "remove", "copy", "move", "truncate", "mkdir"];
        if writes.iter().any(|w| code.contains(w)) {
            self.dynamic_write(text);
        }
    }

    /// `git apply` without `--cached`/`--check`/`--stat`: patches worktree files.
    pub(super) fn git_writes(&mut self, sub: &str, args: &[Word], text: &str) {
        let reports_only = |w: &Word| {
            matches!(w.text.as_str(), "--cached" | "--check" | "--stat" | "--numstat" | "--summary")
        };
        if sub == "apply" && !args.iter().any(reports_only) {
            self.dynamic_write(text);
        }
    }

    /// `npm`/`yarn`/`pnpm`/`make`: records what they will run. Returns false for other programs.
    pub(super) fn program_call(
        &mut self,
        base: &str,
        args: &[Word],
        extra_dir: &[DirPart],
        text: &str,
    ) -> bool {
        let manager = match base {
            "npm" => Some(PackageManager::Npm),
            "yarn" => Some(PackageManager::Yarn),
            "pnpm" => Some(PackageManager::Pnpm),
            _ => None,
        };
        let (program, dirs) = match (manager, base) {
            (Some(manager), _) => {
                let (found, writes_files) = package_manager(manager, args);
                if writes_files {
                    // package.json and the lockfile change (and install scripts run).
                    self.dynamic_write(text);
                }
                match found {
                    Some(found) => found,
                    None => return true,
                }
            }
            (None, "make" | "gmake") => make(args),
            (None, "just") => just(args),
            (None, _) => return false,
        };
        let mut dir = self.dir.clone();
        dir.extend(extra_dir.iter().cloned());
        dir.extend(dirs);
        self.out.steps.push(Step::Program(ProgramRun {
            program,
            dir,
            chain: self.chain,
            depth: self.depth,
            text: text.to_owned(),
        }));
        true
    }
}

/// The codeguard sub-commands that loosen its own controls, which only the user may run: trusting
/// or untrusting a workspace, removing its hooks, clearing its state, removing its tools,
/// replacing git hooks by force. A sub-command known only at run time counts as one of them.
/// `None` for the others (`check`, `doctor`, `explain`, …).
fn codeguard_control(args: &[Word]) -> Option<String> {
    let mut words = args.iter().filter(|w| !w.text.starts_with('-') || !w.literal);
    let sub = words.next()?;
    if !sub.literal {
        return Some(format!("`codeguard {}`, a sub-command known only when it runs", sub.text));
    }
    let next = words.next().map(|w| w.text.as_str());
    let force = args.iter().any(|w| w.text == "--force");
    let named = match (sub.text.as_str(), next) {
        ("trust" | "untrust" | "uninstall", _) => Some(sub.text.clone()),
        ("state", Some("clear")) => Some("state clear".to_owned()),
        ("tools", Some("remove")) => Some("tools remove".to_owned()),
        ("install", _) if force => Some("install --force".to_owned()),
        _ => None,
    };
    named.map(|n| format!("`codeguard {n}`"))
}

/// Whether `base` run with `args` may write files (see [`READS_ONLY`]); the programs whose writes
/// depend on an option or a sub-command are told here.
fn may_write(base: &str, args: &[Word]) -> bool {
    let has = |flags: &[&str]| {
        args.iter().any(|w| {
            flags
                .iter()
                .any(|f| w.text == *f || (f.starts_with("--") && w.text.starts_with(&format!("{f}="))))
        })
    };
    let operands = || args.iter().filter(|w| !w.text.starts_with('-')).count();
    let sub = args.iter().find(|w| !w.text.starts_with('-')).map(|w| w.text.as_str());
    match base {
        b if READS_ONLY.contains(&b) || FILE_WRITERS.contains(&b) => false,
        // Their in-place options are modelled; their inline code is read as foreign code.
        "sed" | "gsed" => false,
        "sort" => args.iter().any(|w| w.text.starts_with("-o") || w.text.starts_with("--output")),
        "uniq" => operands() >= 2,
        "curl" => {
            has(&[
                "-o",
                "--output",
                "-O",
                "--remote-name",
                "--remote-name-all",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
                "--output-dir",
            ]) || args.iter().any(|w| {
                w.text.len() > 2
                    && w.text.starts_with('-')
                    && !w.text.starts_with("--")
                    && w.text.contains(['o', 'O'])
            })
        }
        "wget" => {
            !(has(&["-O-", "-qO-", "--spider"])
                || args.windows(2).any(|p| p[0].text == "-O" && p[1].text == "-"))
        }
        "cargo" => {
            !matches!(
                sub,
                Some(
                    "build"
                        | "b"
                        | "check"
                        | "c"
                        | "test"
                        | "t"
                        | "doc"
                        | "d"
                        | "bench"
                        | "metadata"
                        | "tree"
                        | "search"
                        | "version"
                        | "help"
                        | "nextest"
                        | "clippy"
                )
            ) || (sub == Some("clippy") && has(&["--fix"]))
        }
        "go" => !matches!(sub, Some("build" | "vet" | "test" | "list" | "env" | "version" | "doc" | "help")),
        "ruff" => sub != Some("check") || has(&["--fix", "--unsafe-fixes"]),
        "black" | "isort" => !has(&["--check", "--diff", "--check-only"]),
        "eslint" | "stylelint" => has(&["--fix", "-o", "--output-file"]),
        "prettier" => has(&["--write", "-w"]),
        "tsc" => !has(&["--noEmit", "--noemit"]),
        "docker" | "podman" => {
            matches!(sub, Some("run" | "cp" | "compose" | "exec" | "container" | "create" | "start"))
        }
        "codeguard" => !matches!(
            sub,
            Some("check" | "explain" | "doctor" | "languages" | "detect" | "hook" | "git-hook" | "mcp")
        ),
        _ => true,
    }
}

/// Whether a Python module run with `-m` may write files of the project.
pub(super) fn python_module_may_write(module: &str) -> bool {
    !PYTHON_MODULES_READ_ONLY.contains(&module)
}

/// `-xyz` holding the short flag `flag` (`-ni`, `-pi`).
fn is_short_cluster_with(t: &str, flag: char) -> bool {
    t.len() > 1
        && t.starts_with('-')
        && !t.starts_with("--")
        && t[1..].chars().all(|c| c.is_ascii_alphabetic())
        && t.contains(flag)
}

/// Operands after skipping options that take a value.
fn operands_after_values<'w>(args: &'w [Word], with_value: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        if with_value.contains(&w.text.as_str()) {
            i += 2;
            continue;
        }
        if !(w.text.starts_with('-') && w.text.len() > 1) {
            out.push(w);
        }
        i += 1;
    }
    out
}

/// The destination of `cp`/`mv`/`ln`/`install`: `-t DIR` or the last operand. A destination
/// directory receives files named after the sources: recorded as a dynamic write of that name.
fn last_operand_target<'w>(args: &'w [Word], operands: &[&'w Word], target_dir: &[&str]) -> Option<&'w Word> {
    if let Some(i) = args.iter().position(|w| target_dir.contains(&w.text.as_str())) {
        return args.get(i + 1);
    }
    if operands.len() < 2 {
        return None;
    }
    operands.last().copied()
}

/// The files `sed -i` edits: operands after the script (the first operand unless `-e`/`-f`).
fn sed_files(args: &[Word]) -> Vec<&Word> {
    let mut files = Vec::new();
    let mut script_given = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if matches!(t, "-e" | "--expression" | "-f" | "--file") {
            script_given = true;
            i += 2;
            continue;
        }
        if t.starts_with("--expression=") || t.starts_with("--file=") {
            script_given = true;
        } else if !(t.starts_with('-') && t.len() > 1) {
            if script_given {
                files.push(w);
            } else {
                script_given = true;
            }
        }
        i += 1;
    }
    files
}

/// The files `perl -pi -e CODE FILE…` edits.
fn perl_files(args: &[Word]) -> Vec<&Word> {
    let mut files = Vec::new();
    let mut code_given = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "-e" || t == "-E" || (is_short_cluster_with(t, 'e') && t.ends_with('e')) {
            code_given = true;
            i += 2;
            continue;
        }
        if !(t.starts_with('-') && t.len() > 1) {
            if code_given {
                files.push(w);
            } else {
                code_given = true;
            }
        }
        i += 1;
    }
    files
}

/// What `cat`/`echo`/`printf`/`tee` write when the command spells it out.
fn literal_output(s: &Simple) -> Option<String> {
    let name = s.words.first().map(|w| w.text.rsplit('/').next().unwrap_or(&w.text).to_owned())?;
    let args = &s.words[1..];
    let heredoc = super::syntax::literal_stdin(&s.redirects);
    match name.as_str() {
        "cat" | "tee" if args.iter().all(|w| w.text.starts_with('-')) => heredoc,
        "echo" if args.iter().all(|w| w.literal) => {
            let mut newline = true;
            let mut words = args.iter().map(|w| w.text.as_str()).peekable();
            while let Some(flag) = words.peek().copied().filter(|t| matches!(*t, "-n" | "-e" | "-E")) {
                newline &= flag != "-n";
                words.next();
            }
            let mut text = words.collect::<Vec<_>>().join(" ");
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" if args.len() == 1 && args[0].literal && !args[0].text.contains('%') => {
            Some(args[0].text.replace("\\n", "\n").replace("\\t", "\t"))
        }
        _ => None,
    }
}

/// `npm|yarn|pnpm …`: the program run (`None`: runs no project script) and the directories
/// `--prefix`/`-C`/`--cwd`/`--dir` move it to.
/// What `npm`/`yarn`/`pnpm` ARGS runs (`None`: nothing to follow), and whether its sub-command
/// writes the package files (`install`, `add`, `pkg set`, …).
fn package_manager(manager: PackageManager, args: &[Word]) -> (Option<(Program, Vec<DirPart>)>, bool) {
    let (found, first) = package_call(manager, args);
    let writes = first.is_some_and(|sub| {
        matches!(
            sub.as_str(),
            "pkg"
                | "install"
                | "i"
                | "ci"
                | "add"
                | "remove"
                | "rm"
                | "uninstall"
                | "un"
                | "update"
                | "up"
                | "upgrade"
                | "dedupe"
                | "prune"
                | "link"
                | "init"
                | "create"
                | "import"
        )
    });
    (found, writes)
}

/// [`package_manager`]'s program, and the sub-command (its first operand after the options).
fn package_call(manager: PackageManager, args: &[Word]) -> (Option<(Program, Vec<DirPart>)>, Option<String>) {
    let mut dirs = Vec::new();
    let mut positional: Vec<&Word> = Vec::new();
    let mut git_tag: Option<bool> = None;
    let mut no_commit_hooks = false;
    let mut dynamic: Option<String> = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            positional.extend(args[i + 1..].iter());
            break;
        }
        let (name, attached) = match t.split_once('=') {
            Some((n, v)) if t.starts_with("--") => (n, Some(v)),
            _ => (t, None),
        };
        match name {
            "--prefix" | "-C" | "--cwd" | "--dir" => match (attached, args.get(i + 1)) {
                (Some(v), _) if w.literal => dirs.push(DirPart::Path(v.to_owned())),
                (None, Some(v)) => dirs.push(super::git::word_dir(v)),
                _ => dirs.push(DirPart::Unknown(format!("`{}`", w.raw))),
            },
            "-w" | "--workspace" | "--filter" | "-F" | "--workspaces" | "-ws" | "-r" | "--recursive" => {
                dynamic.get_or_insert(format!("`{}` runs scripts of other packages of the workspace", w.raw));
            }
            "--no-git-tag-version" => git_tag = Some(false),
            "--git-tag-version" => git_tag = Some(attached.is_none_or(|v| v != "false")),
            "--no-commit-hooks" => no_commit_hooks = true,
            "--commit-hooks" => no_commit_hooks = attached == Some("false"),
            _ => {}
        }
        if name.starts_with('-') && name.len() > 1 {
            i += if attached.is_none() && NPM_WITH_VALUE.contains(&name) { 2 } else { 1 };
            continue;
        }
        positional.push(w);
        i += 1;
    }
    let first = positional.first().copied();
    let sub = first.filter(|w| w.literal).map(|w| w.text.clone());
    let found = (move || -> Option<(Program, Vec<DirPart>)> {
        let script_at = |idx: usize| -> Option<Program> {
            match positional.get(idx) {
                Some(w) if w.literal => Some(Program::PackageScript { manager, script: w.text.clone() }),
                Some(w) => Some(Program::Dynamic(format!(
                    "`{} run {}` names its script at run time",
                    manager.as_str(),
                    w.raw
                ))),
                None => None,
            }
        };
        let program = match (manager, first.map(|w| w.text.as_str())) {
            (_, Some("version")) => {
                // `npm version` alone prints versions; `yarn version` alone asks (interactive) and
                // commits. A literal new version or bump word commits.
                if manager == PackageManager::Npm && positional.len() < 2 {
                    return None;
                }
                Program::PackageVersion { manager, git_tag, no_commit_hooks }
            }
            (_, Some("run" | "run-script" | "rum" | "urn")) => script_at(1)?,
            (_, Some("install" | "i" | "ci" | "isntall" | "add")) | (PackageManager::Yarn, None) => {
                Program::PackageLifecycle { manager, event: "install".into() }
            }
            (_, Some(event @ ("publish" | "pack"))) => {
                Program::PackageLifecycle { manager, event: event.into() }
            }
            (PackageManager::Npm, Some("test" | "t" | "tst" | "start" | "stop" | "restart")) => {
                let name = match first.map(|w| w.text.as_str()) {
                    Some("t" | "tst") | None => "test",
                    Some(other) => other,
                };
                Program::PackageScript { manager, script: name.to_owned() }
            }
            (PackageManager::Npm, _) | (_, None) => return None,
            (PackageManager::Yarn, Some(name)) if YARN_BUILTINS.contains(&name) => return None,
            (PackageManager::Pnpm, Some(name)) if PNPM_BUILTINS.contains(&name) => return None,
            (PackageManager::Yarn | PackageManager::Pnpm, Some(_)) => script_at(0)?,
        };
        if let Some(reason) = dynamic {
            return Some((Program::Dynamic(reason), dirs));
        }
        Some((program, dirs))
    })();
    (found, sub)
}

/// `make [options] [VAR=value…] [target…]`.
fn make(args: &[Word]) -> (Program, Vec<DirPart>) {
    let with_value = [
        "-C",
        "-f",
        "--file",
        "--makefile",
        "--directory",
        "-I",
        "--include-dir",
        "-j",
        "--jobs",
        "-l",
        "-o",
        "-W",
        "--what-if",
        "--old-file",
        "--new-file",
    ];
    let mut dirs = Vec::new();
    let mut file = None;
    let mut targets = Vec::new();
    let mut overrides = Vec::new();
    let mut dry_run = false;
    let mut dynamic = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if !w.literal {
            dynamic.get_or_insert(format!("`make` with the argument `{}` known only at run time", w.raw));
            i += 1;
            continue;
        }
        let (name, attached) = match t.split_once('=') {
            Some((n, v)) if t.starts_with("--") => (n, Some(v.to_owned())),
            _ if t.len() > 2 && (t.starts_with("-C") || t.starts_with("-f")) && !t.starts_with("--") => {
                (&t[..2], Some(t[2..].to_owned()))
            }
            _ => (t, None),
        };
        if name.starts_with('-') && name.len() > 1 {
            let value = attached.clone().or_else(|| args.get(i + 1).map(|v| v.text.clone()));
            match name {
                "-C" | "--directory" => dirs.extend(option_dir(w, attached.as_deref(), args.get(i + 1))),
                "-f" | "--file" | "--makefile" => file = value,
                "-n" | "--dry-run" | "--just-print" | "--recon" | "-q" | "--question" => dry_run = true,
                "-j" | "--jobs" if attached.is_none() => {
                    // `-j` takes an optional number.
                    if args.get(i + 1).is_some_and(|v| v.text.chars().all(|c| c.is_ascii_digit())) {
                        i += 1;
                    }
                    i += 1;
                    continue;
                }
                cluster
                    if !cluster.starts_with("--")
                        && cluster[1..].contains('n')
                        && cluster[1..].chars().all(|c| c.is_ascii_alphabetic()) =>
                {
                    dry_run = true;
                }
                _ => {}
            }
            i += if attached.is_none() && with_value.contains(&name) { 2 } else { 1 };
            continue;
        }
        if let Some((k, v)) = t
            .split_once('=')
            .filter(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            overrides.push((k.to_owned(), v.to_owned()));
        } else {
            targets.push(t.to_owned());
        }
        i += 1;
    }
    if let Some(reason) = dynamic {
        return (Program::Dynamic(reason), dirs);
    }
    (Program::Make { file, targets, overrides, dry_run }, dirs)
}

/// `just [options] [VAR=value…] [recipe [args]…]`.
fn just(args: &[Word]) -> (Program, Vec<DirPart>) {
    let mut dirs = Vec::new();
    let mut file = None;
    let mut recipes = Vec::new();
    let mut dry_run = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if !w.literal {
            return (
                Program::Dynamic(format!("`just` with the argument `{}` known only at run time", w.raw)),
                dirs,
            );
        }
        let (name, attached) = match t.split_once('=') {
            Some((n, v)) if t.starts_with("--") => (n, Some(v.to_owned())),
            _ => (t, None),
        };
        let value = || attached.clone().or_else(|| args.get(i + 1).map(|v| v.text.clone()));
        match name {
            "-f" | "--justfile" => file = value(),
            "-d" | "--working-directory" => dirs.extend(option_dir(w, attached.as_deref(), args.get(i + 1))),
            "-n" | "--dry-run" | "-l" | "--list" | "--summary" | "-s" | "--show" | "--evaluate"
            | "--variables" | "--help" | "-h" | "--version" | "-V" | "--fmt" | "--dump" | "--edit" | "-e"
            | "--init" | "--choose" | "--completions" | "--groups" => dry_run = true,
            _ => {}
        }
        if name.starts_with('-') && name.len() > 1 {
            let takes = matches!(
                name,
                "-f" | "--justfile"
                    | "-d"
                    | "--working-directory"
                    | "--set"
                    | "--shell"
                    | "--shell-arg"
                    | "--color"
                    | "--dotenv-filename"
                    | "--dotenv-path"
                    | "--command-color"
            );
            let values =
                if attached.is_some() { 0 } else { usize::from(takes) + usize::from(name == "--set") };
            i += 1 + values;
            continue;
        }
        if !is_override(t) {
            recipes.push(t.to_owned());
        }
        i += 1;
    }
    (Program::Just { file, recipes, dry_run }, dirs)
}

/// `NAME=value` on a make or just command line.
fn is_override(t: &str) -> bool {
    t.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The directory a `-C DIR` / `--directory=DIR` option names, as git's `-C` is read: the
/// separate word through [`super::git::word_dir`]; an attached value is a path only when the
/// option word is literal and names no home directory.
fn option_dir(option: &Word, attached: Option<&str>, next: Option<&Word>) -> Option<DirPart> {
    match attached {
        Some(v) if option.literal && !v.starts_with('~') => Some(DirPart::Path(v.to_owned())),
        Some(_) => Some(DirPart::Unknown(format!("`{}`", option.raw))),
        None => next.map(super::git::word_dir),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Step, analyse};
    use super::*;

    fn writes(cmd: &str) -> Vec<(Option<String>, WriteKind)> {
        analyse(cmd)
            .steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Write(w) => Some((w.path, w.kind)),
                Step::Git(_) | Step::Script(_) | Step::Program(_) | Step::Alias(_) => None,
            })
            .collect()
    }

    #[test]
    fn programs_not_known_to_write_nothing_write_what_only_run_time_knows() {
        let unknown = || vec![(None, WriteKind::Modify)];
        for cmd in [
            "tar xf v.tar",
            "cargo fmt",
            "sort -o out.txt in.txt",
            "curl -o f https://x",
            "python3 -m black .",
        ] {
            assert_eq!(writes(cmd), unknown(), "{cmd}");
        }
        for cmd in [
            "ls -la",
            "cargo test",
            "ruff check .",
            "sort in.txt",
            "curl https://x",
            "python3 -m pytest",
            "npm test",
        ] {
            assert!(writes(cmd).is_empty(), "{cmd}: {:?}", writes(cmd));
        }
        assert_eq!(writes("npm --prefix pkg install"), unknown(), "the sub-command, past the option's value");
        assert!(writes("npm --prefix pkg test").is_empty(), "`pkg` is the option's value here");
        let patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.py\n+x\n*** Delete File: b.py\n*** End Patch\nEOF";
        assert_eq!(
            writes(patch),
            [(Some("a.py".into()), WriteKind::Modify), (Some("b.py".into()), WriteKind::Delete)],
            "the envelope names its files"
        );
    }

    fn programs(cmd: &str) -> Vec<Program> {
        analyse(cmd)
            .steps
            .into_iter()
            .filter_map(|s| match s {
                Step::Program(p) => Some(p.program),
                Step::Git(_) | Step::Script(_) | Step::Write(_) | Step::Alias(_) => None,
            })
            .collect()
    }

    #[test]
    fn spelt_out_content_is_recorded() {
        let known = |c: &str| WriteKind::Content(Some(c.to_owned()));
        assert_eq!(writes("cat > s.sh <<'E'\ngit push\nE"), [(Some("s.sh".into()), known("git push\n"))]);
        assert_eq!(writes("echo 'git push' > p.sh"), [(Some("p.sh".into()), known("git push\n"))]);
        assert_eq!(writes("printf 'a\\nb' > c.sh"), [(Some("c.sh".into()), known("a\nb"))]);
        assert_eq!(
            writes("tee -a s.sh <<< 'x'"),
            [(Some("s.sh".into()), WriteKind::Append(Some("x\n".into())))]
        );
        assert_eq!(writes("echo \"$X\" > f"), [(Some("f".into()), WriteKind::Content(None))]);
        assert!(writes("git push 2>&1 >/dev/null").is_empty());
    }

    #[test]
    fn file_commands_name_what_they_change() {
        assert_eq!(writes("sed -i.bak -e s/a/b/ x.py y.py").len(), 2);
        assert_eq!(writes("sed -n p x.py"), []);
        assert_eq!(writes("perl -pi -e 's/a/b/' x.py"), [(Some("x.py".into()), WriteKind::Modify)]);
        assert_eq!(
            writes("mv a b"),
            [(Some("b".into()), WriteKind::Copy("a".into())), (Some("a".into()), WriteKind::Delete)]
        );
        assert_eq!(writes("chmod +x s.sh"), [(Some("s.sh".into()), WriteKind::Mode)]);
        assert_eq!(
            writes("chmod -R -x s.sh"),
            [(Some("s.sh".into()), WriteKind::Mode)],
            "a mode that looks like an option"
        );
        assert_eq!(writes("dd if=/dev/zero of=x.bin"), [(Some("x.bin".into()), WriteKind::Content(None))]);
        assert_eq!(writes("git ls-files | xargs rm"), [(None, WriteKind::Modify)]);
        assert_eq!(writes("patch -p1 < fix.diff"), [(None, WriteKind::Modify)]);
        assert_eq!(writes("git apply --cached fix.diff"), []);
    }

    #[test]
    fn package_managers_and_make() {
        let script = |m: PackageManager, s: &str| Program::PackageScript { manager: m, script: s.into() };
        assert_eq!(programs("npm run release"), [script(PackageManager::Npm, "release")]);
        assert_eq!(programs("npm t"), [script(PackageManager::Npm, "test")]);
        assert_eq!(programs("yarn ship"), [script(PackageManager::Yarn, "ship")]);
        assert_eq!(programs("pnpm -C web run build"), [script(PackageManager::Pnpm, "build")]);
        assert!(
            programs("npm ls").is_empty()
                && programs("yarn why x").is_empty()
                && programs("npm version").is_empty()
        );
        assert_eq!(
            programs("npm ci"),
            [Program::PackageLifecycle { manager: PackageManager::Npm, event: "install".into() }]
        );
        assert_eq!(
            programs("npm version patch --no-git-tag-version"),
            [Program::PackageVersion {
                manager: PackageManager::Npm,
                git_tag: Some(false),
                no_commit_hooks: false
            }]
        );
        assert_eq!(
            programs("make -C sub -j 4 -n release V=1"),
            [Program::Make {
                file: None,
                targets: vec!["release".into()],
                overrides: vec![("V".into(), "1".into())],
                dry_run: true
            }]
        );
        assert!(matches!(programs("npm run \"$S\"").as_slice(), [Program::Dynamic(_)]));
    }
}
