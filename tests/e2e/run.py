"""codeguard end to end against the real host binaries.

For each host: an isolated HOME, `codeguard install --host H` and nothing else, a scripted model
server on 127.0.0.1 that makes the agent run `git commit`, and the host's own agent loop. A commit
of a staged secret must not land and the model must receive codeguard's message; a clean commit
must land. Hosts without a runnable agent loop (kimi-cli, openhands-sdk) load codeguard's hooks
through their own config loader and hook runner, and the pre-tool-use hook must deny.

Every payload a host sends to codeguard's hook command is captured (see fixtures.py): a normal run
checks that each still has the shape of its fixture in tests/fixtures/payloads/; with
`--update-fixtures` the captures are normalised and written there instead.

Usage: run.py CODEGUARD HOSTS_DIR [--update-fixtures] [HOST ...]   (HOSTS_DIR holds run.sh's installs)
Exit 0 when every selected host passed; prints one line per check. CODEGUARD_E2E_CAPTURE=DIR keeps
the raw captures in DIR (otherwise a temporary directory, removed at the end).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import fixtures

HERE = os.path.dirname(os.path.abspath(__file__))
CODEGUARD = os.path.abspath(sys.argv[1])
HOSTS_DIR = os.path.abspath(sys.argv[2])
UPDATE_FIXTURES = "--update-fixtures" in sys.argv[3:]
SELECTED = [a for a in sys.argv[3:] if a != "--update-fixtures"]
CAPTURE = os.path.abspath(os.environ.get("CODEGUARD_E2E_CAPTURE") or tempfile.mkdtemp(prefix="cg-capture-"))
SCENARIOS = []
# What codeguard's own messages start with; a bare "codeguard" could match a path or a file name.
MARK = "codeguard: "
SECRET = "".join(["AKIA", "Z7Q3K9X2M4P8V6B1"])  # noqa: FLY002 - never a whole key in the source
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "E2E",
    "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
    "GIT_COMMITTER_NAME": "E2E",
    "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
}
TIMEOUT = 120
# Hosts run.sh could not install (`CODEGUARD_E2E_LEFT_OUT`: "kimi openhands (why)").
LEFT_OUT = [w for part in os.environ.get("CODEGUARD_E2E_LEFT_OUT", "").split("; ") for w in part.split(" (")[0].split()]
FAILURES = []
EVIDENCE = {}


def say(text):
    print(f"e2e: {text}", flush=True)


def check(ok, what):
    say(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILURES.append(what)
    return ok


def read_text(path):
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read()


def read_json(path):
    text = read_text(path)
    return json.loads(text) if text.strip() else {}


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2)


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True).stdout.strip()


def make_repo(root, secret):
    repo = os.path.join(root, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    with open(os.path.join(repo, "README.txt"), "w") as f:
        f.write("hello\n")
    with open(os.path.join(repo, "app.py"), "w") as f:
        f.write("print(1)\n")  # a Python project, so session-start has a summary to give
    git(repo, "add", "README.txt", "app.py")
    git(repo, "commit", "-q", "-m", "init")
    name = "settings.txt"
    with open(os.path.join(repo, name), "w") as f:
        f.write(f"aws_access_key_id = {SECRET}\n" if secret else "nothing secret here\n")
    git(repo, "add", name)
    return os.path.realpath(repo)


def commits(repo):
    return int(git(repo, "rev-list", "--count", "HEAD"))


class ModelServer:
    def __init__(self, root, command, cwd=None):
        self.log = os.path.join(root, "model-log.jsonl")
        port_file = os.path.join(root, "model-port")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "model_server.py"), port_file, self.log, command],
                                     cwd=cwd)
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read())
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def model_saw(self, needle):
        """Whether a request after the tool call carried `needle` back to the model."""
        return any(r.get("step") == "final" and needle in json.dumps(r.get("body")) for r in self.requests())

    def first_saw(self, needle):
        """Whether the first request offering the agent's tools carried `needle` (session context)."""
        first = next((r for r in self.requests() if r.get("shell")), None)
        return bool(first) and needle in json.dumps(first.get("body"))

    def tool_called(self):
        return any(r.get("step") == "call" for r in self.requests())

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def base_env(home):
    env = {
        "HOME": home,
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_DATA_HOME": os.path.join(home, ".local/share"),
        "CODEGUARD_HOME": os.path.join(home, ".codeguard"),
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        **GIT_ENV,
    }
    return env


def hook_binary(root):
    """Where the installed hook command points: codeguard itself (hard-linked) until `capture`
    puts the capture wrapper there, after `install` and `doctor` ran."""
    path = os.path.join(root, "bin", "codeguard")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        os.link(CODEGUARD, path)
    except OSError:
        shutil.copy2(CODEGUARD, path)
    return path


def capture(root, host, label):
    """From here on the host's hook calls are captured under CAPTURE/<host>/<NN-label>/."""
    SCENARIOS.append(label)
    name = f"{len(SCENARIOS):02d}-" + "-".join(label.split())
    fixtures.capture_wrapper(os.path.join(root, "bin", "codeguard"), CODEGUARD, os.path.join(CAPTURE, host, name))


def fresh(host, secret):
    """A scenario's own root, with a home and a repository (a staged secret or a clean change)."""
    root = tempfile.mkdtemp(prefix=f"cg-e2e-{host}-")
    home = os.path.join(root, "home")
    os.makedirs(home)
    env = base_env(home)
    for package in ON_PATH.get(host, ()):
        env["PATH"] = os.path.join(HOSTS_DIR, package, "node_modules", ".bin") + os.pathsep + env["PATH"]
    return root, make_repo(root, secret), env


def doctor_checks(root, repo, env, host):
    """What `codeguard doctor --host H --format json`, run by the installed binary, reports."""
    doctor = subprocess.run([os.path.join(root, "bin", "codeguard"), "doctor", "--host", host, "--format", "json"],
                            cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    return doctor.returncode, json.loads(doctor.stdout or "{}").get("checks", [])


def install(env, host, *extra, root):
    out = subprocess.run([hook_binary(root), "install", "--host", host, *extra], env=env, capture_output=True,
                         text=True, check=False)
    check(out.returncode == 0, f"{host}: codeguard install --host {host} {' '.join(extra)}".rstrip())
    return out.stdout


def bin_of(package_dir, name):
    return os.path.join(HOSTS_DIR, package_dir, "node_modules", ".bin", name)


# Hosts with an agent loop ---------------------------------------------------------------------

def run_claude(env, repo, server):
    env = dict(env, ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-e2e-fake",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1")
    cmd = [bin_of("npm-claude-code", "claude"), "-p", "Commit the staged change.", "--allowedTools", "Bash,Write,Edit",
           "--output-format", "json", "--model", "claude-sonnet-4-5"]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def run_gemini(env, repo, server):
    # The host's own auth choice for an API key (hooks are codeguard's install, not this).
    settings = os.path.join(env["HOME"], ".gemini", "settings.json")
    current = read_json(settings)
    current.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    write_json(settings, current)
    env = dict(env, GOOGLE_GEMINI_BASE_URL=server.url, GEMINI_API_KEY="e2e-fake-key",
               GEMINI_CLI_NO_RELAUNCH="true")
    cmd = [bin_of("npm-gemini-cli", "gemini"), "-p", "Commit the staged change.", "--yolo",
           "--model", "gemini-2.5-flash", "--output-format", "json"]
    if not env.get("E2E_PROJECT") or env.get("E2E_INACTIVE"):
        # A user install applies in any folder; headless Gemini still wants the folder vouched for.
        cmd.append("--skip-trust")
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def run_codex(env, repo, server):
    codex_home = os.path.join(env["HOME"], ".codex")
    config = os.path.join(codex_home, "config.toml")
    text = read_text(config)
    # The host's own model provider, ahead of codeguard's block (root keys must precede tables).
    provider = (f'model = "gpt-5"\nmodel_provider = "e2e"\n\n[model_providers.e2e]\nname = "e2e"\n'
                f'base_url = "{server.url}/v1"\nenv_key = "E2E_API_KEY"\nwire_api = "responses"\n'
                f'supports_websockets = false\n\n')
    with open(config, "w") as f:
        f.write(provider + text)
    env = dict(env, E2E_API_KEY="sk-e2e-fake", CODEX_HOME=codex_home)
    cmd = [bin_of("npm-codex", "codex"), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
           "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def run_copilot(env, repo, server):
    # Copilot's own bring-your-own-key provider settings point it at the scripted model.
    env = dict(env, COPILOT_PROVIDER_BASE_URL=f"{server.url}/v1", COPILOT_PROVIDER_API_KEY="sk-e2e-fake",
               COPILOT_MODEL="gpt-4o", COPILOT_OFFLINE="1", COPILOT_AUTO_UPDATE="false")
    cmd = [bin_of("npm-copilot", "copilot"), "-p", "Commit the staged change.", "--allow-all-tools", "--no-ask-user"]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_qwen(env, repo, server):
    # Qwen Code runs on Node 22 (run.sh installs npm's build of it); its OpenAI-compatible
    # provider is chosen by these three variables; usage statistics off (they go to the network).
    node = os.path.join(HOSTS_DIR, "npm-node22", "node_modules", ".bin")
    env = dict(env, PATH=node + os.pathsep + env["PATH"], OPENAI_BASE_URL=f"{server.url}/v1",
               OPENAI_API_KEY="sk-e2e-fake", OPENAI_MODEL="qwen-e2e", QWEN_USAGE_STATISTICS_ENABLED="false",
               QWEN_CODE_SUPPRESS_YOLO_WARNING="1", QWEN_CODE_DISABLE_PRECONNECT="1")
    cmd = [bin_of("npm-qwen-code", "qwen"), "-p", "Commit the staged change.", "--yolo", "--output-format", "json"]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_goose(env, repo, server):
    # goose's OpenAI provider at the scripted model (OPENAI_HOST without the /v1 path), tools
    # run without asking, no keyring and no telemetry.
    env = dict(env, GOOSE_PROVIDER="openai", GOOSE_MODEL="gpt-4o-mini", OPENAI_HOST=server.url,
               OPENAI_API_KEY="sk-e2e-fake", GOOSE_MODE="auto", GOOSE_DISABLE_KEYRING="1", GOOSE_TELEMETRY_OFF="1")
    cmd = [bin_of("npm-goose", "goose-binary-linux-x64"), "run", "--no-session", "--with-builtin", "developer",
           "-t", "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def node22_path(env):
    return os.path.join(HOSTS_DIR, "npm-node22", "node_modules", ".bin") + os.pathsep + env["PATH"]


def run_pi(env, repo, server):
    # pi (on Node 22) with an OpenAI-compatible provider of its own models file; in json mode it
    # makes no other request, the variables make sure. It waits for stdin's end before it starts.
    agent = os.path.join(env["HOME"], ".pi", "agent")
    write_json(os.path.join(agent, "models.json"), {"providers": {"e2e": {
        "baseUrl": f"{server.url}/v1", "api": "openai-completions", "apiKey": "sk-e2e-fake",
        "models": [{"id": "pi-e2e"}]}}})
    env = dict(env, PATH=node22_path(env), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0",
               NO_PROXY="127.0.0.1")
    cmd = [bin_of("npm-pi", "pi"), "--mode", "json", "--no-session", "--model", "e2e/pi-e2e", "-p",
           "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_opencode_like(env, repo, server, host):
    # opencode and Kilo: an OpenAI-compatible provider in the inline config; no models fetch, no
    # update check, and npm offline (each run would install the plugin package it does not need).
    prefix = host.upper()
    config = {"provider": {"e2e": {"npm": "@ai-sdk/openai-compatible", "models": {"m": {}},
                                   "options": {"baseURL": f"{server.url}/v1", "apiKey": "sk-e2e-fake"}}}}
    env = dict(env, npm_config_offline="true", **{f"{prefix}_CONFIG_CONTENT": json.dumps(config),
               f"{prefix}_DISABLE_MODELS_FETCH": "1", f"{prefix}_DISABLE_AUTOUPDATE": "1"})
    if host == "kilo":
        env.update(KILO_NO_DAEMON="1", KILO_TELEMETRY_LEVEL="off", KILO_DISABLE_SESSION_INGEST="1",
                   KILO_DISABLE_PRESENCE="1", KILO_DISABLE_SHARE="1")
    cmd = [bin_of(f"npm-{host}", host), "run", "--auto", "--model", "e2e/m", "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_opencode(env, repo, server):
    return run_opencode_like(env, repo, server, "opencode")


def run_kilo(env, repo, server):
    return run_opencode_like(env, repo, server, "kilo")


def run_continue(env, repo, server):
    # Continue CLI headless with an OpenAI-compatible model of its own config file (Bash runs
    # without asking in a headless run).
    config = os.path.join(env["HOME"], "e2e-continue.yaml")
    with open(config, "w") as f:
        f.write(f"name: e2e\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: e2e\n    provider: openai\n"
                f"    model: cn-e2e\n    apiKey: sk-e2e-fake\n    apiBase: {server.url}/v1\n    roles: [chat]\n")
    cmd = [bin_of("npm-continue", "cn"), "-p", "Commit the staged change.", "--config", config, "--auto"]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_dsh(env, repo, server):
    # dsh's headless profile (made on first use) with an openai-completions provider of its
    # settings; tools run without asking. codeguard's install found the bridge beside `dsh` on
    # PATH (ON_PATH) and inserted it in the patch layer every profile loads.
    dsh_home = os.path.join(env["HOME"], ".dsh")
    os.makedirs(dsh_home, exist_ok=True)
    with open(os.path.join(dsh_home, "settings.yaml"), "w") as f:
        f.write(f"llm-pi-ai:\n  providers:\n    e2e:\n      api: openai-completions\n      apiKeyEnv: E2E_API_KEY\n"
                f"      baseURL: {server.url}/v1\n      models:\n        - id: dsh-e2e\n"
                f"agent-default-model:\n  provider: e2e\n  model: dsh-e2e\n")
    env = dict(env, E2E_API_KEY="sk-e2e-fake", DSH_PERMISSION_MODE="danger-full-access", DSH_TELEMETRY_DISABLED="1")
    cmd = [bin_of("npm-dsh", "dsh"), "--profile", "headless", "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def run_cline(env, repo, server):
    # Cline's OpenAI-compatible provider (an entry without `updatedAt` is dropped), telemetry and
    # updates off, the local session backend (else a hub daemon outlives the run), and a proxy
    # that refuses for the feature-flag request it still makes. Auto-approval is its default.
    data = os.path.join(env["HOME"], ".cline", "data", "settings")
    write_json(os.path.join(data, "providers.json"), {"version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
               "providers": {"openai-compatible": {"settings": {
                   "provider": "openai-compatible", "apiKey": "sk-e2e-fake", "model": "cline-e2e",
                   "baseUrl": f"{server.url}/v1"}, "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}})
    write_json(os.path.join(data, "global-settings.json"), {"telemetryOptOut": True, "autoUpdateEnabled": False})
    env = dict(env, CLINE_SESSION_BACKEND_MODE="local", HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9",
               NO_PROXY="127.0.0.1,localhost")
    cmd = ["timeout", "-k", "5", str(TIMEOUT - 10), bin_of("npm-cline", "cline"), "--json", "Commit the staged change."]
    return subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


# Hosts that give no hook's words to the model but a block's reason (goose), or run none of their
# session-start or prompt hooks headless (Cline): no session-start or prompt context to look for.
NO_CONTEXT_HOSTS = ("goose", "cline", "continue")
# Hosts whose executable is not named like the host in node_modules/.bin.
BINARIES = {"goose": "goose-binary-linux-x64", "continue": "cn"}

# Hosts that send PostToolUse for their file-writing tool and deliver its context to the model.
EDIT_HOSTS = ("claude", "gemini", "copilot", "qwen", "pi", "cline", "opencode", "kilo", "dsh")
# Hosts whose model runs `apply_patch` through the shell tool, with no PostToolUse for it.
SHELL_PATCH_HOSTS = ("codex",)
# Hosts whose install gives the agent's shell codeguard's git backstop (host spec: session_env).
BACKSTOP_HOSTS = ("claude", "codex")

LOOP_HOSTS = {
    "claude": ("npm-claude-code", run_claude, []),
    "gemini": ("npm-gemini-cli", run_gemini, []),
    "codex": ("npm-codex", run_codex, []),
    "copilot": ("npm-copilot", run_copilot, []),
    "qwen": ("npm-qwen-code", run_qwen, []),
    "goose": ("npm-goose", run_goose, []),
    "pi": ("npm-pi", run_pi, []),
    "cline": ("npm-cline", run_cline, []),
    "opencode": ("npm-opencode", run_opencode, []),
    "kilo": ("npm-kilo", run_kilo, []),
    "continue": ("npm-continue", run_continue, []),
    "dsh": ("npm-dsh", run_dsh, []),
}
# Hosts whose programs must be on PATH for codeguard's install and for the host itself: dsh (its
# bridge is found beside it) on Node 22.
ON_PATH = {"dsh": ("npm-dsh", "npm-node22")}
# Hosts that run no hook of their own: `install --host H` puts codeguard's git hooks into the
# repository (`--project`), which gate the agent's commits.
GIT_GATED = ("continue",)


def loop_scenario(host, secret, extra_install=(), project=False, control=False, inactive=False):
    """One agent run; `control`: without codeguard installed (the harness must see it land);
    `inactive`: an install the host will not load — the commit lands, and doctor must say so."""
    runner = LOOP_HOSTS[host][1]
    label = (f"{host}{' project' if project else ''}{' control' if control else ''}{' inactive' if inactive else ''}"
             f" {'secret' if secret else 'clean'}")
    root, repo, env = fresh(host, secret)
    try:
        args = list(extra_install)
        if host in GIT_GATED:
            args += ["--project", repo]
        if project:
            args += ["--project", repo]
            env["E2E_PROJECT"] = "1"
        if inactive:
            env["E2E_INACTIVE"] = "1"
        out = "" if control else install(env, host, *args, root=root)
        if inactive and host == "codex":
            # The hooks as an install without trust records leaves them (codeguard before it wrote them).
            config = os.path.join(env["HOME"], ".codex", "config.toml")
            os.remove(config)
        if not control:
            doctor_code, checks = doctor_checks(root, repo, env, host)
            problems = [c for c in checks if c.get("status") == "problem"]
            if inactive and host == "gemini":
                check("inactive" in out and "--trust-folder" in out, f"{label}: the install says its hooks are inactive")
            if inactive:
                check(doctor_code == 1 and any("trust" in c.get("detail", "") for c in problems),
                      f"{label}: codeguard doctor --host {host} names the install the host will not load")
            else:
                check(doctor_code == 0 and not problems,
                      f"{label}: codeguard doctor --host {host} is healthy ({problems})")
        if not control:
            capture(root, host, label)
        before = commits(repo)
        server = ModelServer(root, "git commit -m 'add settings'")
        try:
            result = runner(env, repo, server)
        finally:
            server.stop()
        EVIDENCE[label] = {"exit": result.returncode, "stdout": result.stdout[-2000:], "stderr": result.stderr[-2000:],
                           "install": out}
        called = check(server.tool_called(), f"{label}: the agent loop ran the scripted git commit (exit {result.returncode})")
        if not called:
            say(f"  stderr: {result.stderr[-1500:]}")
            return
        after = commits(repo)
        if not control and not inactive and host not in NO_CONTEXT_HOSTS:
            seen = server.first_saw(MARK)
            EVIDENCE[label]["session_context_reached_model"] = seen
            check(seen, f"{label}: codeguard's session-start/prompt context reached the model")
        if control or inactive:
            check(after == before + 1, f"{label}: the same commit lands (the host runs no codeguard hook)")
        elif secret:
            check(after == before, f"{label}: the commit of a staged secret did not land")
            check(server.model_saw(MARK), f"{label}: the model received codeguard's message")
            check(SECRET not in result.stdout + result.stderr and not server.model_saw(SECRET),
                  f"{label}: the secret appears in no output")
        else:
            check(after == before + 1, f"{label}: the clean commit landed")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def edit_scenario(host):
    """The agent writes a Python file with an unused import; the lint result must reach it."""
    runner = LOOP_HOSTS[host][1]
    label = f"{host} edit"
    root, repo, env = fresh(host, secret=False)
    try:
        install(env, host, root=root)
        capture(root, host, label)
        server = ModelServer(root, "write:bad.py:import os\n", cwd=repo)
        try:
            result = runner(env, repo, server)
        finally:
            server.stop()
        EVIDENCE[label] = {"exit": result.returncode, "stderr": result.stderr[-2000:]}
        if check(server.tool_called() and os.path.exists(os.path.join(repo, "bad.py")),
                 f"{label}: the agent loop wrote bad.py (exit {result.returncode})"):
            check(server.model_saw("F401"), f"{label}: codeguard's lint result for the edited file reached the model")
        else:
            say(f"  stderr: {result.stderr[-1500:]}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# The settings file, in the project, that each edit host's own write tool is asked to create.
OWN_SETTINGS = {"claude": ".claude/settings.local.json", "gemini": ".gemini/settings.json"}


def own_settings_scenario(host):
    """The agent's own file-writing tool (not the shell) writes a settings file of its host that
    would switch every hook off, beside codeguard's install: the pre-tool-use hook refuses it, the
    file is not written and the model reads why."""
    runner = LOOP_HOSTS[host][1]
    label = f"{host} own settings"
    root, repo, env = fresh(host, secret=False)
    try:
        install(env, host, root=root)
        target = OWN_SETTINGS[host]
        server = ModelServer(root, f"write:{target}:" + '{"disableAllHooks": true, "hooks": {}}', cwd=repo)
        try:
            result = runner(env, repo, server)
        finally:
            server.stop()
        EVIDENCE[label] = {"exit": result.returncode, "stderr": result.stderr[-2000:]}
        if not check(server.tool_called(), f"{label}: the agent loop called its write tool (exit {result.returncode})"):
            say(f"  stderr: {result.stderr[-1500:]}")
            return
        check(not os.path.exists(os.path.join(repo, target)), f"{label}: {target} was not written")
        check(server.model_saw(MARK + "command blocked") and server.model_saw("This file write was NOT made"),
              f"{label}: the model was told the write changes codeguard's own controls")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def shell_patch_scenario(host):
    """The model edits with `apply_patch` run through the shell tool (Codex's `exec_command`),
    adding a Python file with an unused import, then runs `ls`. The host sends no PostToolUse for
    the patch, so codeguard lints its files at the next event that reaches the model: the lint
    result must arrive."""
    runner = LOOP_HOSTS[host][1]
    label = f"{host} shell apply_patch"
    root, repo, env = fresh(host, secret=False)
    try:
        install(env, host, root=root)
        capture(root, host, label)
        patch = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: bad.py\n+import os\n*** End Patch\nPATCH"
        server = ModelServer(root, "steps:" + json.dumps([patch, "ls"]), cwd=repo)
        try:
            result = runner(env, repo, server)
        finally:
            server.stop()
        calls = [r for r in server.requests() if r.get("step") == "call"]
        EVIDENCE[label] = {"exit": result.returncode, "stderr": result.stderr[-2000:]}
        if not check(len(calls) == 2 and os.path.exists(os.path.join(repo, "bad.py")),
                     f"{label}: the agent loop applied the patch through the shell and ran the next command (exit {result.returncode})"):
            say(f"  stderr: {result.stderr[-1500:]}")
            return
        needle = MARK + "[python] bad.py has lint problems"
        seen = check(server.model_saw(needle) and server.model_saw("F401"),
                     f"{label}: codeguard's lint result for the patched file reached the model")
        if seen:
            # Which call's hooks carried it: the last tool call before the message holding it.
            final = next(r for r in server.requests() if r.get("step") == "final")
            before = None
            for item in final["body"].get("input") or []:
                if item.get("type") == "function_call":
                    before = json.loads(item.get("arguments") or "{}").get("cmd")
                elif needle in json.dumps(item):
                    EVIDENCE[label]["delivered_after_call"] = before
                    EVIDENCE[label]["delivered_as"] = {"type": item.get("type"), "role": item.get("role")}
                    break
            say(f"  delivered with the hooks of: {EVIDENCE[label].get('delivered_after_call')!r} "
                f"as {EVIDENCE[label].get('delivered_as')}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def agent_run(label, what, runner, env, repo, root, script, cwd=None):
    """One agent run of the scripted `script`: the model server (stopped) and the host's result,
    or None for the result when the agent loop never made the tool call (a failed check)."""
    server = ModelServer(root, script, cwd=cwd)
    try:
        result = runner(env, repo, server)
    finally:
        server.stop()
    EVIDENCE[label] = {"exit": result.returncode, "stdout": result.stdout[-2000:], "stderr": result.stderr[-2000:]}
    if not check(server.tool_called(), f"{label}: the agent loop {what} (exit {result.returncode})"):
        say(f"  stderr: {result.stderr[-1500:]}")
        return server, None
    return server, result


def backstop_scenario(host):
    """A commit the gate cannot foresee: the agent runs a Python program that reads `git commit`
    from a file. The gate lets the program run (it commits nothing it can see); the git backstop
    that `codeguard install --host` arranged for the host's shell stops the commit of the staged
    secret at git's own door, and git's message with codeguard's findings reaches the model."""
    runner = LOOP_HOSTS[host][1]
    label = f"{host} backstop"
    root, repo, env = fresh(host, secret=True)
    try:
        out = install(env, host, root=root)
        check("git backstop" in out, f"{label}: the install arranges the git backstop for the agent's shell")
        _, checks = doctor_checks(root, repo, env, host)
        backstop = [c for c in checks if "backstop" in c.get("name", "")]
        check(bool(backstop) and all(c.get("status") == "ok" for c in backstop),
              f"{label}: codeguard doctor --host {host} reports the backstop in place ({backstop})")
        with open(os.path.join(root, "tool.py"), "w") as f:
            f.write("import subprocess, sys\n"
                    "words = open(sys.argv[1]).read().split()\n"
                    "sys.exit(subprocess.run(words).returncode)\n")
        with open(os.path.join(root, "steps.txt"), "w") as f:
            f.write("git commit -q -m release\n")
        # Not captured: the capture wrapper is another program than the one the backstop's
        # scripts name, and the gate counts only on scripts running its very binary.
        before = commits(repo)
        # Then a write the gate cannot check now, committed in the same call (only that path):
        # the gate leaves it to the backstop this session has, which lets the clean file land.
        later = "printf 'fresh\\n' > fresh.txt && git add fresh.txt && git commit -q -m fresh -- fresh.txt"
        script = "steps:" + json.dumps([f"python3 {root}/tool.py {root}/steps.txt", later])
        server, result = agent_run(label, "ran the program", runner, env, repo, root, script, cwd=repo)
        if result is None:
            return
        check(git(repo, "log", "--format=%s") .splitlines()[:1] == ["fresh"] and commits(repo) == before + 1,
              f"{label}: the commit of a staged secret did not land; the clean write-then-commit did")
        check(server.model_saw("git backstop is in place"),
              f"{label}: the gate left the write-then-commit to this session's backstop, and said so")
        check(server.model_saw("ref updates aborted by hook") and server.model_saw(MARK + "commit blocked"),
              f"{label}: git stopped it in the backstop and the model received codeguard's findings")
        check(SECRET not in result.stdout + result.stderr and not server.model_saw(SECRET),
              f"{label}: the secret appears in no output")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# Hosts whose hook can put a call to the user (host spec: ask); headless they refuse it and tell
# the model why. The other loop hosts let an agent's lint bypass through, recorded.
ASK_HOSTS = ("claude", "copilot")


def bypass_scenario(host):
    """The agent types the lint bypass itself: `git -c codeguard.skipGate=true commit` of a staged
    file ruff fails. Where the host can ask its user, the call is put to the user (headless: refused,
    and the model is told what was asked); elsewhere it lands with the linters skipped. Either way
    `codeguard state show` lists it."""
    runner = LOOP_HOSTS[host][1]
    label = f"{host} lint bypass"
    root, repo, env = fresh(host, secret=False)
    try:
        with open(os.path.join(repo, "bad.py"), "w") as f:
            f.write("import os\n")
        git(repo, "add", "bad.py")
        install(env, host, root=root)
        before = commits(repo)
        server, result = agent_run(label, "ran the bypass", runner, env, repo, root,
                                   "git -c codeguard.skipGate=true commit -m skip")
        if result is None:
            return
        shown = subprocess.run([os.path.join(root, "bin", "codeguard"), "state", "show"], cwd=repo, env=env,
                               capture_output=True, text=True, timeout=TIMEOUT, check=False).stdout
        if host in ASK_HOSTS:
            check(commits(repo) == before, f"{label}: headless, the asked commit did not land")
            check(server.model_saw(MARK + "the agent asks to commit without the linters") and server.model_saw("F401"),
                  f"{label}: the model was told what the user was asked to waive")
            check("asked " in shown, f"{label}: codeguard state show lists the question")
        else:
            check(commits(repo) == before + 1, f"{label}: the host cannot ask, so the bypass went through")
            check("inline " in shown and "cannot ask you" in shown, f"{label}: codeguard state show lists the bypass")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# Hosts run through their own loader ---------------------------------------------------------

LOADER_HOSTS = {
    # host: (venv, shell tool names the host's agent uses)
    "kimi": ("py-kimi", ["Shell"]),
    "openhands": ("py-openhands", ["terminal", "execute_bash", "bash"]),
}


def loader_scenario(host, secret):
    venv, tools = LOADER_HOSTS[host]
    python = os.path.join(HOSTS_DIR, venv, "bin", "python")
    root, repo, env = fresh(host, secret)
    try:
        out = install(env, host, root=root)
        capture(root, host, f"{host} {'secret' if secret else 'clean'}")
        # openhands-sdk's LiteLLM would fetch a price list from the network on import.
        env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", OPENHANDS_SUPPRESS_BANNER="1")
        before = commits(repo)
        # The secret run also fires the host's other events, so each of its payloads is captured.
        events = ["events"] if secret else []
        result = subprocess.run([python, os.path.join(HERE, "host_loader.py"), host, ",".join(tools), "git commit -m 'add settings'",
                                 *events], cwd=repo, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
        seen_all = {}
        for line in result.stdout.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and "tool" in item:
                seen_all[item["tool"]] = item
            elif isinstance(item, dict) and "event" in item:
                check(item["ran"] >= 1, f"{host} {item['event']}: the host's hook runner ran codeguard's hook")
        for tool in tools:
            label = f"{host} {tool} {'secret' if secret else 'clean'}"
            seen = seen_all.get(tool)
            if not check(seen is not None, f"{label}: the host's loader ran"):
                say(f"  stderr: {result.stderr[-800:]}")
                continue
            EVIDENCE[label] = {"install": out, **seen}
            check(seen["loaded"] >= 1 and seen["ran"] >= 1, f"{label}: the host loaded and ran codeguard's pre-tool-use hook")
            if secret:
                check(seen["blocked"] and MARK in seen["reason"], f"{label}: the hook denies the commit, with codeguard's message")
                check(SECRET not in seen["reason"], f"{label}: the secret appears in no output")
            else:
                check(not seen["blocked"], f"{label}: the clean commit is allowed")
        check(commits(repo) == before, f"{host}: the repository is unchanged by the hook")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# aider: no hooks, every commit with --no-verify; git's own backstop is its gate ------------------

def aider_scenario(secret, backstop):
    """Real aider writes settings.py as the scripted model says (a staged AWS key, or a clean
    value) and auto-commits it with `git commit --no-verify`. With `codeguard install --git-hooks`
    in the repository, the reference-transaction backstop refuses the secret's commit (no ref
    moves, aider's output carries codeguard's report) and lets the clean one land; without it
    (`backstop` false, the control) the secret lands: no pre-commit hook runs for aider."""
    label = f"aider{'' if backstop else ' control'} {'secret' if secret else 'clean'}"
    root = tempfile.mkdtemp(prefix="cg-e2e-aider-")
    try:
        home = os.path.join(root, "home")
        repo = os.path.join(root, "repo")
        os.makedirs(home)
        os.makedirs(repo)
        env = dict(base_env(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
        git(repo, "init", "-q", "-b", "main")
        with open(os.path.join(repo, "README.md"), "w") as f:
            f.write("aider e2e\n")
        git(repo, "add", "README.md")
        git(repo, "commit", "-q", "-m", "init")
        if backstop:
            out = subprocess.run([hook_binary(root), "install", "--git-hooks"], cwd=repo, env=env, capture_output=True,
                                 text=True, timeout=TIMEOUT, check=False)
            check(out.returncode == 0, f"{label}: codeguard install --git-hooks")
        value = SECRET if secret else "not-a-secret"
        server = ModelServer(root, f"reply:settings.py\n```\nKEY = \"{value}\"\n```\n", cwd=repo)
        before = commits(repo)
        try:
            cmd = [os.path.join(HOSTS_DIR, "py-aider", "bin", "aider"), "--message", "Add the settings.", "--yes-always",
                   "--no-check-update", "--no-show-model-warnings", "--no-stream", "--no-pretty", "--no-analytics",
                   "--no-gitignore", "--model", "openai/aider-e2e", "--weak-model", "openai/aider-e2e",
                   "--openai-api-base", f"{server.url}/v1", "--openai-api-key", "sk-e2e-fake", "--edit-format", "whole",
                   "settings.py"]
            result = subprocess.run(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                    timeout=TIMEOUT, check=False)
        finally:
            server.stop()
        output = result.stdout + result.stderr
        EVIDENCE[label] = {"exit": result.returncode, "output": output[-2000:]}
        wrote = os.path.exists(os.path.join(repo, "settings.py")) and value in read_text(os.path.join(repo, "settings.py"))
        if not check(wrote, f"{label}: aider wrote the model's edit (exit {result.returncode})"):
            say(f"  output: {output[-1500:]}")
            return
        after = commits(repo)
        if secret and backstop:
            check(after == before, f"{label}: git refused aider's --no-verify commit of the secret (no ref moved)")
            check("codeguard: commit blocked" in output, f"{label}: aider's output carries codeguard's report")
        else:
            check(after > before, f"{label}: aider's commit landed")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# Packaging, validated by the hosts' own loaders ------------------------------------------------

def packaging():
    repo = os.path.dirname(os.path.dirname(HERE))
    home = tempfile.mkdtemp(prefix="cg-e2e-pack-")
    env = base_env(home)
    try:
        for target in (".claude-plugin/plugin.json", "."):
            out = subprocess.run([bin_of("npm-claude-code", "claude"), "plugin", "validate", "--strict", target], cwd=repo,
                                 env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
            check(out.returncode == 0 and "Validation passed" in out.stdout,
                  f"packaging: `claude plugin validate --strict {target}` accepts codeguard's plugin/marketplace")
        out = subprocess.run([bin_of("npm-gemini-cli", "gemini"), "extensions", "validate", "hooks/gemini"], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=TIMEOUT, check=False)
        check(out.returncode == 0 and "successfully validated" in out.stdout + out.stderr,
              "packaging: `gemini extensions validate hooks/gemini` accepts codeguard's extension")
        if "kimi" in LEFT_OUT:
            return
        probe = ("import json, pathlib; from kimi_cli.config import load_config; "
                 "c = load_config(pathlib.Path('hooks/kimi.toml')); print(json.dumps([h.event for h in c.hooks]))")
        out = subprocess.run([os.path.join(HOSTS_DIR, "py-kimi", "bin", "python"), "-c", probe], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=TIMEOUT, check=False)
        events = json.loads(out.stdout.strip() or "[]") if out.returncode == 0 else []
        check(len(events) == 5, f"packaging: kimi-cli's config loader reads hooks/kimi.toml ({events})")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def payload_fixtures(hosts):
    """Writes (--update-fixtures) or checks the fixtures of the hosts that ran."""
    if UPDATE_FIXTURES:
        for line in fixtures.update(CAPTURE, hosts):
            say(f"fixture {line}")
        return
    problems = fixtures.compare(CAPTURE, hosts)
    for problem in problems:
        check(False, f"payload fixture: {problem}")
    if hosts and not problems:
        check(True, f"payload fixtures: every payload {', '.join(hosts)} sent has its fixture's shape")


def main():
    hosts = SELECTED or [*LOOP_HOSTS, *[h for h in LOADER_HOSTS if h not in LEFT_OUT],
                         *(["aider"] if "aider" not in LEFT_OUT else []), "packaging"]
    ran = []
    for host in hosts:
        if host not in ("packaging", "aider") and host not in LOOP_HOSTS and host not in LOADER_HOSTS:
            check(False, f"{host}: no such host in this suite (known: {', '.join([*LOOP_HOSTS, *LOADER_HOSTS])})")
            continue
        if host == "packaging":
            packaging()
            continue
        if host == "aider":
            aider_scenario(secret=True, backstop=False)
            aider_scenario(secret=True, backstop=True)
            aider_scenario(secret=False, backstop=True)
            ran.append(host)
            continue
        if host in LOADER_HOSTS:
            loader_scenario(host, secret=True)
            loader_scenario(host, secret=False)
            ran.append(host)
            continue
        package = LOOP_HOSTS[host][0]
        if not os.path.exists(bin_of(package, BINARIES.get(host, host))):
            check(False, f"{host}: not installed in {HOSTS_DIR}")
            continue
        if host in ("claude", *GIT_GATED):
            loop_scenario(host, secret=True, control=True)
        loop_scenario(host, secret=True)
        loop_scenario(host, secret=False)
        if host in GIT_GATED:
            ran.append(host)
            continue
        if host in EDIT_HOSTS:
            edit_scenario(host)
        if host in OWN_SETTINGS:
            own_settings_scenario(host)
        if host in SHELL_PATCH_HOSTS:
            shell_patch_scenario(host)
        if host in BACKSTOP_HOSTS:
            backstop_scenario(host)
        bypass_scenario(host)
        if host == "codex":
            loop_scenario(host, secret=True, inactive=True)
        if host == "gemini":
            loop_scenario(host, secret=True, project=True, inactive=True)
            loop_scenario(host, secret=True, extra_install=["--trust-folder"], project=True)
            loop_scenario(host, secret=False, extra_install=["--trust-folder"], project=True)
        ran.append(host)
    # A host gated by git's hooks, and aider (no hooks), send no payload of their own.
    payload_fixtures([h for h in ran if h not in GIT_GATED and h in fixtures.HOSTS])
    if not os.environ.get("CODEGUARD_E2E_CAPTURE"):
        shutil.rmtree(CAPTURE, ignore_errors=True)
    evidence = os.environ.get("CODEGUARD_E2E_EVIDENCE")
    if evidence:
        with open(evidence, "w") as f:
            json.dump(EVIDENCE, f, indent=1)
    left_out = f"; left out: {os.environ['CODEGUARD_E2E_LEFT_OUT']}" if LEFT_OUT else ""
    if FAILURES:
        say(f"{len(FAILURES)} check(s) failed")
    else:
        say("all checks passed")
    say(f"{len(ran)} real host(s) ran: {', '.join(ran) or 'none'}{left_out}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
