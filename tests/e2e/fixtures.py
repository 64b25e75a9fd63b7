"""Hook payloads captured from the real hosts, turned into `tests/fixtures/payloads/` fixtures.

run.py installs codeguard for each host through a thin wrapper (`capture_wrapper`): the host runs
the wrapper as codeguard's hook command, it keeps the payload on stdin under the capture
directory (`<host>/<scenario>/<event>.<random>`) and runs codeguard on exactly those bytes.
codeguard itself has no test-only code path for this.

After the hosts ran:
- `tests/e2e/run.sh --update-fixtures [HOST ...]` normalises one captured payload per host ×
  event (`select`, `normalise`) and writes it to `tests/fixtures/payloads/<host>/<event>.json`,
  recording its origin in the table of `tests/fixtures/README.md`;
- `fixtures.py --update|--check CAPTURE_DIR [HOST ...]` does either from raw captures kept with
  `CODEGUARD_E2E_CAPTURE=DIR`, without running a host again;
- a normal run compares each host × event the host sent with the committed fixture's shape (key
  paths and value types, `shape`) and fails with a diff when they differ, or when the host now
  sends an event whose fixture is still written from documentation: a host upgrade shows up.

Normalisation (every scenario runs under `$TMPDIR/cg-e2e-*`, with `repo/` and `home/` in it): the repository → `__CWD__` (tests/it/hosts.rs puts its own repository there), the
isolated HOME → `/home/u`, any other temporary path → `/r`; session ids → `e2e-<host>-session`,
tool-call and turn ids → fixed values, UUIDs → the nil UUID, timestamps, durations, model names and
transcript paths → fixed values. Types never change, so shapes survive normalisation.
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "payloads")
README = os.path.join(ROOT, "tests", "fixtures", "README.md")
EVENTS = ("session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "stop")
# The hosts the e2e suite runs, with their run.sh pin variable and name for people.
HOSTS = {
    "claude": ("CLAUDE_CODE", "Claude Code"),
    "gemini": ("GEMINI_CLI", "Gemini CLI"),
    "codex": ("CODEX", "Codex"),
    "copilot": ("COPILOT", "Copilot CLI"),
    "kimi": ("KIMI_CLI", "kimi-cli"),
    "openhands": ("OPENHANDS_SDK", "openhands-sdk"),
    "qwen": ("QWEN_CODE", "Qwen Code"),
    "goose": ("GOOSE", "goose"),
    "pi": ("PI", "pi"),
    "cline": ("CLINE", "Cline CLI"),
    "opencode": ("OPENCODE", "opencode"),
    "kilo": ("KILO", "Kilo Code CLI"),
    "dsh": ("DSH", "dsh"),
}
DOC = "written from documentation"
BEGIN, END = "<!-- fixtures:begin -->", "<!-- fixtures:end -->"

SESSION_KEYS = {"session_id", "sessionId", "conversation_id"}
ID_KEYS = {"tool_use_id", "tool_call_id", "toolCallId", "toolUseId", "turn_id", "turnId", "generation_id", "call_id"}
TIME_KEYS = {"timestamp", "time", "created_at", "createdAt"}
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
ISO_TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
TEMP = re.compile(r"/(?:tmp|var/folders/[^/\s\"']+/[^/\s\"']+/T)/cg-e2e-[^/\s\"']+")


def quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def capture_wrapper(path, codeguard, capture_dir):
    """Replaces the codeguard at `path` (what `install` wrote into the host's settings) with a
    script that keeps each hook payload under `capture_dir` and runs `codeguard` on it."""
    os.makedirs(capture_dir, exist_ok=True)
    script = (
        "#!/bin/sh\n"
        "# codeguard e2e: keep the payload the host sends to the hook, then run codeguard on it.\n"
        'if [ "$1" = hook ] && [ -n "$2" ]; then\n'
        f'  f=$(mktemp {quote(capture_dir)}/"$2".XXXXXX) && cat >"$f" && exec {quote(codeguard)} "$@" <"$f"\n'
        "fi\n"
        f'exec {quote(codeguard)} "$@"\n'
    )
    os.remove(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(script)
    os.chmod(path, 0o755)


def captured(capture_root):
    """{host: {event: [(scenario, payload), ...]}}, scenarios in the order they ran (run.py numbers
    their directories)."""
    out = {}
    for host in sorted(os.listdir(capture_root)) if os.path.isdir(capture_root) else []:
        for scenario in sorted(os.listdir(os.path.join(capture_root, host))):
            directory = os.path.join(capture_root, host, scenario)
            for path in sorted((os.path.join(directory, n) for n in os.listdir(directory)), key=os.path.getmtime):
                event = os.path.basename(path).rsplit(".", 1)[0]
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                try:
                    payload = json.loads(text)
                except ValueError:
                    payload = {"__not_json__": text[:200]}
                out.setdefault(host, {}).setdefault(event, []).append((scenario, payload))
    return out


def select(event, items):
    """The capture that becomes the fixture: a pre-tool-use that commits (the fixture test expects
    a block), a post-tool-use of the edit scenario's file write, else the first one."""
    def wanted(scenario, payload):
        text = json.dumps(payload)
        if event == "pre-tool-use":
            return "git commit" in text
        if event == "post-tool-use":
            return "bad.py" in text
        return True
    return next((p for s, p in items if wanted(s, p)), items[0][1])


def normalise(host, payload):
    def string(value):
        value = re.sub(TEMP.pattern + "/repo(?![^/\\s\"'])", "__CWD__", value)
        value = re.sub(TEMP.pattern + "/home(?![^/\\s\"'])", "/home/u", value)
        value = TEMP.sub("/r", value)
        value = UUID.sub("00000000-0000-0000-0000-000000000000", value)
        return ISO_TIME.sub("2026-01-01T00:00:00.000Z", value)

    def walk(key, value):
        if isinstance(value, dict):
            return {k: walk(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(key, v) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, float)):
            if key in TIME_KEYS:
                return 1767225600000
            if key and (key.endswith(("_ms", "Ms")) or "duration" in key.lower()):
                return 1
            return value
        if not isinstance(value, str):
            return value
        if key in SESSION_KEYS:
            return f"e2e-{host}-session"
        if key in ID_KEYS:
            return f"e2e-{key.replace('_', '-')}"
        if key in TIME_KEYS:
            return "2026-01-01T00:00:00.000Z"
        if key == "model":
            return "e2e-model"
        if key in ("transcript_path", "transcriptPath"):
            return "/home/u/transcript.jsonl"
        return string(value)

    return walk(None, payload)


def shape(value, prefix=""):
    """{key path: JSON type}; array items share the path `prefix[]`."""
    kind = ("null" if value is None else "bool" if isinstance(value, bool) else
            "number" if isinstance(value, (int, float)) else "string" if isinstance(value, str) else
            "array" if isinstance(value, list) else "object")
    out = {prefix or ".": kind}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(shape(v, f"{prefix}.{k}"))
    elif isinstance(value, list):
        for v in value:
            for path, t in shape(v, f"{prefix}[]").items():
                if out.get(path, t) != t:
                    t = f"{out[path]}|{t}"
                out[path] = t
    return out


def shape_diff(old, new):
    lines = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        if a is None:
            lines.append(f"  + {path}: {b}   (the host now sends it)")
        elif b is None:
            lines.append(f"  - {path}: {a}   (the host no longer sends it)")
        else:
            lines.append(f"  ~ {path}: {a} -> {b}")
    return lines


def fixture_path(host, event):
    return os.path.join(FIXTURES, host, f"{event}.json")


def read_fixture(host, event):
    with open(fixture_path(host, event), encoding="utf-8") as f:
        return json.load(f)


def versions():
    text = read_text(os.path.join(HERE, "run.sh"))
    return {host: re.search(rf"^{var}=(\S+)$", text, re.MULTILINE).group(1) for host, (var, _) in HOSTS.items()}


def provenance():
    """{(host, event): origin} from the table in tests/fixtures/README.md."""
    text = read_text(README)
    table = text.split(BEGIN, 1)[1].split(END, 1)[0] if BEGIN in text else ""
    rows = {}
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1] in EVENTS:
            rows[(cells[0], cells[1])] = cells[2]
    return rows


def write_provenance(rows):
    text = read_text(README)
    hosts = sorted(os.listdir(FIXTURES))
    lines = ["| host | event | origin |", "|---|---|---|"]
    for host in hosts:
        for event in EVENTS:
            lines.append(f"| {host} | {event} | {rows.get((host, event), DOC)} |")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(README, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)


def origin(host):
    return f"captured from {HOSTS[host][1]} {versions()[host]}"


def update(capture_root, hosts):
    """Writes the fixtures of every event `hosts` sent; returns lines for the log."""
    got = captured(capture_root)
    rows = provenance()
    log = []
    for host in hosts:
        sent = got.get(host, {})
        for event in EVENTS:
            if event not in sent:
                if not rows.get((host, event), DOC).startswith(DOC):
                    log.append(f"{host} {event}: not sent in this run; the committed capture stays")
                continue
            payload = normalise(host, select(event, sent[event]))
            os.makedirs(os.path.dirname(fixture_path(host, event)), exist_ok=True)
            with open(fixture_path(host, event), "w", encoding="utf-8") as f:
                json.dump(payload, f, indent=2, ensure_ascii=False)
                f.write("\n")
            rows[(host, event)] = origin(host)
            log.append(f"{host} {event}: {origin(host)} ({len(sent[event])} payload(s) seen)")
    write_provenance(rows)
    return log


def compare(capture_root, hosts):
    """Problems: a host × event whose captured payload's shape differs from the fixture's."""
    got = captured(capture_root)
    rows = provenance()
    problems = []
    for host in hosts:
        sent = got.get(host, {})
        for event in EVENTS:
            recorded = rows.get((host, event), DOC)
            if event not in sent:
                if not recorded.startswith(DOC):
                    problems.append(f"{host} {event}: the fixture is {recorded}, but the host sent no {event} this run")
                continue
            if recorded.startswith(DOC):
                problems.append(f"{host} {event}: the host now sends this event but the fixture is {DOC}; "
                                f"run tests/e2e/run.sh --update-fixtures {host}")
                continue
            new = shape(normalise(host, select(event, sent[event])))
            old = shape(read_fixture(host, event))
            diff = shape_diff(old, new)
            if diff:
                problems.append(f"{host} {event}: the payload's shape differs from the fixture ({recorded}); "
                                f"if the host changed it, run tests/e2e/run.sh --update-fixtures {host} "
                                f"and check the decoder:\n" + "\n".join(diff))
    return problems


def main(argv):
    """fixtures.py --update|--check CAPTURE_DIR [HOST ...]: the same, from captures kept by
    CODEGUARD_E2E_CAPTURE=DIR tests/e2e/run.sh (no host runs again)."""
    if len(argv) < 2 or argv[0] not in ("--update", "--check"):
        print(main.__doc__, file=sys.stderr)
        return 2
    hosts = argv[2:] or sorted(h for h in HOSTS if os.path.isdir(os.path.join(argv[1], h)))
    if argv[0] == "--update":
        print("\n".join(update(argv[1], hosts)))
        return 0
    problems = compare(argv[1], hosts)
    print("\n".join(problems) or f"every payload {', '.join(hosts)} sent has its fixture's shape")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
