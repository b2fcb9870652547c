//! The real-server ports of `tests/corpus/`, each served by a small in-memory
//! implementation, held to the gauntlet generated from its spec, and served over MCP to a
//! real client (`served`). `cargo test -p
//! toolspec-compile-check --test it corpus::` runs them all.

mod calendar;
mod github;
mod puppeteer;
mod served;
mod slack;
mod supabase;
