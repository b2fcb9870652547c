//! The tickets gauntlet, as a user runs it: the generated `tickets_gauntlet.rs` (written to
//! `OUT_DIR` by `toolspec::Builder` in build.rs) included here, and its macro expanded with
//! the in-memory desk of `broken/` (without a bug) as the fixture. `cargo test` lists one
//! test per check: `gauntlet::tickets_search::pagination_walks_every_item_once`, ...

use crate::broken;

use broken::fixture;

include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));

tickets_gauntlet!(fixture);
