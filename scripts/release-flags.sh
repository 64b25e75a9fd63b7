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
  # The functions the hook's pass-through runs (scripts/hot-functions.txt, made by
  # scripts/hot-functions.sh) go first and together in the code, so a start maps a few pages of
  # it rather than pages spread over all of it (measured: 1.45× → 1.10× /bin/true; README
  # "Performance"). Two lld mechanisms, because a Rust symbol's hash follows how the crate was
  # built (its features, the other targets built with it) while its path does not:
  # - the list's `_ZN…17h` names (legacy-mangled: this crate and its dependencies) become a
  #   linker script of input-section globs, `*(.text.<name>*)`, gathered into one output
  #   section inserted before `.text` (each function has its own section);
  # - the rest (std's v0-mangled names, whose hashes are the prebuilt std's, and C functions of
  #   the static libc) go to --symbol-ordering-file, which puts them first in `.text`.
  # Names the build does not have match nothing. Only when a trial link shows the linker is lld
  # (Rust's default here since 1.90). The files carry the list's hash, so a new list relinks.
  # CODEGUARD_NO_HOT_ORDER=1 keeps the default layout.
  _hot=$(dirname "${BASH_SOURCE[0]}")/hot-functions.txt
  if [ -f "$_hot" ] && [ "${CODEGUARD_NO_HOT_ORDER:-0}" != 1 ]; then
    _order_dir=$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)
    _order=$_order_dir/hot-functions-$(sha256sum "$_hot" | cut -c1-12)
    if [ ! -f "$_order.ld" ]; then
      grep -v '17h$' "$_hot" >"$_order.txt"
      {
        echo "SECTIONS { .text.hot : {"
        grep '^_ZN.*17h$' "$_hot" | sed 's/^/  *(.text./; s/$/*)/'
        echo "} } INSERT BEFORE .text;"
      } >"$_order.ld.tmp" && mv "$_order.ld.tmp" "$_order.ld"
    fi
    _order_flags="-C link-arg=-Wl,-T,$_order.ld -C link-arg=-Wl,--symbol-ordering-file=$_order.txt"
    _order_flags="$_order_flags -C link-arg=-Wl,--no-warn-symbol-ordering"
    _trial=$(mktemp -d)
    # shellcheck disable=SC2086 # RUSTFLAGS is a list of words, as cargo reads it
    if echo 'fn main() {}' | rustc $RUSTFLAGS $_order_flags --target "$_triple" -o "$_trial/t" - 2>/dev/null; then
      RUSTFLAGS="$RUSTFLAGS $_order_flags"
      # A generic function's instances keep their hashes in the list, and those follow the
      # profile (stripping included) and the targets built with the executable, not RUSTFLAGS:
      # the profile strips nothing and rustc strips instead, so the build scripts/hot-functions.sh
      # reads (CODEGUARD_KEEP_SYMBOLS=1) has the hashes of the one installed.
      export CARGO_PROFILE_RELEASE_STRIP=false
      [ "${CODEGUARD_KEEP_SYMBOLS:-0}" = 1 ] || RUSTFLAGS="$RUSTFLAGS -C strip=symbols"
    fi
    rm -rf "$_trial"
  fi
  # shellcheck disable=SC2034
  release_args=(--target "$_triple")
  # shellcheck disable=SC2034
  release_dir=target/$_triple/release
fi
unset _triple _libc_a _hot _order _order_dir _order_flags _trial
