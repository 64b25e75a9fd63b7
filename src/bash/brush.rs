//! The brush-parser adapter: brush's AST → our [`syntax`](super::syntax) tree.
//!
//! In: shell source. Out: a [`Script`] with quote-removed words, or a one-line parse error.
//! It never interprets commands; it only translates node shapes and unquotes words.

use brush_parser::ast;
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

use super::bounds;
use super::syntax::{
    AndOr, Assignment, Command, Connector, Item, ParseError, Pipeline, Redirect, Script, ShellParser, Simple,
    Word,
};

/// brush-parser 0.4.0 behind [`ShellParser`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct BrushParser;

impl ShellParser for BrushParser {
    fn parse(&self, source: &str) -> Result<Script, ParseError> {
        match bounds::check(source) {
            Ok(marks) if bounds::fits_here(marks) => {}
            Ok(_) => return Err(ParseError::TooDeepHere),
            Err(limit) => return Err(limit.into()),
        }
        let options = ParserOptions::default();
        let mut parser = Parser::new(source.as_bytes(), &options);
        let program = parser.parse_program().map_err(|e| ParseError::Syntax(e.to_string()))?;
        let mut items = Vec::new();
        for (line, complete) in program.complete_commands.iter().enumerate() {
            items.extend(list(complete).0.into_iter().map(|item| Item { line: Some(line), ..item }));
        }
        Ok(Script(items))
    }
}

fn list(list: &ast::CompoundList) -> Script {
    Script(
        list.0
            .iter()
            .map(|ast::CompoundListItem(and_or, sep)| Item {
                list: and_or_list(and_or),
                background: matches!(sep, ast::SeparatorOperator::Async),
                line: None,
            })
            .collect(),
    )
}

fn and_or_list(l: &ast::AndOrList) -> AndOr {
    AndOr {
        first: pipeline(&l.first),
        rest: l
            .additional
            .iter()
            .map(|a| match a {
                ast::AndOr::And(p) => (Connector::And, pipeline(p)),
                ast::AndOr::Or(p) => (Connector::Or, pipeline(p)),
            })
            .collect(),
    }
}

fn pipeline(p: &ast::Pipeline) -> Pipeline {
    Pipeline(p.seq.iter().map(command).collect(), p.bang)
}

fn command(c: &ast::Command) -> Command {
    match c {
        ast::Command::Simple(s) => Command::Simple(simple(s)),
        ast::Command::Compound(compound_cmd, redirects) => {
            compound(compound_cmd, redirect_list(redirects.as_ref()))
        }
        ast::Command::Function(f) => {
            let body = compound(&f.body.0, redirect_list(f.body.1.as_ref()));
            Command::Function(f.fname.value.clone(), Box::new(body))
        }
        ast::Command::ExtendedTest(t, _) => {
            let mut words = Vec::new();
            test_words(&t.expr, &mut words);
            Command::Test(words)
        }
    }
}

fn test_words(e: &ast::ExtendedTestExpr, out: &mut Vec<Word>) {
    match e {
        ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
            test_words(a, out);
            test_words(b, out);
        }
        ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => test_words(a, out),
        ast::ExtendedTestExpr::UnaryTest(_, w) => out.push(unquote(&w.value)),
        ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
            out.push(unquote(&a.value));
            out.push(unquote(&b.value));
        }
    }
}

fn compound(c: &ast::CompoundCommand, redirects: Vec<Redirect>) -> Command {
    match c {
        ast::CompoundCommand::Arithmetic(a) => Command::Arithmetic(a.expr.value.clone()),
        ast::CompoundCommand::ArithmeticForClause(f) => Command::Loop {
            var: None,
            until: false,
            words: Vec::new(),
            condition: None,
            body: list(&f.body.list),
            redirects,
        },
        ast::CompoundCommand::BraceGroup(g) => Command::Group(list(&g.list), redirects),
        ast::CompoundCommand::Subshell(s) => Command::Subshell(list(&s.list), redirects),
        ast::CompoundCommand::ForClause(f) => Command::Loop {
            // `for x; do` iterates the positional parameters: no literal list to follow.
            var: f.values.is_some().then(|| f.variable_name.clone()),
            until: false,
            words: f.values.iter().flatten().map(|w| unquote(&w.value)).collect(),
            condition: None,
            body: list(&f.body.list),
            redirects,
        },
        ast::CompoundCommand::CaseClause(c) => Command::Case(
            unquote(&c.value.value),
            c.cases.iter().map(|item| item.cmd.as_ref().map(list).unwrap_or_default()).collect(),
            redirects,
        ),
        ast::CompoundCommand::IfClause(i) => {
            let mut branches = vec![(Some(list(&i.condition)), list(&i.then))];
            for e in i.elses.iter().flatten() {
                branches.push((e.condition.as_ref().map(list), list(&e.body)));
            }
            Command::If(branches, redirects)
        }
        ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => Command::Loop {
            var: None,
            until: matches!(c, ast::CompoundCommand::UntilClause(_)),
            words: Vec::new(),
            condition: Some(list(&w.0)),
            body: list(&w.1.list),
            redirects,
        },
        ast::CompoundCommand::Coprocess(c) => {
            Command::Subshell(Script(vec![single(command(&c.body))]), redirects)
        }
    }
}

fn single(c: Command) -> Item {
    Item { list: AndOr { first: Pipeline(vec![c], false), rest: Vec::new() }, background: false, line: None }
}

fn simple(s: &ast::SimpleCommand) -> Simple {
    let mut out = Simple::default();
    for item in s.prefix.iter().flat_map(|p| p.0.iter()) {
        prefix_or_suffix(item, &mut out);
    }
    if let Some(w) = &s.word_or_name {
        out.words.push(unquote(&w.value));
    }
    for item in s.suffix.iter().flat_map(|p| p.0.iter()) {
        prefix_or_suffix(item, &mut out);
    }
    out
}

fn prefix_or_suffix(item: &ast::CommandPrefixOrSuffixItem, out: &mut Simple) {
    match item {
        ast::CommandPrefixOrSuffixItem::IoRedirect(r) => out.redirects.push(redirect(r)),
        ast::CommandPrefixOrSuffixItem::Word(w) => out.words.push(unquote(&w.value)),
        ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
            if out.words.is_empty() {
                out.assignments.push(assignment(a));
            } else {
                // `env A=1 git …` or `export A=1`: after the command name it is just a word.
                out.words.push(unquote(&w.value));
            }
        }
        ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
            out.redirects.push(Redirect::Process(list(&sub.list)));
            out.words.push(Word { raw: "<(…)".into(), text: "<(…)".into(), ..Word::default() });
        }
    }
}

fn assignment(a: &ast::Assignment) -> Assignment {
    let name = match &a.name {
        ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
    };
    let values = match &a.value {
        ast::AssignmentValue::Scalar(w) => vec![unquote(&w.value)],
        ast::AssignmentValue::Array(items) => items.iter().map(|(_, w)| unquote(&w.value)).collect(),
    };
    Assignment { name, values }
}

fn redirect_list(r: Option<&ast::RedirectList>) -> Vec<Redirect> {
    r.map(|l| l.0.iter().map(redirect).collect()).unwrap_or_default()
}

fn redirect(r: &ast::IoRedirect) -> Redirect {
    match r {
        ast::IoRedirect::File(_, ast::IoFileRedirectKind::Read, ast::IoFileRedirectTarget::Filename(w)) => {
            Redirect::ReadFile(unquote(&w.value))
        }
        ast::IoRedirect::File(
            _,
            kind @ (ast::IoFileRedirectKind::Write
            | ast::IoFileRedirectKind::Append
            | ast::IoFileRedirectKind::Clobber
            | ast::IoFileRedirectKind::ReadAndWrite),
            ast::IoFileRedirectTarget::Filename(w),
        ) => Redirect::Write {
            target: unquote(&w.value),
            append: matches!(kind, ast::IoFileRedirectKind::Append),
        },
        ast::IoRedirect::File(_, _, target) => match target {
            ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w) => {
                Redirect::File(unquote(&w.value))
            }
            ast::IoFileRedirectTarget::Fd(fd) => Redirect::File(Word::literal(&fd.to_string())),
            ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => Redirect::Process(list(&sub.list)),
        },
        ast::IoRedirect::HereDocument(_, doc) => {
            let body = doc.doc.value.clone();
            let substitutions =
                if doc.requires_expansion { heredoc_substitutions(&body) } else { Vec::new() };
            Redirect::HereDoc { body, expands: doc.requires_expansion, substitutions }
        }
        ast::IoRedirect::HereString(_, w) => Redirect::HereString(unquote(&w.value)),
        ast::IoRedirect::OutputAndError(w, append) => {
            Redirect::Write { target: unquote(&w.value), append: *append }
        }
    }
}

fn heredoc_substitutions(body: &str) -> Vec<String> {
    if !body.contains("$(") && !body.contains('`') {
        return Vec::new();
    }
    let mut w = Word::default();
    let parsable = bounds::check(body).is_ok_and(bounds::fits_here);
    match parsable.then(|| word::parse_heredoc(body, &ParserOptions::default())) {
        Some(Ok(pieces)) => pieces_into(&pieces, body, &mut w),
        // Unparsable body: hand the whole text over so nothing that may run is lost.
        Some(Err(_)) | None => w.substitutions.push(body.to_owned()),
    }
    w.substitutions
}

/// Characters after which a word can never need the word parser.
fn is_plain(raw: &str) -> bool {
    !raw.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'$' | b'`' | b'~'))
}

/// Quote removal plus a record of every expansion in the word.
pub(super) fn unquote(raw: &str) -> Word {
    if is_plain(raw) {
        return Word::literal(raw);
    }
    let mut w = Word { raw: raw.to_owned(), literal: true, ..Word::default() };
    let parsable = bounds::check(raw).is_ok_and(bounds::fits_here);
    if let Some(Ok(pieces)) = parsable.then(|| word::parse(raw, &ParserOptions::default())) {
        w.parameter_only = pieces.len() == 1 && matches!(pieces[0].piece, WordPiece::ParameterExpansion(_));
        pieces_into(&pieces, raw, &mut w);
    } else {
        // Keep a best-effort value; the word is not trusted as literal.
        raw.clone_into(&mut w.text);
        w.literal = false;
    }
    w
}

fn pieces_into(pieces: &[WordPieceWithSource], src: &str, w: &mut Word) {
    for p in pieces {
        let source = src.get(p.start_index..p.end_index).unwrap_or_default();
        match &p.piece {
            WordPiece::Text(t) | WordPiece::SingleQuotedText(t) => w.text.push_str(t),
            WordPiece::AnsiCQuotedText(t) => w.text.push_str(&ansi_c(t)),
            WordPiece::EscapeSequence(t) => w.text.push_str(t.strip_prefix('\\').unwrap_or(t)),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                pieces_into(inner, src, w);
            }
            WordPiece::TildeExpansion(_) => {
                w.literal = false;
                w.text.push_str(source);
            }
            WordPiece::ArithmeticExpression(expr) => {
                w.literal = false;
                w.text.push_str(source);
                // `$(( ( git push ) ))` may be nested sub-shells rather than arithmetic: a text
                // mentioning git is read as commands too (conservatively).
                if expr.value.contains("git") {
                    w.substitutions.push(expr.value.clone());
                }
            }
            WordPiece::ParameterExpansion(_) => {
                w.literal = false;
                w.text.push_str(source);
                // `${x:-$(cmd)}`: the default may run a command.
                if let Some(inner) = nested_substitution(source) {
                    w.substitutions.push(inner.to_owned());
                }
            }
            WordPiece::CommandSubstitution(cmd) | WordPiece::BackquotedCommandSubstitution(cmd) => {
                w.literal = false;
                w.text.push_str(source);
                w.substitutions.push(cmd.clone());
            }
        }
    }
}

/// The command inside the first `$( … )` or backticks of a parameter expansion's text.
fn nested_substitution(source: &str) -> Option<&str> {
    if let Some(start) = source.find("$(") {
        let end = source.rfind(')').filter(|e| *e > start + 1)?;
        return Some(&source[start + 2..end]);
    }
    let start = source.find('`')?;
    let end = source.rfind('`').filter(|e| *e > start)?;
    Some(&source[start + 1..end])
}

/// The common escapes of `$'…'`; anything else is kept as written.
fn ansi_c(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o @ ('\\' | '\'' | '"')) => out.push(o),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_simple(src: &str) -> Simple {
        let script = BrushParser.parse(src).expect("parses");
        match &script.0[0].list.first.0[0] {
            Command::Simple(s) => s.clone(),
            other => panic!("not simple: {other:?}"),
        }
    }

    #[test]
    fn words_are_unquoted_and_expansions_flagged() {
        let s = first_simple(r#"\git 'a b' "c$d" $(git push) `x` $'l\n'"#);
        let texts: Vec<_> = s.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["git", "a b", "c$d", "$(git push)", "`x`", "l\n"]);
        let literal: Vec<_> = s.words.iter().map(|w| w.literal).collect();
        assert_eq!(literal, [true, true, false, false, false, true]);
        assert_eq!(s.words[3].substitutions, ["git push"]);
        assert_eq!(s.words[4].substitutions, ["x"]);
    }

    #[test]
    fn parameter_only_words_are_recognised() {
        let s = first_simple("${GIT:-git} push");
        assert!(s.words[0].parameter_only);
        assert!(!s.words[0].literal);
    }

    #[test]
    fn heredoc_bodies_keep_quoting_mode() {
        let s = first_simple("cat <<'EOF'\n$(git push)\nEOF\n");
        assert!(
            matches!(&s.redirects[0], Redirect::HereDoc { expands: false, substitutions, .. } if substitutions.is_empty())
        );
        let s = first_simple("cat <<EOF\n$(git push)\nEOF\n");
        assert!(
            matches!(&s.redirects[0], Redirect::HereDoc { expands: true, substitutions, .. } if substitutions == &["git push"])
        );
    }

    #[test]
    fn unterminated_quote_is_an_error() {
        assert!(BrushParser.parse("git commit -m 'x").is_err());
    }
}
