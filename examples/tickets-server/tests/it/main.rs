//! The tickets server's integration tests, in one crate (one binary to link): the gauntlet
//! generated from `specs/tickets.yaml` (`cargo test -p tickets-server --test it gauntlet::`)
//! and the failure tests that drive the release binary (`--test it failures::`).

mod support;

mod failures;
mod gauntlet;
