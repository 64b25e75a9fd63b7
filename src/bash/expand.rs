//! Words whose expansions are known from the command itself: literal assignments made earlier
//! (`G=git; $G commit`, `C=commit; git "$C"`, `cmd="git push"; eval "$cmd"`), a `for` loop's
//! current value, a function's positional parameters (`run(){ "$@"; }; run git push`) and
//! `$(which git)` / `$(command -v git)` / `$(type -P git)` naming git.
//!
//! In: one [`Word`] and the walker's variables. Out: the literal words the shell would pass, or
//! `None` when any part is only known at run time (the word then stays dynamic and is treated
//! as before: never silently). Pure; unquoted expansions are field-split on blanks, and a
//! result that would be globbed (`*`, `?`, `[`) is left unknown.

use super::syntax::Word;
use super::walk::Walker;

/// `$(which git)`, `` `command -v git` ``, `"$(type -P git)"`: the whole word names git.
fn names_git(w: &Word) -> bool {
    let [sub] = w.substitutions.as_slice() else { return false };
    let words: Vec<&str> = sub.split_whitespace().collect();
    let finds_git = matches!(
        words.as_slice(),
        ["which", "git"] | ["command", "-v" | "-V", "git"] | ["type", "-P" | "-p", "git"]
    );
    let raw = w.raw.trim_matches('"');
    finds_git && (raw == format!("$({sub})") || raw == format!("`{sub}`"))
}

impl Walker<'_> {
    /// Whether any word of `words` may expand to something known.
    pub(super) fn may_expand(&self, words: &[Word]) -> bool {
        words.iter().any(|w| {
            !w.literal && (!w.substitutions.is_empty() || !self.vars.is_empty() || self.positional.is_some())
        })
    }

    /// `words` with every expandable word replaced by what it expands to.
    pub(super) fn expand_words(&self, words: &[Word]) -> Vec<Word> {
        let mut out = Vec::with_capacity(words.len());
        for w in words {
            match (!w.literal).then(|| self.expand_word(w, true)).flatten() {
                Some(expanded) => out.extend(expanded),
                None => out.push(w.clone()),
            }
        }
        out
    }

    /// The words `w` expands to (`split`: unquoted expansions are field-split, as for command
    /// words; not for an assignment's value), or `None` when part of it is unknown.
    pub(super) fn expand_word(&self, w: &Word, split: bool) -> Option<Vec<Word>> {
        if w.literal {
            return Some(vec![w.clone()]);
        }
        if names_git(w) {
            return Some(vec![Word::literal("git")]);
        }
        if !w.substitutions.is_empty() || w.raw.starts_with('~') {
            return None;
        }
        if matches!(w.raw.as_str(), "\"$@\"" | "\"${@}\"") {
            return self.positional.clone();
        }
        if let Some(name) = w.raw.strip_prefix("\"${").and_then(|r| r.strip_suffix("[@]}\"")) {
            let value = self.vars.get(name)?.as_ref()?;
            return Some(value.split_whitespace().map(Word::literal).collect());
        }
        let raw = w.raw.as_str();
        let mut fields = Fields::default();
        let mut quoted = false;
        let mut i = 0;
        while let Some(c) = raw[i..].chars().next() {
            i += c.len_utf8();
            match c {
                '\'' if !quoted => {
                    let end = raw[i..].find('\'')?;
                    fields.push_str(&raw[i..i + end]);
                    i += end + 1;
                }
                '"' => {
                    quoted = !quoted;
                    fields.touch();
                }
                '\\' => {
                    let next = raw[i..].chars().next()?;
                    i += next.len_utf8();
                    if quoted && !matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                        fields.push('\\');
                    }
                    if next != '\n' {
                        fields.push(next);
                    }
                }
                '$' => {
                    let (value, used) = self.parameter(&raw[i..])?;
                    i += used;
                    if quoted || !split {
                        fields.push_str(&value);
                    } else {
                        // A glob in the value, or an `IFS` the command set (the fields are then
                        // split on other characters): only run time knows the words.
                        if value.contains(['*', '?', '[']) || self.vars.contains_key("IFS") {
                            return None;
                        }
                        fields.split_in(&value);
                    }
                }
                '`' => return None,
                '*' | '?' | '[' if !quoted => return None,
                c => fields.push(c),
            }
        }
        if quoted {
            return None;
        }
        Some(fields.finish().iter().map(|t| Word::literal(t)).collect())
    }

    /// The value of the parameter expansion at the start of `rest` (just after `$`) and the
    /// bytes it spans: `NAME`, `{NAME}`, `1`…`9`, `{1}`, `@`/`*` joined by spaces.
    fn parameter(&self, rest: &str) -> Option<(String, usize)> {
        let (name, used) = if let Some(inner) = rest.strip_prefix('{') {
            let end = inner.find('}')?;
            (&inner[..end], end + 2)
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '@' || c == '*') {
            (&rest[..1], 1)
        } else {
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            (&rest[..end], end)
        };
        if name.is_empty() {
            return None;
        }
        let positional = |n: usize| -> Option<String> {
            let args = self.positional.as_ref()?;
            match args.get(n) {
                Some(w) => w.value().map(str::to_owned),
                None => Some(String::new()),
            }
        };
        let value = match name {
            "@" | "*" => {
                let args = self.positional.as_ref()?;
                let texts: Option<Vec<&str>> = args.iter().map(Word::value).collect();
                texts?.join(" ")
            }
            n if n.chars().all(|c| c.is_ascii_digit()) => {
                let index: usize = n.parse().ok()?;
                positional(index.checked_sub(1)?)?
            }
            n if n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                self.vars.get(n)?.clone()?
            }
            _ => return None,
        };
        Some((value, used))
    }
}

/// Words being built by expansion.
#[derive(Default)]
struct Fields {
    done: Vec<String>,
    current: String,
    /// The current word exists even if empty (`""`).
    started: bool,
}

impl Fields {
    fn touch(&mut self) {
        self.started = true;
    }

    fn push(&mut self, c: char) {
        self.current.push(c);
        self.started = true;
    }

    fn push_str(&mut self, s: &str) {
        self.current.push_str(s);
        self.started = true;
    }

    fn end(&mut self) {
        if self.started {
            self.done.push(std::mem::take(&mut self.current));
            self.started = false;
        }
    }

    /// An unquoted expansion: blanks separate words.
    fn split_in(&mut self, value: &str) {
        if value.starts_with(char::is_whitespace) {
            self.end();
        }
        for (n, piece) in value.split_whitespace().enumerate() {
            if n > 0 {
                self.end();
            }
            self.push_str(piece);
        }
        if value.ends_with(char::is_whitespace) {
            self.end();
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.end();
        self.done
    }
}

/// git's own splitting of an alias value into words (`split_cmdline`): blanks separate words,
/// `'…'` and `"…"` quote, a backslash escapes the next character. `None` for an unclosed quote
/// (git refuses to run the alias).
pub(super) fn split_cmdline(value: &str) -> Option<Vec<String>> {
    let mut fields = Fields::default();
    let mut quote = None;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => fields.end(),
            (None, '\'' | '"') => {
                quote = Some(c);
                fields.touch();
            }
            (Some(q), c) if c == q => quote = None,
            (None | Some('"'), '\\') => fields.push(chars.next()?),
            (_, c) => fields.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    Some(fields.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_values_split_like_git() {
        assert_eq!(split_cmdline("commit -m 'a b'"), Some(vec!["commit".into(), "-m".into(), "a b".into()]));
        assert_eq!(
            split_cmdline(r#"log "--format=%h %s""#),
            Some(vec!["log".into(), "--format=%h %s".into()])
        );
        assert_eq!(split_cmdline("commit 'oops"), None);
    }
}
