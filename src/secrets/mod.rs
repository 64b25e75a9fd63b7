//! Secrets: the rules that find credentials in text, how a finding names one without echoing
//! it, and redaction of any text codeguard shows or stores.
//!
//! In: a path and its bytes (or any text). Out: [`Finding`]s of kind [`Kind::Secret`] carrying the
//! rule, the place, the length and a short fingerprint, never the value; [`redact`] replaces
//! every secret in text shown to people or agents. A leaf: the safety scan (`crate::safety`) and
//! every writer of tool output use it.
//!
//! Content is decoded before matching: UTF-8 (lossy) text; UTF-16 with a byte-order mark;
//! and for binary content (any NUL byte) its printable ASCII runs and UTF-16LE runs, so a
//! leading NUL or a wide string hides nothing.

use std::collections::HashSet;
use std::sync::{LazyLock, OnceLock};

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Serialize;

use crate::static_regex::compiled;

/// Shortest printable run taken from binary content (the shortest secret rule needs more).
const MIN_BINARY_RUN: usize = 8;

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
    /// Content the scan could not read (or that is past `crate::safety::MAX_FILE_SCAN_BYTES`): what it holds
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
        id: "putty-private-key",
        what: "a PuTTY private key file",
        pattern: r"(?m)^PuTTY-User-Key-File-\d: [\w@.-]+()",
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
        pattern: r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)\W{0,3}\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
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
        pattern: r"\b((?:glpat|glrt|gldt|glptt|glsoat|glcbt|glimt|glagent|gloas|glft|glffct)-[A-Za-z0-9_-]{20,})",
        needs_entropy: false,
    },
    Rule {
        id: "slack-token",
        what: "a Slack token",
        pattern: r"\b(xox[abeprs]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})\b",
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
        pattern: r#"(?i)(?:\b|_|\.|-)(?:password|passwd|secret[_-]?key|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token)\b["']?\s*[:=]{1,2}\s*["']([^"'\s]{12,})["']"#,
        needs_entropy: true,
    },
    Rule {
        id: "generic-secret-unquoted",
        what: "a hard-coded secret",
        pattern: r"(?im)(?:^|\s|_|\.|-)(?:password|passwd|secret[_-]?key|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token)\s*[:=]\s*([A-Za-z0-9+/_\-]{16,}={0,2})\s*$",
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
    markers.iter().any(|m| lower.contains(m))
        || value.chars().all(|c| c == value.chars().next().unwrap_or(c))
        || longest_run(value) >= 8
}

/// The longest run of one repeated character (`ghp_xxxx…`, `sk_live_0000…`: a placeholder; a
/// random token of these lengths practically never repeats a character eight times).
fn longest_run(value: &str) -> usize {
    let (mut best, mut run, mut last) = (0, 0, None);
    for c in value.chars() {
        run = if Some(c) == last { run + 1 } else { 1 };
        last = Some(c);
        best = best.max(run);
    }
    best
}

/// Whether a labelled value is a file path (`private_key = "/etc/ssl/private/server.pem"`):
/// where a secret is kept, not the secret. Only path forms a random secret does not take count:
/// segments of path characters (no `+`, `=`, spaces), under a relative or home start, a
/// well-known root directory, or ending in a file name with an extension — a base64 secret
/// that merely starts with `/` is still a secret.
fn is_path(value: &str) -> bool {
    const ROOTS: [&str; 9] =
        ["/etc/", "/run/", "/var/", "/home/", "/usr/", "/opt/", "/tmp/", "/srv/", "/secrets/"];
    if value.contains(['+', '=', ' ']) {
        return false;
    }
    let started = ["./", "../", "~/"].iter().any(|p| value.starts_with(p))
        || ROOTS.iter().any(|r| value.starts_with(r))
        || value.get(1..3).is_some_and(|s| s == ":\\" || s == ":/");
    let file = value.contains(['/', '\\'])
        && value.rsplit(['/', '\\']).next().is_some_and(|name| {
            name.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.bytes().all(|b| b.is_ascii_alphanumeric())
            })
        });
    started || file
}

/// A lower-case hex string of at least 32 characters with digits and letters (an auth token
/// or API key written without quotes).
fn is_hex_key(value: &str) -> bool {
    value.len() >= 32
        && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_alphabetic())
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
    #[expect(clippy::cast_precision_loss, reason = "an entropy estimate over short strings")]
    let len = value.chars().count() as f64;
    counts.values().map(|&n| f64::from(n) / len).map(|p| -p * p.log2()).sum()
}

/// The secret findings in raw content, decoded as described in the module header.
pub(crate) fn scan_bytes(path: &str, bytes: &[u8]) -> Vec<Finding> {
    let mut decoded = decode_utf16_bom(bytes).map(|text| scan_text(path, &text)).unwrap_or_default();
    if !bytes.contains(&0) {
        // A byte-order mark in front of plain text proves nothing: the raw view is read too.
        let mut seen: HashSet<Finding> = decoded.iter().cloned().collect();
        let text = String::from_utf8_lossy(bytes);
        for f in scan_text(path, &text).into_iter().chain(scan_encoded(path, &text)) {
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

/// Secrets hidden in base64 where manifests keep them: the `data:` values of a Kubernetes
/// `Secret` (each value is a secret: one that reads as a random string of 8 or more characters
/// is a finding of its own) and the `*-data:` values of a kubeconfig (`client-key-data`: a
/// private key). Each decoded value is scanned like text; findings carry the encoded line.
fn scan_encoded(path: &str, text: &str) -> Vec<Finding> {
    if !(text.contains("Secret") || text.contains("-data:")) {
        return Vec::new();
    }
    // YAML manifests (what `kubectl` users commit); a JSON manifest's values are read by the
    // text rules only.
    let secret_manifest = text.lines().any(|l| l.trim() == "kind: Secret");
    let mut out = Vec::new();
    let mut data_indent: Option<usize> = None;
    for (number, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if data_indent.is_some_and(|d| indent <= d) && !trimmed.is_empty() {
            data_indent = None;
        }
        if secret_manifest && trimmed == "data:" {
            data_indent = Some(indent);
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else { continue };
        let value = value.trim().trim_matches('"');
        let in_secret = data_indent.is_some();
        if !(in_secret || key.trim_start_matches("- ").ends_with("-data")) {
            continue;
        }
        let Some(bytes) = decode_base64(value) else { continue };
        let decoded = String::from_utf8(bytes).ok();
        let mut found = decoded.as_deref().map(|d| scan_text(path, d)).unwrap_or_default();
        if found.is_empty() && in_secret {
            // A Secret's value is a secret: one that reads as random text, or binary data (a
            // keystore, a certificate's key) of 8 bytes or more.
            let plain = decoded.as_deref().map_or(value, str::trim);
            let random = decoded.as_deref().map(str::trim).is_none_or(|d| {
                d.chars().count() >= 8 && !d.contains('\n') && !is_placeholder(d) && entropy(d) >= 3.0
            });
            if plain.len() >= 8 && random {
                found.push(Finding {
                    path: path.to_owned(),
                    line: None,
                    rule: "kubernetes-secret-value",
                    kind: Kind::Secret,
                    message: format!(
                        "a Kubernetes Secret value ({} characters, redacted); keep it out of the repository (a sealed or external secret)",
                        plain.chars().count()
                    ),
                    fingerprint: fingerprint(plain),
                    allowed: false,
                });
            }
        }
        for mut f in found {
            f.line = Some(number + 1);
            if f.rule != "kubernetes-secret-value" {
                f.message = format!("{} — base64-encoded", f.message);
            }
            out.push(f);
        }
    }
    out
}

/// Standard base64 (padding optional, no line breaks), `None` when `text` is not that.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let body = text.trim_end_matches('=');
    if body.len() < 8 || text.len() - body.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in body.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
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
pub(crate) fn scan_text(path: &str, text: &str) -> Vec<Finding> {
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
                if is_placeholder(value) || (rule.needs_entropy && (entropy(value) < 3.0 || is_path(value))) {
                    continue;
                }
                if rule.id == "generic-secret-unquoted" && !mixes_classes(value) && !is_hex_key(value) {
                    // An unquoted value may be a name (`token = next_token_value`): only a value
                    // with digits, upper- and lower-case letters, or a long hex key, reads as a
                    // secret.
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
mod corpus;

#[cfg(test)]
pub(crate) mod tests {
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
    pub(crate) fn many_keys(n: usize) -> Vec<u8> {
        use std::fmt::Write as _;
        let digits = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut text = String::new();
        for i in 0..n {
            // Distinct per i, its digits spread (a run of eight equal characters would read as
            // a placeholder, as `AKIA0000…` is).
            let mut id = String::from("AKIA");
            let mut rest = i * 2_654_435_761 + 97_531;
            for k in 0..16 {
                id.push(char::from(digits[(rest + k * 7) % digits.len()]));
                rest /= 3;
            }
            let _ = writeln!(text, "key_{i} = {id}");
        }
        text.into_bytes()
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
                "putty-private-key",
                s(&["PuTTY-User-Key-", "File-3: ssh-ed25519"]),
                "PuTTY-User-Key-File files hold private keys".into(),
            ),
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
        let covered: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.0).collect();
        let all: std::collections::BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
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

    /// Recall and false blocks on the labelled corpus (`corpus.rs`), per rule family, printed
    /// (`cargo test --lib secrets::tests::the_labelled_corpus -- --nocapture`) and held to the
    /// goal: every secret found, no look-alike blocked.
    #[test]
    #[expect(clippy::print_stderr, reason = "the test reports the corpus's recall and false blocks")]
    fn the_labelled_corpus_is_found_and_its_look_alikes_pass() {
        let cases = super::corpus::cases();
        assert!(cases.len() >= 300, "the corpus holds {} cases", cases.len());
        let mut families: std::collections::BTreeMap<&str, [usize; 4]> = std::collections::BTreeMap::new();
        let mut wrong = Vec::new();
        for case in &cases {
            let found = scan_bytes(case.path, case.text.as_bytes());
            let counts = families.entry(case.family).or_default();
            match (case.secret, found.is_empty()) {
                (true, false) => counts[0] += 1,
                (true, true) => {
                    counts[1] += 1;
                    wrong.push(format!("missed ({}) {}: {:?}", case.family, case.path, case.text));
                }
                (false, true) => counts[2] += 1,
                (false, false) => {
                    counts[3] += 1;
                    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
                    wrong.push(format!(
                        "blocked ({}) {} by {rules:?}: {:?}",
                        case.family, case.path, case.text
                    ));
                }
            }
        }
        let (mut found, mut missed, mut passed, mut blocked) = (0, 0, 0, 0);
        eprintln!("family          recall          false blocks");
        for (family, [f, m, p, b]) in &families {
            let recall = if f + m == 0 { "—".to_owned() } else { format!("{f}/{}", f + m) };
            let false_blocks = if p + b == 0 { "—".to_owned() } else { format!("{b}/{}", p + b) };
            eprintln!("{family:<15} {recall:<15} {false_blocks}");
            (found, missed, passed, blocked) = (found + f, missed + m, passed + p, blocked + b);
        }
        eprintln!("all             {found}/{}         {blocked}/{}", found + missed, passed + blocked);
        assert!(
            wrong.is_empty(),
            "{} of {} cases judged wrong:\n{}",
            wrong.len(),
            cases.len(),
            wrong.join("\n")
        );
    }
}
