#!/usr/bin/env python3
"""Renders the `matrix` scenario of scripts/bench.sh as markdown tables.

Usage: bench-table.py MATRIX_DIR    (e.g. target/bench/results/matrix, kept after every run)

MATRIX_DIR holds one directory per cell: `N-K` (K files staged in an N-file repository) and
`N-empty` (nothing staged), each with hyperfine JSON exports round-R.json (contenders named with
-n) and, for K=1, rss.tsv (name, peak RSS in KiB). meta.txt in the parent directory, when there,
gives the header. Samples of all rounds are pooled: a time is the median with [min–max] of the
pooled samples; a ratio is one median over another, with the range of the same ratio per round
in parentheses when there are several rounds (a wide range means a noisy machine)."""

import glob
import json
import os
import statistics
import sys

HOOK = "codeguard hook pre-tool-use"
# The hook when the lint after each edit already proved the staged files (bench.sh
# `edit_time_lint`); HOOK and GIT_HOOK are measured from an empty per-file store.
EDITED = "codeguard hook pre-tool-use after edit-time linting"
GIT_HOOK = "codeguard git-hook pre-commit"
# git's reference-transaction backstop on the same content made a commit, nothing judged before.
BACKSTOP = "codeguard git-hook reference-transaction, nothing judged before"
PEERS = ["prek run", "pre-commit run", "lefthook run pre-commit"]
CONTENDERS = [HOOK, EDITED, GIT_HOOK, BACKSTOP, *PEERS, "floor"]
SHORT = {HOOK: "codeguard hook", EDITED: "hook after edits", GIT_HOOK: "codeguard git-hook", BACKSTOP: "backstop",
         "prek run": "prek",
         "pre-commit run": "pre-commit", "lefthook run pre-commit": "lefthook", "floor": "floor"}
# (numerator, denominator, column title): the ratios the targets use.
RATIOS = [(HOOK, "floor", "hook / floor"), (HOOK, "prek run", "hook / prek"),
          (HOOK, "lefthook run pre-commit", "hook / lefthook"), (HOOK, "pre-commit run", "hook / pre-commit"),
          (EDITED, "prek run", "after edits / prek"), (EDITED, HOOK, "after edits / hook"),
          (BACKSTOP, GIT_HOOK, "backstop / git-hook")]


def load(directory):
    """Pooled samples and per-round medians of each contender, and the RSS file."""
    samples, rounds = {}, []
    for path in sorted(glob.glob(os.path.join(directory, "round-*.json"))):
        with open(path) as f:
            results = json.load(f)["results"]
        medians = {}
        for r in results:
            samples.setdefault(r["command"], []).extend(r["times"])
            medians[r["command"]] = statistics.median(r["times"])
        rounds.append(medians)
    rss = {}
    path = os.path.join(directory, "rss.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                name, kib = line.rstrip("\n").split("\t")
                rss[name] = kib
    return samples, rounds, rss


def ms(seconds):
    v = seconds * 1e3
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def timing(values):
    return f"{ms(statistics.median(values))} [{ms(min(values))}–{ms(max(values))}]"


def ratio(samples, rounds, a, b):
    if a not in samples or b not in samples:
        return "–"
    text = f"{statistics.median(samples[a]) / statistics.median(samples[b]):.2f}×"
    per = [r[a] / r[b] for r in rounds if a in r and b in r]
    if len(per) > 1:
        text += f" ({min(per):.2f}–{max(per):.2f})"
    return text


def cells(root):
    """{N: {K or 'empty': directory}}, N and K as ints."""
    out = {}
    for d in glob.glob(os.path.join(root, "*-*")):
        n, _, k = os.path.basename(d).partition("-")
        if n.isdigit() and (k.isdigit() or k == "empty"):
            out.setdefault(int(n), {})[int(k) if k.isdigit() else k] = d
    return out


def main():
    root = sys.argv[1]
    meta = {}
    meta_path = os.path.join(os.path.dirname(os.path.abspath(root)), "meta.txt")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                meta[key] = value
    grid = cells(root)
    lines = []
    if meta:
        lines += [
            f"Measured {meta.get('date', '?')} on {meta.get('machine', '?')}; load {meta.get('load', '?')}.",
            f"codeguard {meta.get('codeguard', '?')}; {meta.get('tools', '?')}.",
            (
                f"{meta.get('rounds', '?')} rounds per cell, each {meta.get('runs', '?')} runs after "
                f"{meta.get('warmup', '?')} warm-up(s) ({meta.get('runs_big', '?')} after {meta.get('warmup_big', '?')} "
                f"in cells with K ≥ 1000); samples pooled; whole run {meta.get('elapsed', '?')} s."
            ),
            "",
        ]
    lines += [
        (
            "Time per run, ms: median [min–max] of the pooled samples (samples: per contender, all rounds). "
            "N tracked files, K staged."
        ),
        "",
        "| N | K | samples | " + " | ".join(SHORT[c] for c in CONTENDERS) + " |",
        "|---:|---:|---:|" + "---:|" * len(CONTENDERS),
    ]
    data = {}
    for n in sorted(grid):
        for k in sorted(x for x in grid[n] if x != "empty"):
            samples, rounds, rss = data[(n, k)] = load(grid[n][k])
            row = [timing(samples[c]) if c in samples else "–" for c in CONTENDERS]
            count = min(len(v) for v in samples.values())
            lines.append(f"| {n:,} | {k:,} | {count} | " + " | ".join(row) + " |")
    lines += [
        "",
        "Ratios of medians (per-round range in parentheses); hook = `codeguard hook pre-tool-use`.",
        "",
        "| N | K | " + " | ".join(title for _, _, title in RATIOS) + " |",
        "|---:|---:|" + "---:|" * len(RATIOS),
    ]
    for (n, k), (samples, rounds, _) in sorted(data.items()):
        lines.append(f"| {n:,} | {k:,} | " + " | ".join(ratio(samples, rounds, a, b) for a, b, _ in RATIOS) + " |")

    lines += [
        "",
        (
            "Per N: nothing staged (only the unstaged edit), codeguard's own time at K=1 (hook minus floor, "
            "medians), and the hook's peak RSS at K=1 (GNU time %M, median of 3)."
        ),
        "",
        "| N | empty: hook | empty: git status | empty: hook / git status | own time, K=1 | peak RSS, K=1 |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    own = {}
    for n in sorted(grid):
        row = ["–"] * 5
        if "empty" in grid[n]:
            samples, rounds, _ = load(grid[n]["empty"])
            if HOOK in samples:
                row[0] = timing(samples[HOOK])
            if "git status" in samples:
                row[1] = timing(samples["git status"])
            row[2] = ratio(samples, rounds, HOOK, "git status")
        if (n, 1) in data:
            samples, _, rss = data[(n, 1)]
            if HOOK in samples and "floor" in samples:
                own[n] = statistics.median(samples[HOOK]) - statistics.median(samples["floor"])
                row[3] = f"{ms(own[n])} ms"
            if HOOK in rss:
                row[4] = f"{int(rss[HOOK]) / 1024:.1f} MiB"
        lines.append(f"| {n:,} | " + " | ".join(row) + " |")
    if len(own) > 1:
        lo, hi = min(own), max(own)
        text = f"{own[hi] / own[lo]:.2f}×" if own[lo] > 0 else "– (own time at the smallest N is not positive)"
        lines += ["", f"codeguard own time (hook minus floor, K=1), N={hi:,} over N={lo:,}: {text}"]
    lines += ["", "Goals (issues 33 and 28), each from the medians above:", ""]
    lines += goals(data, own)
    print("\n".join(lines))


def goals(data, own):
    """One line per goal and cell: the ratio, and whether it is met."""
    out = []

    def line(text, value, limit):
        out.append(f"- {text}: {value:.2f}× (goal ≤ {limit}×) — **{'met' if value <= limit else 'NOT met'}**")

    def med(samples, name):
        return statistics.median(samples[name]) if name in samples else None

    for (n, k), (samples, _, _) in sorted(data.items()):
        edited, hook, prek = med(samples, EDITED), med(samples, HOOK), med(samples, "prek run")
        peers = [m for m in (med(samples, p) for p in PEERS) if m is not None]
        if k in (50, 1000) and edited and prek:
            line(f"N={n:,} K={k:,}: hook after edit-time linting / prek", edited / prek, 0.2)
        if k in (50, 1000) and edited and hook:
            line(f"N={n:,} K={k:,}: hook after edit-time linting / itself without", edited / hook, 0.2)
        if peers and (edited or hook):
            best = edited or hook
            which = "hook after edit-time linting" if edited else "hook"
            line(f"N={n:,} K={k:,}: {which} / fastest peer", best / min(peers), 0.8)
        backstop, git_hook = med(samples, BACKSTOP), med(samples, GIT_HOOK)
        if backstop and git_hook:
            line(f"N={n:,} K={k:,}: the backstop / the pre-commit gate on the same content", backstop / git_hook, 1.1)
        if k == 1 and n == 50_000 and hook and med(samples, "floor"):
            line(f"N={n:,} K=1: hook / floor", hook / med(samples, "floor"), 2.0)
    if 10_000 in own and 50_000 in own and own[10_000] > 0:
        line("codeguard own time at K=1, N=50,000 over N=10,000", own[50_000] / own[10_000], 1.3)
    return out or ["- (no cell of the goals was measured)"]


if __name__ == "__main__":
    main()
