//! The integration tests of `toolspec-runtime`, in one crate: each file was once its own test
//! binary, and as modules of one crate they link once. Run one file's tests with its module
//! name as the filter: `cargo test -p toolspec-runtime --all-features --test it mcp_http::`.

mod architecture;
#[path = "../../../tests/support/architecture.rs"]
mod architecture_scan;
mod callers;
mod common;
#[cfg(feature = "mcp")]
mod mcp_common;

mod cursor;
mod engine;
mod errors;
mod idempotency;
#[cfg(feature = "auth")]
mod issuer;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mcp"))]
mod leases;
mod mcp_adapter;
#[cfg(feature = "auth")]
mod mcp_auth;
mod mcp_http;
#[cfg(feature = "mcp")]
mod mcp_tasks;
#[cfg(feature = "postgres")]
mod postgres_replicas;
mod preview;
mod rate_limits;
#[cfg(feature = "gauntlet")]
mod remote;
mod shape;
mod sqlite_shared;
mod tasks;
#[cfg(feature = "metrics")]
mod telemetry;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mcp"))]
mod time_limits;
mod validation;
#[cfg(feature = "gauntlet")]
mod wiring;
