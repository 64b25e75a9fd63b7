//! Content safety: files that must never be committed, and secrets inside the files that are.
//!
//! In: the repository-relative paths a commit or push adds or modifies (deletions excluded) with
//! their raw bytes, and the allow list committed in the repository.
//! Out: [`Finding`]s — violations that block, and allowed findings that are shown but do not.
//! No agent-controllable setting turns this scan off, and no failure of another stage skips
//! it: the content engine (`crate::content`) reads every blob it can from the object database
//! itself. Secrets are never echoed: findings carry the rule, the place, the length and a short
//! fingerprint, not the value.
//!
//! Content is decoded before matching: UTF-8 (lossy) text; UTF-16 with a byte-order mark;
//! and for binary content (any NUL byte) its printable ASCII runs and UTF-16LE runs, so a
//! leading NUL or a wide string hides nothing. Files are scanned whole up to
//! [`MAX_FILE_SCAN_BYTES`]; content that cannot be read, or is larger, is itself a blocking
//! [`Kind::Unscannable`] finding (allowed per path like any path rule), never silence.
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::{LazyLock, OnceLock};

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use crate::static_regex::compiled;
use serde::Serialize;

/// Files up to this size are scanned whole; a larger one is an [`Kind::Unscannable`] finding.
/// Far above any source file, and above what git hosts accept in one blob (100 MB).
pub(crate) const MAX_FILE_SCAN_BYTES: u64 = 256 * 1024 * 1024;

/// Shortest printable run taken from binary content (the shortest secret rule needs more).
const MIN_BINARY_RUN: usize = 8;

/// The allow-list file, read from the committed tree (HEAD), never from the content being
/// checked: an allowance takes effect only after a human committed it.
pub(crate) const ALLOW_FILE: &str = ".codeguard-allow";

/// What kind of rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A dependency, build-output or local-environment directory.
    ArtifactDirectory,
    /// A file name that holds secrets or machine-local data.
    SensitiveFile,
    /// A secret found in the content.
    Secret,
    /// Content the scan could not read (or that is past [`MAX_FILE_SCAN_BYTES`]): what it holds
    /// is unknown, so it blocks like a finding until it is allowed by path.
    Unscannable,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    /// Repository-relative path.
    pub path: String,
    /// 1-based line of a content finding.
    pub line: Option<usize>,
    /// Rule id (e.g. `aws-access-key-id`, `artifact-directory`).
    pub rule: &'static str,
    /// Kind of rule.
    pub kind: Kind,
    /// Human description, with the secret redacted.
    pub message: String,
    /// Short fingerprint of the matched secret (for the allow list); empty for path rules.
    pub fingerprint: String,
    /// Allowed by the committed allow list: shown, does not block.
    pub allowed: bool,
}

impl Finding {
    /// The allow-list line that would allow this finding.
    pub fn allow_entry(&self) -> String {
        match self.kind {
            Kind::Secret => format!("secret:{}", self.fingerprint),
            Kind::ArtifactDirectory | Kind::SensitiveFile | Kind::Unscannable => {
                format!("path:{}", self.path)
            }
        }
    }
}

/// Entries a human committed to [`ALLOW_FILE`]: `secret:<fingerprint>` or `path:<path>` lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct AllowList {
    entries: BTreeSet<String>,
}

impl AllowList {
    /// Parses the allow file (`#` comments and blank lines ignored).
    pub(crate) fn parse(text: &str) -> Self {
        let entries = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        Self { entries }
    }

    fn allows(&self, finding: &Finding) -> bool {
        self.entries.contains(&finding.allow_entry())
    }
}

/// Scans worktree files under `content_root` (paths and raw content, never following a final
/// symlink: a link's own target text is its content). Findings are sorted by path and line.
pub(crate) fn scan(content_root: &Path, paths: &[String], allow: &AllowList) -> Vec<Finding> {
    let mut scanner = Scanner::new(allow);
    for path in paths {
        scanner.path(path);
        match read_worktree_file(&content_root.join(path)) {
            Ok(Some(bytes)) => scanner.content(path, &bytes, None),
            Ok(None) => {}
            Err(why) => scanner.unscannable(path, &why),
        }
    }
    scanner.finish()
}

/// Reads a worktree file's raw bytes for the scan: `Ok(None)` when it is gone or not a file or
/// symlink (nothing is committed from it), the link text for a symlink, an error text when it
/// cannot be read or is too large.
pub(crate) fn read_worktree_file(file: &Path) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::ffi::OsStrExt;
    let meta = match std::fs::symlink_metadata(file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(file).map_err(|e| e.to_string())?;
        return Ok(Some(link.as_os_str().as_bytes().to_vec()));
    }
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.len() > MAX_FILE_SCAN_BYTES {
        return Err(too_large(meta.len()));
    }
    std::fs::read(file).map(Some).map_err(|e| e.to_string())
}

/// The reason given for content past [`MAX_FILE_SCAN_BYTES`].
pub(crate) fn too_large(len: u64) -> String {
    format!("{} MiB is more than the {} MiB the scan reads per file", len >> 20, MAX_FILE_SCAN_BYTES >> 20)
}

/// Accumulates findings over paths and contents, applying the allow list.
pub(crate) struct Scanner<'a> {
    allow: &'a AllowList,
    findings: Vec<Finding>,
    /// The findings already recorded: a repeat is found in constant time, so the scan stays
    /// linear in the number of findings (a file of 50,000 keys must not take minutes).
    seen: HashSet<Finding>,
    /// Every path given to [`Scanner::path`], one a line (a newline in a name made a space):
    /// the content rules read them all in one pass when the scan finishes.
    names: String,
    /// The path of each line of `names`.
    name_paths: Vec<String>,
}

impl<'a> Scanner<'a> {
    /// An empty scan under `allow`.
    pub(crate) fn new(allow: &'a AllowList) -> Self {
        Self {
            allow,
            findings: Vec::new(),
            seen: HashSet::new(),
            names: String::new(),
            name_paths: Vec::new(),
        }
    }

    /// Applies the path rules to `path`, and (when the scan finishes) the content rules to the
    /// name itself: a token in a name is committed like one in a file.
    pub(crate) fn path(&mut self, path: &str) {
        let found = path_findings(path);
        self.extend(found);
        self.names.push_str(&path.replace('\n', " "));
        self.names.push('\n');
        self.name_paths.push(path.to_owned());
    }

    /// Applies the content rules to the message of a commit or tag (`what`, e.g. "the message
    /// of commit 1a2b3c4"), reported under `path` (`commit 1a2b3c4`, `tag 5d6e7f8`).
    pub(crate) fn message(&mut self, path: &str, what: &str, text: &[u8]) {
        let mut found = scan_bytes(path, text);
        for f in &mut found {
            f.line = None;
            f.message = format!(
                "{} — in {what}; rewrite the message (`git commit --amend`) and rotate the secret",
                f.message
            );
        }
        self.extend(found);
    }

    /// Applies the content rules to `bytes`, the content of `path`; `origin` (e.g. "added in
    /// commit 1a2b3c4") says where content that is not in the final tree comes from.
    pub(crate) fn content(&mut self, path: &str, bytes: &[u8], origin: Option<&str>) {
        let mut found = scan_bytes(path, bytes);
        if let Some(origin) = origin {
            for f in &mut found {
                f.message = format!("{} ({origin})", f.message);
            }
        }
        self.extend(found);
    }

    /// Records that the content of `path` could not be scanned, and why.
    pub(crate) fn unscannable(&mut self, path: &str, why: &str) {
        let message = format!(
            "its content could not be scanned for secrets ({why}); commit it only after checking it yourself, and allow it with `path:{path}` in {ALLOW_FILE}"
        );
        self.extend(vec![path_finding(path, "unscannable-content", Kind::Unscannable, message)]);
    }

    fn extend(&mut self, found: Vec<Finding>) {
        for mut f in found {
            f.allowed = self.allow.allows(&f);
            if self.seen.insert(f.clone()) {
                self.findings.push(f);
            }
        }
    }

    /// The findings, sorted by path and line.
    pub(crate) fn finish(mut self) -> Vec<Finding> {
        let names = std::mem::take(&mut self.names);
        let mut found = scan_text("", &names);
        for f in &mut found {
            if let Some(path) = f.line.and_then(|line| self.name_paths.get(line - 1)) {
                f.path.clone_from(path);
            }
            f.line = None;
            f.message = format!("{} — in the file name", f.message);
        }
        self.extend(found);
        self.findings.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        self.findings
    }
}

/// The finding for an agent's change to [`ALLOW_FILE`]: it blocks whatever the allow list says,
/// since an allowance only counts when a person made it.
pub(crate) fn allow_list_change() -> Finding {
    path_finding(
        ALLOW_FILE,
        "allow-list-change",
        Kind::SensitiveFile,
        format!(
            "only a person may change {ALLOW_FILE}: commit this change yourself, outside the agent (your own `git commit` is checked by codeguard's git hook, not refused)"
        ),
    )
}

/// The allow list as committed at `HEAD` of the repository at `root` (an allowance counts only
/// once a person committed it; content being checked cannot allow itself).
pub(crate) fn committed_allow_list(root: &Path) -> AllowList {
    let text = crate::git::head_file(root, ALLOW_FILE).ok().flatten().unwrap_or_default();
    AllowList::parse(&String::from_utf8_lossy(&text))
}

/// Whether any finding blocks.
pub(crate) fn blocks(findings: &[Finding]) -> bool {
    findings.iter().any(|f| !f.allowed)
}

// ---------------------------------------------------------------------------------------------
// Path rules

/// Directory names refused at the repository root besides the artifact directories of
/// [`crate::files::ARTIFACT_DIRS`] (whose [`crate::files::Commit`] says where each is refused):
/// a root `vendor/` holds dependencies, while its files are in lint scope unless the project
/// excludes vendored code (`crate::files::VENDORED_DIRS`), and `scripts/vendor/` is source.
const REFUSED_AT_ROOT: &[&str] = &["vendor"];

/// Whether the directory `name` at `depth` (0: the repository root) may not be committed: an
/// artifact directory whose rule refuses it there, or one of [`REFUSED_AT_ROOT`] at the root. Dot
/// directories in general (`.github/`, `.claude/`, `.codex-plugin/`) hold committable tool
/// configuration; only environment and cache dot-directories are refused.
fn is_refused_dir(name: &str, depth: usize) -> bool {
    use crate::files::Commit;
    match crate::files::artifact_dir(name).map(|d| d.commit) {
        Some(Commit::Refused) => true,
        Some(Commit::RefusedAtRoot) => depth == 0,
        Some(Commit::Allowed) | None => depth == 0 && REFUSED_AT_ROOT.contains(&name),
    }
}

/// File names (any depth) that hold secrets or machine-local junk. `*` matches any run.
const SENSITIVE_NAMES: &[&str] = &[
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "*.pem.orig",
    "credentials*.json",
    "serviceaccount*.json",
    "*service-account*.json",
    ".ds_store",
    "thumbs.db",
    "*.pyc",
    ".npmrc",
    ".pypirc",
    ".netrc",
];

/// Templates of secret-bearing files that are meant to be committed.
const TEMPLATE_SUFFIXES: &[&str] = &[".example", ".sample", ".template", ".dist", ".defaults"];

/// File names refused only at the repository root (fixtures deeper down are legitimate).
const ROOT_ONLY_NAMES: &[&str] = &["*.sqlite", "*.sqlite3", "*.db", "*.log"];

fn path_findings(path: &str) -> Vec<Finding> {
    let segments: Vec<&str> = path.split('/').collect();
    let (name, dirs) = segments.split_last().map_or(("", &[][..]), |(n, d)| (*n, d));
    let mut out = Vec::new();
    let artifact = dirs.iter().enumerate().find(|(depth, d)| is_refused_dir(d, *depth));
    if let Some((depth, dir)) = artifact {
        let prefix = segments[..=depth].join("/");
        out.push(path_finding(path, "artifact-directory", Kind::ArtifactDirectory, format!(
            "{prefix}/ is a dependency, build-output or local-environment directory; remove it from the commit (git rm -r --cached '{prefix}') and add `{dir}/` to .gitignore"
        )));
    }
    let lower = name.to_ascii_lowercase();
    let is_template = TEMPLATE_SUFFIXES.iter().any(|s| lower.ends_with(s));
    let sensitive = !is_template && SENSITIVE_NAMES.iter().any(|p| glob_match(p, &lower));
    let root_only = dirs.is_empty() && ROOT_ONLY_NAMES.iter().any(|p| glob_match(p, &lower));
    if sensitive || root_only {
        out.push(path_finding(path, "sensitive-file", Kind::SensitiveFile, format!(
            "{name} must not be committed (secrets or machine-local data); remove it (git rm --cached '{path}'), add it to .gitignore, and rotate anything it exposed"
        )));
    }
    out
}

fn path_finding(path: &str, rule: &'static str, kind: Kind, message: String) -> Finding {
    Finding {
        path: path.to_owned(),
        line: None,
        rule,
        kind,
        message,
        fingerprint: String::new(),
        allowed: false,
    }
}

/// Matches a lowercase name against a pattern where `*` matches any run of characters.
fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = parts.split_first().map_or(("", &[][..]), |(f, r)| (*f, r));
    let Some(mut remaining) = name.strip_prefix(first) else { return false };
    let Some((last, middle)) = rest.split_last() else { return remaining.is_empty() };
    for part in middle {
        match remaining.find(part) {
            Some(i) => remaining = &remaining[i + part.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

// ---------------------------------------------------------------------------------------------
// Content rules

/// A secret rule: an id, what it finds, a pattern whose group 1 (or whole match) is the secret,
/// and whether the value must also look random (for generic assignments).
struct Rule {
    id: &'static str,
    what: &'static str,
    pattern: &'static str,
    needs_entropy: bool,
}

const RULES: &[Rule] = &[
    Rule {
        id: "private-key",
        what: "a private key block",
        pattern: r"-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----()",
        needs_entropy: false,
    },
    Rule {
        id: "aws-access-key-id",
        what: "an AWS access key id",
        pattern: r"\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b",
        needs_entropy: false,
    },
    Rule {
        id: "aws-secret-access-key",
        what: "an AWS secret access key",
        pattern: r#"(?i)aws_?secret_?(?:access_?)?key\W{0,3}\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
        needs_entropy: false,
    },
    Rule {
        id: "github-token",
        what: "a GitHub token",
        pattern: r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36})\b",
        needs_entropy: false,
    },
    Rule {
        id: "github-fine-grained-token",
        what: "a GitHub fine-grained token",
        pattern: r"\b(github_pat_[A-Za-z0-9_]{82})\b",
        needs_entropy: false,
    },
    Rule {
        id: "gitlab-token",
        what: "a GitLab token",
        pattern: r"\b(glpat-[A-Za-z0-9_-]{20})\b",
        needs_entropy: false,
    },
    Rule {
        id: "slack-token",
        what: "a Slack token",
        pattern: r"\b(xox[abprs]-[A-Za-z0-9-]{10,})\b",
        needs_entropy: false,
    },
    Rule {
        id: "slack-webhook",
        what: "a Slack webhook URL",
        pattern: r"(https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+)",
        needs_entropy: false,
    },
    Rule {
        id: "stripe-secret-key",
        what: "a Stripe live secret key",
        pattern: r"\b((?:sk|rk)_live_[A-Za-z0-9]{24,})\b",
        needs_entropy: false,
    },
    Rule {
        id: "google-api-key",
        what: "a Google API key",
        pattern: r"\b(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)",
        needs_entropy: false,
    },
    Rule {
        id: "google-oauth-secret",
        what: "a Google OAuth client secret",
        pattern: r"\b(GOCSPX-[A-Za-z0-9_-]{28})\b",
        needs_entropy: false,
    },
    Rule {
        id: "openai-api-key",
        what: "an OpenAI API key",
        pattern: r"\b(sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))",
        needs_entropy: false,
    },
    Rule {
        id: "anthropic-api-key",
        what: "an Anthropic API key",
        pattern: r"\b(sk-ant-[a-z]+\d{2}-[A-Za-z0-9_-]{40,})",
        needs_entropy: false,
    },
    Rule {
        id: "huggingface-token",
        what: "a Hugging Face token",
        pattern: r"\b(hf_[A-Za-z0-9]{34})\b",
        needs_entropy: false,
    },
    Rule {
        id: "npm-token",
        what: "an npm access token",
        pattern: r"\b(npm_[A-Za-z0-9]{36})\b",
        needs_entropy: false,
    },
    Rule {
        id: "pypi-token",
        what: "a PyPI upload token",
        pattern: r"\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})",
        needs_entropy: false,
    },
    Rule {
        id: "sendgrid-api-key",
        what: "a SendGrid API key",
        pattern: r"\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)",
        needs_entropy: false,
    },
    Rule {
        id: "twilio-api-key",
        what: "a Twilio API key",
        pattern: r"\b(SK[0-9a-f]{32})\b",
        needs_entropy: false,
    },
    Rule {
        id: "digitalocean-token",
        what: "a DigitalOcean token",
        pattern: r"\b(do[opr]_v1_[a-f0-9]{64})\b",
        needs_entropy: false,
    },
    Rule {
        id: "azure-storage-key",
        what: "an Azure storage account key",
        pattern: r"AccountKey=([A-Za-z0-9+/]{86}==)",
        needs_entropy: false,
    },
    Rule {
        id: "jwt",
        what: "a signed JSON Web Token",
        pattern: r"\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,})",
        needs_entropy: false,
    },
    Rule {
        id: "url-password",
        what: "a URL with an embedded password",
        pattern: r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:@/]{1,64}:([^\s:@/]{6,128})@[A-Za-z0-9.-]+",
        needs_entropy: true,
    },
    Rule {
        id: "generic-secret",
        what: "a hard-coded secret",
        pattern: r#"(?i)(?:\b|_|\.|-)(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token)\b["']?\s*[:=]{1,2}\s*["']([^"'\s]{12,})["']"#,
        needs_entropy: true,
    },
    Rule {
        id: "generic-secret-unquoted",
        what: "a hard-coded secret",
        pattern: r"(?im)(?:^|\s|_|\.|-)(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token)\s*[:=]\s*([A-Za-z0-9+/_\-]{16,})\s*$",
        needs_entropy: true,
    },
];

/// The secret rules, compiled once per process. Only the set is compiled up front; a rule's own
/// regex (needed for the line and the captured value) is compiled the first time the set says
/// it matched. Compiling all of them eagerly cost a clean gate run about 5 ms of its ~21 ms of
/// CPU (perf profile in README.md, "Performance"), for regexes a clean commit never uses.
/// Every rule is an ASCII pattern (token alphabets, ASCII keywords), so they are compiled over
/// bytes with Unicode classes off — `\b`, `\s` and `\w` mean their ASCII forms — which makes
/// the set several times smaller to build; the set and the rules agree on that meaning.
struct Compiled {
    set: RegexSet,
    each: Vec<OnceLock<Regex>>,
}

impl Compiled {
    fn rule(&self, i: usize) -> &Regex {
        let pattern = RULES[i].pattern;
        self.each[i].get_or_init(|| compiled(pattern, RegexBuilder::new(pattern).unicode(false).build()))
    }
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let patterns: Vec<&str> = RULES.iter().map(|r| r.pattern).collect();
    Compiled {
        set: compiled("the secret rules", RegexSetBuilder::new(&patterns).unicode(false).build()),
        each: RULES.iter().map(|_| OnceLock::new()).collect(),
    }
});

/// Values that are obviously placeholders, not secrets.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let markers = [
        "example",
        "placeholder",
        "changeme",
        "change_me",
        "your",
        "xxxx",
        "****",
        "dummy",
        "redacted",
        "${",
        "{{",
        "<",
        "%(",
        "process.env",
        "os.environ",
        "getenv",
    ];
    markers.iter().any(|m| lower.contains(m)) || value.chars().all(|c| c == value.chars().next().unwrap_or(c))
}

/// Whether `value` has a digit, an upper-case and a lower-case letter.
fn mixes_classes(value: &str) -> bool {
    value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase())
}

/// Shannon entropy in bits per character.
fn entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in value.chars() {
        *counts.entry(c).or_insert(0u32) += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let len = value.chars().count() as f64;
    counts.values().map(|&n| f64::from(n) / len).map(|p| -p * p.log2()).sum()
}

/// The secret findings in raw content, decoded as described in the module header.
fn scan_bytes(path: &str, bytes: &[u8]) -> Vec<Finding> {
    let mut decoded = decode_utf16_bom(bytes).map(|text| scan_text(path, &text)).unwrap_or_default();
    if !bytes.contains(&0) {
        // A byte-order mark in front of plain text proves nothing: the raw view is read too.
        let mut seen: HashSet<Finding> = decoded.iter().cloned().collect();
        for f in scan_text(path, &String::from_utf8_lossy(bytes)) {
            if seen.insert(f.clone()) {
                decoded.push(f);
            }
        }
        return decoded;
    }
    let mut found = scan_text(path, &printable_runs(bytes));
    found.extend(scan_text(path, &utf16le_runs(bytes)));
    let mut values = HashSet::new();
    found.retain(|f| values.insert((f.rule, f.fingerprint.clone())));
    for f in &mut found {
        f.line = None;
        f.message = format!("{} — in binary content", f.message);
    }
    for f in decoded {
        if values.insert((f.rule, f.fingerprint.clone())) {
            found.push(f);
        }
    }
    found
}

/// UTF-16 text with a byte-order mark, decoded (lossy); `None` without a BOM.
fn decode_utf16_bom(bytes: &[u8]) -> Option<String> {
    let (little, body) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (true, rest),
        [0xFE, 0xFF, rest @ ..] => (false, rest),
        _ => return None,
    };
    let units = body.chunks_exact(2).map(|c| {
        let pair = [c[0], c[1]];
        if little { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
    });
    Some(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect())
}

/// Runs of printable ASCII (and tabs) at least [`MIN_BINARY_RUN`] long, one per line.
fn printable_runs(bytes: &[u8]) -> String {
    let mut out = String::new();
    for run in bytes.split(|b| !(b.is_ascii_graphic() || *b == b' ' || *b == b'\t')) {
        if run.len() >= MIN_BINARY_RUN {
            out.push_str(&String::from_utf8_lossy(run));
            out.push('\n');
        }
    }
    out
}

/// Runs of UTF-16LE-encoded printable ASCII (`x\0y\0…`), at either byte alignment, one per line.
fn utf16le_runs(bytes: &[u8]) -> String {
    let mut out = String::new();
    for start in 0..2 {
        let mut run = String::new();
        for pair in bytes.get(start..).unwrap_or_default().chunks_exact(2) {
            if pair[1] == 0 && (pair[0].is_ascii_graphic() || pair[0] == b' ') {
                run.push(char::from(pair[0]));
                continue;
            }
            if run.len() >= MIN_BINARY_RUN {
                out.push_str(&run);
                out.push('\n');
            }
            run.clear();
        }
        if run.len() >= MIN_BINARY_RUN {
            out.push_str(&run);
            out.push('\n');
        }
    }
    out
}

/// Finds secrets in text: every match of every rule on every line (a placeholder or an allowed
/// value first on a line hides nothing after it), one finding per distinct value per line.
fn scan_text(path: &str, text: &str) -> Vec<Finding> {
    let compiled = &*COMPILED;
    let hits: Vec<usize> = compiled.set.matches(text.as_bytes()).into_iter().collect();
    if hits.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (number, line) in text.lines().enumerate() {
        for &i in &hits {
            let rule = &RULES[i];
            for caps in compiled.rule(i).captures_iter(line.as_bytes()) {
                let bytes = caps
                    .get(1)
                    .filter(|m| !m.is_empty())
                    .or_else(|| caps.get(0))
                    .map_or(&[][..], |m| m.as_bytes());
                let value = String::from_utf8_lossy(bytes);
                let value = value.as_ref();
                if rule.needs_entropy && (is_placeholder(value) || entropy(value) < 3.0) {
                    continue;
                }
                if rule.id == "generic-secret-unquoted" && !mixes_classes(value) {
                    // An unquoted value may be a name (`token = next_token_value`): only a value
                    // with digits, upper- and lower-case letters reads as a secret.
                    continue;
                }
                let fingerprint = fingerprint(value);
                if !seen.insert((number, rule.id, fingerprint.clone())) {
                    continue;
                }
                let finding = Finding {
                    path: path.to_owned(),
                    line: Some(number + 1),
                    rule: rule.id,
                    kind: Kind::Secret,
                    message: format!(
                        "{} ({} characters, redacted); rotate it and load it from the environment or a secret store",
                        rule.what,
                        value.chars().count()
                    ),
                    fingerprint,
                    allowed: false,
                };
                out.push(finding);
            }
        }
    }
    out
}

/// `text` with every secret the content rules find replaced by `[REDACTED]`: for text that
/// codeguard shows or stores but did not write itself (linter output quotes source lines).
pub(crate) fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    let compiled = &*COMPILED;
    let hits: Vec<usize> = compiled.set.matches(text.as_bytes()).into_iter().collect();
    if hits.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_owned();
    for &i in &hits {
        let regex = compiled.rule(i);
        // One pass per rule, copying the text between matches: replacing each match in place
        // would move the rest of the text once per secret (quadratic in the number of them).
        let mut next = String::with_capacity(out.len());
        let mut copied = 0;
        for caps in regex.captures_iter(out.as_bytes()) {
            let Some(m) = caps.get(1).filter(|m| !m.is_empty()).or_else(|| caps.get(0)) else { continue };
            if m.start() < copied || !out.is_char_boundary(m.start()) || !out.is_char_boundary(m.end()) {
                continue;
            }
            next.push_str(&out[copied..m.start()]);
            next.push_str("[REDACTED]");
            copied = m.end();
        }
        next.push_str(&out[copied..]);
        out = next;
    }
    std::borrow::Cow::Owned(out)
}

/// A short, stable fingerprint of a secret value.
fn fingerprint(value: &str) -> String {
    blake3::hash(value.as_bytes()).to_hex()[..16].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a test secret from pieces so this source file never contains one whole.
    fn s(parts: &[&str]) -> String {
        parts.concat()
    }

    fn rules_in(text: &str) -> Vec<&'static str> {
        scan_text("f.txt", text).into_iter().map(|f| f.rule).collect()
    }

    fn alnum(n: usize, seed: u32) -> String {
        let chars = b"aZ3kQ9xW2mP7vB5nR8tY4uC6iD1oE0fGhJlLsS";
        (0..n).map(|i| chars[(i * 7 + seed as usize * 13 + i / 3) % chars.len()] as char).collect()
    }

    fn hex(n: usize) -> String {
        (0..n).map(|i| b"0123456789abcdef"[(i * 7 + 3) % 16] as char).collect()
    }

    /// `n` distinct AWS key ids, one a line.
    fn many_keys(n: usize) -> Vec<u8> {
        use std::fmt::Write as _;
        let digits = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut text = String::new();
        for i in 0..n {
            let mut id = String::from("AKIA");
            let mut rest = i;
            for _ in 0..16 {
                id.push(char::from(digits[rest % digits.len()]));
                rest /= digits.len();
            }
            let _ = writeln!(text, "key_{i} = {id}");
        }
        text.into_bytes()
    }

    #[test]
    fn the_scan_is_linear_in_the_number_of_secrets() {
        // Four times the keys must cost about four times the time, not sixteen (the scan was
        // quadratic: each finding was compared with every earlier one). Measured as a ratio of
        // the best of three runs, so the machine's speed does not matter.
        let best = |bytes: &[u8]| {
            (0..3)
                .map(|_| {
                    let started = std::time::Instant::now();
                    let allow = AllowList::default();
                    let mut scanner = Scanner::new(&allow);
                    scanner.content("keys.txt", bytes, None);
                    let found = scanner.finish().len();
                    (started.elapsed(), found)
                })
                .min()
                .expect("three runs")
        };
        let (small, small_found) = best(&many_keys(3_000));
        let (large, large_found) = best(&many_keys(12_000));
        assert_eq!((small_found, large_found), (3_000, 12_000), "every key is one finding");
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(ratio < 9.0, "4× the keys took {ratio:.1}× the time ({small:?} → {large:?})");
    }

    #[test]
    fn secrets_in_file_names_and_messages_are_found() {
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let allow = AllowList::default();
        let mut scanner = Scanner::new(&allow);
        scanner.path("a\nname with a newline.txt");
        scanner.path(&format!("backup/{key}.txt"));
        scanner.path("clean.txt");
        scanner.message("refs/heads/main", "the message of commit 1a2b3c4", format!("add {key}").as_bytes());
        let found = scanner.finish();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|f| f.rule == "aws-access-key-id" && !f.message.contains(&key)));
        assert!(
            found.iter().any(|f| f.message.contains("file name") && f.path == format!("backup/{key}.txt")),
            "the finding names its own path, whatever came before it: {found:?}"
        );
        assert!(found.iter().any(|f| f.message.contains("message of commit")));
    }

    #[test]
    fn redaction_of_many_secrets_keeps_everything_else() {
        let text = String::from_utf8(many_keys(2_000)).expect("ascii");
        let redacted = redact(&text);
        assert_eq!(redacted.matches("[REDACTED]").count(), 2_000);
        assert!(redacted.lines().all(|l| l.starts_with("key_") && l.ends_with(" = [REDACTED]")));
    }

    /// (rule, positive text, negative text) — every rule has both.
    fn cases() -> Vec<(&'static str, String, String)> {
        vec![
            ("private-key", s(&["-----BEGIN RSA ", "PRIVATE KEY-----"]), "-----BEGIN PUBLIC KEY-----".into()),
            (
                "aws-access-key-id",
                s(&["key = AKIA", "Z7Q3K9X2M4P8V6B1"]),
                "AKIA is the prefix of AWS key ids".into(),
            ),
            (
                "aws-secret-access-key",
                s(&["aws_secret_access_key = ", &alnum(40, 1)]),
                "aws_secret_access_key = os.environ['AWS']".into(),
            ),
            ("github-token", s(&["ghp", "_", &alnum(36, 2)]), "ghp_short".into()),
            (
                "github-fine-grained-token",
                s(&["github", "_pat_", &alnum(82, 3)]),
                "github_pat_tooshort".into(),
            ),
            ("gitlab-token", s(&["glpat", "-", &alnum(20, 4)]), "glpat-".into()),
            ("slack-token", s(&["xox", "b-", &alnum(12, 5), "-", &alnum(10, 6)]), "xoxz-not-a-token".into()),
            (
                "slack-webhook",
                s(&["https://hooks.slack.com/services/", "T0AB12CD/B0EF34GH/", &alnum(24, 7)]),
                "https://hooks.slack.com/services/".into(),
            ),
            ("stripe-secret-key", s(&["sk_", "live_", &alnum(24, 8)]), s(&["sk_", "test_", &alnum(24, 8)])),
            ("google-api-key", s(&["AIza", &alnum(35, 9)]), "AIza-short".into()),
            ("google-oauth-secret", s(&["GOCSPX", "-", &alnum(28, 10)]), "GOCSPX-".into()),
            ("openai-api-key", s(&["sk-", "proj-", &alnum(48, 11)]), "sk-proj-short".into()),
            ("anthropic-api-key", s(&["sk-", "ant-api03-", &alnum(90, 12)]), "sk-ant-".into()),
            ("huggingface-token", s(&["hf", "_", &alnum(34, 13)]), "hf_short".into()),
            ("npm-token", s(&["npm", "_", &alnum(36, 14)]), "npm_install".into()),
            ("pypi-token", s(&["pypi-", "AgEIcHlwaS5vcmc", &alnum(60, 15)]), "pypi-token".into()),
            ("sendgrid-api-key", s(&["SG", ".", &alnum(22, 16), ".", &alnum(43, 17)]), "SG.short.x".into()),
            ("twilio-api-key", s(&["SK", &hex(32)]), "SKIP this".into()),
            ("digitalocean-token", s(&["dop", "_v1_", &hex(64)]), "dop_v1_".into()),
            ("azure-storage-key", s(&["AccountKey=", &alnum(86, 18), "=="]), "AccountKey=".into()),
            (
                "jwt",
                s(&["eyJ", "hbGciOiJIUzI1NiJ9", ".eyJ", "zdWIiOiIxMjM0NTY3ODkwIn0", ".", &alnum(43, 19)]),
                s(&["eyJ", "hbGciOiJub25lIn0", ".eyJ", "zdWIiOiIxMjM0NTY3ODkwIn0", "."]),
            ),
            (
                "url-password",
                s(&["postgres://admin:", &alnum(16, 20), "@db.internal/app"]),
                "postgres://user:${DB_PASSWORD}@db/app".into(),
            ),
            (
                "generic-secret",
                s(&["DB_PASSWORD = \"", &alnum(20, 21), "\""]),
                "password = \"changeme-changeme\"".into(),
            ),
            (
                "generic-secret-unquoted",
                s(&["password: ", "NqVwYS81VP7Hb1DX8pPd5khx"]),
                "token = compute_the_next_token_value".into(),
            ),
        ]
    }

    #[test]
    fn every_secret_rule_compiles_alone_and_in_the_set() {
        assert_eq!(COMPILED.set.len(), RULES.len());
        for i in 0..RULES.len() {
            COMPILED.rule(i);
        }
    }

    #[test]
    fn every_rule_has_a_positive_and_a_negative_case() {
        let cases = cases();
        assert!(cases.len() >= 20);
        let covered: BTreeSet<&str> = cases.iter().map(|c| c.0).collect();
        let all: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(covered, all, "every rule is tested");
        for (rule, positive, negative) in &cases {
            assert!(rules_in(positive).contains(rule), "{rule} should match {positive}");
            assert!(!rules_in(negative).contains(rule), "{rule} should not match {negative}");
        }
    }

    #[test]
    fn every_match_on_a_line_counts() {
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let other = s(&["AKIA", "Q2W3E4R5T6Y7U8I9"]);
        let found = scan_text("k.py", &format!("keys = ['{key}', '{other}']\n"));
        assert_eq!(found.len(), 2, "{found:?}");
        let text = format!("x = {{\"password\": \"changeme-changeme\", \"token\": \"{}\"}}\n", alnum(24, 3));
        assert_eq!(scan_text("x.py", &text).len(), 1, "a placeholder first hides nothing");
        let bom = [&[0xFF, 0xFE][..], format!("k={key}\n").as_bytes()].concat();
        assert_eq!(scan_bytes("a.txt", &bom).len(), 1, "a BOM before plain text hides nothing");
    }

    #[test]
    fn findings_never_contain_the_secret() {
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let finding = &scan_text("config.py", &format!("x = 1\nAWS = '{key}'\n"))[0];
        assert_eq!((finding.line, finding.rule), (Some(2), "aws-access-key-id"));
        let shown = serde_json::to_string(finding).expect("json");
        assert!(!shown.contains(&key) && !shown.contains(&key[4..]), "{shown}");
    }

    #[test]
    fn redaction_removes_every_secret_and_keeps_the_rest() {
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let token = s(&["ghp", "_", &alnum(36, 2)]);
        let text = format!("a.py:2:1: E999 x = '{key}'\n  | y = {token} # z\nclean line\n");
        let redacted = redact(&text);
        assert!(!redacted.contains(&key) && !redacted.contains(&token), "{redacted}");
        assert!(redacted.contains("a.py:2:1: E999 x = '[REDACTED]'") && redacted.ends_with("clean line\n"));
        assert!(matches!(redact("nothing here"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn artifact_directories_are_refused_as_their_rule_in_files_says() {
        use crate::files::{ARTIFACT_DIRS, Commit};
        let refused = |p: &str| path_findings(p).iter().any(|f| f.rule == "artifact-directory");
        for d in ARTIFACT_DIRS {
            let (root, deeper) = (format!("{}/x", d.name), format!("src/{}/x", d.name));
            let expected = match d.commit {
                Commit::Refused => (true, true),
                Commit::RefusedAtRoot => (true, false),
                Commit::Allowed => (false, false),
            };
            assert_eq!((refused(&root), refused(&deeper)), expected, "{}", d.name);
        }
        for name in REFUSED_AT_ROOT {
            assert!(
                !crate::files::is_artifact_dir(name),
                "{name} is an artifact directory: give it its rule there"
            );
            assert!(refused(&format!("{name}/x")) && !refused(&format!("src/{name}/x")), "{name}");
        }
    }

    #[test]
    fn sensitive_paths() {
        let rules = |p: &str| path_findings(p).into_iter().map(|f| f.rule).collect::<Vec<_>>();
        for p in [
            ".env",
            "app/.env.production",
            "certs/server.pem",
            "id_rsa",
            "keys/x.key",
            "app.db",
            "debug.log",
            "node_modules/x/index.js",
            ".venv/lib/x.py",
            "target/debug/x",
            "vendor/lib.go",
            "pkg/__pycache__/a.pyc",
            "credentials.json",
            "gcp-service-account-prod.json",
        ] {
            assert!(!rules(p).is_empty(), "{p} must be refused");
        }
        for p in [
            ".env.example",
            "app/.env.sample",
            "src/main.rs",
            ".github/workflows/ci.yml",
            ".claude/settings.json",
            ".codex-plugin/plugin.json",
            "scripts/vendor/tool.py",
            "tests/fixtures/data.db",
            "logs/app.log",
            "src/build/mod.rs",
            "pkg/env/mod.rs",
            "environment.py",
        ] {
            assert!(rules(p).is_empty(), "{p} must be committable: {:?}", rules(p));
        }
    }

    #[test]
    fn the_committed_allow_list_is_honoured_and_visible() {
        let dir = tempfile::tempdir().expect("dir");
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        std::fs::write(dir.path().join("a.py"), format!("K = '{key}'\n")).expect("write");
        std::fs::write(dir.path().join(".env"), "X=1\n").expect("write");
        let paths = vec!["a.py".to_owned(), ".env".to_owned()];
        let found = scan(dir.path(), &paths, &AllowList::default());
        assert!(blocks(&found));
        let allow = AllowList::parse(&format!("# reviewed\n{}\npath:.env\n", found[1].allow_entry()));
        let found = scan(dir.path(), &paths, &allow);
        assert_eq!(found.len(), 2, "allowed findings are still reported");
        assert!(found.iter().all(|f| f.allowed) && !blocks(&found));
    }

    #[test]
    fn padding_nul_bytes_and_utf16_hide_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let utf16 = |le: bool| -> Vec<u8> {
            let text = format!("k = '{key}'\n");
            let mut out = if le { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] };
            for unit in text.encode_utf16() {
                out.extend(if le { unit.to_le_bytes() } else { unit.to_be_bytes() });
            }
            out
        };
        let wide: Vec<u8> = format!("\0\0{key}").bytes().flat_map(|b| [b, 0]).collect();
        let files: Vec<(&str, Vec<u8>)> = vec![
            ("padded.py", [vec![b'#'; 2 * 1024 * 1024], format!("\nk = '{key}'\n").into_bytes()].concat()),
            ("leading-nul.txt", [b"\0".to_vec(), key.clone().into_bytes()].concat()),
            ("le.txt", utf16(true)),
            ("be.txt", utf16(false)),
            ("wide.bin", wide),
        ];
        for (name, bytes) in &files {
            std::fs::write(dir.path().join(name), bytes).expect("write");
            let found = scan(dir.path(), &[(*name).to_owned()], &AllowList::default());
            assert_eq!(
                found.iter().map(|f| f.rule).collect::<Vec<_>>(),
                ["aws-access-key-id"],
                "{name} must not hide the key"
            );
            assert!(blocks(&found));
            let shown = serde_json::to_string(&found).expect("json");
            assert!(!shown.contains(&key), "{shown}");
        }
    }

    #[test]
    fn a_symlink_is_scanned_as_its_target_text_never_followed() {
        let dir = tempfile::tempdir().expect("dir");
        let key = s(&["AKIA", "Z7Q3K9X2M4P8V6B1"]);
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("secret.txt"), &key).expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("link")).expect("link");
        let found = scan(dir.path(), &["link".to_owned()], &AllowList::default());
        assert!(found.is_empty(), "the link's target file is not part of the commit: {found:?}");
    }

    #[test]
    fn unreadable_content_is_a_blocking_finding_that_a_path_entry_allows() {
        let none = AllowList::default();
        let mut scanner = Scanner::new(&none);
        scanner.unscannable("big.bin", &too_large(MAX_FILE_SCAN_BYTES + 1));
        let found = scanner.finish();
        assert_eq!(found[0].kind, Kind::Unscannable);
        assert!(blocks(&found));
        let allow = AllowList::parse("path:big.bin\n");
        let mut scanner = Scanner::new(&allow);
        scanner.unscannable("big.bin", "x");
        assert!(!blocks(&scanner.finish()));
    }
}
