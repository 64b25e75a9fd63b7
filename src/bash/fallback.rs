//! The conservative tokenizer for text the parser rejects (an unterminated quote, a stray `)`).
//!
//! In: any text. Out: a [`Script`] of simple commands. It is deliberately quote-blind: quote
//! characters are dropped and every operator character splits, so code hidden inside a broken
//! quote is still seen. It over-reports by design and never fails.

use super::syntax::Command;
use super::syntax::{AndOr, Connector, Item, Pipeline, Script, Simple, Word};

/// Splits `text` into simple commands joined by `&&`, `||` or sequence.
pub(super) fn tokenize(text: &str) -> Script {
    let mut t = Tokens::default();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next().filter(|n| *n != '\n') {
                    t.word.push(n);
                }
            }
            '\'' | '"' => {}
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                t.end(Some(Connector::And));
            }
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                t.end(Some(Connector::Or));
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                t.end(None);
            }
            ';' | '\n' | '&' | '|' | '(' | ')' | '{' | '}' | '`' | '<' | '>' => t.end(None),
            c if c.is_whitespace() => t.end_word(),
            c => t.word.push(c),
        }
    }
    t.end(None);
    Script(t.items)
}

#[derive(Default)]
struct Tokens {
    word: String,
    words: Vec<Word>,
    /// The and-or list being built and the connector that will join the next command.
    current: Option<AndOr>,
    pending: Option<Connector>,
    items: Vec<Item>,
}

impl Tokens {
    fn end_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.word);
        let keyword = matches!(
            text.as_str(),
            "if" | "then"
                | "else"
                | "elif"
                | "fi"
                | "do"
                | "done"
                | "while"
                | "until"
                | "!"
                | "time"
                | "esac"
        );
        if keyword && self.words.is_empty() {
            return;
        }
        let mut w = Word::literal(&text);
        w.literal = !text.contains('$');
        w.parameter_only = text.starts_with('$') && !text[1..].contains(['$', '/']);
        self.words.push(w);
    }

    /// Ends the current command; `connector` joins it to the next one (`None`: a new item).
    fn end(&mut self, connector: Option<Connector>) {
        self.end_word();
        if !self.words.is_empty() {
            let cmd = Pipeline(
                vec![Command::Simple(Simple { words: std::mem::take(&mut self.words), ..Simple::default() })],
                false,
            );
            if let (Some(list), Some(join)) = (self.current.as_mut(), self.pending) {
                list.rest.push((join, cmd));
            } else {
                self.flush();
                self.current = Some(AndOr { first: cmd, rest: Vec::new() });
            }
        }
        self.pending = connector;
        if connector.is_none() {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(list) = self.current.take() {
            self.items.push(Item { list, background: false, line: None });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(text: &str) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for item in tokenize(text).0 {
            let mut pipes = vec![item.list.first];
            pipes.extend(item.list.rest.into_iter().map(|(_, p)| p));
            for p in pipes {
                for c in p.0 {
                    if let Command::Simple(s) = c {
                        out.push(s.words.iter().map(|w| w.text.clone()).collect());
                    }
                }
            }
        }
        out
    }

    #[test]
    fn broken_quotes_still_expose_commands() {
        assert_eq!(commands("git commit -m 'oops"), [["git", "commit", "-m", "oops"]]);
        assert_eq!(commands("echo \"x; git push"), [vec!["echo", "x"], vec!["git", "push"]]);
    }

    #[test]
    fn and_chains_stay_joined() {
        let s = tokenize("a && b || c; d");
        assert_eq!(s.0.len(), 2);
        assert_eq!(s.0[0].list.rest.len(), 2);
        assert_eq!(s.0[0].list.rest[0].0, Connector::And);
        assert_eq!(s.0[0].list.rest[1].0, Connector::Or);
    }
}
