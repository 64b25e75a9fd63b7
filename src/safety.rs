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

use crate::secrets::{Finding, Kind, scan_bytes, scan_text};

/// Files up to this size are scanned whole; a larger one is an [`Kind::Unscannable`] finding.
/// Far above any source file, and above what git hosts accept in one blob (100 MB).
pub(crate) const MAX_FILE_SCAN_BYTES: u64 = 256 * 1024 * 1024;

/// The allow-list file, read from the committed tree (HEAD), never from the content being
/// checked: an allowance takes effect only after a human committed it.
pub(crate) const ALLOW_FILE: &str = ".codeguard-allow";

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::tests::many_keys;

    /// Builds a test secret from pieces so this source file never contains one whole.
    fn s(parts: &[&str]) -> String {
        parts.concat()
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
