"""Runs a host's own hook loader and runner on codeguard's installed hooks (run inside the host's
venv). For hosts with no runnable agent loop here: kimi-cli (its `kimi` entry point is only a
deprecation notice) and openhands-sdk (a library; the embedding app drives the loop).

Usage: host_loader.py HOST TOOL_NAMES COMMAND [events]   (cwd: the repository; names comma-separated)
Prints one JSON object per tool name: {"tool", "loaded": <hooks the host loaded for PreToolUse>,
"ran", "blocked": bool, "reason": <what the agent would be told>}. With `events`, it then fires the
host's other four events the way its agent loop does (session start, the prompt, a file write
through its edit tool — the file is written first — and stop), printing {"event", "ran"} for each,
so the e2e suite captures every payload the host sends.
"""

import asyncio
import json
import os
import sys

HOST, TOOLS, COMMAND = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
EVENTS = sys.argv[4:] == ["events"]
CWD = os.getcwd()
PROMPT = "Commit the staged change."
EDITED = os.path.join(CWD, "bad.py")
EDITED_TEXT = "import os\n"


def write_edited():
    with open(EDITED, "w", encoding="utf-8") as f:
        f.write(EDITED_TEXT)


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


def kimi_events():
    """As kimi-cli's `cli` (SessionStart), `KimiSoul` (UserPromptSubmit, Stop) and toolset
    (PostToolUse of its `WriteFile` tool) call the engine."""
    from kimi_cli.config import load_config
    from kimi_cli.hooks import events
    from kimi_cli.hooks.engine import HookEngine

    engine = HookEngine(load_config().hooks, cwd=CWD)
    write_edited()
    fired = [
        ("SessionStart", "startup", events.session_start(session_id="e2e", cwd=CWD, source="startup")),
        ("UserPromptSubmit", PROMPT, events.user_prompt_submit(session_id="e2e", cwd=CWD, prompt=PROMPT)),
        ("PostToolUse", "WriteFile", events.post_tool_use(
            session_id="e2e", cwd=CWD, tool_name="WriteFile",
            tool_input={"path": EDITED, "content": EDITED_TEXT, "mode": "overwrite"},
            tool_output=f"Wrote {len(EDITED_TEXT)} bytes to {EDITED}", tool_call_id="e2e-2")),
        ("Stop", "", events.stop(session_id="e2e", cwd=CWD, stop_hook_active=False)),
    ]
    for event, matcher, payload in fired:
        results = asyncio.run(engine.trigger(event, matcher_value=matcher, input_data=payload))
        print(json.dumps({"event": event, "ran": len(results)}), flush=True)


def openhands_events():
    """The `HookManager` calls an OpenHands conversation makes (its `file_editor` tool for the write)."""
    from openhands.sdk.hooks.config import HookConfig
    from openhands.sdk.hooks.manager import HookManager

    manager = HookManager(config=HookConfig.load(working_dir=CWD), working_dir=CWD, session_id="e2e")
    write_edited()
    print(json.dumps({"event": "SessionStart", "ran": len(manager.run_session_start())}), flush=True)
    print(json.dumps({"event": "UserPromptSubmit", "ran": len(manager.run_user_prompt_submit(PROMPT)[2])}), flush=True)
    edit = {"command": "create", "path": EDITED, "file_text": EDITED_TEXT}
    ran = manager.run_post_tool_use("file_editor", edit, {"output": f"File created successfully at: {EDITED}"})
    print(json.dumps({"event": "PostToolUse", "ran": len(ran)}), flush=True)
    print(json.dumps({"event": "Stop", "ran": len(manager.run_stop()[1])}), flush=True)


for name in TOOLS:
    print(json.dumps({"kimi": kimi, "openhands": openhands}[HOST](name)), flush=True)
if EVENTS:
    {"kimi": kimi_events, "openhands": openhands_events}[HOST]()
