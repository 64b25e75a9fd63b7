//! Simple commands: expand the words the command itself makes literal ([`super::expand`]),
//! unwrap wrappers (`env`, `sudo`, `flock`, `timeout`, … and the shell code of `flock -c`,
//! `script -c`, `su -c`, `watch`, `trap`), then recognise git (with its aliases), shells, `eval`,
//! interpreters (inline code of the ones we do not model follows one rule), scripts,
//! `cd`/`pushd`/`popd`, `find -exec`, `xargs`, shell aliases and calls of functions defined in
//! the command (their words become the positional parameters).
//!
//! In: one simple command and where its stdin comes from. Out: steps and opaque records pushed
//! onto the walker. Programs we do not know are ignored: they are not git and run no shell code
//! we can see. A git sub-command that is none of git's own becomes a [`Step::Alias`] unless the
//! command defines it.

use super::expand;
use super::git;
use super::program::{self, Effect};
use super::syntax::{Assignment, Command, Redirect, Simple, Word};
use super::walk::{Input, Walker};
use super::{
    AliasCall, DirPart, EnvValue, GitCall, GitEnv, Interpreter, ScriptRun, Severity, Step, analyse_with,
    looks_like,
};
use crate::mode::Mode;

/// Longest command text kept for messages.
const TEXT_LIMIT: usize = 200;

/// What a shell reading commands from stdin would read.
#[derive(Debug, Clone)]
enum Stdin {
    /// Nothing we can see (a terminal or the caller's stdin).
    None,
    /// Literal code (a here-doc, a literal here-string, `echo '…' |`).
    Code(String),
    /// A file (`< script.sh`).
    File(String),
    /// Produced at run time; the text says by what.
    Dynamic(String),
}

/// Per-command context accumulated while unwrapping.
#[derive(Debug, Clone)]
struct Ctx {
    /// Notes about the binding.
    notes: Vec<String>,
    /// `GIT_DIR=`, `GIT_WORK_TREE=`, `GIT_INDEX_FILE=` given to this command (prefix or `env`).
    env: GitEnv,
    /// `env -i`: the command inherits none of the exported variables.
    ignore_exported: bool,
    /// Directories added by wrappers (`env -C`, `sudo -D`).
    extra_dir: Vec<DirPart>,
    /// Arguments are appended from stdin (`xargs`) or substituted (`find -exec {}`).
    from_stdin: bool,
    stdin: Stdin,
    /// The literal text on stdin (a quoted here-doc, a literal here-string), for `tee`.
    literal_stdin: Option<String>,
    text: String,
}

/// The interpreter named by a program's base name, if we model it.
pub(super) fn interpreter_of(base: &str) -> Option<Interpreter> {
    match base {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" => Some(Interpreter::Shell),
        "node" | "nodejs" => Some(Interpreter::Node),
        b if b.starts_with("python") && b[6..].chars().all(|c| c.is_ascii_digit() || c == '.') => {
            Some(Interpreter::Python)
        }
        _ => None,
    }
}

/// The flags that introduce inline code for interpreters we do not model (`awk`: its first
/// operand is the program).
fn foreign_code_flags(base: &str) -> Option<&'static [&'static str]> {
    Some(match base {
        "perl" => &["-e", "-E"],
        "ruby" | "lua" | "luajit" | "Rscript" | "julia" | "osascript" | "bun" | "tclsh" => &["-e", "--eval"],
        "php" => &["-r", "-R", "-B", "-E"],
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => &["-e", "--source"],
        "deno" => &[],
        _ => return None,
    })
}

/// Programs that commit, tag or push by themselves (what, for the note), or `None`.
fn commits_by_itself(base: &str, args: &[Word]) -> Option<&'static str> {
    let sub = args.iter().find(|w| !w.text.starts_with('-')).map(|w| w.text.as_str());
    match base {
        "cz" | "commitizen" if matches!(sub, Some("bump" | "commit" | "c")) => {
            Some("commitizen commits (and tags) by itself")
        }
        "bump-my-version" | "bumpversion" | "bump2version" | "tbump" => {
            Some("a version bumper that commits, tags and may push when its configuration says so")
        }
        "semantic-release" | "standard-version" | "commit-and-tag-version" | "release-it" | "np" => {
            Some("a release tool that commits, tags and pushes by itself")
        }
        "lerna" if matches!(sub, Some("version" | "publish")) => {
            Some("lerna commits, tags and pushes by itself")
        }
        "cargo" if matches!(sub, Some("release")) => Some("cargo-release commits, tags and pushes by itself"),
        "mvn" | "mvnw" if args.iter().any(|w| w.text.starts_with("release:")) => {
            Some("the Maven release plugin commits, tags and pushes by itself")
        }
        // Known helpers that never commit or move a ref (git-lfs moves only its own objects).
        "git-lfs" | "git-crypt" | "git-secrets" | "git-sizer" | "git-cliff" | "git-shell"
        | "git-upload-pack" | "git-upload-archive" => None,
        b if b.starts_with("git-credential") || b.starts_with("git-remote-") => None,
        b if b.starts_with("git-") && b.len() > 4 => {
            Some("a git external command, which may run any git command")
        }
        _ => None,
    }
}

/// The shell code a runner runs: `npx -c CODE`, `npm exec -c CODE` / `npm x -c`, `pnpm exec`,
/// GNU `parallel` (its command template with each argument after `:::`, or each argument when
/// there is no template). `None` for other programs.
fn runner_code(base: &str, args: &[Word]) -> Option<Vec<String>> {
    let call_flag = |args: &[Word]| -> Option<Vec<String>> {
        let i = args.iter().position(|w| w.text == "-c" || w.text == "--call")?;
        Some(vec![args.get(i + 1).map_or_else(String::new, code_of)])
    };
    match base {
        "npx" => call_flag(args),
        "npm" if args.first().is_some_and(|w| matches!(w.text.as_str(), "exec" | "x")) => {
            call_flag(&args[1..])
        }
        "parallel" | "sem" => {
            let sep = args.iter().position(|w| w.text.starts_with(":::"));
            let template: Vec<&str> = args[..sep.unwrap_or(args.len())]
                .iter()
                .skip_while(|w| w.text.starts_with('-'))
                .map(|w| w.raw.as_str())
                .collect();
            let operands: Vec<String> = sep.map_or_else(Vec::new, |i| {
                args[i + 1..].iter().filter(|w| !w.text.starts_with(":::")).map(code_of).collect()
            });
            let template = template.join(" ");
            let mut out: Vec<String> = operands
                .iter()
                .map(|o| if template.is_empty() { o.clone() } else { format!("{template} {o}") })
                .collect();
            if out.is_empty() {
                // Arguments from stdin: the template runs with words only known at run time.
                out.push(format!("{template} \"$ARG\""));
            }
            Some(out)
        }
        _ => None,
    }
}

/// A word as shell code: its value when literal, else the way it was written (expanded at run
/// time, which the analysis of that code says).
fn code_of(w: &Word) -> String {
    if w.literal { w.text.clone() } else { w.raw.clone() }
}

/// bash's builtins (`builtin NAME` runs only these).
fn is_shell_builtin(name: &str) -> bool {
    matches!(
        name,
        "." | ":"
            | "["
            | "alias"
            | "bg"
            | "bind"
            | "break"
            | "builtin"
            | "caller"
            | "cd"
            | "command"
            | "compgen"
            | "complete"
            | "compopt"
            | "continue"
            | "declare"
            | "dirs"
            | "disown"
            | "echo"
            | "enable"
            | "eval"
            | "exec"
            | "exit"
            | "export"
            | "false"
            | "fc"
            | "fg"
            | "getopts"
            | "hash"
            | "help"
            | "history"
            | "jobs"
            | "kill"
            | "let"
            | "local"
            | "logout"
            | "mapfile"
            | "popd"
            | "printf"
            | "pushd"
            | "pwd"
            | "read"
            | "readarray"
            | "readonly"
            | "return"
            | "set"
            | "shift"
            | "shopt"
            | "source"
            | "suspend"
            | "test"
            | "times"
            | "trap"
            | "true"
            | "type"
            | "typeset"
            | "ulimit"
            | "umask"
            | "unalias"
            | "unset"
            | "wait"
    )
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn joined(words: &[Word]) -> String {
    let mut text = String::new();
    for w in words {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&w.raw);
        if text.len() > TEXT_LIMIT {
            let cut = (0..=TEXT_LIMIT).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            text.truncate(cut);
            text.push('…');
            break;
        }
    }
    text
}

/// The git location variables among `assignments`.
fn env_of(assignments: &[Assignment]) -> GitEnv {
    let mut env = GitEnv::default();
    for a in assignments {
        let value = match a.values.as_slice() {
            [one] => EnvValue::of(one),
            [] => EnvValue::Literal(String::new()),
            _ => EnvValue::Dynamic(format!("{}=(…)", a.name)),
        };
        env.set(&a.name, Some(value));
    }
    env
}

/// `NAME=value` in one word (`env NAME=value`, `export NAME=value`): the name and its value.
fn assignment_word(w: &Word) -> Option<(&str, EnvValue)> {
    let (name, value) = w.text.split_once('=').filter(|_| is_assignment(&w.text))?;
    Some((name, EnvValue::from_parts(w.literal, value, &w.raw)))
}

/// Index of the wrapped command in `args`: skips options (`with_value` ones take the next word),
/// `NAME=value` words (real for `env`/`sudo`, a failing command name elsewhere, so skipping them
/// is the conservative reading), then `positionals` operands (a duration).
fn after_options(args: &[Word], with_value: &[&str], positionals: usize) -> usize {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if t.len() > 1 && t.starts_with('-') {
            i += if with_value.contains(&t) { 2 } else { 1 };
            continue;
        }
        if is_assignment(t) {
            i += 1;
            continue;
        }
        break;
    }
    i + positionals
}

fn is_assignment(t: &str) -> bool {
    t.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The value of the first option named in `names` (separate word or `--name=value`).
fn option_value<'w>(args: &'w [Word], end: usize, names: &[&str]) -> Option<&'w Word> {
    let mut i = 0;
    while i < end.min(args.len()) {
        let t = args[i].text.as_str();
        if names.contains(&t) {
            return args.get(i + 1);
        }
        i += 1;
    }
    None
}

impl Walker<'_> {
    /// A simple command: its substitutions run first, then the command itself.
    pub(super) fn simple(&mut self, s: &Simple, input: Input<'_>) {
        for a in &s.assignments {
            self.guard_variable(&a.name);
            self.words(&a.values);
        }
        self.words(&s.words);
        self.redirects(&s.redirects);
        self.redirect_writes(s, &joined(&s.words));
        if s.words.is_empty() {
            // `GIT_DIR=x` alone: read as if exported (the conservative reading).
            self.exported = self.exported.overlaid(&env_of(&s.assignments));
            for a in &s.assignments {
                let value = match a.values.as_slice() {
                    [one] => self.expand_word(one, false).and_then(|w| w.into_iter().next()).map(|w| w.text),
                    // `a=(git push)`: the elements, blank-separated (for `"${a[@]}"`).
                    many => many.iter().map(Word::value).collect::<Option<Vec<_>>>().map(|v| v.join(" ")),
                };
                self.assign(&a.name, value);
            }
            return;
        }
        let mut ctx = Ctx {
            notes: Vec::new(),
            env: env_of(&s.assignments),
            ignore_exported: false,
            extra_dir: Vec::new(),
            from_stdin: false,
            stdin: stdin_of(&s.redirects, input),
            literal_stdin: super::syntax::literal_stdin(&s.redirects),
            text: joined(&s.words),
        };
        let braced = super::braces::braces(&s.words);
        if self.may_expand(&braced) {
            let words = self.expand_words(&braced);
            self.argv(&words, &mut ctx);
        } else {
            self.argv(&braced, &mut ctx);
        }
    }

    fn argv(&mut self, mut words: &[Word], ctx: &mut Ctx) {
        // Only the command word itself can name a shell function: `command git`, `env git`,
        // `sudo git` run the program.
        let mut function_position = true;
        loop {
            let Some(first) = words.first() else { return };
            if function_position
                && first.literal
                && !first.text.contains('/')
                && self.functions.contains_key(&first.text)
                && !self.active.contains(&first.text)
            {
                // A function defined in this call shadows a program of its name (`git() {…}`).
                let name = first.text.clone();
                if self.call_function(&name, &words[1..]) {
                    return;
                }
            }
            function_position = false;
            let base = basename(&first.text);
            if base.is_empty() || base.contains('$') || base.contains('`') || first.parameter_only {
                self.variable_command(words);
                return;
            }
            let args = &words[1..];
            let alias = if first.literal && !self.shell_aliases.is_empty() {
                self.shell_aliases.remove(&first.text)
            } else {
                None
            };
            if let Some(value) = alias {
                // The alias text replaces the command word; bash does not expand it again
                // inside its own expansion.
                let mut code = value.clone();
                for w in args {
                    code.push(' ');
                    code.push_str(&w.raw);
                }
                self.indirect_shell(&code, &format!("the shell alias `{}`", first.text), false);
                self.shell_aliases.insert(first.text.clone(), value);
                return;
            }
            let skip = match base {
                "git" => return self.git(args, ctx),
                "cd" => return self.cd(args),
                "export" | "declare" | "typeset" | "unset" | "local" | "readonly" => {
                    return self.export(base, args);
                }
                "read" | "mapfile" | "readarray" | "getopts" => return self.read_vars(args),
                "shift" => return self.shift(args),
                "set" => return self.set_positional(args),
                "alias" => return self.shell_alias(args),
                "unalias" => {
                    for w in args {
                        self.shell_aliases.remove(&w.text);
                    }
                    return;
                }
                "trap" => return self.trap(args),
                "shopt" => {
                    let on = args.iter().any(|w| w.text == "-s");
                    let off = args.iter().any(|w| w.text == "-u");
                    if args.iter().any(|w| w.text == "globstar") && (on || off) {
                        self.globstar = on;
                    }
                    return;
                }
                "pushd" => return self.pushd(args),
                "popd" => return self.popd(),
                "eval" => return self.eval(args),
                "source" | "." => return self.script_operand(args.first(), Interpreter::Shell, ctx),
                "find" => return self.find_exec(args, ctx),
                "env" => self.env_wrapper(args, ctx),
                "sudo" => Self::sudo_wrapper(args, ctx),
                "doas" => after_options(args, &["-u", "-C"], 0),
                "command" => {
                    if args
                        .iter()
                        .take_while(|w| w.text.starts_with('-'))
                        .any(|w| w.text.contains(['v', 'V']))
                    {
                        return;
                    }
                    after_options(args, &[], 0)
                }
                "builtin" => match args.first() {
                    // `builtin git …` fails: git is no shell builtin.
                    Some(next) if is_shell_builtin(&next.text) => 0,
                    _ => return,
                },
                "nohup" | "setsid" | "chronic" | "unbuffer" | "fakeroot" | "torsocks"
                | "dbus-run-session" | "catchsegv" | "rlwrap" | "pkexec" => after_options(args, &[], 0),
                "caffeinate" => after_options(args, &["-t", "-w"], 0),
                "flock" => match self.flock(args) {
                    Some(skip) => skip,
                    None => return,
                },
                "script" | "su" | "runuser" | "sg" => return self.shell_string_wrapper(base, args, ctx),
                "watch" => return self.watch(args),
                "taskset" => {
                    if args.iter().any(|w| w.text == "-p" || w.text == "--pid") {
                        return;
                    }
                    after_options(args, &[], 1)
                }
                "chrt" => {
                    if args.iter().any(|w| w.text == "-p" || w.text == "--pid") {
                        return;
                    }
                    after_options(
                        args,
                        &["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"],
                        1,
                    )
                }
                "systemd-run" => Self::systemd_run(args, ctx),
                "strace" | "ltrace" => after_options(
                    args,
                    &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-b", "-I", "-X"],
                    0,
                ),
                "prlimit" | "valgrind" | "firejail" | "numactl" | "unshare" | "nsenter" => {
                    after_options(args, &["-t", "--target", "-C", "--cpunodebind", "-m", "--membind"], 0)
                }
                "proxychains" | "proxychains4" => after_options(args, &["-f"], 0),
                "xvfb-run" => {
                    after_options(args, &["-n", "-s", "-e", "-f", "-p", "--server-num", "--server-args"], 0)
                }
                "cgexec" => after_options(args, &["-g"], 0),
                // A keyword where a command name should be (`nohup until git push; do …`) is a
                // syntax error in bash; reading past it is the conservative choice.
                "if" | "then" | "elif" | "else" | "while" | "until" | "do" | "!" | "{" | "coproc" => 0,
                "exec" => after_options(args, &["-a"], 0),
                "time" => after_options(args, &["-f", "--format", "-o", "--output"], 0),
                "nice" => after_options(args, &["-n", "--adjustment"], 0),
                "ionice" => after_options(args, &["-c", "--class", "-n", "--classdata"], 0),
                "stdbuf" => after_options(args, &["-i", "-o", "-e", "--input", "--output", "--error"], 0),
                "timeout" => after_options(args, &["-s", "--signal", "-k", "--kill-after"], 1),
                "xargs" => {
                    ctx.from_stdin = true;
                    after_options(
                        args,
                        &[
                            "-I",
                            "-a",
                            "-d",
                            "-E",
                            "-L",
                            "-n",
                            "-P",
                            "-s",
                            "--arg-file",
                            "--delimiter",
                            "--max-args",
                        ],
                        0,
                    )
                }
                _ => return self.other(base, first, args, ctx),
            };
            words = args.get(skip..).unwrap_or_default();
        }
    }

    fn other(&mut self, base: &str, first: &Word, args: &[Word], ctx: &Ctx) {
        if let Some(what) = commits_by_itself(base, args) {
            // Release tools and git's external commands run git themselves.
            self.unseen_calls = true;
            self.committing_program(format!(
                "`{}`: {what}; what it commits, tags and pushes cannot be seen",
                ctx.text
            ));
            self.dynamic_write(&ctx.text);
            return;
        }
        if let Some(code) = runner_code(base, args) {
            // `npx -c CODE`, `npm exec -c CODE`, GNU `parallel`: shell code it runs.
            for code in code {
                self.indirect_shell(&code, &format!("`{base}`"), true);
            }
            return;
        }
        self.file_effects(base, args, ctx.from_stdin, ctx.literal_stdin.as_deref(), &ctx.text);
        if self.program_call(base, args, &ctx.extra_dir, &ctx.text) {
            return;
        }
        match interpreter_of(base) {
            Some(Interpreter::Shell) => self.shell(base, args, ctx),
            Some(lang @ (Interpreter::Python | Interpreter::Node)) => self.interpreter(lang, args, ctx),
            Some(Interpreter::Shebang) | None => {
                if let Some(code_flags) = foreign_code_flags(base) {
                    return self.foreign(base, code_flags, args, ctx);
                }
                if self.call_function(&first.text, args) {
                    return;
                }
                if first.text.contains('/') {
                    if base == "codeguard" {
                        // codeguard by its path: its controls are guarded whatever spells it.
                        self.guard_codeguard(args);
                    }
                    // A program on disk: [`crate::intent`] reads it (what it cannot read into
                    // may write anything).
                    return self.push_script(first.text.clone(), Interpreter::Shebang, ctx);
                }
                self.unknown_program(base, args, ctx.literal_stdin.as_deref(), &ctx.text);
            }
        }
    }

    /// `read x`, `mapfile a`: the variables get values only known at run time.
    fn read_vars(&mut self, args: &[Word]) {
        let mut i = 0;
        while let Some(w) = args.get(i) {
            i += 1;
            if w.text.starts_with('-') {
                i += usize::from(matches!(
                    w.text.as_str(),
                    "-a" | "-d" | "-n" | "-N" | "-p" | "-t" | "-u" | "-C" | "-c" | "-O" | "-s"
                ));
                continue;
            }
            self.assign(&w.text, None);
        }
    }

    /// `set -- WORDS` / `set WORDS`: the positional parameters become the words.
    fn set_positional(&mut self, args: &[Word]) {
        let words = match args.iter().position(|w| w.text == "--") {
            Some(i) => &args[i + 1..],
            None if args.first().is_some_and(|w| !w.text.starts_with(['-', '+'])) => args,
            None => return,
        };
        self.positional = Some(words.to_vec());
    }

    /// `alias NAME=VALUE …`: a shell alias later command words may expand to (conservatively,
    /// whether or not the shell has `expand_aliases` on).
    fn shell_alias(&mut self, args: &[Word]) {
        for w in args {
            if let Some((name, value)) = w.text.split_once('=') {
                if w.literal {
                    self.shell_aliases.insert(name.to_owned(), value.to_owned());
                } else {
                    self.shell_aliases.insert(name.to_owned(), w.raw.clone());
                    self.dynamic(&format!("`alias {}`", w.raw));
                }
            }
        }
    }

    /// `shift [N]` inside a function: drops positional parameters.
    fn shift(&mut self, args: &[Word]) {
        let n = args.first().map_or(Some(1), |w| w.value().and_then(|t| t.parse::<usize>().ok()));
        if let Some(p) = self.positional.as_mut() {
            match n {
                Some(n) => {
                    p.drain(..n.min(p.len()));
                }
                None => self.positional = None,
            }
        }
    }

    /// `trap 'CODE' EXIT INT …`: the code runs in this shell when the signal comes (`trap -`,
    /// `trap -p`, `trap ''` run nothing).
    fn trap(&mut self, args: &[Word]) {
        let args = match args.first() {
            Some(w) if w.text == "--" => &args[1..],
            _ => args,
        };
        let [code, _signal, ..] = args else { return };
        if code.text.starts_with('-') && code.literal {
            return;
        }
        if code.literal {
            let code = code.text.clone();
            self.indirect_shell(&code, "`trap` code", false);
        } else {
            self.dynamic(&format!("`trap {}`", code.raw));
        }
    }

    /// `flock [opts] FILE CMD…` / `flock [opts] FILE -c CODE` / `flock FD`: the index of the
    /// command, or `None` when there is none (or the code was walked here).
    fn flock(&mut self, args: &[Word]) -> Option<usize> {
        let end = after_options(args, &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"], 0);
        let code = option_value(args, end, &["-c", "--command"]).or_else(|| {
            args.get(end + 1)
                .filter(|w| matches!(w.text.as_str(), "-c" | "--command"))
                .and_then(|_| args.get(end + 2))
        });
        if let Some(code) = code {
            if code.literal {
                let code = code.text.clone();
                self.indirect_shell(&code, "`flock -c`", true);
            } else {
                self.dynamic(&format!("`flock -c {}`", code.raw));
            }
            return None;
        }
        let lock = args.get(end)?;
        if lock.text.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(end + 1)
    }

    /// `script -qec CODE /dev/null`, `su [user] -c CODE`, `runuser … -c CODE`, `sg GROUP -c CODE`
    /// or `sg GROUP CODE`: a shell runs the code.
    fn shell_string_wrapper(&mut self, base: &str, args: &[Word], ctx: &Ctx) {
        let mut code = None;
        for (i, w) in args.iter().enumerate() {
            let t = w.text.as_str();
            if t == "--command" || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('c')) {
                code = args.get(i + 1);
                break;
            }
            if let Some(v) = t.strip_prefix("--command=") {
                let _ = v;
                code = Some(w);
                break;
            }
        }
        if base == "runuser" && code.is_none() {
            // `runuser -u USER -- CMD …`
            if let Some(dd) = args.iter().position(|w| w.text == "--") {
                let mut inner = ctx.clone();
                return self.argv(&args[dd + 1..], &mut inner);
            }
        }
        if base == "sg" && code.is_none() {
            code = args.iter().filter(|w| !w.text.starts_with('-')).nth(1);
        }
        let Some(code) = code else { return };
        let text = code.text.strip_prefix("--command=").unwrap_or(&code.text).to_owned();
        if code.literal {
            self.indirect_shell(&text, &format!("`{base} -c`"), true);
        } else {
            self.dynamic(&format!("`{base} -c {}`", code.raw));
        }
    }

    /// `watch [opts] CMD…`: watch joins the words and hands them to `sh -c`.
    fn watch(&mut self, args: &[Word]) {
        let end = after_options(args, &["-n", "--interval", "-d", "-q", "--equexit"], 0);
        let rest = args.get(end..).unwrap_or_default();
        if rest.is_empty() {
            return;
        }
        if rest.iter().all(|w| w.literal) {
            let code = rest.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
            self.indirect_shell(&code, "`watch`", true);
        } else {
            self.dynamic(&format!("`watch {}`", joined(rest)));
        }
    }

    /// `systemd-run [opts] CMD…`: the unit runs in `/` unless `--same-dir`/`-d` or
    /// `--working-directory=DIR` say otherwise.
    fn systemd_run(args: &[Word], ctx: &mut Ctx) -> usize {
        let with_value = [
            "-p",
            "--property",
            "-u",
            "--unit",
            "-E",
            "--setenv",
            "-M",
            "--machine",
            "-H",
            "--host",
            "--description",
            "--slice",
            "--nice",
            "--uid",
            "--gid",
            "--working-directory",
            "--on-calendar",
            "--on-active",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "-s",
            "--service-type",
        ];
        let end = after_options(args, &with_value, 0);
        let mut dir = DirPart::Unknown("`systemd-run` (the unit's working directory)".into());
        for (i, w) in args.iter().take(end).enumerate() {
            match w.text.as_str() {
                "-d" | "--same-dir" => dir = DirPart::Path(".".into()),
                "--working-directory" => {
                    if let Some(d) = args.get(i + 1) {
                        dir = git::word_dir(d);
                    }
                }
                t if t.starts_with("--working-directory=") => {
                    dir = git::word_dir(&Word::literal(&t["--working-directory=".len()..]));
                }
                _ => {}
            }
        }
        ctx.extra_dir.push(dir);
        end
    }

    /// `perl -e`, `ruby -e`, `awk 'PROGRAM'`, `php -r`, `lua -e`, `deno eval`, `Rscript -e`…:
    /// inline code of an interpreter we do not model. One rule for all of them: code that runs
    /// a command (a `system`/`exec`/`spawn`/`popen` call, backticks, `qx`/`%x`, a pipe) and
    /// names git with a commit or push word blocks; a mere mention (`print "git push"`) does
    /// not. Code on stdin is read the same way; a script file is not read.
    fn foreign(&mut self, base: &str, code_flags: &[&str], args: &[Word], ctx: &Ctx) {
        let awk = base.ends_with("awk");
        let mut i = 0;
        let mut from_file = false;
        let mut saw_code = false;
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            let code = if code_flags.contains(&t) {
                args.get(i + 1)
            } else if t.len() > 2
                && t.starts_with('-')
                && !t.starts_with("--")
                && code_flags.iter().any(|f| f.len() == 2 && t.ends_with(&f[1..]))
                && t[1..t.len() - 1].chars().all(|c| "naplsw".contains(c))
                && !awk
            {
                // `perl -ne CODE`, `ruby -pe CODE`: a cluster ending in the code flag.
                args.get(i + 1)
            } else if base == "deno" && t == "eval" {
                args.get(i + 1)
            } else if t == "-f" || t == "--file" {
                from_file = true;
                i += 2;
                continue;
            } else if t == "-" {
                return self.foreign_stdin(base, ctx);
            } else if t.starts_with('-') && t.len() > 1 {
                i += 1 + usize::from(awk && matches!(t, "-F" | "-v" | "--field-separator" | "--assign"));
                continue;
            } else if awk && !from_file {
                Some(w)
            } else if base == "deno" || saw_code {
                // Operands after the code are its input files.
                return;
            } else {
                // `perl t.pl`, `ruby x.rb`: a program on disk in a language that is not modelled
                // may run git and write anything.
                self.unseen_calls = true;
                self.opaque(
                    format!("`{}` runs the {base} program `{}`, which is not modelled", ctx.text, w.raw),
                    Some(Mode::Push),
                    Severity::Unverified,
                );
                return self.dynamic_write(&ctx.text);
            };
            match code {
                Some(c) if c.literal => {
                    let code = c.text.clone();
                    let what =
                        if awk && !t.starts_with('-') { "program".to_owned() } else { format!("`{t}` code") };
                    self.foreign_code(base, &code, &what, false);
                }
                Some(c) => self.dynamic(&format!("`{base} {t} {}`", c.raw)),
                None => {}
            }
            saw_code = true;
            i += 2;
            if awk {
                return;
            }
        }
        if args.iter().all(|w| w.text.starts_with('-')) {
            self.foreign_stdin(base, ctx);
        }
    }

    fn foreign_stdin(&mut self, base: &str, ctx: &Ctx) {
        match &ctx.stdin {
            Stdin::Code(code) => {
                let code = code.clone();
                self.foreign_code(base, &code, "code fed on stdin", false);
            }
            Stdin::Dynamic(what) => {
                let what = format!("`{base}` reading {what}");
                self.dynamic(&what);
            }
            Stdin::None | Stdin::File(_) => {}
        }
    }

    fn foreign_code(&mut self, base: &str, code: &str, what: &str, strings: bool) {
        if let Some(mode) = program::runs_git(code, strings) {
            self.opaque(
                format!(
                    "{base} {what} runs a command naming git {}: a {base} program cannot be modelled",
                    mode.as_str()
                ),
                Some(mode),
                Severity::Block,
            );
        }
    }

    /// `$g push`, `${GIT:-git} commit`, `$(which git) push`: only a commit/push-looking word, or
    /// a git sub-command that writes the index as the second word, makes it worth a note, and
    /// then it is never silent.
    fn variable_command(&mut self, words: &[Word]) {
        self.unseen_calls = true;
        let text = joined(words);
        if let Some(mode) = looks_like(&text).or(self.source_looks) {
            self.opaque(
                format!("`{text}` runs a command named by a variable; it may be a git {}", mode.as_str()),
                Some(mode),
                Severity::Unverified,
            );
        } else if words.get(1).is_some_and(|w| git::changes_content(&w.text)) {
            // `$(echo git) add x`: it may stage what a later commit takes.
            self.opaque(
                format!("`{text}` runs a command named by a variable; it may be a git {}", words[1].text),
                None,
                Severity::Unverified,
            );
        }
    }

    /// A dynamic string handed to a shell or interpreter: never silently passed.
    fn dynamic(&mut self, what: &str) {
        self.unseen_calls = true;
        let looks = self.source_looks;
        self.opaque(
            format!("{what}: the code only exists at run time and cannot be checked"),
            looks,
            Severity::Unverified,
        );
    }

    /// `export NAME=value`, `declare -x NAME=value`, `unset NAME`: the git location variables
    /// later commands inherit.
    fn export(&mut self, builtin: &str, args: &[Word]) {
        let exporting =
            builtin == "export" || args.iter().any(|w| w.text.starts_with('-') && w.text.contains('x'));
        for w in args.iter().filter(|w| !w.text.starts_with('-')) {
            if builtin != "unset" {
                self.assign_word(w);
            }
            if builtin == "unset" {
                self.exported.set(&w.text, None);
            } else if let Some((name, value)) = assignment_word(w).filter(|_| exporting) {
                self.guard_variable(name);
                self.exported.set(name, Some(value));
            } else if !w.literal && exporting {
                // `export "$VARS"`: which names it sets is only known at run time.
                for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG"] {
                    if w.raw.contains(name) {
                        self.exported.set(name, Some(EnvValue::Dynamic(w.raw.clone())));
                    }
                }
            }
        }
    }

    /// `declare x=v`, `local x="$1"`: the variable's value when it is known.
    fn assign_word(&mut self, w: &Word) {
        let expanded = self.expand_word(w, false).and_then(|ws| ws.into_iter().next());
        let text = expanded.as_ref().map_or(w.text.as_str(), |e| e.text.as_str());
        let Some((name, value)) = text.split_once('=').filter(|_| is_assignment(text)) else { return };
        // `declare -a A=(…)` reaches here split into words: an array, not a string.
        let value = expanded.as_ref().map(|_| value.to_owned()).filter(|v| !v.starts_with('('));
        self.assign(name, value);
    }

    fn git(&mut self, args: &[Word], ctx: &Ctx) {
        let g = git::globals(args);
        let Some(si) = g.sub else {
            if ctx.from_stdin {
                // `… | xargs git`: the sub-command itself comes from stdin.
                self.unseen_calls = true;
                self.opaque(
                    format!("`{}`: git's sub-command comes from stdin, only known at run time", ctx.text),
                    Some(Mode::Push),
                    Severity::Unverified,
                );
            }
            return;
        };
        let sub = &args[si];
        if sub.text == "submodule"
            && let Some(at) = args[si + 1..].iter().position(|w| w.text == "foreach")
        {
            // `git submodule foreach CODE`: shell code run in each submodule.
            let code: Vec<&str> = args[si + 1 + at + 1..]
                .iter()
                .filter(|w| !w.text.starts_with("--") && w.text != "-q")
                .map(|w| w.raw.as_str())
                .collect();
            let code = code.join(" ");
            if let Some(mode) = looks_like(&code).or(if code.contains('$') { Some(Mode::Push) } else { None })
            {
                self.unseen_calls = true;
                self.opaque(
                    format!("`git submodule foreach` runs `{code}` in each submodule: those repositories are not modelled"),
                    Some(mode),
                    Severity::Unverified,
                );
            }
            return;
        }
        if !sub.literal {
            // `git $C`: which command runs is only known at run time: never a silent pass.
            self.unseen_calls = true;
            let looks = looks_like(&ctx.text).or(self.source_looks);
            self.opaque(
                format!("`{}`: the git sub-command is only known at run time", ctx.text),
                looks,
                Severity::Unverified,
            );
            return;
        }
        let globbed;
        let args = if self.globstar && args[si + 1..].iter().any(|w| w.text.contains("**") && w.raw == w.text)
        {
            // The shell expands `**` recursively before git sees it: git's own `:(glob)` magic
            // matches the same paths.
            globbed = args
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if i > si && w.text.contains("**") && w.raw == w.text && !w.text.starts_with([':', '-']) {
                        Word { text: format!(":(glob){}", w.text), ..w.clone() }
                    } else {
                        w.clone()
                    }
                })
                .collect::<Vec<_>>();
            &globbed[..]
        } else {
            args
        };
        let sub = &args[si];
        self.git_writes(&sub.text, &args[si + 1..], &ctx.text);
        if !git::is_builtin(&sub.text) {
            return self.git_alias(args, si, &g, ctx);
        }
        if let Some((name, value)) =
            (sub.text == "config").then(|| git::alias_definition(&args[si + 1..])).flatten()
        {
            self.aliases.insert(name, value);
        }
        let Some(op) = git::sub_op(&sub.text, &args[si + 1..], ctx.from_stdin) else { return };
        let mut dir = self.dir.clone();
        dir.extend(ctx.extra_dir.iter().cloned());
        dir.extend(g.dirs);
        let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
        let env = inherited.overlaid(&ctx.env).overlaid(&g.env);
        self.out.steps.push(Step::Git(GitCall {
            op,
            dir,
            chain: self.chain,
            depth: self.depth,
            inline_skip_gate: g.skip_gate,
            notes: ctx.notes.clone(),
            env,
            text: ctx.text.clone(),
        }));
    }

    /// `git NAME …` where NAME is no git command: an alias given by `-c alias.NAME=…` or
    /// defined earlier in the command is expanded here; any other is left for
    /// [`crate::intent`] to look up in the git config ([`Step::Alias`]).
    fn git_alias(&mut self, args: &[Word], si: usize, g: &git::Globals, ctx: &Ctx) {
        let name = args[si].text.to_ascii_lowercase();
        let value = match g.aliases.iter().rev().find(|(n, _)| *n == name) {
            Some((_, v)) => Some(Some(v.clone())),
            None => self.aliases.get(&name).cloned(),
        };
        match value {
            Some(Some(value)) => self.expand_alias(&name, &value, args, si, ctx),
            Some(None) => {
                let looks = looks_like(&ctx.text).or(self.source_looks);
                self.opaque(
                    format!(
                        "`{}`: the alias `{name}` is defined with a value only known at run time",
                        ctx.text
                    ),
                    looks,
                    Severity::Unverified,
                );
            }
            None => {
                let mut dir = self.dir.clone();
                dir.extend(ctx.extra_dir.iter().cloned());
                let mut config_dir = dir.clone();
                config_dir.extend(g.dirs.iter().cloned());
                let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
                self.out.steps.push(Step::Alias(AliasCall {
                    name,
                    words: args.to_vec(),
                    sub: si,
                    dir,
                    config_dir,
                    chain: self.chain,
                    depth: self.depth,
                    env: inherited.overlaid(&ctx.env),
                    from_stdin: ctx.from_stdin,
                    seen: self.alias_stack.clone(),
                    notes: ctx.notes.clone(),
                    text: ctx.text.clone(),
                }));
            }
        }
    }

    /// Most aliases expanded through one another (git itself stops at a loop).
    const MAX_ALIAS_DEPTH: usize = 8;

    /// Runs the alias `name` = `value` for the git words `args` (sub-command at `si`). A plain
    /// alias replaces the sub-command by its words; a `!` alias is shell code run from the top
    /// of the worktree with the remaining words as `"$@"`, one indirection level down.
    fn expand_alias(&mut self, name: &str, value: &str, args: &[Word], si: usize, ctx: &Ctx) {
        if self.alias_stack.len() >= Self::MAX_ALIAS_DEPTH || self.alias_stack.iter().any(|n| n == name) {
            return;
        }
        self.alias_stack.push(name.to_owned());
        let rest = args.get(si + 1..).unwrap_or_default();
        if let Some(code) = value.strip_prefix('!') {
            let g = git::globals(args);
            let saved_dir = self.dir.clone();
            self.dir.extend(ctx.extra_dir.iter().cloned());
            self.dir.extend(g.dirs);
            self.dir.push(DirPart::Toplevel);
            let inherited = if ctx.ignore_exported { GitEnv::default() } else { self.exported.clone() };
            let saved_env =
                std::mem::replace(&mut self.exported, inherited.overlaid(&ctx.env).overlaid(&g.env));
            let saved_args = self.positional.replace(rest.to_vec());
            let code = if rest.is_empty() { code.to_owned() } else { format!("{code} \"$@\"") };
            self.indirect_shell(&code, &format!("the shell alias `git {name}`"), true);
            self.positional = saved_args;
            self.exported = saved_env;
            self.dir = saved_dir;
        } else if let Some(words) = expand::split_cmdline(value) {
            let mut expanded = args[..si].to_vec();
            expanded.extend(words.iter().map(|w| Word::literal(w)));
            expanded.extend_from_slice(rest);
            self.git(&expanded, ctx);
        }
        self.alias_stack.pop();
    }

    /// The alias call [`crate::intent`] found a value for in the git config.
    pub(super) fn resolved_alias(&mut self, call: &AliasCall, value: &str) {
        self.dir.clone_from(&call.dir);
        self.chain = call.chain;
        self.exported = call.env.clone();
        self.alias_stack.clone_from(&call.seen);
        let ctx = Ctx {
            notes: call.notes.clone(),
            env: GitEnv::default(),
            ignore_exported: false,
            extra_dir: Vec::new(),
            from_stdin: call.from_stdin,
            stdin: Stdin::None,
            literal_stdin: None,
            text: call.text.clone(),
        };
        self.expand_alias(&call.name, value, &call.words, call.sub, &ctx);
    }

    fn cd(&mut self, args: &[Word]) {
        let target = args.iter().find(|w| !(w.text.starts_with('-') && w.text.len() > 1));
        let part = match target {
            None => DirPart::Unknown("`cd` with no directory (home)".into()),
            Some(w) if w.text == "-" => DirPart::Unknown("`cd -`".into()),
            Some(w) => git::word_dir(w),
        };
        self.enter(part);
    }

    fn enter(&mut self, part: DirPart) {
        if matches!(&part, DirPart::Path(p) if p.starts_with('/')) {
            self.dir.clear();
        }
        self.dir.push(part);
    }

    fn pushd(&mut self, args: &[Word]) {
        let target = args.iter().find(|w| w.text != "-n");
        self.stack.push(self.dir.clone());
        match target {
            Some(w) if !w.text.starts_with(['+', '-']) => self.enter(git::word_dir(w)),
            _ => self.enter(DirPart::Unknown("`pushd` rotating the directory stack".into())),
        }
    }

    fn popd(&mut self) {
        self.dir = self
            .stack
            .pop()
            .unwrap_or_else(|| vec![DirPart::Unknown("`popd` with an empty directory stack".into())]);
    }

    fn eval(&mut self, args: &[Word]) {
        if args.is_empty() {
            return;
        }
        if args.iter().all(|w| w.literal) {
            let code = args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
            self.indirect_shell(&code, "`eval`", false);
        } else {
            self.dynamic(&format!("`eval {}`", joined(args)));
        }
    }

    fn env_wrapper(&mut self, args: &[Word], ctx: &mut Ctx) -> usize {
        let with_value = ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"];
        let end = after_options(args, &with_value, 0);
        if let Some(d) = option_value(args, end, &["-C", "--chdir"]) {
            ctx.extra_dir.push(git::word_dir(d));
        }
        if let Some(s) = option_value(args, end, &["-S", "--split-string"]) {
            if s.literal {
                let code = s.text.clone();
                self.indirect_shell(&code, "`env -S`", true);
            } else {
                self.dynamic("`env -S` with a computed string");
            }
        }
        let mut i = 0;
        while let Some(w) = args.get(i).filter(|_| i < end) {
            i += 1;
            if let Some((name, value)) = assignment_word(w) {
                self.guard_variable(name);
                ctx.env.set(name, Some(value));
            } else if w.text == "-i" || w.text == "--ignore-environment" || w.text == "-" {
                ctx.env = GitEnv::default();
                ctx.ignore_exported = true;
                // The session's git configuration (its backstop's hooks path) is gone too.
                ctx.env.set("GIT_CONFIG_COUNT", None);
            } else if let Some(name) = w
                .text
                .strip_prefix("--unset=")
                .or_else(|| w.text.strip_prefix("-u").filter(|n| !n.is_empty()))
            {
                ctx.env.set(name, None);
            } else if (w.text == "-u" || w.text == "--unset")
                && let Some(name) = args.get(i)
            {
                ctx.env.set(&name.text, None);
            }
        }
        end
    }

    fn sudo_wrapper(args: &[Word], ctx: &mut Ctx) -> usize {
        let with_value = [
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-U",
            "-T",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--chdir",
            "--role",
            "--type",
            "--other-user",
            "--close-from",
            "--command-timeout",
        ];
        let end = after_options(args, &with_value, 0);
        if let Some(d) = option_value(args, end, &["-D", "--chdir"]) {
            ctx.extra_dir.push(git::word_dir(d));
        }
        // sudo resets the environment unless told to keep it: the session's git configuration
        // (its backstop's hooks path) does not reach the command.
        if !args[..end].iter().any(|w| w.text == "-E" || w.text.starts_with("--preserve-env")) {
            ctx.env.set("GIT_CONFIG_COUNT", None);
        }
        end
    }

    /// `bash [-opts] -c CODE`, `bash script.sh`, `bash -s` / `bash` reading stdin.
    fn shell(&mut self, base: &str, args: &[Word], ctx: &Ctx) {
        let (mut command_mode, mut stdin_mode, mut noexec) = (false, false, false);
        let mut i = 0;
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            if t == "--" || t == "-" {
                stdin_mode |= t == "-";
                i += 1;
                break;
            }
            if !(t.len() > 1 && (t.starts_with('-') || t.starts_with('+'))) {
                break;
            }
            i += 1;
            if t.starts_with("--") {
                i += usize::from(matches!(t, "--rcfile" | "--init-file"));
                continue;
            }
            let on = t.starts_with('-');
            command_mode |= t.contains('c');
            stdin_mode |= t.contains('s');
            // `bash -n` / `-o noexec`: read the commands, run none of them.
            noexec |= on && t.contains('n');
            if t.contains(['o', 'O']) {
                noexec |= on && args.get(i).is_some_and(|o| o.text == "noexec");
                i += 1;
            }
        }
        if noexec {
            return;
        }
        if command_mode {
            match args.get(i) {
                Some(w) if w.literal => {
                    // `bash -c CODE NAME ARGS…`: ARGS are the code's `"$@"`.
                    let saved = self.positional.replace(args.get(i + 2..).unwrap_or_default().to_vec());
                    self.indirect_shell(&w.text.clone(), &format!("`{base} -c`"), true);
                    self.positional = saved;
                }
                Some(w) => self.dynamic(&format!("`{base} -c {}`", w.raw)),
                None => {}
            }
        } else if stdin_mode || i >= args.len() {
            self.stdin_code(base, Interpreter::Shell, ctx);
        } else {
            self.script_operand(args.get(i), Interpreter::Shell, ctx);
        }
    }

    /// `python [-opts] -c CODE | -m MOD | script | -`, `node -e CODE | script | -`.
    fn interpreter(&mut self, lang: Interpreter, args: &[Word], ctx: &Ctx) {
        let (code_flags, value_flags): (&[&str], &[&str]) = match lang {
            Interpreter::Python => (&["-c"], &["-W", "-X", "--check-hash-based-pycs"]),
            Interpreter::Node | Interpreter::Shell | Interpreter::Shebang => (
                &["-e", "--eval", "-p", "--print"],
                &["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"],
            ),
        };
        let mut i = 0;
        while let Some(w) = args.get(i) {
            let t = w.text.as_str();
            if code_flags.contains(&t) {
                match args.get(i + 1) {
                    Some(code) if code.literal => {
                        let code = code.text.clone();
                        self.inline_code_writes(&code, &ctx.text);
                        self.inline_program(&code, lang, &format!("`{t}` code"));
                    }
                    Some(code) => self.dynamic(&format!("`{} {}`", t, code.raw)),
                    None => {}
                }
                return;
            }
            if t == "-m" {
                // A module runs: what it writes is unknown, unless it is one known to write nothing.
                if args.get(i + 1).is_none_or(|m| super::effects::python_module_may_write(&m.text)) {
                    self.dynamic_write(&ctx.text);
                }
                return;
            }
            if t == "--version" || t == "-V" || t == "--help" || t == "-h" {
                return;
            }
            if t == "-" {
                return self.stdin_code("interpreter", lang, ctx);
            }
            if !t.starts_with('-') || t.len() == 1 {
                return self.script_operand(Some(w), lang, ctx);
            }
            i += if value_flags.contains(&t) { 2 } else { 1 };
        }
        self.stdin_code("interpreter", lang, ctx);
    }

    /// Code an interpreter reads from stdin.
    fn stdin_code(&mut self, program: &str, lang: Interpreter, ctx: &Ctx) {
        match &ctx.stdin {
            Stdin::None => {}
            Stdin::Code(code) => match lang {
                Interpreter::Shell | Interpreter::Shebang => {
                    self.indirect_shell(code, &format!("commands fed to `{program}` on stdin"), true);
                }
                Interpreter::Python | Interpreter::Node => {
                    let code = code.clone();
                    self.inline_program(&code, lang, "code fed on stdin");
                }
            },
            Stdin::File(path) => {
                let path = path.clone();
                self.push_script(path, lang, ctx);
            }
            Stdin::Dynamic(what) => {
                let what = format!("`{program}` reading {what}");
                self.dynamic(&what);
            }
        }
    }

    fn script_operand(&mut self, operand: Option<&Word>, lang: Interpreter, ctx: &Ctx) {
        match operand {
            Some(w) if w.literal => self.push_script(w.text.clone(), lang, ctx),
            Some(w) => self.dynamic(&format!("script `{}`", w.raw)),
            None => {}
        }
    }

    fn push_script(&mut self, path: String, interpreter: Interpreter, ctx: &Ctx) {
        let mut dir = self.dir.clone();
        dir.extend(ctx.extra_dir.iter().cloned());
        self.out.steps.push(Step::Script(ScriptRun {
            path,
            dir,
            interpreter,
            chain: self.chain,
            depth: self.depth,
            text: ctx.text.clone(),
        }));
    }

    /// Inline Python/Node code: its git call forms, and then the one rule for inline code of
    /// every interpreter (a command run with git and a commit/push word in the code blocks).
    fn inline_program(&mut self, code: &str, lang: Interpreter, what: &str) {
        let before = self.out.opaque.len();
        self.program(code, lang, what);
        if self.out.opaque[before..].iter().any(|o| o.severity == Severity::Block) {
            return;
        }
        let base = match lang {
            Interpreter::Python => "python",
            Interpreter::Node | Interpreter::Shell | Interpreter::Shebang => "node",
        };
        self.foreign_code(base, code, what, true);
    }

    /// Scans Python/Node code for git call forms.
    pub(super) fn program(&mut self, code: &str, lang: Interpreter, what: &str) {
        let parser = self.parser;
        let shell = |cmd: &str| -> Vec<Effect> {
            let a = analyse_with(parser, cmd, 1);
            let mut effects: Vec<Effect> = a.mode().map(Effect::Runs).into_iter().collect();
            if a.git_calls().any(|c| matches!(c.op, super::GitOp::SetSkipGate { .. })) {
                effects.push(Effect::SkipGate);
            }
            effects
        };
        let name = match lang {
            Interpreter::Python => "python",
            Interpreter::Node => "node",
            Interpreter::Shell | Interpreter::Shebang => "program",
        };
        for call in program::scan(code, &shell) {
            match call.effect {
                Effect::Runs(mode) => self.opaque(
                    format!(
                        "{name} {what} runs git {} (`{}`): a {name} program cannot be modelled",
                        mode.as_str(),
                        call.text
                    ),
                    Some(mode),
                    Severity::Block,
                ),
                Effect::SkipGate => self.opaque(
                    format!("{name} {what} changes codeguard.skipGate (`{}`)", call.text),
                    Some(Mode::Commit),
                    Severity::Unverified,
                ),
            }
        }
    }

    /// `find … -exec git add {} \;` and `-execdir`.
    fn find_exec(&mut self, args: &[Word], ctx: &Ctx) {
        let mut i = 0;
        while i < args.len() {
            let t = args[i].text.as_str();
            if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let rest = &args[i + 1..];
                let end = rest.iter().position(|w| w.text == ";" || w.text == "+").unwrap_or(rest.len());
                let mut inner = ctx.clone();
                inner.from_stdin = true;
                if t.ends_with("dir") {
                    inner.extra_dir.push(DirPart::Unknown(format!("`find {t}` (each match's directory)")));
                }
                self.argv(&rest[..end], &mut inner);
                i += end + 1;
            }
            i += 1;
        }
    }
}

/// Where a command's stdin comes from.
fn stdin_of(redirects: &[Redirect], input: Input<'_>) -> Stdin {
    for r in redirects.iter().rev() {
        match r {
            Redirect::HereDoc { body, .. } => return Stdin::Code(body.clone()),
            Redirect::HereString(w) if w.literal => return Stdin::Code(w.text.clone()),
            Redirect::HereString(w) => return Stdin::Dynamic(format!("the here-string `{}`", w.raw)),
            Redirect::ReadFile(w) if w.literal => return Stdin::File(w.text.clone()),
            Redirect::ReadFile(w) => return Stdin::Dynamic(format!("the file `{}`", w.raw)),
            Redirect::Process(_) | Redirect::File(_) | Redirect::Write { .. } => {}
        }
    }
    match input {
        Input::Inherited => Stdin::None,
        Input::Pipe(cmd) => piped(cmd),
    }
}

/// What the previous pipeline member writes, when it is literal text.
fn piped(cmd: &Command) -> Stdin {
    let Command::Simple(s) = cmd else { return Stdin::Dynamic("the output of a compound command".into()) };
    let name = s.words.first().map_or("", |w| basename(&w.text));
    let args = s.words.get(1..).unwrap_or_default();
    let literal = args.iter().all(|w| w.literal);
    match name {
        "echo" if literal => {
            let text: Vec<&str> = args
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|t| matches!(*t, "-n" | "-e" | "-E"))
                .collect();
            Stdin::Code(text.join(" "))
        }
        "printf" if literal => {
            let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            Stdin::Code(text.join(" ").replace("\\n", "\n"))
        }
        "cat" if args.is_empty() => stdin_of(&s.redirects, Input::Inherited),
        _ => Stdin::Dynamic(format!("the output of `{}`", joined(&s.words))),
    }
}
