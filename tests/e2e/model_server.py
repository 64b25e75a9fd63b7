"""A scripted model server on 127.0.0.1 for codeguard's end-to-end suite.

It speaks just enough of each host's model API for an agent loop to run: Anthropic messages
(JSON and SSE), Gemini generateContent / streamGenerateContent (SSE), OpenAI responses (SSE)
and chat completions (JSON and SSE). Every request that offers the agent's tools gets the next
step of the script: a shell tool call running the scripted command (or each of the `steps:` commands
in turn), then a final text. Requests
without tools (titles, summaries, quota probes) get a short text. Every request body is logged,
so the test can read what the model received back (the tool result carrying codeguard's message).

Usage: model_server.py PORT_FILE LOG_FILE COMMAND  (prints nothing; writes the port it bound).
"""

import json
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, LOG_FILE, COMMAND = sys.argv[1], sys.argv[2], sys.argv[3]
LOCK = threading.Lock()
SHELL_NAMES = ("Bash", "run_shell_command", "shell", "exec_command", "bash", "Shell", "terminal", "run_commands")
# COMMAND "write:<relative path>:<content>" makes the call a file write with the host's edit tool.
EDIT_TOOLS = {"Write": ("file_path", "content"), "write_file": ("file_path", "content"), "create": ("path", "file_text"),
              "write": ("path", "content"), "editor": ("path", "new_text")}
WRITE = COMMAND.split(":", 2)[1:] if COMMAND.startswith("write:") else None
# COMMAND "steps:<JSON array of commands>" runs each command in its own shell tool call, in order.
STEPS = json.loads(COMMAND[len("steps:"):]) if COMMAND.startswith("steps:") else [COMMAND]
# COMMAND "reply:<text>" makes every final answer that text (an agent without tools, aider, reads
# its edits from the model's words).
FINAL_TEXT = COMMAND[len("reply:"):] if COMMAND.startswith("reply:") else "Done."
RESULT_MARKS = ('"tool_result"', '"functionResponse"', '"function_call_output"', '"role": "tool"')


def log(entry):
    with LOCK, open(LOG_FILE, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def tool_names(body):
    names = []
    for tool in body.get("tools") or []:
        if "name" in tool:
            names.append(tool["name"])
        if isinstance(tool.get("custom"), dict):
            names.append(tool["custom"].get("name"))
        if "function" in tool and isinstance(tool["function"], dict):
            names.append(tool["function"].get("name"))
        for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
            names.append(decl.get("name"))
    return [n for n in names if n]


def tool_parameters(body, name):
    """The JSON schema of the tool `name` offers (chat completions or responses shape)."""
    for tool in body.get("tools") or []:
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if spec.get("name") == name:
            return spec.get("parameters") or spec.get("input_schema") or {}
    return {}


def shell_tool(body):
    names = tool_names(body)
    if WRITE:
        return next((n for n in (*EDIT_TOOLS, "apply_patch") if n in names), None)
    for name in SHELL_NAMES:
        if name in names:
            return name
    return None


def calls_done(body):
    """How many results of our tool calls the conversation already holds."""
    text = json.dumps(body)
    return max(text.count(k) for k in RESULT_MARKS)


def command(body):
    """The command of the next step."""
    return STEPS[min(calls_done(body), len(STEPS) - 1)]


def shell_args(name, body):
    if WRITE:
        path_key, content_key = EDIT_TOOLS[name]
        # The tool's own schema names its arguments where it says (opencode's `write`: `filePath`).
        schema = tool_parameters(body, name).get("properties", {})
        path_key = next((k for k in ("file_path", "filePath", "path") if k in schema), path_key)
        return {path_key: os.path.join(os.getcwd(), WRITE[0]) if not WRITE[0].startswith("/") else WRITE[0],
                content_key: WRITE[1]}
    if name == "exec_command":
        return {"cmd": command(body)}
    if name == "run_commands":
        # Cline's shell tool takes a list of commands.
        return {"commands": [command(body)]}
    if name == "shell":
        # Codex's older shell tool takes an argv (goose's, a string).
        if tool_parameters(body, name).get("properties", {}).get("command", {}).get("type") == "array":
            return {"command": ["bash", "-lc", command(body)]}
    return {"command": command(body), "description": "commit the staged change"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def _send(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events):
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        self._send(200, "".join(chunks).encode(), "text/event-stream")

    def do_GET(self):
        log({"method": "GET", "path": self.path})
        if "/models" in self.path:
            self._send(200, {"data": [{"id": "scripted", "object": "model"}], "models": []})
        else:
            self._send(200, {})

    def do_HEAD(self):
        self._send(200, b"")

    def do_POST(self):
        body = self._body()
        shell = shell_tool(body)
        done = calls_done(body)
        step = "call" if shell and done < (1 if WRITE else len(STEPS)) else "final"
        log({"method": "POST", "path": self.path, "shell": shell, "step": step, "done": done, "body": body})
        path = self.path.split("?")[0]
        if path.endswith("/messages"):
            return self.anthropic(body, shell, step)
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return self.gemini(body, shell, step, ":streamGenerateContent" in path)
        if path.endswith(":countTokens"):
            return self._send(200, {"totalTokens": 10})
        if path.endswith("/responses"):
            return self.openai_responses(body, shell, step)
        if path.endswith("/chat/completions"):
            return self.chat(body, shell, step)
        return self._send(200, {})

    # Anthropic messages -------------------------------------------------------------------
    def anthropic(self, body, shell, step):
        mid = "msg_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": 10, "output_tokens": 5}
        if step == "call":
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:12], "name": shell, "input": shell_args(shell, body)}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": "Done."}
            stop = "end_turn"
        if not body.get("stream"):
            return self._send(200, {"id": mid, "type": "message", "role": "assistant", "model": body.get("model", "scripted"),
                                    "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
        start = dict(block)
        events = [("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant",
                                                                           "model": body.get("model", "scripted"), "content": [],
                                                                           "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        if block["type"] == "tool_use":
            start["input"] = {}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start["text"] = ""
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._sse(events)

    # Gemini generateContent -----------------------------------------------------------------
    def gemini(self, body, shell, step, stream):
        if step == "call":
            args = shell_args(shell, {}) if WRITE else {"command": command(body), "description": "commit"}
            part = {"functionCall": {"name": shell, "args": args}}
        else:
            part = {"text": "Done."}
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                 "modelVersion": "scripted"}
        if stream:
            return self._sse([(None, chunk)])
        return self._send(200, chunk)

    # OpenAI responses -------------------------------------------------------------------------
    def openai_responses(self, body, shell, step):
        rid = "resp_" + uuid.uuid4().hex[:12]
        if step == "call":
            args = shell_args(shell, body)
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:8], "call_id": "call_" + uuid.uuid4().hex[:8],
                    "name": shell, "arguments": json.dumps(args), "status": "completed"}
        else:
            item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:8], "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
        response = {"id": rid, "object": "response", "status": "completed", "model": body.get("model", "scripted"),
                    "output": [item], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                                                "input_tokens_details": {"cached_tokens": 0},
                                                "output_tokens_details": {"reasoning_tokens": 0}}}
        if not body.get("stream"):
            return self._send(200, response)
        created = dict(response, status="in_progress", output=[])
        self._sse([
            ("response.created", {"type": "response.created", "response": created}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ])

    # OpenAI chat completions ------------------------------------------------------------------
    def chat(self, body, shell, step):
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        if step == "call" and shell == "apply_patch":
            # Copilot offers GPT models a freeform apply_patch: the call's input is the patch.
            lines = "".join(f"+{line}\n" for line in WRITE[1].splitlines())
            patch = f"*** Begin Patch\n*** Add File: {os.path.join(os.getcwd(), WRITE[0])}\n{lines}*** End Patch\n"
            call = {"id": "call_" + uuid.uuid4().hex[:8], "type": "custom", "custom": {"name": "apply_patch", "input": patch}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        elif step == "call":
            call = {"id": "call_" + uuid.uuid4().hex[:8], "type": "function",
                    "function": {"name": shell, "arguments": json.dumps(shell_args(shell, body))}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": FINAL_TEXT}
            finish = "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            return self._send(200, {"id": cid, "object": "chat.completion", "created": 0, "model": body.get("model", "scripted"),
                                    "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})
        delta = dict(message)
        if "tool_calls" in delta:
            delta["tool_calls"] = [dict(c, index=0) for c in delta["tool_calls"]]
        chunks = [
            {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
             "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
        ]
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self._send(200, data.encode(), "text/event-stream")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(PORT_FILE + ".tmp", "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(PORT_FILE + ".tmp", PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
