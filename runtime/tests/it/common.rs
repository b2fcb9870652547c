//! Shared fixtures: a tickets-like input table, runtimes over each store kind with a manual
//! clock, and a temp dir for SQLite files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use toolspec_runtime::clock::ManualClock;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::validate::*;

pub static SKU: Pattern = Pattern::new("^[A-Z]{3}-[0-9]+$");
pub static ITEM: ObjectShape = ObjectShape::new(&[
    Field::required("sku", Shape::String(StringShape::new().pattern(&SKU))),
    Field::optional("quantity", Shape::integer(Some(1), Some(99))).default_json("1"),
    Field::optional("gift", Shape::Boolean),
]);
pub static ITEMS: ArrayShape = ArrayShape::new(Shape::Object(&ITEM)).items(1, 5);
pub static FILTER: ObjectShape = ObjectShape::new(&[
    Field::optional(
        "since",
        Shape::String(StringShape::new().format(Format::Date)),
    ),
    Field::optional("tag", Shape::String(StringShape::new())).default_json("\"any\""),
]);
pub static SEARCH: ObjectShape = ObjectShape::new(&[
    Field::required(
        "query",
        Shape::String(StringShape::new().length(Some(1), Some(20))),
    ),
    Field::optional(
        "status",
        Shape::String(StringShape::new().one_of(&["open", "pending", "closed"])),
    ),
    Field::optional("limit", Shape::integer(Some(1), Some(100))).default_json("20"),
    Field::optional("cursor", Shape::String(StringShape::new())),
]);
pub static ORDER: ObjectShape = ObjectShape::new(&[
    Field::required(
        "email",
        Shape::String(StringShape::new().format(Format::Email)),
    ),
    Field::required("items", Shape::Array(&ITEMS)),
    Field::optional("weight", Shape::number(Some(0.0), Some(50.5))),
    Field::optional("filter", Shape::Object(&FILTER)).default_json("{}"),
    Field::optional("meta", Shape::Any),
    Field::optional(
        "idempotency_key",
        Shape::String(StringShape::new().length(Some(1), Some(255))),
    ),
]);
pub const SEARCH_EXAMPLE: &str = r#"{"query":"refund","status":"open","limit":10}"#;
pub const ORDER_EXAMPLE: &str = r#"{"email":"a@example.com","items":[{"sku":"ABC-1"}]}"#;

/// Which store backs a runtime under test.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Memory,
    #[cfg(feature = "sqlite")]
    Sqlite,
    /// The server `TOOLSPEC_POSTGRES_URL` names (`scripts/with-postgres` starts one), each
    /// runtime in a schema of its own.
    #[cfg(feature = "postgres")]
    Postgres,
}

pub fn kinds() -> Vec<Kind> {
    #[allow(unused_mut)]
    let mut out = vec![
        Kind::Memory,
        #[cfg(feature = "sqlite")]
        Kind::Sqlite,
    ];
    #[cfg(feature = "postgres")]
    if postgres_url().is_some() {
        out.push(Kind::Postgres);
    }
    out
}

/// The PostgreSQL server the tests may use. `scripts/test` starts one and sets
/// `TOOLSPEC_REQUIRE_POSTGRES=1`, so that there a missing server fails the run instead of
/// skipping the PostgreSQL cases.
pub fn postgres_url() -> Option<String> {
    let url = std::env::var("TOOLSPEC_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty());
    if url.is_none() && std::env::var("TOOLSPEC_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
        panic!(
            "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set (run under scripts/with-postgres)"
        );
    }
    url
}

/// A schema name no other runtime of this test run uses.
#[cfg(feature = "postgres")]
pub fn fresh_schema() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "t_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// A runtime of `kind` with a manual clock at a fixed instant (2025-01-31T09:30:00Z).
pub fn runtime(kind: Kind) -> (Runtime, Arc<ManualClock>, Option<TempDir>) {
    let clock = Arc::new(ManualClock::new(1_738_315_800_000));
    match kind {
        Kind::Memory => {
            let rt = Runtime::in_memory()
                .expect("random")
                .with_clock(clock.clone());
            (rt, clock, None)
        }
        #[cfg(feature = "sqlite")]
        Kind::Sqlite => {
            use toolspec_runtime::cursor::CursorKey;
            let key = CursorKey::from_bytes(b"test key, 32 bytes long.........");
            let dir = TempDir::new();
            let conn =
                toolspec_runtime::sqlite::Database::open(dir.path().join("app.db")).expect("open");
            let rt = Runtime::sqlite(conn, key)
                .expect("stores")
                .with_clock(clock.clone());
            (rt, clock, Some(dir))
        }
        #[cfg(feature = "postgres")]
        Kind::Postgres => {
            use toolspec_runtime::cursor::CursorKey;
            let url = postgres_url().expect("kinds() lists Postgres only with a URL");
            let store = toolspec_runtime::store::PostgresStore::new(&url, Some(&fresh_schema()))
                .expect("store");
            let key = CursorKey::from_bytes(b"test key, 32 bytes long.........");
            let rt = Runtime::new(key, Arc::new(store)).with_clock(clock.clone());
            (rt, clock, None)
        }
    }
}

/// A directory removed on drop (no `tempfile` dependency needed for this).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolspec-runtime-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A host that answers every approval request with `answer` and counts the requests.
pub struct ScriptedHost {
    pub answer: toolspec_runtime::engine::HostAnswer,
    pub asked: std::sync::Mutex<Vec<toolspec_runtime::engine::ApprovalRequest>>,
}

impl ScriptedHost {
    pub fn new(answer: toolspec_runtime::engine::HostAnswer) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: Default::default(),
        })
    }
}

impl toolspec_runtime::engine::Host for ScriptedHost {
    fn name(&self) -> String {
        "host:scripted".into()
    }

    fn ask<'a>(
        &'a self,
        request: &'a toolspec_runtime::engine::ApprovalRequest,
    ) -> toolspec_runtime::engine::BoxFuture<'a, toolspec_runtime::engine::HostAnswer> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(std::future::ready(self.answer.clone()))
    }
}
