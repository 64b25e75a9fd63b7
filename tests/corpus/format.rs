//! The corpus file format (see the header of `tests/corpus/bash.txt`), shared by the
//! integration tests and the benchmark through `#[path]`.

/// One corpus entry.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// Line of the entry in the file.
    pub line: usize,
    /// Expectation tokens.
    pub expect: Vec<String>,
    /// The command text.
    pub command: String,
}

/// The corpus file, parsed.
pub(crate) fn cases() -> Vec<Case> {
    parse(include_str!("bash.txt"))
}

/// Parses the corpus format.
pub(crate) fn parse(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('>') {
            let last = cases.last_mut().expect("continuation without a case");
            last.command.push('\n');
            last.command.push_str(rest.strip_prefix(' ').unwrap_or(rest));
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (expect, command) = line.split_once(" | ").unwrap_or_else(|| panic!("line {}: no ` | `", i + 1));
        cases.push(Case {
            line: i + 1,
            expect: expect.split_whitespace().map(str::to_owned).collect(),
            command: command.to_owned(),
        });
    }
    cases
}
