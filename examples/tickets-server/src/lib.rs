//! The tickets toolset of `specs/tickets.yaml`, implemented on SQLite.
//!
//! Everything an agent is promised (validation, paging, idempotency, previews, undo calls,
//! response shaping) comes from the generated [`tickets`] module and the runtime; this crate
//! only stores and reads tickets. The tickets, the idempotency keys, the previews and the
//! cursor key live in one SQLite file, so a restart loses nothing and a retry after a
//! restart is still a replay.

/// The code toolspec generated from `specs/tickets.yaml`.
#[allow(missing_docs)]
pub mod tickets {
    include!(concat!(env!("OUT_DIR"), "/tickets.rs"));
}

mod db;

pub use db::{Desk, open};
