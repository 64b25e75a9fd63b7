//! `codeguard mcp`: a Model Context Protocol server on stdin/stdout, built on the official Rust
//! SDK (`rmcp`), offering the CLI's own engine as tools: `check`, `explain`, `fix` and
//! `languages`.
//!
//! In: JSON-RPC messages on stdin (one per line). Out: JSON-RPC answers on stdout; nothing else
//! is ever written there. A line that is not JSON is answered with a parse error (-32700), a
//! JSON value that is no JSON-RPC message with an invalid request (-32600), and a `tools/call`
//! or `tools/list` whose parameters do not fit with invalid params (-32602). Each tool's result
//! is the JSON document the matching CLI command prints with `--format json`, as text and as
//! structured content, and each tool declares that document's schema (`schemas/output.schema.json`)
//! as its `outputSchema`.
//! Never: returns raw linter output, environment variables or anything beyond that document (the
//! full output stays in the private log files the report names). The async runtime lives only
//! inside this sub-command: the hook path never starts it.

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult,
    ErrorCode, Implementation, JsonObject, ListToolsResult, NumberOrString, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, RxJsonRpcMessage, ServerInitializeError, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use crate::cli::{CheckArgs, Format};
use crate::env::Env;
use crate::output::Output;
use crate::registry::Registry;

/// How long one linter or formatter may run inside a tool call.
const TOOL_DEADLINE: Duration = Duration::from_secs(300);

/// The JSON documents the tools return (`$defs` per document), beside the registry's schema
/// that describes each language.
const OUTPUT_SCHEMA: &str = include_str!("../../schemas/output.schema.json");
const LANGUAGES_SCHEMA: &str = include_str!("../../registry/languages.schema.json");

/// The longest message read from stdin (rmcp's own stdio limit); a longer one is dropped and
/// answered with an invalid request.
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Serves until the client closes stdin (also before `initialize`). The session's stdout is
/// the transport's (`crate::output::stdio`); what is returned is only the exit code.
pub(super) fn run(env: &Env) -> anyhow::Result<Output> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let server = Server { env: env.clone() };
    runtime.block_on(async move {
        let (stdin, stdout) = crate::output::stdio();
        let transport = Lines::new(stdin, stdout);
        let service = match server.serve(transport).await {
            Ok(service) => service,
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(Output::default()),
            Err(e) => anyhow::bail!("MCP initialisation failed: {e}"),
        };
        service.waiting().await.map_err(|e| anyhow::anyhow!("MCP server stopped: {e}"))?;
        Ok(Output::default())
    })
}

/// Newline-delimited JSON-RPC over a reader and a writer, answering what rmcp's own stdio
/// transport silently drops: a line that is not JSON gets a parse error (-32700), a JSON value
/// that is no JSON-RPC message an invalid request (-32600, with its `id` when it has one).
/// Messages are written whole, one per line, under one lock.
struct Lines<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line longer than [`MAX_MESSAGE_BYTES`].
    discarding: bool,
    write: Arc<tokio::sync::Mutex<W>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(write.into()),
        }
    }
}

/// What one line of input is.
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer with this error, then read on.
    Answer(ErrorData, Option<NumberOrString>),
    Ignore,
}

fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Ignore;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => return Incoming::Answer(ErrorData::parse_error(format!("Parse error: {e}"), None), None),
    };
    let id = value.get("id").and_then(|id| serde_json::from_value::<NumberOrString>(id.clone()).ok());
    let notification = value.get("method").is_some() && value.get("id").is_none();
    match serde_json::from_value(value) {
        Ok(message) => Incoming::Message(Box::new(message)),
        // A notification is never answered (JSON-RPC); rmcp ignores unknown ones the same way.
        Err(_) if notification => Incoming::Ignore,
        Err(e) => Incoming::Answer(ErrorData::invalid_request(format!("Invalid Request: {e}"), None), id),
    }
}

async fn write_message<W: AsyncWrite + Unpin>(
    write: &tokio::sync::Mutex<W>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move { write_message(&write, &item).await }
    }

    /// Cancel-safe (rmcp polls it in a `select!`): a partly read line stays in `self.line`.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let room = (MAX_MESSAGE_BYTES + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.read).take(room).read_until(b'\n', &mut self.line).await.ok()?;
            if self.line.len() > MAX_MESSAGE_BYTES {
                // Longer than allowed: dropped up to its newline, then answered once.
                self.line.clear();
                self.discarding = true;
                continue;
            }
            let at_end = read == 0;
            if !at_end && self.line.last() != Some(&b'\n') {
                continue;
            }
            if at_end && self.line.is_empty() && !self.discarding {
                return None;
            }
            let incoming = if self.discarding {
                self.discarding = false;
                let message = format!("Invalid Request: a message longer than {MAX_MESSAGE_BYTES} bytes");
                Incoming::Answer(ErrorData::invalid_request(message, None), None)
            } else {
                classify(self.line.strip_suffix(b"\n").unwrap_or(&self.line))
            };
            self.line.clear();
            match incoming {
                Incoming::Message(message) => return Some(*message),
                Incoming::Answer(error, id) => {
                    write_message(&self.write, &TxJsonRpcMessage::<RoleServer>::error(error, id))
                        .await
                        .ok()?;
                }
                Incoming::Ignore => {}
            }
            if at_end {
                return None;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[derive(Clone)]
struct Server {
    env: Env,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("codeguard", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "codeguard lints exactly what a commit would carry. Call `check` with staged=true before \
                 committing, `fix` to run the formatters on changed files, `explain` to see what the gate \
                 would check for a shell command. Keep fixes and commits in separate steps.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools().iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let env = self.env.clone();
        let outcome = tokio::task::spawn_blocking(move || call(&name, arguments, &env))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool did not finish: {e}"), None))?;
        Ok(match outcome {
            Ok(document) => {
                let text = serde_json::to_string_pretty(&document).unwrap_or_default();
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(document);
                result
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(format!("codeguard: {message}"))]),
        }
        .into())
    }

    /// rmcp hands over a request of a known method whose parameters do not fit as a custom
    /// request; those are invalid params (-32602) with the reason, only unknown methods are
    /// "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(misfit(&request))
    }
}

/// The error for a request rmcp could not type: why its parameters do not fit, or that the
/// method is unknown.
fn misfit(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    let problem = match method {
        "tools/call" => match request.params.as_ref().and_then(|p| p.get("arguments")) {
            Some(arguments) if !arguments.is_object() && !arguments.is_null() => {
                format!("`arguments` must be an object, not {}", json_kind(arguments))
            }
            _ => reason(request.params_as::<CallToolRequestParams>()),
        },
        "tools/list" => reason(request.params_as::<PaginatedRequestParams>()),
        _ => return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("method not found: {method}"), None),
    };
    ErrorData::invalid_params(format!("invalid params for {method}: {problem}"), None)
}

fn reason<T>(parsed: Result<Option<T>, serde_json::Error>) -> String {
    match parsed {
        Err(e) => e.to_string(),
        Ok(None) => "params are missing".to_owned(),
        Ok(Some(_)) => "params do not fit the method".to_owned(),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The tools with their input and output schemas.
fn tools() -> Vec<Tool> {
    let path = json!({"type": "string", "description": "Project directory (default: the server's working directory)."});
    let languages = json!({"type": "array", "items": {"type": "string"}, "description": "Only these registry language ids (default: every detected language)."});
    vec![
        tool(
            "check",
            "Lint a project with codeguard's gate engine: the whole tree, or with staged=true exactly the \
             staged snapshot a commit would record. Returns the `check --format json` report.",
            json!({"path": path, "languages": languages, "staged": {"type": "boolean", "description": "Check exactly what is staged (default false: the whole tree)."}}),
            &[],
            "checkReport",
        ),
        tool(
            "explain",
            "Predict what the commit gate would check for a shell command (which repositories, lanes and \
             files), without running or linting anything. Returns the `explain --format json` document.",
            json!({"command": {"type": "string", "description": "The shell command."}, "cwd": {"type": "string", "description": "Directory the command would run in."}}),
            &["command"],
            "explainDocument",
        ),
        tool(
            "fix",
            "Run the registry's formatters on the files changed against HEAD (all=true: the whole project), \
             report exactly which files changed and re-check. dry_run=true only lists the commands. Returns \
             the `fix --format json` report.",
            json!({"path": path, "languages": languages, "dry_run": {"type": "boolean"}, "all": {"type": "boolean"}}),
            &[],
            "fixReport",
        ),
        tool(
            "languages",
            "List codeguard's language registry. Returns the `languages --format json` document.",
            json!({}),
            &[],
            "languagesDocument",
        ),
    ]
}

fn tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
    output: &str,
) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    let mut tool = Tool::new(name, description, Arc::new(schema));
    tool.output_schema = Some(Arc::new(output_schema(output)));
    tool
}

/// Every definition of `schemas/output.schema.json` and of the registry's schema (the languages
/// document lists registry entries), parsed once.
static OUTPUT_DEFS: LazyLock<Value> = LazyLock::new(|| {
    let mut defs = JsonObject::new();
    for text in [LANGUAGES_SCHEMA, OUTPUT_SCHEMA] {
        let schema: Value =
            serde_json::from_str(text).unwrap_or_else(|e| unreachable!("embedded schema: {e}"));
        if let Some(own) = schema["$defs"].as_object() {
            defs.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    Value::Object(defs)
});

/// The output schema of one document: `{"$ref": "#/$defs/<document>"}` with [`OUTPUT_DEFS`].
fn output_schema(document: &str) -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
    schema.insert("type".into(), json!("object"));
    schema.insert("$ref".into(), json!(format!("#/$defs/{document}")));
    schema.insert("$defs".into(), OUTPUT_DEFS.clone());
    schema
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckInput {
    path: Option<PathBuf>,
    #[serde(default)]
    languages: Vec<String>,
    #[serde(default)]
    staged: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainInput {
    command: String,
    cwd: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixInput {
    path: Option<PathBuf>,
    #[serde(default)]
    languages: Vec<String>,
    #[serde(default)]
    dry_run: bool,
    #[serde(default)]
    all: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoInput {}

/// Runs one tool; `Err` is a message for the caller (bad arguments, a usage problem, an error).
fn call(name: &str, arguments: Value, env: &Env) -> Result<Value, String> {
    let parse_error = |e: serde_json::Error| format!("invalid arguments for `{name}`: {e}");
    let failed = |e: anyhow::Error| format!("{e:#}");
    let document = match name {
        "check" => {
            let input: CheckInput = serde_json::from_value(arguments).map_err(parse_error)?;
            let root = super::project_root(input.path.as_deref()).map_err(failed)?;
            crate::surface::within_worktree(&root)
                .map_err(|e| format!("`check` needs a git repository: {e}"))?;
            let args = CheckArgs {
                path: Some(root),
                all: !input.staged,
                changed: false,
                staged: input.staged,
                lang: input.languages,
                format: Format::Json,
                timeout: TOOL_DEADLINE.as_secs(),
                jobs: None,
                no_cache: false,
                install: false,
                // An agent's tool call never installs (like the hooks): a missing tool is
                // UNVERIFIED with the install command.
                no_install: true,
            };
            serde_json::to_value(super::check::report(&args, env).map_err(failed)?)
        }
        "explain" => {
            let input: ExplainInput = serde_json::from_value(arguments).map_err(parse_error)?;
            return super::explain::explain_json(&input.command, input.cwd.as_deref(), env).map_err(failed);
        }
        "fix" => {
            let input: FixInput = serde_json::from_value(arguments).map_err(parse_error)?;
            let request = super::fix::FixRequest {
                path: input.path,
                lang: input.languages,
                all: input.all,
                dry_run: input.dry_run,
                timeout: TOOL_DEADLINE,
            };
            serde_json::to_value(super::fix::fix(&request, env).map_err(failed)?)
        }
        "languages" => {
            let _: NoInput = serde_json::from_value(arguments).map_err(parse_error)?;
            let registry = Registry::builtin().map_err(|e| e.to_string())?;
            return Ok(super::languages::to_json(&registry));
        }
        other => return Err(format!("unknown tool: {other}")),
    };
    document.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads every message `input` holds through [`Lines`]; returns them and what was answered.
    fn read_all(input: Vec<u8>) -> (Vec<RxJsonRpcMessage<RoleServer>>, String) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        runtime.block_on(async move {
            let mut lines = Lines::new(std::io::Cursor::new(input), Vec::new());
            let mut messages = Vec::new();
            while let Some(message) = lines.receive().await {
                messages.push(message);
            }
            let answered = String::from_utf8(lines.write.lock().await.clone()).expect("utf-8");
            (messages, answered)
        })
    }

    #[test]
    fn an_oversized_line_is_dropped_and_answered_and_reading_goes_on() {
        let mut input = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        let (messages, answered) = read_all(input);
        assert_eq!(messages.len(), 1, "the ping after it, without a final newline, is read");
        let error: Value = serde_json::from_str(answered.trim_end()).expect("one JSON line");
        assert_eq!(error["error"]["code"], -32600, "{answered}");
    }

    #[test]
    fn blank_lines_a_bom_and_crlf_are_read_as_json_rpc() {
        let input = b"\n  \r\n\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n".to_vec();
        let (messages, answered) = read_all(input);
        assert_eq!((messages.len(), answered.as_str()), (1, ""));
    }
}
