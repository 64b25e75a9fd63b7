//! Programs that run other commands: `env`, `sudo`, `flock`, `watch`, `systemd-run`, `find
//! -exec`, and wrappers that take a shell string. Each is read down to the command it runs, which
//! the walker then reads as if it had been typed.

use super::{Ctx, DirPart, GitEnv, Walker, Word, after_options, assignment_word, git, joined, option_value};

impl Walker<'_> {
    /// `flock [opts] FILE CMD…` / `flock [opts] FILE -c CODE` / `flock FD`: the index of the
    /// command, or `None` when there is none (or the code was walked here).
    pub(super) fn flock(&mut self, args: &[Word]) -> Option<usize> {
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
    pub(super) fn shell_string_wrapper(&mut self, base: &str, args: &[Word], ctx: &Ctx) {
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
    pub(super) fn watch(&mut self, args: &[Word]) {
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
    pub(super) fn systemd_run(args: &[Word], ctx: &mut Ctx) -> usize {
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

    pub(super) fn env_wrapper(&mut self, args: &[Word], ctx: &mut Ctx) -> usize {
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

    pub(super) fn sudo_wrapper(args: &[Word], ctx: &mut Ctx) -> usize {
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

    /// `find … -exec git add {} \;` and `-execdir`.
    pub(super) fn find_exec(&mut self, args: &[Word], ctx: &Ctx) {
        // `-delete` (and the `-fprint` family) write where find walks: its start paths are
        // read as written, so codeguard's own files among them are seen.
        let writes = args
            .iter()
            .any(|w| matches!(w.text.as_str(), "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"));
        if writes {
            let starts: Vec<Word> = args
                .iter()
                .take_while(|w| !w.text.starts_with('-') && !matches!(w.text.as_str(), "(" | "!" | "\\("))
                .cloned()
                .collect();
            self.named_writes(&starts, &ctx.text);
        }
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
