//! Bounds on what the analyser parses, so that no input can exhaust its stack.
//!
//! In: a shell text. Out: its size and an upper bound on how deeply it can nest ([`marks`]), or a
//! [`Limit`] it is past. The parser, the tree conversion, the walker and the tree's `Drop` all
//! recurse once per nesting level, and every nesting level of shell syntax needs at least one
//! *mark*: a `(` (`$(`, `<(`, `$((`, sub-shells), a `{` (`${`, groups), a backtick, `&&`/`||`
//! (`[[ … ]]` chains), a `!`, or a compound keyword (`if`, `case`, `while`, `until`, `for`,
//! `select`, `function`). The scan counts them quote-blind and never subtracts closers, so it
//! over-estimates and an input cannot hide a level from it. It is one pass over the bytes.
//!
//! A text with at most [`INLINE_MARKS`] marks is parsed on the caller's stack; up to
//! [`MAX_MARKS`] on a thread whose stack grows with the count ([`on_big_stack`]); past that, or
//! past [`MAX_SOURCE_BYTES`], it is not parsed at all (the caller decides what that means).
//! Never: recurses, allocates in proportion to the input, or fails other than by [`Limit`].

use std::cell::Cell;

/// The largest text the analyser parses (bytes).
pub(super) const MAX_SOURCE_BYTES: usize = 256 * 1024;
/// The most nesting marks a text may have.
pub(super) const MAX_MARKS: usize = 4096;
/// Up to this many marks a text is parsed on the caller's own stack (a 2 MiB thread stack holds
/// them with room to spare, even in a debug build).
pub(super) const INLINE_MARKS: usize = 64;
/// Stack reserved per mark on the big-stack thread (a debug build needs about 15 KiB per level).
const STACK_PER_MARK: usize = 48 * 1024;
/// The smallest big stack.
const MIN_BIG_STACK: usize = 16 * 1024 * 1024;

/// Why a text is not parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Limit {
    /// Longer than [`MAX_SOURCE_BYTES`].
    #[error("too large to check ({0} bytes; the limit is {MAX_SOURCE_BYTES})")]
    TooLarge(usize),
    /// More nesting marks than [`MAX_MARKS`].
    #[error("too deeply nested to check ({0} nesting marks; the limit is {MAX_MARKS})")]
    TooDeep(usize),
}

/// The number of nesting marks in `source` (an upper bound on its nesting depth).
pub(super) fn marks(source: &str) -> usize {
    let bytes = source.as_bytes();
    let mut count = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'(' | b'{' | b'`' | b'!' => count += 1,
            b'&' | b'|' if bytes.get(i + 1) == Some(&b) => {
                count += 1;
                i += 1;
            }
            b'a'..=b'z' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_lowercase() {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|p| bytes[p]);
                let after = bytes.get(i).copied();
                let bounded = |c: Option<u8>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_'));
                if bounded(before)
                    && bounded(after)
                    && matches!(
                        &bytes[start..i],
                        b"if" | b"case" | b"while" | b"until" | b"for" | b"select" | b"function"
                    )
                {
                    count += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    count
}

/// The number of marks of a text the analyser will parse, or the limit it is past.
pub(super) fn check(source: &str) -> Result<usize, Limit> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(Limit::TooLarge(source.len()));
    }
    match marks(source) {
        n if n > MAX_MARKS => Err(Limit::TooDeep(n)),
        n => Ok(n),
    }
}

/// Whether a text with `marks` marks may be parsed and walked on the current thread's stack.
pub(super) fn fits_here(marks: usize) -> bool {
    marks <= INLINE_MARKS || on_big_stack()
}

thread_local! {
    static BIG_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether the current thread is a big-stack thread started by [`on_big_stack_thread`].
pub(super) fn on_big_stack() -> bool {
    BIG_STACK.with(Cell::get)
}

/// Runs `f` on a thread whose stack holds `marks` nesting levels; `None` when no such thread
/// could be started or `f` panicked.
pub(super) fn on_big_stack_thread<T: Send>(marks: usize, f: impl FnOnce() -> T + Send) -> Option<T> {
    let size = marks.saturating_mul(STACK_PER_MARK).max(MIN_BIG_STACK);
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("codeguard-parse".into())
            .stack_size(size)
            .spawn_scoped(scope, || {
                BIG_STACK.with(|b| b.set(true));
                f()
            })
            .ok()?;
        handle.join().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nesting_construct_is_a_mark() {
        assert_eq!(marks("git commit -m x"), 0);
        assert_eq!(marks("echo $(a) `b` ${c} <(d) { e; } ( f )"), 7, "each backtick is a mark");
        assert_eq!(marks("if a; then while b; do c && d || ! e; done; fi"), 5);
        assert_eq!(marks("diff iffy casein for_x if_ for"), 1, "keywords are whole words");
        assert_eq!(marks("case x in a) y;; esac"), 1);
    }

    #[test]
    fn closers_never_hide_a_level() {
        let hidden = "$( case x in a) ".repeat(100);
        assert!(marks(&hidden) >= 100, "a `)` that is not a closer cannot cancel a level");
        let quoted = "$( ')' ".repeat(100);
        assert!(marks(&quoted) >= 100);
    }

    #[test]
    fn past_the_limits_nothing_is_parsed() {
        assert_eq!(check(&"$(".repeat(MAX_MARKS + 1)), Err(Limit::TooDeep(MAX_MARKS + 1)));
        assert_eq!(check(&"a".repeat(MAX_SOURCE_BYTES + 1)), Err(Limit::TooLarge(MAX_SOURCE_BYTES + 1)));
        assert_eq!(check(&"$(".repeat(MAX_MARKS)), Ok(MAX_MARKS));
    }

    #[test]
    fn the_big_stack_flag_is_per_thread() {
        assert!(!on_big_stack());
        assert_eq!(on_big_stack_thread(10, on_big_stack), Some(true));
        assert!(!on_big_stack());
    }
}
