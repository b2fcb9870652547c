//! One SQLite file for the app's tables, idempotency keys and previews (feature `sqlite`).
#![cfg(feature = "sqlite")]

mod common;

use common::TempDir;
use serde_json::json;
use toolspec_runtime::idempotency::{IdempotencyStore, Reservation, SqliteStore};
use toolspec_runtime::preview::{Consume, PreviewStore, SqlitePreviewStore, StoredPreview};

#[test]
fn stores_share_the_apps_connection_and_survive_reopening() {
    let dir = TempDir::new();
    let path = dir.path().join("app.db");
    let conn = toolspec_runtime::sqlite::open(&path).expect("open");
    conn.lock()
        .unwrap()
        .execute_batch("CREATE TABLE tickets (id TEXT PRIMARY KEY)")
        .expect("app table");
    let keys = SqliteStore::from_shared(conn.clone()).expect("keys");
    let previews = SqlitePreviewStore::from_shared(conn.clone()).expect("previews");
    assert_eq!(
        keys.begin("t", "k", "fp", 0, 1_000).expect("begin"),
        Reservation::New
    );
    keys.complete("t", "k", &Ok(json!({"id": 1})))
        .expect("complete");
    previews
        .insert(
            &StoredPreview {
                id: "pv_1".into(),
                tool: "t".into(),
                fingerprint: "fp".into(),
                preview: json!({"n": 1}),
                expires_at_ms: 1_000,
            },
            0,
        )
        .expect("insert");
    let mode: String = conn
        .lock()
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
    drop((keys, previews, conn));

    // A second process (here: a fresh connection) sees the same state.
    let reopened = rusqlite::Connection::open(&path).expect("reopen");
    let keys = SqliteStore::from_connection(reopened).expect("keys");
    assert_eq!(
        keys.peek("t", "k", "fp", 10).expect("peek"),
        Reservation::Replay(Ok(json!({"id": 1})))
    );
    let previews = SqlitePreviewStore::open(&path).expect("previews");
    assert!(matches!(
        previews.consume("t", "pv_1", "fp", 10).expect("consume"),
        Consume::Applied(_)
    ));
    assert_eq!(
        previews.consume("t", "pv_1", "fp", 10).expect("consume"),
        Consume::Used
    );
    let tables: i64 = keys
        .connection()
        .lock()
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .expect("tables");
    assert_eq!(tables, 3);
}
