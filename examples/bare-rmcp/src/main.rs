//! `bare-tickets-server --db PATH [--demo] --http ADDR`: the floor of `scripts/load-bench`.
//!
//! This is not an example to copy. It is the four tools of `specs/tickets.yaml`
//! (`tickets_search`, `tickets_get`, `tickets_create`, `tickets_update_status`) written by hand
//! the plain rmcp way (`#[tool_router]`, `#[tool]`, `Parameters<T>` with schemars-derived inputs,
//! `Json<T>` outputs) on the same SQLite table as `examples/tickets-server`, and served the same
//! way: streamable HTTP at `http://ADDR/mcp` with rmcp's `StreamableHttpService`, its
//! `LocalSessionManager` and the default config, on axum with `TCP_NODELAY`.
//!
//! It exists so the load benchmark can say how much the generated server costs over what rmcp
//! alone costs for the same work: the benchmark drives both in one run and reports the ratio.
//! So it does deliberately less than the real server: no argument validation beyond serde's,
//! no actionable errors, no cursors, no idempotency keys, no previews, no email outbox, no
//! response shaping. Anything added here raises the floor and flatters the ratio.

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::sync::Mutex;

const USAGE: &str = "usage: bare-tickets-server --db PATH [--demo] --http ADDR

  --db PATH    SQLite file for tickets (created if absent)
  --demo       seed the 23 demo tickets T-1000..T-1022 if they are not there yet
  --http ADDR  serve streamable HTTP at http://ADDR/mcp";

/// Where a ticket is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TicketStatus {
    Open,
    Pending,
    Closed,
}

impl TicketStatus {
    fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Open => "open",
            TicketStatus::Pending => "pending",
            TicketStatus::Closed => "closed",
        }
    }

    fn parse(s: &str) -> TicketStatus {
        match s {
            "pending" => TicketStatus::Pending,
            "closed" => TicketStatus::Closed,
            _ => TicketStatus::Open,
        }
    }
}

/// A support ticket.
#[derive(Debug, Serialize, JsonSchema)]
struct Ticket {
    /// The ticket's id.
    ticket_id: String,
    /// One-line title the customer or agent gave the ticket.
    title: String,
    /// Current status.
    status: TicketStatus,
    /// Email of the customer who raised it.
    customer_email: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchInput {
    /// Words to match in ticket titles.
    query: String,
    /// Only tickets with this status; omit for all.
    #[serde(default)]
    status: Option<TicketStatus>,
    /// How many tickets to return (default 10, at most 50).
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct SearchOutput {
    /// This page of matching tickets.
    tickets: Vec<Ticket>,
    /// How many tickets match in all.
    total: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct GetInput {
    /// The id of the ticket to read, T- and digits.
    ticket_id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TicketOutput {
    /// The ticket.
    ticket: Ticket,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CreateInput {
    /// One-line summary of the problem, in the customer's words.
    title: String,
    /// Email of the customer; they receive the ticket id there.
    customer_email: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct UpdateStatusInput {
    /// The ticket to change.
    ticket_id: String,
    /// The new status.
    status: TicketStatus,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UpdateStatusOutput {
    /// The ticket after the change.
    ticket: Ticket,
    /// The status before the change.
    previous_status: TicketStatus,
}

/// The four tools on one SQLite connection.
#[derive(Clone)]
struct Tickets {
    db: Arc<Mutex<Connection>>,
    tool_router: ToolRouter<Tickets>,
}

const SELECT: &str = "SELECT num, title, status, customer_email FROM tickets";

fn row_to_ticket(r: &rusqlite::Row<'_>) -> rusqlite::Result<Ticket> {
    let num: i64 = r.get(0)?;
    let status: String = r.get(2)?;
    Ok(Ticket {
        ticket_id: format!("T-{num}"),
        title: r.get(1)?,
        status: TicketStatus::parse(&status),
        customer_email: r.get(3)?,
    })
}

fn ticket_num(ticket_id: &str) -> Result<i64, String> {
    ticket_id
        .strip_prefix("T-")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{ticket_id}` is not a ticket id like T-1001."))
}

fn get_ticket(c: &Connection, num: i64) -> Result<Option<Ticket>, String> {
    c.query_row(&format!("{SELECT} WHERE num = ?1"), [num], row_to_ticket)
        .optional()
        .map_err(|e| e.to_string())
}

#[tool_router]
impl Tickets {
    fn new(db: Connection) -> Tickets {
        Tickets {
            db: Arc::new(Mutex::new(db)),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search support tickets by free text, optionally filtered by status. Returns matching tickets (id, title, status), best match first, with the total count. Use when the user asks about past or current customer issues."
    )]
    async fn tickets_search(
        &self,
        Parameters(input): Parameters<SearchInput>,
    ) -> Result<Json<SearchOutput>, String> {
        let limit = input.limit.unwrap_or(10).clamp(1, 50);
        let status = input.status.map(TicketStatus::as_str);
        let c = self.db.lock().await;
        let filter = "WHERE title LIKE '%' || ?1 || '%' AND (?2 IS NULL OR status = ?2)";
        let total: i64 = c
            .query_row(
                &format!("SELECT COUNT(*) FROM tickets {filter}"),
                params![input.query, status],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        let mut stmt = c
            .prepare_cached(&format!("{SELECT} {filter} ORDER BY num LIMIT ?3"))
            .map_err(|e| e.to_string())?;
        let tickets = stmt
            .query_map(params![input.query, status, limit], row_to_ticket)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| e.to_string())?;
        Ok(Json(SearchOutput { tickets, total }))
    }

    #[tool(
        description = "Get one support ticket by its id. Returns the ticket with its title, status and customer email. Use when you already have a ticket id, from tickets_search or the user."
    )]
    async fn tickets_get(
        &self,
        Parameters(input): Parameters<GetInput>,
    ) -> Result<Json<TicketOutput>, String> {
        let num = ticket_num(&input.ticket_id)?;
        let c = self.db.lock().await;
        match get_ticket(&c, num)? {
            Some(ticket) => Ok(Json(TicketOutput { ticket })),
            None => Err(format!(
                "No ticket {}. Find the id with tickets_search, then retry with it.",
                input.ticket_id
            )),
        }
    }

    #[tool(
        description = "Open a new support ticket for a customer and email them its id. Returns the new ticket. Use when a customer reports a new problem that no open ticket covers."
    )]
    async fn tickets_create(
        &self,
        Parameters(input): Parameters<CreateInput>,
    ) -> Result<Json<TicketOutput>, String> {
        let c = self.db.lock().await;
        let num: i64 = c
            .query_row(
                "INSERT INTO tickets (num, title, status, customer_email)
                 SELECT MAX(2000, COALESCE(MAX(num) + 1, 2000)), ?1, 'open', ?2 FROM tickets
                 RETURNING num",
                params![input.title, input.customer_email],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        let ticket = get_ticket(&c, num)?.ok_or("the new ticket vanished")?;
        Ok(Json(TicketOutput { ticket }))
    }

    #[tool(
        description = "Set the status of one ticket. Returns the updated ticket and its previous status. Use when a ticket is resolved, waiting on the customer, or reopened."
    )]
    async fn tickets_update_status(
        &self,
        Parameters(input): Parameters<UpdateStatusInput>,
    ) -> Result<Json<UpdateStatusOutput>, String> {
        let num = ticket_num(&input.ticket_id)?;
        let c = self.db.lock().await;
        let Some(before) = get_ticket(&c, num)? else {
            return Err(format!(
                "No ticket {}. Find the id with tickets_search, then retry with it.",
                input.ticket_id
            ));
        };
        c.execute(
            "UPDATE tickets SET status = ?1 WHERE num = ?2",
            params![input.status.as_str(), num],
        )
        .map_err(|e| e.to_string())?;
        let ticket = get_ticket(&c, num)?.ok_or("the ticket vanished")?;
        Ok(Json(UpdateStatusOutput {
            ticket,
            previous_status: before.status,
        }))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tickets {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("bare-tickets-server", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Opens (or creates) the tickets table at `path`, seeding the 23 demo tickets with `demo`.
fn open(path: &PathBuf, demo: bool) -> rusqlite::Result<Connection> {
    // The same settings as the real server's database: WAL and a 5 s busy timeout.
    let c = Connection::open(path)?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    let _mode: String = c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS tickets (
             num INTEGER PRIMARY KEY,
             title TEXT NOT NULL,
             status TEXT NOT NULL,
             customer_email TEXT NOT NULL
         );",
    )?;
    if demo {
        for i in 0..23 {
            let status = if i % 3 == 0 { "closed" } else { "open" };
            c.execute(
                "INSERT OR IGNORE INTO tickets (num, title, status, customer_email)
                 VALUES (?1, ?2, ?3, ?4)",
                params![
                    1000 + i,
                    format!("login loop case {i}"),
                    status,
                    format!("customer{i}@example.com")
                ],
            )?;
        }
    }
    Ok(c)
}

struct Args {
    db: PathBuf,
    demo: bool,
    http: String,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut db, mut demo, mut http) = (None, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => db = Some(PathBuf::from(args.next().ok_or("--db needs a path")?)),
            "--demo" => demo = true,
            "--http" => {
                http = Some(
                    args.next()
                        .ok_or("--http needs an address like 127.0.0.1:8080")?,
                )
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Args {
        db: db.ok_or("--db PATH is required")?,
        demo,
        http: http.ok_or("--http ADDR is required")?,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tickets = match open(&args.db, args.demo) {
        Ok(c) => Tickets::new(c),
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", args.db.display());
            return ExitCode::from(1);
        }
    };
    let service = StreamableHttpService::new(
        move || Ok(tickets.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = match tokio::net::TcpListener::bind(&args.http).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}: {e}", args.http);
            return ExitCode::from(1);
        }
    };
    // Without TCP_NODELAY a kept-alive connection waits on Nagle and delayed ACKs (~40 ms a
    // call), which would make this floor meaningless.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("warning: cannot set TCP_NODELAY: {e}");
        }
    });
    eprintln!(
        "bare-tickets-server: serving MCP at http://{}/mcp",
        args.http
    );
    match axum::serve(listener, router).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
