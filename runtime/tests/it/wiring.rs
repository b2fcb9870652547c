//! Mistakes in how a server is put together are refused at once, with a message that names
//! the call that fixes them: never a hang, never an error that says to retry.
//!
//! The trap: inside a write method the unit of work holds the store's connection, so
//! taking that connection again would wait forever (SQLite) or read and write beside the
//! transaction (PostgreSQL).

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;

const DAY: Duration = Duration::from_secs(86_400);

/// A hang shows as this timeout, not as a test that never ends.
const PATIENCE: Duration = Duration::from_secs(10);

/// The cause an `internal_error` was logged with.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn cause(e: &ToolError) -> String {
    let incident = e.details["incident"].as_str().expect("an incident id");
    toolspec_runtime::gauntlet::incident_cause(incident).expect("the incident is kept")
}

/// Runs `method` as the write method of one call, failing the test on a hang.
async fn write<F, Fut>(rt: &Runtime, method: F) -> Result<Value, ToolError>
where
    F: FnOnce(toolspec_runtime::store::Work) -> Fut,
    Fut: std::future::Future<Output = Result<Value, ToolError>>,
{
    tokio::time::timeout(
        PATIENCE,
        rt.idempotent("items_reserve", None, "fp", DAY, method),
    )
    .await
    .expect("the call ended instead of waiting forever")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taking_the_shared_connection_inside_a_unit_of_work_is_refused_at_once_on_every_store() {
    for kind in kinds() {
        match kind {
            // The memory store holds no connection of the app's: the method's own locks
            // are its own, and taking one inside the unit of work is fine.
            Kind::Memory => {
                let rt = Runtime::open(Arc::new(toolspec_runtime::store::MemoryStore::new()))
                    .await
                    .expect("runtime");
                let stock = Arc::new(Mutex::new(5));
                let in_method = stock.clone();
                let done = write(&rt, |work| async move {
                    let left = *in_method.lock().unwrap() - 1;
                    work.on_commit(move || *in_method.lock().unwrap() = left);
                    Ok(json!({ "left": left }))
                })
                .await
                .expect("a memory write takes its own lock");
                assert_eq!(done["left"], 4);
                assert_eq!(*stock.lock().unwrap(), 4);
            }
            #[cfg(feature = "sqlite")]
            Kind::Sqlite => {
                use toolspec_runtime::sqlite::Database;
                use toolspec_runtime::store::SqliteStore;
                let dir = TempDir::new();
                let db = Database::open(dir.path().join("app.db")).expect("open");
                let rt = Runtime::open(Arc::new(SqliteStore::new(db.clone()).expect("store")))
                    .await
                    .expect("runtime");
                let in_method = db.clone();
                let e = write(&rt, |_work| async move {
                    let conn = in_method.lock().await?;
                    let n: i64 = conn.query_row("SELECT 1", [], |r| r.get(0))?;
                    Ok(json!({ "n": n }))
                })
                .await
                .expect_err("refused");
                assert_eq!(e.code, "internal_error");
                assert!(!e.retryable, "a retry meets the same mistake: {e:?}");
                assert!(
                    e.message.contains("retrying will not help"),
                    "{}",
                    e.message
                );
                let cause = cause(&e);
                assert!(cause.contains("Database::lock"), "{cause}");
                assert!(cause.contains("work.sqlite(|conn| ...)"), "{cause}");
                // Outside a write method the same lock is the way to read.
                let conn = db.lock().await.expect("a read outside the unit of work");
                let n: i64 = conn.query_row("SELECT 2", [], |r| r.get(0)).expect("read");
                assert_eq!(n, 2);
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres => {
                use toolspec_runtime::store::PostgresStore;
                let url = postgres_url().expect("kinds() lists Postgres only with a URL");
                let store = PostgresStore::new(&url, Some(&fresh_schema())).expect("store");
                let rt = Runtime::open(Arc::new(store.clone()))
                    .await
                    .expect("runtime");
                let in_method = store.clone();
                let e = write(&rt, |_work| async move {
                    let client = in_method.client().await?;
                    client.simple_query("SELECT 1").await?;
                    Ok(json!({}))
                })
                .await
                .expect_err("refused");
                assert_eq!(e.code, "internal_error");
                assert!(!e.retryable, "a retry meets the same mistake: {e:?}");
                let cause = cause(&e);
                assert!(cause.contains("PostgresStore::client"), "{cause}");
                assert!(cause.contains("work.postgres()"), "{cause}");
                // Outside a write method the pool is the way to read.
                let client = store
                    .client()
                    .await
                    .expect("a read outside the unit of work");
                client.simple_query("SELECT 1").await.expect("read");
            }
        }
    }
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_unit_of_work_closure_returns_the_toolsets_own_error_and_its_writes_roll_back() {
    use toolspec_runtime::sqlite::Database;
    use toolspec_runtime::store::SqliteStore;
    let dir = TempDir::new();
    let db = Database::open(dir.path().join("app.db")).expect("open");
    db.try_lock()
        .expect("free")
        .execute_batch("CREATE TABLE stock (item TEXT PRIMARY KEY, left INTEGER NOT NULL);")
        .expect("table");
    let rt = Runtime::open(Arc::new(SqliteStore::new(db.clone()).expect("store")))
        .await
        .expect("runtime");
    let e = write(&rt, |work| async move {
        // A catalog error found inside the transaction, after a write: returned with `?`
        // from the closure, no `Ok(Err(..))`.
        work.sqlite(|conn| {
            conn.execute("INSERT INTO stock VALUES ('bolt', 0)", [])?;
            let left: i64 =
                conn.query_row("SELECT left FROM stock WHERE item = 'bolt'", [], |r| {
                    r.get(0)
                })?;
            if left == 0 {
                return Err(ToolError::new(
                    "out_of_stock",
                    "No bolts left.",
                    false,
                    json!({}),
                ));
            }
            Ok(())
        })?;
        Ok(json!({}))
    })
    .await
    .expect_err("out of stock");
    assert_eq!(e.code, "out_of_stock");
    let rows: i64 = db
        .lock()
        .await
        .expect("free")
        .query_row("SELECT COUNT(*) FROM stock", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, 0, "the refused call's insert rolled back");
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn work_sqlite_on_a_runtime_not_built_on_the_database_names_the_call_that_fixes_it() {
    let rt = Runtime::in_memory().expect("runtime");
    let e = write(&rt, |work| async move {
        work.sqlite(|conn| Ok(conn.execute_batch("SELECT 1")?))?;
        Ok(json!({}))
    })
    .await
    .expect_err("not a SQLite unit of work");
    assert!(!e.retryable);
    let cause = cause(&e);
    assert!(
        cause.contains("runtime.with_store(Arc::new(SqliteStore::new(db)?))"),
        "{cause}"
    );
    assert!(cause.contains("Runtime::sqlite(db, cursor_key)"), "{cause}");
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn the_sqlite_file_keeps_the_cursor_key_for_every_process_on_it() {
    use toolspec_runtime::sqlite::Database;
    use toolspec_runtime::store::{CursorKeyStore, SqliteStore};
    let dir = TempDir::new();
    let path = dir.path().join("app.db");
    let first = SqliteStore::new(Database::open(&path).expect("open")).expect("store");
    let a = CursorKeyStore::cursor_key(&first).await.expect("key");
    // Another process (another connection) on the same file, and a restart: the same key.
    let second = SqliteStore::new(Database::open(&path).expect("open")).expect("store");
    let b = CursorKeyStore::cursor_key(&second).await.expect("key");
    assert_eq!(a.encode("t", "fp", 5), b.encode("t", "fp", 5));
    // Another file has its own.
    let other = SqliteStore::new(Database::open(dir.path().join("other.db")).expect("open"))
        .expect("store");
    let c = CursorKeyStore::cursor_key(&other).await.expect("key");
    assert_ne!(a.encode("t", "fp", 5), c.encode("t", "fp", 5));
}

#[tokio::test]
async fn a_memory_store_keeps_one_cursor_key_for_its_clones() {
    use toolspec_runtime::store::{CursorKeyStore, MemoryStore};
    let store = MemoryStore::new();
    let a = store.cursor_key().await.expect("key");
    let b = store.clone().cursor_key().await.expect("key");
    assert_eq!(a.encode("t", "fp", 5), b.encode("t", "fp", 5));
    let c = MemoryStore::new().cursor_key().await.expect("key");
    assert_ne!(a.encode("t", "fp", 5), c.encode("t", "fp", 5));
}
