//! What idempotency and rate limits cost on each store: a keyed write, its replay, the rate
//! limit's check of one call, and a plain read of the app's own data on the same backend,
//! the baseline. A replay answers from the stored outcome without running the method, so it
//! should cost about one read (the goal: within 2x of it); the rate check is one statement
//! on the store (one round trip on PostgreSQL). Medians of many calls, measured in one run,
//! printed as ratios:
//!
//! ```text
//! cargo bench -p toolspec-runtime --all-features --bench stores
//! scripts/with-postgres cargo bench -p toolspec-runtime --all-features --bench stores
//! ```
//!
//! Without `TOOLSPEC_POSTGRES_URL` only SQLite is measured.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolspec_runtime::cursor::CursorKey;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::rate::RateLimit;
use toolspec_runtime::sqlite::Database;
use toolspec_runtime::store::PostgresStore;

const CALLS: usize = 400;
const DAY: Duration = Duration::from_secs(86_400);

/// The median of `CALLS` runs of `f`, after a warm-up.
async fn median<F, Fut>(mut f: F) -> Duration
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for i in 0..CALLS / 10 {
        f(1_000_000 + i).await;
    }
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let start = Instant::now();
        f(i).await;
        times.push(start.elapsed());
    }
    times.sort();
    times[CALLS / 2]
}

struct Row {
    backend: &'static str,
    read: Duration,
    replay: Duration,
    write: Duration,
    admit: Duration,
}

/// A limit no call of the bench reaches: every check admits, the path a call under its
/// limit takes.
const LIMIT: RateLimit = RateLimit::new("bench_read", u32::MAX, Duration::from_secs(86_400));

/// The median cost of one rate-limit check on `rt`'s store.
async fn admit(rt: &Runtime) -> Duration {
    median(|_| {
        let rt = rt.clone();
        async move {
            rt.admit("bench_read", Some(&LIMIT))
                .await
                .expect("admitted")
        }
    })
    .await
}

/// The medians of a replay of one key and of a keyed write with a fresh key each time, on
/// `rt` with `write_one(rt, key)`.
async fn keyed<F, Fut>(rt: &Runtime, write_one: F) -> (Duration, Duration)
where
    F: Fn(Runtime, String) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    write_one(rt.clone(), "fixed".into()).await;
    let replay = median(|_| {
        let v = write_one(rt.clone(), "fixed".into());
        async move { assert_eq!(v.await["replayed"], true) }
    })
    .await;
    let write = median(|i| {
        let v = write_one(rt.clone(), format!("k-{i}"));
        async move {
            std::hint::black_box(v.await);
        }
    })
    .await;
    (replay, write)
}

/// The memory store, beside a read of the app's data in memory (a map behind a mutex).
async fn memory() -> Row {
    let items = std::sync::Mutex::new(std::collections::HashMap::from([(1_u64, "one".to_owned())]));
    let read = median(|_| {
        let k = items.lock().expect("items").get(&1).cloned();
        std::hint::black_box(k);
        async {}
    })
    .await;
    let rt = Runtime::in_memory().expect("random");
    let write_one = |rt: Runtime, key: String| async move {
        rt.idempotent("bench_write", Some(&key), "fp", DAY, |_work| async move {
            Ok(json!({"ok": true}))
        })
        .await
        .expect("write")
    };
    let (replay, write) = keyed(&rt, write_one).await;
    Row {
        backend: "memory",
        read,
        replay,
        write,
        admit: admit(&rt).await,
    }
}

async fn sqlite() -> Row {
    let dir = std::env::temp_dir().join(format!("toolspec-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = Database::open(dir.join("bench.db")).expect("open");
    db.try_lock()
        .expect("free")
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, k TEXT NOT NULL);
             INSERT OR IGNORE INTO items (id, k) VALUES (1, 'one');",
        )
        .expect("app table");
    let rt = Runtime::sqlite(db.clone(), CursorKey::from_bytes(b"bench key")).expect("stores");
    let read = median(|_| {
        let db = db.clone();
        async move {
            // The fastest plain read: a cached statement, as the runtime's own.
            let k: String = db
                .lock()
                .await
                .expect("outside a unit of work")
                .prepare_cached("SELECT k FROM items WHERE id = 1")
                .expect("prepare")
                .query_row([], |r| r.get(0))
                .expect("read");
            std::hint::black_box(k);
        }
    })
    .await;
    let write_one = |rt: Runtime, key: String| async move {
        rt.idempotent("bench_write", Some(&key), "fp", DAY, |work| async move {
            work.sqlite(|c| Ok(c.execute("INSERT INTO items (k) VALUES ('w')", [])?))?;
            Ok(json!({"ok": true}))
        })
        .await
        .expect("write")
    };
    let (replay, write) = keyed(&rt, write_one).await;
    let admit = admit(&rt).await;
    let _ = std::fs::remove_dir_all(&dir);
    Row {
        backend: "SQLite",
        read,
        replay,
        write,
        admit,
    }
}

async fn postgres(url: &str) -> Row {
    let schema = format!("bench_{}", std::process::id());
    let store = PostgresStore::new(url, Some(&schema)).expect("store");
    let key = store.cursor_key().await.expect("key");
    store
        .client()
        .await
        .expect("connection")
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS items (id BIGSERIAL PRIMARY KEY, k TEXT NOT NULL);
             INSERT INTO items (k) SELECT 'one' WHERE NOT EXISTS (SELECT 1 FROM items);",
        )
        .await
        .expect("app table");
    let rt = Runtime::new(key, Arc::new(store.clone()));
    let read = median(|_| {
        let store = store.clone();
        async move {
            let client = store.client().await.expect("connection");
            let row = client
                .query_one("SELECT k FROM items WHERE id = 1", &[])
                .await
                .expect("read");
            std::hint::black_box(row.get::<_, String>(0));
        }
    })
    .await;
    let write_one = |rt: Runtime, key: String| async move {
        rt.idempotent("bench_write", Some(&key), "fp", DAY, |work| async move {
            let db = work.postgres()?;
            db.execute("INSERT INTO items (k) VALUES ('w')", &[])
                .await
                .map_err(toolspec_runtime::ToolError::internal)?;
            Ok(json!({"ok": true}))
        })
        .await
        .expect("write")
    };
    let (replay, write) = keyed(&rt, write_one).await;
    Row {
        backend: "PostgreSQL",
        read,
        replay,
        write,
        admit: admit(&rt).await,
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let mut rows = vec![rt.block_on(memory()), rt.block_on(sqlite())];
    if let Some(url) = std::env::var("TOOLSPEC_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        rows.push(rt.block_on(postgres(&url)));
    }
    println!("median of {CALLS} calls each; ratios against the plain read on the same backend");
    println!(
        "{:<11} {:>12} {:>12} {:>8} {:>12} {:>8} {:>12} {:>8}",
        "backend", "read", "replay", "x read", "keyed write", "x read", "rate check", "x read"
    );
    for r in rows {
        let x = |d: Duration| d.as_secs_f64() / r.read.as_secs_f64();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{:<11} {:>10.2}µs {:>10.1}µs {:>7.2}x {:>10.1}µs {:>7.2}x {:>10.2}µs {:>7.2}x",
            r.backend,
            us(r.read),
            us(r.replay),
            x(r.replay),
            us(r.write),
            x(r.write),
            us(r.admit),
            x(r.admit),
        );
    }
}
