#!/usr/bin/env bash
# Runs codeguard's whole test suite with the real, pinned linters it depends on.
# Installs them into a project-local virtualenv (.tools/venv) so nothing global changes.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.tools/venv
stamp="$venv/.installed-$(sha256sum scripts/requirements-test.txt | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
  touch "$stamp"
fi
# husky (a git hook manager the hook-manager tests pair codeguard with) comes from npm.
npm_dir=.tools/npm
husky_version=9.1.7
if [ ! -f "$npm_dir/.installed-husky-$husky_version" ]; then
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --no-save --no-audit --no-fund --silent "husky@$husky_version"
  touch "$npm_dir/.installed-husky-$husky_version"
fi
export PATH="$PWD/$venv/bin:$PWD/$npm_dir/node_modules/.bin:$PATH"

# zsh and fish check their own dialects; tests prove UNVERIFIED without them and the real check
# with them, and (like every real linter) fail when they are missing. Installed here as root.
# GNU parallel and git-flow are real programs of the oracle's families corpus (runners, git's
# external commands), installed the same way.
# go (go vet), rubocop and bundler (a project running rubocop through `bundle exec`) are the
# real tools of the verdict tests (tests/it/verdicts.rs), from the distribution's packages.
debs="zsh fish parallel git-flow golang-go rubocop bundler"
if ! command -v zsh >/dev/null || ! command -v fish >/dev/null || ! command -v parallel >/dev/null ||
  ! command -v git-flow >/dev/null || ! command -v go >/dev/null || ! command -v rubocop >/dev/null ||
  ! command -v bundle >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    # shellcheck disable=SC2086 # the package list is split on purpose
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $debs >/dev/null 2>&1; }; } ||
      echo "error: $debs could not all be installed; their tests will fail" >&2
  fi
fi

# The managed-tool tests (tests/it/tools.rs) install real tools with python3's pip and npm from
# PyPI and the npm registry into temporary homes, sharing download caches under
# target/tmp/{pip,npm}-cache; the terminal test needs `script` (util-linux).
ruff --version && shellcheck --version | sed -n 2p && yamllint --version && shfmt --version &&
  hadolint --version && go version && rubocop --version
# (`husky` takes no --version: any argument is the directory it installs into.)
pre-commit --version && prek --version && lefthook version &&
  echo "husky $(node -p "require('./$npm_dir/node_modules/husky/package.json').version")"
uv --version && maturin --version

# The wheel (pyproject.toml): built by maturin in a Cargo target directory kept between runs
# (outside the checkout, so a fresh clone reuses it), installed into a fresh venv and tried. The
# prek test of .pre-commit-hooks.yaml's python hook builds the same wheel in that directory
# (tests/it/pre_commit_hooks.rs), and skips or, here, fails without it.
export CODEGUARD_WHEEL_TARGET="${CODEGUARD_WHEEL_TARGET:-${XDG_CACHE_HOME:-$HOME/.cache}/codeguard/wheel-target}"
scripts/wheel.sh

cargo test --locked "$@"
# The real hosts (Claude Code, Gemini CLI, Codex, Copilot CLI, kimi-cli, openhands-sdk) against a
# scripted model: installs cached, skipped loudly when a registry is unreachable (fails under
# CODEGUARD_REQUIRE_E2E=1, which .ci/run sets).
tests/e2e/run.sh
