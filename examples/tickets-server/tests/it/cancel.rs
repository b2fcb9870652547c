//! Cancellation through the binary over stdio: a creation slowed by `--slow-writes` and
//! cancelled by the client (`notifications/cancelled`) stops at once, is never answered,
//! leaves no ticket, and frees its key, so the same apply on another server on the file
//! makes the ticket once.

use crate::failures::{apply_args, preview_id};
use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{Answer, Scratch, Server, count, create_args};

#[test]
fn a_cancelled_write_stops_at_once_is_not_answered_and_leaves_its_key_free() {
    let scratch = Scratch::new("cancel");
    let db = scratch.join("tickets.db");
    let slow = Server::start(&db, &["--demo", "--slow-writes", "30000"]);
    let preview = preview_id(&slow.call_wait("tickets_create", create_args(7)));
    let apply = apply_args(7, &preview);
    let (id, pending) = slow.call_with_id("tickets_create", apply.clone());
    std::thread::sleep(Duration::from_millis(500));
    slow.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "the user stopped it"}),
    );
    let cancelled = Instant::now();

    // The key is free at once: the same apply through another server on the file runs now
    // (a held key would answer idempotency_in_progress; a write still running would hold
    // SQLite's write lock for 30 s).
    let other = Server::start(&db, &[]);
    let applied = other.call_wait("tickets_create", apply);
    let free_after = cancelled.elapsed();
    let Answer::Ok(done) = applied else {
        panic!("the apply after the cancel: {applied:?}");
    };
    assert_eq!(done["applied"], true, "{done}");
    assert_eq!(done["replayed"], false, "{done}");
    assert!(
        free_after < Duration::from_secs(2),
        "the key was free {free_after:?} after the cancel (server start included)"
    );
    // Nothing is answered for the cancelled request.
    assert!(
        pending.recv_timeout(Duration::from_secs(1)).is_err(),
        "a cancelled request was answered"
    );
    let title = create_args(7)["title"].as_str().expect("title").to_owned();
    let made = count(&db, "SELECT COUNT(*) FROM tickets WHERE title = ?1", &title);
    assert_eq!(made, 1, "one ticket: the cancelled write left nothing");
    println!("a cancelled slow creation freed its key {free_after:?} after the cancel");
}
