//! Three tickets-server replicas on one PostgreSQL database, through the server binary over
//! stdio: concurrent applies spread across them, a replica killed with SIGKILL mid-apply and
//! the retries sent through the others, a cursor one replica issued used on another, and
//! concurrent status changes. What every agent was told must match what the database holds.
//!
//! Each test gets a database of its own on the server `TOOLSPEC_POSTGRES_URL` names
//! (scripts/test starts one and requires it; without it these tests have nothing to run).

use crate::failures::{apply_args, judge, preview_id};
use crate::support;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Answer, Server, answer, create_args};

/// A fresh database on the test server, and its URL; `None` without a server.
fn database(name: &str) -> Option<(String, Db)> {
    let base = std::env::var("TOOLSPEC_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty());
    let Some(base) = base else {
        assert!(
            std::env::var("TOOLSPEC_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set"
        );
        return None;
    };
    let db = format!("{name}_{}", std::process::id());
    let admin = Db::connect(&base);
    admin.batch(&format!("DROP DATABASE IF EXISTS {db}"));
    admin.batch(&format!("CREATE DATABASE {db}"));
    let url = format!(
        "{}/{db}",
        base.rsplit_once('/').expect("a URL with a database").0
    );
    let conn = Db::connect(&url);
    Some((url, conn))
}

/// A blocking client for the test's own queries.
struct Db {
    rt: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
}

impl Db {
    fn connect(url: &str) -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let client = rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .expect("connect");
            tokio::spawn(conn);
            client
        });
        Db { rt, client }
    }

    fn batch(&self, sql: &str) {
        self.rt
            .block_on(self.client.batch_execute(sql))
            .expect("sql");
    }

    fn count(&self, sql: &str, arg: &str) -> i64 {
        self.rt
            .block_on(self.client.query_one(sql, &[&arg]))
            .expect("query")
            .get(0)
    }

    fn status(&self, num: i64) -> String {
        self.rt
            .block_on(
                self.client
                    .query_one("SELECT status FROM tickets WHERE num = $1", &[&num]),
            )
            .expect("query")
            .get(0)
    }
}

fn start(url: &str, args: &[&str]) -> Server {
    Server::start(Path::new(url), args)
}

#[test]
fn three_replicas_apply_32_keys_and_one_key_32_times_with_one_effect_each() {
    let Some((url, db)) = database("replicas") else {
        return;
    };
    let replicas = [start(&url, &[]), start(&url, &[]), start(&url, &[])];

    // 32 distinct keys, spread over the replicas, all in flight at once.
    let previews: Vec<String> = (0..32)
        .map(|i| preview_id(&replicas[i % 3].call_wait("tickets_create", create_args(i))))
        .collect();
    // A preview made on one replica is applied on another.
    let inflight: Vec<_> = (0..32)
        .map(|i| replicas[(i + 1) % 3].call("tickets_create", apply_args(i, &previews[i])))
        .collect();
    let mut numbers = HashSet::new();
    for (i, rx) in inflight.iter().enumerate() {
        match answer(rx) {
            Answer::Ok(v) => {
                assert_eq!(v["replayed"], false);
                assert!(numbers.insert(v["ticket"]["ticket_id"].as_str().unwrap().to_owned()));
            }
            other => panic!("apply {i} failed (no internal_error expected): {other:?}"),
        }
    }
    for i in 0..32 {
        let title = format!("crash test ticket {i}");
        assert_eq!(
            db.count("SELECT COUNT(*) FROM tickets WHERE title = $1", &title),
            1,
            "key {i}"
        );
    }

    // One key, one preview, 32 applies across the three: one ticket.
    let one = json!({"title": "one effect", "customer_email": "one@example.com", "idempotency_key": "the-one"});
    let id = preview_id(&replicas[0].call_wait("tickets_create", one.clone()));
    let mut apply = one.clone();
    apply["preview_id"] = json!(id);
    let inflight: Vec<_> = (0..32)
        .map(|i| replicas[i % 3].call("tickets_create", apply.clone()))
        .collect();
    let mut tickets = HashSet::new();
    for rx in &inflight {
        match answer(rx) {
            Answer::Ok(v) => {
                tickets.insert(v["ticket"]["ticket_id"].as_str().unwrap().to_owned());
            }
            Answer::Err(e) => assert_eq!(e["code"], "idempotency_in_progress", "{e}"),
            Answer::Lost => panic!("a replica died"),
        }
    }
    assert_eq!(tickets.len(), 1, "{tickets:?}");
    assert_eq!(
        db.count(
            "SELECT COUNT(*) FROM tickets WHERE title = $1",
            "one effect"
        ),
        1
    );
}

#[test]
fn a_replica_killed_mid_apply_leaves_one_ticket_per_key_after_retries_through_the_others() {
    const KEYS: usize = 48;
    const LEASE_S: f64 = 1.0;
    let Some((url, db)) = database("killed") else {
        return;
    };
    // Each replica delivers the email outbox to a mailbox file of its own.
    let dir = support::Scratch::new("killed-mail");
    let mailboxes: Vec<String> = (0..3)
        .map(|n| {
            dir.join(&format!("mailbox-{n}.jsonl"))
                .display()
                .to_string()
        })
        .collect();
    let args = |n: usize| ["--lease", "1", "--mailbox", mailboxes[n].as_str()];
    let doomed = start(&url, &args(0));
    let others = [start(&url, &args(1)), start(&url, &args(2))];
    let previews: Vec<String> = (0..KEYS)
        .map(|i| preview_id(&others[i % 2].call_wait("tickets_create", create_args(i))))
        .collect();
    let mut told: HashMap<usize, String> = HashMap::new();
    // Every apply goes to the replica that dies, which is killed while they run.
    let inflight: Vec<_> = (0..KEYS)
        .map(|i| doomed.call("tickets_create", apply_args(i, &previews[i])))
        .collect();
    std::thread::sleep(Duration::from_millis(15));
    for (i, rx) in inflight.iter().enumerate().take(KEYS / 4) {
        judge(i, &answer(rx), &mut told);
    }
    let answered_before_kill = told.len();
    doomed.kill();
    let killed_at = Instant::now();

    // The agents retry through the other replicas until every key has its answer.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut longest_in_progress = Duration::ZERO;
    loop {
        let pending: Vec<usize> = (0..KEYS).filter(|i| !told.contains_key(i)).collect();
        if pending.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "keys still unanswered: {pending:?}"
        );
        let inflight: Vec<(usize, _)> = pending
            .iter()
            .map(|&i| {
                (
                    i,
                    others[i % 2].call("tickets_create", apply_args(i, &previews[i])),
                )
            })
            .collect();
        for (i, rx) in inflight {
            let a = answer(&rx);
            if a.code() == Some("idempotency_in_progress") {
                longest_in_progress = longest_in_progress.max(killed_at.elapsed());
            }
            judge(i, &a, &mut told);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!(
        "{answered_before_kill} of {KEYS} applies answered before the kill, the rest lost in \
         flight; longest in progress after it {longest_in_progress:?}"
    );
    assert!(
        longest_in_progress <= Duration::from_secs_f64(LEASE_S + 1.0),
        "a key stayed in progress {longest_in_progress:?} after the kill, lease {LEASE_S} s"
    );
    // The database agrees with every agent: one ticket per key, the one it was told.
    for i in 0..KEYS {
        let title = format!("crash test ticket {i}");
        let n = db.count("SELECT COUNT(*) FROM tickets WHERE title = $1", &title);
        assert_eq!(n, 1, "key {i} has {n} tickets");
        let num = db.count("SELECT num FROM tickets WHERE title = $1", &title);
        assert_eq!(told[&i], format!("T-{num}"), "key {i}");
    }
    // Every ticket's email left the outbox (through whichever replica), at least once and
    // always under one message id, the receiver's idempotency key.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut emails: HashMap<String, HashSet<String>> = HashMap::new();
        for mailbox in &mailboxes {
            for line in std::fs::read_to_string(mailbox).unwrap_or_default().lines() {
                let v: serde_json::Value = serde_json::from_str(line).expect("a mailbox line");
                emails
                    .entry(v["ticket_id"].as_str().unwrap_or_default().to_owned())
                    .or_default()
                    .insert(v["id"].as_str().unwrap_or_default().to_owned());
            }
        }
        for (ticket, ids) in &emails {
            assert_eq!(
                ids.len(),
                1,
                "{ticket}: emails under {} message ids",
                ids.len()
            );
            assert!(
                told.values().any(|t| t == ticket),
                "an email for {ticket}, no agent's ticket"
            );
        }
        if told.values().all(|t| emails.contains_key(t)) {
            break;
        }
        assert!(Instant::now() < deadline, "emails still undelivered");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_cursor_from_one_replica_is_accepted_by_another() {
    let Some((url, _db)) = database("cursor") else {
        return;
    };
    let a = start(&url, &["--demo"]);
    let b = start(&url, &[]);
    let first = match a.call_wait("tickets_search", json!({"query": "login", "limit": 5})) {
        Answer::Ok(v) => v,
        other => panic!("{other:?}"),
    };
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let second = match b.call_wait(
        "tickets_search",
        json!({"query": "login", "limit": 5, "cursor": cursor}),
    ) {
        Answer::Ok(v) => v,
        other => panic!("replica b refused replica a's cursor: {other:?}"),
    };
    assert_eq!(second["total"], first["total"]);
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["tickets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["ticket_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (one, two) = (ids(&first), ids(&second));
    assert_eq!(two.len(), 5);
    assert!(one.iter().all(|t| !two.contains(t)), "{one:?} then {two:?}");
}

#[test]
fn concurrent_status_changes_across_replicas_report_what_each_replaced() {
    let Some((url, db)) = database("status") else {
        return;
    };
    let replicas = [start(&url, &["--demo"]), start(&url, &[]), start(&url, &[])];
    let statuses = ["open", "pending", "closed"];
    let inflight: Vec<_> = (0..32)
        .map(|i| {
            replicas[i % 3].call(
                "tickets_update_status",
                json!({"ticket_id": "T-1001", "status": statuses[i % 3], "idempotency_key": format!("s-{i}")}),
            )
        })
        .collect();
    // Each change is an edge previous -> new; without lost updates they make one path from
    // the first status (open) to the last.
    let mut degree: HashMap<String, i64> = HashMap::new();
    for rx in &inflight {
        match answer(rx) {
            Answer::Ok(v) => {
                let from = v["previous_status"].as_str().unwrap().to_owned();
                let to = v["ticket"]["status"].as_str().unwrap().to_owned();
                assert_eq!(
                    v["undo"]["arguments"]["status"],
                    json!(from),
                    "the undo restores what was replaced"
                );
                *degree.entry(from).or_default() += 1;
                *degree.entry(to).or_default() -= 1;
            }
            other => panic!("a status change failed: {other:?}"),
        }
    }
    *degree.entry("open".into()).or_default() -= 1;
    *degree.entry(db.status(1001)).or_default() += 1;
    assert!(degree.values().all(|d| *d == 0), "lost updates: {degree:?}");
}

/// A replica serving stateless HTTP on a free loopback port; killed on drop.
struct HttpReplica {
    child: std::process::Child,
    addr: String,
}

impl HttpReplica {
    fn start(url: &str, args: &[&str]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let addr = format!("127.0.0.1:{port}");
        let child = std::process::Command::new(support::binary())
            .args(["--db", url, "--http", &addr, "--stateless"])
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the server");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(
                Instant::now() < deadline,
                "the replica never listened on {addr}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpReplica { child, addr }
    }

    /// POSTs one JSON-RPC message to `/mcp` with no session; the response's headers
    /// (lower-cased) and its JSON body.
    fn post(&self, message: &serde_json::Value) -> (String, serde_json::Value) {
        use std::io::{Read, Write};
        let body = message.to_string();
        let mut stream = std::net::TcpStream::connect(&self.addr).expect("connect");
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .expect("send");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        (
            head.to_lowercase(),
            serde_json::from_str(body).expect("a JSON body"),
        )
    }

    fn call(&self, id: u64, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
        let (_, body) = self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}
        }));
        body["result"].clone()
    }
}

impl Drop for HttpReplica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Behind a load balancer no request may need the replica that saw the last one: with
/// `--stateless` no session is handed out, and a call sent to another replica than the
/// initialize, a preview made on one and applied on another, and a cursor from one used on
/// another all work.
#[test]
fn stateless_http_lets_any_replica_answer_any_request() {
    let Some((url, db)) = database("stateless") else {
        return;
    };
    let a = HttpReplica::start(&url, &["--demo"]);
    let b = HttpReplica::start(&url, &[]);
    let (head, init) = a.post(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "balancer-test", "version": "1"}}
    }));
    assert!(
        init["result"]["serverInfo"]["name"] == "tickets-server",
        "{init}"
    );
    assert!(
        !head.contains("mcp-session-id"),
        "no session is handed out: {head}"
    );

    let page = b.call(2, "tickets_search", json!({"query": "login", "limit": 5}));
    assert_eq!(page["isError"], false, "{page}");
    let cursor = page["structuredContent"]["next_cursor"]
        .as_str()
        .expect("a next page");
    let next = a.call(
        3,
        "tickets_search",
        json!({"query": "login", "limit": 5, "cursor": cursor}),
    );
    assert_eq!(
        next["structuredContent"]["tickets"]
            .as_array()
            .map(Vec::len),
        Some(5),
        "{next}"
    );

    let create =
        json!({"title": "balanced", "customer_email": "lb@example.com", "idempotency_key": "lb-1"});
    let preview = a.call(4, "tickets_create", create.clone());
    let id = preview["structuredContent"]["preview"]["preview_id"]
        .as_str()
        .expect("a preview")
        .to_owned();
    let mut apply = create;
    apply["preview_id"] = json!(id);
    let applied = b.call(5, "tickets_create", apply.clone());
    assert_eq!(applied["structuredContent"]["applied"], true, "{applied}");
    let again = a.call(6, "tickets_create", apply);
    assert_eq!(again["structuredContent"]["replayed"], true, "{again}");
    assert_eq!(
        db.count("SELECT COUNT(*) FROM tickets WHERE title = $1", "balanced"),
        1
    );
}

#[test]
fn a_walk_over_the_pages_on_one_replica_sees_every_lasting_ticket_once_while_another_writes() {
    let Some((url, _db)) = database("walk") else {
        return;
    };
    let walker = start(&url, &[]);
    let writer = start(&url, &[]);
    let pages = crate::failures::walk_while_others_write(&walker, &writer);
    assert!(pages > 5, "{pages} pages");
}

/// Leases that follow the call, through the binary on PostgreSQL: a creation made slower
/// than its 2 s lease (`--slow-writes`) keeps its key while it runs (a retry through another
/// replica hears `idempotency_in_progress`, it never takes the key over) and commits once;
/// then the same slow creation's replica is killed with SIGKILL mid-method, and its key is
/// free again on the other replica within a lease of the kill (the figure is printed).
#[test]
fn a_write_slower_than_its_lease_commits_once_and_a_killed_ones_key_is_soon_free() {
    let Some((url, db)) = database("slow_lease") else {
        return;
    };
    let lease = Duration::from_secs(2);
    let fast = start(&url, &["--demo", "--lease", "2"]);
    let slow = start(&url, &["--lease", "2", "--slow-writes", "5000"]);

    let preview = preview_id(&fast.call_wait("tickets_create", create_args(1)));
    let apply = apply_args(1, &preview);
    let pending = slow.call("tickets_create", apply.clone());
    std::thread::sleep(lease + Duration::from_secs(1));
    match fast.call_wait("tickets_create", apply.clone()) {
        Answer::Err(e) => assert_eq!(e["code"], "idempotency_in_progress", "{e}"),
        other => panic!("a retry took over a key whose write still runs: {other:?}"),
    }
    let Answer::Ok(done) = answer(&pending) else {
        panic!("the slow write did not commit");
    };
    assert_eq!(done["applied"], true, "{done}");
    assert_eq!(done["replayed"], false, "{done}");
    let Answer::Ok(again) = fast.call_wait("tickets_create", apply) else {
        panic!("the retry after the commit");
    };
    assert_eq!(again["replayed"], true, "{again}");
    assert_eq!(again["ticket"], done["ticket"]);
    let title = create_args(1)["title"].as_str().expect("title").to_owned();
    let made = db.count("SELECT COUNT(*) FROM tickets WHERE title = $1", &title);
    assert_eq!(made, 1, "one ticket for the slow write");

    // Killed mid-method: nothing of it committed, and the key is not held for long.
    let preview = preview_id(&fast.call_wait("tickets_create", create_args(2)));
    let apply = apply_args(2, &preview);
    let _lost = slow.call("tickets_create", apply.clone());
    std::thread::sleep(lease + Duration::from_secs(1));
    slow.kill();
    let killed = Instant::now();
    let freed = loop {
        match fast.call_wait("tickets_create", apply.clone()) {
            Answer::Err(e) if e["code"] == "idempotency_in_progress" => {
                assert!(
                    killed.elapsed() < lease * 3,
                    "still held {:?} after the kill",
                    killed.elapsed()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            other => break other,
        }
    };
    let free_after = killed.elapsed();
    let Answer::Ok(applied) = freed else {
        panic!("the retry after the kill: {freed:?}");
    };
    assert_eq!(applied["replayed"], false, "{applied}");
    assert!(
        free_after <= lease + Duration::from_millis(500),
        "the key was free {free_after:?} after the kill, lease {lease:?}"
    );
    let title = create_args(2)["title"].as_str().expect("title").to_owned();
    let made = db.count("SELECT COUNT(*) FROM tickets WHERE title = $1", &title);
    assert_eq!(
        made, 1,
        "the killed write left nothing; the retry made one ticket"
    );
    println!(
        "a key held by a SIGKILLed replica mid-write was free after {free_after:?} (lease {lease:?})"
    );
}
