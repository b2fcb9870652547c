//! The real-server ports of `tests/corpus/`, each served by a small in-memory
//! implementation and held to the gauntlet generated from its spec. `cargo test -p
//! toolspec-compile-check --test it corpus::` runs them all.

mod calendar;
mod slack;
mod supabase;
