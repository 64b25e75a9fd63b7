#!/usr/bin/env bash
# Regenerates scripts/hot-functions.txt: the functions codeguard runs when the agent hook lets a
# command through (the pass-through every shell command an agent types pays for), one symbol per
# line in the order they first ran, a legacy-mangled Rust name without its hash (`…17h`) unless
# the function is generic.
# scripts/release-flags.sh hands the list to the linker, which puts these functions next to each
# other at the start of the executable's code: starting the hook then maps a few pages of code
# instead of pages spread over all of it (README "Performance").
#
#   scripts/hot-functions.sh BINARY     BINARY: the executable alone, built with release-flags.sh's
#                                       flags and its symbols kept (CODEGUARD_KEEP_SYMBOLS=1):
#     (CODEGUARD_KEEP_SYMBOLS=1; . scripts/release-flags.sh; CARGO_TARGET_DIR=/tmp/hot \
#        cargo build --release --locked "${release_args[@]}" --bin codeguard)
#
# The list names functions by path, so it stays right while their code changes; functions added
# to the pass-through later, or std's after a compiler update, are missing from it and the
# start-up cost creeps back up: run this again. Nothing breaks either way — only the layout.
#
# Runs BINARY under valgrind's callgrind on pass-through payloads of every host and several
# commands, in a throw-away repository, and keeps every named function that ran. Needs valgrind,
# nm and python3.
set -euo pipefail

bin=${1:?usage: scripts/hot-functions.sh UNSTRIPPED_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "hot-functions.sh: valgrind is needed" >&2; exit 1; }
[ -n "$(nm "$bin" 2>/dev/null | head -1)" ] ||
  { echo "hot-functions.sh: $bin has no symbols (build it with CODEGUARD_KEEP_SYMBOLS=1, see above)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null CODEGUARD_HOME="$work/home"
repo=$work/repo
git init -q "$repo"
printf 'print("hi")\n' >"$repo/a.py"
git -C "$repo" add a.py
git -C "$repo" -c user.name=h -c user.email=h@example.com commit -qm base

commands=(
  "ls -la"
  "cargo test"
  "git status"
  "git log --oneline -5"
  "npm test && echo ok"
  "cd src && grep -rn foo . | head -5"
  "python3 -m pytest -q tests/"
)
n=0
for fixture in "$root"/tests/fixtures/payloads/*/pre-tool-use.json; do
  host=$(basename "$(dirname "$fixture")")
  for command in "${commands[@]}"; do
    n=$((n + 1))
    python3 - "$fixture" "$repo" "$command" >"$work/payload.json" <<'PY'
import json, sys
fixture, repo, command = sys.argv[1:]
payload = json.load(open(fixture))
def swap(node):
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in list(items):
        if key in ("command", "cmd") and isinstance(value, str):
            node[key] = command
        elif isinstance(value, str) and "__CWD__" in value:
            node[key] = value.replace("__CWD__", repo)
        else:
            swap(value)
swap(payload)
print(json.dumps(payload))
PY
    (cd "$repo" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$n" \
      "$bin" hook pre-tool-use --host "$host" <"$work/payload.json" >/dev/null 2>&1) || true
  done
done

python3 - "$work" "$bin" >"$work/list" <<'PY'
import glob, re, subprocess, sys
work, binary = sys.argv[1:]
symbols = set(subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.split())
def path_of(name):
    return re.sub(r"^(_ZN.*17h)[0-9a-f]{16}E$", r"\1", name)
instances = {}
for name in symbols:
    instances[path_of(name)] = instances.get(path_of(name), 0) + 1
seen, order = set(), []
for path in sorted(glob.glob(work + "/cg.*"), key=lambda p: int(p.rsplit(".", 1)[1])):
    names = {}
    for line in open(path, errors="replace"):
        m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        ident, name = m.groups()
        if name:
            names[ident] = name
        name = names.get(ident)
        if name not in symbols:
            continue
        # A legacy-mangled (this crate's and its dependencies') name keeps its path, not its
        # hash, which changes with how the crate is built: release-flags.sh globs it. Not a
        # generic one's: its path stands for every instance (dozens of sorts, hash tables),
        # most of which the pass-through never runs; it keeps its hash, and orders only a
        # build made the same way as BINARY.
        if instances[path_of(name)] == 1:
            name = path_of(name)
        if name not in seen:
            seen.add(name)
            order.append(name)
print("\n".join(order))
PY
mv "$work/list" "$root/scripts/hot-functions.txt"
echo "hot-functions.sh: $(wc -l <"$root/scripts/hot-functions.txt") functions from $n payloads" >&2
