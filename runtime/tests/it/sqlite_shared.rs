//! One SQLite file for the app's tables and the runtime's records (feature `sqlite`): units
//! of work that commit the app's writes with the records or not at all, leases and fencing
//! across two handles (as two processes), and files written by the previous release.
#![cfg(feature = "sqlite")]

use crate::common;

use common::TempDir;
use serde_json::json;
use toolspec_runtime::preview::{Consume, StoredPreview};
use toolspec_runtime::sqlite::Database;
use toolspec_runtime::store::{
    KeyRef, KeyStore, OutboxStore, PreviewStore, Reservation, SqliteStore, WorkStore,
};

const KEY: KeyRef<'static> = KeyRef {
    tool: "t",
    key: "k",
};

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn open(path: &std::path::Path) -> (Database, SqliteStore) {
    let db = Database::open(path).expect("open");
    let store = SqliteStore::new(db.clone()).expect("tables");
    (db, store)
}

fn token(r: Reservation) -> String {
    match r {
        Reservation::Leased { token, .. } => token,
        other => panic!("expected a lease, got {other:?}"),
    }
}

#[test]
fn a_unit_of_work_commits_the_apps_write_with_the_keys_outcome_or_neither() {
    let dir = TempDir::new();
    let (db, store) = open(&dir.path().join("app.db"));
    db.try_lock()
        .unwrap()
        .execute_batch("CREATE TABLE tickets (id TEXT PRIMARY KEY)")
        .expect("app table");
    block(async {
        // Rolled back: dropped without commit.
        let t = token(store.lease(KEY, "fp", 0, 86_400_000, 1_000).await.unwrap());
        let mut tx = store.begin().await.unwrap();
        assert!(tx.holds(KEY, &t).await.unwrap());
        tx.complete(KEY, &Ok(json!({"id": 1}))).await.unwrap();
        tx.push_outbox("email", &json!({"to": "a@b.c"}), 0)
            .await
            .unwrap();
        drop(tx);
        assert_eq!(
            store.peek(KEY, "fp", 10).await.unwrap(),
            Reservation::InProgress {
                lease_until_ms: 1_000
            }
        );
        assert!(store.outbox_pending(10).await.unwrap().is_empty());

        // Committed: the outcome and the outbox message together.
        let mut tx = store.begin().await.unwrap();
        tx.complete(KEY, &Ok(json!({"id": 1}))).await.unwrap();
        let id = tx
            .push_outbox("email", &json!({"to": "a@b.c"}), 0)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert_eq!(
            store.peek(KEY, "fp", 10).await.unwrap(),
            Reservation::Replay(Ok(json!({"id": 1})))
        );
        let pending = store.outbox_pending(10).await.unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].id, id);
        store.outbox_settle(&id, true, 5).await.unwrap();
        assert!(store.outbox_pending(10).await.unwrap().is_empty());
    });
    let mode: String = db
        .try_lock()
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
}

#[test]
fn a_lapsed_lease_is_taken_over_and_the_old_holder_is_fenced_off() {
    let dir = TempDir::new();
    let path = dir.path().join("app.db");
    let (_db_a, a) = open(&path);
    let (_db_b, b) = open(&path);
    block(async {
        let first = token(a.lease(KEY, "fp", 0, 86_400_000, 1_000).await.unwrap());
        // While the lease lives, the other process hears "in progress" until its end.
        assert_eq!(
            b.lease(KEY, "fp", 500, 86_400_000, 1_000).await.unwrap(),
            Reservation::InProgress {
                lease_until_ms: 1_000
            }
        );
        // After it, the key is leased again: nothing of the first holder committed.
        let second = token(b.lease(KEY, "fp", 1_000, 86_400_000, 1_000).await.unwrap());
        assert_ne!(first, second);
        // The first holder wakes up: its commit must not count.
        let mut late = a.begin().await.unwrap();
        assert!(!late.holds(KEY, &first).await.unwrap());
        drop(late);
        assert!(!a.complete(KEY, &first, &Ok(json!(1))).await.unwrap());
        // Only the current holder's release or outcome counts.
        a.release(KEY, &first).await.unwrap();
        assert!(matches!(
            b.peek(KEY, "fp", 1_100).await.unwrap(),
            Reservation::InProgress { .. }
        ));
        assert!(b.complete(KEY, &second, &Ok(json!(2))).await.unwrap());
        assert_eq!(
            a.peek(KEY, "fp", 1_200).await.unwrap(),
            Reservation::Replay(Ok(json!(2)))
        );
        assert_eq!(
            a.lease(KEY, "other", 1_200, 86_400_000, 1_000)
                .await
                .unwrap(),
            Reservation::Mismatch
        );
    });
}

#[test]
fn a_preview_is_used_only_by_a_committed_unit_of_work() {
    let dir = TempDir::new();
    let (_db, store) = open(&dir.path().join("app.db"));
    let preview = StoredPreview {
        id: "pv_1".into(),
        tool: "t".into(),
        fingerprint: "fp".into(),
        preview: json!({"n": 1}),
        expires_at_ms: 1_000,
    };
    block(async {
        store.insert_preview(&preview, 0).await.unwrap();
        let mut tx = store.begin().await.unwrap();
        assert!(matches!(
            tx.consume_preview("t", "pv_1", "fp", 10).await.unwrap(),
            Consume::Applied(_)
        ));
        drop(tx);
        assert!(matches!(
            store.check_preview("t", "pv_1", "fp", 10).await.unwrap(),
            Consume::Applied(_)
        ));
        let mut tx = store.begin().await.unwrap();
        assert!(matches!(
            tx.consume_preview("t", "pv_1", "fp", 10).await.unwrap(),
            Consume::Applied(_)
        ));
        tx.commit().await.unwrap();
        assert_eq!(
            store.check_preview("t", "pv_1", "fp", 10).await.unwrap(),
            Consume::Used
        );
    });
}

#[test]
fn a_file_of_the_previous_release_opens_with_its_stuck_keys_freed() {
    let dir = TempDir::new();
    let path = dir.path().join("old.db");
    {
        let old = rusqlite::Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE toolspec_idempotency (
                tool TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')), result TEXT,
                created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                PRIMARY KEY (tool, key));
             CREATE TABLE toolspec_previews (
                id TEXT PRIMARY KEY, tool TEXT NOT NULL, fingerprint TEXT NOT NULL,
                preview TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                used_at INTEGER);
             INSERT INTO toolspec_idempotency VALUES ('t', 'stuck', 'fp', 'in_progress', NULL, 0, 86400000);
             INSERT INTO toolspec_idempotency VALUES ('t', 'done', 'fp', 'done', '{\"ok\":{\"id\":7}}', 0, 86400000);
             INSERT INTO toolspec_previews VALUES ('pv_old', 't', 'fp', '{}', 0, 1000000, 5);",
        )
        .unwrap();
    }
    let (_db, store) = open(&path);
    block(async {
        assert!(matches!(
            store
                .lease(
                    KeyRef {
                        tool: "t",
                        key: "stuck"
                    },
                    "fp",
                    10,
                    86_400_000,
                    1_000
                )
                .await
                .unwrap(),
            Reservation::Leased { .. }
        ));
        assert_eq!(
            store
                .peek(
                    KeyRef {
                        tool: "t",
                        key: "done"
                    },
                    "fp",
                    10
                )
                .await
                .unwrap(),
            Reservation::Replay(Ok(json!({"id": 7})))
        );
        assert_eq!(
            store.check_preview("t", "pv_old", "fp", 10).await.unwrap(),
            Consume::Used
        );
    });
}
