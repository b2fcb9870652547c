//! The tickets server's integration tests, in one crate (one binary to link): the gauntlet
//! generated from `specs/tickets.yaml` (`cargo test -p tickets-server --test it gauntlet::`)
//! the failure tests that drive the release binary (`--test it failures::`), and the same
//! with three replicas on PostgreSQL (`--test it replicas::`, beside `scripts/with-postgres`).

mod support;

mod cancel;
mod failures;
mod gauntlet;
mod replicas;
