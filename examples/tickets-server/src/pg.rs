//! The tickets on PostgreSQL: the same tables and statements as on SQLite, in PostgreSQL's
//! dialect. Reads use the store's pool; writes run on the call's unit of work
//! ([`Work::postgres`]), so they commit with the call's records or not at all.

use crate::db::{internal, status_of};
use crate::tickets::Ticket;
use toolspec_runtime::prelude::*;

/// Creates the tables (once, under an advisory lock, so replicas starting together do not
/// race) and, with `demo`, the 23 demo tickets if they are not there yet.
pub async fn create_tables(
    store: &PostgresStore,
    demo: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut client = store.client().await?;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock(2000)", &[])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS tickets (
             num BIGINT PRIMARY KEY,
             title TEXT NOT NULL,
             status TEXT NOT NULL,
             customer_email TEXT NOT NULL
         );
         -- Ticket numbers are taken from here inside each create's transaction (its row
         -- lock orders concurrent creates, on every replica).
         CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, next BIGINT NOT NULL);",
    )
    .await?;
    if demo {
        for i in 0..23_i64 {
            let status = if i % 3 == 0 { "closed" } else { "open" };
            tx.execute(
                "INSERT INTO tickets (num, title, status, customer_email)
                 VALUES ($1, $2, $3, $4) ON CONFLICT (num) DO NOTHING",
                &[
                    &(1000 + i),
                    &format!("login loop case {i}"),
                    &status,
                    &format!("customer{i}@example.com"),
                ],
            )
            .await?;
        }
    }
    tx.execute(
        "INSERT INTO counters (name, next)
         SELECT 'tickets', GREATEST(2000, COALESCE(MAX(num) + 1, 2000)) FROM tickets
         ON CONFLICT (name) DO NOTHING",
        &[],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

fn ticket(r: &tokio_postgres::Row) -> Ticket {
    let num: i64 = r.get(0);
    Ticket {
        ticket_id: format!("T-{num}"),
        title: r.get(1),
        status: status_of(r.get(2)),
        customer_email: r.get(3),
    }
}

/// Ticket `num`, if there is one.
pub async fn get(store: &PostgresStore, num: i64) -> Result<Option<Ticket>, ToolError> {
    let client = store.client().await.map_err(internal)?;
    let row = client
        .query_opt(
            "SELECT num, title, status, customer_email FROM tickets WHERE num = $1",
            &[&num],
        )
        .await
        .map_err(internal)?;
    Ok(row.as_ref().map(ticket))
}

/// Every ticket, by number.
pub async fn all(store: &PostgresStore) -> Result<Vec<Ticket>, ToolError> {
    let client = store.client().await.map_err(internal)?;
    let rows = client
        .query(
            "SELECT num, title, status, customer_email FROM tickets ORDER BY num",
            &[],
        )
        .await
        .map_err(internal)?;
    Ok(rows.iter().map(ticket).collect())
}

/// A new open ticket, in the unit of work; its number.
pub async fn insert(work: &Work, title: &str, email: &str) -> Result<i64, ToolError> {
    let db = work.postgres()?;
    let num: i64 = db
        .query_one(
            "UPDATE counters SET next = next + 1 WHERE name = 'tickets' RETURNING next - 1",
            &[],
        )
        .await
        .map_err(internal)?
        .get(0);
    db.execute(
        "INSERT INTO tickets (num, title, status, customer_email) VALUES ($1, $2, 'open', $3)",
        &[&num, &title, &email],
    )
    .await
    .map_err(internal)?;
    Ok(num)
}

/// Sets ticket `num`'s status, in the unit of work; the ticket as it was, if there is one.
/// The row is locked first, so the status it replaced is the one this change replaced,
/// whatever other replicas do beside it.
pub async fn set_status(work: &Work, num: i64, status: &str) -> Result<Option<Ticket>, ToolError> {
    let db = work.postgres()?;
    let found = db
        .query_opt(
            "SELECT num, title, status, customer_email FROM tickets WHERE num = $1 FOR UPDATE",
            &[&num],
        )
        .await
        .map_err(internal)?
        .as_ref()
        .map(ticket);
    if found.is_some() {
        db.execute(
            "UPDATE tickets SET status = $1 WHERE num = $2",
            &[&status, &num],
        )
        .await
        .map_err(internal)?;
    }
    Ok(found)
}
