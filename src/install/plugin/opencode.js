// opencode's plugin functions (Kilo's too): a block is an error thrown before the tool runs,
// whose message the model receives as the tool's result; context after an edit is appended to
// the tool's output; the session's and the prompt's context become a synthetic text part of the
// user's message (a part needs an id). Every export must be a plugin function: opencode rejects
// a file with any other export.
export const CodeguardPlugin = async ({ directory }) => {
  const calls = new Map();
  const started = new Set();
  const cwd = directory || process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      const args = (output && output.args) || {};
      calls.set(input.callID, args);
      const answer = await codeguard("PreToolUse", input.tool, {
        session_id: input.sessionID, tool_use_id: input.callID, cwd, tool_name: input.tool, tool_input: args,
      });
      if (answer.block) throw new Error(answer.block);
    },
    "tool.execute.after": async (input, output) => {
      const args = input.args || calls.get(input.callID) || {};
      calls.delete(input.callID);
      const answer = await codeguard("PostToolUse", input.tool, {
        session_id: input.sessionID, tool_use_id: input.callID, cwd, tool_name: input.tool, tool_input: args,
      });
      if (answer.context.length && output && typeof output.output === "string") {
        output.output += `\n\n${answer.context.join("\n\n")}`;
      }
    },
    "chat.message": async (input, output) => {
      const parts = (output && output.parts) || [];
      const prompt = parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
      const context = [];
      if (!started.has(input.sessionID)) {
        started.add(input.sessionID);
        context.push(...(await codeguard("SessionStart", "", { session_id: input.sessionID, cwd, source: "startup" })).context);
      }
      context.push(...(await codeguard("UserPromptSubmit", "", { session_id: input.sessionID, cwd, prompt })).context);
      if (context.length && output && output.message) {
        parts.push({
          id: `prt_codeguard_${Date.now()}`, sessionID: output.message.sessionID, messageID: output.message.id,
          type: "text", synthetic: true, text: context.join("\n\n"),
        });
      }
    },
    event: async ({ event }) => {
      if (event && event.type === "session.idle") {
        await codeguard("Stop", "", { session_id: event.properties && event.properties.sessionID, cwd });
      }
    },
  };
};
