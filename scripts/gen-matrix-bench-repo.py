#!/usr/bin/env python3
"""Creates one repository of the `matrix` benchmark (scripts/bench.sh): N tracked files in one
packed base commit, K clean files staged on top, and one unstaged edit to a tracked file.

Usage: gen-matrix-bench-repo.py DIR N K

  DIR/repo/         the repository (DIR must not exist yet)
  DIR/floor.sh      the floor: `git diff --cached --name-only`, then each linter on only the staged
                    files of its type, as one line for `sh -c '…'` (no single quotes in it)
  DIR/languages     the languages with staged files, e.g. `python shell yaml`

The base commit holds N files: about 45 % Python, 25 % shell, 20 % YAML, the rest Markdown and
text, ~100 to a directory, plus the configuration of every contender, each running exactly the
lint commands of codeguard's registry (registry/languages.json) with a ruff.toml present (so
codeguard adds no `--config`): ruff.toml and .yamllint.yml (read by the linters themselves),
.pre-commit-config.yaml (pre-commit and prek: `repo: local`, `language: system` hooks) and
lefthook.yml (`{staged_files}` with glob filters). Base files are clean too, though only staged
files are linted.

The K staged files (40 % Python, 30 % shell, 30 % YAML, in that order: K=1 stages one Python
file) alternate between new files and rewrites of tracked files of the same type, all clean.
The unstaged edit is to a tracked Python file that is not staged, so prek and pre-commit take
their stash-and-restore path. Deterministic: the same arguments give the same files and, with
the fixed dates below, the same commit.

Fast at 100,000 files: base files are variants of 64 templates per type, each made unique by
one line, written to the worktree and to `git fast-import` in one pass (no loose objects), the
index read from that commit and refreshed, and one `git repack -adq`."""

import importlib.util
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gate", os.path.join(HERE, "gen-gate-bench-repo.py"))
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)

# The lint argv of codeguard's registry, without the `{files}` placeholder.
with open(os.path.join(HERE, "..", "registry", "languages.json")) as f:
    _registry = json.load(f)
_langs = _registry["languages"] if isinstance(_registry, dict) else _registry
LINT = {l["id"]: [a for a in l["lint"] if a != "{files}"] for l in _langs if l["id"] in ("python", "shell", "yaml")}
EXT = {"python": ".py", "shell": ".sh", "yaml": ".yml"}
# pre-commit / prek `types`, lefthook globs: what codeguard's registry maps to each language.
TYPES = {"python": "python", "shell": "shell", "yaml": "yaml"}
GLOBS = {"python": "*.{py,pyi}", "shell": "*.{sh,bash,ksh,dash}", "yaml": "*.{yml,yaml}"}

TEMPLATES = 64


def pre_commit_config():
    lines = ["---", "repos:", "  - repo: local", "    hooks:"]
    for lang in ("python", "shell", "yaml"):
        lines += [
            f"      - id: {lang}",
            f"        name: {lang}",
            f"        entry: \"{' '.join(LINT[lang])}\"",
            "        language: system",
            f"        types: [{TYPES[lang]}]",
        ]
    return "\n".join(lines) + "\n"


def lefthook_config():
    # `parallel: true`: the three commands at once, as codeguard runs its languages (and as the
    # lefthook documentation suggests for speed); pre-commit and prek split each hook's files
    # over the cores themselves.
    lines = ["---", "pre-commit:", "  parallel: true", "  commands:"]
    for lang in ("python", "shell", "yaml"):
        lines += [
            f"    {lang}:",
            f"      glob: \"{GLOBS[lang]}\"",
            f"      run: {' '.join(LINT[lang])} {{staged_files}}",
        ]
    return "\n".join(lines) + "\n"


def unique(text, lang, tag):
    """The template TEXT made unique by one comment line after its first line."""
    first, rest = text.split("\n", 1)
    return f"{first}\n# {tag}\n{rest}"


def base_paths(n):
    """(path, kind) of the N base files, ~100 to a directory."""
    out = []
    for i in range(n):
        d = f"{i // 100:04d}"
        r = i % 20
        if r < 9:
            out.append((f"src/p{d}/m{i:06d}.py", "python"))
        elif r < 14:
            out.append((f"scripts/s{d}/r{i:06d}.sh", "shell"))
        elif r < 18:
            out.append((f"deploy/d{d}/j{i:06d}.yml", "yaml"))
        elif r < 19:
            out.append((f"docs/n{d}/n{i:06d}.md", "md"))
        else:
            out.append((f"data/t{d}/t{i:06d}.txt", "txt"))
    return out


def git(repo, *args, **kw):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", "-C", repo, "-c", "gc.auto=0", *args], check=True, env=env, **kw)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    root, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if k > n // 2:
        sys.exit(f"K={k} > N/2={n // 2}: not a cell of the matrix")
    repo = os.path.join(root, "repo")
    os.makedirs(repo)
    rng = random.Random(16)
    makers = {"python": gate.python_file, "shell": gate.shell_file, "yaml": gate.yaml_file}
    templates = {lang: [make(rng, t) for t in range(TEMPLATES)] for lang, make in makers.items()}
    templates["md"] = [f"# Note {t}\n\nSome {rng.choice(gate.WORDS)} text.\n" for t in range(TEMPLATES)]
    templates["txt"] = [f"{rng.getrandbits(64):x}\n" * 8 for _ in range(TEMPLATES)]

    git(repo, "init", "-q", "-b", "main")
    write(os.path.join(repo, "ruff.toml"), gate.RUFF_TOML)
    write(os.path.join(repo, ".yamllint.yml"), gate.YAMLLINT)
    write(os.path.join(repo, ".pre-commit-config.yaml"), pre_commit_config())
    write(os.path.join(repo, "lefthook.yml"), lefthook_config())
    write(os.path.join(repo, "README.md"), "Benchmark fixture.\n")
    # The base commit through fast-import, written straight into a pack while the same bytes go
    # to the worktree: `git add` would write N loose objects and repacking would unlink them
    # again, which is slow on a file system mounted with `discard`. Then the index is read from
    # the commit and refreshed (hashing the worktree, writing nothing), and the pack repacked
    # with deltas as `git gc` would leave it.
    paths = [(name, "config") for name in sorted(os.listdir(repo)) if name != ".git"] + base_paths(n)
    made = set()
    by_kind = {}
    importer = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE)
    stream = importer.stdin
    for i, (path, kind) in enumerate(paths):
        full = os.path.join(repo, path)
        if kind == "config":
            with open(full, "rb") as f:
                data = f.read()
        else:
            d = os.path.dirname(path)
            if d not in made:
                os.makedirs(os.path.join(repo, d), exist_ok=True)
                made.add(d)
            data = unique(templates[kind][i % TEMPLATES], kind, f"base {i}").encode()
            with open(full, "wb") as f:
                f.write(data)
            by_kind.setdefault(kind, []).append(path)
        stream.write(b"blob\nmark :%d\ndata %d\n%s\n" % (i + 1, len(data), data))
    when = b"1767225600 +0000"  # 2026-01-01T00:00:00Z
    stream.write(b"commit refs/heads/main\nauthor bench <bench@example.invalid> %s\n"
                 b"committer bench <bench@example.invalid> %s\ndata 4\nbase\n" % (when, when))
    for i, (path, _) in enumerate(paths):
        stream.write(b"M 100644 :%d %s\n" % (i + 1, path.encode()))
    stream.write(b"\ndone\n")
    stream.close()
    if importer.wait() != 0:
        sys.exit("git fast-import failed")
    git(repo, "read-tree", "HEAD")
    git(repo, "update-index", "-q", "--refresh")
    git(repo, "repack", "-adq")

    # K staged files: 40 % Python, 30 % shell, 30 % YAML; even ones new, odd ones rewrites.
    py, sh = max(1, k * 4 // 10), k * 3 // 10
    staged = {"python": [], "shell": [], "yaml": []}
    taken = {lang: 0 for lang in staged}
    for i in range(k):
        lang = "python" if i < py else "shell" if i < py + sh else "yaml"
        text = makers[lang](random.Random(1000 + i), 100000 + i)
        if i % 2 == 0:
            path = f"new/{lang}/f{i:04d}{EXT[lang]}"
            os.makedirs(os.path.join(repo, os.path.dirname(path)), exist_ok=True)
        else:
            pool = by_kind[lang]
            path = pool[(taken[lang] * 7919 + 3) % len(pool)]
            taken[lang] += 1
        write(os.path.join(repo, path), text)
        staged[lang].append(path)
    if k:
        git(repo, "add", "--", *[p for files in staged.values() for p in files])

    # One unstaged edit to a tracked Python file that is not staged: still clean.
    chosen = {p for files in staged.values() for p in files}
    victim = next(p for p in reversed(by_kind["python"]) if p not in chosen)
    with open(os.path.join(repo, victim), "a") as f:
        f.write("\n\ndef unstaged(value: int) -> int:\n    return value + 1\n")

    parts = ["git diff --cached --name-only >/dev/null"]
    parts += [" ".join(LINT[lang] + files) for lang, files in staged.items() if files]
    floor = " && ".join(parts)
    if "'" in floor:
        sys.exit("the floor command must not contain single quotes")
    write(os.path.join(root, "floor.sh"), floor + "\n")
    write(os.path.join(root, "languages"), " ".join(lang for lang, files in staged.items() if files) + "\n")


if __name__ == "__main__":
    main()
