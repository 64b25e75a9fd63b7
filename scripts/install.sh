#!/usr/bin/env bash
# Installs codeguard from this checkout with `cargo install` (into ~/.cargo/bin), built the way
# scripts/release-flags.sh says: static and non-PIE on x86_64 Linux with glibc, cargo's default
# elsewhere. Extra arguments go to `cargo install` (e.g. --root DIR, --force).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -a release_args # set by release-flags.sh
# shellcheck source=scripts/release-flags.sh
. scripts/release-flags.sh
exec cargo install --locked --path . "${release_args[@]}" "$@"
