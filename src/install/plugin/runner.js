// Runs codeguard's hooks (HOOKS, Claude's settings shape) for one event: the payload goes to the
// command's stdin as JSON; exit 2 blocks with stderr as the reason; exit 0 may print
// `hookSpecificOutput.additionalContext` (for the model). Nothing is written to the host's own
// output (a terminal interface may be drawing there).
// Before a tool runs, anything else — the program missing, a crash, no answer in time — refuses
// the call. (codeguard itself answers its own internal errors with an allow, as on every host.)
import { spawn } from "node:child_process";

const covers = (matcher, tool) =>
  !matcher || matcher === "*" || new RegExp(`^(?:${matcher})$`).test(tool || "");

function runHook(hook, input, seconds, cwd) {
  return new Promise((resolve) => {
    let done = false;
    let child = null;
    const finish = (result) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(result);
      }
    };
    const timer = setTimeout(() => {
      if (child) child.kill("SIGKILL");
      finish({ failed: `no answer in ${seconds} s` });
    }, seconds * 1000);
    try {
      // codeguard itself when the entry names its argv (no shell in between: one process per
      // call), else the entry's command through the shell, as a hook runner would.
      const [program, ...args] = Array.isArray(hook.argv) && hook.argv.length ? hook.argv : ["/bin/sh", "-c", hook.command];
      child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      finish({ failed: String(error && error.message || error) });
      return;
    }
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => { stdout += chunk; });
    child.stderr.on("data", (chunk) => { stderr += chunk; });
    child.stdin.on("error", () => {});
    child.on("error", (error) => finish({ failed: error.message }));
    child.on("close", (code, signal) =>
      finish(code === null ? { failed: `ended by ${signal}` } : { code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function codeguard(event, tool, payload) {
  const answer = { block: null, context: [] };
  const refuse = event === "PreToolUse";
  for (const group of HOOKS[event] || []) {
    if (!covers(group.matcher, tool)) continue;
    for (const hook of group.hooks || []) {
      const input = JSON.stringify({ hook_event_name: event, ...payload });
      const result = await runHook(hook, input, hook.timeout || 60, payload.cwd || process.cwd());
      if (result.failed || (result.code !== 0 && result.code !== 2)) {
        if (refuse) {
          const why = result.failed || `exit ${result.code}: ${result.stderr.trim()}`;
          answer.block = `codeguard: the gate could not judge this call (${why}), so it is refused`;
        }
        continue;
      }
      if (result.code === 2) {
        if (refuse) answer.block = result.stderr.trim() || "codeguard: blocked";
        continue;
      }
      let said = null;
      try { said = JSON.parse(result.stdout || "null"); } catch { said = null; }
      const context = said && said.hookSpecificOutput && said.hookSpecificOutput.additionalContext;
      if (typeof context === "string" && context) answer.context.push(context);
    }
  }
  return answer;
}
