//! Our own small shell syntax tree and the [`ShellParser`] trait that produces it.
//!
//! In: shell source text. Out: a [`Script`] whose words are already quote-removed. The analyser
//! walks only these types, so the concrete parser (brush-parser today) can be swapped by writing
//! one adapter. Nothing here interprets what a command does.

/// Parses shell source into our syntax tree. An implementation must not recurse past what
/// `bash::bounds` allows on the current thread (it rejects such a text instead).
pub(crate) trait ShellParser: Sync {
    /// Parses `source`; an error says why in one line.
    fn parse(&self, source: &str) -> Result<Script, ParseError>;
}

/// Why shell text was not parsed (the analyser then falls back to a token scan).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    /// Past the analyser's size or nesting bounds (`bash::bounds`).
    #[error(transparent)]
    Bounds(#[from] super::bounds::Limit),
    /// Nested deeper than this thread's stack allows (the caller retries on a big stack).
    #[error("nested too deeply to parse at this level")]
    TooDeepHere,
    /// The text is not valid shell: the parser's own one-line message.
    #[error("{0}")]
    Syntax(String),
}

/// A list of commands run one after another (`;`, newline or `&`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Script(pub Vec<Item>);

/// One entry of a [`Script`]: an and-or list, possibly sent to the background with `&`.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The commands joined by `&&` / `||`.
    pub list: AndOr,
    /// Whether the item ends with `&` (runs asynchronously, in a sub-shell).
    pub background: bool,
    /// For an item of the script's top level, which line (complete command) it is in: bash and
    /// zsh read and run a script one complete command at a time, so an alias defined on one
    /// line can change how a later line reads, never its own. `None` inside a compound command
    /// (parsed whole, with its line).
    pub line: Option<usize>,
}

/// Pipelines joined by `&&` and `||`.
#[derive(Debug, Clone)]
pub(crate) struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The following pipelines with the operator in front of each.
    pub rest: Vec<(Connector, Pipeline)>,
}

/// The operator between two pipelines of an and-or list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Connector {
    /// `&&`: runs when the previous pipeline succeeded.
    And,
    /// `||`: runs when the previous pipeline failed.
    Or,
}

/// Commands joined by `|` or `|&`; the flag is `!` (the pipeline's status is negated).
#[derive(Debug, Clone)]
pub(crate) struct Pipeline(pub Vec<Command>, pub bool);

/// One command of a pipeline.
#[derive(Debug, Clone)]
pub(crate) enum Command {
    /// A simple command: assignments, words, redirections.
    Simple(Simple),
    /// `( … )`: runs in a sub-shell.
    Subshell(Script, Vec<Redirect>),
    /// `{ …; }`: runs in the current shell.
    Group(Script, Vec<Redirect>),
    /// `if` with its `elif`/`else` branches: each is an optional condition and a body.
    If(Vec<(Option<Script>, Script)>, Vec<Redirect>),
    /// `while`, `until`, `for`, `select` or arithmetic `for`: the words iterated, an optional
    /// condition and the body.
    Loop {
        /// The variable of a `for NAME in …` loop.
        var: Option<String>,
        /// `until`: the body runs while the condition fails.
        until: bool,
        /// Words of a `for … in` list (their substitutions run once).
        words: Vec<Word>,
        /// The condition of `while`/`until`.
        condition: Option<Script>,
        /// The loop body.
        body: Script,
        /// Redirections on the whole loop.
        redirects: Vec<Redirect>,
    },
    /// `case WORD in …`: the tested word and the arms' bodies.
    Case(Word, Vec<Script>, Vec<Redirect>),
    /// `name() { … }` / `function name { … }`.
    Function(String, Box<Command>),
    /// `[[ … ]]`: only the words matter (their substitutions run).
    Test(Vec<Word>),
    /// `(( … ))`: arithmetic, unless the parser mistook nested sub-shells `( ( … ) )` for it;
    /// the text is kept so the walker can look for commands in it.
    Arithmetic(String),
}

/// A simple command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Simple {
    /// `NAME=value` prefixes.
    pub assignments: Vec<Assignment>,
    /// The command name and its arguments.
    pub words: Vec<Word>,
    /// Redirections, including here-documents and process substitutions.
    pub redirects: Vec<Redirect>,
}

/// A `NAME=value` assignment.
#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    /// The variable name.
    pub name: String,
    /// The value words (one for a scalar, several for an array).
    pub values: Vec<Word>,
}

/// A word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The source text, quotes included.
    pub raw: String,
    /// The value after quote removal; expansions keep their source text (`$x`, `$(…)`).
    pub text: String,
    /// Whether `text` is exactly what the shell would pass (no expansion of any kind).
    pub literal: bool,
    /// Whether the whole word is one parameter expansion (`$g`, `${GIT:-git}`).
    pub parameter_only: bool,
    /// Source of every `$( … )` and backtick substitution in the word, in order.
    pub substitutions: Vec<String>,
}

impl Word {
    /// A literal word (used by the fallback tokenizer and by tests).
    pub fn literal(text: &str) -> Self {
        Self {
            raw: text.to_owned(),
            text: text.to_owned(),
            literal: true,
            parameter_only: false,
            substitutions: Vec::new(),
        }
    }

    /// The literal value, if the word has no expansion.
    pub fn value(&self) -> Option<&str> {
        self.literal.then_some(self.text.as_str())
    }

    /// The path under the home directory the word names (empty: the home directory itself):
    /// `~`, `~/rest`, `$HOME`, `${HOME}/rest`, `"$HOME"/rest`; `None` for anything else
    /// (`~user`, a rest holding another expansion or a quote).
    pub fn home_relative(&self) -> Option<String> {
        let bare = ["~", "$HOME", "${HOME}", "\"$HOME\"", "\"${HOME}\""];
        if bare.iter().any(|b| self.raw == *b || self.text == *b) {
            return Some(String::new());
        }
        ["~/", "$HOME/", "${HOME}/", "\"$HOME\"/", "\"${HOME}\"/"]
            .iter()
            .find_map(|prefix| self.raw.strip_prefix(prefix).or_else(|| self.text.strip_prefix(prefix)))
            .map(|rest| rest.trim_matches('"').trim_end_matches('/'))
            .filter(|rest| !rest.contains(['$', '`', '\'', '"']))
            .map(str::to_owned)
    }
}

/// A redirection.
#[derive(Debug, Clone)]
pub(crate) enum Redirect {
    /// `2>&1`, `>&2`, `<&0` …: a descriptor duplicated (the target word).
    File(Word),
    /// `> file`, `>> file`, `>| file`, `<> file`, `&> file`: a file opened for writing.
    Write {
        /// The file.
        target: Word,
        /// `>>` (and `&>>`): appended to, not replaced.
        append: bool,
    },
    /// `< file`: the file becomes standard input.
    ReadFile(Word),
    /// `<( … )` / `>( … )` as a redirection target or a plain argument.
    Process(Script),
    /// `<<DELIM` / `<<-DELIM`: the body, and whether it is expanded (unquoted delimiter).
    HereDoc {
        /// The body text, verbatim.
        body: String,
        /// Whether the delimiter was unquoted, so `$( … )` in the body runs.
        expands: bool,
        /// Sources of the command substitutions in an expanding body.
        substitutions: Vec<String>,
    },
    /// `<<< word`.
    HereString(Word),
}
/// The literal text a command reads on stdin: a here-doc that does not expand anything, or a
/// literal here-string.
pub(crate) fn literal_stdin(redirects: &[Redirect]) -> Option<String> {
    redirects
        .iter()
        .rev()
        .find_map(|r| match r {
            Redirect::HereDoc { body, expands, .. } if !*expands || !body.contains(['$', '`', '\\']) => {
                Some(Some(body.clone()))
            }
            Redirect::HereString(w) if w.literal => Some(Some(format!("{}\n", w.text))),
            Redirect::HereDoc { .. } | Redirect::HereString(_) => Some(None),
            _ => None,
        })
        .flatten()
}
