//! The tickets toolset of `specs/tickets.yaml`, implemented on SQLite or PostgreSQL.
//!
//! Everything an agent is promised (validation, paging, idempotency, previews, undo calls,
//! response shaping) comes from the generated [`tickets`] module and the runtime; this crate
//! only stores and reads tickets. The tickets, the idempotency keys, the previews, the
//! approvals, the outbox of customer emails and the cursor key live in one SQLite file, and
//! every write commits with its records in one transaction: a restart loses nothing, a
//! crash leaves no half-made ticket, and a retry after either is still a replay.

/// The code toolspec generated from `specs/tickets.yaml`.
#[allow(missing_docs)]
pub mod tickets {
    include!(concat!(env!("OUT_DIR"), "/tickets.rs"));
}

mod db;
mod mail;
mod metrics;
mod pg;

pub use db::{Desk, Slowness, is_postgres, open};
pub use mail::deliver_emails;
pub use metrics::{METRICS_PATH, Metrics, purge_expired};
