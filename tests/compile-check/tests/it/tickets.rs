//! The generated tickets server, driven in process through `Toolset::call` with a small
//! in-memory implementation: 23 demo tickets T-1000..T-1022, titled "login loop case {i}",
//! open unless `i % 3 == 0` (then closed), so 15 are open.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolspec_compile_check::tickets::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::glue::{Page, Window};
use toolspec_runtime::engine::{CallContext, CallOutput, Toolset};

struct Desk {
    tickets: Mutex<Vec<Ticket>>,
    creates: AtomicUsize,
    previews: AtomicUsize,
}

impl Desk {
    fn demo() -> Self {
        let tickets = (0..23)
            .map(|i| Ticket {
                ticket_id: format!("T-{}", 1000 + i),
                title: format!("login loop case {i}"),
                status: if i % 3 == 0 {
                    TicketStatus::Closed
                } else {
                    TicketStatus::Open
                },
                customer_email: format!("customer{i}@example.com"),
            })
            .collect();
        Desk {
            tickets: Mutex::new(tickets),
            creates: AtomicUsize::new(0),
            previews: AtomicUsize::new(0),
        }
    }

    fn find(&self, id: &str) -> Result<Ticket, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        tickets
            .iter()
            .find(|t| t.ticket_id == id)
            .cloned()
            .ok_or_else(|| {
                TicketsError::NotFound {
                    ticket_id: id.to_string(),
                }
                .into()
            })
    }
}

impl TicketsTools for Desk {
    async fn tickets_search(
        &self,
        input: TicketsSearchInput,
        window: Window,
    ) -> Result<Page<TicketsSearchOutput>, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        let query = input.query.to_lowercase();
        let hits: Vec<&Ticket> = tickets
            .iter()
            .filter(|t| t.title.to_lowercase().contains(&query))
            .filter(|t| input.status.is_none_or(|s| t.status == s))
            .collect();
        // Keyset paging (`keyset: [ticket_id]`): the page starts after the last ticket given.
        let start = match window
            .after()
            .and_then(|k| k.first())
            .and_then(|v| v.as_str())
        {
            Some(last) => hits
                .iter()
                .position(|t| t.ticket_id.as_str() == last)
                .map_or(hits.len(), |i| i + 1),
            None => 0,
        };
        let page: Vec<Ticket> = hits
            .iter()
            .skip(start)
            .take(window.take())
            .map(|t| (*t).clone())
            .collect();
        let more = start + page.len() < hits.len();
        Ok(Page::new(TicketsSearchOutput { tickets: page }, hits.len() as u64).with_more(more))
    }

    async fn tickets_export(
        &self,
        input: TicketsExportInput,
    ) -> Result<TicketsExportOutput, ToolError> {
        let tickets = self.tickets.lock().unwrap();
        let chosen: Vec<&Ticket> = tickets
            .iter()
            .filter(|t| input.status.is_none_or(|s| t.status == s))
            .collect();
        let mut csv = String::from("ticket_id,title,status");
        for t in &chosen {
            csv.push_str(&format!(
                "\n{},{},{}",
                t.ticket_id,
                t.title,
                t.status.as_str()
            ));
        }
        Ok(TicketsExportOutput {
            csv,
            exported: chosen.len() as i64,
        })
    }
    async fn tickets_get(&self, input: TicketsGetInput) -> Result<TicketsGetOutput, ToolError> {
        Ok(TicketsGetOutput {
            ticket: self.find(&input.ticket_id)?,
        })
    }

    async fn preview_tickets_create(
        &self,
        input: TicketsCreateInput,
    ) -> Result<TicketsCreatePreview, ToolError> {
        self.previews.fetch_add(1, Ordering::SeqCst);
        Ok(TicketsCreatePreview {
            summary: Some(format!("Would open \"{}\" and email its id.", input.title)),
            title: input.title,
            customer_email: input.customer_email,
        })
    }

    async fn tickets_create(
        &self,
        input: TicketsCreateInput,
        preview: TicketsCreatePreview,
        _work: toolspec_runtime::store::Work,
    ) -> Result<TicketsCreateOutput, ToolError> {
        assert_eq!(preview.title, input.title, "apply gets the stored preview");
        self.creates.fetch_add(1, Ordering::SeqCst);
        let mut tickets = self.tickets.lock().unwrap();
        let ticket = Ticket {
            ticket_id: format!("T-{}", 1000 + tickets.len()),
            title: input.title,
            status: TicketStatus::Open,
            customer_email: input.customer_email,
        };
        tickets.push(ticket.clone());
        Ok(TicketsCreateOutput { ticket })
    }

    async fn tickets_update_status(
        &self,
        input: TicketsUpdateStatusInput,
        _work: toolspec_runtime::store::Work,
    ) -> Result<TicketsUpdateStatusOutput, ToolError> {
        let mut tickets = self.tickets.lock().unwrap();
        let Some(t) = tickets.iter_mut().find(|t| t.ticket_id == input.ticket_id) else {
            return Err(TicketsError::NotFound {
                ticket_id: input.ticket_id,
            }
            .into());
        };
        let previous_status = t.status;
        t.status = input.status;
        Ok(TicketsUpdateStatusOutput {
            ticket: t.clone(),
            previous_status,
        })
    }
}

fn server() -> TicketsServer<Desk> {
    TicketsServer::in_memory(Desk::demo()).expect("in-memory runtime")
}

async fn call(s: &TicketsServer<Desk>, tool: &str, args: Value) -> Result<CallOutput, ToolError> {
    s.call(tool, args, &CallContext::new()).await
}

async fn ok(s: &TicketsServer<Desk>, tool: &str, args: Value) -> Value {
    match call(s, tool, args).await {
        Ok(out) => out.structured,
        Err(e) => panic!("{tool} failed: {}", e.to_value()),
    }
}

async fn err(s: &TicketsServer<Desk>, tool: &str, args: Value) -> ToolError {
    match call(s, tool, args).await {
        Ok(out) => panic!("{tool} succeeded: {}", out.structured),
        Err(e) => e,
    }
}

#[tokio::test]
async fn an_unknown_argument_is_refused_naming_the_allowed_ones() {
    let s = server();
    let e = err(
        &s,
        "tickets_search",
        json!({"query": "login", "q": "login"}),
    )
    .await;
    assert_eq!(e.code, "unknown_argument");
    assert!(!e.retryable);
    assert_eq!(e.details["path"], "/q");
    assert_eq!(
        e.details["allowed"],
        json!(["query", "status", "limit", "cursor", "response_format"])
    );
    assert!(
        e.message.contains("Allowed arguments: query, status"),
        "{}",
        e.message
    );

    // `q` alone also misses `query`: both problems are reported at once.
    let e = err(&s, "tickets_search", json!({"q": "login"})).await;
    assert_eq!(e.code, "invalid_arguments");
    let codes: Vec<&str> = e.details["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["missing_argument", "unknown_argument"]);
}

#[tokio::test]
async fn a_misspelt_status_lists_the_valid_ones() {
    let s = server();
    let e = err(
        &s,
        "tickets_search",
        json!({"query": "login", "status": "opened"}),
    )
    .await;
    assert_eq!(e.code, "invalid_enum");
    assert_eq!(e.details["allowed"], json!(["open", "pending", "closed"]));
    assert_eq!(e.details["path"], "/status");
    assert!(
        e.message.contains("Example of a valid call:"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn fifteen_open_tickets_page_by_five() {
    let s = server();
    let args = json!({"query": "login", "status": "open", "limit": 5});
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut a = args.clone();
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let page = ok(&s, "tickets_search", a).await;
        pages += 1;
        assert_eq!(page["total"], 15);
        let items = page["tickets"].as_array().unwrap();
        assert_eq!(items.len(), 5);
        for t in items {
            assert_eq!(t["status"], "open");
            // Concise by default: the detailed-only email is left out.
            assert!(t.get("customer_email").is_none(), "{t}");
            seen.push(t["ticket_id"].as_str().unwrap().to_string());
        }
        match page.get("next_cursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
            None => break,
        }
        assert!(pages < 10, "paging does not end");
    }
    assert_eq!(pages, 3);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 15, "every id exactly once: {seen:?}");

    // A cursor only works for the query it was issued for.
    let first = ok(&s, "tickets_search", args.clone()).await;
    let c = first["next_cursor"].clone();
    let e = err(
        &s,
        "tickets_search",
        json!({"query": "login", "status": "closed", "limit": 5, "cursor": c}),
    )
    .await;
    assert_eq!(e.code, "invalid_cursor");

    // Detailed results keep the email.
    let d = ok(
        &s,
        "tickets_search",
        json!({"query": "case 1", "response_format": "detailed", "limit": 1}),
    )
    .await;
    assert_eq!(d["tickets"][0]["customer_email"], "customer1@example.com");
}

#[tokio::test]
async fn create_previews_then_applies_once_and_replays() {
    let s = server();
    let args = json!({"title": "Login loop on SSO", "customer_email": "a@example.com", "idempotency_key": "k-7f3a"});

    let preview = ok(&s, "tickets_create", args.clone()).await;
    assert_eq!(preview["applied"], false);
    assert_eq!(preview["preview"]["title"], "Login loop on SSO");
    assert_eq!(
        preview["preview"]["summary"],
        "Would open \"Login loop on SSO\" and email its id."
    );
    assert_eq!(s.tools().creates.load(Ordering::SeqCst), 0);
    assert_eq!(
        s.tools().tickets.lock().unwrap().len(),
        23,
        "a preview creates nothing"
    );
    let id = preview["preview"]["preview_id"]
        .as_str()
        .unwrap()
        .to_string();

    let mut apply = args.clone();
    apply["preview_id"] = json!(id);
    let first = ok(&s, "tickets_create", apply.clone()).await;
    assert_eq!(first["applied"], true);
    assert_eq!(first["replayed"], false);
    assert_eq!(first["ticket"]["ticket_id"], "T-1023");
    assert_eq!(first["ticket"]["status"], "open");

    let again = call(&s, "tickets_create", apply.clone()).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.structured["replayed"], true);
    assert_eq!(again.structured["ticket"], first["ticket"]);
    assert_eq!(s.tools().creates.load(Ordering::SeqCst), 1, "applied once");

    let mut other = apply.clone();
    other["title"] = json!("Another problem");
    let e = err(&s, "tickets_create", other).await;
    assert_eq!(e.code, "idempotency_key_reused");
    assert!(!e.retryable);
    assert_eq!(s.tools().creates.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn update_status_returns_the_undo_call_that_restores_it() {
    let s = server();
    let out = ok(
        &s,
        "tickets_update_status",
        json!({"ticket_id": "T-1001", "status": "closed", "idempotency_key": "k-close-1001"}),
    )
    .await;
    assert_eq!(out["previous_status"], "open");
    assert_eq!(out["ticket"]["status"], "closed");
    let undo = out["undo"].clone();
    assert_eq!(undo["tool"], "tickets_update_status");
    assert_eq!(undo["arguments"]["ticket_id"], "T-1001");
    assert_eq!(undo["arguments"]["status"], "open");
    assert_eq!(undo["arguments"]["idempotency_key"], "undo-k-close-1001");

    let back = ok(
        &s,
        undo["tool"].as_str().unwrap(),
        undo["arguments"].clone(),
    )
    .await;
    assert_eq!(back["ticket"]["status"], "open");
    let now = ok(&s, "tickets_get", json!({"ticket_id": "T-1001"})).await;
    assert_eq!(now["ticket"]["status"], "open");
}

#[tokio::test]
async fn a_deprecated_alias_routes_and_says_so() {
    let s = server();
    let out = call(
        &s,
        "tickets_set_status",
        json!({"ticket_id": "T-1002", "status": "pending", "idempotency_key": "k-a"}),
    )
    .await
    .unwrap();
    assert_eq!(out.called_as_alias, Some("tickets_update_status"));
    assert_eq!(out.structured["ticket"]["status"], "pending");

    let e = err(&s, "tickets_close", json!({})).await;
    assert_eq!(e.code, "unknown_tool");
}

#[tokio::test]
async fn catalog_errors_fill_their_template() {
    let s = server();
    let e = err(&s, "tickets_get", json!({"ticket_id": "T-9999"})).await;
    assert_eq!(e.code, "not_found");
    assert!(!e.retryable);
    assert_eq!(
        e.message,
        "No ticket T-9999. Find the id with tickets_search, then retry with it."
    );
    assert_eq!(e.details["ticket_id"], "T-9999");
    assert_eq!(
        err(&s, "tickets_get", json!({"ticket_id": "1001"}))
            .await
            .code,
        "pattern_mismatch"
    );
}

#[test]
fn definitions_describe_every_tool() {
    let s = server();
    let names: Vec<&str> = s.definitions().iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "tickets_search",
            "tickets_get",
            "tickets_export",
            "tickets_create",
            "tickets_update_status"
        ]
    );
    let create = &DEFINITIONS[3];
    assert!(create.annotations.destructive && !create.annotations.read_only);
    let schema: Value = serde_json::from_str(create.input_schema).unwrap();
    assert_eq!(schema["type"], "object");
    assert_eq!(TicketStatus::ALL.len(), 3);
    assert_eq!(TicketStatus::Pending.to_string(), "pending");
}
