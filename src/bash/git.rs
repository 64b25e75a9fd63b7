//! The git command-line model: global options, then one sub-command's flags and operands.
//!
//! In: the words after `git`. Out: where git runs (`-C`), the inline skipGate flag, and a
//! [`GitOp`] for the sub-commands that decide what a commit or push contains. Pure; it never
//! guesses aliases: a sub-command that is not one of git's own ([`is_builtin`]) is an alias or
//! an external `git-NAME` program, which the walker expands from `-c alias.NAME=…` and
//! `git config alias.NAME …` in the command, or leaves for [`crate::intent`] to look up in the
//! git config. Every git command that cannot commit, push or stage is ignored.

use super::syntax::Word;
use super::{DirPart, GitOp, Writer, WriterOp};

/// What the global-option area of one `git` invocation says.
#[derive(Debug, Default)]
pub(super) struct Globals {
    /// `-C` directories, in order.
    pub dirs: Vec<DirPart>,
    /// `-c codeguard.skipGate=true|1|yes` was given.
    pub skip_gate: bool,
    /// `--git-dir` and `--work-tree`.
    pub env: super::GitEnv,
    /// Index of the sub-command word, if any (`None` for `git --help`, `git --version`).
    pub sub: Option<usize>,
    /// `-c alias.NAME=VALUE`: the name (lower case) and the value, in order.
    pub aliases: Vec<(String, String)>,
}

/// Global options that take a separate value.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--attr-source",
];

/// Reads the global options of `git`.
pub(super) fn globals(args: &[Word]) -> Globals {
    let mut g = Globals::default();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if !t.starts_with('-') || t == "-" {
            g.sub = Some(i);
            return g;
        }
        if matches!(t, "--help" | "-h" | "--version" | "-v") {
            return g;
        }
        let (name, attached) = split_option(t);
        match name {
            "-C" => g.dirs.push(dir_part(attached.map_or_else(|| args.get(i + 1), |_| None), attached, w)),
            "-c" | "--config-env" => {
                let kv = attached.or_else(|| args.get(i + 1).map(|v| v.text.as_str()));
                if kv.is_some_and(|kv| {
                    kv.split('=').next().is_some_and(|k| {
                        k.eq_ignore_ascii_case("core.hooksPath")
                            || k.eq_ignore_ascii_case("core.excludesFile")
                    })
                }) {
                    // Another hooks directory or ignore file for this call: what git runs and
                    // stages is not what the repository's config says.
                    g.env.set("GIT_CONFIG_PARAMETERS", Some(super::EnvValue::Dynamic(w.raw.clone())));
                }
                if name == "--config-env" {
                    i += if attached.is_none() { 2 } else { 1 };
                    continue;
                }
                g.skip_gate |= kv.is_some_and(is_skip_gate);
                let alias = kv.and_then(|kv| kv.split_once('=')).and_then(|(k, v)| Some((alias_name(k)?, v)));
                if let Some((name, value)) = alias {
                    g.aliases.push((name, value.to_owned()));
                }
            }
            "--git-dir" | "--work-tree" => {
                let value = match (attached, args.get(i + 1)) {
                    (Some(a), _) if w.literal => super::EnvValue::Literal(a.to_owned()),
                    (None, Some(v)) => super::EnvValue::of(v),
                    (Some(_), _) | (None, None) => super::EnvValue::Dynamic(w.raw.clone()),
                };
                let var = if name == "--git-dir" { "GIT_DIR" } else { "GIT_WORK_TREE" };
                g.env.set(var, Some(value));
            }
            _ => {}
        }
        i += if attached.is_none() && GLOBAL_WITH_VALUE.contains(&name) { 2 } else { 1 };
    }
    g
}

/// git's own commands (`git --list-cmds=builtins,main`, git 2.47, plus a few newer ones),
/// sorted. A sub-command outside this list is an alias or an external `git-NAME` program;
/// git never lets an alias shadow one of these.
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "backfill",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout--worker",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-cache--daemon",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-pairs",
    "diff-tree",
    "difftool",
    "difftool--helper",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "grep",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "last-modified",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-octopus",
    "merge-one-file",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-resolve",
    "merge-subtree",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "pickaxe",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "remote-ext",
    "remote-fd",
    "remote-ftp",
    "remote-ftps",
    "remote-http",
    "remote-https",
    "repack",
    "replace",
    "replay",
    "repo",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "sh-i18n--envsubst",
    "shell",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "submodule--helper",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-archive--writer",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "web--browse",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// Whether `sub` is one of git's own commands (never an alias).
pub(super) fn is_builtin(sub: &str) -> bool {
    BUILTINS.binary_search(&sub).is_ok()
}

/// The alias name of a config key `alias.NAME` (section case-insensitive), in lower case.
pub(super) fn alias_name(key: &str) -> Option<String> {
    let (section, name) = key.split_once('.')?;
    (section.eq_ignore_ascii_case("alias") && !name.is_empty()).then(|| name.to_ascii_lowercase())
}

/// `git config [--global|--local|--system|-f F] [--add|--replace-all] alias.NAME VALUE` and
/// `git config set alias.NAME VALUE`: the alias it defines and its value (`None`: only known at
/// run time). Queries and `--unset` define nothing (an alias removed stays known: the
/// conservative reading).
pub(super) fn alias_definition(args: &[Word]) -> Option<(String, Option<String>)> {
    let p = parse(args, "f", &["file", "blob", "type", "default", "comment", "value"]);
    if p.help
        || p.has(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "-l",
            "--list",
            "--unset",
            "--unset-all",
            "--rename-section",
            "--remove-section",
            "-e",
            "--edit",
        ])
    {
        return None;
    }
    let mut ops = p.operands.iter();
    let mut key = ops.next()?;
    if key.text == "set" {
        key = ops.next()?;
    }
    let name = alias_name(&key.text)?;
    let value = ops.next()?;
    Some((name, value.value().map(str::to_owned)))
}

/// Splits `-Cdir`, `-ckey=v`, `--git-dir=x` into name and attached value.
fn split_option(t: &str) -> (&str, Option<&str>) {
    if let Some(rest) = t.strip_prefix("--") {
        return match rest.split_once('=') {
            Some((n, v)) => (&t[..n.len() + 2], Some(v)),
            None => (t, None),
        };
    }
    if t.len() > 2 && (t.starts_with("-C") || t.starts_with("-c")) {
        return (&t[..2], Some(&t[2..]));
    }
    (t, None)
}

fn dir_part(separate: Option<&Word>, attached: Option<&str>, option: &Word) -> DirPart {
    match (separate, attached) {
        (_, Some(a)) if option.literal => DirPart::Path(a.to_owned()),
        (Some(w), None) => word_dir(w),
        _ => DirPart::Unknown(format!("`{}`", option.text)),
    }
}

/// A directory operand (`cd X`, `git -C X`) as a [`DirPart`].
pub(super) fn word_dir(w: &Word) -> DirPart {
    if let Some(rest) = w.home_relative() {
        return DirPart::Home(rest);
    }
    if w.literal {
        if w.text.starts_with('~') {
            return DirPart::Unknown(format!("`{}` (home directory)", w.text));
        }
        return DirPart::Path(w.text.clone());
    }
    let toplevel = w.substitutions.len() == 1
        && w.substitutions[0].split_whitespace().collect::<Vec<_>>()
            == ["git", "rev-parse", "--show-toplevel"]
        && w.text.trim_matches('"') == format!("$({})", w.substitutions[0]);
    if toplevel { DirPart::Toplevel } else { DirPart::Unknown(format!("`{}`", w.text)) }
}

/// `codeguard.skipGate` set true, as git reads the boolean (key case-insensitive; a bare key
/// means true).
pub(super) fn is_skip_gate(kv: &str) -> bool {
    let (key, value) = kv.split_once('=').map_or((kv, None), |(k, v)| (k, Some(v)));
    key.eq_ignore_ascii_case("codeguard.skipGate") && crate::git::config::parse_boolean(value) == Some(true)
}

/// Operands and flags of a sub-command, split by a small option table.
struct Parsed<'w> {
    /// Flags as written (long names, or single short letters expanded from clusters).
    flags: Vec<String>,
    /// Values of value-taking options, keyed by the flag.
    values: Vec<(String, &'w Word)>,
    /// Operands (after options, and everything after `--`).
    operands: Vec<&'w Word>,
    /// `-h` / `--help` was given.
    help: bool,
}

impl Parsed<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }

    /// Whether an option is set, with the last of `on` / `off` winning.
    fn last(&self, on: &[&str], off: &[&str]) -> bool {
        self.flags.iter().rev().find_map(|f| {
            if on.contains(&f.as_str()) {
                Some(true)
            } else if off.contains(&f.as_str()) {
                Some(false)
            } else {
                None
            }
        }) == Some(true)
    }
}

/// Parses git's option syntax. `short_values` are short letters taking a value (separate or
/// attached); a letter listed after a `/` takes only an attached value (`-S[keyid]`);
/// `long_values` are long options taking a value (separate or `=`).
fn parse<'w>(args: &'w [Word], short_values: &str, long_values: &[&str]) -> Parsed<'w> {
    let (short_values, optional_values) = short_values.split_once('/').unwrap_or((short_values, ""));
    let mut p = Parsed { flags: Vec::new(), values: Vec::new(), operands: Vec::new(), help: false };
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if t == "--" {
            p.operands.extend(args[i..].iter());
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            let flag = format!("--{name}");
            p.help |= name == "help";
            if long_values.contains(&name) && attached.is_none() {
                if let Some(v) = args.get(i) {
                    p.values.push((flag.clone(), v));
                    i += 1;
                }
            } else if long_values.contains(&name) {
                p.values.push((flag.clone(), w));
            }
            p.flags.push(flag);
            continue;
        }
        if t.len() > 1 && t.starts_with('-') && w.literal {
            for (pos, c) in t[1..].char_indices() {
                p.help |= c == 'h';
                p.flags.push(format!("-{c}"));
                if optional_values.contains(c) {
                    break;
                }
                if short_values.contains(c) {
                    if pos + 1 + c.len_utf8() >= t.len() {
                        if let Some(v) = args.get(i) {
                            p.values.push((format!("-{c}"), v));
                            i += 1;
                        }
                    } else {
                        p.values.push((format!("-{c}"), w));
                    }
                    break;
                }
            }
            continue;
        }
        p.operands.push(w);
    }
    p
}

fn texts(ws: &[&Word]) -> Vec<String> {
    ws.iter().map(|w| w.text.clone()).collect()
}

fn any_dynamic(ws: &[&Word]) -> bool {
    ws.iter().any(|w| !w.literal || w.text.contains('$') || w.text.contains('`'))
}

/// The [`GitOp`] of a sub-command, or `None` when it cannot change what a commit or push
/// carries (`log`, `status`, `help`, `commit --help`, `commit --dry-run` …).
pub(super) fn sub_op(sub: &str, args: &[Word], from_stdin: bool) -> Option<GitOp> {
    match sub {
        "commit" => commit(args, from_stdin),
        "push" => push(args),
        "add" | "stage" => add(args, from_stdin),
        "rm" => rm(args, from_stdin),
        "mv" => mv(args, from_stdin),
        "stash" => stash(args),
        "config" => config(args),
        _ => writer(sub, args, from_stdin),
    }
}

/// Whether the git sub-command `sub` may change what a commit or push carries (stage, commit,
/// push, or write commits or the index): the sub-commands [`sub_op`] models.
pub(super) fn changes_content(sub: &str) -> bool {
    matches!(sub, "commit" | "push" | "add" | "stage" | "rm" | "mv" | "stash") || writer_table(sub).is_some()
}

/// The sub-commands beyond add/commit/push that write commits or the index, with their
/// value-taking options (short letters, `/` then attached-only letters; long names) and the
/// flags that make a run commit nothing.
fn writer_table(
    sub: &str,
) -> Option<(Writer, &'static str, &'static [&'static str], &'static [&'static str])> {
    Some(match sub {
        "merge" => (
            Writer::Merge,
            "mFsX/S",
            &["message", "file", "strategy", "strategy-option", "cleanup", "into-name"],
            &["--no-commit", "--squash", "--abort", "--quit"],
        ),
        "rebase" => (
            Writer::Rebase,
            "sXx/S",
            &["onto", "strategy", "strategy-option", "exec", "whitespace", "empty"],
            &["--abort", "--quit", "--edit-todo", "--show-current-patch"],
        ),
        "cherry-pick" => (
            Writer::CherryPick,
            "mX/S",
            &["mainline", "strategy", "strategy-option", "cleanup"],
            &["-n", "--no-commit", "--abort", "--quit"],
        ),
        "revert" => (
            Writer::Revert,
            "mX/S",
            &["mainline", "strategy", "strategy-option", "cleanup"],
            &["-n", "--no-commit", "--abort", "--quit"],
        ),
        "am" => (
            Writer::Am,
            "/pCS",
            &[
                "whitespace",
                "directory",
                "exclude",
                "include",
                "patch-format",
                "resolvemsg",
                "quoted-cr",
                "empty",
            ],
            &["--abort", "--quit", "--show-current-patch"],
        ),
        "commit-tree" => (Writer::CommitTree, "pmF/S", &[], &[]),
        "pull" => (
            Writer::Pull,
            "sX",
            &[
                "strategy",
                "strategy-option",
                "depth",
                "deepen",
                "shallow-since",
                "shallow-exclude",
                "upload-pack",
                "refmap",
            ],
            &["--dry-run"],
        ),
        "checkout" | "switch" => (
            Writer::Checkout,
            "bBcC",
            &["orphan", "conflict", "pathspec-from-file", "create", "force-create"],
            &[],
        ),
        "restore" => (Writer::Restore, "s", &["source", "pathspec-from-file", "conflict"], &[]),
        "reset" => (Writer::Reset, "", &["pathspec-from-file"], &[]),
        "apply" => (
            Writer::Apply,
            "/pC",
            &["exclude", "include", "directory", "whitespace", "build-fake-ancestor"],
            &[],
        ),
        "read-tree" => (Writer::ReadTree, "", &["prefix", "index-output", "exclude-per-directory"], &[]),
        "update-index" => (Writer::UpdateIndex, "", &["cacheinfo", "chmod", "index-version"], &[]),
        _ => return None,
    })
}

/// A [`GitOp::Writer`] for the sub-commands of [`writer_table`]; `None` for every other one and
/// for `--help`.
fn writer(sub: &str, args: &[Word], from_stdin: bool) -> Option<GitOp> {
    let (kind, short, long, no_commit) = writer_table(sub)?;
    let split = args.iter().position(|w| w.literal && w.text == "--");
    let (before, after) = match split {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let p = parse(before, short, long);
    if p.help {
        return None;
    }
    let commits = matches!(
        kind,
        Writer::Merge
            | Writer::Rebase
            | Writer::CherryPick
            | Writer::Revert
            | Writer::Am
            | Writer::CommitTree
            | Writer::Pull
    ) && !p.has(no_commit);
    let after: Vec<&Word> = after.iter().collect();
    let value_words: Vec<&Word> = p.values.iter().map(|(_, w)| *w).collect();
    let dynamic = from_stdin || any_dynamic(&p.operands) || any_dynamic(&after) || any_dynamic(&value_words);
    Some(GitOp::Writer(Box::new(WriterOp {
        kind,
        values: p
            .values
            .iter()
            .map(|(f, w)| {
                let attached = w.text.strip_prefix(f.as_str()).and_then(|v| v.strip_prefix('=').or(Some(v)));
                let value =
                    if w.text.starts_with(f.as_str()) { attached.unwrap_or_default() } else { &w.text };
                (f.clone(), value.to_owned())
            })
            .collect(),
        flags: p.flags,
        operands: texts(&p.operands),
        paths: texts(&after),
        commits,
        dynamic,
    })))
}

fn commit(args: &[Word], from_stdin: bool) -> Option<GitOp> {
    let p = parse(
        args,
        "mFCct/Su",
        &[
            "message",
            "file",
            "reuse-message",
            "reedit-message",
            "fixup",
            "squash",
            "author",
            "date",
            "template",
            "cleanup",
            "trailer",
            "pathspec-from-file",
        ],
    );
    if p.help || p.has(&["--dry-run"]) {
        return None;
    }
    let only_paths = texts(&p.operands);
    Some(GitOp::Commit {
        all: p.has(&["-a", "--all"]),
        include: p.has(&["-i", "--include"]),
        amend: p.has(&["--amend"]),
        no_verify: p.last(&["-n", "--no-verify"], &["--verify"]),
        interactive: p.has(&["-p", "--patch", "--interactive"]),
        pathspec_from_file: p.has(&["--pathspec-from-file"]),
        dynamic: from_stdin || any_dynamic(&p.operands),
        only_paths,
    })
}

fn push(args: &[Word]) -> Option<GitOp> {
    let p = parse(args, "o", &["repo", "receive-pack", "exec", "push-option"]);
    if p.help {
        return None;
    }
    let mut operands = texts(&p.operands).into_iter();
    let remote =
        p.values.iter().find(|(f, _)| f == "--repo").map(|(_, w)| w.text.clone()).or_else(|| operands.next());
    Some(GitOp::Push {
        dry_run: p.has(&["-n", "--dry-run"]),
        no_verify: p.last(&["--no-verify"], &["--verify"]),
        delete: p.has(&["-d", "--delete"]),
        all_refs: p.has(&["--all", "--branches", "--mirror"]),
        tags: p.has(&["--tags", "--follow-tags", "--mirror"]),
        submodules: args.iter().rev().find_map(|w| {
            let value =
                w.text.strip_prefix("--recurse-submodules").filter(|v| v.is_empty() || v.starts_with('='))?;
            Some(!matches!(value.trim_start_matches('='), "check" | "no"))
        }),
        remote,
        refspecs: operands.collect(),
    })
}

fn add(args: &[Word], from_stdin: bool) -> Option<GitOp> {
    let p = parse(args, "", &["chmod", "pathspec-from-file"]);
    if p.help {
        return None;
    }
    Some(GitOp::Add {
        all: p.has(&["-A", "--all", "--no-ignore-removal"]),
        update: p.has(&["-u", "--update"]),
        force: p.has(&["-f", "--force"]),
        interactive: p.has(&["-p", "--patch", "-i", "--interactive", "-e", "--edit"]),
        pathspec_from_file: p.has(&["--pathspec-from-file"]),
        dry_run: p.has(&["-n", "--dry-run"]),
        intent_to_add: p.has(&["-N", "--intent-to-add"]),
        dynamic: from_stdin || any_dynamic(&p.operands),
        pathspecs: texts(&p.operands),
    })
}

fn rm(args: &[Word], from_stdin: bool) -> Option<GitOp> {
    let p = parse(args, "", &["pathspec-from-file"]);
    if p.help {
        return None;
    }
    Some(GitOp::Rm {
        cached: p.has(&["--cached"]),
        force: p.has(&["-f", "--force"]),
        recursive: p.has(&["-r"]),
        dry_run: p.has(&["-n", "--dry-run"]),
        dynamic: from_stdin || any_dynamic(&p.operands),
        pathspecs: texts(&p.operands),
    })
}

fn mv(args: &[Word], from_stdin: bool) -> Option<GitOp> {
    let p = parse(args, "", &[]);
    if p.help {
        return None;
    }
    let mut paths = texts(&p.operands);
    let to = paths.pop().unwrap_or_default();
    Some(GitOp::Mv {
        dry_run: p.has(&["-n", "--dry-run"]),
        dynamic: from_stdin || any_dynamic(&p.operands),
        from: paths,
        to,
    })
}

fn stash(args: &[Word]) -> Option<GitOp> {
    let p = parse(args, "m", &["message", "pathspec-from-file"]);
    if p.help {
        return None;
    }
    let first = args.first().map(|w| w.text.as_str());
    let action = match first {
        Some(a) if !a.starts_with('-') => a.to_owned(),
        _ => "push".to_owned(),
    };
    if action == "create" {
        // A commit object of the index and the tracked files' worktree content — what
        // `commit -a` would make — that `update-ref`, `reset`, `branch -f` can then put on a
        // branch: judged as that commit before it is made.
        return Some(GitOp::Commit {
            all: true,
            only_paths: Vec::new(),
            include: false,
            amend: false,
            no_verify: false,
            interactive: false,
            pathspec_from_file: false,
            dynamic: false,
        });
    }
    Some(GitOp::Stash { action, args: args.iter().map(|w| w.text.clone()).collect() })
}

/// The key a `git config …` call (its arguments after `config`) writes — sets, unsets, adds,
/// renames or removes —, `None` for a read. `--edit` writes every key: `"*"`.
pub(crate) fn config_key_written(args: &[Word]) -> Option<String> {
    let op = config(args)?;
    let p = parse(args, "f", &["file", "blob", "type", "default", "comment", "value"]);
    if p.has(&["-e", "--edit"]) {
        return Some("*".to_owned());
    }
    let mut ops = p.operands.iter().map(|w| w.text.as_str());
    let mut key = ops.next()?;
    if matches!(key, "set" | "unset") {
        key = ops.next()?;
    }
    matches!(op, GitOp::ConfigWrite | GitOp::SetSkipGate { .. }).then(|| key.to_owned())
}

/// `git config [--local|--worktree] codeguard.skipGate VALUE` and `--unset`: a chain bypass.
/// Other files (`--global`, `--system`, `-f`) and queries are not a chain bypass.
fn config(args: &[Word]) -> Option<GitOp> {
    let p = parse(args, "f", &["file", "blob", "type", "default", "comment", "value"]);
    if p.help
        || p.has(&[
            "--blob",
            "--get",
            "--get-all",
            "--get-regexp",
            "-l",
            "--list",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
        ])
    {
        return None;
    }
    if p.has(&["-e", "--edit"]) {
        return Some(GitOp::ConfigWrite);
    }
    let mut ops = p.operands.iter().map(|w| w.text.as_str());
    // `git config set KEY VALUE` / `git config unset KEY` (git ≥ 2.46 sub-commands).
    let mut verb = None;
    let mut key = ops.next()?;
    if matches!(key, "set" | "unset" | "get" | "list") {
        verb = Some(key);
        key = ops.next()?;
    }
    if verb == Some("get") || verb == Some("list") {
        return None;
    }
    let elsewhere = p.has(&["--global", "--system", "-f", "--file"]);
    if !key.eq_ignore_ascii_case("codeguard.skipGate") || elsewhere {
        // A read (`git config KEY`) names no value; everything else writes.
        let writes = ops.next().is_some()
            || p.has(&[
                "--unset",
                "--unset-all",
                "--add",
                "--replace-all",
                "--rename-section",
                "--remove-section",
            ])
            || verb.is_some();
        return writes.then_some(GitOp::ConfigWrite);
    }
    if p.has(&["--unset", "--unset-all"]) || verb == Some("unset") {
        return Some(GitOp::SetSkipGate { enabled: false });
    }
    let value = ops.next()?;
    Some(GitOp::SetSkipGate { enabled: crate::git::config::parse_boolean(Some(value)) == Some(true) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn globals_collect_c_dirs_and_skip_gate() {
        let w = words("-C a -Cb -c codeguard.skipGate=YES --no-pager commit");
        let g = globals(&w);
        assert_eq!(g.dirs, vec![DirPart::Path("a".into()), DirPart::Path("b".into())]);
        assert!(g.skip_gate);
        for hooks in ["-c core.hooksPath=/dev/null commit", "--config-env=core.hookspath=HP commit"] {
            assert!(globals(&words(hooks)).env.config.is_some(), "{hooks}");
        }
        assert!(globals(&words("-c user.name=x commit")).env.config.is_none());
        assert_eq!(g.sub, Some(6));
    }

    #[test]
    fn builtins_are_sorted_and_aliases_are_read() {
        assert!(BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_builtin("commit") && is_builtin("stage") && !is_builtin("ci"));
        let g = globals(&words("-c alias.CI=commit ci -m x"));
        assert_eq!(g.aliases, [("ci".to_owned(), "commit".to_owned())]);
        assert_eq!(
            alias_definition(&words("--global alias.p push")),
            Some(("p".into(), Some("push".into())))
        );
        assert_eq!(alias_definition(&words("--get alias.p")), None);
    }

    #[test]
    fn skip_gate_values_are_strict() {
        assert!(is_skip_gate("codeguard.skipgate=1"));
        assert!(!is_skip_gate("codeguard.skipGate=0"));
        assert!(!is_skip_gate("codeguard.other=true"));
        assert!(is_skip_gate("codeguard.skipGate=2"), "any non-zero integer is true, as in git");
        assert!(is_skip_gate("codeguard.skipGate=On"));
        assert!(!is_skip_gate("codeguard.skipGate="), "an empty value is false");
        assert!(is_skip_gate("codeguard.skipGate"), "a bare key is true");
    }

    #[test]
    fn commit_clusters_take_values() {
        let w = words("-am msg");
        let Some(GitOp::Commit { all, only_paths, .. }) = commit(&w, false) else { panic!() };
        assert!(all);
        assert!(only_paths.is_empty());
        assert!(commit(&words("--dry-run"), false).is_none());
        assert!(commit(&words("-h"), false).is_none());
    }

    #[test]
    fn optional_attached_values_do_not_swallow_the_next_word() {
        let Some(GitOp::Commit { all, only_paths, .. }) = commit(&words("-Skeyall -m x"), false) else {
            panic!()
        };
        assert!(!all);
        assert!(only_paths.is_empty());
        let Some(GitOp::Commit { only_paths, .. }) = commit(&words("-S -m signed"), false) else { panic!() };
        assert!(only_paths.is_empty());
    }

    #[test]
    fn push_n_is_dry_run() {
        let Some(GitOp::Push { dry_run, remote, refspecs, .. }) = push(&words("-n origin main")) else {
            panic!()
        };
        assert!(dry_run);
        assert_eq!(remote.as_deref(), Some("origin"));
        assert_eq!(refspecs, ["main"]);
    }

    #[test]
    fn config_set_and_unset() {
        assert_eq!(config(&words("codeguard.skipGate true")), Some(GitOp::SetSkipGate { enabled: true }));
        assert_eq!(config(&words("--unset codeguard.skipGate")), Some(GitOp::SetSkipGate { enabled: false }));
        // Not this repository's skipGate, but a write of git configuration all the same.
        assert_eq!(config(&words("--global codeguard.skipGate true")), Some(GitOp::ConfigWrite));
        assert_eq!(config(&words("--get codeguard.skipGate")), None);
    }

    #[test]
    fn every_other_config_write_is_one_and_reads_are_none() {
        for write in [
            "core.hooksPath /dev/null",
            "--global core.hooksPath /tmp/h",
            "--file .git/config include.path ../x",
            "set core.hooksPath x",
            "unset core.hooksPath",
            "--unset core.hooksPath",
            "--edit",
            "--add include.path x",
        ] {
            assert_eq!(config(&words(write)), Some(GitOp::ConfigWrite), "{write}");
        }
        for read in [
            "core.hooksPath",
            "--get core.hooksPath",
            "get core.hooksPath",
            "-l",
            "list",
            "--get-regexp core",
        ] {
            assert_eq!(config(&words(read)), None, "{read}");
        }
    }
}
