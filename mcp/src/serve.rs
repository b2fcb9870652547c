//! Serving an [`McpServer`]: stdio, and streamable HTTP at [`HTTP_PATH`].

use std::io;
use std::net::SocketAddr;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::guard::HttpGuard;
use super::handler::McpServer;
use super::stdio::{GuardedLines, StdioGuard};

/// The path of the MCP endpoint on an HTTP server.
pub const HTTP_PATH: &str = "/mcp";

/// Serves `server` on standard input and output until the client closes the stream, with
/// its toolset's [`Limits`](toolspec_core::engine::Limits) (by default lines up to 1 MiB, nesting
/// up to 64 levels).
///
/// Standard output then belongs to the protocol: write logs to standard error only (the
/// adapter's own call log does).
pub async fn serve_stdio(server: McpServer) -> io::Result<()> {
    let guard = StdioGuard::from(server.toolset().limits());
    serve_stdio_guarded(server, guard).await
}

/// [`serve_stdio`] with your [`StdioGuard`]. Every line that is not a message the server
/// can take (too long, too deep, not JSON) gets a JSON-RPC error instead of silence.
pub async fn serve_stdio_guarded(server: McpServer, guard: StdioGuard) -> io::Result<()> {
    let (transport, writer) = GuardedLines::new(tokio::io::stdin(), tokio::io::stdout(), guard);
    let served = match server.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
        Err(e) => Err(io::Error::other(e)),
    };
    // Everything the server said reaches standard output before this returns.
    let _ = writer.await;
    served
}

/// Serves `server` over streamable HTTP at `http://<addr>/mcp` until Ctrl-C, with rmcp's
/// default configuration: stateful sessions, and only loopback `Host` headers accepted (a
/// defence against DNS rebinding; to serve other hosts, build the configuration yourself
/// and use [`HttpServer::bind_with`]). Prints nothing: announce the URL yourself if you
/// want it in your logs ([`HttpServer::url`] has it when you bind with [`HttpServer`]).
pub async fn serve_http(server: McpServer, addr: impl ToSocketAddrs) -> io::Result<()> {
    serve_http_with(server, addr, StreamableHttpServerConfig::default()).await
}

/// [`serve_http`] with your configuration: for example
/// `StreamableHttpServerConfig::default().with_legacy_session_mode(false)` to keep no
/// sessions, so that behind a load balancer any replica can answer any request (requests
/// of the 2026-07-28 protocol never have sessions; this makes older clients' requests
/// stateless too, at the cost of what needs a session: a server-to-client request such
/// as an elicitation, which then falls back to the preview step).
pub async fn serve_http_with(
    server: McpServer,
    addr: impl ToSocketAddrs,
    config: StreamableHttpServerConfig,
) -> io::Result<()> {
    serve_http_beside(server, addr, config, axum::Router::new()).await
}

/// [`serve_http_with`], with `beside` served on the same port next to [`HTTP_PATH`] (for
/// example a Prometheus `GET /metrics`), behind the same guard.
pub async fn serve_http_beside(
    server: McpServer,
    addr: impl ToSocketAddrs,
    config: StreamableHttpServerConfig,
    beside: axum::Router,
) -> io::Result<()> {
    let guard = HttpGuard::with_limits(server.toolset().limits());
    serve_http_guarded(server, addr, config, guard, beside).await
}

/// [`serve_http_beside`] with your [`HttpGuard`]: for example one whose
/// [`access`](HttpGuard::access) is an authorization server's (feature `auth`).
pub async fn serve_http_guarded(
    server: McpServer,
    addr: impl ToSocketAddrs,
    config: StreamableHttpServerConfig,
    guard: HttpGuard,
    beside: axum::Router,
) -> io::Result<()> {
    let http = HttpServer::bind_beside(server, addr, config, guard, beside).await?;
    let stop = http.stop.clone();
    tokio::spawn(async move {
        // Without a signal handler the server simply keeps running.
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    http.wait().await
}

/// An axum router with `server` at [`HTTP_PATH`], to mount in an application of your own,
/// guarded by the default [`HttpGuard`] with the toolset's request limits (by default 1 MiB
/// bodies, 64 levels; loopback origins).
pub fn http_router(server: McpServer, config: StreamableHttpServerConfig) -> axum::Router {
    let guard = HttpGuard::with_limits(server.toolset().limits());
    guarded_router(server, config, guard)
}

/// [`http_router`] with your [`HttpGuard`].
pub fn guarded_router(
    server: McpServer,
    config: StreamableHttpServerConfig,
    guard: HttpGuard,
) -> axum::Router {
    guarded_router_beside(server, config, guard, axum::Router::new())
}

fn guarded_router_beside(
    server: McpServer,
    config: StreamableHttpServerConfig,
    guard: HttpGuard,
    beside: axum::Router,
) -> axum::Router {
    let tools = server.toolset().definitions();
    let service: StreamableHttpService<McpServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    #[cfg(feature = "auth")]
    let beside = match &guard.access {
        super::guard::Access::Bearer(auth) => with_metadata(beside, auth, tools),
        _ => beside,
    };
    let inflight = super::inflight::Inflight::new(guard, tools);
    beside
        .nest_service(HTTP_PATH, service)
        .layer(axum::middleware::from_fn(move |request, next| {
            super::guard::guard(inflight.clone(), request, next)
        }))
}

/// `router` with the Protected Resource Metadata of `auth` at each of its well-known paths.
#[cfg(feature = "auth")]
fn with_metadata(
    router: axum::Router,
    auth: &super::auth::Authorization,
    tools: &'static [toolspec_core::engine::ToolDefinition],
) -> axum::Router {
    let mut scopes: Vec<String> = tools
        .iter()
        .flat_map(|t| t.scopes.iter().map(|s| (*s).to_owned()))
        .collect();
    scopes.sort();
    scopes.dedup();
    let document = auth.metadata(&scopes).to_string();
    auth.metadata_paths()
        .into_iter()
        .fold(router, |router, path| {
            let document = document.clone();
            router.route(
                &path,
                axum::routing::get(move || async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        document,
                    )
                }),
            )
        })
}

/// Serves `router` on every connection `listener` accepts until `stop`, then waits for the
/// open connections to finish. Each connection sets `TCP_NODELAY` (without it, Nagle's
/// algorithm holds a small response until the client's delayed ACK: about 40 ms per call
/// on a kept-alive connection) and is closed when a request's headers take longer than
/// `header_read_timeout`. At most `max_connections` are served at once; further ones wait
/// in the listen queue.
async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    guard: &HttpGuard,
    stop: CancellationToken,
) -> io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let places = std::sync::Arc::new(tokio::sync::Semaphore::new(guard.max_connections.max(1)));
    let header_read_timeout = guard.header_read_timeout;
    loop {
        let accepted = tokio::select! {
            accepted = async {
                let place = places.clone().acquire_owned().await;
                (listener.accept().await, place)
            } => accepted,
            () = stop.cancelled() => break,
        };
        let (accepted, place) = accepted;
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors and the like: wait a moment rather than spin.
            Err(e) => {
                toolspec_core::for_adapters::log_incident(&format!(
                    "accepting an HTTP connection: {e}"
                ));
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            toolspec_core::for_adapters::log_incident(&format!(
                "TCP_NODELAY on an accepted connection: {e}"
            ));
        }
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(header_read_timeout);
        let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A connection the client broke off ends here; there is no one to tell.
            let _ = conn.await;
            drop(place);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// A running streamable HTTP server: its bound address, and a way to stop it.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<io::Result<()>>,
}

impl HttpServer {
    /// Binds `addr` (port 0 picks a free port) and starts serving in the background with
    /// rmcp's default configuration (see [`serve_http`]).
    pub async fn bind(server: McpServer, addr: impl ToSocketAddrs) -> io::Result<Self> {
        Self::bind_with(server, addr, StreamableHttpServerConfig::default()).await
    }

    /// Like [`HttpServer::bind`] with your configuration (allowed hosts, JSON responses,
    /// stateless mode...). Cancelling `config.cancellation_token` stops the server, like
    /// [`HttpServer::shutdown`].
    pub async fn bind_with(
        server: McpServer,
        addr: impl ToSocketAddrs,
        config: StreamableHttpServerConfig,
    ) -> io::Result<Self> {
        let guard = HttpGuard::with_limits(server.toolset().limits());
        Self::bind_guarded(server, addr, config, guard).await
    }

    /// Like [`HttpServer::bind_with`] with your [`HttpGuard`] (body size, depth, origins).
    pub async fn bind_guarded(
        server: McpServer,
        addr: impl ToSocketAddrs,
        config: StreamableHttpServerConfig,
        guard: HttpGuard,
    ) -> io::Result<Self> {
        Self::bind_beside(server, addr, config, guard, axum::Router::new()).await
    }

    /// Like [`HttpServer::bind_guarded`], with the routes of `beside` served next to
    /// [`HTTP_PATH`] behind the same guard (a `GET /metrics`, a health check).
    pub async fn bind_beside(
        server: McpServer,
        addr: impl ToSocketAddrs,
        config: StreamableHttpServerConfig,
        guard: HttpGuard,
        beside: axum::Router,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() && guard.access == super::guard::Access::Local {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "refusing to serve {addr} without authorization: anyone who can reach it \
                     could call every tool. Configure an authorization server (Access::Bearer; \
                     an example server's --auth-issuer), or say the server is meant to be open \
                     (Access::Open; --no-auth), or bind 127.0.0.1"
                ),
            ));
        }
        // The same token ends the sessions' streams (open SSE responses would otherwise hold
        // a graceful shutdown forever) and the accept loop.
        let stop = config.cancellation_token.clone();
        let router = guarded_router_beside(server, config, guard.clone(), beside);
        let until = stop.clone();
        let task = tokio::spawn(async move { accept_loop(listener, router, &guard, until).await });
        Ok(Self { addr, stop, task })
    }

    /// The bound address (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint's URL, `http://<addr>/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_PATH}", self.addr)
    }

    /// Stops accepting, ends open sessions, and waits for the server to finish.
    pub async fn shutdown(self) -> io::Result<()> {
        self.stop.cancel();
        self.wait().await
    }

    /// Waits until the server stops (after [`HttpServer::shutdown`] from elsewhere, a
    /// cancelled configuration token, or an I/O error).
    pub async fn wait(self) -> io::Result<()> {
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(io::Error::other(join)),
        }
    }
}
