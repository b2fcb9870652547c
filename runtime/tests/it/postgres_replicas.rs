//! Several replicas on one PostgreSQL database: three runtimes, each with its own store
//! and connection pool (as three server processes would have), sharing one schema. The
//! effect of each call is a row the method inserts through `Work::postgres`, in the unit of
//! work, so "one effect per key" is counted in the database itself.
//!
//! Runs when `TOOLSPEC_POSTGRES_URL` is set (`scripts/with-postgres`; `scripts/test` does it).

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::store::PostgresStore;
use toolspec_runtime::validate::prepare;

const DAY: Duration = Duration::from_secs(86_400);

/// Three replicas on one fresh schema, with the app's `effects` table made there; `None`
/// when no server is configured.
async fn replicas() -> Option<(Vec<Runtime>, PostgresStore)> {
    let url = postgres_url()?;
    let schema = fresh_schema();
    let admin = PostgresStore::new(&url, Some(&schema)).expect("store");
    // The shared cursor key: the first replica to ask makes it, the others read it.
    let key = admin.cursor_key().await.expect("cursor key");
    admin
        .client()
        .await
        .expect("connection")
        .batch_execute("CREATE TABLE effects (id BIGSERIAL PRIMARY KEY, k TEXT NOT NULL)")
        .await
        .expect("app table");
    let mut out = Vec::new();
    for _ in 0..3 {
        let store = PostgresStore::new(&url, Some(&schema)).expect("store");
        let shared = store.cursor_key().await.expect("cursor key");
        assert_eq!(
            shared.encode("t", "f", 7),
            key.encode("t", "f", 7),
            "every replica signs with the same key"
        );
        out.push(Runtime::new(shared, Arc::new(store)));
    }
    Some((out, admin))
}

/// A keyed write whose effect is one row in `effects`, in the unit of work.
async fn place(rt: &Runtime, key: &str) -> Result<Value, ToolError> {
    let args = json!({"email": "a@b.co", "items": [{"sku": "ABC-1"}], "idempotency_key": key});
    let args = prepare(&ORDER, ORDER_EXAMPLE, args)?;
    let fp = fingerprint(&args);
    let k = key.to_owned();
    rt.idempotent("orders_place", Some(key), &fp, DAY, |work| async move {
        let db = work.postgres()?;
        let row = db
            .query_one("INSERT INTO effects (k) VALUES ($1) RETURNING id", &[&k])
            .await
            .map_err(ToolError::internal)?;
        let id: i64 = row.get(0);
        Ok(json!({"order_id": format!("O-{id}")}))
    })
    .await
}

async fn effects(admin: &PostgresStore, key: &str) -> i64 {
    let client = admin.client().await.expect("connection");
    client
        .query_one("SELECT COUNT(*) FROM effects WHERE k = $1", &[&key])
        .await
        .expect("count")
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_calls_with_one_key_across_three_replicas_make_one_effect() {
    let Some((replicas, admin)) = replicas().await else {
        return;
    };
    let mut calls = Vec::new();
    for i in 0..32 {
        let rt = replicas[i % 3].clone();
        calls.push(tokio::spawn(async move { place(&rt, "same-key").await }));
    }
    let mut answers = Vec::new();
    for c in calls {
        answers.push(c.await.expect("task"));
    }
    assert_eq!(
        effects(&admin, "same-key").await,
        1,
        "one effect for the key"
    );
    let ok: Vec<&Value> = answers.iter().filter_map(|a| a.as_ref().ok()).collect();
    assert!(!ok.is_empty(), "{answers:?}");
    let first = ok[0]["order_id"].clone();
    for a in &answers {
        match a {
            // Every success is the one effect: run once, replayed for the others.
            Ok(v) => assert_eq!(v["order_id"], first, "{answers:?}"),
            // The others were told the truth: the key is held by a call still running.
            Err(e) => assert_eq!(e.code, "idempotency_in_progress", "{e:?}"),
        }
    }
    assert_eq!(
        ok.iter().filter(|v| v["replayed"] == false).count(),
        1,
        "exactly one answer ran the write: {answers:?}"
    );
    // Once done, every replica replays it.
    for rt in &replicas {
        let again = place(rt, "same-key").await.expect("replay");
        assert_eq!(again["order_id"], first);
        assert_eq!(again["replayed"], true);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_distinct_keys_across_three_replicas_all_commit() {
    let Some((replicas, admin)) = replicas().await else {
        return;
    };
    let mut calls = Vec::new();
    for i in 0..32 {
        let rt = replicas[i % 3].clone();
        calls.push(tokio::spawn(
            async move { place(&rt, &format!("k-{i}")).await },
        ));
    }
    for c in calls {
        let answer = c.await.expect("task");
        // No internal_error, no lost write: each key ran once.
        let v = answer.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(v["replayed"], false);
    }
    for i in 0..32 {
        assert_eq!(effects(&admin, &format!("k-{i}")).await, 1, "k-{i}");
    }
}

/// A call that fails after its SQL ran leaves no row behind, and its key is free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_method_rolls_its_sql_back() {
    let Some((replicas, admin)) = replicas().await else {
        return;
    };
    let args = json!({"email": "a@b.co", "items": [{"sku": "ABC-1"}], "idempotency_key": "flaky"});
    let args = prepare(&ORDER, ORDER_EXAMPLE, args).unwrap();
    let fp = fingerprint(&args);
    let e = replicas[0]
        .idempotent("orders_place", Some("flaky"), &fp, DAY, |work| async move {
            let db = work.postgres()?;
            db.execute("INSERT INTO effects (k) VALUES ('flaky')", &[])
                .await
                .map_err(ToolError::internal)?;
            Err::<Value, _>(ToolError::new(
                "rate_limited",
                "Busy; try again in a second.",
                true,
                json!({}),
            ))
        })
        .await
        .expect_err("the method failed");
    assert!(e.retryable);
    assert_eq!(effects(&admin, "flaky").await, 0, "rolled back");
    let v = place(&replicas[1], "flaky").await.expect("the retry runs");
    assert_eq!(v["replayed"], false);
    assert_eq!(effects(&admin, "flaky").await, 1);
}
