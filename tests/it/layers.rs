//! The house has one direction: every `crate::`/`super::` path in `src/` points down the declared
//! layer order or across its own layer without a circle, and inside each folder the files import
//! one another without a circle. The order lives in [`LAYERS`] and in `ARCHITECTURE.md` (between
//! `<!-- layers:begin -->` and `<!-- layers:end -->`); the two are checked to agree.
//!
//! Paths are read from the source text with comments, strings and character literals blanked
//! out, `use` groups (`crate::{a::X, b}`) expanded, and `super` resolved through inline modules
//! (`mod tests { use super::… }` is the file's own module); in a call (`super::spec(h)`) the last
//! segment is the function, not a file of the same name. `lib.rs` and `main.rs` declare the
//! modules and are the top; a folder's `mod.rs` is the folder's face (its own uses of its
//! children are by relative paths and not counted), so circles are looked for between the
//! files of a folder and between the top-level modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first: a module may use modules of its own layer (without a circle) and of
/// the layers below it, never above.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves",
        &[
            "static_regex",
            "env",
            "output",
            "exit",
            "outcome",
            "findings",
            "secrets",
            "mode",
            "fs",
            "process",
            "state",
            "hunks",
        ],
    ),
    ("git", &["git"]),
    ("registry", &["registry"]),
    ("project", &["files", "project", "trust"]),
    ("analysis", &["bash", "intent", "surface"]),
    (
        "content",
        &[
            "safety",
            "snapshot",
            "plan",
            "tools",
            "verdict",
            "cache",
            "run",
            "baseline",
            "lint",
            "report",
            "config_change",
            "content",
        ],
    ),
    ("hosts", &["host", "install"]),
    ("top", &["cli", "hook", "commands"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The module path of a source file (`src/a/b.rs` → `a::b`, `src/a/mod.rs` → `a`).
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The text with comments, string and character literals replaced by spaces (lines kept).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, s: &[u8]| {
        for &c in s {
            out.push(if c == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, 0usize);
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if rest[0] == b'r'
            && (rest.get(1) == Some(&b'"') || rest.get(1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let body = 2 + hashes;
            let end = rest[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(rest.len(), |p| body + p + close.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\''), else a lifetime.
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            if let Some(len) = len {
                blank(&mut out, &rest[..len]);
                i += len;
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            let ch = text[i..].chars().next().expect("char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Reads an identifier at `i`.
fn ident(b: &[u8], i: usize) -> Option<(String, usize)> {
    let len = b[i..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
    (len > 0).then(|| (String::from_utf8_lossy(&b[i..i + len]).into_owned(), i + len))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Parses a path tree at `i` (after a leading `crate::`/`super::`): `a::b`, `a::{b, c::d}`, `*`.
/// Pushes every path (relative to the leading keyword) into `out`; returns the end.
fn path_tree(b: &[u8], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        i = skip_ws(b, i);
        if b.get(i) == Some(&b'{') {
            i += 1;
            loop {
                i = skip_ws(b, i);
                if b.get(i) == Some(&b'}') {
                    return i + 1;
                }
                i = path_tree(b, i, &path, out);
                i = skip_ws(b, i);
                match b.get(i) {
                    Some(b',') => i += 1,
                    Some(b'}') => return i + 1,
                    _ => return i,
                }
            }
        }
        let Some((name, end)) = ident(b, i) else {
            out.push(path);
            return i;
        };
        path.push(name);
        i = skip_ws(b, end);
        if b[i..].starts_with(b"::") {
            i += 2;
            continue;
        }
        // `a as b`: the alias names nothing new.
        if b[i..].starts_with(b"as") && b.get(i + 2).is_some_and(u8::is_ascii_whitespace) {
            i = skip_ws(b, i + 2);
            i = ident(b, i).map_or(i, |(_, e)| e);
        }
        out.push(path);
        return i;
    }
}

/// Every module path `file` names through `crate::` or `super::`, resolved to an absolute path.
#[expect(clippy::many_single_char_names, reason = "a scanner's cursor, bytes and current byte")]
fn references(file: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(file).expect("read");
    let code = code_only(&text);
    let b = code.as_bytes();
    let module = module_of(file);
    let mut inline: Vec<(String, usize)> = Vec::new(); // inline `mod x {` and the depth it opened at
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let word_start =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        if c == b'{' {
            depth += 1;
        } else if c == b'}' {
            depth = depth.saturating_sub(1);
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
        } else if word_start && b[i..].starts_with(b"mod ") {
            let j = skip_ws(b, i + 4);
            if let Some((name, end)) = ident(b, j) {
                let k = skip_ws(b, end);
                if b.get(k) == Some(&b'{') {
                    inline.push((name, depth));
                }
            }
        } else if word_start && (b[i..].starts_with(b"crate::") || b[i..].starts_with(b"super::")) {
            let mut base: Vec<String> = Vec::new();
            let mut j = i;
            if b[i..].starts_with(b"crate::") {
                j += "crate::".len();
            } else {
                base.clone_from(&module);
                base.extend(inline.iter().map(|(n, _)| n.clone()));
                while b[j..].starts_with(b"super::") {
                    base.pop();
                    j += "super::".len();
                }
            }
            let mut paths = Vec::new();
            let end = path_tree(b, j, &base, &mut paths);
            // A call (`super::spec(h)`, `crate::x::f!(…)`): the last segment is a function or a
            // macro, which lives in the module before it (a function may share a file's name).
            if let [path] = paths.as_mut_slice()
                && matches!(b.get(skip_ws(b, end)), Some(b'(' | b'!'))
            {
                path.pop();
            }
            out.extend(paths);
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Circles of a graph (its strongly connected components with more than one node).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: order by finish time, then walk the reversed graph.
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<String>,
        order: &mut Vec<String>,
    ) {
        if !seen.insert(n.to_owned()) {
            return;
        }
        for m in g.get(n).into_iter().flatten() {
            visit(m, g, seen, order);
        }
        order.push(n.to_owned());
    }
    let nodes: BTreeSet<String> =
        graph.iter().flat_map(|(k, v)| std::iter::once(k.clone()).chain(v.iter().cloned())).collect();
    let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
    for n in &nodes {
        visit(n, graph, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, bs) in graph {
        for b in bs {
            reversed.entry(b.clone()).or_default().insert(a.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for n in order.iter().rev() {
        let mut component = Vec::new();
        visit(n, &reversed, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

/// The edges of the source: (importing module path, referenced module path).
fn edges() -> Vec<(Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for file in rust_files(&src()) {
        let module = module_of(&file);
        if module.is_empty() || module == ["main"] || module == ["lib"] {
            continue;
        }
        for reference in references(&file) {
            out.push((module.clone(), reference));
        }
    }
    out
}

#[test]
fn imports_go_down_the_layers_and_never_in_a_circle() {
    let layer_of: BTreeMap<&str, usize> =
        LAYERS.iter().enumerate().flat_map(|(i, (_, mods))| mods.iter().map(move |m| (*m, i))).collect();
    let top_level: BTreeSet<String> = rust_files(&src())
        .iter()
        .filter_map(|f| module_of(f).first().cloned())
        .filter(|m| m != "main" && m != "lib")
        .collect();
    let unplaced: Vec<&String> = top_level.iter().filter(|m| !layer_of.contains_key(m.as_str())).collect();
    assert!(
        unplaced.is_empty(),
        "modules in no layer (add them to LAYERS and ARCHITECTURE.md): {unplaced:?}"
    );
    let stale: Vec<&&str> = layer_of.keys().filter(|m| !top_level.contains(**m)).collect();
    assert!(stale.is_empty(), "LAYERS names modules that do not exist: {stale:?}");

    let edges = edges();
    assert!(edges.len() > 500, "the source was read ({} paths)", edges.len());
    let mut upward = BTreeSet::new();
    let mut same_layer: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in &edges {
        let (a, Some(b)) = (&from[0], to.first()) else { continue };
        let (Some(&la), Some(&lb)) = (layer_of.get(a.as_str()), layer_of.get(b.as_str())) else { continue };
        if a == b {
            continue;
        }
        if lb > la {
            upward.insert(format!(
                "{} → {} ({} → {})",
                from.join("::"),
                to.join("::"),
                LAYERS[la].0,
                LAYERS[lb].0
            ));
        } else if la == lb {
            same_layer.entry(a.clone()).or_default().insert(b.clone());
        }
    }
    assert!(
        upward.is_empty(),
        "imports that go up the layers:\n{}",
        upward.into_iter().collect::<Vec<_>>().join("\n")
    );
    let top = circles(&same_layer);
    assert!(top.is_empty(), "circles between top-level modules: {top:?}");

    // Inside each folder: the files (siblings) form no circle.
    let files: BTreeSet<Vec<String>> = rust_files(&src()).iter().map(|f| module_of(f)).collect();
    let mut folders: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to) in &edges {
        if from.len() < 2 {
            continue;
        }
        let folder = &from[..from.len() - 1];
        if to.len() <= folder.len() || &to[..folder.len()] != folder {
            continue;
        }
        let sibling = to[..=folder.len()].to_vec();
        if sibling != *from && files.contains(&sibling) {
            folders
                .entry(folder.to_vec())
                .or_default()
                .entry(from[folder.len()].clone())
                .or_default()
                .insert(sibling[folder.len()].clone());
        }
    }
    let inside: Vec<String> = folders
        .iter()
        .flat_map(|(folder, graph)| {
            circles(graph).into_iter().map(move |c| format!("{}: {c:?}", folder.join("/")))
        })
        .collect();
    assert!(inside.is_empty(), "circles inside folders:\n{}", inside.join("\n"));
}

#[test]
fn architecture_draws_the_same_order() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).expect("read");
    let block = text
        .split("<!-- layers:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- layers:end -->").next())
        .expect("ARCHITECTURE.md has a layers block");
    // Lines like "1. **leaves**: `env`, `fs` …" (a module list in backquotes after the colon).
    let drawn: Vec<(String, Vec<String>)> = block
        .lines()
        .filter_map(|l| {
            let (head, mods) = l.trim().split_once(':')?;
            let name =
                head.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').trim().trim_matches('*');
            let mods = mods.split('`').skip(1).step_by(2).map(str::to_owned).collect::<Vec<_>>();
            (!mods.is_empty()).then(|| (name.to_owned(), mods))
        })
        .collect();
    let declared: Vec<(String, Vec<String>)> =
        LAYERS.iter().map(|(n, m)| ((*n).to_owned(), m.iter().map(|s| (*s).to_owned()).collect())).collect();
    assert_eq!(drawn, declared, "ARCHITECTURE.md's layer list and this test's LAYERS differ");
}

/// The reader sees what the checks rely on: groups, aliases, `super` through inline modules, and
/// nothing in comments or strings.
#[test]
fn paths_are_read_as_the_compiler_reads_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("x.rs");
    std::fs::write(
        &file,
        "use crate::{a::B, c as d};\n// crate::nope\nlet s = \"crate::no\"; let c = '\"'; let r = r#\"crate::raw\"#;\nfn f<'a>() { crate::e::f(); }\nmod tests { use super::g; }\n",
    )
    .expect("write");
    let code = code_only(&std::fs::read_to_string(&file).expect("read"));
    assert!(!code.contains("nope") && !code.contains("crate::no") && !code.contains("raw"), "{code}");
    let b = code.as_bytes();
    let mut paths = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        path_tree(b, i + "crate::".len(), &[], &mut paths);
    }
    assert_eq!(
        paths,
        [vec!["a".to_owned(), "B".to_owned()], vec!["c".to_owned()], vec!["e".to_owned(), "f".to_owned()]]
    );
}
