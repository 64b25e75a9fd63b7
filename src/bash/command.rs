//! Simple commands: unwrap wrappers, then recognise git, shells, `eval`, interpreters, scripts,
//! `cd`/`pushd`/`popd`, `find -exec`, `xargs` and calls of functions defined in the command.
//!
//! In: one simple command and where its stdin comes from. Out: steps and opaque records pushed
//! onto the walker. Programs we do not know are ignored: they are not git and run no shell code
//! we can see.

use super::git;
use super::program::{self, Effect};
use super::syntax::{Assignment, Command, Redirect, Simple, Word};
use super::walk::{Input, Walker};
use super::{
    DirPart, EnvValue, GitCall, GitEnv, Interpreter, Mode, ScriptRun, Severity, Step, analyse_with,
    looks_like,
};

/// Git sub-commands that change the index a later commit takes.
const STAGING_SUBCOMMANDS: &[&str] = &[
    "add",
    "rm",
    "mv",
    "stash",
    "checkout",
    "restore",
    "reset",
    "apply",
    "update-index",
    "read-tree",
    "merge",
    "cherry-pick",
    "revert",
    "switch",
    "am",
    "pull",
    "rebase",
];

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
            self.words(&a.values);
        }
        self.words(&s.words);
        self.redirects(&s.redirects);
        if s.words.is_empty() {
            // `GIT_DIR=x` alone: read as if exported (the conservative reading).
            self.exported = self.exported.overlaid(&env_of(&s.assignments));
            return;
        }
        let mut ctx = Ctx {
            notes: Vec::new(),
            env: env_of(&s.assignments),
            ignore_exported: false,
            extra_dir: Vec::new(),
            from_stdin: false,
            stdin: stdin_of(&s.redirects, input),
            text: joined(&s.words),
        };
        self.argv(&s.words, &mut ctx);
    }

    fn argv(&mut self, mut words: &[Word], ctx: &mut Ctx) {
        loop {
            let Some(first) = words.first() else { return };
            let base = basename(&first.text);
            if base.is_empty() || base.contains('$') || base.contains('`') || first.parameter_only {
                self.variable_command(words);
                return;
            }
            let args = &words[1..];
            let skip = match base {
                "git" => return self.git(args, ctx),
                "cd" => return self.cd(args),
                "export" | "declare" | "typeset" | "unset" => return self.export(base, args),
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
                "builtin" | "nohup" | "setsid" | "chronic" | "unbuffer" | "caffeinate" => {
                    after_options(args, &[], 0)
                }
                // A keyword where a command name should be (`nohup until git push; do …`) is a
                // syntax error in bash; reading past it is the conservative choice.
                "if" | "then" | "elif" | "else" | "while" | "until" | "do" | "!" | "{" | "coproc" => 0,
                "exec" => after_options(args, &["-a"], 0),
                "time" => after_options(args, &["-f", "--format", "-o", "--output"], 0),
                "nice" => after_options(args, &["-n", "--adjustment"], 0),
                "ionice" => after_options(args, &["-c", "--class", "-n", "--classdata"], 0),
                "stdbuf" => after_options(args, &["-i", "-o", "-e", "--input", "--output", "--error"], 0),
                "timeout" => after_options(args, &["-s", "--signal", "-k", "--kill-after"], 1),
                "watch" => after_options(args, &["-n", "--interval"], 0),
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
        match interpreter_of(base) {
            Some(Interpreter::Shell) => self.shell(base, args, ctx),
            Some(lang @ (Interpreter::Python | Interpreter::Node)) => self.interpreter(lang, args, ctx),
            Some(Interpreter::Shebang) | None => {
                if !self.call_function(&first.text) && first.text.contains('/') {
                    self.push_script(first.text.clone(), Interpreter::Shebang, ctx);
                }
            }
        }
    }

    /// `$g push`, `${GIT:-git} commit`, `$(which git) push`: only a commit/push-looking word, or
    /// a git sub-command that writes the index as the second word, makes it worth a note, and
    /// then it is never silent.
    fn variable_command(&mut self, words: &[Word]) {
        let text = joined(words);
        if let Some(mode) = looks_like(&text) {
            self.opaque(
                format!("`{text}` runs a command named by a variable; it may be a git {}", mode.as_str()),
                Some(mode),
                Severity::Unverified,
            );
        } else if words.get(1).is_some_and(|w| STAGING_SUBCOMMANDS.contains(&w.text.as_str())) {
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
            if builtin == "unset" {
                self.exported.set(&w.text, None);
            } else if let Some((name, value)) = assignment_word(w).filter(|_| exporting) {
                self.exported.set(name, Some(value));
            } else if !w.literal && exporting {
                // `export "$VARS"`: which names it sets is only known at run time.
                for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"] {
                    if w.raw.contains(name) {
                        self.exported.set(name, Some(EnvValue::Dynamic(w.raw.clone())));
                    }
                }
            }
        }
    }

    fn git(&mut self, args: &[Word], ctx: &Ctx) {
        let g = git::globals(args);
        let Some(si) = g.sub else { return };
        let sub = &args[si];
        if !sub.literal {
            self.variable_command(args);
            return;
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
        for w in args.iter().take(end) {
            if let Some((name, value)) = assignment_word(w) {
                ctx.env.set(name, Some(value));
            } else if w.text == "-i" || w.text == "--ignore-environment" {
                ctx.env = GitEnv::default();
                ctx.ignore_exported = true;
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
        end
    }

    /// `bash [-opts] -c CODE`, `bash script.sh`, `bash -s` / `bash` reading stdin.
    fn shell(&mut self, base: &str, args: &[Word], ctx: &Ctx) {
        let (mut command_mode, mut stdin_mode) = (false, false);
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
            command_mode |= t.contains('c');
            stdin_mode |= t.contains('s');
            i += usize::from(t.contains(['o', 'O']));
        }
        if command_mode {
            match args.get(i) {
                Some(w) if w.literal => self.indirect_shell(&w.text.clone(), &format!("`{base} -c`"), true),
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
                        self.program(&code.text.clone(), lang, &format!("`{t}` code"));
                    }
                    Some(code) => self.dynamic(&format!("`{} {}`", t, code.raw)),
                    None => {}
                }
                return;
            }
            if t == "-m" || t == "--version" || t == "-V" || t == "--help" || t == "-h" {
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
                Interpreter::Python | Interpreter::Node => self.program(code, lang, "code fed on stdin"),
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
            Redirect::Process(_) | Redirect::File(_) => {}
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
