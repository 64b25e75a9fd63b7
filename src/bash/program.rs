//! Python and Node programs: find the *calls* that run git, never text that mentions it.
//!
//! In: program source. Out: one [`ProgramCall`] per call form whose command is git
//! (`subprocess.run(["git", "push"])`, `os.system("git commit …")`,
//! `execFileSync("git", ["commit"])`, ``execSync(`git push`)``). Help strings, template literals
//! outside a call and comments are ignored. Pure and bounded: a linear scan with one regex.

use super::syntax::Word;
use super::{GitOp, Mode, git};
use crate::static_regex::static_regex;

/// A git call found in a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProgramCall {
    /// The call as written, shortened.
    pub text: String,
    /// What the call does to a commit or push.
    pub effect: Effect,
}

/// What a program's git call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// Runs `git commit` or `git push`.
    Runs(Mode),
    /// Changes `codeguard.skipGate`.
    SkipGate,
}

static_regex! {
    static CALL = r"(?x)
        (?: \bsubprocess\s*\.\s*)?
        (?: \bos\s*\.\s*)?
        (?: \bchild_process\s*\.\s*)?
        \b(?: run | call | check_call | check_output | Popen | getoutput | getstatusoutput
            | system | popen | execvp | execv | execlp
            | execSync | execFileSync | execFile | exec | spawnSync | spawn | execa | execaSync )
        \s*\(";

    static RUNS = r#"(?x)
        \b(?: system | exec[a-zA-Z]* | spawn[a-zA-Z]* | popen[0-9]? | Popen | subprocess | child_process
            | shell_exec | passthru | proc_open | pcntl_exec | IO\s*\.\s*popen | Open3
            | os\s*\.\s*execute | Deno\s*\.\s*(?:Command|run) | Bun\s*\.\s*spawn | getline )\b
        | `
        | \bqx\s*[{(\[<|/!"']
        | %x\s*[{(\[<|/!"']
        | \|"#;
}

/// The one rule for inline code of any interpreter: code that can run a command (a call such
/// as `system`, `exec`, `spawn`, `popen`, `subprocess`, `child_process`, `IO.popen`; backticks,
/// `qx{}`, `%x{}`; a pipe) *and* names git with a commit or push word runs git in a way that
/// cannot be modelled: the mode it may reach. A mention without any of those
/// (`print("git push")`) is `None`. `strings` says whether the language's quotes (backticks
/// included: JS template literals) are only strings, so a call form inside one is no call.
pub(super) fn runs_git(code: &str, strings: bool) -> Option<Mode> {
    let names_git =
        code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).any(|w| w == "git");
    if !names_git {
        return None;
    }
    let mode = super::looks_like(code)?;
    // Masking keeps the quote characters themselves: a template literal's backticks go too.
    let calls = if strings {
        std::borrow::Cow::Owned(mask_strings_and_comments(code).replace('`', " "))
    } else {
        code.into()
    };
    RUNS.is_match(&calls).then_some(mode)
}

/// Finds the git calls in a Python or Node program. Call names inside string literals and
/// comments are not calls (`print("subprocess.run([...])")`).
pub(super) fn scan(source: &str, shell: &dyn Fn(&str) -> Vec<Effect>) -> Vec<ProgramCall> {
    let re = &*CALL;
    let masked = mask_strings_and_comments(source);
    let mut found = Vec::new();
    for m in re.find_iter(&masked) {
        let args = &source[m.end()..];
        let text: String = source[m.start()..].chars().take(80).take_while(|c| *c != '\n').collect();
        for effect in call_effects(args, shell) {
            found.push(ProgramCall { text: text.clone(), effect });
        }
    }
    found
}

fn call_effects(args: &str, shell: &dyn Fn(&str) -> Vec<Effect>) -> Vec<Effect> {
    let args = args.trim_start();
    if let Some(list) = args.strip_prefix('[') {
        return argv_effects(&list_items(list));
    }
    let Some((first, rest)) = string_literal(args) else { return Vec::new() };
    let rest = rest.trim_start();
    if let Some(after_comma) = rest.strip_prefix(',') {
        let after_comma = after_comma.trim_start();
        if let Some(list) = after_comma.strip_prefix('[') {
            // execFile("git", ["commit", …]) / spawn("git", [...])
            let mut command = vec![first.clone()];
            command.extend(list_items(list));
            return argv_effects(&command);
        }
    }
    // A whole command line given to a shell (os.system, execSync, shell=True).
    first.map(|cmd| shell(&cmd)).unwrap_or_default()
}

fn argv_effects(argv: &[Option<String>]) -> Vec<Effect> {
    let is_git = argv.first().and_then(Option::as_deref).is_some_and(|p| p == "git" || p.ends_with("/git"));
    if !is_git {
        return Vec::new();
    }
    let words: Vec<Word> = argv[1..]
        .iter()
        .map(|a| match a {
            Some(t) => Word::literal(t),
            None => Word { raw: "$?".into(), text: "$?".into(), ..Word::default() },
        })
        .collect();
    let g = git::globals(&words);
    let Some(sub) = g.sub.and_then(|i| words.get(i)) else { return Vec::new() };
    if !sub.literal {
        return Vec::new();
    }
    let rest = &words[g.sub.unwrap_or_default() + 1..];
    match git::sub_op(&sub.text, rest, false) {
        Some(op @ (GitOp::Commit { .. } | GitOp::Push { .. } | GitOp::Writer(_))) => {
            op.mode().map(Effect::Runs).into_iter().collect()
        }
        Some(GitOp::SetSkipGate { .. }) => vec![Effect::SkipGate],
        Some(
            GitOp::Add { .. }
            | GitOp::Rm { .. }
            | GitOp::Mv { .. }
            | GitOp::Stash { .. }
            | GitOp::ConfigWrite,
        )
        | None => Vec::new(),
    }
}

/// Replaces the contents of string literals and comments by spaces, byte for byte, so offsets
/// stay valid in the original. Python `#` and JS `//`, `/* */` comments are both masked (a `#`
/// outside a string is not valid JS and `//` is floor division only between operands in Python,
/// where masking the rest of the line loses at most one call on that line).
fn mask_strings_and_comments(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                let end = source[i..].find('\n').map_or(bytes.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') && (i == 0 || bytes[i - 1] != b'/') => {
                let end = source[i..].find('\n').map_or(bytes.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = source[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2);
                blank(&mut out, i, end);
                i = end;
            }
            q @ (b'"' | b'\'' | b'`') => {
                let triple = bytes.get(i..i + 3) == Some(&[q, q, q][..]);
                let open = if triple { 3 } else { 1 };
                let mut j = i + open;
                while j < bytes.len() {
                    if bytes[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if bytes[j] == q && (!triple || bytes.get(j..j + 3) == Some(&[q, q, q][..])) {
                        break;
                    }
                    if bytes[j] == b'\n' && !triple && q != b'`' {
                        break;
                    }
                    j += 1;
                }
                blank(&mut out, i + open, j);
                i = j + if triple { 3 } else { 1 };
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Items of a list literal up to its `]`; non-literal items are `None`.
fn list_items(mut s: &str) -> Vec<Option<String>> {
    let mut items = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() || s.starts_with(']') || items.len() > 64 {
            return items;
        }
        if let Some((value, rest)) = string_literal(s) {
            items.push(value);
            s = rest;
        } else {
            items.push(None);
            s = skip_expression(s);
        }
        s = s.trim_start();
        match s.strip_prefix(',') {
            Some(rest) => s = rest,
            None => return items,
        }
    }
}

/// Skips one expression up to the next `,` or `]` at nesting depth zero.
fn skip_expression(s: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ']' | ',' if depth == 0 => return &s[i..],
            ')' | '}' | ']' => depth -= 1,
            '\n' if depth < 0 => return "",
            _ => {}
        }
        if depth < 0 {
            return "";
        }
    }
    ""
}

/// A string literal at the start of `s` (Python prefixes `r b u f`, JS template literals).
/// Returns its value (`None` when it interpolates) and the text after it.
fn string_literal(s: &str) -> Option<(Option<String>, &str)> {
    let prefix_len =
        s.bytes().take(2).take_while(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f')).count();
    let (prefix, body) = s.split_at(prefix_len);
    let quote = body.chars().next().filter(|q| matches!(q, '"' | '\'' | '`'))?;
    let raw = prefix.to_ascii_lowercase().contains('r');
    let mut value = String::new();
    let mut chars = body[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if !raw => {
                if let Some((_, e)) = chars.next() {
                    value.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
            }
            c if c == quote => {
                let rest = &body[1 + i + c.len_utf8()..];
                // Interpolated text (`${x}`, f-strings) is kept: a shell line still reads as one.
                return Some((Some(value), rest));
            }
            '\n' if quote != '`' => return None,
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_shell(_: &str) -> Vec<Effect> {
        Vec::new()
    }

    fn effects(src: &str) -> Vec<Effect> {
        scan(src, &no_shell).into_iter().map(|c| c.effect).collect()
    }

    #[test]
    fn list_calls_are_found() {
        assert_eq!(effects(r#"subprocess.run(["git", "push", "origin"])"#), [Effect::Runs(Mode::Push)]);
        assert_eq!(
            effects(r"check_call(['git','-C', d, 'commit', '-m', 'x'])"),
            [Effect::Runs(Mode::Commit)]
        );
        assert_eq!(effects(r#"execFileSync("git", ["commit", "-m", msg])"#), [Effect::Runs(Mode::Commit)]);
        assert_eq!(
            effects(r"spawnSync('git', ['config', 'codeguard.skipGate', 'true'])"),
            [Effect::SkipGate]
        );
    }

    #[test]
    fn inline_code_runs_git_only_through_a_command_form() {
        assert_eq!(runs_git(r#"system("git push")"#, false), Some(Mode::Push));
        assert_eq!(runs_git("print `git commit -m x`", false), Some(Mode::Commit));
        assert_eq!(runs_git("BEGIN{ \"git push\" | getline }", false), Some(Mode::Push));
        assert_eq!(runs_git(r#"print "git push\n""#, false), None);
        assert_eq!(runs_git(r#"system("ls")"#, false), None);
        assert_eq!(runs_git("console.log(`git commit -m x`)", true), None);
        assert_eq!(runs_git("import os; c = 'git push'; os.system(c)", true), Some(Mode::Push));
    }

    #[test]
    fn mentions_are_not_calls() {
        assert!(effects(r#"print("run git push to publish")"#).is_empty());
        assert!(effects("const help = `git commit -m x`;").is_empty());
        assert!(effects(r#"subprocess.run(["ls", "git push"])"#).is_empty());
        assert!(effects(r#"subprocess.run(["git", "push", "--dry-run"])"#).is_empty());
        assert!(effects(r#"print('subprocess.run(["git", "push"])')"#).is_empty());
        assert!(effects("# subprocess.run(['git', 'push'])\n").is_empty());
        assert!(effects("// execSync('git push')\n").is_empty());
    }

    #[test]
    fn shell_strings_go_to_the_shell_analyser() {
        let shell =
            |cmd: &str| if cmd.contains("push") { vec![Effect::Runs(Mode::Push)] } else { Vec::new() };
        let calls = scan(r#"os.system("cd x && git push")"#, &shell);
        assert_eq!(calls.len(), 1);
        let calls = scan("execSync(`git push ${branch}`)", &shell);
        assert_eq!(calls.len(), 1);
    }
}
