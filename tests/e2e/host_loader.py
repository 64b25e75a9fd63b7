"""Runs a host's own hook loader and runner on codeguard's installed hooks (run inside the host's
venv). For hosts with no runnable agent loop here: kimi-cli (its `kimi` entry point is only a
deprecation notice) and openhands-sdk (a library; the embedding app drives the loop).

Usage: host_loader.py HOST TOOL_NAMES COMMAND   (cwd: the repository; names comma-separated)
Prints one JSON object per tool name: {"tool", "loaded": <hooks the host loaded for PreToolUse>,
"ran", "blocked": bool, "reason": <what the agent would be told>}.
"""

import asyncio
import json
import os
import sys

HOST, TOOLS, COMMAND = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
CWD = os.getcwd()


def kimi(tool):
    from kimi_cli.config import load_config
    from kimi_cli.hooks import events
    from kimi_cli.hooks.engine import HookEngine

    config = load_config()  # $KIMI_SHARE_DIR/config.toml or ~/.kimi/config.toml, as kimi-cli does
    engine = HookEngine(config.hooks, cwd=CWD)
    loaded = sum(1 for h in config.hooks if h.event == "PreToolUse")
    payload = events.pre_tool_use(session_id="e2e", cwd=CWD, tool_name=tool, tool_input={"command": COMMAND},
                                  tool_call_id="e2e-1")
    results = asyncio.run(engine.trigger("PreToolUse", matcher_value=tool, input_data=payload))
    blocked = [r for r in results if r.action == "block"]
    return {"tool": tool, "loaded": loaded, "ran": len(results), "blocked": bool(blocked),
            "reason": blocked[0].reason if blocked else ""}


def openhands(tool):
    from openhands.sdk.hooks.config import HookConfig
    from openhands.sdk.hooks.manager import HookManager
    from openhands.sdk.hooks.types import HookEventType

    config = HookConfig.load(working_dir=CWD)  # .openhands/hooks.json, else ~/.openhands/hooks.json
    manager = HookManager(config=config, working_dir=CWD, session_id="e2e")
    loaded = len(config.get_hooks_for_event(HookEventType.PRE_TOOL_USE, tool))
    should_continue, results = manager.run_pre_tool_use(tool, {"command": COMMAND})
    return {"tool": tool, "loaded": loaded, "ran": len(results), "blocked": not should_continue,
            "reason": manager.get_blocking_reason(results) or ""}


for name in TOOLS:
    print(json.dumps({"kimi": kimi, "openhands": openhands}[HOST](name)), flush=True)
