//! Findings: the one place a linter's output is read finding by finding.
//!
//! In: a tool's output and the [`Format`] its registry entry names. Out: [`Finding`]s in
//! output order, and the counts and rule histograms every report shows. Every report (human,
//! agent, JSON, SARIF), count, fix advice and the baseline exemption read findings from here, so
//! "7 problems" is said the same way everywhere. A tool whose format the registry does not name
//! has no findings: it is reported as failed, with its output, never counted by guesswork.
//! Never: judges a status (that is `crate::verdict`).

use serde::{Deserialize, Serialize};

use crate::static_regex::static_regex;

/// A line-per-finding output format (`path:line[:col]…`), by where the rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `ruff check --output-format=concise`: `path:line:col: RULE message`.
    RuffConcise,
    /// `--format=gcc` (shellcheck): `path:line:col: level: message [SC1234]`; also cargo's
    /// `--message-format=short` (`path:line:col: level: message`, the message standing for the
    /// rule).
    Gcc,
    /// `yamllint --format parsable`: `path:line:col: [level] message (rule)`.
    YamllintParsable,
    /// The rule first after the place, with or without a colon: hadolint's `path:line RULE level:
    /// message`.
    RuleFirst,
    /// markdownlint-cli2: `path:line[:col] [level] MD000/name message`.
    Markdownlint,
    /// rubocop `--format emacs`: `path:line:col: C: [Correctable] Dept/Cop: message`.
    Emacs,
    /// `go vet`: `path:line:col: message`, a vet analyser's lines prefixed `vet: `; the message
    /// stands for the rule.
    GoVet,
    /// fish's own: `path (line N): message`.
    Fish,
    /// eslint's default `stylish`: a path line, then `  line:col  level  message  rule` lines.
    Stylish,
}

impl Format {
    /// Every format, with its registry name.
    pub const ALL: [(Self, &'static str); 9] = [
        (Self::RuffConcise, "ruff-concise"),
        (Self::Gcc, "gcc"),
        (Self::YamllintParsable, "yamllint-parsable"),
        (Self::RuleFirst, "rule-first"),
        (Self::Markdownlint, "markdownlint"),
        (Self::Emacs, "emacs"),
        (Self::GoVet, "go-vet"),
        (Self::Stylish, "stylish"),
        (Self::Fish, "fish"),
    ];
}

/// How serious a finding is, in SARIF's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `error`.
    Error,
    /// `warning`.
    Warning,
    /// `note` (a tool's info, style, convention).
    Note,
}

impl Level {
    /// The word as SARIF and the reports write it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
        }
    }

    /// A tool's own severity word (rubocop's one letter too); unknown words are errors (the tool
    /// failed on them).
    fn from_word(word: &str) -> Self {
        match word.to_ascii_lowercase().as_str() {
            "warning" | "w" => Self::Warning,
            "note" | "info" | "style" | "c" | "r" => Self::Note,
            _ => Self::Error,
        }
    }
}

/// One finding read from a linter's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Repository-relative path (a leading `./` removed).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, when printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The rule id (`F401`, `SC2164`, `document-start`), when the tool names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Severity.
    pub level: Level,
    /// The message without place, rule or severity.
    pub message: String,
    /// The output line it came from.
    #[serde(skip)]
    pub raw: String,
    /// That line's index in the output (lines of two findings can read the same: eslint's
    /// `  1:7  error …` under two file names).
    #[serde(skip)]
    pub at: usize,
}

impl Finding {
    /// What the finding is compared and counted by: its rule, or (for a tool that names none)
    /// its message with its severity word.
    pub(crate) fn key(&self) -> &str {
        self.rule.as_deref().unwrap_or(&self.message)
    }
}

static_regex! {
    /// `path:line[:col]` then `:` or a space, then the rest (a `vet: ` prefix dropped first).
    static LOCATED = r"^(?:vet: )?(?P<path>[^:\s][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?(?::\s*|\s+)(?P<rest>\S.*?)\s*$";
    /// yamllint parsable: `[level] message (rule)`.
    static YAMLLINT = r"^\[(?P<level>error|warning)\]\s+(?P<msg>.*?)(?:\s+\((?P<rule>[a-z][a-z0-9-]*)\))?$";
    /// gcc style: `level: message [SC1234]` (shellcheck), or without the code (cargo's short).
    static GCC = r"^(?P<level>error|warning|note|info|style)(?:\[(?P<code>E\d+)\])?:\s+(?P<msg>.*?)(?:\s+\[(?P<rule>SC\d+)\])?$";
    /// Code first (ruff concise, hadolint): `F401 [*] message`, `DL3008 warning: message`.
    static CODE_FIRST = r"^(?P<rule>[A-Za-z][\w.-]*):?\s+(?:\[\*\]\s+)?(?:(?P<level>error|warning|info|style):\s+)?(?P<msg>.*)$";
    /// markdownlint-cli2: `[error|warning] MD022/name message`.
    static MARKDOWNLINT = r"^(?:(?P<level>error|warning)\s+)?(?P<rule>MD\d{3})(?:/[\w-]+)*\s+(?P<msg>.*)$";
    /// A finding line of eslint's `stylish`: `  line:col  level  message  rule` (the rule after
    /// two or more spaces; none for a parse error).
    static STYLISH = r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<level>error|warning)\s+(?P<msg>.*?)(?:\s{2,}(?P<rule>[@\w][\w@/.-]*))?\s*$";
    /// What go's module loader (not vet) says at a package's import: a module at a version, or the
    /// proxy being off.
    static GO_MODULE_LOADER = r"^(?:[a-z0-9][a-z0-9._~/-]*@v[0-9][^\s:]*: |module lookup disabled by GOPROXY)";
    /// fish: `path (line N): message`.
    static FISH = r"^(?P<path>[^\s(/~][^(]*?) \(line (?P<line>\d+)\): (?P<msg>.*)$";
    /// rubocop's emacs format: `C: [Correctable] Style/Foo: message`.
    static EMACS = r"^(?P<level>[A-Z]): (?:\[[^\]]*\] )?(?P<rule>[A-Z][A-Za-z]*/[A-Za-z0-9]+): (?P<msg>.*)$";
}

/// The findings in `output`, in order.
pub(crate) fn parse(format: Format, output: &str) -> Vec<Finding> {
    if format == Format::Stylish {
        return parse_stylish(output);
    }
    if format == Format::Fish {
        return output
            .lines()
            .enumerate()
            .filter_map(|(at, raw)| {
                let c = FISH.captures(raw)?;
                let path = c["path"].trim_start_matches("./").to_owned();
                Some(Finding {
                    path,
                    line: c["line"].parse().ok().filter(|n| *n > 0)?,
                    column: None,
                    rule: None,
                    level: Level::Error,
                    message: c["msg"].to_owned(),
                    raw: raw.to_owned(),
                    at,
                })
            })
            .collect();
    }
    output.lines().enumerate().filter_map(|(at, raw)| parse_line(format, raw, at)).collect()
}

/// eslint's `stylish`: each file's path on a line of its own, its findings indented under it
/// (`  1:7  error  'x' is assigned a value but never used  no-unused-vars`, the columns two or
/// more spaces apart), then a `✖ N problems` summary.
fn parse_stylish(output: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut path: Option<String> = None;
    for (at, raw) in output.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        if !raw.starts_with(char::is_whitespace) {
            let candidate = raw.trim_end().trim_start_matches("./");
            let place = !candidate.starts_with('✖')
                && !candidate.starts_with('/')
                && !candidate.split('/').any(|c| c == "..");
            path = place.then(|| candidate.to_owned());
            continue;
        }
        let Some(file) = &path else { continue };
        let Some(c) = STYLISH.captures(raw) else { continue };
        let (Ok(line), column) = (c["line"].parse::<usize>(), c["col"].parse::<usize>().ok()) else {
            continue;
        };
        let rule = c.name("rule").map(|r| r.as_str().to_owned());
        out.push(Finding {
            path: file.clone(),
            line,
            column,
            rule,
            level: Level::from_word(&c["level"]),
            message: c["msg"].trim().to_owned(),
            raw: raw.to_owned(),
            at,
        });
    }
    out
}

fn parse_line(format: Format, raw: &str, at: usize) -> Option<Finding> {
    let head = LOCATED.captures(raw)?;
    let path = head["path"].trim_start_matches("./").to_owned();
    if path.split('/').any(|c| c == "..") || path.starts_with('/') {
        // A place outside the project (the directory the tool ran in is already cut off).
        return None;
    }
    let line = head["line"].parse().ok().filter(|n| *n > 0)?;
    let column = head.name("col").and_then(|c| c.as_str().parse().ok()).filter(|n| *n > 0);
    let rest = &head["rest"];
    let word =
        |c: &regex::Captures<'_>| c.name("level").map_or(Level::Error, |l| Level::from_word(l.as_str()));
    let named = |c: &regex::Captures<'_>| c.name("rule").map(|r| r.as_str().to_owned());
    let (rule, level, message) = match format {
        Format::RuffConcise | Format::RuleFirst => {
            let c = CODE_FIRST.captures(rest)?;
            (named(&c), word(&c), c["msg"].to_owned())
        }
        Format::Gcc => match GCC.captures(rest) {
            Some(c) => {
                let level = word(&c);
                let rule = named(&c);
                // Without a code the whole line is the message (cargo: `error: unused variable`).
                let message = if rule.is_some() { c["msg"].to_owned() } else { rest.to_owned() };
                (rule, level, message)
            }
            None => (None, Level::Error, rest.to_owned()),
        },
        // The module loader's lines (`a.go:3:8: example.com/x@v1.2.0: Get …: dial tcp …`) are
        // go's own words about its environment, not vet's findings.
        Format::GoVet if GO_MODULE_LOADER.is_match(rest) => return None,
        Format::GoVet => (None, Level::Error, rest.to_owned()),
        Format::YamllintParsable => {
            let c = YAMLLINT.captures(rest)?;
            (named(&c), word(&c), c["msg"].to_owned())
        }
        Format::Markdownlint => {
            let c = MARKDOWNLINT.captures(rest)?;
            (named(&c), word(&c), c["msg"].to_owned())
        }
        Format::Emacs => {
            let c = EMACS.captures(rest)?;
            (named(&c), word(&c), c["msg"].to_owned())
        }
        Format::Stylish | Format::Fish => return None,
    };
    Some(Finding { path, line, column, rule, level, message, raw: raw.to_owned(), at })
}

/// The lines of `output` that are the tool's own words rather than its findings (and, for
/// eslint's stylish, rather than the file names heading them): what the registry's words patterns
/// (`missing_component`, `environment`, `config_error`) read. A finding's message quotes what the
/// code says — a string literal reading "dial tcp", a file named "Cannot find module" — so it
/// never stands for the tool's state. Without a format every line is the tool's.
pub(crate) fn tool_lines(format: Option<Format>, output: &str) -> String {
    let Some(format) = format else { return output.to_owned() };
    let found: std::collections::HashSet<usize> = parse(format, output).into_iter().map(|f| f.at).collect();
    let lines: Vec<&str> = output.lines().collect();
    let heads_findings = |i: usize| {
        format == Format::Stylish
            && !lines[i].starts_with(char::is_whitespace)
            && (i + 1..lines.len()).find(|&j| !lines[j].trim().is_empty()).is_some_and(|j| found.contains(&j))
    };
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if !found.contains(&i) && !heads_findings(i) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `output` without the lines of `dropped` (findings read from it) — by position, so a line that
/// reads like a dropped one but belongs to another finding stays — and `findings` without them.
pub(crate) fn without(
    output: &str,
    findings: &mut Vec<Finding>,
    dropped: &std::collections::HashSet<usize>,
) -> String {
    findings.retain(|f| !dropped.contains(&f.at));
    let kept: Vec<&str> =
        output.lines().enumerate().filter(|(i, _)| !dropped.contains(i)).map(|(_, l)| l).collect();
    // The findings left are re-indexed to the text that now holds them.
    let mut moved = 0;
    let mut next = findings.iter_mut().peekable();
    for (i, _) in output.lines().enumerate() {
        if dropped.contains(&i) {
            moved += 1;
        } else if let Some(f) = next.next_if(|f| f.at == i) {
            f.at -= moved;
        }
    }
    kept.join("\n")
}

/// Rules by how often they were found, most frequent first (then by name); a tool that names no
/// rules has none.
pub(crate) fn histogram(findings: &[Finding]) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for rule in findings.iter().filter_map(|f| f.rule.as_deref()) {
        *counts.entry(rule).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().map(|(r, n)| (r.to_owned(), n)).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Formats a histogram as `F401×3 E501×1`.
pub(crate) fn histogram_line(histogram: &[(String, usize)]) -> String {
    histogram.iter().map(|(code, n)| format!("{code}×{n}")).collect::<Vec<_>>().join(" ")
}

/// "7 problems in 2 files", or "failed" when the output named none codeguard can read.
pub(crate) fn count_line(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "failed (see the output)".to_owned();
    }
    let mut files: Vec<&str> = findings.iter().map(|f| f.path.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    format!(
        "{} problem{} in {} file{}",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finding as a comparable tuple: path, line, column, rule, level, message.
    type Seen = (String, usize, Option<usize>, Option<String>, Level, String);

    fn got(format: Format, text: &str) -> Vec<Seen> {
        parse(format, text)
            .into_iter()
            .map(|f| (f.path, f.line, f.column, f.rule, f.level, f.message))
            .collect()
    }

    fn one(
        path: &str,
        line: usize,
        column: Option<usize>,
        rule: Option<&str>,
        level: Level,
        message: &str,
    ) -> Seen {
        (path.into(), line, column, rule.map(str::to_owned), level, message.into())
    }

    #[test]
    fn each_format_yields_place_rule_level_and_message() {
        let ruff = "app/main.py:1:8: F401 [*] `os` imported but unused\ntest/a b.py:2:1: F841 Local variable `x` is assigned to but never used\n./-x.py:3:1: E999 SyntaxError: bad\nFound 2 errors.\n/elsewhere/y.py:1:1: E999 not ours\nb.py:2:5: SyntaxError: Expected an expression\n";
        assert_eq!(
            got(Format::RuffConcise, ruff),
            [
                one("app/main.py", 1, Some(8), Some("F401"), Level::Error, "`os` imported but unused"),
                one(
                    "test/a b.py",
                    2,
                    Some(1),
                    Some("F841"),
                    Level::Error,
                    "Local variable `x` is assigned to but never used"
                ),
                one("-x.py", 3, Some(1), Some("E999"), Level::Error, "SyntaxError: bad"),
                one("b.py", 2, Some(5), Some("SyntaxError"), Level::Error, "Expected an expression"),
            ]
        );
        let gcc = "./scripts/run.sh:2:4: warning: Use 'cd ... || exit' in case cd fails. [SC2164]\nsrc/main.rs:3:9: error: unused variable: `x`\n  --> src/main.rs:3:5\n";
        assert_eq!(
            got(Format::Gcc, gcc),
            [
                one(
                    "scripts/run.sh",
                    2,
                    Some(4),
                    Some("SC2164"),
                    Level::Warning,
                    "Use 'cd ... || exit' in case cd fails."
                ),
                one("src/main.rs", 3, Some(9), None, Level::Error, "error: unused variable: `x`"),
            ]
        );
        let yaml = "cfg/a.yaml:1:1: [warning] missing document start \"---\" (document-start)\nx.yml:3:2: [error] syntax error: mapping values are not allowed here\n";
        assert_eq!(
            got(Format::YamllintParsable, yaml),
            [
                one(
                    "cfg/a.yaml",
                    1,
                    Some(1),
                    Some("document-start"),
                    Level::Warning,
                    "missing document start \"---\""
                ),
                one(
                    "x.yml",
                    3,
                    Some(2),
                    None,
                    Level::Error,
                    "syntax error: mapping values are not allowed here"
                ),
            ]
        );
        let hadolint = "Dockerfile:1 DL3006 warning: Always tag the version of an image explicitly\nDockerfile:2 DL3015 info: Avoid additional packages\n";
        assert_eq!(
            got(Format::RuleFirst, hadolint),
            [
                one(
                    "Dockerfile",
                    1,
                    None,
                    Some("DL3006"),
                    Level::Warning,
                    "Always tag the version of an image explicitly"
                ),
                one("Dockerfile", 2, None, Some("DL3015"), Level::Note, "Avoid additional packages"),
            ]
        );
        let md = "markdownlint-cli2 v0.24.1 (markdownlint v0.42.1)\nSummary: 2 issues in 1 file\na.md:1 error MD022/blanks-around-headings Headings should be surrounded\na.md:3:10 error MD009/no-trailing-spaces Trailing spaces\n";
        assert_eq!(
            got(Format::Markdownlint, md),
            [
                one("a.md", 1, None, Some("MD022"), Level::Error, "Headings should be surrounded"),
                one("a.md", 3, Some(10), Some("MD009"), Level::Error, "Trailing spaces"),
            ]
        );
        let emacs = "lib/a.rb:1:1: C: [Correctable] Style/FrozenStringLiteralComment: Missing magic comment\nlib/a.rb:2:5: W: Lint/UselessAssignment: Useless assignment to variable - `x`.\n";
        assert_eq!(
            got(Format::Emacs, emacs),
            [
                one(
                    "lib/a.rb",
                    1,
                    Some(1),
                    Some("Style/FrozenStringLiteralComment"),
                    Level::Note,
                    "Missing magic comment"
                ),
                one(
                    "lib/a.rb",
                    2,
                    Some(5),
                    Some("Lint/UselessAssignment"),
                    Level::Warning,
                    "Useless assignment to variable - `x`."
                ),
            ]
        );
        let vet = "# example.com/m\n./a.go:6:2: fmt.Printf format %d has arg \"s\" of wrong type string\nvet: ./b.go:3:6: main redeclared in this block\n";
        assert_eq!(
            got(Format::GoVet, vet),
            [
                one(
                    "a.go",
                    6,
                    Some(2),
                    None,
                    Level::Error,
                    "fmt.Printf format %d has arg \"s\" of wrong type string"
                ),
                one("b.go", 3, Some(6), None, Level::Error, "main redeclared in this block"),
            ]
        );
    }

    #[test]
    fn eslint_stylish_names_the_file_once_above_its_findings() {
        let out = "\nsrc/bad.js\n  1:7   error  'unused' is assigned a value but never used  no-unused-vars\n  1:17  error  Missing semicolon                            @stylistic/semi\n  3:1   error  Parsing error: Unexpected token }\n\n✖ 3 problems (3 errors, 0 warnings)\n  1 error and 0 warnings potentially fixable with the `--fix` option.\n";
        assert_eq!(
            got(Format::Stylish, out),
            [
                one(
                    "src/bad.js",
                    1,
                    Some(7),
                    Some("no-unused-vars"),
                    Level::Error,
                    "'unused' is assigned a value but never used"
                ),
                one("src/bad.js", 1, Some(17), Some("@stylistic/semi"), Level::Error, "Missing semicolon"),
                one("src/bad.js", 3, Some(1), None, Level::Error, "Parsing error: Unexpected token }"),
            ]
        );
    }

    #[test]
    fn fish_and_zsh_name_the_place_their_way() {
        let fish = "run.fish (line 1): Missing end to balance this if statement\nif true\n^^\nwarning: Error while reading file run.fish\n";
        assert_eq!(
            got(Format::Fish, fish),
            [one("run.fish", 1, None, None, Level::Error, "Missing end to balance this if statement")]
        );
        let zsh = "run.zsh:3: parse error near `\\n'\n";
        assert_eq!(
            got(Format::Gcc, zsh),
            [one("run.zsh", 3, None, None, Level::Error, "parse error near `\\n'")]
        );
    }

    #[test]
    fn the_tools_own_lines_are_not_its_findings_nor_the_names_heading_them() {
        let vet = "# m\n./a.go:6:2: fmt.Printf format %d has arg \"dial tcp\" of wrong type string\na.go:3:8: github.com/pkg/errors@v0.9.1: Get \"https://proxy.golang.org/x\": dial tcp: no such host\n";
        assert_eq!(parse(Format::GoVet, vet).len(), 1, "the module loader's line is no finding");
        assert_eq!(
            tool_lines(Some(Format::GoVet), vet),
            "# m\na.go:3:8: github.com/pkg/errors@v0.9.1: Get \"https://proxy.golang.org/x\": dial tcp: no such host\n"
        );
        let stylish = "Cannot find module x.js\n  1:7  error  'a' is assigned a value but never used  no-unused-vars\n\nOops! Something went wrong\n";
        assert_eq!(tool_lines(Some(Format::Stylish), stylish), "\nOops! Something went wrong\n");
        assert_eq!(tool_lines(None, "x\ny"), "x\ny");
    }

    #[test]
    fn dropping_findings_goes_by_position_not_by_text() {
        let out = "a.js\n  1:7  error  'x' is assigned a value but never used  no-unused-vars\nb.js\n  1:7  error  'x' is assigned a value but never used  no-unused-vars\n";
        let mut found = parse(Format::Stylish, out);
        assert_eq!(found.len(), 2);
        let dropped = std::iter::once(found[0].at).collect();
        let kept = without(out, &mut found, &dropped);
        assert_eq!(kept, "a.js\nb.js\n  1:7  error  'x' is assigned a value but never used  no-unused-vars");
        assert_eq!(found.iter().map(|f| (f.path.as_str(), f.at)).collect::<Vec<_>>(), [("b.js", 2)]);
        assert_eq!(parse(Format::Stylish, &kept)[0].at, 2, "re-indexed to the text that holds it");
    }

    #[test]
    fn counts_say_problems_and_files() {
        let yaml = (1..=7)
            .map(|i| format!("x.yml:{i}:1: [error] too many spaces (colons)"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(count_line(&parse(Format::YamllintParsable, &yaml)), "7 problems in 1 file");
        assert_eq!(histogram_line(&histogram(&parse(Format::YamllintParsable, &yaml))), "colons×7");
        assert_eq!(count_line(&[]), "failed (see the output)");
    }
}
