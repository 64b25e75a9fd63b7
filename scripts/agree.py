#!/usr/bin/env python3
"""Does `codeguard check` agree with each project's own linter, finding for finding?

Runs `codeguard check --all --lang <L> --format json` and the project's own invocation of the
same linter on real repositories cloned under $REAL_REPOS (default /tmp/real: pflag, nvm, rake,
docker-node, fastapi, commander.js — commander.js after `npm ci --ignore-scripts`), compares the
findings as (path, line, rule) multisets and prints a Markdown table; `--planted` first appends
one known-bad line to each repository (restored afterwards) so the comparison has findings to
agree on. Every row also says whether `git status` was clean afterwards.
"""
import json, os, re, subprocess, sys, tempfile, collections
ROOT = os.environ.get("REAL_REPOS", "/tmp/real")
CG = os.environ.get("CODEGUARD", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "debug", "codeguard"))
ENV = dict(os.environ, PATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".tools", "venv", "bin") + ":" + os.environ["PATH"], GOFLAGS="-mod=mod", GOPROXY="off")

def run(argv, cwd, env=ENV):
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr

def cg(repo, lang, trust=False):
    home = tempfile.mkdtemp()
    env = dict(ENV, HOME=home, CODEGUARD_HOME=home + "/.codeguard")
    if trust:
        run([CG, "trust", repo], repo, env)
    code, out = run([CG, "check", "--all", "--no-install", "--lang", lang, "--format", "json", "--timeout", "600"], repo, env)
    j = json.loads(out[out.index("{"):])
    l = j["languages"][0]
    return l["status"], l.get("reason", ""), collections.Counter((f["path"], f["line"], f.get("rule") or f["message"]) for f in l.get("findings", [])), l

CWD = ["/"]

def located(text, rule_of):
    c = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"^(?:vet: )?([^:\s][^:]*?):(\d+)(?::\d+)?(?::\s*|\s+)(\S.*)$", line)
        if m:
            r = rule_of(m.group(3))
            if r:
                path = m.group(1)
                path = os.path.relpath(path, CWD[0]) if path.startswith("/") else path.removeprefix("./")
                c[(path, int(m.group(2)), r)] += 1
    return c

def report(name, tool, status, ours, theirs, extra=""):
    same = sum((ours & theirs).values())
    only_us = ours - theirs
    only_them = theirs - ours
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=f"{ROOT}/{name}", capture_output=True, text=True).stdout.strip()
    clean = dirty == "" or (planted and dirty == "M " + PLANT.get(name, ("",))[0])
    print(f"| {name} | {tool} | {status} | {sum(theirs.values())} | {sum(ours.values())} | {same} | {sum(only_us.values())} | {sum(only_them.values())} | {'clean' if clean else 'DIRTY'} |{extra}")
    for k in list(only_us)[:3]: print("   only codeguard:", k, file=sys.stderr)
    for k in list(only_them)[:3]: print("   only project:", k, file=sys.stderr)

PLANT = {
    "pflag": ("bool.go", "\nfunc plantedVet() { fmt.Printf(\"%d\\n\", \"s\") }\n"),
    "fastapi": ("fastapi/__init__.py", "\nimport os\n"),
    "rake": ("lib/rake.rb", "\nputs 'planted'\n"),
    "commander.js": ("lib/command.js", "\nconst plantedUnused = 1;\n"),
}
planted = "--planted" in sys.argv
which = [a for a in sys.argv[1:] if not a.startswith("--")] or ["pflag", "nvm", "rake", "docker-node", "fastapi", "commander.js"]
if planted:
    for name in which:
        if name in PLANT:
            path, text = PLANT[name]
            with open(f"{ROOT}/{name}/{path}", "a") as f:
                f.write(text)
print("| repository | linter | codeguard status | project's findings | codeguard's | same | only codeguard | only project | git status |")
print("|---|---|---|---|---|---|---|---|---|")
for name in which:
    repo = f"{ROOT}/{name}"
    CWD[0] = repo
    if name == "pflag":
        st, why, ours, _ = cg(repo, "go")
        _, out = run(["go", "vet", "./..."], repo)
        theirs = located(out, lambda rest: rest)
        report(name, "go vet ./...", st, ours, theirs)
    elif name == "fastapi":
        st, why, ours, _ = cg(repo, "python")
        _, out = run(["ruff", "check", "--no-fix", "--output-format=concise", "--no-cache", "."], repo)
        theirs = located(out, lambda rest: rest.split()[0].rstrip(":"))
        report(name, "ruff check .", st, ours, theirs)
    elif name == "rake":
        st, why, ours, _ = cg(repo, "ruby", trust=True)
        _, out = run(["rubocop", "--format", "emacs"], repo)
        theirs = located(out, lambda rest: (re.match(r"^[A-Z]: (?:\[[^\]]*\] )?([A-Z][A-Za-z]*/[A-Za-z0-9]+):", rest) or [None, None])[1])
        report(name, "rubocop", st, ours, theirs)
    elif name == "docker-node":
        st, why, ours, l = cg(repo, "dockerfile")
        files = l["files"]
        _, out = run(["hadolint", "--no-color"] + files, repo)
        theirs = located(out, lambda rest: rest.split()[0])
        report(name, "hadolint <each Dockerfile>", st, ours, theirs)
    elif name == "nvm":
        st, why, ours, l = cg(repo, "shell")
        theirs = collections.Counter()
        for argv in l["argv"]:
            _, out = run(argv, repo)
            theirs += located(out, lambda rest: (re.search(r"\[(SC\d+)\]$", rest) or [None, None])[1])
        report(name, "shellcheck --severity=warning (codeguard's argv)", st, ours, theirs)
    elif name == "commander.js":
        st, why, ours, _ = cg(repo, "typescript", trust=True)
        _, out = run(["npx", "--no-install", "eslint", ".", "--format", "json"], repo)
        theirs = collections.Counter()
        for f in json.loads(out[out.index("["):]):
            for m in f["messages"]:
                theirs[(os.path.relpath(f["filePath"], repo), m["line"], m.get("ruleId") or m["message"])] += 1
        report(name, "eslint . (the project's)", st, ours, theirs)
    print(f"   reason: {why[:200]}", file=sys.stderr)
if planted:
    for name in which:
        if name in PLANT:
            subprocess.run(["git", "checkout", "--", PLANT[name][0]], cwd=f"{ROOT}/{name}")
