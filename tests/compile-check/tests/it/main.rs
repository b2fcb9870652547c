//! The compile-check crate's integration tests, in one crate: each file was once its own test
//! binary, and as modules of one crate they link once. Run one file's tests with its module
//! name as the filter: `cargo test -p toolspec-compile-check --test it gauntlet_hostile::`.

mod broken;

mod arbitrary_calls;
mod builder_matches_cli;
mod constructs;
mod corpus;
mod gauntlet;
mod gauntlet_async;
mod gauntlet_catches_bugs;
mod gauntlet_every_spec;
mod gauntlet_hostile;
mod hostile;
mod tickets;
mod wire;
