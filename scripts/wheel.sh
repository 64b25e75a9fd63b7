#!/usr/bin/env bash
# Builds codeguard's wheel with maturin and proves it works: installed into a fresh virtualenv,
# its `codeguard --version` runs and `codeguard check --staged` on a tiny repository whose
# staged file holds an AWS key ends FAIL with exit 1 (README's exit-code table).
#
# CI's wheel is built with the `wheel-ci` Cargo profile (unoptimised, README "Install");
# WHEEL_PROFILE=release builds the published configuration. The Cargo target directory is
# $CODEGUARD_WHEEL_TARGET, which scripts/test.sh sets to a directory kept between runs; the tests
# of `.pre-commit-hooks.yaml` point prek's build of the same wheel at it. maturin (pinned in
# scripts/requirements-test.txt) comes from PATH: scripts/test.sh puts .tools/venv/bin first.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${CODEGUARD_WHEEL_TARGET:?the Cargo target directory for the wheel (scripts/test.sh sets it)}
profile=${WHEEL_PROFILE:-wheel-ci}
out=$target/wheels/$profile
rm -rf "$out"
start=$SECONDS
CARGO_TARGET_DIR=$target maturin build --quiet --locked --profile "$profile" --out "$out"
echo "wheel: built with profile $profile in $((SECONDS - start)) s: $(ls "$out")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$out"/codeguard-*.whl
"$tmp/venv/bin/codeguard" --version

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null CODEGUARD_HOME="$tmp/home"
git init -q -b main "$tmp/repo"
printf 'aws_access_key_id = AKIAQWERTYUIOPASDFGH\n' >"$tmp/repo/settings.txt"
git -C "$tmp/repo" add settings.txt
rc=0
"$tmp/venv/bin/codeguard" check --staged "$tmp/repo" >"$tmp/report" 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q 'aws-access-key-id' "$tmp/report"; then
  echo "error: the installed wheel's check of a staged secret ended $rc, not 1 (FAIL):" >&2
  cat "$tmp/report" >&2
  exit 1
fi
echo "wheel: installed into a fresh venv; check --staged blocked a staged secret (exit 1)"
