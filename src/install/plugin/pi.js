// pi's extension events: a `tool_call` answered `{block, reason}` never runs, and the reason is
// the tool's result the model receives; context after an edit is appended to the tool's result;
// the session's and the prompt's context go to the model as a message of their own, after the
// prompt.
export default function codeguardExtension(pi) {
  let session = "";
  let sessionContext = [];
  const cwdOf = (ctx) => (ctx && ctx.cwd) || process.cwd();
  pi.on("session_start", async (event, ctx) => {
    session = (ctx && ctx.sessionManager && typeof ctx.sessionManager.getSessionId === "function"
      && ctx.sessionManager.getSessionId()) || `pi-${process.pid}`;
    const answer = await codeguard("SessionStart", "", {
      session_id: session, cwd: cwdOf(ctx), source: (event && event.reason) || "startup",
    });
    sessionContext = answer.context;
  });
  pi.on("before_agent_start", async (event, ctx) => {
    const answer = await codeguard("UserPromptSubmit", "", {
      session_id: session, cwd: cwdOf(ctx), prompt: (event && event.prompt) || "",
    });
    const context = [...sessionContext, ...answer.context];
    sessionContext = [];
    if (context.length) {
      return { message: { customType: "codeguard", content: context.join("\n\n"), display: false } };
    }
  });
  pi.on("tool_call", async (event, ctx) => {
    const answer = await codeguard("PreToolUse", event.toolName, {
      session_id: session, tool_use_id: event.toolCallId, cwd: cwdOf(ctx), tool_name: event.toolName,
      tool_input: event.input || {},
    });
    if (answer.block) return { block: true, reason: answer.block };
  });
  pi.on("tool_result", async (event, ctx) => {
    const answer = await codeguard("PostToolUse", event.toolName, {
      session_id: session, tool_use_id: event.toolCallId, cwd: cwdOf(ctx), tool_name: event.toolName,
      tool_input: event.input || {},
    });
    if (answer.context.length) {
      return { content: [...(event.content || []), { type: "text", text: answer.context.join("\n\n") }] };
    }
  });
  pi.on("agent_end", async (event, ctx) => {
    await codeguard("Stop", "", { session_id: session, cwd: cwdOf(ctx) });
  });
}
