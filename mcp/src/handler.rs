//! [`McpServer`]: the rmcp `ServerHandler` over a [`Toolset`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig, Tool,
    UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::convert::{
    DefinitionError, error_result, success_result, tool_list, unknown_tool_error,
};
use super::log::{CallLogger, CallOutcome, CallRecord, stderr_logger};
use super::tasks::{self, TaskLimits};
use toolspec_core::ToolError;
use toolspec_core::engine::{
    APPROVAL_PENDING, CallContext, CallOutput, Served, ServedError, ToolDefinition, Toolset,
    find_tool,
};
use toolspec_core::progress::{Progress, Update};

/// How long clients may keep a `tools/list` by default (`ttlMs`): an hour.
pub const LIST_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// An MCP server for one [`Toolset`]: implements rmcp's [`ServerHandler`], so it can be
/// served on any rmcp transport (`server.serve(transport)` with [`rmcp::ServiceExt`]), or
/// with [`crate::serve_stdio`] and [`crate::serve_http`].
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
    /// The tasks this process runs ([`toolspec_core::task`]).
    running: tasks::Running,
    /// Which tools it serves; `tools` holds only those.
    served: Arc<Served>,
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
    /// Fails when a definition cannot be served (see [`crate::tool_list`]): a schema
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
            running: tasks::Running::default(),
            served: Arc::new(Served::everything()),
        })
    }

    /// Serves only what `served` chooses: some groups of the catalog, or no write
    /// (`--groups`, `--read-only`; see [`Served`]). `tools/list` then holds only those
    /// tools, the same list for every connection, and a call to another tool is refused
    /// with a message that says which group holds it or that the server is read-only.
    ///
    /// Fails when `served` names a group the toolset does not have, or leaves no tool.
    pub fn serving(mut self, served: Served) -> Result<Self, ServedError> {
        let definitions = self.toolset.definitions();
        served.check(definitions)?;
        // `tools` holds one entry per definition, in their order (`tool_list`).
        let tools: Vec<Tool> = self
            .tools
            .iter()
            .zip(definitions)
            .filter(|(_, d)| served.serves(d))
            .map(|(t, _)| t.clone())
            .collect();
        self.tools = tools.into();
        self.served = Arc::new(served);
        Ok(self)
    }

    /// What this server serves ([`McpServer::serving`]).
    pub fn served(&self) -> &Served {
        &self.served
    }

    /// Sets how long clients may cache `tools/list` (default [`LIST_TTL`]). The list is
    /// compiled into the server and only changes with a new build, so the same for every
    /// caller (`cacheScope: public`); shorten it when deployments roll out often.
    pub fn with_list_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// Sets how many tasks a session and a caller may run at once (default
    /// [`TaskLimits::default`]); a call past either gets a retryable `rate_limited` error
    /// and is not started.
    pub fn with_task_limits(mut self, limits: TaskLimits) -> Self {
        self.running = tasks::Running::with_limits(limits);
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
    /// ([`toolspec_core::cancel`]): when the client cancels it, its method is stopped at its next
    /// await, a write's unit of work rolls back and its key is given back. A write runs on
    /// its own task, so a client that disconnects without cancelling does not cut it off
    /// halfway (dropped, its key would stay held for a lease): it finishes, and its
    /// idempotency record is stored for the retry. A read, and a call already on a task of
    /// its own (a task's), runs `in_place`, without a second task's hand-off between threads.
    async fn run(
        &self,
        name: &str,
        in_place: bool,
        arguments: Value,
        ctx: CallContext,
        cancel: toolspec_core::cancel::Cancel,
        progress: Option<Progress>,
    ) -> Result<CallOutput, ToolError> {
        let caller = ctx.caller.clone();
        let outcome = if in_place {
            let call =
                toolspec_core::caller::scope(caller, self.toolset.call(name, arguments, &ctx));
            let call = toolspec_core::cancel::scope(cancel, call);
            let call = toolspec_core::progress::scope_if(progress, call);
            CatchPanic(call)
                .await
                .map_err(|panic| panic_message(&*panic))
        } else {
            let toolset = Arc::clone(&self.toolset);
            let owned = name.to_owned();
            let task = tokio::spawn(async move {
                let call =
                    toolspec_core::caller::scope(caller, toolset.call(&owned, arguments, &ctx));
                toolspec_core::progress::scope_if(
                    progress,
                    toolspec_core::cancel::scope(cancel, call),
                )
                .await
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

impl McpServer {
    /// Logs a finished call and words its result: the tool's output, its error, or (for a
    /// change a person must approve) the request for their answer.
    fn answer(
        &self,
        called: &str,
        via_alias: Option<&'static str>,
        request_id: &str,
        started: Instant,
        outcome: Result<CallOutput, ToolError>,
    ) -> CallToolResponse {
        let canonical = match &outcome {
            Ok(out) => via_alias.or(out.called_as_alias),
            Err(_) => via_alias,
        };
        let alias = canonical.map(|c| (called, c));
        self.log(CallRecord {
            called,
            canonical,
            request_id,
            elapsed: started.elapsed(),
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
                Some(pending) => return pending.into(),
                None => error_result(
                    &ToolError::not_applied(called, "building the approval request"),
                    alias,
                ),
            },
            Err(e) => error_result(&e, alias),
        };
        result.into()
    }

    /// The task a call runs as, when its tool may run as one, its client declared the tasks
    /// extension and the store keeps tasks; `None`: the ordinary call; `Err`: the caller or
    /// session already runs as many tasks as it may.
    async fn start_task(
        &self,
        context: &RequestContext<RoleServer>,
        definition: &ToolDefinition,
        read_only: bool,
        arguments: &Value,
        ctx: &CallContext,
    ) -> Result<Option<tasks::Started>, ToolError> {
        let (Some(kept), Some(runtime)) = (
            self.toolset.task_kept(definition.name),
            self.toolset.task_runtime(),
        ) else {
            return Ok(None);
        };
        // The extension came with 2026-07-28: a client on an older revision cannot read a
        // task handle, whatever it declared.
        let modern = context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28);
        if !modern
            || !context
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks())
        {
            return Ok(None);
        }
        let caller = ctx.caller.as_deref();
        match tasks::start(
            runtime,
            &self.running,
            definition.name,
            !read_only,
            arguments,
            caller,
            ctx.session_id.as_deref(),
            kept,
        )
        .await
        {
            Ok(started) => Ok(Some(started)),
            Err(tasks::NotStarted::Busy(e)) => Err(e),
            Err(tasks::NotStarted::Store(e)) => {
                eprintln!(
                    "{}: not run as a task ({e}); served as an ordinary call",
                    definition.name
                );
                Ok(None)
            }
        }
    }

    /// The runtime that keeps this server's tasks, or the error a client that asks for
    /// tasks anyway receives.
    fn task_runtime(&self) -> Result<&toolspec_core::engine::Runtime, ErrorData> {
        self.toolset
            .task_runtime()
            .ok_or_else(|| ErrorData::invalid_params("This server runs no call as a task.", None))
    }

    /// Whether some tool may run as a task: the extension is then declared.
    fn runs_tasks(&self) -> bool {
        self.toolset.task_runtime().is_some()
            && self
                .toolset
                .definitions()
                .iter()
                .any(|d| self.toolset.task_kept(d.name).is_some())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.runs_tasks() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let config = ServerConfig::new(capabilities).with_server_info(self.identity.clone());
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
            // The names it suggests are the ones this server lists.
            let listed: Vec<ToolDefinition> = definitions
                .iter()
                .filter(|d| self.served.serves(d))
                .copied()
                .collect();
            return Err(unknown_tool_error(&listed, called));
        };
        if let Some(refusal) = self.served.refusal(definition, definitions) {
            self.log(CallRecord {
                called,
                canonical: Some(definition.name),
                request_id: &request_id,
                elapsed: Duration::ZERO,
                outcome: CallOutcome::UnknownTool,
            });
            return Err(ErrorData::invalid_params(
                refusal.message.clone(),
                Some(refusal.to_value()),
            ));
        }
        let mut ctx = CallContext::new();
        ctx.request_id = Some(request_id.clone());
        ctx.session_id = session_id(&context);
        ctx.caller = caller_of(&context);
        let read_only = definition.annotations.read_only;
        // Only a change is ever put to a person.
        if !read_only {
            ctx.host = super::host::host_for(&request, &context);
        }

        let task = self
            .start_task(&context, definition, read_only, &arguments, &ctx)
            .await;
        let task = match task {
            Ok(task) => task,
            Err(busy) => {
                let started = Instant::now();
                return Ok(self.answer(called, via_alias, &request_id, started, Err(busy)));
            }
        };
        if let Some(started) = task {
            let handle = started.handle.clone();
            let (server, called) = (self.clone(), called.to_owned());
            tokio::spawn(async move {
                let keeper = started.keeper;
                let began = Instant::now();
                // This task is the call's own: it runs in place, a write included.
                let run = server.run(
                    &called,
                    true,
                    arguments,
                    ctx,
                    keeper.cancel.clone(),
                    Some(keeper.progress.clone()),
                );
                let outcome = toolspec_core::for_adapters::alongside(run, keeper.beat()).await;
                let answer = server.answer(&called, via_alias, &request_id, began, outcome);
                keeper.settle(answer).await;
            });
            return Ok(CallToolResponse::Task(handle));
        }

        let started = Instant::now();
        let cancel = toolspec_core::cancel::Cancel::new();
        let (progress, notifying) = match context.meta.get_progress_token() {
            Some(token) => {
                let (progress, notifying) = notify_progress(context.peer.clone(), token);
                (Some(progress), Some(notifying))
            }
            None => (None, None),
        };
        let outcome = {
            // The client's `notifications/cancelled` cancels `context.ct` (rmcp); the call
            // goes on being polled until it has stopped and given back what it held.
            let run = self.run(
                called,
                read_only,
                arguments,
                ctx,
                cancel.clone(),
                progress.clone(),
            );
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
        // Every notification goes out before the result: the client stops listening for
        // progress on a request once it is answered.
        if let (Some(progress), Some(notifying)) = (progress, notifying) {
            progress.flush();
            drop(progress);
            let _ = notifying.await;
        }
        Ok(self.answer(called, via_alias, &request_id, started, outcome))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let runtime = self.task_runtime()?;
        tasks::get(runtime, caller_of(&context).as_deref(), &request.task_id).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let runtime = self.task_runtime()?;
        let caller = caller_of(&context);
        tasks::cancel(runtime, &self.running, caller.as_deref(), &request.task_id).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let runtime = self.task_runtime()?;
        tasks::update(runtime, caller_of(&context).as_deref(), &request.task_id).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let (def, _) = find_tool(self.toolset.definitions(), name)?;
        self.tools.iter().find(|t| t.name == def.name).cloned()
    }
}

/// A [`Progress`] whose updates go to the client as `notifications/progress` for `token`,
/// and the task that sends them: it ends once the last clone of the progress is dropped and
/// everything reported was sent.
fn notify_progress(
    peer: rmcp::Peer<RoleServer>,
    token: ProgressToken,
) -> (Progress, tokio::task::JoinHandle<()>) {
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<Update>();
    let progress = Progress::new(move |update| {
        let _ = send.send(update);
    });
    let notifying = tokio::spawn(async move {
        while let Some(update) = receive.recv().await {
            #[allow(clippy::cast_precision_loss)] // counts past 2^53 are not progress bars
            let mut param = ProgressNotificationParam::new(token.clone(), update.done as f64);
            param.total = update.total.map(|t| t as f64);
            param.message = update.message;
            // A client gone away hears nothing more; the call itself goes on.
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    (progress, notifying)
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
fn caller_of(context: &RequestContext<RoleServer>) -> Option<Arc<toolspec_core::caller::Caller>> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    parts
        .extensions
        .get::<Arc<toolspec_core::caller::Caller>>()
        .cloned()
}

/// The `Mcp-Session-Id` of a call over streamable HTTP (stdio has no sessions).
fn session_id(context: &RequestContext<RoleServer>) -> Option<String> {
    let parts = context.extensions.get::<axum::http::request::Parts>()?;
    let value = parts.headers.get("mcp-session-id")?;
    value.to_str().ok().map(str::to_owned)
}
