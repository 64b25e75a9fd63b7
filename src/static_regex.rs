//! The one way codeguard compiles a regular expression written in its own source.
//!
//! **In:** a pattern that is a literal of the crate (never text from a user, a repository or a
//! tool: those are compiled where they are read, and their errors reported). **Out:** the compiled
//! regex, on first use. A pattern that does not compile is a bug of codeguard: [`compiled`]
//! panics with the pattern, and every pattern declared with [`static_regex!`] has a unit test of
//! its own (`<module>::<NAME>::compiles`) that forces it, so such a bug fails `cargo test`, never
//! a run. **Never:** silently degrades (a pattern that does not compile is not treated as "no
//! match").

/// Declares `static NAME: LazyLock<regex::Regex>`, compiled on first use through
/// [`compiled`], and under `cfg(test)` the unit test `NAME::compiles` that forces it.
///
/// ```ignore
/// static_regex! {
///     /// What it matches.
///     static RULE_CODE = r"\b([A-Z]{1,4}\d{3,4})\b";
/// }
/// ```
macro_rules! static_regex {
    ($($(#[$meta:meta])* $vis:vis static $name:ident = $pattern:expr;)+) => {
        $(
            $(#[$meta])*
            $vis static $name: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| $crate::static_regex::compiled($pattern, regex::Regex::new($pattern)));

            #[cfg(test)]
            #[expect(non_snake_case, reason = "the test module is named after the static it forces")]
            mod $name {
                #[test]
                fn compiles() {
                    std::sync::LazyLock::force(&super::$name);
                }
            }
        )+
    };
}
pub(crate) use static_regex;

/// The regex `built` from `pattern`, one of the crate's own (a builder with options, a set, or
/// `Regex::new`); a pattern that does not compile is a bug and panics, naming it.
pub(crate) fn compiled<T>(pattern: &str, built: Result<T, regex::Error>) -> T {
    match built {
        Ok(regex) => regex,
        Err(e) => panic!("codeguard's own pattern {pattern:?} does not compile: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static_regex! {
        static SAMPLE = r"^a+(?P<rest>b*)$";
    }

    #[test]
    fn a_static_regex_compiles_on_first_use() {
        assert!(SAMPLE.is_match("aab"));
        assert_eq!(SAMPLE.captures("ab").and_then(|c| c.name("rest")).map(|m| m.as_str()), Some("b"));
    }

    #[test]
    fn a_pattern_that_does_not_compile_panics_with_its_text() {
        let bad = String::from("a(");
        let caught = std::panic::catch_unwind(|| compiled(&bad, regex::Regex::new(&bad)));
        let message = caught.expect_err("panics");
        let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("\"a(\""), "{text}");
    }
}
