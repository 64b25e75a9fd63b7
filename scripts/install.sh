#!/usr/bin/env bash
# Installs codeguard from this checkout with `cargo install` (into ~/.cargo/bin), built the way
# scripts/release-flags.sh says: static and non-PIE on x86_64 Linux with glibc, cargo's default
# elsewhere. Extra arguments go to `cargo install` (e.g. --root DIR, --force).
# Then the new codeguard installs the pinned linters this repository's languages need
# (`codeguard tools install --detected`: ruff, shellcheck, shfmt into CODEGUARD_HOME/tools), so
# `codeguard check .` here reaches a verdict; CODEGUARD_NO_INSTALL=1 skips that step.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -a release_args # set by release-flags.sh
# shellcheck source=scripts/release-flags.sh
. scripts/release-flags.sh
cargo install --locked --path . "${release_args[@]}" "$@"

# Where cargo put the binary: --root DIR, else $CARGO_INSTALL_ROOT, else $CARGO_HOME (~/.cargo).
root="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}"
previous=""
for arg in "$@"; do
  case "$arg" in
    --root=*) root="${arg#--root=}" ;;
    *) if [ "$previous" = "--root" ]; then root="$arg"; fi ;;
  esac
  previous="$arg"
done

if [ "${CODEGUARD_NO_INSTALL:-}" = 1 ]; then
  echo "codeguard: CODEGUARD_NO_INSTALL=1: not installing the linters (codeguard tools install --detected does)" >&2
elif ! "$root/bin/codeguard" tools install --detected .; then
  echo "codeguard: installed, but some linters could not be installed (see above); run codeguard tools install --detected again when the package registry is reachable" >&2
fi
echo "codeguard: installed $root/bin/codeguard ($("$root/bin/codeguard" --version))." >&2
echo "codeguard: next, gate your coding agent: codeguard install --host claude (or codex, gemini, kimi, copilot, cursor, openhands); and git's own hooks in a repository: codeguard install --git-hooks" >&2
