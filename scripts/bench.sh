#!/usr/bin/env bash
# The benchmark harness of ARCHITECTURE.md §6: codeguard next to what users would run instead,
# side by side in one run on one machine, reported as medians, ratios and peak memory.
#
#   scripts/bench.sh                 # everything; the tables go to stdout, target/bench/table.md
#                                    # and target/bench/matrix.md
#   ROUNDS=5 scripts/bench.sh        # rounds per comparison (default 5; RUNS=3 runs per round)
#   ONLY=gate scripts/bench.sh       # one scenario: install, passthrough, snapshot, gate, noop,
#                                    # backstop, rust or matrix
#   NS="1000 10000" KS="1 50" ONLY=matrix scripts/bench.sh   # a smaller matrix
#   CG=/path/to/codeguard scripts/bench.sh   # that binary, no cargo build (passthrough and
#                                    # snapshot need its examples/spawn_loop and
#                                    # examples/materialise beside it, or SPAWN= / MATERIALISE=)
#   BUILT=1 scripts/bench.sh         # target/release as it is, no cargo build
#   VENV=DIR scripts/bench.sh        # the pinned tools in DIR instead of .tools/bench-venv
#
# Scenarios (install is timed once, phase by phase: README command 1 from a cold start; the others
# each compare its contenders within one hyperfine call per round; rounds alternate
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
#   backstop     git's reference-transaction hook as `install --git-hooks` writes it: a ref update
#                it ignores (`git update-ref refs/remotes/…`, 20 a sample) in a repository with the
#                hook against the same repository without any hook and with an empty one (`exit
#                0`: what git's two hook spawns per update cost whatever the hook does); and a judged commit (the gate
#                fixture's 50 staged files, made a commit with commit-tree and fed to
#                `codeguard git-hook reference-transaction prepared` as git would) against
#                `codeguard git-hook pre-commit` on the same staged content
#   rust         a committed 40-module crate without dependencies, one clean edit staged: the agent
#                hook on a `git commit` payload, a second run (clippy in the repository's stable
#                tree with its warm build directory; the check before, and the warm-up, fill it)
#                vs the developer's own warm `cargo clippy` with the same flags in the worktree,
#                as it is and after `touch` of the edited file
#   matrix       repositories of N tracked files (NS, default "1000 10000 50000 100000") with K
#                clean files staged (KS, default "1 50 1000"; cells with K > N/2 skipped) and one
#                unstaged edit (so prek and pre-commit stash it), scripts/gen-matrix-bench-repo.py,
#                cached in target/bench/repos/N-K. Whole processes: `codeguard hook pre-tool-use`
#                on a `git commit -m x` payload, `codeguard git-hook pre-commit`, the backstop
#                (`codeguard git-hook reference-transaction` on the staged content made a commit,
#                nothing judged before), `prek run`,
#                `pre-commit run`, `lefthook run pre-commit`, and the floor (`sh -c 'git diff
#                --cached --name-only; the three linters on only the staged files of their
#                type'`); per N also "empty" (nothing staged: the hook vs `git status`) and the
#                hook's peak RSS at K=1. The hook and `git status` are started through `sh -c
#                'exec … <FILE'` (stdin from a file), the same one shell the floor pays.
#                Cells with K ≥ 1000 take 5–30 s a run, so they run RUNS_BIG (default 1) times a
#                round with WARMUP_BIG (default 0) warm-ups: the check before each cell, which
#                runs every contender once, is their warm-up.
#
# Every run keeps its raw results in target/bench/results (hyperfine JSON per scenario, and
# meta.txt); the tables are rendered from them and can be rendered again from a kept copy:
#   python3 scripts/bench-report.py target/bench/results >target/bench/table.md
#   python3 scripts/bench-table.py target/bench/results/matrix >target/bench/matrix.md
# (README.md's Performance section is those two outputs, pasted unedited).
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
venv=${VENV:-.tools/bench-venv}
stamp="$venv/.installed-$(sha256sum scripts/requirements-bench.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  say "installing the pinned tools into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/requirements-bench.txt
  touch "$stamp"
fi
declare -a release_args # both set by release-flags.sh
declare release_dir
# shellcheck source=scripts/release-flags.sh
. scripts/release-flags.sh
if [ -n "${CG:-}" ]; then
  cg=$(realpath "$CG")
  say "using $cg (CG=): no build"
elif [ "${BUILT:-0}" = 1 ]; then
  cg=$root/$release_dir/codeguard
  say "using $cg (BUILT=1): no build"
else
  say "building codeguard (release)"
  # The executable alone, as `cargo install` builds it (with the examples, their dev-dependencies'
  # features would change the dependencies' symbol hashes that scripts/hot-functions.txt names).
  cargo build --release --locked "${release_args[@]}" --bin codeguard
  cargo build --release --locked "${release_args[@]}" --example materialise --example spawn_loop
  cg=$root/$release_dir/codeguard
fi
[ -x "$cg" ] || { echo "no codeguard binary at $cg" >&2; exit 1; }
# The examples next to the binary (target/<profile>/examples/), or where SPAWN= / MATERIALISE= say.
spawn=${SPAWN:-$(dirname "$cg")/examples/spawn_loop}
materialise=${MATERIALISE:-$(dirname "$cg")/examples/materialise}
need() { # need SCENARIO FILE: the scenario's helper binary is there, or the run stops before it
  [ -x "$2" ] || {
    echo "scenario $1 needs $2: cargo build --release --example $(basename "$2"), or ONLY=… another scenario" >&2
    exit 1
  }
}

# --- a private world: tools first on PATH, no user git config, state inside the bench dir ------
work=$(mktemp -d "${TMPDIR:-/tmp}/codeguard-bench.XXXXXX")
trap 'rm -rf "$work" "$out"/repos/.stale.*' EXIT
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
# split into words and executed directly), each running every contender RUNS times. A contender
# whose name has an entry in `prepare` gets that command run before each of its runs (untimed).
declare -A prepare=()
compare() {
  local scenario=$1
  shift
  local args=() preps=() any=0 r
  while [ $# -gt 0 ]; do
    args+=(-n "$1" "$2")
    preps+=(--prepare "${prepare[$1]:-true}")
    [ -z "${prepare[$1]:-}" ] || any=1
    shift 2
  done
  [ "$any" = 0 ] || args+=("${preps[@]}")
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
  local scenario=$1 name=$2 input=$3 f=$work/rss.out values=()
  shift 3
  for _ in 1 2 3; do
    /usr/bin/time -f '%M' -o "$f" "$@" <"$input" >/dev/null 2>&1
    values+=("$(tail -1 "$f")")
  done
  printf '%s\t%s\n' "$name" "$(printf '%s\n' "${values[@]}" | sort -n | sed -n 2p)" >>"$results/$scenario/rss.tsv"
}

# Per-file lint results (README "Per-file lint results"): codeguard's runs are measured from an
# empty store ("without edit-time linting": every linter runs, as before the agent's edits were
# linted) and, as "after edit-time linting", from the store the lint after each edit left.
HOOK="codeguard hook pre-tool-use"
EDITED="codeguard hook pre-tool-use after edit-time linting"
GIT_HOOK="codeguard git-hook pre-commit"
cold_store="sh -c 'rm -rf $CODEGUARD_HOME/file-results'"
prepare[$HOOK]=$cold_store
prepare[$GIT_HOOK]=$cold_store
# The backstop judging the staged content made a commit (`commit-tree`), as git runs it when a
# branch moves with no codeguard gate before it (`commit --no-verify`, a release tool): from an
# empty store and without the pre-commit hook's hand-over, so every linter runs.
BACKSTOP="codeguard git-hook reference-transaction, nothing judged before"
prepare[$BACKSTOP]="sh -c 'rm -rf $CODEGUARD_HOME/file-results $CODEGUARD_HOME/judged'"

# edit_time_lint DIR FILE…: empties the store, then runs the lint after an edit (`codeguard hook
# post-tool-use`, a Claude `Write` payload) on each FILE of DIR/repo, as an agent's edits get it;
# keeps the store it left in DIR/edited-results and sets prepare[$EDITED] to restore it. Fails
# unless `check --staged` then lints none of the FILEs (each one's clean result is reused).
edit_time_lint() {
  local dir=$1 file reused t0
  shift
  t0=$(date +%s)
  rm -rf "$CODEGUARD_HOME/file-results" "$dir/edited-results"
  for file in "$@"; do
    printf '{"session_id":"s","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/%s","content":""}}\n' \
      "$dir/repo" "$dir/repo" "$file" | (cd "$dir/repo" && "$cg" hook post-tool-use >/dev/null)
  done
  cp -a "$CODEGUARD_HOME/file-results" "$dir/edited-results"
  prepare[$EDITED]="sh -c 'rm -rf $CODEGUARD_HOME/file-results && cp -a $dir/edited-results $CODEGUARD_HOME/file-results'"
  reused=$(cd "$dir/repo" && "$cg" check --staged --format json | python3 -c '
import json, sys
print(sum(l.get("reused", 0) for l in json.load(sys.stdin)["languages"]))')
  [ "$reused" = $# ] || { echo "after edit-time linting of $# files, check --staged reused $reused" >&2; exit 1; }
  echo "edit-time lint of $# files took $(($(date +%s) - t0)) s; check --staged then lints none of them" >&2
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

# --- 0. install: README command 1 from a cold start ---------------------------------------------
# scripts/install.sh into a throw-away root with its own cold Cargo target directory, state home
# and pip cache (every dependency compiled, every managed tool downloaded), then `codeguard trust
# . && codeguard check --timeout 900 .` on this checkout (clippy's first build included), timed
# phase by phase into install/times.tsv (seconds).
if wanted install; then
  say "install: README command 1, cold (fresh Cargo target, state home and pip cache)"
  iroot=$work/install-root
  mkdir -p "$results/install"
  # As a user's shell runs it: without the RUSTFLAGS release-flags.sh exported for this script's
  # own build (they would reach the check's `cargo clippy`, proc-macros included).
  t0=$(date +%s)
  env -u RUSTFLAGS CARGO_TARGET_DIR="$work/install-target" CODEGUARD_HOME="$work/install-home" \
    PIP_CACHE_DIR="$work/install-pip" scripts/install.sh --root "$iroot" >&2
  t1=$(date +%s)
  env -u RUSTFLAGS CODEGUARD_HOME="$work/install-home" "$iroot/bin/codeguard" trust . >&2
  env -u RUSTFLAGS CODEGUARD_HOME="$work/install-home" "$iroot/bin/codeguard" check --timeout 900 . >&2 ||
    { echo "README command 1 did not end in PASS" >&2; exit 1; }
  t2=$(date +%s)
  printf 'scripts/install.sh (build, install, managed tools)\t%s\ncodeguard trust . && codeguard check --timeout 900 . (first)\t%s\nREADME command 1, whole\t%s\n' \
    $((t1 - t0)) $((t2 - t1)) $((t2 - t0)) >"$results/install/times.tsv"
  rm -rf "$work/install-target" "$work/install-home" "$work/install-pip"
fi

# --- 1. pass-through --------------------------------------------------------------------------
if wanted passthrough; then
  need passthrough "$spawn"
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
  need snapshot "$materialise"
  RUNS=${RUNS_SNAPSHOT:-11} BUILT=1 MATERIALISE=$materialise RESULTS=$results/snapshot scripts/bench-snapshot.sh >&2
fi

# --- 3. and 4. the gate with real linters, then with no-op linters -----------------------------
gate() {
  local flavour=$1 dir=$work/$1 py sh yml
  fixture "$flavour"
  verify "$flavour"
  py=$(cd "$dir/repo" && git diff --cached --name-only -- '*.py' | tr '\n' ' ')
  sh=$(cd "$dir/repo" && git diff --cached --name-only -- '*.sh' | tr '\n' ' ')
  yml=$(cd "$dir/repo" && git diff --cached --name-only -- '*.yml' | tr '\n' ' ')
  # shellcheck disable=SC2086 # the file lists are words
  edit_time_lint "$dir" $py $sh $yml
  local contenders=(
    "$HOOK" "$spawn $dir/commit.json 1 $cg hook pre-tool-use"
    "$EDITED" "$spawn $dir/commit.json 1 $cg hook pre-tool-use"
    "$GIT_HOOK" "$cg git-hook pre-commit"
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
if wanted gate || wanted noop; then need gate "$spawn"; fi
if wanted gate; then
  say "gate: 50 staged files, real linters"
  gate real
fi
if wanted noop; then
  say "gate: 50 staged files, no-op linters (framework overhead)"
  gate noop
fi

# --- 4b. the backstop: what an ignored ref update costs, and a judged commit --------------------
if wanted backstop; then
  say "backstop: an ignored ref update with and without the hook; a judged 50-file commit vs pre-commit"
  dir=$work/real
  [ -d "$dir/repo" ] || { fixture real && verify real; }
  plain=$work/backstop-plain
  rm -rf "$plain" "$work/backstop-hooked" "$work/backstop-empty"
  git clone -q "$dir/repo" "$plain"
  git clone -q "$dir/repo" "$work/backstop-hooked"
  git clone -q "$dir/repo" "$work/backstop-empty"
  printf '#!/bin/sh\nexit 0\n' >"$work/backstop-empty/.git/hooks/reference-transaction"
  chmod +x "$work/backstop-empty/.git/hooks/reference-transaction"
  (cd "$work/backstop-hooked" && "$cg" install --git-hooks >/dev/null)
  [ -x "$work/backstop-hooked/.git/hooks/reference-transaction" ] || { echo "no backstop installed" >&2; exit 1; }
  # The agent session's hooks directory (`install --host claude`, in a throw-away home), named
  # by the environment the host gives its shell.
  session=$work/backstop-session-home
  rm -rf "$session" && mkdir -p "$session"
  HOME=$session CODEGUARD_HOME=$session/.codeguard CODEGUARD_NO_INSTALL=1 "$cg" install --host claude >/dev/null
  [ -x "$session/.codeguard/git-hooks/reference-transaction" ] || { echo "no session backstop written" >&2; exit 1; }
  session_env="GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=$session/.codeguard/git-hooks"
  loop="for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do git update-ref refs/remotes/bench/x HEAD; done"
  compare backstop-ignored \
    "git update-ref ×20, no hook" "sh -c 'cd $plain && $loop'" \
    "git update-ref ×20, an empty hook (exit 0)" "sh -c 'cd $work/backstop-empty && $loop'" \
    "git update-ref ×20, backstop installed" "sh -c 'cd $work/backstop-hooked && $loop'" \
    "git update-ref ×20, the agent session's hooks directory" "sh -c 'cd $plain && export $session_env && $loop'"
  (
    cd "$dir/repo"
    tree=$(git write-tree)
    commit=$(git commit-tree "$tree" -p HEAD -m bench)
    printf '0000000000000000000000000000000000000000 %s refs/heads/bench\n' "$commit" >"$work/backstop.in"
    "$cg" git-hook reference-transaction prepared <"$work/backstop.in" ||
      { echo "the backstop did not pass the clean fixture" >&2; exit 1; }
    compare backstop-judged \
      "codeguard git-hook pre-commit" "$cg git-hook pre-commit" \
      "$BACKSTOP" "sh -c 'exec $cg git-hook reference-transaction prepared <$work/backstop.in'"
  )
fi

# --- 5. a Rust crate: the gate's clippy in a snapshot against the developer's warm clippy ---------
if wanted rust; then
  need rust "$spawn"
  say "rust: 40-module crate, one edited file staged, gate (warm) vs cargo clippy after the edit"
  dir=$work/rust
  mkdir -p "$dir/repo/src"
  printf '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n' >"$dir/repo/Cargo.toml"
  {
    for i in $(seq 0 39); do echo "mod m$i;"; done
    echo "fn main() {"
    for i in $(seq 0 39); do echo "    println!(\"{}\", m$i::total(&[1, 2, 3]));"; done
    echo "}"
  } >"$dir/repo/src/main.rs"
  for i in $(seq 0 39); do
    {
      for j in $(seq 0 19); do
        echo "/// Function $j."
        echo "pub fn f$j(values: &[u64]) -> u64 { values.iter().map(|v| v.wrapping_mul($((j + 2))).wrapping_add($((i + 1)))).sum() }"
      done
      echo "/// The sum of every function."
      echo "pub fn total(values: &[u64]) -> u64 {"
      echo "    let mut sum = 0;"
      for j in $(seq 0 19); do echo "    sum += f$j(values);"; done
      echo "    sum"
      echo "}"
    } >"$dir/repo/src/m$i.rs"
  done
  (
    cd "$dir/repo"
    git init -q -b main
    cargo generate-lockfile --offline -q
    git add -A
    git commit -qm base
    echo "// A clean edit." >>src/m0.rs
    git add src/m0.rs
    "$cg" trust "$dir/repo" >/dev/null
    printf '{"tool_name":"Bash","tool_input":{"command":"git commit -m x"},"cwd":"%s","session_id":"s","tool_use_id":"t"}\n' \
      "$dir/repo" >"$dir/commit.json"
    statuses=$("$cg" check --staged --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(l["language"] + "=" + l["status"] for l in d["languages"] if l["status"] != "SKIPPED"))')
    [ "$statuses" = "rust=PASS" ] || { echo "codeguard check (rust): $statuses" >&2; exit 1; }
    [ -z "$("$cg" hook pre-tool-use <"$dir/commit.json" 2>&1)" ] || { echo "the rust gate was not a silent pass" >&2; exit 1; }
    clippy="cargo clippy -q --locked --color never --workspace --keep-going --all-targets --message-format=short -- -D warnings"
    $clippy
    compare rust \
      "cargo clippy (warm)" "$clippy" \
      "cargo clippy after touching the edited file" "sh -c 'touch src/m0.rs && exec $clippy'" \
      "codeguard hook pre-tool-use" "$spawn $dir/commit.json 1 $cg hook pre-tool-use"
  )
fi

# --- 6. the matrix: N tracked files × K staged files, whole process against whole process -----
# Repositories (scripts/gen-matrix-bench-repo.py) are cached under target/bench/repos/N-K, keyed
# by a hash of the generator and of what it reads; `git status --porcelain` is recorded when one
# is made and must be the same before and after every cell (no contender changes a repository
# when it passes; prek and pre-commit stash the unstaged edit and restore it).
matrix_key=$(cat scripts/gen-matrix-bench-repo.py scripts/gen-gate-bench-repo.py registry/languages.json |
  sha256sum | cut -c1-16)
repo_state() { (cd "$1" && git rev-parse HEAD && git status --porcelain && git stash list); }

# matrix_repo N K: DIR of the cached repository (DIR/repo), made first when missing or stale.
matrix_repo() {
  local dir=$out/repos/$1-$2 t0
  if [ "$(cat "$dir/key" 2>/dev/null)" = "$matrix_key" ] &&
    [ "$(repo_state "$dir/repo")" = "$(cat "$dir/state")" ]; then
    echo "$dir"
    return
  fi
  mkdir -p "$out/repos"
  if [ -e "$dir" ]; then
    # Deleted when the run ends: unlinking 100,000 files takes minutes where the file system is
    # mounted with `discard`, and need not hold up the benchmark.
    say "target/bench/repos/$1-$2 is stale or was changed: making it again"
    mv "$dir" "$(mktemp -d "$out/repos/.stale.XXXXXX")"
  fi
  t0=$(date +%s)
  python3 scripts/gen-matrix-bench-repo.py "$dir" "$1" "$2" >&2
  # lefthook writes its git hook and a checksum on its first run; do that here, not in a sample.
  (cd "$dir/repo" && lefthook install >/dev/null)
  repo_state "$dir/repo" >"$dir/state"
  echo "$matrix_key" >"$dir/key"
  echo "made target/bench/repos/$1-$2 in $(($(date +%s) - t0)) s ($(du -sh "$dir/repo" | cut -f1))" >&2
  echo "$dir"
}

# The agent hook's payload, and every stdin-reading contender started the same way: through
# `sh -c 'exec …'` with stdin from a file (hyperfine 1.15 has no --input), like the floor's sh.
matrix_payload() {
  printf '{"tool_name":"Bash","tool_input":{"command":"git commit -m x"},"cwd":"%s","session_id":"s","tool_use_id":"t"}\n' \
    "$1/repo" >"$1/commit.json"
}

# matrix_verify DIR: every contender passes on the fixture and checks every language that has
# staged files (a benchmark of a failing or skipped check would measure the wrong thing).
matrix_verify() {
  local dir=$1 langs statuses want="" l o
  langs=$(cat "$dir/languages")
  for l in $langs; do want="$want $l=PASS"; done
  want=${want# }
  cd "$dir/repo"
  statuses=$("$cg" check --staged --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(l["language"] + "=" + l["status"] for l in d["languages"] if l["status"] != "SKIPPED"))')
  [ "$statuses" = "$want" ] || { echo "codeguard check ($dir): '$statuses', want '$want'" >&2; exit 1; }
  o=$("$cg" hook pre-tool-use <"$dir/commit.json" 2>&1) || { echo "codeguard hook failed ($dir): $o" >&2; exit 1; }
  [ -z "$o" ] || { echo "codeguard hook ($dir) printed something, the commit was not a silent pass: $o" >&2; exit 1; }
  o=$("$cg" git-hook pre-commit 2>&1) || { echo "codeguard git-hook pre-commit failed ($dir): $o" >&2; exit 1; }
  for l in $langs; do
    case $o in *"$l"*) ;; *) echo "codeguard git-hook pre-commit did not check $l ($dir): $o" >&2; exit 1 ;; esac
  done
  for tool in prek pre-commit; do
    o=$("$tool" run 2>&1) || { echo "$tool run failed ($dir): $o" >&2; exit 1; }
    for l in $langs; do
      printf '%s\n' "$o" | grep -Eq "^$l\.+Passed\$" || { echo "$tool run did not pass $l ($dir): $o" >&2; exit 1; }
    done
  done
  o=$(lefthook run pre-commit --no-tty 2>&1) || { echo "lefthook failed ($dir): $o" >&2; exit 1; }
  for l in $langs; do
    printf '%s\n' "$o" | grep -Eq "✔️ +$l " || { echo "lefthook did not pass $l ($dir): $o" >&2; exit 1; }
  done
  o=$(sh -c "$(cat "$dir/floor.sh")" 2>&1) || { echo "the floor failed ($dir): $o" >&2; exit 1; }
  cd "$root"
  echo "$(basename "$dir"): codeguard ${statuses:-nothing staged}; hook silent; git-hook, prek, pre-commit, lefthook and the floor pass" >&2
}

# matrix_settled DIR: the repository is as it was made (call after a cell).
matrix_settled() {
  [ "$(repo_state "$1/repo")" = "$(cat "$1/state")" ] ||
    { echo "$(basename "$1"): git status changed during the cell" >&2; exit 1; }
}

if wanted matrix; then
  say "matrix: N files × K staged files (NS=${NS:-1000 10000 50000 100000}, KS=${KS:-1 50 1000})"
  for n in ${NS:-1000 10000 50000 100000}; do
    for k in ${KS:-1 50 1000}; do
      if [ "$k" -gt $((n / 2)) ]; then continue; fi
      say "matrix: N=$n K=$k"
      dir=$(matrix_repo "$n" "$k")
      matrix_payload "$dir"
      matrix_verify "$dir"
      floor=$(cat "$dir/floor.sh")
      runs=${RUNS:-3} warmup=${WARMUP:-1}
      if [ "$k" -ge 1000 ]; then runs=${RUNS_BIG:-1} warmup=${WARMUP_BIG:-0}; fi
      # shellcheck disable=SC2046 # one word per staged file
      edit_time_lint "$dir" $(cd "$dir/repo" && git diff --cached --name-only)
      # The ref line git hands the backstop for the staged content made a commit (an object
      # nothing refers to: the repository's state is unchanged).
      (cd "$dir/repo" && printf '0000000000000000000000000000000000000000 %s refs/heads/bench\n' \
        "$(git commit-tree "$(git write-tree)" -p HEAD -m bench)" >"$dir/backstop.in" &&
        "$cg" git-hook reference-transaction prepared <"$dir/backstop.in" >/dev/null 2>&1) ||
        { echo "the backstop did not pass the clean fixture ($dir)" >&2; exit 1; }
      (cd "$dir/repo" && RUNS=$runs WARMUP=$warmup compare "matrix/$n-$k" \
        "$HOOK" "sh -c 'exec $cg hook pre-tool-use <$dir/commit.json'" \
        "$EDITED" "sh -c 'exec $cg hook pre-tool-use <$dir/commit.json'" \
        "$GIT_HOOK" "$cg git-hook pre-commit" \
        "$BACKSTOP" "sh -c 'exec $cg git-hook reference-transaction prepared <$dir/backstop.in'" \
        "prek run" "prek run" \
        "pre-commit run" "pre-commit run" \
        "lefthook run pre-commit" "lefthook run pre-commit" \
        "floor" "sh -c '$floor'")
      if [ "$k" = 1 ]; then
        (cd "$dir/repo" && rss "matrix/$n-$k" "codeguard hook pre-tool-use" "$dir/commit.json" "$cg" hook pre-tool-use)
      fi
      matrix_settled "$dir"
    done
    say "matrix: N=$n, nothing staged"
    dir=$(matrix_repo "$n" 0)
    matrix_payload "$dir"
    matrix_verify "$dir"
    (cd "$dir/repo" && compare "matrix/$n-empty" \
      "codeguard hook pre-tool-use" "sh -c 'exec $cg hook pre-tool-use <$dir/commit.json'" \
      "git status" "sh -c 'exec git status </dev/null'")
    matrix_settled "$dir"
  done
fi

# --- the table --------------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine=$(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
  echo "load=${load_before} before, $(cut -d' ' -f1-3 /proc/loadavg) after (1/5/15-minute load averages)"
  if [ -n "${CG:-}" ]; then
    echo "codeguard=$cg ($("$cg" --version)), a build given by CG= (the worktree is at $(git rev-parse --short HEAD))"
  else
    echo "codeguard=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+dirty'), $(rustc --version | cut -d' ' -f1-2)"
  fi
  echo "tools=prek $(prek --version | cut -d' ' -f2), pre-commit $(pre-commit --version | cut -d' ' -f2), lefthook $(lefthook version), ruff $(ruff --version | cut -d' ' -f2), shellcheck $(shellcheck --version | sed -n 's/^version: //p'), yamllint $(yamllint --version | cut -d' ' -f2), git $(git --version | cut -d' ' -f3), hyperfine $(hyperfine --version | cut -d' ' -f2)"
  echo "rounds=$rounds"
  echo "runs=${RUNS:-3}"
  echo "warmup=${WARMUP:-1}"
  echo "runs_big=${RUNS_BIG:-1}"
  echo "warmup_big=${WARMUP_BIG:-0}"
  echo "elapsed=$(($(date +%s) - started))"
} >"$results/meta.txt"
rm -rf "$out/results"
cp -a "$results" "$out/results"
if [ "$only" != matrix ]; then
  python3 scripts/bench-report.py "$out/results" | tee "$out/table.md"
  echo "(written to target/bench/table.md)" >&2
fi
if [ -d "$out/results/matrix" ]; then
  python3 scripts/bench-table.py "$out/results/matrix" | tee "$out/matrix.md"
  echo "(written to target/bench/matrix.md; raw results in target/bench/results)" >&2
fi
