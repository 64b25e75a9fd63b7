//! Code handed to an interpreter: `bash -c`/`sh script`, `python -c`, `node -e`, code on stdin,
//! scripts named as operands, and other languages' shell-outs (`foreign` code flags). Inline code
//! is analysed as a program of its own; a script on disk is left for `crate::intent` to read.

use super::{
    Ctx, Effect, Interpreter, Mode, ScriptRun, Severity, Stdin, Step, Walker, Word, analyse_with, program,
};

impl Walker<'_> {
    /// `perl -e`, `ruby -e`, `awk 'PROGRAM'`, `php -r`, `lua -e`, `deno eval`, `Rscript -e`…:
    /// inline code of an interpreter we do not model. One rule for all of them: code that runs
    /// a command (a `system`/`exec`/`spawn`/`popen` call, backticks, `qx`/`%x`, a pipe) and
    /// names git with a commit or push word blocks; a mere mention (`print "git push"`) does
    /// not. Code on stdin is read the same way; a script file is not read.
    pub(super) fn foreign(&mut self, base: &str, code_flags: &[&str], args: &[Word], ctx: &Ctx) {
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

    pub(super) fn foreign_stdin(&mut self, base: &str, ctx: &Ctx) {
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

    pub(super) fn foreign_code(&mut self, base: &str, code: &str, what: &str, strings: bool) {
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

    /// `bash [-opts] -c CODE`, `bash script.sh`, `bash -s` / `bash` reading stdin.
    pub(super) fn shell(&mut self, base: &str, args: &[Word], ctx: &Ctx) {
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
    pub(super) fn interpreter(&mut self, lang: Interpreter, args: &[Word], ctx: &Ctx) {
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
                // Code that names codeguard's own files writes them, as far as the gate knows.
                self.named_writes(&args[i + 1..(i + 2).min(args.len())], &ctx.text);
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
                if args.get(i + 1).is_none_or(|m| crate::bash::effects::python_module_may_write(&m.text)) {
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
    pub(super) fn stdin_code(&mut self, program: &str, lang: Interpreter, ctx: &Ctx) {
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

    pub(super) fn script_operand(&mut self, operand: Option<&Word>, lang: Interpreter, ctx: &Ctx) {
        match operand {
            Some(w) if w.literal => self.push_script(w.text.clone(), lang, ctx),
            Some(w) => self.dynamic(&format!("script `{}`", w.raw)),
            None => {}
        }
    }

    pub(super) fn push_script(&mut self, path: String, interpreter: Interpreter, ctx: &Ctx) {
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
    pub(super) fn inline_program(&mut self, code: &str, lang: Interpreter, what: &str) {
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
    pub(in crate::bash) fn program(&mut self, code: &str, lang: Interpreter, what: &str) {
        let parser = self.parser;
        let shell = |cmd: &str| -> Vec<Effect> {
            let a = analyse_with(parser, cmd, 1);
            let mut effects: Vec<Effect> = a.mode().map(Effect::Runs).into_iter().collect();
            if a.git_calls().any(|c| matches!(c.op, crate::bash::GitOp::SetSkipGate { .. })) {
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
}
