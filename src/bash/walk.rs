//! The walker: control flow, directory tracking and chain segments over our syntax tree.
//!
//! In: a [`Script`]. Out: the [`Analysis`] it accumulates. Sub-shells, pipeline members,
//! background jobs and command substitutions get their own directory scope; brace groups and
//! function bodies share the caller's. Simple commands are classified in [`super::command`].

use std::collections::HashMap;

use super::bounds::{self, Limit};
use super::fallback;
use super::syntax::{AndOr, Command, Connector, Pipeline, Redirect, Script, ShellParser, Word};
use super::{Analysis, DirPart, GitEnv, Mode, Opaque, Severity, looks_like};

/// How deep command substitutions and function calls may nest before we stop looking.
const MAX_NESTING: u16 = 24;

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
    pub out: Analysis,
}

impl<'p> Walker<'p> {
    /// A walker for `source` at indirection `depth`.
    pub fn new(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Self {
        Self {
            parser,
            depth,
            nesting: 0,
            dir: Vec::new(),
            stack: Vec::new(),
            chain: 0,
            functions: HashMap::new(),
            active: Vec::new(),
            source_looks: looks_like(source),
            exported: GitEnv::default(),
            out: Analysis::default(),
        }
    }

    /// Parses and walks `source`, returning the analysis. A text past the [`bounds`] is not
    /// parsed ([`Self::unchecked`]); one that nests more deeply than the caller's stack safely
    /// holds is parsed and walked on a big-stack thread.
    pub fn run(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Analysis {
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
        w.script(&fallback::tokenize(source));
        w.finish()
    }

    fn walk(parser: &'p dyn ShellParser, source: &str, depth: u8) -> Analysis {
        let mut w = Self::new(parser, source, depth);
        match parser.parse(source) {
            Ok(script) => w.script(&script),
            Err(reason) => {
                w.out.parse_error = Some(reason);
                w.script(&fallback::tokenize(source));
            }
        }
        w.finish()
    }

    /// Walks the bodies of functions that were defined but never called (conservatively: they
    /// may be called by something we cannot see) and returns the analysis.
    pub fn finish(mut self) -> Analysis {
        // Walking a body may define more functions (`f() { g() { …; }; }`): repeat, bounded.
        for _ in 0..MAX_NESTING {
            let mut uncalled: Vec<_> = self
                .functions
                .iter()
                .filter(|(_, (_, _, called))| !called)
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
                self.command(&body, Input::Inherited);
                self.dir = saved;
            }
        }
        self.out
    }

    /// Starts a new chain segment.
    pub fn bump(&mut self) {
        self.chain += 1;
    }

    /// Runs `f` in a sub-shell scope: directory changes do not leak out.
    pub fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let dir = self.dir.clone();
        let stack = self.stack.clone();
        f(self);
        self.dir = dir;
        self.stack = stack;
    }

    /// Records something we cannot see into.
    pub fn opaque(&mut self, reason: String, looks: Option<Mode>, severity: Severity) {
        let dir = self.dir.clone();
        self.out.opaque.push(Opaque { reason, looks_like: looks, dir, severity });
    }

    pub fn script(&mut self, s: &Script) {
        for (i, item) in s.0.iter().enumerate() {
            if i > 0 {
                self.bump();
            }
            if item.background {
                self.scoped(|w| w.and_or(&item.list));
            } else {
                self.and_or(&item.list);
            }
        }
    }

    fn and_or(&mut self, l: &AndOr) {
        self.pipeline(&l.first);
        for (connector, p) in &l.rest {
            match connector {
                Connector::And => {}
                Connector::Or => self.bump(),
            }
            self.pipeline(p);
        }
    }

    fn pipeline(&mut self, p: &Pipeline) {
        if let [only] = p.0.as_slice() {
            self.command(only, Input::Inherited);
            return;
        }
        for (i, c) in p.0.iter().enumerate() {
            if i > 0 {
                self.bump();
            }
            let input = if i == 0 { Input::Inherited } else { Input::Pipe(&p.0[i - 1]) };
            self.scoped(|w| w.command(c, input));
        }
    }

    pub fn command(&mut self, c: &Command, input: Input<'_>) {
        match c {
            Command::Simple(s) => self.simple(s, input),
            Command::Subshell(body, redirects) => {
                self.redirects(redirects);
                self.scoped(|w| w.script(body));
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
                    if let Some(cond) = condition {
                        self.script(cond);
                    }
                    self.script(body);
                }
            }
            Command::Loop { words, condition, body, redirects } => {
                self.redirects(redirects);
                self.words(words);
                self.bump();
                if let Some(cond) = condition {
                    self.script(cond);
                }
                self.script(body);
            }
            Command::Case(word, arms, redirects) => {
                self.redirects(redirects);
                self.words(std::slice::from_ref(word));
                for arm in arms {
                    self.bump();
                    self.script(arm);
                }
            }
            Command::Function(name, body) => {
                let previous =
                    self.functions.insert(name.clone(), ((**body).clone(), self.dir.clone(), false));
                // A body replaced before it was ever called still counts (conservatively).
                if let Some((old, dir, false)) = previous {
                    let saved = std::mem::replace(&mut self.dir, dir);
                    self.command(&old, Input::Inherited);
                    self.dir = saved;
                }
            }
            Command::Test(words) => self.words(words),
            Command::Arithmetic(expr) => {
                // Only a text that parses as commands and mentions git can matter; arithmetic
                // like `(( n > 0 ))` is not walked at all.
                if let Some(Ok(script)) = expr.contains("git").then(|| self.parser.parse(expr)) {
                    self.scoped(|w| w.script(&script));
                }
            }
        }
    }

    /// Calls a function defined earlier in the command; returns false if `name` is not one.
    pub fn call_function(&mut self, name: &str) -> bool {
        if self.active.iter().any(|a| a == name) || self.nesting >= MAX_NESTING {
            // Recursion (or a body redefined while running): left for `finish` unless walked.
            return self.functions.contains_key(name);
        }
        let Some((body, _, called)) = self.functions.get_mut(name) else { return false };
        *called = true;
        let body = body.clone();
        self.active.push(name.to_owned());
        self.nesting += 1;
        self.command(&body, Input::Inherited);
        self.nesting -= 1;
        self.active.pop();
        true
    }

    /// Walks the command substitutions of words (they run before the command).
    pub fn words(&mut self, words: &[Word]) {
        for w in words {
            for sub in &w.substitutions {
                self.substitution(sub, &w.raw);
            }
        }
    }

    /// Walks the substitutions and process substitutions of redirections.
    pub fn redirects(&mut self, redirects: &[Redirect]) {
        for r in redirects {
            match r {
                Redirect::File(w)
                | Redirect::Write { target: w, .. }
                | Redirect::ReadFile(w)
                | Redirect::HereString(w) => {
                    self.words(std::slice::from_ref(w));
                }
                Redirect::Process(body) => self.scoped(|w| w.script(body)),
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
    pub fn substitution(&mut self, source: &str, enclosing: &str) {
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
                self.out.parse_error.get_or_insert(reason);
                fallback::tokenize(enclosing)
            }
        };
        self.nesting += 1;
        self.scoped(|w| w.script(&script));
        self.nesting -= 1;
    }

    /// Shell code one indirection level down (`bash -c '…'`, `eval '…'`, a here-doc fed to a
    /// shell). Beyond one level it is not modelled: if it looks like a commit/push it blocks.
    /// `own_shell` is false for `eval`, whose directory changes stay in effect.
    pub fn indirect_shell(&mut self, code: &str, what: &str, own_shell: bool) {
        if self.depth >= 1 || self.nesting >= MAX_NESTING {
            if let Some(mode) = looks_like(code) {
                self.opaque(
                    format!("{what} inside an indirect command: more than one level of indirection is not modelled"),
                    Some(mode),
                    Severity::Block,
                );
            }
            return;
        }
        let script = match self.parser.parse(code) {
            Ok(s) => s,
            Err(reason) => {
                self.out.parse_error.get_or_insert(format!("{what}: {reason}"));
                fallback::tokenize(code)
            }
        };
        self.depth += 1;
        self.nesting += 1;
        let functions = std::mem::take(&mut self.functions);
        if own_shell {
            self.scoped(|w| w.script(&script));
        } else {
            self.script(&script);
        }
        // Functions defined in the inner shell stay there.
        let inner = std::mem::replace(&mut self.functions, functions);
        self.nesting -= 1;
        self.depth -= 1;
        self.flush_functions(inner);
    }

    fn flush_functions(&mut self, inner: HashMap<String, (Command, Vec<DirPart>, bool)>) {
        let mut uncalled: Vec<_> = inner.into_iter().filter(|(_, f)| !f.2).collect();
        uncalled.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, (body, dir, _)) in uncalled {
            let saved = std::mem::replace(&mut self.dir, dir);
            self.depth += 1;
            self.command(&body, Input::Inherited);
            self.depth -= 1;
            self.dir = saved;
        }
    }
}
