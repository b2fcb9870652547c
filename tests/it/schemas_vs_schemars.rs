//! Our MCP tool list for `specs/tickets.yaml` against the same five tools written "the common
//! way": rmcp `#[tool]` functions whose argument and result structs derive
//! `schemars::JsonSchema` with default settings (`$schema`, `$defs`/`$ref`, `type: [T, "null"]`
//! for `Option`, `format: uint32`...), with the same tool descriptions and the field
//! descriptions written as doc comments.
//!
//! Ours must cost at most 0.7x the `o200k_base` tokens while carrying more facts (constraints,
//! examples, defaults), and no fewer than before each fact was said once. Print the figures
//! with:
//! `cargo test --features tokens --test it schemas_vs_schemars:: -- --nocapture`.

#![allow(dead_code)]

use schemars::{JsonSchema, schema_for};
use serde_json::{Value, json};
use toolspec::internals::emit::providers::pretty;
use toolspec::internals::plan::providers::mcp;
use toolspec::internals::stats::count_tokens;
use toolspec::model::describe::tool_description;

use crate::common;
use common::{example_specs, load_clean};

/// Where a ticket is in its life.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
enum TicketStatus {
    Open,
    Pending,
    Closed,
}

/// How much to return.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
enum ResponseFormat {
    Concise,
    Detailed,
}

/// A support ticket.
#[derive(JsonSchema)]
struct Ticket {
    /// The ticket's id.
    ticket_id: String,
    /// One-line title the customer or agent gave the ticket.
    title: String,
    /// Current status.
    status: TicketStatus,
    /// Email of the customer who raised it.
    customer_email: Option<String>,
}

/// One list that was cut.
#[derive(JsonSchema)]
struct Cut {
    /// JSON Pointer of the list that was cut.
    path: String,
    /// Items kept.
    kept: u32,
    /// Items before the cut.
    total: u32,
}

/// Present only when the result was cut to fit the size budget.
#[derive(JsonSchema)]
struct Truncated {
    /// Each list that was cut.
    cuts: Vec<Cut>,
    /// The size budget, in estimated tokens.
    budget_tokens: u32,
    /// What was cut and how to ask for less.
    message: String,
}

#[derive(JsonSchema)]
struct SearchArgs {
    /// Words to match in ticket titles.
    query: String,
    /// Only tickets with this status; omit for all.
    status: Option<TicketStatus>,
    /// Items per page, 1 to 50 (default 10). For more, follow next_cursor.
    limit: Option<u32>,
    /// Opaque next_cursor from the previous page of the same query; omit for the first page.
    cursor: Option<String>,
    /// How much to return: concise or detailed (default concise). concise leaves out tickets.customer_email.
    response_format: Option<ResponseFormat>,
}

#[derive(JsonSchema)]
struct SearchResult {
    /// This page of matching tickets.
    tickets: Vec<Ticket>,
    /// How many items match the whole query, across all pages.
    total: u32,
    /// Pass as cursor to get the next page; absent on the last page.
    next_cursor: Option<String>,
    truncated: Option<Truncated>,
}

#[derive(JsonSchema)]
struct GetArgs {
    /// The id of the ticket to read.
    ticket_id: String,
}

#[derive(JsonSchema)]
struct GetResult {
    /// The ticket.
    ticket: Ticket,
    truncated: Option<Truncated>,
}

#[derive(JsonSchema)]
struct CreateArgs {
    /// One-line summary of the problem, in the customer's words.
    title: String,
    /// Email of the customer; they receive the ticket id there.
    customer_email: String,
    /// New unique key per intended change; reuse it only to retry the same call. Kept 24h.
    idempotency_key: String,
    /// Omit to get a preview; pass the preview's preview_id (valid 10m) with the same arguments to apply it.
    preview_id: Option<String>,
}

/// Present when applied is false: what would change.
#[derive(JsonSchema)]
struct CreatePreview {
    /// Pass back as preview_id, with the same arguments, to apply.
    preview_id: String,
    /// When the preview stops being valid (10m after it was made).
    expires_at: String,
    /// What applying would do, to show the user.
    summary: String,
    /// Title the ticket will have.
    title: String,
    /// Who will be emailed.
    customer_email: String,
}

#[derive(JsonSchema)]
struct CreateResult {
    /// The ticket that was opened.
    ticket: Option<Ticket>,
    /// true when this is the stored result of an earlier call with the same idempotency_key; nothing ran again.
    replayed: Option<bool>,
    /// false: this is a preview and nothing changed yet; true: the change was made.
    applied: bool,
    preview: Option<CreatePreview>,
    truncated: Option<Truncated>,
}

#[derive(JsonSchema)]
struct ExportArgs {
    /// Only tickets with this status; omit for all.
    status: Option<TicketStatus>,
}

#[derive(JsonSchema)]
struct ExportResult {
    /// The tickets as CSV: ticket_id,title,status, then one line per ticket.
    csv: String,
    /// How many tickets the CSV holds.
    exported: i64,
    truncated: Option<Truncated>,
}

#[derive(JsonSchema)]
struct UpdateStatusArgs {
    /// The ticket to change.
    ticket_id: String,
    /// The new status.
    status: TicketStatus,
    /// New unique key per intended change; reuse it only to retry the same call. Kept 24h.
    idempotency_key: String,
}

/// Its arguments, exactly as to pass them.
#[derive(JsonSchema)]
struct UndoArguments {
    /// The ticket to change.
    ticket_id: String,
    /// The new status.
    status: TicketStatus,
    /// New unique key per intended change; reuse it only to retry the same call. Kept 24h.
    idempotency_key: String,
}

/// The exact call that reverts this change.
#[derive(JsonSchema)]
struct Undo {
    /// The tool to call to undo.
    tool: String,
    arguments: UndoArguments,
}

#[derive(JsonSchema)]
struct UpdateStatusResult {
    /// The ticket after the change.
    ticket: Ticket,
    /// The status before the change.
    previous_status: TicketStatus,
    /// true when this is the stored result of an earlier call with the same idempotency_key; nothing ran again.
    replayed: Option<bool>,
    undo: Undo,
    truncated: Option<Truncated>,
}

/// The common way's `tools/list`: same names, titles, descriptions and annotations as ours
/// (so only the schemas differ), schemas from schemars' defaults.
fn common_way(model: &toolspec::model::Model) -> Value {
    let schemas = [
        (
            "tickets_search",
            schema_for!(SearchArgs).to_value(),
            schema_for!(SearchResult).to_value(),
        ),
        (
            "tickets_get",
            schema_for!(GetArgs).to_value(),
            schema_for!(GetResult).to_value(),
        ),
        (
            "tickets_export",
            schema_for!(ExportArgs).to_value(),
            schema_for!(ExportResult).to_value(),
        ),
        (
            "tickets_create",
            schema_for!(CreateArgs).to_value(),
            schema_for!(CreateResult).to_value(),
        ),
        (
            "tickets_update_status",
            schema_for!(UpdateStatusArgs).to_value(),
            schema_for!(UpdateStatusResult).to_value(),
        ),
    ];
    let tools: Vec<Value> = schemas
        .into_iter()
        .map(|(name, input, output)| {
            let (_, tool) = model.tool(name).expect("tool in tickets.yaml");
            json!({
                "name": name,
                "title": tool.title.text,
                "description": tool_description(tool),
                "inputSchema": input,
                "outputSchema": output,
                "annotations": toolspec::internals::plan::Annotations::of(tool),
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// Facts a list states: constraint keywords, defaults, and examples in descriptions. A
/// definition repeated in each tool's `$defs` (schemars' way) states its facts once: the
/// model learns nothing new from the second copy.
fn facts(v: &Value) -> usize {
    let mut list = v.clone();
    let mut defs = serde_json::Map::new();
    let tools = list["tools"].as_array_mut().into_iter().flatten();
    for schema in tools.flat_map(|t| ["inputSchema", "outputSchema"].map(|k| t[k].take())) {
        if let Value::Object(mut schema) = schema {
            if let Some(Value::Object(own)) = schema.remove("$defs") {
                defs.extend(own);
            }
            defs.insert(format!("#{}", defs.len()), Value::Object(schema));
        }
    }
    common::schema_facts(&list, true) + common::schema_facts(&Value::Object(defs), true)
}

#[test]
fn ours_costs_fewer_tokens_and_carries_more_facts() {
    let model = load_clean(&example_specs());
    let tickets = model
        .toolsets
        .iter()
        .find(|t| t.service.text == "tickets")
        .expect("tickets spec");
    let ours = mcp::tools_list(tickets);
    let theirs = common_way(&model);
    assert_eq!(
        ours["tools"].as_array().map(Vec::len),
        Some(5),
        "the comparison covers every tickets tool"
    );

    let ours_file = count_tokens(&pretty(&ours));
    let theirs_file = count_tokens(&pretty(&theirs));
    let ours_wire = count_tokens(&ours.to_string());
    let theirs_wire = count_tokens(&theirs.to_string());
    let input = |v: &Value| -> usize {
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| count_tokens(&t["inputSchema"].to_string()))
            .sum()
    };
    println!(
        "o200k_base tokens of the tickets tools/list ({} tools):",
        ours["tools"].as_array().map_or(0, Vec::len)
    );
    println!(
        "  toolspec  (generated/tickets/tools.mcp.json): pretty {ours_file}, compact {ours_wire}, input schemas {}, facts {}",
        input(&ours),
        facts(&ours)
    );
    println!(
        "  schemars defaults (rmcp #[tool] common way):  pretty {theirs_file}, compact {theirs_wire}, input schemas {}, facts {}",
        input(&theirs),
        facts(&theirs)
    );

    assert!(
        theirs.to_string().contains("$defs") && theirs.to_string().contains("uint32"),
        "the baseline is schemars' default output"
    );
    assert!(
        ours_file < theirs_file,
        "pretty: ours {ours_file} >= common {theirs_file}"
    );
    assert!(
        ours_wire < theirs_wire,
        "compact: ours {ours_wire} >= common {theirs_wire}"
    );
    assert!(facts(&ours) > facts(&theirs), "ours carries more facts");
    // The list publishes the outputs' shape (the default): their rules are the server's
    // to keep, not the model's to read, and no fact the model reads is lost. Published
    // whole, the list still carries every fact it had.
    let mut whole = tickets.clone();
    for t in &mut whole.tools {
        t.output_schema = toolspec::model::OutputSchema::Full;
    }
    let whole = mcp::tools_list(&whole);
    assert!(
        facts(&whole) >= FACTS_BEFORE_LEAN,
        "lean definitions dropped facts: {} < {FACTS_BEFORE_LEAN}",
        facts(&whole)
    );
    let read = |v: &Value| -> usize {
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| facts(&t["inputSchema"]))
            .sum()
    };
    assert!(
        read(&ours) >= INPUT_FACTS_BEFORE_SHAPE && read(&ours) == read(&whole),
        "the shape of the outputs cost input facts: {} < {INPUT_FACTS_BEFORE_SHAPE}",
        read(&ours)
    );
    let ratio = ours_wire as f64 / theirs_wire as f64;
    println!("  ratio (compact): {ratio:.3}, goal at most {GOAL_RATIO}");
    assert!(
        ratio <= GOAL_RATIO,
        "ours is {ratio:.3}x the common way's tokens, goal {GOAL_RATIO}x"
    );
}

/// Facts the tickets list carried before definitions were made lean (commit dc91ed1): each
/// fact is now said once, and none may be lost doing it.
const FACTS_BEFORE_LEAN: usize = 63;

/// Facts of the tickets list's input schemas before its output schemas were published as
/// their shape (issue 29).
const INPUT_FACTS_BEFORE_SHAPE: usize = 31;

/// Issue 15's goal for the compact list against the common way's.
const GOAL_RATIO: f64 = 0.7;
