//! Brace expansion the analyser performs statically (`{a,b}`, `{1..3}`) of
//! unquoted words, as bash does before anything else, so `git add {app,util}.py` reaches the
//! git model as the two paths git really receives. Pure; words with quotes, escapes or
//! parameter expansions are left alone (they stay as written, and dynamic ones stay dynamic).

use std::borrow::Cow;

use super::syntax::Word;

/// Most words one word may expand into; beyond it the word is kept as written.
const MAX_EXPANSION: usize = 256;

/// `words` with every plain word that holds a brace expression replaced by its expansion.
pub(super) fn braces(words: &[Word]) -> Cow<'_, [Word]> {
    if !words.iter().any(|w| w.literal && w.raw.contains('{')) {
        return Cow::Borrowed(words);
    }
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        match expandable(w).then(|| expand(&w.raw)).flatten() {
            Some(many) if many.len() > 1 => out.extend(many.iter().map(|t| Word::literal(t))),
            Some(_) | None => out.push(w.clone()),
        }
    }
    Cow::Owned(out)
}

/// A literal word written without quotes or escapes (brace expansion happens on the raw text).
fn expandable(w: &Word) -> bool {
    w.literal && w.raw == w.text && !w.raw.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'$' | b'`'))
}

/// The brace expansion of `s`, or `None` when it would be too large.
fn expand(s: &str) -> Option<Vec<String>> {
    let Some((open, close, alternatives)) = first_brace(s) else { return Some(vec![s.to_owned()]) };
    let (prefix, suffix) = (&s[..open], &s[close + 1..]);
    let mut out = Vec::new();
    for alt in alternatives {
        for tail in expand(&format!("{alt}{suffix}"))? {
            out.push(format!("{prefix}{tail}"));
            if out.len() > MAX_EXPANSION {
                return None;
            }
        }
    }
    Some(out)
}

/// The first brace expression of `s`: where it opens and closes, and its alternatives (a
/// comma list at its own nesting level, or a `{a..b}` sequence). `None` when there is none.
fn first_brace(s: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(rel) = s[start..].find('{') {
        let open = start + rel;
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let close = close?;
        let inner = &s[open + 1..close];
        if !commas.is_empty() {
            let mut alts = Vec::new();
            let mut from = open + 1;
            for c in commas.iter().copied().chain([close]) {
                alts.push(s[from..c].to_owned());
                from = c + 1;
            }
            return Some((open, close, alts));
        }
        if let Some(seq) = sequence(inner) {
            return Some((open, close, seq));
        }
        start = open + 1;
    }
    None
}

/// `a..e` or `1..10` (optionally `..step`) as bash expands it.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [a, b] => (*a, *b, 1_i64),
        [a, b, c] => (*a, *b, c.parse::<i64>().ok()?.abs().max(1)),
        _ => return None,
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let n = usize::try_from((a - b).abs() / step + 1).ok()?;
        if n > MAX_EXPANSION {
            return None;
        }
        let dir = if a <= b { step } else { -step };
        return Some((0..n).map(|i| (a + dir * i64::try_from(i).unwrap_or(0)).to_string()).collect());
    }
    let (mut fc, mut tc) = (from.chars(), to.chars());
    let (Some(a), None, Some(b), None) = (fc.next(), fc.next(), tc.next(), tc.next()) else { return None };
    if !(a.is_ascii_alphabetic() && b.is_ascii_alphabetic()) {
        return None;
    }
    let (lo, hi) = (a.min(b) as u8, a.max(b) as u8);
    let mut seq: Vec<String> =
        (lo..=hi).step_by(usize::try_from(step).ok()?).map(|c| char::from(c).to_string()).collect();
    if a > b {
        seq.reverse();
    }
    Some(seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(s: &str) -> Vec<String> {
        expand(s).expect("small")
    }

    #[test]
    fn lists_sequences_and_nesting_expand_like_bash() {
        assert_eq!(ex("{app,util}.py"), ["app.py", "util.py"]);
        assert_eq!(ex("lib/{a,b}/*.py"), ["lib/a/*.py", "lib/b/*.py"]);
        assert_eq!(ex("x{1..3}"), ["x1", "x2", "x3"]);
        assert_eq!(ex("{a,b{c,d}}"), ["a", "bc", "bd"]);
        assert_eq!(ex("{a..c}"), ["a", "b", "c"]);
        assert_eq!(ex("{x}"), ["{x}"]);
        assert_eq!(ex("a{,.bak}"), ["a", "a.bak"]);
        assert_eq!(ex("HEAD@{1}"), ["HEAD@{1}"]);
    }

    #[test]
    fn quoted_words_are_left_alone() {
        let quoted = Word { raw: "'{a,b}'".into(), text: "{a,b}".into(), literal: true, ..Word::default() };
        let words = [quoted];
        assert_eq!(braces(&words).len(), 1);
        let plain = [Word::literal("{a,b}.py")];
        assert_eq!(braces(&plain).iter().map(|w| w.text.clone()).collect::<Vec<_>>(), ["a.py", "b.py"]);
    }
}
