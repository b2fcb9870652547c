//! Tickets in SQLite or PostgreSQL, behind the generated `TicketsTools` trait.

use crate::tickets::{
    Ticket, TicketStatus, TicketsCreateInput, TicketsCreateOutput, TicketsCreatePreview,
    TicketsError, TicketsExportInput, TicketsExportOutput, TicketsGetInput, TicketsGetOutput,
    TicketsSearchInput, TicketsSearchOutput, TicketsServer, TicketsTools, TicketsUpdateStatusInput,
    TicketsUpdateStatusOutput,
};
use rusqlite::{OptionalExtension, params};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use toolspec_runtime::prelude::*;

/// The ticket desk: reads tickets from the database the runtime keeps its records in, and
/// writes them through each call's unit of work, so a ticket and the call's records commit
/// together.
pub struct Desk {
    tables: Tables,
    /// Test hooks that make calls slow; none by default.
    slow: Slowness,
}

/// How much slower than they need to be calls are made: test hooks for the limits, leases,
/// progress and cancellation (`tickets-server --slow-writes MS --slow-exports MS`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Slowness {
    /// How long each write's method waits before it writes.
    pub writes: Duration,
    /// How long an export waits after each ticket it exports.
    pub exports: Duration,
}

/// Where the tickets are.
enum Tables {
    /// One SQLite file, shared by the servers of one machine.
    Sqlite(Database),
    /// A PostgreSQL database, shared by replicas anywhere.
    Postgres(PostgresStore),
}

/// Opens (or creates) the database `db` names and returns the server, ready to serve, with
/// idempotency keys leased for `lease`: a `postgres://` (or `postgresql://`) URL selects
/// PostgreSQL, anything else is a SQLite file path. With `demo`, seeds the 23 tickets of
/// the seed article if they are not there yet.
// ANCHOR: open
pub async fn open(
    db: &str,
    demo: bool,
    lease: Duration,
    slow: Slowness,
) -> Result<TicketsServer<Desk>, Box<dyn std::error::Error>> {
    if is_postgres(db) {
        let store = PostgresStore::connect(db).await?;
        crate::pg::create_tables(&store, demo).await?;
        let key = store.cursor_key().await?;
        let runtime = Runtime::new(key, Arc::new(store.clone())).with_lease(lease);
        return Ok(TicketsServer::new(
            Desk {
                tables: Tables::Postgres(store),
                slow,
            },
            runtime,
        ));
    }
    let mut desk = Desk::open(Path::new(db), demo)?;
    desk.slow = slow;
    let Tables::Sqlite(sqlite) = &desk.tables else {
        unreachable!("Desk::open opens SQLite")
    };
    let key = cursor_secret(&*sqlite.try_lock()?)?;
    let runtime =
        Runtime::sqlite(sqlite.clone(), CursorKey::from_bytes(key.as_bytes()))?.with_lease(lease);
    Ok(TicketsServer::new(desk, runtime))
}
// ANCHOR_END: open

/// Whether `db` names a PostgreSQL database rather than a SQLite file.
pub fn is_postgres(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

impl Desk {
    /// The desk on the database at `path` (created if absent), without the runtime's stores:
    /// for a server built around another runtime, as the gauntlet's fixture does (moving
    /// that runtime onto [`Desk::store`]). With `demo`, seeds the 23 tickets of the seed
    /// article if they are not there yet.
    pub fn open(path: &Path, demo: bool) -> Result<Desk, Box<dyn std::error::Error>> {
        let db = Database::open(path)?;
        {
            let c = db.try_lock()?;
            c.execute_batch(
                "CREATE TABLE IF NOT EXISTS tickets (
                     num INTEGER PRIMARY KEY,
                     title TEXT NOT NULL,
                     status TEXT NOT NULL,
                     customer_email TEXT NOT NULL
                 );
                 CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 -- Ticket numbers are taken from here inside each create's transaction, so
                 -- concurrent creates (on one server or several) never pick the same one.
                 CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
                 INSERT OR IGNORE INTO counters (name, next)
                     SELECT 'tickets', MAX(2000, COALESCE(MAX(num) + 1, 2000)) FROM tickets;",
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
        }
        Ok(Desk {
            slow: Slowness::default(),
            tables: Tables::Sqlite(db),
        })
    }

    /// The desk on a PostgreSQL store (its tables made, and with `demo` seeded): for a
    /// server built around another runtime, as the gauntlet's fixture does.
    pub async fn on_postgres(
        store: PostgresStore,
        demo: bool,
    ) -> Result<Desk, Box<dyn std::error::Error>> {
        crate::pg::create_tables(&store, demo).await?;
        Ok(Desk {
            slow: Slowness::default(),
            tables: Tables::Postgres(store),
        })
    }

    /// The runtime's records in this desk's database, so units of work are its transactions.
    pub fn store(&self) -> Result<Arc<dyn Store>, Box<dyn std::error::Error>> {
        Ok(match &self.tables {
            Tables::Sqlite(db) => Arc::new(SqliteStore::new(db.clone())?),
            Tables::Postgres(store) => Arc::new(store.clone()),
        })
    }
}

/// The cursor key, made once and kept in the file: cursors handed out before a restart must
/// still be accepted after it.
fn cursor_secret(c: &rusqlite::Connection) -> rusqlite::Result<String> {
    let existing: Option<String> = c
        .query_row("SELECT value FROM meta WHERE key = 'cursor_key'", [], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(k) = existing {
        return Ok(k);
    }
    let fresh = format!(
        "{}{}",
        toolspec_runtime::preview::new_preview_id().unwrap_or_default(),
        toolspec_runtime::preview::new_preview_id().unwrap_or_default()
    );
    c.execute(
        "INSERT INTO meta (key, value) VALUES ('cursor_key', ?1)",
        [&fresh],
    )?;
    Ok(fresh)
}

pub(crate) fn internal(e: impl std::fmt::Display) -> ToolError {
    ToolError::internal(e.to_string())
}

pub(crate) fn status_of(s: &str) -> TicketStatus {
    match s {
        "pending" => TicketStatus::Pending,
        "closed" => TicketStatus::Closed,
        _ => TicketStatus::Open,
    }
}

fn row_to_ticket(r: &rusqlite::Row<'_>) -> rusqlite::Result<Ticket> {
    let num: i64 = r.get(0)?;
    let status: String = r.get(2)?;
    Ok(Ticket {
        ticket_id: format!("T-{num}"),
        title: r.get(1)?,
        status: status_of(&status),
        customer_email: r.get(3)?,
    })
}

pub(crate) fn ticket_num(id: &str) -> Option<i64> {
    id.strip_prefix("T-")?.parse().ok()
}

impl Desk {
    async fn get(&self, id: &str) -> Result<Ticket, ToolError> {
        let not_found = || {
            ToolError::from(TicketsError::NotFound {
                ticket_id: id.to_string(),
            })
        };
        let num = ticket_num(id).ok_or_else(not_found)?;
        let db = match &self.tables {
            Tables::Sqlite(db) => db,
            Tables::Postgres(store) => {
                return crate::pg::get(store, num).await?.ok_or_else(not_found);
            }
        };
        let c = db.lock().await?;
        c.query_row(
            "SELECT num, title, status, customer_email FROM tickets WHERE num = ?1",
            [num],
            row_to_ticket,
        )
        .optional()
        .map_err(internal)?
        .ok_or_else(not_found)
    }
}

impl Desk {
    /// Every ticket, oldest first.
    async fn all(&self) -> Result<Vec<Ticket>, ToolError> {
        match &self.tables {
            Tables::Sqlite(db) => {
                let c = db.lock().await?;
                let mut stmt = c
                    .prepare("SELECT num, title, status, customer_email FROM tickets ORDER BY num")
                    .map_err(internal)?;
                stmt.query_map([], row_to_ticket)
                    .map_err(internal)?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(internal)
            }
            Tables::Postgres(store) => crate::pg::all(store).await,
        }
    }
}

/// One CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    } else {
        text.into()
    }
}

impl TicketsTools for Desk {
    async fn tickets_search(
        &self,
        input: TicketsSearchInput,
        window: Window,
    ) -> Result<Page<TicketsSearchOutput>, ToolError> {
        let words: Vec<String> = input
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let all = self.all().await?;
        let hits: Vec<Ticket> = all
            .into_iter()
            .filter(|t| {
                let title = t.title.to_lowercase();
                words.iter().all(|w| title.contains(w.as_str()))
                    && input.status.is_none_or(|s| t.status == s)
            })
            .collect();
        let total = hits.len() as u64;
        // Keyset paging (the spec's `keyset: [ticket_id]`): the page starts after the last
        // ticket the agent was given, by number, whatever was opened or closed since.
        let after = window
            .after()
            .and_then(|key| key.first())
            .and_then(|id| id.as_str())
            .and_then(ticket_num);
        let mut rest = hits
            .into_iter()
            .filter(|t| after.is_none_or(|a| ticket_num(&t.ticket_id).is_some_and(|n| n > a)));
        let tickets: Vec<Ticket> = rest.by_ref().take(window.take()).collect();
        let more = rest.next().is_some();
        Ok(Page::new(TicketsSearchOutput { tickets }, total).with_more(more))
    }

    async fn tickets_export(
        &self,
        input: TicketsExportInput,
    ) -> Result<TicketsExportOutput, ToolError> {
        let tickets: Vec<Ticket> = self
            .all()
            .await?
            .into_iter()
            .filter(|t| input.status.is_none_or(|s| t.status == s))
            .collect();
        let total = tickets.len() as u64;
        let mut csv = String::from("ticket_id,title,status");
        for (done, t) in (1..).zip(&tickets) {
            csv.push('\n');
            csv.push_str(&t.ticket_id);
            csv.push(',');
            csv.push_str(&csv_field(&t.title));
            csv.push(',');
            csv.push_str(t.status.as_str());
            if !self.slow.exports.is_zero() {
                tokio::time::sleep(self.slow.exports).await;
            }
            // Heard by a client that asked (thinned out by the runtime), and as the status
            // of the task when the export runs as one.
            toolspec_runtime::progress::report(
                done,
                Some(total),
                format!("{done} of {total} tickets exported"),
            );
        }
        Ok(TicketsExportOutput {
            csv,
            exported: i64::try_from(total).unwrap_or(i64::MAX),
        })
    }

    async fn tickets_get(&self, input: TicketsGetInput) -> Result<TicketsGetOutput, ToolError> {
        Ok(TicketsGetOutput {
            ticket: self.get(&input.ticket_id).await?,
        })
    }

    async fn preview_tickets_create(
        &self,
        input: TicketsCreateInput,
    ) -> Result<TicketsCreatePreview, ToolError> {
        Ok(TicketsCreatePreview {
            summary: Some(format!(
                "Create ticket '{}' for {} and email them its id.",
                input.title, input.customer_email
            )),
            title: input.title,
            customer_email: input.customer_email,
        })
    }

    // ANCHOR: tickets_create
    async fn tickets_create(
        &self,
        input: TicketsCreateInput,
        _preview: TicketsCreatePreview,
        work: Work,
    ) -> Result<TicketsCreateOutput, ToolError> {
        if !self.slow.writes.is_zero() {
            tokio::time::sleep(self.slow.writes).await;
        }
        // The number, the ticket and the email to send commit together with the call's
        // idempotency record and the preview's consumption, or none of them does.
        let num: i64 = match &self.tables {
            Tables::Postgres(_) => {
                crate::pg::insert(&work, &input.title, &input.customer_email).await?
            }
            Tables::Sqlite(_) => work.sqlite(|c| {
            let num: i64 = c.query_row(
                "UPDATE counters SET next = next + 1 WHERE name = 'tickets' RETURNING next - 1",
                [],
                |r| r.get(0),
            )?;
            c.execute(
                "INSERT INTO tickets (num, title, status, customer_email) VALUES (?1, ?2, 'open', ?3)",
                params![num, input.title, input.customer_email],
            )?;
            Ok(num)
        })?,
        };
        let ticket_id = format!("T-{num}");
        work.outbox(
            "email",
            json!({
                "to": input.customer_email,
                "ticket_id": ticket_id,
                "subject": format!("Your support ticket {ticket_id}"),
            }),
        )
        .await?;
        Ok(TicketsCreateOutput {
            ticket: Ticket {
                ticket_id,
                title: input.title,
                status: TicketStatus::Open,
                customer_email: input.customer_email,
            },
        })
    }
    // ANCHOR_END: tickets_create

    async fn tickets_update_status(
        &self,
        input: TicketsUpdateStatusInput,
        work: Work,
    ) -> Result<TicketsUpdateStatusOutput, ToolError> {
        let not_found = || {
            ToolError::from(TicketsError::NotFound {
                ticket_id: input.ticket_id.clone(),
            })
        };
        let num = ticket_num(&input.ticket_id).ok_or_else(not_found)?;
        // Read and write in one transaction: `previous_status`, and so the undo call, is
        // the status this change really replaced, whatever runs beside it.
        let mut ticket = match &self.tables {
            Tables::Postgres(_) => crate::pg::set_status(&work, num, input.status.as_str())
                .await?
                .ok_or_else(not_found)?,
            // The closure returns the toolset's own error: an unknown ticket leaves the
            // transaction as `not_found`, with `?` like a failed statement.
            Tables::Sqlite(_) => work.sqlite(|c| {
                let found = c
                    .query_row(
                        "SELECT num, title, status, customer_email FROM tickets WHERE num = ?1",
                        [num],
                        row_to_ticket,
                    )
                    .optional()?
                    .ok_or_else(not_found)?;
                c.execute(
                    "UPDATE tickets SET status = ?1 WHERE num = ?2",
                    params![input.status.as_str(), num],
                )?;
                Ok(found)
            })?,
        };
        let previous_status = ticket.status;
        ticket.status = input.status;
        Ok(TicketsUpdateStatusOutput {
            ticket,
            previous_status,
        })
    }
}
