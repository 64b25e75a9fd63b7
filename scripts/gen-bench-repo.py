#!/usr/bin/env python3
"""Writes a deterministic source-like tree for the snapshot benchmark: N files in N/20
directories, about SIZE bytes each (default 10,000 files of ~4 KiB, ~40 MiB), every 50th
file executable. Usage: gen-bench-repo.py DIR [N] [SIZE]"""
import os, random, sys

root = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
size = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
rng = random.Random(42)
words = ["value", "result", "index", "config", "parser", "token", "buffer", "state", "repo", "path"]
for i in range(count):
    d = os.path.join(root, f"pkg{i // 20:03d}")
    os.makedirs(d, exist_ok=True)
    lines, length = [], 0
    while length < size:
        a, b = rng.choice(words), rng.choice(words)
        line = f"def {a}_{i}_{length}({b}): return {b} * {rng.randint(0, 1 << 30)}  # {rng.getrandbits(64):x}\n"
        lines.append(line)
        length += len(line)
    p = os.path.join(d, f"mod{i:05d}.py")
    with open(p, "w") as f:
        f.write("".join(lines))
    if i % 50 == 0:
        os.chmod(p, 0o755)
