#!/usr/bin/env python3
"""Renders the results of scripts/bench.sh as a markdown table.

Usage: bench-report.py RESULTS_DIR

RESULTS_DIR holds meta.txt (key=value lines) and one directory per scenario with hyperfine JSON
exports (round-N.json; the contenders named with -n) and rss.tsv (name, peak RSS in KiB). The
median of a contender is taken over the samples of all rounds pooled; a ratio is the contender's
median over the scenario's baseline median, and the "per round" range shows how far the same ratio
moved between rounds (a wide range means a noisy machine, not a precise number)."""

import glob
import json
import os
import statistics
import sys

# Scenario id, title, per-sample divisor, baseline (or a list: the slowest of them), contenders
# in display order, targets. A target is (contender, relation, reference, factor, label): "contender median ≤ factor ×
# reference median" for "<=", strictly below for "<".
BASELINE = "the scenario's baseline"
# The agent hook when the lint after each edit already proved the staged files (scripts/bench.sh
# `edit_time_lint`); "codeguard hook pre-tool-use" is measured from an empty per-file store.
EDITED = "codeguard hook pre-tool-use after edit-time linting"

SCENARIOS = [
    (
        "passthrough",
        "PreToolUse pass-through (`ls -la` payload on a pipe), per spawn",
        100,
        "/bin/true",
        ["/bin/true", "codeguard hook pre-tool-use"],
        [("codeguard hook pre-tool-use", "<=", "/bin/true", 2.0, "≤ 2× spawning `/bin/true`")],
    ),
    (
        "snapshot",
        "Snapshot of a 10,000-file index (~40 MiB) into tmpfs",
        1,
        "git checkout-index",
        ["git checkout-index", "codeguard snapshot"],
        [("codeguard snapshot", "<=", "git checkout-index", 1.0, "≤ 1× `git checkout-index -a --prefix=DIR/`")],
    ),
    (
        "real",
        "Gate on 50 staged files (20 Python, 15 shell, 15 YAML), real ruff / shellcheck / yamllint",
        1,
        ["ruff alone", "shellcheck alone", "yamllint alone"],
        [
            "ruff alone",
            "yamllint alone",
            "shellcheck alone",
            "the three linters back to back",
            "codeguard hook pre-tool-use",
            EDITED,
            "codeguard git-hook pre-commit",
            "prek run",
            "pre-commit run",
        ],
        [
            ("codeguard hook pre-tool-use", "<=", BASELINE, 1.3, "≤ 1.3× the slowest single linter"),
            ("codeguard hook pre-tool-use", "<", "prek run", 1.0, "faster than `prek run`"),
            ("codeguard hook pre-tool-use", "<", "pre-commit run", 1.0, "faster than `pre-commit run`"),
            (EDITED, "<=", "prek run", 0.2, "after edit-time linting: ≤ 0.2× `prek run`"),
            (EDITED, "<=", "codeguard hook pre-tool-use", 0.2, "after edit-time linting: ≤ 0.2× itself without"),
        ],
    ),
    (
        "noop",
        "Framework overhead: the same 50 files with `true` as every linter",
        1,
        "true ×3 back to back",
        [
            "true ×3 back to back",
            "codeguard hook pre-tool-use",
            EDITED,
            "codeguard git-hook pre-commit",
            "prek run",
            "pre-commit run",
        ],
        [
            ("codeguard hook pre-tool-use", "<", "prek run", 1.0, "less overhead than `prek run`"),
            ("codeguard hook pre-tool-use", "<", "pre-commit run", 1.0, "less overhead than `pre-commit run`"),
        ],
    ),
    (
        "backstop-ignored",
        "Backstop: a ref update it ignores (`git update-ref refs/remotes/…`), per update",
        20,
        "git update-ref ×20, no hook",
        [
            "git update-ref ×20, no hook",
            "git update-ref ×20, an empty hook (exit 0)",
            "git update-ref ×20, backstop installed",
            "git update-ref ×20, the agent session's hooks directory",
        ],
        [
            (
                "git update-ref ×20, backstop installed",
                "<=",
                "git update-ref ×20, an empty hook (exit 0)",
                1.1,
                "≤ 1.1× git with an empty reference-transaction hook",
            ),
            (
                "git update-ref ×20, the agent session's hooks directory",
                "<=",
                "git update-ref ×20, an empty hook (exit 0)",
                1.1,
                "≤ 1.1× git with an empty reference-transaction hook (session mode)",
            ),
        ],
    ),
    (
        "backstop-judged",
        "Backstop: the 50-file commit judged at the ref move, against pre-commit on the same content",
        1,
        "codeguard git-hook pre-commit",
        ["codeguard git-hook pre-commit", "codeguard git-hook reference-transaction, nothing judged before"],
        [
            (
                "codeguard git-hook reference-transaction, nothing judged before",
                "<=",
                "codeguard git-hook pre-commit",
                1.1,
                "≤ 1.1× the pre-commit gate on the same content",
            )
        ],
    ),
    (
        "rust",
        "Rust crate (40 modules), one clean edit staged, a second gate run (warm caches)",
        1,
        "cargo clippy (warm)",
        ["cargo clippy (warm)", "cargo clippy after touching the edited file", "codeguard hook pre-tool-use"],
        [("codeguard hook pre-tool-use", "<=", BASELINE, 2.0, "≤ 2× warm `cargo clippy` on the crate")],
    ),
]


def load(directory, divisor):
    """Per contender: pooled samples, per-round medians, mean CPU seconds, all divided."""
    samples, rounds, cpu = {}, [], {}
    for path in sorted(glob.glob(os.path.join(directory, "round-*.json"))):
        with open(path) as f:
            results = json.load(f)["results"]
        medians = {}
        for r in results:
            times = [t / divisor for t in r["times"]]
            samples.setdefault(r["command"], []).extend(times)
            medians[r["command"]] = statistics.median(times)
            if "user" in r and "system" in r:
                cpu.setdefault(r["command"], []).append((r["user"] + r["system"]) / divisor)
        rounds.append(medians)
    rss = {}
    rss_path = os.path.join(directory, "rss.tsv")
    if os.path.exists(rss_path):
        with open(rss_path) as f:
            for line in f:
                name, kib = line.rstrip("\n").split("\t")
                rss[name] = kib
    return samples, rounds, {k: statistics.mean(v) for k, v in cpu.items()}, rss


def duration(seconds):
    if seconds < 0.01:
        return f"{seconds * 1e3:.2f} ms"
    if seconds < 1:
        return f"{seconds * 1e3:.0f} ms" if seconds >= 0.1 else f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def mib(kib):
    try:
        return f"{int(kib) / 1024:.1f} MiB"
    except ValueError:
        return kib


def main():
    results = sys.argv[1]
    meta = {}
    with open(os.path.join(results, "meta.txt")) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            meta[key] = value
    lines = [
        f"Measured {meta.get('date', '?')} on {meta.get('machine', '?')}; load {meta.get('load', '?')}.",
        f"codeguard {meta.get('codeguard', '?')}; {meta.get('tools', '?')}.",
        f"{meta.get('rounds', '?')} rounds per comparison, samples pooled; whole run {meta.get('elapsed', '?')} s.",
        "",
        "| scenario | contender | median | ratio | ratio per round | CPU (user+sys) | peak RSS |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    times = os.path.join(results, "install", "times.tsv")
    if os.path.exists(times):
        with open(times) as f:
            phases = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        for i, (phase, secs) in enumerate(phases):
            title = "README command 1, cold, timed once" if i == 0 else ""
            lines.append(f"| {title} | {phase} | {int(secs) / 60:.1f} min | | | | |")
        limits = {"scripts/install.sh": 300, "README command 1, whole": 480}
        for phase, secs in phases:
            for start, limit in limits.items():
                if phase.startswith(start):
                    met = int(secs) <= limit
                    verdicts.append(
                        f"- install: {phase}: {int(secs)} s (goal ≤ {limit // 60} min) — **{'met' if met else 'NOT met'}**"
                    )
    for sid, title, divisor, baseline, order, targets in SCENARIOS:
        directory = os.path.join(results, sid)
        if not os.path.isdir(directory):
            continue
        samples, rounds, cpu, rss = load(directory, divisor)
        if not any(n in samples for n in (baseline if isinstance(baseline, list) else [baseline])):
            continue
        median = {name: statistics.median(v) for name, v in samples.items()}
        if isinstance(baseline, list):
            baseline = max((n for n in baseline if n in median), key=median.get)
        base = median[baseline]
        first = True
        for name in order:
            if name not in median:
                continue
            per_round = [r[name] / r[baseline] for r in rounds if name in r and baseline in r]
            spread = f"{min(per_round):.2f}–{max(per_round):.2f}" if len(per_round) > 1 else "–"
            label = f"**{name}**" if name.startswith("codeguard") else name
            lines.append(
                f"| {title if first else ''} | {label} | {duration(median[name])} | {median[name] / base:.2f}× | "
                f"{spread} | {duration(cpu[name]) if name in cpu else '–'} | {mib(rss.get(name, '–'))} |"
            )
            first = False
        for name, relation, reference, factor, label in targets:
            reference = baseline if reference == BASELINE else reference
            if name not in median or reference not in median:
                continue
            ratio = median[name] / median[reference]
            met = ratio <= factor if relation == "<=" else ratio < factor
            verdicts.append(
                f"- {title.split(' (')[0].split(':')[0]}: `{name}` {label}: "
                f"{ratio:.2f}× `{reference}` — **{'met' if met else 'NOT met'}**"
            )
    lines += ["", "Targets:", "", *verdicts]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
