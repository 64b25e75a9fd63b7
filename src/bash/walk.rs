//! The walker: control flow, directory tracking and chain segments over our syntax tree.
//!
//! In: a [`Script`]. Out: the [`Analysis`] it accumulates. Sub-shells, pipeline members,
//! background jobs and command substitutions get their own directory scope; brace groups and
//! function bodies share the caller's. Simple commands are classified in [`super::command`].

use std::collections::HashMap;

use super::bounds::{self, Limit};
use super::fallback;
use super::syntax::{AndOr, Command, Connector, Pipeline, Redirect, Script, ShellParser, Word};
use super::{Analysis, DirPart, GitEnv, Opaque, Severity, looks_like};
use crate::mode::Mode;

/// How deep command substitutions and function calls may nest before we stop looking.
const MAX_NESTING: u16 = 24;

/// How often one function may be active at once (recursion) before we stop following it.
const MAX_RECURSION: usize = 3;

/// Whether the function `name` appears in `source` more often than its definition does: it
/// may be called by something the walk cannot follow (`trap name EXIT`, `export -f name`).
fn mentioned_twice(source: &str, name: &str) -> bool {
    source
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')))
        .filter(|w| *w == name)
        .nth(1)
        .is_some()
}

/// Whether `text` has the word `git`.
fn mentions_git(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).any(|w| w == "git")
}

/// Where a command's standard input comes from, when it matters (a shell reading commands).
#[derive(Debug, Clone, Copy)]
pub(super) enum Input<'s> {
    /// Whatever the caller's stdin is.
    Inherited,
    /// The previous member of a pipeline.
    Pipe(&'s Command),
}

/// The analysis state for one text.
pub(super) struct Walker<'p> {
    pub parser: &'p dyn ShellParser,
    /// `shopt -s globstar` is on: an unquoted `**` in a word matches directories recursively.
    pub globstar: bool,
    /// A `shopt -s` option that changes what an unquoted glob matches (`extglob`, `nocaseglob`,
    /// `dotglob`, `nullglob`, `failglob`, `globasciiranges`) is on: the shell expands such a
    /// word its own way before git sees it.
    pub glob_option: Option<String>,
    /// Indirection level of the text being walked.
    pub depth: u8,
    /// Syntactic nesting (substitutions, function calls), bounded by [`MAX_NESTING`].
    pub nesting: u16,
    /// The current directory, relative to the start.
    pub dir: Vec<DirPart>,
    /// `pushd` stack.
    pub stack: Vec<Vec<DirPart>>,
    /// Current chain segment (bumped at every boundary that is not `&&`).
    pub chain: u32,
    /// Function definitions: body and the directory at definition.
    pub functions: HashMap<String, (Command, Vec<DirPart>, bool)>,
    /// Functions being expanded (recursion guard).
    pub active: Vec<String>,
    /// The mode the root text suggests, for dynamic constructs.
    pub source_looks: Option<Mode>,
    /// The git location variables exported so far (`export GIT_DIR=…`).
    pub exported: GitEnv,
    /// Shell variables assigned earlier in the command: their literal value, or `None` when it
    /// is only known at run time (or differs between branches).
    pub vars: HashMap<String, Option<String>>,
    /// Positional parameters (`"$@"`, `$1`) inside a function call, a `bash -c CODE _ ARGS…` or
    /// a shell alias; `None` where they are the caller's, unknown.
    pub positional: Option<Vec<Word>>,
    /// git aliases defined earlier in the command (`git config alias.NAME VALUE`), keyed in
    /// lower case; `None` when the value is only known at run time.
    pub aliases: HashMap<String, Option<String>>,
    /// Shell aliases defined (or removed) earlier in the command (`alias gp='git push'`,
    /// `unalias gp`), every definition of a name in order: which one is in effect depends on the
    /// line that uses it.
    pub shell_aliases: HashMap<String, Vec<AliasDef>>,
    /// The top-level line the walk is in.
    pub line: usize,
    /// `shopt -s|-u expand_aliases` run for sure (not in a branch that may not run), with its
    /// line: `None` while the shell's own setting stands, which the command does not tell.
    pub expand_aliases: Option<(bool, usize)>,
    /// Aliases being expanded, outermost first (cycle and depth guard).
    pub alias_stack: Vec<String>,
    /// How many branches that may not run enclose the current command (an assignment there
    /// may or may not happen).
    pub conditional: u16,
    /// Whether literal `true` / `false` / `:` decide which branches run. Off for the
    /// conservative tokenizer's output, which loses `!` and compound commands.
    pub fold: bool,
    /// A command is run whose name or code is only known at run time: a function defined in
    /// the command may be what it calls.
    pub unseen_calls: bool,
    /// Bodies walked again for a loop value or a function call, bounded by [`MAX_UNROLLED`]
    /// over the whole text: nested loops and calls multiply, and the analysis runs on every
    /// command an agent types.
    pub unrolled: u32,
    pub out: Analysis,
}

/// One `alias NAME=VALUE` (or `unalias NAME`: no value) the command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AliasDef {
    /// The alias text; `None` for `unalias`.
    pub value: Option<String>,
    /// The top-level line it runs on.
    pub line: usize,
    /// Whether it runs for sure: not in a branch that may not run, nor in code parsed on its own.
    pub certain: bool,
}

/// Most loop bodies and function bodies walked again in one text; past it a loop is walked
/// once with its variable unknown and a call is left to [`Walker::finish`] (UNVERIFIED).
const MAX_UNROLLED: u32 = 256;

impl<'p> Walker<'p> {
    /// A walker for `source` at indirection `depth`.
    pub(super) fn new(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Self {
        Self {
            parser,
            depth,
            nesting: 0,
            dir: Vec::new(),
            stack: Vec::new(),
            chain: 0,
            functions: HashMap::new(),
            globstar: false,
            glob_option: None,
            active: Vec::new(),
            source_looks: looks_like(source),
            exported: GitEnv::default(),
            vars: HashMap::new(),
            positional: None,
            aliases: HashMap::new(),
            shell_aliases: HashMap::new(),
            line: 0,
            expand_aliases: None,
            alias_stack: Vec::new(),
            conditional: 0,
            fold: true,
            unseen_calls: false,
            unrolled: 0,
            out: Analysis::default(),
        }
    }

    /// Parses and walks `source`, returning the analysis. A text past the [`bounds`] is not
    /// parsed ([`Self::unchecked`]); one that nests more deeply than the caller's stack safely
    /// holds is parsed and walked on a big-stack thread.
    pub(super) fn run(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Analysis {
        let marks = match bounds::check(source) {
            Ok(marks) => marks,
            Err(limit) => return Self::unchecked(parser, source, depth, limit),
        };
        if bounds::fits_here(marks) {
            return Self::walk(parser, source, depth);
        }
        bounds::on_big_stack_thread(marks, || Self::walk(parser, source, depth))
            .unwrap_or_else(|| Self::unchecked(parser, source, depth, Limit::TooDeep(marks)))
    }

    /// A text the parser is not given: read by the conservative tokenizer (which does not
    /// nest), and when it may commit or push (it names `git`, `commit` or `push`) a block: the
    /// command cannot be checked.
    fn unchecked(parser: &'p dyn ShellParser, source: &str, depth: u8, limit: Limit) -> Analysis {
        let mut w = Self::new(parser, source, depth);
        w.out.parse_error = Some(limit.to_string());
        let looks = looks_like(source);
        if looks.is_some() || mentions_git(source) {
            w.opaque(format!("this command is {limit}"), looks, Severity::Block);
        }
        w.fold = false;
        w.script(&fallback::tokenize(source));
        w.finish(source)
    }

    fn walk(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Analysis {
        let mut w = Self::new(parser, source, depth);
        match parser.parse(source) {
            Ok(script) => {
                w.script(&script);
            }
            Err(reason) => {
                w.out.parse_error = Some(reason.to_string());
                w.fold = false;
                w.script(&fallback::tokenize(source));
            }
        }
        w.finish(source)
    }

    /// Walks the bodies of functions that were defined but never called *and* may still be
    /// called by something we cannot see (their name appears elsewhere in `source`, as in
    /// `trap f EXIT` or `export -f f`, or a command whose name is only known at run time runs),
    /// and returns the analysis. A function nothing can call never runs.
    pub(super) fn finish(mut self, source: &str) -> Analysis {
        // Walking a body may define more functions (`f() { g() { …; }; }`): repeat, bounded.
        for _ in 0..MAX_NESTING {
            let unseen = self.unseen_calls;
            let mut uncalled: Vec<_> = self
                .functions
                .iter()
                .filter(|(name, (_, _, called))| !called && (unseen || mentioned_twice(source, name)))
                .map(|(name, (body, dir, _))| (name.clone(), body.clone(), dir.clone()))
                .collect();
            if uncalled.is_empty() {
                break;
            }
            uncalled.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, body, dir) in uncalled {
                if let Some(f) = self.functions.get_mut(&name) {
                    f.2 = true;
                }
                let saved = std::mem::replace(&mut self.dir, dir);
                self.bump();
                self.uncalled_body(&name, &body);
                self.dir = saved;
            }
        }
        self.out
    }

    /// Walks the body of a function no walked command calls but something unseen may: what it
    /// does is guarded, and UNVERIFIED, since whether it runs is not known.
    fn uncalled_body(&mut self, name: &str, body: &Command) {
        let (steps, opaque) = (self.out.steps.len(), self.out.opaque.len());
        self.command(body, Input::Inherited);
        let calls = self.out.steps[steps..].iter().filter_map(|s| match s {
            super::Step::Git(c) => c.op.mode(),
            super::Step::Script(_) | super::Step::Alias(_) | super::Step::Program(_) => Some(Mode::Commit),
            super::Step::Write(_) => None,
        });
        let looks = self.out.opaque[opaque..].iter().filter_map(|o| o.looks_like);
        if let Some(mode) = calls.chain(looks).max() {
            self.opaque(
                format!(
                    "the function `{name}` is not called directly; it may be run by something only known at run time, and it would {}",
                    mode.as_str()
                ),
                Some(mode),
                Severity::Unverified,
            );
        }
    }

    /// Starts a new chain segment.
    pub(super) fn bump(&mut self) {
        self.chain += 1;
    }

    /// Runs `f` in a sub-shell scope (`( … )`, `$( … )`, `&`, a pipeline's member, `bash -c`):
    /// directory changes, variables, shell aliases and `expand_aliases` do not leak out.
    pub(super) fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let dir = self.dir.clone();
        let stack = self.stack.clone();
        let vars = self.vars.clone();
        let aliases = self.shell_aliases.clone();
        let expand = self.expand_aliases;
        f(self);
        self.dir = dir;
        self.stack = stack;
        self.vars = vars;
        self.shell_aliases = aliases;
        self.expand_aliases = expand;
    }

    /// The readings of the command word `name` when it may be a shell alias: the alias texts
    /// that may be in effect, and whether the word as written may run too. `None`: no alias of
    /// that name can be in effect. An alias changes only the lines read after it was defined
    /// (bash and zsh read a line whole before running it), and only in a shell that expands
    /// aliases (zsh, bash with `expand_aliases`: on in Claude Code's shell, off in a plain
    /// `bash -c`), which a `shopt` on an earlier line settles. Inside code parsed on its own
    /// (`eval`, `bash -c`, `$( … )`) or read by the fallback tokenizer, lines are not known:
    /// every definition may be in effect and the word as written may run.
    pub(super) fn alias_readings(&self, name: &str) -> Option<(Vec<String>, bool)> {
        let defs = self.shell_aliases.get(name)?;
        let lines_known = self.nesting == 0 && self.fold;
        let mut values: Vec<String> = Vec::new();
        let mut literal = !lines_known;
        let mut settled = false;
        for def in defs.iter().rev() {
            if lines_known && def.line >= self.line {
                continue;
            }
            match &def.value {
                Some(v) if !values.contains(v) => values.push(v.clone()),
                Some(_) => {}
                None => literal = true,
            }
            if def.certain {
                settled = true;
                break;
            }
        }
        // No definition in effect for sure: the name may be no alias at all.
        literal |= !settled;
        if values.is_empty() {
            return None;
        }
        match self.expand_aliases {
            Some((false, at)) if lines_known && at < self.line => None,
            Some((true, at)) if lines_known && at < self.line => Some((values, literal)),
            _ => Some((values, true)),
        }
    }

    /// Runs `f` in a branch that may not run: assignments there make values uncertain.
    pub(super) fn maybe(&mut self, f: impl FnOnce(&mut Self)) {
        self.conditional += 1;
        f(self);
        self.conditional -= 1;
    }

    /// Assigns a shell variable. In a branch that may not run, a value that differs from the
    /// one already known becomes unknown.
    pub(super) fn assign(&mut self, name: &str, value: Option<String>) {
        let value = match self.vars.get(name) {
            Some(old) if self.conditional > 0 && *old != value => None,
            _ => value,
        };
        self.vars.insert(name.to_owned(), value);
    }

    /// Records something we cannot see into.
    pub(super) fn opaque(&mut self, reason: String, looks: Option<Mode>, severity: Severity) {
        let dir = self.dir.clone();
        self.out.opaque.push(Opaque { reason, looks_like: looks, dir, severity, env_kept: false });
    }

    /// Records a known program that commits, tags or pushes by itself, running git with the
    /// environment it was given (`cz bump`, `git flow …`).
    pub(super) fn committing_program(&mut self, reason: String) {
        let dir = self.dir.clone();
        let o = Opaque {
            reason,
            looks_like: Some(Mode::Push),
            dir,
            severity: Severity::Unverified,
            env_kept: true,
        };
        self.out.opaque.push(o);
    }

    /// Walks a list; returns its exit status when it is fixed by literal `true`/`false`/`:`.
    pub(super) fn script(&mut self, s: &Script) -> Option<bool> {
        let mut status = None;
        for (i, item) in s.0.iter().enumerate() {
            if i > 0 {
                self.bump();
            }
            // Only the command's own top level has lines; code parsed on its own keeps the
            // line it was found on.
            if let Some(line) = item.line.filter(|_| self.nesting == 0) {
                self.line = line;
            }
            if item.background {
                self.scoped(|w| {
                    w.and_or(&item.list);
                });
                status = Some(true);
            } else {
                status = self.and_or(&item.list);
            }
        }
        status
    }

    /// `a && b || c`: a pipeline after `&&` whose left side is known to fail (or after `||`
    /// whose left side is known to succeed) never runs.
    fn and_or(&mut self, l: &AndOr) -> Option<bool> {
        let mut status = self.pipeline(&l.first);
        for (connector, p) in &l.rest {
            match connector {
                Connector::And => {}
                Connector::Or => self.bump(),
            }
            let skipped =
                matches!((connector, status), (Connector::And, Some(false)) | (Connector::Or, Some(true)));
            if !skipped {
                let mut next = None;
                self.maybe(|w| next = w.pipeline(p));
                status = next;
            }
        }
        status
    }

    /// The exit status of a pipeline of one literal `true`, `false` or `:` (not redefined as
    /// a function), negated by `!`.
    fn constant(&self, p: &Pipeline) -> Option<bool> {
        let [Command::Simple(s)] = p.0.as_slice() else { return None };
        if !self.fold || !s.assignments.is_empty() || !s.redirects.is_empty() {
            return None;
        }
        let first = s.words.first().filter(|w| w.literal && !self.functions.contains_key(&w.text))?;
        let status = match first.text.as_str() {
            "true" | ":" => true,
            "false" => false,
            _ => return None,
        };
        Some(status != p.1)
    }

    fn pipeline(&mut self, p: &Pipeline) -> Option<bool> {
        let status = self.constant(p);
        if let [only] = p.0.as_slice() {
            self.command(only, Input::Inherited);
            return status;
        }
        for (i, c) in p.0.iter().enumerate() {
            if i > 0 {
                self.bump();
            }
            let input = if i == 0 { Input::Inherited } else { Input::Pipe(&p.0[i - 1]) };
            self.scoped(|w| w.command(c, input));
        }
        None
    }

    pub(super) fn command(&mut self, c: &Command, input: Input<'_>) {
        match c {
            Command::Simple(s) => self.simple(s, input),
            Command::Subshell(body, redirects) => {
                self.redirects(redirects);
                self.scoped(|w| {
                    w.script(body);
                });
            }
            Command::Group(body, redirects) => {
                self.redirects(redirects);
                self.script(body);
            }
            Command::If(branches, redirects) => {
                self.redirects(redirects);
                for (i, (condition, body)) in branches.iter().enumerate() {
                    if i > 0 {
                        self.bump();
                    }
                    let status = match condition {
                        Some(cond) => self.script(cond),
                        None => Some(true),
                    };
                    match status {
                        // `if false; then …`: this branch never runs.
                        Some(false) => {}
                        // `if true` / `else`: this branch runs and no later one does.
                        Some(true) => {
                            self.maybe(|w| {
                                w.script(body);
                            });
                            break;
                        }
                        None => self.maybe(|w| {
                            w.script(body);
                        }),
                    }
                }
            }
            Command::Loop { var, until, words, condition, body, redirects } => {
                self.redirects(redirects);
                self.words(words);
                self.bump();
                let runs = match condition {
                    Some(cond) => self.script(cond).is_none_or(|status| status != *until),
                    None => true,
                };
                if !runs {
                    return;
                }
                match var {
                    Some(name) => self.for_loop(name, words, body),
                    None => self.maybe(|w| {
                        w.script(body);
                    }),
                }
            }
            Command::Case(word, arms, redirects) => {
                self.redirects(redirects);
                self.words(std::slice::from_ref(word));
                for arm in arms {
                    self.bump();
                    self.maybe(|w| {
                        w.script(arm);
                    });
                }
            }
            Command::Function(name, body) => {
                // A body replaced before it was ever called never runs.
                self.functions.insert(name.clone(), ((**body).clone(), self.dir.clone(), false));
            }
            Command::Test(words) => self.words(words),
            Command::Arithmetic(expr) => {
                // Only a text that parses as commands and mentions git can matter; arithmetic
                // like `(( n > 0 ))` is not walked at all.
                if let Some(Ok(script)) = expr.contains("git").then(|| self.parser.parse(expr)) {
                    self.scoped(|w| {
                        w.script(&script);
                    });
                }
            }
        }
    }

    /// Most literal values a `for` loop is followed through, one walk of the body each.
    const MAX_LOOP_VALUES: usize = 16;

    /// `for NAME in WORDS; do BODY; done`: the body is walked once per literal value, with
    /// `NAME` set to it; a list only known at run time leaves `NAME` unknown (one walk).
    fn for_loop(&mut self, name: &str, words: &[Word], body: &Script) {
        let mut values = Some(Vec::new());
        for w in words {
            match (values.as_mut(), self.expand_word(w, true)) {
                (Some(vs), Some(expanded)) => vs.extend(expanded.into_iter().map(|e| e.text)),
                (Some(_), None) => values = None,
                (None, _) => break,
            }
        }
        let budget = MAX_UNROLLED.saturating_sub(self.unrolled) as usize;
        let Some(vs) =
            values.filter(|vs| vs.len() <= Self::MAX_LOOP_VALUES && vs.len() <= budget && !vs.is_empty())
        else {
            self.vars.insert(name.to_owned(), None);
            self.maybe(|w| {
                w.script(body);
            });
            return;
        };
        self.unrolled += u32::try_from(vs.len()).unwrap_or(u32::MAX);
        for v in vs {
            self.vars.insert(name.to_owned(), Some(v));
            self.maybe(|w| {
                w.script(body);
            });
        }
    }

    /// Calls a function defined earlier in the command with `args` as its positional
    /// parameters; returns false if `name` is not one.
    pub(super) fn call_function(&mut self, name: &str, args: &[Word]) -> bool {
        // A function may call itself (`f() { "$@"; }; f f git push`), a few levels deep.
        let recursing = self.active.iter().filter(|a| *a == name).count() >= MAX_RECURSION;
        let over_budget = self.unrolled >= MAX_UNROLLED;
        if recursing || self.nesting >= MAX_NESTING || over_budget {
            if !self.functions.contains_key(name) {
                return false;
            }
            if args.is_empty() && !over_budget {
                // The same body, with the same words, was walked further out.
                return true;
            }
            // Past a bound this call is not walked, and its words differ: never a silent pass.
            let looks = self.source_looks;
            self.opaque(
                format!("`{name}` calls itself or is called more often than the analysis follows; what this call runs is not checked"),
                looks,
                Severity::Unverified,
            );
            return true;
        }
        let Some((body, _, called)) = self.functions.get_mut(name) else { return false };
        *called = true;
        self.unrolled += 1;
        let body = body.clone();
        self.active.push(name.to_owned());
        self.nesting += 1;
        let saved = self.positional.replace(args.to_vec());
        self.command(&body, Input::Inherited);
        self.positional = saved;
        self.nesting -= 1;
        self.active.pop();
        true
    }

    /// Walks the command substitutions of words (they run before the command).
    pub(super) fn words(&mut self, words: &[Word]) {
        for w in words {
            for sub in &w.substitutions {
                self.substitution(sub, &w.raw);
            }
        }
    }

    /// Walks the substitutions and process substitutions of redirections.
    pub(super) fn redirects(&mut self, redirects: &[Redirect]) {
        for r in redirects {
            match r {
                Redirect::File(w)
                | Redirect::Write { target: w, .. }
                | Redirect::ReadFile(w)
                | Redirect::HereString(w) => {
                    self.words(std::slice::from_ref(w));
                }
                Redirect::Process(body) => self.scoped(|w| {
                    w.script(body);
                }),
                Redirect::HereDoc { body, substitutions, .. } => {
                    for sub in substitutions {
                        self.substitution(sub, body);
                    }
                }
            }
        }
    }

    /// `$( … )` / backticks: same indirection level, own directory scope. `enclosing` is the
    /// whole word (or here-doc body) it came from: when the substitution does not parse, the
    /// word parser may have cut it short (`$(case … in a) …)`), so the whole text is read
    /// conservatively instead.
    pub(super) fn substitution(&mut self, source: &str, enclosing: &str) {
        if self.nesting >= MAX_NESTING {
            let looks = looks_like(source);
            if looks.is_some() {
                self.opaque(
                    "command substitutions nested too deeply to follow".into(),
                    looks,
                    Severity::Unverified,
                );
            }
            return;
        }
        let script = match self.parser.parse(source) {
            Ok(s) => s,
            Err(reason) => {
                self.out.parse_error.get_or_insert(reason.to_string());
                fallback::tokenize(enclosing)
            }
        };
        self.nesting += 1;
        self.scoped(|w| {
            w.script(&script);
        });
        self.nesting -= 1;
    }

    /// Shell code one indirection level down (`bash -c '…'`, `eval '…'`, a here-doc fed to a
    /// shell). Beyond one level it is not modelled: if it looks like a commit/push it blocks.
    /// `own_shell` is false for `eval`, whose directory changes stay in effect.
    pub(super) fn indirect_shell(&mut self, code: &str, what: &str, own_shell: bool) {
        if self.depth >= 1 || self.nesting >= MAX_NESTING {
            // `bash -c '"$@"' _ git push`: the words the code runs are its positional ones.
            let runs_args = code.contains("$@") || code.contains("$*") || code.contains("$1");
            let args = self.positional.as_ref().filter(|_| runs_args);
            let args_look =
                || looks_like(&args?.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" "));
            if let Some(mode) = looks_like(code).or_else(args_look) {
                self.opaque(
                    format!("{what} inside an indirect command: more than one level of indirection is not modelled"),
                    Some(mode),
                    Severity::Block,
                );
            }
            return;
        }
        let (script, exact) = match self.parser.parse(code) {
            Ok(s) => (s, true),
            Err(reason) => {
                self.out.parse_error.get_or_insert(format!("{what}: {reason}"));
                (fallback::tokenize(code), false)
            }
        };
        self.depth += 1;
        self.nesting += 1;
        let fold = self.fold;
        self.fold = fold && exact;
        // `bash -c` starts a new shell; `eval` and `trap` code sees this shell's functions.
        let functions = if own_shell { std::mem::take(&mut self.functions) } else { HashMap::new() };
        let unseen = std::mem::take(&mut self.unseen_calls);
        if own_shell {
            self.scoped(|w| {
                w.script(&script);
            });
        } else {
            self.script(&script);
        }
        // Functions defined in the inner shell stay there (`eval` defines them here).
        let inner =
            if own_shell { std::mem::replace(&mut self.functions, functions) } else { HashMap::new() };
        let inner_unseen = self.unseen_calls;
        self.unseen_calls = unseen || inner_unseen;
        self.fold = fold;
        self.nesting -= 1;
        self.depth -= 1;
        self.flush_functions(inner, code, inner_unseen);
    }

    fn flush_functions(
        &mut self,
        inner: HashMap<String, (Command, Vec<DirPart>, bool)>,
        code: &str,
        unseen: bool,
    ) {
        let mut uncalled: Vec<_> =
            inner.into_iter().filter(|(name, f)| !f.2 && (unseen || mentioned_twice(code, name))).collect();
        uncalled.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, (body, dir, _)) in uncalled {
            let saved = std::mem::replace(&mut self.dir, dir);
            self.depth += 1;
            self.uncalled_body(&name, &body);
            self.depth -= 1;
            self.dir = saved;
        }
    }
}
