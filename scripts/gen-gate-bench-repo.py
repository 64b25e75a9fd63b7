#!/usr/bin/env python3
"""Writes the fixture of the gate benchmark (scripts/bench.sh): the files of a repository in
which 50 new files are about to be committed, spread over Python, shell and YAML, all clean
for the linters they get, plus the configuration each contender reads.

Usage: gen-gate-bench-repo.py DIR (real|noop) [COUNT]

  DIR/base/    files for the first commit: ruff.toml, .yamllint.yml, .pre-commit-config.yaml
               (read by pre-commit and prek), and for `noop` a codeguard.json
  DIR/staged/  the COUNT (default 50) files the benchmark stages: 40 % .py, 30 % .sh, 30 % .yml

`real` configures every tool with the real linters, with the argv codeguard's registry uses
(`ruff check --output-format=concise --no-cache`, `shellcheck --severity=warning --format=gcc`,
`yamllint --format parsable --strict`); `noop` replaces each linter with `true`, so what is left
is each framework's own overhead. Deterministic: the same arguments give the same bytes."""

import json
import os
import random
import sys

LINTERS = {
    "real": {
        "python": ["ruff", "check", "--output-format=concise", "--no-cache"],
        "shell": ["shellcheck", "--severity=warning", "--format=gcc"],
        "yaml": ["yamllint", "--format", "parsable", "--strict"],
    },
    "noop": {"python": ["true"], "shell": ["true"], "yaml": ["true"]},
}

RUFF_TOML = """\
line-length = 100
target-version = "py311"

[lint]
select = ["E", "F", "W", "I", "B", "UP"]
"""

YAMLLINT = """\
---
extends: default
rules:
  line-length:
    max: 120
"""


def pre_commit_config(linters):
    """`repo: local` hooks with `language: system`: the linters found on PATH, no environments."""
    lines = ["---", "repos:", "  - repo: local", "    hooks:"]
    for lang, tag in (("python", "python"), ("shell", "shell"), ("yaml", "yaml")):
        lines += [
            f"      - id: {lang}",
            f"        name: {lang}",
            f"        entry: \"{' '.join(linters[lang])}\"",
            "        language: system",
            f"        types: [{tag}]",
        ]
    return "\n".join(lines) + "\n"


def codeguard_json(linters):
    langs = {lang: {"lint": argv + ["{files}"]} for lang, argv in linters.items()}
    return json.dumps({"languages": langs}, indent=2) + "\n"


def python_file(rng, n):
    out = [f'"""Module {n} of the benchmark fixture."""', "", "from __future__ import annotations", ""]
    out += ["import json", "from dataclasses import dataclass", "", ""]
    for k in range(12):
        a, b = rng.sample(WORDS, 2)
        out += [
            "@dataclass",
            f"class {a.title()}{b.title()}{k}:",
            f'    """A {a} with a {b}."""',
            "",
            f"    {a}: int",
            f"    {b}: str = \"{rng.getrandbits(32):x}\"",
            "",
            "    def total(self, extra: int = 0) -> int:",
            f"        return self.{a} * {rng.randint(2, 99)} + extra",
            "",
            "    def dump(self) -> str:",
            f'        return json.dumps({{"{a}": self.{a}, "{b}": self.{b}}})',
            "",
            "",
        ]
    out += [
        "def main(values: list[int]) -> int:",
        "    result = 0",
        "    for value in values:",
        "        if value % 2 == 0:",
        "            result += value",
        "    return result",
    ]
    return "\n".join(out) + "\n"


def shell_file(rng, n):
    out = ["#!/usr/bin/env bash", f"# Script {n} of the benchmark fixture.", "set -euo pipefail", ""]
    names = [f"{rng.choice(WORDS)}_{k}" for k in range(10)]
    for name in names:
        out += [
            f"{name}() {{",
            '  local target="$1"',
            f'  local count="${{2:-{rng.randint(1, 9)}}}"',
            '  if [ -d "$target" ]; then',
            f'    printf "%s %s\\n" "{name}" "$count"',
            "  else",
            '    echo "missing: $target" >&2',
            "    return 1",
            "  fi",
            "}",
            "",
        ]
    out += ['for dir in "$@"; do', f'  {names[0]} "$dir" 3', "done"]
    return "\n".join(out) + "\n"


def yaml_file(rng, n):
    out = ["---", f"name: fixture-{n}", "jobs:"]
    for k in range(15):
        a = rng.choice(WORDS)
        out += [
            f"  {a}-{k}:",
            f"    image: example/{a}:{rng.randint(1, 9)}.{rng.randint(0, 20)}",
            "    steps:",
            f"      - run: make {a}",
            f"      - run: echo {rng.getrandbits(40):x}",
            "    env:",
            f"      LEVEL: \"{rng.randint(0, 5)}\"",
        ]
    return "\n".join(out) + "\n"


WORDS = ["value", "result", "index", "config", "parser", "token", "buffer", "state", "repo", "path"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    root, flavour = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    linters = LINTERS[flavour]
    base, staged = os.path.join(root, "base"), os.path.join(root, "staged")
    write(os.path.join(base, "ruff.toml"), RUFF_TOML)
    write(os.path.join(base, ".yamllint.yml"), YAMLLINT)
    write(os.path.join(base, ".pre-commit-config.yaml"), pre_commit_config(linters))
    write(os.path.join(base, "README.md"), "Benchmark fixture.\n")
    if flavour == "noop":
        write(os.path.join(base, "codeguard.json"), codeguard_json(linters))
    rng = random.Random(9)
    py, sh = count * 4 // 10, count * 3 // 10
    for i in range(count):
        sub = f"pkg{i % 5}"
        if i < py:
            write(os.path.join(staged, "src", sub, f"mod{i:02d}.py"), python_file(rng, i))
        elif i < py + sh:
            write(os.path.join(staged, "scripts", sub, f"run{i:02d}.sh"), shell_file(rng, i))
        else:
            write(os.path.join(staged, "deploy", sub, f"job{i:02d}.yml"), yaml_file(rng, i))


if __name__ == "__main__":
    main()
