#!/usr/bin/env bash
# Side-by-side: codeguard's gix snapshot vs `git checkout-index -a --prefix=DIR/` on the same
# generated 10,000-file (~40 MiB) index, both writing into the same kind of directory (tmpfs).
# Prints the median time of each, their ratio, and the peak RSS of each. git is timed as a whole
# process (start, read index, write files); codeguard as predict + materialise inside one warm
# process (its process start, ~1.5 ms, is not counted; removing the snapshot is reported apart,
# like the `rm -rf` after each checkout-index run, which is not timed either).
#
#   scripts/bench-snapshot.sh            # RUNS=7 DEST=/dev/shm PACK=1 FILES=10000 SIZE=4096
#
# RESULTS=DIR also writes DIR/round-1.json (hyperfine's export shape: each side's run times in
# seconds) and DIR/rss.tsv (name, peak RSS in KiB), which scripts/bench.sh turns into its table.
# BUILT=1 skips the cargo build (the caller built the example already); MATERIALISE=PATH uses
# that build of the example instead of target/release/examples/materialise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-7}
dest=${DEST:-/dev/shm}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
repo=$work/repo
mkdir "$repo"
git -C "$repo" init -q -b main
python3 "$here/scripts/gen-bench-repo.py" "$repo" "${FILES:-10000}" "${SIZE:-4096}"
git -C "$repo" add -A
git -C "$repo" -c gc.auto=0 -c user.name=bench -c user.email=bench@example.invalid commit -qm bench
if [ "${PACK:-1}" = 1 ]; then git -C "$repo" gc -q; fi
echo "repo: $(git -C "$repo" ls-files | wc -l) files, $(du -sh --exclude=.git "$repo" | cut -f1) worktree, $(du -sh "$repo/.git" | cut -f1) .git"
declare -a release_args # both set by release-flags.sh
declare release_dir
# shellcheck source=scripts/release-flags.sh
. "$here/scripts/release-flags.sh"
if [ "${BUILT:-0}" != 1 ]; then (cd "$here" && cargo build --release --locked "${release_args[@]}" --example materialise -q); fi
bin=${MATERIALISE:-$here/$release_dir/examples/materialise}

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

git_times=() gix_times=()
"$bin" "$repo" "$dest" >/dev/null            # warm the page cache for both
for _ in $(seq "$runs"); do
  d=$(mktemp -d -p "$dest")
  t0=$(now); git -C "$repo" checkout-index -a --prefix="$d/"; t1=$(now)
  rm -rf "$d"
  git_times+=($(( (t1 - t0) / 1000 )))
  ready=$("$bin" "$repo" "$dest" | sed -n 's/^run 1:.* ready \([0-9.]*\) ms.*/\1/p')
  gix_times+=("$(awk -v r="$ready" 'BEGIN {printf "%d", r * 1000}')")
done
git_med=$(printf '%s\n' "${git_times[@]}" | median)
gix_med=$(printf '%s\n' "${gix_times[@]}" | median)
echo "git checkout-index: median $((git_med / 1000)) ms  (runs, µs: ${git_times[*]})"
echo "codeguard snapshot: median $((gix_med / 1000)) ms  (runs, µs: ${gix_times[*]})"
awk -v a="$gix_med" -v b="$git_med" 'BEGIN {printf "ratio codeguard/git: %.2f\n", a / b}'

peak() { # peak RSS in KiB of a command
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
  else
    echo unknown
  fi
}
d=$(mktemp -d -p "$dest")
git_rss=$(peak git -C "$repo" checkout-index -a --prefix="$d/")
rm -rf "$d"
gix_rss=$(peak "$bin" "$repo" "$dest")
echo "peak RSS git checkout-index: $git_rss KiB"
echo "peak RSS codeguard snapshot: $gix_rss KiB"
if [ -n "${RESULTS:-}" ]; then
  mkdir -p "$RESULTS"
  secs() { printf '%s\n' "$@" | awk 'BEGIN {ORS=""} {printf "%s%.6f", (NR > 1 ? "," : ""), $1 / 1e6}'; }
  printf '{"results": [{"command": "git checkout-index", "times": [%s]}, {"command": "codeguard snapshot", "times": [%s]}]}\n' \
    "$(secs "${git_times[@]}")" "$(secs "${gix_times[@]}")" >"$RESULTS/round-1.json"
  printf 'git checkout-index\t%s\ncodeguard snapshot\t%s\n' "$git_rss" "$gix_rss" >>"$RESULTS/rss.tsv"
fi
"$bin" "$repo" "$dest" | sed 's/^/  /'
