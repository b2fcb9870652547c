//! The safety core under real failure, through the server binary over stdio: SIGKILL at
//! random points of many concurrent keyed applies, two servers on one SQLite file, and
//! concurrent status changes. What every agent was told must match what the file holds.

use crate::support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Answer, Scratch, Server, answer, count, create_args};

/// A small deterministic generator, so a failing run can be replayed from its seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn seed() -> u64 {
    std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64)
        })
}

pub(crate) fn preview_id(answer: &Answer) -> String {
    match answer {
        Answer::Ok(v) if v["applied"] == false => v["preview"]["preview_id"]
            .as_str()
            .expect("preview_id")
            .to_owned(),
        other => panic!("expected a preview, got {other:?}"),
    }
}

pub(crate) fn apply_args(i: usize, preview: &str) -> Value {
    let mut args = create_args(i);
    args["preview_id"] = json!(preview);
    args
}

/// Judges one answer to an apply of key `i`: a ticket id when it says the change was made.
/// Anything that is neither a truthful success nor a retryable "not yet" fails the test.
pub(crate) fn judge(i: usize, a: &Answer, told: &mut HashMap<usize, String>) -> Option<String> {
    match a {
        Answer::Ok(v) => {
            assert_eq!(v["applied"], true, "key {i}: {v}");
            let id = v["ticket"]["ticket_id"]
                .as_str()
                .expect("ticket id")
                .to_owned();
            if let Some(before) = told.get(&i) {
                assert_eq!(before, &id, "key {i} was told two different tickets");
                assert_eq!(
                    v["replayed"], true,
                    "key {i}: a second answer must be a replay"
                );
            }
            told.insert(i, id.clone());
            Some(id)
        }
        Answer::Err(e) => {
            let code = e["code"].as_str().unwrap_or_default();
            assert!(
                code == "idempotency_in_progress"
                    || (code == "internal_error" && e["retryable"] == true),
                "key {i}: an apply may only be refused as not yet done, got {e}"
            );
            None
        }
        Answer::Lost => None,
    }
}

#[test]
fn sigkill_at_random_points_leaves_every_key_with_one_ticket_and_the_truth() {
    const KEYS: usize = 96;
    const KILLS: usize = 6;
    const LEASE_S: f64 = 1.0;
    let seed = seed();
    let mut rng = Lcg(seed);
    let dir = Scratch::new("crash");
    let db = dir.join("tickets.db");
    let mailbox = dir.join("mailbox.jsonl");
    let args = [
        "--lease",
        "1",
        "--mailbox",
        mailbox.to_str().expect("utf-8 path"),
    ];

    let server = Server::start(&db, &args);
    let previews: Vec<String> = (0..KEYS)
        .map(|i| preview_id(&server.call_wait("tickets_create", create_args(i))))
        .collect();
    let mut server = Some(server);
    let mut told: HashMap<usize, String> = HashMap::new();

    // Rounds of concurrent applies, each cut short by SIGKILL at a random point.
    let mut killed_at = Instant::now();
    let mut lost = 0;
    for _ in 0..KILLS {
        let s = server.take().expect("a running server");
        let pending: Vec<usize> = (0..KEYS).filter(|i| !told.contains_key(i)).collect();
        let inflight: Vec<(usize, _)> = pending
            .iter()
            .map(|&i| (i, s.call("tickets_create", apply_args(i, &previews[i]))))
            .collect();
        let read_before_kill = rng.below(inflight.len() + 1);
        std::thread::sleep(Duration::from_millis(rng.below(20) as u64));
        for (n, (i, rx)) in inflight.iter().enumerate() {
            if n == read_before_kill {
                break;
            }
            judge(*i, &answer(rx), &mut told);
        }
        s.kill();
        killed_at = Instant::now();
        lost += inflight.len() - read_before_kill.min(inflight.len());
        // Whatever was in flight is lost to the agent, committed or not.
        server = Some(Server::start(&db, &args));
    }

    // The agents retry every key with its key and preview until they have an answer.
    let told_before_retries = told.len();
    let s = server.take().expect("a running server");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut longest_in_progress = Duration::ZERO;
    loop {
        let pending: Vec<usize> = (0..KEYS).filter(|i| !told.contains_key(i)).collect();
        if pending.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "keys still unanswered: {pending:?} (seed {seed})"
        );
        let inflight: Vec<(usize, _)> = pending
            .iter()
            .map(|&i| (i, s.call("tickets_create", apply_args(i, &previews[i]))))
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
        "seed {seed}: {KILLS} kills, {lost} applies lost in flight, {} keys answered before the last restart, longest in progress {longest_in_progress:?}",
        told_before_retries
    );
    // A key held by a killed call answers "in progress" for at most the lease.
    assert!(
        longest_in_progress <= Duration::from_secs_f64(LEASE_S + 1.0),
        "in progress {longest_in_progress:?} after the kill, lease {LEASE_S} s (seed {seed})"
    );
    // And a retry of every key now replays what it was told.
    for (i, preview) in previews.iter().enumerate() {
        let a = s.call_wait("tickets_create", apply_args(i, preview));
        judge(i, &a, &mut told);
    }
    std::thread::sleep(Duration::from_millis(800)); // the outbox deliverer's next rounds
    s.kill();

    // The file agrees with every agent: one ticket per key, the one it was told.
    let mut ids = HashSet::new();
    for i in 0..KEYS {
        let title = format!("crash test ticket {i}");
        let n = count(&db, "SELECT COUNT(*) FROM tickets WHERE title = ?1", &title);
        assert_eq!(n, 1, "key {i} has {n} tickets (seed {seed})");
        let num: i64 = count(&db, "SELECT num FROM tickets WHERE title = ?1", &title);
        assert_eq!(told[&i], format!("T-{num}"), "key {i} (seed {seed})");
        assert!(ids.insert(num));
    }
    // Every ticket's email left the outbox, at least once, always under one message id.
    let mut emails: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(&mailbox)
        .unwrap_or_default()
        .lines()
    {
        let v: Value = serde_json::from_str(line).expect("a mailbox line is JSON");
        emails
            .entry(v["ticket_id"].as_str().unwrap_or_default().to_owned())
            .or_default()
            .insert(v["id"].as_str().unwrap_or_default().to_owned());
    }
    for id in told.values() {
        let sent = emails.get(id).map_or(0, HashSet::len);
        assert_eq!(
            sent, 1,
            "{id}: emails under {sent} message ids (seed {seed})"
        );
    }
    assert_eq!(
        emails.len(),
        KEYS,
        "an email for a ticket that does not exist (seed {seed})"
    );
}

#[test]
fn two_servers_on_one_file_apply_32_concurrent_creates_without_an_internal_error() {
    let dir = Scratch::new("two");
    let db = dir.join("tickets.db");
    let a = Server::start(&db, &[]);
    let b = Server::start(&db, &[]);
    let servers = [&a, &b];

    // 32 distinct keys, half on each server, all in flight at once.
    let previews: Vec<String> = (0..32)
        .map(|i| preview_id(&servers[i % 2].call_wait("tickets_create", create_args(i))))
        .collect();
    let inflight: Vec<_> = (0..32)
        .map(|i| servers[i % 2].call("tickets_create", apply_args(i, &previews[i])))
        .collect();
    let mut numbers = HashSet::new();
    for (i, rx) in inflight.iter().enumerate() {
        match answer(rx) {
            Answer::Ok(v) => {
                assert_eq!(v["replayed"], false);
                assert!(numbers.insert(v["ticket"]["ticket_id"].as_str().unwrap().to_owned()));
            }
            other => panic!("apply {i} failed: {other:?}"),
        }
    }
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM tickets WHERE title LIKE ?1",
            "crash test ticket %"
        ),
        32
    );

    // One key, one preview, 32 applies across both servers: one effect.
    let one = json!({"title": "one effect", "customer_email": "one@example.com", "idempotency_key": "the-one"});
    let id = preview_id(&a.call_wait("tickets_create", one.clone()));
    let mut apply = one.clone();
    apply["preview_id"] = json!(id);
    let inflight: Vec<_> = (0..32)
        .map(|i| servers[i % 2].call("tickets_create", apply.clone()))
        .collect();
    let mut tickets = HashSet::new();
    for rx in &inflight {
        match answer(rx) {
            Answer::Ok(v) => {
                tickets.insert(v["ticket"]["ticket_id"].as_str().unwrap().to_owned());
            }
            Answer::Err(e) => assert_eq!(e["code"], "idempotency_in_progress", "{e}"),
            Answer::Lost => panic!("a server died"),
        }
    }
    assert_eq!(tickets.len(), 1, "{tickets:?}");
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM tickets WHERE title = ?1",
            "one effect"
        ),
        1
    );
}

#[test]
fn concurrent_status_changes_report_the_status_each_really_replaced() {
    let dir = Scratch::new("status");
    let db = dir.join("tickets.db");
    let a = Server::start(&db, &["--demo"]);
    let b = Server::start(&db, &[]);
    let servers = [&a, &b];
    let statuses = ["open", "pending", "closed"];
    let inflight: Vec<_> = (0..32)
        .map(|i| {
            servers[i % 2].call(
                "tickets_update_status",
                json!({"ticket_id": "T-1001", "status": statuses[i % 3], "idempotency_key": format!("s-{i}")}),
            )
        })
        .collect();
    // Each change is an edge previous -> new; a history without lost updates is one path
    // from the first status (open) through every change to the final one.
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
    let conn = rusqlite::Connection::open(&db).unwrap();
    let last: String = conn
        .query_row("SELECT status FROM tickets WHERE num = 1001", [], |r| {
            r.get(0)
        })
        .unwrap();
    *degree.entry("open".into()).or_default() -= 1;
    *degree.entry(last).or_default() += 1;
    assert!(degree.values().all(|d| *d == 0), "lost updates: {degree:?}");
}

/// Walks every page of the open "walk" tickets on `walker` while `writer` opens new ones and
/// closes others between pages; every ticket open for the whole walk must come exactly once,
/// and no ticket twice. Returns how many pages the walk took.
pub(crate) fn walk_while_others_write(walker: &Server, writer: &Server) -> usize {
    const START: usize = 30;
    let open = |i: usize| {
        let args = json!({"title": format!("walk ticket {i}"), "customer_email": "w@example.com", "idempotency_key": format!("walk-{i}")});
        let preview = preview_id(&writer.call_wait("tickets_create", args.clone()));
        let mut apply = args;
        apply["preview_id"] = json!(preview);
        match writer.call_wait("tickets_create", apply) {
            Answer::Ok(v) => v["ticket"]["ticket_id"].as_str().unwrap().to_owned(),
            other => panic!("create failed: {other:?}"),
        }
    };
    let close = |id: &str, n: usize| match writer.call_wait(
        "tickets_update_status",
        json!({"ticket_id": id, "status": "closed", "idempotency_key": format!("close-{n}")}),
    ) {
        Answer::Ok(_) => {}
        other => panic!("close failed: {other:?}"),
    };
    let ids: Vec<String> = (0..START).map(open).collect();
    let query = json!({"query": "walk", "status": "open", "limit": 4});
    let mut seen: Vec<String> = Vec::new();
    let mut closed: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = query.clone();
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = match walker.call_wait("tickets_search", args) {
            Answer::Ok(v) => v,
            other => panic!("page {pages}: {other:?}"),
        };
        pages += 1;
        for t in page["tickets"].as_array().unwrap() {
            seen.push(t["ticket_id"].as_str().unwrap().to_owned());
        }
        // Between pages: one ticket already seen is closed (with offsets, every later
        // page would shift back and skip one), one not seen yet is closed, one is opened.
        let k = pages;
        if let Some(done) = seen.get(k) {
            close(done, 2 * k);
            closed.insert(done.clone());
        }
        if let Some(ahead) = ids.get(START - k) {
            close(ahead, 2 * k + 1);
            closed.insert(ahead.clone());
        }
        open(START + k);
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
        assert!(pages < 100, "the walk never ends");
    }
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a ticket came twice: {seen:?}");
    for id in ids.iter().filter(|id| !closed.contains(*id)) {
        assert!(
            seen.contains(id),
            "{id} was open for the whole walk but never came: {seen:?}"
        );
    }
    pages
}

#[test]
fn a_walk_over_the_pages_sees_every_lasting_ticket_once_while_others_write() {
    let dir = Scratch::new("walk");
    let db = dir.join("tickets.db");
    let walker = Server::start(&db, &[]);
    let writer = Server::start(&db, &[]);
    let pages = walk_while_others_write(&walker, &writer);
    assert!(pages > 5, "{pages} pages");
}
