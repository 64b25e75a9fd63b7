#!/usr/bin/env bash
# How codeguard's release executable is built, for every script that builds one (install.sh,
# bench.sh, bench-snapshot.sh): source it, then pass "${release_args[@]}" to `cargo build
# --release` / `cargo install` and find the binary in "$release_dir".
#
# On x86_64 Linux with glibc the executable is linked statically and without position
# independence: the hook starts on every shell command an agent types, and a static non-PIE
# executable needs neither the dynamic loader nor run-time relocations (measured: 1.5× the cost
# of spawning /bin/true, against 2.2× for the dynamic build; README "Performance"). RUSTFLAGS
# apply to the target only when a target is named, so build scripts and proc-macros stay
# dynamic. Elsewhere (macOS, musl, other architectures), without glibc's static library
# (`libc.a`, Debian's libc6-dev), or with CODEGUARD_DYNAMIC=1, cargo's defaults are kept.
# shellcheck disable=SC2034 # read by the scripts that source this file
release_args=()
# shellcheck disable=SC2034
release_dir=target/release
_triple=$(rustc -vV | sed -n 's/^host: //p')
_libc_a=$("${CC:-cc}" -print-file-name=libc.a 2>/dev/null || true)
if [ "$_triple" = x86_64-unknown-linux-gnu ] && [ "${CODEGUARD_DYNAMIC:-0}" != 1 ] && [ -f "$_libc_a" ]; then
  export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+crt-static -C relocation-model=static"
  # shellcheck disable=SC2034
  release_args=(--target "$_triple")
  # shellcheck disable=SC2034
  release_dir=target/$_triple/release
fi
unset _triple _libc_a
