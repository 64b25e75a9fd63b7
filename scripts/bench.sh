#!/usr/bin/env bash
# The benchmark harness of ARCHITECTURE.md §6: codeguard next to what users would run instead,
# side by side in one run on one machine, reported as medians, ratios and peak memory.
#
#   scripts/bench.sh                 # everything; the table goes to stdout and target/bench/table.md
#   ROUNDS=5 scripts/bench.sh        # rounds per comparison (default 5)
#   ONLY=gate scripts/bench.sh       # one scenario: passthrough, snapshot, gate or noop
#
# Scenarios (each compares its contenders within one hyperfine call per round; rounds alternate
# the contenders, so background load spreads over all of them, and the samples of all rounds are
# pooled before taking the median):
#   passthrough  `codeguard hook pre-tool-use` on an `ls -la` payload vs spawning /bin/true, both
#                spawned 100 times per sample by examples/spawn_loop.rs with the payload on a pipe
#   snapshot     a 10,000-file index materialised by codeguard vs `git checkout-index -a
#                --prefix=DIR/`, both into tmpfs (scripts/bench-snapshot.sh)
#   gate         50 clean staged files (Python, shell, YAML) checked by codeguard (the agent hook
#                on a `git commit` payload, and git's pre-commit hook), `prek run`,
#                `pre-commit run`, the three linters back to back by hand, and each linter alone
#   noop         the same with `true` as every linter: what is left is each framework's overhead
#
# Needs: bash, git, python3, cargo; installs hyperfine and GNU time with apt-get when missing, and
# the pinned tools of scripts/requirements-bench.txt into .tools/bench-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${ROUNDS:-5}
only=${ONLY:-}
out=$root/target/bench
mkdir -p "$out"
started=$(date +%s)

say() { printf '\n== %s\n' "$*" >&2; }

# --- tools ------------------------------------------------------------------------------------
if ! command -v hyperfine >/dev/null || [ ! -x /usr/bin/time ]; then
  say "installing hyperfine and GNU time (apt-get)"
  sudo_=""
  [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  $sudo_ apt-get install -y -qq hyperfine time >/dev/null
fi
venv=.tools/bench-venv
stamp="$venv/.installed-$(sha256sum scripts/requirements-bench.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  say "installing the pinned tools into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/requirements-bench.txt
  touch "$stamp"
fi
say "building codeguard (release)"
cargo build --release --locked --bin codeguard --example materialise --example spawn_loop
cg=$root/target/release/codeguard
spawn=$root/target/release/examples/spawn_loop

# --- a private world: tools first on PATH, no user git config, state inside the bench dir ------
work=$(mktemp -d "${TMPDIR:-/tmp}/codeguard-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PATH="$root/$venv/bin:$PATH"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export CODEGUARD_HOME=$work/codeguard-home PRE_COMMIT_HOME=$work/pre-commit-home PREK_HOME=$work/prek-home
results=$work/results
mkdir -p "$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }

# compare SCENARIO NAME1 CMD1 NAME2 CMD2 …: ROUNDS hyperfine calls (no shell: each command is
# split into words and executed directly), each running every contender RUNS times.
compare() {
  local scenario=$1
  shift
  local args=() r
  while [ $# -gt 0 ]; do
    args+=(-n "$1" "$2")
    shift 2
  done
  mkdir -p "$results/$scenario"
  for r in $(seq "$rounds"); do
    hyperfine -N --style basic --warmup "${WARMUP:-1}" --runs "${RUNS:-3}" \
      --export-json "$results/$scenario/round-$r.json" "${args[@]}" >&2
  done
}

# rss SCENARIO NAME STDIN CMD…: peak resident set (KiB) of the command or of its largest
# descendant, whichever is larger (GNU time's %M: wait4 semantics), the median of three runs,
# each with its stdin read from the file STDIN.
rss() {
  local scenario=$1 name=$2 input=$3 f=$work/rss.out i values=()
  shift 3
  for i in 1 2 3; do
    /usr/bin/time -f '%M' -o "$f" "$@" <"$input" >/dev/null 2>&1
    values+=("$(tail -1 "$f")")
  done
  printf '%s\t%s\n' "$name" "$(printf '%s\n' "${values[@]}" | sort -n | sed -n 2p)" >>"$results/$scenario/rss.tsv"
}

# A repository whose first commit holds the tools' configuration and with COUNT clean new files
# staged on top (scripts/gen-gate-bench-repo.py).
fixture() {
  local flavour=$1 dir=$work/$1
  python3 scripts/gen-gate-bench-repo.py "$dir" "$flavour" 50
  mkdir "$dir/repo"
  cp -a "$dir/base/." "$dir/repo/"
  git -C "$dir/repo" init -q -b main
  git -C "$dir/repo" add -A
  git -C "$dir/repo" commit -qm base
  cp -a "$dir/staged/." "$dir/repo/"
  git -C "$dir/repo" add -A
  if "$cg" trust --help >/dev/null 2>&1; then "$cg" trust "$dir/repo" >/dev/null; fi
  printf '{"tool_name":"Bash","tool_input":{"command":"git commit -m bench"},"cwd":"%s","session_id":"s","tool_use_id":"t"}\n' \
    "$dir/repo" >"$dir/commit.json"
}

# Fails the run unless codeguard checked FLAVOUR's fixture with every language PASS, the hook
# allowed the commit silently, and prek and pre-commit pass: a benchmark of a failing or skipped
# check would measure the wrong thing.
verify() {
  local flavour=$1 dir=$work/$1 report statuses
  report=$(cd "$dir/repo" && "$cg" check --staged --format json)
  statuses=$(printf '%s' "$report" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(l["language"] + "=" + l["status"] for l in d["languages"] if l["status"] != "SKIPPED"))')
  [ "$statuses" = "python=PASS shell=PASS yaml=PASS" ] || { echo "codeguard check ($flavour): $statuses" >&2; exit 1; }
  if [ -n "$("$cg" hook pre-tool-use <"$dir/commit.json" 2>&1)" ]; then
    echo "codeguard hook ($flavour) printed something: the commit was not a silent pass" >&2
    exit 1
  fi
  (cd "$dir/repo" && prek run >/dev/null && pre-commit run >/dev/null) ||
    { echo "prek / pre-commit did not pass on the $flavour fixture" >&2; exit 1; }
  echo "$flavour fixture: $statuses; hook silent; prek and pre-commit pass" >&2
}

# --- 1. pass-through --------------------------------------------------------------------------
if wanted passthrough; then
  say "pass-through: codeguard hook pre-tool-use (ls -la) vs /bin/true, 100 spawns per sample"
  printf '{"tool_name":"Bash","tool_input":{"command":"ls -la"},"cwd":"%s","session_id":"s","tool_use_id":"t"}\n' \
    "$work" >"$work/ls.json"
  RUNS=${RUNS_PASSTHROUGH:-10} WARMUP=3 compare passthrough \
    "/bin/true" "$spawn $work/ls.json 100 /bin/true" \
    "codeguard hook pre-tool-use" "$spawn $work/ls.json 100 $cg hook pre-tool-use"
  rss passthrough "/bin/true" "$work/ls.json" /bin/true
  rss passthrough "codeguard hook pre-tool-use" "$work/ls.json" "$cg" hook pre-tool-use
fi

# --- 2. snapshot ------------------------------------------------------------------------------
if wanted snapshot; then
  say "snapshot: 10,000-file index, codeguard vs git checkout-index"
  RUNS=${RUNS_SNAPSHOT:-11} BUILT=1 RESULTS=$results/snapshot scripts/bench-snapshot.sh >&2
fi

# --- 3. and 4. the gate with real linters, then with no-op linters -----------------------------
gate() {
  local flavour=$1 dir=$work/$1 py sh yml
  fixture "$flavour"
  verify "$flavour"
  py=$(cd "$dir/repo" && git diff --cached --name-only -- '*.py' | tr '\n' ' ')
  sh=$(cd "$dir/repo" && git diff --cached --name-only -- '*.sh' | tr '\n' ' ')
  yml=$(cd "$dir/repo" && git diff --cached --name-only -- '*.yml' | tr '\n' ' ')
  local contenders=(
    "codeguard hook pre-tool-use" "$spawn $dir/commit.json 1 $cg hook pre-tool-use"
    "codeguard git-hook pre-commit" "$cg git-hook pre-commit"
    "prek run" "prek run"
    "pre-commit run" "pre-commit run"
  )
  if [ "$flavour" = real ]; then
    local ruff="ruff check --output-format=concise --no-cache" shellcheck="shellcheck --severity=warning --format=gcc"
    local yamllint="yamllint --format parsable --strict"
    contenders+=(
      "ruff alone" "$ruff $py"
      "shellcheck alone" "$shellcheck $sh"
      "yamllint alone" "$yamllint $yml"
      "the three linters back to back" "sh -c '$ruff $py; $shellcheck $sh; $yamllint $yml'"
    )
  else
    contenders+=("true ×3 back to back" "sh -c '/bin/true $py; /bin/true $sh; /bin/true $yml'")
  fi
  (cd "$dir/repo" && compare "$flavour" "${contenders[@]}")
  (
    cd "$dir/repo"
    rss "$flavour" "codeguard hook pre-tool-use" "$dir/commit.json" "$cg" hook pre-tool-use
    rss "$flavour" "codeguard git-hook pre-commit" /dev/null "$cg" git-hook pre-commit
    rss "$flavour" "prek run" /dev/null prek run
    rss "$flavour" "pre-commit run" /dev/null pre-commit run
  )
}
if wanted gate; then
  say "gate: 50 staged files, real linters"
  gate real
fi
if wanted noop; then
  say "gate: 50 staged files, no-op linters (framework overhead)"
  gate noop
fi

# --- the table --------------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine=$(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
  echo "load=${load_before} before, $(cut -d' ' -f1-3 /proc/loadavg) after (1/5/15-minute load averages)"
  echo "codeguard=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+dirty'), $(rustc --version | cut -d' ' -f1-2)"
  echo "tools=prek $(prek --version | cut -d' ' -f2), pre-commit $(pre-commit --version | cut -d' ' -f2), ruff $(ruff --version | cut -d' ' -f2), shellcheck $(shellcheck --version | sed -n 's/^version: //p'), yamllint $(yamllint --version | cut -d' ' -f2), git $(git --version | cut -d' ' -f3), hyperfine $(hyperfine --version | cut -d' ' -f2)"
  echo "rounds=$rounds"
  echo "elapsed=$(($(date +%s) - started))"
} >"$results/meta.txt"
python3 scripts/bench-report.py "$results" | tee "$out/table.md"
echo "(written to target/bench/table.md)" >&2
