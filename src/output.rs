//! The one writer of the process's standard output and standard error.
//!
//! Every entry point computes an [`Output`] — what to print on each stream and the exit code —
//! and returns it; `commands::dispatch` hands it to [`deliver`]. Nothing else in the crate
//! writes either stream (`clippy.toml` forbids `std::io::stdout`/`stderr` and the print
//! macros elsewhere). What cannot wait for a return value comes here too: live progress
//! (`check`'s line on a terminal, tool downloads: [`progress`]), what a command already did
//! before a long step that may be interrupted ([`flush`]), the answer a signal handler prints
//! while children are killed (`process::arm`, [`write_both`]), clap's styled help
//! ([`clap_message`]), and the MCP server's stdio transport, which owns both streams for the
//! whole session ([`stdio`]).

#![allow(clippy::disallowed_methods, reason = "the one writer of stdout and stderr")]

use std::io::{IsTerminal as _, Write as _};

/// What an entry point prints and how it exits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Output {
    /// What to print on stdout.
    pub stdout: String,
    /// What to print on stderr.
    pub stderr: String,
    /// The process exit code (see `crate::exit`).
    pub code: u8,
}

impl Output {
    /// `text` on stdout, nothing on stderr.
    pub(crate) fn stdout(text: impl Into<String>, code: u8) -> Self {
        Self { stdout: text.into(), stderr: String::new(), code }
    }

    /// Appends text to stderr, ending it with a newline if it has none.
    pub(crate) fn note(&mut self, text: &str) {
        self.stderr.push_str(text);
        if !text.ends_with('\n') {
            self.stderr.push('\n');
        }
    }
}

/// Marks an error that came after part of a command's output was produced (the changes made
/// before it failed): `commands::dispatch` still prints that part, then the error.
#[derive(Debug, Clone)]
pub(crate) struct Partial(pub Output);

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(output so far)")
    }
}

impl Output {
    /// Runs a command that writes into an `Output` as it goes (a command that makes several
    /// changes): its output, or its error with what it had produced so far (see [`finish`]).
    ///
    /// [`finish`]: Output::finish
    pub(crate) fn gather(command: impl FnOnce(&mut Self) -> anyhow::Result<u8>) -> anyhow::Result<Self> {
        let mut out = Self::default();
        let result = command(&mut out);
        out.finish(result)
    }

    /// The command's result with this output: `Ok` sets the exit code; an error keeps the
    /// output produced so far attached (as [`Partial`] context) so it is not lost.
    pub(crate) fn finish(mut self, result: anyhow::Result<u8>) -> anyhow::Result<Self> {
        match result {
            Ok(code) => {
                self.code = code;
                Ok(self)
            }
            Err(err) if self == Self::default() => Err(err),
            Err(err) => Err(err.context(Partial(self))),
        }
    }
}

/// Writes `output`'s stdout, then its stderr, flushing each; whether all of it was written.
/// (A hook answer that could not be delivered is never recorded for replay.)
pub(crate) fn deliver(output: &Output) -> bool {
    write_both(&output.stdout, &output.stderr)
}

/// Writes text to both streams (the signal path, which has no [`Output`] of its own), with
/// every terminal control character made visible ([`inert`]).
pub(crate) fn write_both(stdout: &str, stderr: &str) -> bool {
    let mut ok = true;
    if !stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        ok &= out.write_all(inert(stdout).as_bytes()).and_then(|()| out.flush()).is_ok();
    }
    if !stderr.is_empty() {
        let mut err = std::io::stderr().lock();
        ok &= err.write_all(inert(stderr).as_bytes()).and_then(|()| err.flush()).is_ok();
    }
    ok
}

/// `text` with nothing a terminal would obey: linter output, file contents and file names reach
/// codeguard's reports, and an escape sequence in them (`ESC [ 2 J`, a title or hyperlink
/// sequence, a carriage return that overwrites the verdict) must show, not act. Every C0 control
/// but newline and tab, DEL and the C1 controls become `\xNN`; a `\r\n` line end becomes `\n`.
/// Text without them is returned as it is, without a copy.
pub(crate) fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    let acts = |c: char| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c);
    if !text.contains(acts) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if acts(c) {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Delivers what `output` holds so far and empties it (the code stays): for a command that
/// made changes and is about to start a long step (installing tools), so what it did is
/// printed even if that step is interrupted. Text that could not be written is kept, so the
/// final delivery fails too and the command ends in its internal-error code, never a pass.
pub(crate) fn flush(output: &mut Output) {
    if write_both(&output.stdout, &output.stderr) {
        output.stdout.clear();
        output.stderr.clear();
    }
}

/// Prints clap's help, version or error text as clap does (styled on a terminal); whether it
/// was written.
pub(crate) fn clap_message(err: &clap::Error) -> bool {
    err.print().is_ok()
}

/// Writes a live progress fragment to stderr at once (no newline added; `check` redraws one
/// line with `\r`). Only for a person watching a terminal; errors are ignored.
pub(crate) fn progress(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// Whether stderr is a terminal (progress is shown only then).
pub(crate) fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Whether stdin is a terminal (a person could answer a question).
pub(crate) fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// The MCP server's transport: it reads requests from stdin and owns stdout for the session.
pub(crate) fn stdio() -> (tokio::io::Stdin, tokio::io::Stdout) {
    (tokio::io::stdin(), tokio::io::stdout())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_appends_a_line() {
        let mut out = Output::stdout("x\n", 1);
        out.note("codeguard: one");
        out.note("codeguard: two\n");
        assert_eq!(
            out,
            Output { stdout: "x\n".into(), stderr: "codeguard: one\ncodeguard: two\n".into(), code: 1 }
        );
    }

    #[test]
    fn terminal_controls_show_and_never_act() {
        assert!(matches!(inert("plain text\n\twith a tab"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(inert("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(inert("x\r\ny\rz"), "x\ny\\x0dz");
        assert_eq!(inert("\u{9b}31m \u{7f}"), "\\x9b31m \\x7f");
        assert_eq!(inert("émoji ✓ kept"), "émoji ✓ kept");
    }
}
