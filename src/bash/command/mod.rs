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

mod git_calls;
mod interpreters;
mod wrappers;

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

/// The `shopt` options that change what an unquoted glob matches (see `Walker::glob_option`).
const GLOB_OPTIONS: [&str; 6] =
    ["extglob", "nocaseglob", "dotglob", "nullglob", "failglob", "globasciiranges"];

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
            let readings = if first.literal && !self.shell_aliases.is_empty() {
                self.alias_readings(&first.text)
            } else {
                None
            };
            if let Some((values, literal)) = readings {
                // Each alias text that may be in effect replaces the command word (bash does not
                // expand it again inside its own expansion); the word as written is judged too
                // unless the alias is in effect for sure (see `alias_readings`).
                let defs = self.shell_aliases.remove(&first.text);
                let sure = !literal && values.len() == 1;
                for value in &values {
                    let mut code = value.clone();
                    for w in args {
                        code.push(' ');
                        code.push_str(&w.raw);
                    }
                    let what = format!("the shell alias `{}`", first.text);
                    if sure {
                        self.indirect_shell(&code, &what, false);
                    } else {
                        self.maybe(|w| w.indirect_shell(&code, &what, false));
                    }
                }
                if let Some(defs) = defs {
                    self.shell_aliases.insert(first.text.clone(), defs);
                }
                if !literal {
                    return;
                }
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
                    let def = self.alias_def(None);
                    for w in args {
                        self.shell_aliases.entry(w.text.clone()).or_default().push(def.clone());
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
                    if args.iter().any(|w| w.text == "expand_aliases") && (on || off) {
                        self.expand_aliases =
                            (self.conditional == 0 && self.nesting == 0).then_some((on, self.line));
                    }
                    if let Some(option) = args.iter().find(|w| GLOB_OPTIONS.contains(&w.text.as_str())) {
                        if on {
                            self.glob_option = Some(option.text.clone());
                        } else if off && self.glob_option.as_deref() == Some(option.text.as_str()) {
                            self.glob_option = None;
                        }
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
                    // Code, or a path, that names codeguard's own files writes them, as far as
                    // the gate knows.
                    self.named_writes(args, &ctx.text);
                    return self.foreign(base, code_flags, args, ctx);
                }
                if self.call_function(&first.text, args) {
                    return;
                }
                if first.text.contains('/') {
                    if base == "codeguard" {
                        // codeguard by its path: its controls are guarded whatever spells it.
                        self.guard_codeguard(args);
                    } else {
                        self.named_writes(args, &ctx.text);
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

    /// `alias NAME=VALUE …`: a shell alias the command words of later lines may expand to
    /// (whether they do depends on the shell's options: see the alias's use).
    fn shell_alias(&mut self, args: &[Word]) {
        for w in args {
            if let Some((name, value)) = w.text.split_once('=') {
                let value = if w.literal { value.to_owned() } else { w.raw.clone() };
                let def = self.alias_def(Some(value));
                self.shell_aliases.entry(name.to_owned()).or_default().push(def);
                if !w.literal {
                    self.dynamic(&format!("`alias {}`", w.raw));
                }
            }
        }
    }

    /// An `alias`/`unalias` run here: its line, and whether it runs for sure.
    fn alias_def(&self, value: Option<String>) -> crate::bash::walk::AliasDef {
        crate::bash::walk::AliasDef {
            value,
            line: self.line,
            certain: self.conditional == 0 && self.nesting == 0,
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

    /// Most aliases expanded through one another (git itself stops at a loop).
    const MAX_ALIAS_DEPTH: usize = 8;

    fn cd(&mut self, args: &[Word]) {
        let target = args.iter().find(|w| !(w.text.starts_with('-') && w.text.len() > 1));
        let part = match target {
            None => DirPart::Home(String::new()),
            Some(w) if w.text == "-" => DirPart::Unknown("`cd -`".into()),
            Some(w) => git::word_dir(w),
        };
        self.enter(part);
    }

    fn enter(&mut self, part: DirPart) {
        if matches!(&part, DirPart::Path(p) if p.starts_with('/')) || matches!(part, DirPart::Home(_)) {
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
