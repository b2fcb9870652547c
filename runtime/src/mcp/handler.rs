//! [`McpServer`]: the rmcp `ServerHandler` over a [`Toolset`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::convert::{
    DefinitionError, error_result, success_result, tool_list, unknown_tool_error,
};
use super::log::{CallLogger, CallOutcome, CallRecord, stderr_logger};
use crate::ToolError;
use crate::engine::{APPROVAL_PENDING, CallContext, CallOutput, Toolset, find_tool};

/// How long clients may keep a `tools/list` by default (`ttlMs`): an hour.
pub const LIST_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// An MCP server for one [`Toolset`]: implements rmcp's [`ServerHandler`], so it can be
/// served on any rmcp transport (`server.serve(transport)` with [`rmcp::ServiceExt`]), or
/// with [`crate::mcp::serve_stdio`] and [`crate::mcp::serve_http`].
///
/// Cheap to clone (everything is behind `Arc`): the HTTP transport makes one per session.
#[derive(Clone)]
pub struct McpServer {
    toolset: Arc<dyn Toolset>,
    /// Built and checked once, at construction: `tools/list` only clones it.
    tools: Arc<[Tool]>,
    identity: Implementation,
    instructions: Option<String>,
    logger: Option<CallLogger>,
    /// How long a client may keep `tools/list` (`ttlMs`).
    list_ttl: std::time::Duration,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.identity.name)
            .field("version", &self.identity.version)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server named `name` at `version` (what `initialize` reports as `serverInfo`), with
    /// tool calls logged to standard error.
    ///
    /// Fails when a definition cannot be served (see [`crate::mcp::tool_list`]): a schema
    /// that is not a JSON object of `"type": "object"`, a name MCP does not allow, a name
    /// used twice. Better at startup than a `tools/list` every client rejects.
    pub fn new(
        toolset: Arc<dyn Toolset>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Result<Self, DefinitionError> {
        let tools = tool_list(toolset.definitions())?;
        Ok(Self {
            toolset,
            tools: tools.into(),
            identity: Implementation::new(name, version),
            instructions: None,
            logger: Some(stderr_logger()),
            list_ttl: LIST_TTL,
        })
    }

    /// Sets how long clients may cache `tools/list` (default [`LIST_TTL`]). The list is
    /// compiled into the server and only changes with a new build, so the same for every
    /// caller (`cacheScope: public`); shorten it when deployments roll out often.
    pub fn with_list_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// Sets the `instructions` the client receives at `initialize` (hosts may add them to
    /// the model's system prompt).
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Replaces the call logger; `None` turns call logging off.
    pub fn with_call_logger(mut self, logger: Option<CallLogger>) -> Self {
        self.logger = logger;
        self
    }

    /// The `tools/list` entries, in order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The toolset this server serves.
    pub fn toolset(&self) -> &Arc<dyn Toolset> {
        &self.toolset
    }

    fn log(&self, record: CallRecord<'_>) {
        if let Some(logger) = &self.logger {
            logger(&record);
        }
    }

    /// Runs the call; a panic in the user's code becomes an `internal_error` result
    /// instead of a request that never answers. The call runs in the scope of `cancel`
    /// ([`crate::cancel`]): when the client cancels it, its method is stopped at its next
    /// await, a write's unit of work rolls back and its key is given back. A write runs on
    /// its own task, so a client that disconnects without cancelling does not cut it off
    /// halfway (dropped, its key would stay held for a lease): it finishes, and its
    /// idempotency record is stored for the retry. A read runs in place, without the
    /// second task's hand-off between threads.
    async fn run(
        &self,
        name: &str,
        read_only: bool,
        arguments: Value,
        ctx: CallContext,
        cancel: crate::cancel::Cancel,
    ) -> Result<CallOutput, ToolError> {
        let caller = ctx.caller.clone();
        let outcome = if read_only {
            let call = crate::caller::scope(caller, self.toolset.call(name, arguments, &ctx));
            let call = crate::cancel::scope(cancel, call);
            CatchPanic(call)
                .await
                .map_err(|panic| panic_message(&*panic))
        } else {
            let toolset = Arc::clone(&self.toolset);
            let owned = name.to_owned();
            let task = tokio::spawn(async move {
                let call = crate::caller::scope(caller, toolset.call(&owned, arguments, &ctx));
                crate::cancel::scope(cancel, call).await
            });
            task.await.map_err(|join| match join.try_into_panic() {
                Ok(panic) => panic_message(&*panic),
                Err(join) => join.to_string(),
            })
        };
        outcome.unwrap_or_else(|why| {
            Err(ToolError::internal(format!(
                "tool {name} did not finish: {why}"
            )))
        })
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.identity.clone());
        match &self.instructions {
            Some(text) => config.with_instructions(text.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // One page: cursors are optional, and a toolset is small enough to list at once.
        let ttl_ms = u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX);
        let Some(caller) = caller_of(&context) else {
            // The list is compiled in: the same for every caller until the next build.
            return Ok(ListToolsResult::with_all_items(self.tools.to_vec())
                .with_ttl_ms(ttl_ms)
                .with_cache_scope(CacheScope::Public));
        };
        // Only the tools this caller's scopes allow: the list is theirs alone.
        let definitions = self.toolset.definitions();
        let allowed: Vec<Tool> = self
            .tools
            .iter()
            .filter(|tool| {
                definitions
                    .iter()
                    .find(|d| d.name == tool.name)
                    .is_some_and(|d| caller.missing(d.scopes).is_empty())
            })
            .cloned()
            .collect();
        Ok(ListToolsResult::with_all_items(allowed)
            .with_ttl_ms(ttl_ms)
            .with_cache_scope(CacheScope::Private))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        let definitions = self.toolset.definitions();
        let called: &str = &request.name;
        let request_id = context.id.to_string();
        let Some((definition, via_alias)) = find_tool(definitions, called) else {
            self.log(CallRecord {
                called,
                canonical: None,
                request_id: &request_id,
                elapsed: Duration::ZERO,
                outcome: CallOutcome::UnknownTool,
            });
            return Err(unknown_tool_error(definitions, called));
        };
        let mut ctx = CallContext::new();
        ctx.request_id = Some(request_id.clone());
        ctx.session_id = session_id(&context);
        ctx.caller = caller_of(&context);
        let read_only = definition.annotations.read_only;
        // Only a change is ever put to a person.
        if !read_only {
            ctx.host = super::host::host_for(&request, &context);
        }

        let started = Instant::now();
        let cancel = crate::cancel::Cancel::new();
        let outcome = {
            // The client's `notifications/cancelled` cancels `context.ct` (rmcp); the call
            // goes on being polled until it has stopped and given back what it held.
            let run = self.run(called, read_only, arguments, ctx, cancel.clone());
            let mut run = std::pin::pin!(run);
            let mut cancelled = std::pin::pin!(context.ct.cancelled());
            std::future::poll_fn(|cx| {
                if !cancel.is_cancelled() && cancelled.as_mut().poll(cx).is_ready() {
                    cancel.cancel();
                }
                run.as_mut().poll(cx)
            })
            .await
        };
        let elapsed = started.elapsed();

        let canonical = match &outcome {
            Ok(out) => via_alias.or(out.called_as_alias),
            Err(_) => via_alias,
        };
        let alias = canonical.map(|c| (called, c));
        self.log(CallRecord {
            called,
            canonical,
            request_id: &request_id,
            elapsed,
            outcome: match &outcome {
                Ok(_) => CallOutcome::Ok,
                Err(e) => CallOutcome::Error(&e.code),
            },
        });
        let result = match outcome {
            Ok(out) => success_result(out.structured, out.content, alias),
            // The person answers in the next round (2026-07-28): the client asks them and
            // calls again with the answer.
            Err(e) if e.code == APPROVAL_PENDING => match super::host::input_required(&e) {
                Some(pending) => return Ok(pending.into()),
                None => error_result(
                    &ToolError::not_applied(called, "building the approval request"),
                    alias,
                ),
            },
            Err(e) => error_result(&e, alias),
        };
        Ok(result.into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let (def, _) = find_tool(self.toolset.definitions(), name)?;
        self.tools.iter().find(|t| t.name == def.name).cloned()
    }
}

/// A future whose panic is caught and returned, as `tokio::spawn` would, without a task.
struct CatchPanic<F>(F);

impl<F: Future + Unpin> Future for CatchPanic<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        // The future is not polled again after a panic (this one answers it), so state it
        // left half-updated is never observed.
        let inner = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::pin::Pin::new(inner).poll(cx)
        })) {
            Ok(polled) => polled.map(Ok),
            Err(panic) => std::task::Poll::Ready(Err(panic)),
        }
    }
}

/// What a panic said, as `tokio`'s join error words it.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let said = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    match said {
        Some(said) => format!("it panicked with message {said:?}"),
        None => "it panicked".to_owned(),
    }
}

/// The caller the HTTP transport authenticated for this request (none over stdio, or
/// without authorization).
fn caller_of(context: &RequestContext<RoleServer>) -> Option<Arc<crate::caller::Caller>> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    parts
        .extensions
        .get::<Arc<crate::caller::Caller>>()
        .cloned()
}

/// The `Mcp-Session-Id` of a call over streamable HTTP (stdio has no sessions).
fn session_id(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let value = parts.headers.get("mcp-session-id")?;
    value.to_str().ok().map(str::to_owned)
}
