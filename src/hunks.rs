//! The part of a formatter's rewrite that touches the change: after an edit, `codeguard fix`
//! applies a formatter's hunks only where they meet the lines the edit changed against `HEAD`;
//! the rest of the file keeps its bytes (reformatting code nobody touched is nobody's request).
//!
//! In: the file's `HEAD` version, its content before the formatter ran, and after. Out: the
//! content with only the formatter hunks that overlap or touch a changed line, and how many were
//! left out. Never: reads or writes a file (the caller does).

use similar::{DiffOp, TextDiff};

/// `after` limited to the hunks of `before → after` that meet a line `head → before` changed.
/// Returns the content to keep and the number of hunks left out. Text that is not UTF-8 is kept
/// as the formatter wrote it (`None`).
pub(crate) fn limit_to_change(head: &[u8], before: &[u8], after: &[u8]) -> Option<(Vec<u8>, usize)> {
    let (head, before, after) = (
        std::str::from_utf8(head).ok()?,
        std::str::from_utf8(before).ok()?,
        std::str::from_utf8(after).ok()?,
    );
    // Lines of `before` the edit changed, and the places in `before` where it deleted lines.
    let edit = TextDiff::from_lines(head, before);
    let mut touched: Vec<std::ops::Range<usize>> = Vec::new();
    for op in edit.ops() {
        match *op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete { new_index, .. } => touched.push(new_index..new_index),
            DiffOp::Insert { new_index, new_len, .. } | DiffOp::Replace { new_index, new_len, .. } => {
                touched.push(new_index..new_index + new_len);
            }
        }
    }
    let meets = |range: &std::ops::Range<usize>| {
        // Adjacent counts: a formatter re-indenting the line after an inserted block meets it.
        touched.iter().any(|t| range.start <= t.end && t.start <= range.end)
    };
    let format = TextDiff::from_lines(before, after);
    let old: Vec<&str> = format.old_slices().to_vec();
    let new: Vec<&str> = format.new_slices().to_vec();
    let mut out = String::with_capacity(after.len());
    let mut left_out = 0;
    for op in format.ops() {
        match *op {
            DiffOp::Equal { old_index, len, .. } => {
                out.extend(old[old_index..old_index + len].iter().copied());
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                // Applied, the lines go; left out, they stay.
                if !meets(&(old_index..old_index + old_len)) {
                    left_out += 1;
                    out.extend(old[old_index..old_index + old_len].iter().copied());
                }
            }
            DiffOp::Insert { old_index, new_index, new_len } => {
                if meets(&(old_index..old_index)) {
                    out.extend(new[new_index..new_index + new_len].iter().copied());
                } else {
                    left_out += 1;
                }
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                if meets(&(old_index..old_index + old_len)) {
                    out.extend(new[new_index..new_index + new_len].iter().copied());
                } else {
                    left_out += 1;
                    out.extend(old[old_index..old_index + old_len].iter().copied());
                }
            }
        }
    }
    Some((out.into_bytes(), left_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(head: &str, before: &str, after: &str) -> (String, usize) {
        let (bytes, n) =
            limit_to_change(head.as_bytes(), before.as_bytes(), after.as_bytes()).expect("utf-8");
        (String::from_utf8(bytes).expect("utf-8"), n)
    }

    #[test]
    fn only_the_hunks_that_meet_the_edit_are_applied() {
        let head = "a  =  1\nb = 2\nc  =  3\n";
        let before = "a  =  1\nb = 2\nd  =  4\nc  =  3\n";
        let after = "a = 1\nb = 2\nd = 4\nc = 3\n";
        // `c` follows the inserted line: adjacent, so it is the edit's neighbour and is formatted.
        assert_eq!(limit(head, before, after), ("a  =  1\nb = 2\nd = 4\nc = 3\n".to_owned(), 1));
    }

    #[test]
    fn a_new_file_or_a_whole_rewrite_is_formatted_whole() {
        let (out, n) = limit("", "x  =  1\ny  =  2\n", "x = 1\ny = 2\n");
        assert_eq!((out.as_str(), n), ("x = 1\ny = 2\n", 0));
    }

    #[test]
    fn nothing_the_edit_did_not_touch_changes() {
        let head = "if x\nthen   y\nfi\necho   a\n\n\n\necho   b\n";
        let before = "if x\nthen   y\nfi\necho   a\n\n\n\necho   b\necho   new\n";
        let after = "if x\nthen y\nfi\necho a\n\n\n\necho b\necho new\n";
        let (out, n) = limit(head, before, after);
        assert_eq!(out, "if x\nthen   y\nfi\necho   a\n\n\n\necho b\necho new\n");
        assert_eq!(n, 2);
    }
}
