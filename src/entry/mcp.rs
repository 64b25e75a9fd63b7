//! `codeguard mcp`: a Model Context Protocol server on stdin/stdout, built on the official Rust
//! SDK (`rmcp`), offering the CLI's own engine as tools: `check`, `explain`, `fix` and
//! `languages`.
//!
//! In: JSON-RPC messages on stdin (one per line). Out: JSON-RPC answers on stdout; nothing else
//! is ever written there. Each tool's result is the JSON document the matching CLI command
//! prints with `--format json`, as text and as structured content.
//! Never: returns raw linter output, environment variables or anything beyond that document (the
//! full output stays in the private log files the report names). The async runtime lives only
//! inside this sub-command: the hook path never starts it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cli::{CheckArgs, Format};
use crate::env::Env;
use crate::registry::Registry;

/// How long one linter or formatter may run inside a tool call.
const TOOL_DEADLINE: Duration = Duration::from_secs(300);

/// Serves until the client closes stdin; returns the exit code.
pub fn run(env: &Env) -> anyhow::Result<u8> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let server = Server { env: env.clone() };
    runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("MCP initialisation failed: {e}"))?;
        service.waiting().await.map_err(|e| anyhow::anyhow!("MCP server stopped: {e}"))?;
        Ok(crate::exit::PASS)
    })
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
}

/// The tools and their input schemas.
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
        ),
        tool(
            "explain",
            "Predict what the commit gate would check for a shell command (which repositories, lanes and \
             files), without running or linting anything. Returns the `explain --format json` document.",
            json!({"command": {"type": "string", "description": "The shell command."}, "cwd": {"type": "string", "description": "Directory the command would run in."}}),
            &["command"],
        ),
        tool(
            "fix",
            "Run the registry's formatters on the files changed against HEAD (all=true: the whole project), \
             report exactly which files changed and re-check. dry_run=true only lists the commands. Returns \
             the `fix --format json` report.",
            json!({"path": path, "languages": languages, "dry_run": {"type": "boolean"}, "all": {"type": "boolean"}}),
            &[],
        ),
        tool(
            "languages",
            "List codeguard's language registry. Returns the `languages --format json` document.",
            json!({}),
            &[],
        ),
    ]
}

fn tool(name: &'static str, description: &'static str, properties: Value, required: &[&str]) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    Tool::new(name, description, Arc::new(schema))
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
            let args = CheckArgs {
                path: input.path,
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
            return super::explain::explain_json(&input.command, input.cwd.as_deref()).map_err(failed);
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
