//! The text of codeguard's git hook scripts: what it writes (`script`, chained to the hook that
//! was there before), how it recognises its own (the marker line, the binary a script runs) and
//! which of them nothing can skip (`genuine`: byte for byte the script this codeguard writes).
//! Read by the installer, the hook managers' blocks and the session's hooks directory.

use std::path::{Path, PathBuf};

use crate::mode::GitHook;

/// The line that marks a hook script as codeguard's own.
pub(crate) const MARKER: &str = "# codeguard-managed-hook";

/// Suffix of a pre-existing hook that ours runs first.
pub(crate) const CHAINED_SUFFIX: &str = ".codeguard-chained";

/// Whether `text` is exactly the script this codeguard writes for `hook`, running this very
/// binary: a file that merely carries codeguard's marker line may do anything else, so only the
/// byte-identical script counts as a gate nothing can skip.
pub(crate) fn genuine(hook: GitHook, text: &str) -> bool {
    runs_this_binary(text).is_some_and(|exe| text == script(hook, &exe))
}

/// The binary a codeguard script runs (its `codeguard='…'` line), when that is this very
/// program: the same file, by path or by identity (a hard link). `None` otherwise, or when it
/// cannot be told.
pub(crate) fn runs_this_binary(text: &str) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt as _;
    let named = PathBuf::from(binary_of(text)?);
    let this = std::env::current_exe().ok()?;
    let same_path = matches!((this.canonicalize(), named.canonicalize()), (Ok(a), Ok(b)) if a == b);
    let identity = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    (same_path || identity(&this).is_some_and(|id| identity(&named) == Some(id))).then_some(named)
}

/// The binary codeguard's script runs (its `codeguard='…'` line).
pub(crate) fn binary_of(text: &str) -> Option<String> {
    let quoted = text.lines().find_map(|l| l.strip_prefix("codeguard="))?;
    Some(quoted.strip_prefix('\'')?.strip_suffix('\'')?.replace(r"'\''", "'"))
}

/// Whether a hook script is one codeguard wrote.
pub(crate) fn is_ours(text: &str) -> bool {
    text.lines().any(|line| line == MARKER)
}

/// Where a hook script finds the hook that ran there before codeguard, which it runs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chain {
    /// `install --git-hooks`: the earlier hook was kept beside the script as `NAME.codeguard-chained`.
    Kept,
    /// The agent session's hooks directory (`install --host`, see `super::session_hooks`):
    /// the repository's own hook of that name — the hooks directory git would use without the
    /// session's `core.hooksPath`, asked of git with the session's configuration entries off.
    Repository,
}

impl Chain {
    /// The script's lines that say who wrote it and set `chained`.
    fn preamble(self, name: &str) -> String {
        match self {
            Self::Kept => format!(
                "# Written by `codeguard install --git-hooks`; `codeguard uninstall --git-hooks` removes it.
# A hook that was here before is kept as {name}{CHAINED_SUFFIX} and runs first.
chained=\"${{0%/*}}/{name}{CHAINED_SUFFIX}\"
"
            ),
            Self::Repository => format!(
                "# Written by `codeguard install --host H` into codeguard's hooks directory for agent sessions,
# which the host's shell environment names as core.hooksPath (GIT_CONFIG_COUNT); `codeguard
# uninstall --host H` stops naming it. The repository's own {name} hook, if any, runs first.
{}",
                repository_hook(name)
            ),
        }
    }

    /// What to do when codeguard's binary is gone.
    fn reinstall(self) -> &'static str {
        match self {
            Self::Kept => "run 'codeguard install --git-hooks' again",
            Self::Repository => "run 'codeguard install --host' for your agent again",
        }
    }

    /// How to take the hook out.
    fn uninstall(self) -> &'static str {
        match self {
            Self::Kept => "'codeguard uninstall --git-hooks'",
            Self::Repository => "'codeguard uninstall --host' for your agent",
        }
    }
}

/// The hook script for `hook`, running `exe`. A chained hook runs first and its failure stops
/// git; pre-push's stdin (the ref lines) is read once and handed to both.
pub(crate) fn script(hook: GitHook, exe: &Path) -> String {
    script_in(hook, exe, Chain::Kept)
}

/// [`script`] for where it is installed.
pub(crate) fn script_in(hook: GitHook, exe: &Path, chain: Chain) -> String {
    let name = hook.file_name();
    let command = hook.command();
    let exe = sh_quote(&exe.to_string_lossy());
    let preamble = chain.preamble(name);
    let reinstall = chain.reinstall();
    let run = match hook {
        GitHook::PreCommit => format!(
            "if [ -x \"$chained\" ]; then\n  \"$chained\" \"$@\" || exit $?\nfi\nexec \"$codeguard\" git-hook {name} \"$@\"\n"
        ),
        GitHook::PrePush => format!(
            "input=$(cat; echo x)\ninput=${{input%x}}\nif [ -x \"$chained\" ]; then\n  printf '%s' \"$input\" | \"$chained\" \"$@\" || exit $?\nfi\nprintf '%s' \"$input\" | \"$codeguard\" git-hook {name} \"$@\"\n"
        ),
        GitHook::ReferenceTransaction => return backstop_script(&exe, &preamble, chain),
    };
    format!(
        "#!/bin/sh
{MARKER}
{preamble}codeguard={exe}
if [ ! -x \"$codeguard\" ]; then
  echo \"codeguard: $codeguard is missing; {reinstall}, or bypass once with git {command} --no-verify\" >&2
  exit 1
fi
{run}"
    )
}

/// The reference-transaction script (`exe` already quoted). git runs it for every ref update
/// (three times: prepared, committed, aborted), so what codeguard ignores costs one `sh` and no
/// other process (in the session's hooks directory, the repository's own hook is found through
/// [`repository_hook`]'s record): any state but `prepared` and any transaction that moves no branch or
/// tag returns at once, with the ref lines read by the shell's own `read`. A chained hook still
/// sees every state with its stdin.
fn backstop_script(exe: &str, preamble: &str, chain: Chain) -> String {
    let name = GitHook::ReferenceTransaction.file_name();
    let (reinstall, uninstall) = (chain.reinstall(), chain.uninstall());
    format!(
        "#!/bin/sh
{MARKER}
{preamble}# Before a branch or tag moves (state \"prepared\"), codeguard judges the commits and tags that
# land, whatever command moved it; a non-zero exit makes git abort the whole update.
codeguard={exe}
if [ \"$1\" != prepared ]; then
  if [ -x \"$chained\" ]; then
    exec \"$chained\" \"$@\"
  fi
  exit 0
fi
input=
judge=
while IFS= read -r line || [ -n \"$line\" ]; do
  input=\"$input$line
\"
  case \"$line\" in
    *\" refs/heads/\"* | *\" refs/tags/\"*) judge=1 ;;
  esac
done
if [ -x \"$chained\" ]; then
  printf '%s' \"$input\" | \"$chained\" \"$@\" || exit $?
fi
[ -n \"$judge\" ] || exit 0
if [ ! -x \"$codeguard\" ]; then
  echo \"codeguard: $codeguard is missing, so this branch or tag update cannot be checked and git stops it; {reinstall}, or {uninstall}\" >&2
  exit 1
fi
printf '%s' \"$input\" | \"$codeguard\" git-hook {name} \"$@\"
"
    )
}

/// The lines of a script in the agent session's hooks directory that set `chained` to the
/// repository's own hook `name` (empty when it would be this very script): the hooks directory
/// git would use without the session's entry — its `core.hooksPath`, else the common git
/// directory's `hooks` — asked of git with the session's configuration entries off.
///
/// git runs the reference-transaction hook twice for every ref update (`prepared`, then
/// `committed` or `aborted`), so asking git each time would start two more processes for every
/// update codeguard ignores. The answer is therefore kept per repository, under
/// `.repositories/<the repository's path>/hooks-dir` in the session's hooks directory (codeguard's
/// state, which the gate protects): three lines, the environment it was asked in (`HOME`,
/// `XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`), the answer,
/// and the system configuration file git named. It stands only while the environment is the same
/// and every git configuration file git reads there (that system file, the global ones the
/// environment names, `.git/config`, `.git/config.worktree`) that exists is older than the
/// record and than the moment just before git was asked (a change at the same timestamp counts
/// as newer, and a change while git answers takes the record back). The record is read with
/// `read`, never run, so a forged one can only name another hooks directory.
/// It is kept only where that
/// covers everything the answer depends on: a repository whose `.git` directory is in the
/// hook's working directory (git runs hooks at the top of the worktree), no `GIT_DIR`-like
/// variable, no `git -c`, only the session's own configuration entry, and no `include`
/// in any configuration. Everywhere else git is asked every time, as before.
pub(crate) fn repository_hook(name: &str) -> String {
    format!(
        r#"hooks=
keep=
if [ -d .git ] && [ "${{GIT_CONFIG_COUNT-}}" = 1 ] && [ -z "${{GIT_DIR-}}${{GIT_COMMON_DIR-}}${{GIT_WORK_TREE-}}${{GIT_CONFIG_PARAMETERS-}}${{GIT_CONFIG-}}" ]; then
  keep="${{0%/*}}/.repositories$PWD/hooks-dir"
  asked="$HOME|${{XDG_CONFIG_HOME-}}|${{GIT_CONFIG_GLOBAL-}}|${{GIT_CONFIG_SYSTEM-}}|${{GIT_CONFIG_NOSYSTEM-}}"
  kept() {{
    IFS= read -r line && [ "$line" = "$asked" ] && IFS= read -r hooks && [ -n "$hooks" ] && IFS= read -r system || return 1
    if [ -n "${{GIT_CONFIG_GLOBAL-}}" ]; then set -- "$GIT_CONFIG_GLOBAL"; else set -- "$HOME/.gitconfig" "${{XDG_CONFIG_HOME:-$HOME/.config}}/git/config"; fi
    for f in .git/config .git/config.worktree "$system" "$@"; do
      [ ! -e "$f" ] || [ "$stamp" -nt "$f" ] || return 1
    done
  }}
  stamp=$keep
  if [ -f "$keep" ] && kept < "$keep"; then :; else hooks=; fi
fi
if [ -z "$hooks" ]; then
  if [ -n "$keep" ] && [ "${{asked#*|*|*|*|*|}}" = "$asked" ] && {{ [ -d "${{keep%/*}}" ] || mkdir -p "${{keep%/*}}" 2>/dev/null; }} &&
    {{ printf '\n' > "$keep" && printf '\n' > "$keep.asked"; }} 2>/dev/null; then
    stamp="$keep.asked"
    hooks=$(GIT_CONFIG_COUNT=0 git rev-parse --git-path hooks 2>/dev/null)
    # Kept only when no configuration changed since just before git was asked ($keep.asked),
    # checked again once the record is written: a change in between takes it back.
    if [ -n "$hooks" ] && ! GIT_CONFIG_COUNT=0 git config --get-regexp '^include' >/dev/null 2>&1 &&
      system=$(GIT_CONFIG_COUNT=0 git var GIT_CONFIG_SYSTEM 2>/dev/null || [ -n "${{GIT_CONFIG_NOSYSTEM-}}" ]) &&
      printf '%s\n' "$asked" "$hooks" "$system" | kept; then
      {{ printf '%s\n' "$asked" "$hooks" "$system" > "$keep"; }} 2>/dev/null
      printf '%s\n' "$asked" "$hooks" "$system" | kept ||
        {{ printf '\n' > "$keep"; }} 2>/dev/null
    fi
  else
    hooks=$(GIT_CONFIG_COUNT=0 git rev-parse --git-path hooks 2>/dev/null)
  fi
fi
chained=${{hooks:+$hooks/{name}}}
if [ "$chained" -ef "$0" ]; then chained=; fi
"#
    )
}

/// Quotes a string for `sh` (single quotes; an embedded `'` becomes `'\''`).
pub(crate) fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
