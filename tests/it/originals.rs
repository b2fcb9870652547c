//! What the model reads from our ports of five real MCP servers, against the originals'
//! own definitions.
//!
//! `tests/corpus/originals/<port>.tools.json` is the `tools/list` result of each original
//! server (captured by `scripts/capture-originals`; GitHub's taken from the tool snapshots
//! its Go tests hold, see `tests/corpus/originals/README.md`); `tests/corpus/<port>.md` maps its tools
//! onto the port's (the first and third cells of each table row). For each port this counts
//! `o200k_base` tokens of compact JSON:
//!
//! - the provider lists (what the model sees: name, description, input schema, and the
//!   fields each provider adds) against the originals' name, description and input schema;
//! - the MCP `tools/list` against the originals' whole tool objects;
//!
//! and holds each port's lists to its bounds ([`BOUNDS`]), with at
//! least the originals' facts (bounds, patterns, enums, defaults, formats) in the input
//! schemas; and checks that each port takes what its original's callers send (every
//! parameter and nested field by its original name, the enums' values, the defaults, nothing
//! more required). Print the table the README shows with `cargo test --features tokens --test it originals:: -- --nocapture`.

use serde_json::{Value, json};
use std::collections::BTreeSet;
use toolspec::internals::stats::count_tokens;

use crate::common::root;

/// The provider list files, as `generate` writes them.
const PROVIDERS: [(&str, &str); 3] = [
    ("Anthropic", "tools.anthropic.json"),
    ("OpenAI", "tools.openai.json"),
    ("Gemini", "tools.gemini.json"),
];
/// Per port, the most its provider lists and its MCP list may weigh against the original's.
///
/// Issue 15 asked for 1.5x and 2x; issue 29 for an MCP list at most 3x the original's, with
/// provider lists no heavier than they were. The calendar port meets 1.5x and 2x. The other
/// three spend more than the original on what the model reads: their originals spend 70-130
/// tokens a tool (a one-line description, untyped strings), and each port tool adds what it
/// returns and when to use it, its tier, typed and bounded parameters with examples, an
/// idempotency key on every write and the preview words on irreversible ones. Their provider
/// bounds are the figures before issue 29 (rounded up), so that they can only go down; the
/// MCP list is held to 3x. Slack and Puppeteer publish no output schemas
/// (`defaults.output_schema: none`), as their originals do not; the other two publish their
/// shape (the default). The GitHub port (issue 29's new one) is bounded at its first
/// measure, 1.90x for its heaviest provider list (its original spends 277 tokens a tool,
/// `pull_request_read` alone describing nine methods), and publishes no output schemas as
/// its original does not; its original's MCP objects carry `_meta` and base64 icons, so its
/// MCP list is about the original's size.
///
/// Supabase's bound was 1.75 while its port folded the original's `get_cost` and
/// `confirm_cost` into `create_project`'s preview: the originals' figure counted those two
/// tools, the port's did not. Keeping their wire (issue 29) lists them as tools of their own
/// (about 350 tokens with their words trimmed), so the bound is the figure with them,
/// rounded up: 1.80x where it was 1.66x without them.
const BOUNDS: [(&str, f64, f64); 5] = [
    ("calendar", 1.5, 2.0),
    ("supabase", 1.8, 3.0),
    ("slack", 2.72, 3.0),
    ("puppeteer", 3.01, 3.0),
    ("github", 1.90, 3.0),
];

/// `(original tool names, port tool name)` of each row of a mapping file's table.
fn mapping(port: &str) -> Vec<(Vec<String>, String)> {
    let text = std::fs::read_to_string(root().join(format!("tests/corpus/{port}.md")))
        .expect("mapping file");
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            let port_tool = ticked(cells[3]);
            assert_eq!(port_tool.len(), 1, "one port tool per row: {row}");
            (ticked(cells[1]), port_tool[0].clone())
        })
        .collect()
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn tokens(v: &Value) -> usize {
    count_tokens(&v.to_string())
}

/// Facts a schema states as keywords (examples aside: the originals have none to count).
fn facts(v: &Value) -> usize {
    crate::common::schema_facts(v, false)
}

/// One port's figures.
struct Figures {
    tools: usize,
    original_tools: usize,
    original_view: usize,
    original_mcp: usize,
    /// Per provider: our list's tokens, and the originals' in that provider's shape.
    providers: Vec<(&'static str, usize, usize)>,
    mcp: usize,
}

/// The originals' definitions as `provider` would receive them (its field names and
/// wrappers, the input schema as the original wrote it), so that a ratio compares
/// definitions, not envelopes.
fn as_provider_list(provider: &str, view: &[Value]) -> Value {
    let entry = |t: &Value| match provider {
        "Anthropic" => {
            json!({"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]})
        }
        "OpenAI" => {
            json!({"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}})
        }
        "Gemini" => {
            json!({"name": t["name"], "description": t["description"], "parametersJsonSchema": t["inputSchema"]})
        }
        other => panic!("no provider {other}"),
    };
    let list: Vec<Value> = view.iter().map(entry).collect();
    match provider {
        "Gemini" => json!([{ "functionDeclarations": list }]),
        _ => Value::Array(list),
    }
}

fn measure(port: &str) -> Figures {
    let rows = mapping(port);
    let originals = read_json(&format!("tests/corpus/originals/{port}.tools.json"));
    let generated = format!("tests/corpus/generated/{port}");
    let ours = read_json(&format!("{generated}/tools.mcp.json"));

    let names: BTreeSet<String> = rows.iter().flat_map(|(o, _)| o.iter().cloned()).collect();
    let original_tools: Vec<&Value> = originals["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| names.contains(t["name"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        original_tools.len(),
        names.len(),
        "{port}: every original tool the mapping names is in the captured list"
    );
    let ported: BTreeSet<&str> = rows.iter().map(|(_, p)| p.as_str()).collect();
    let ours_names: BTreeSet<&str> = ours["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        ported, ours_names,
        "{port}: the mapping covers every tool of the port"
    );

    let view: Vec<Value> = original_tools
        .iter()
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
        .collect();
    // The facts of the originals' schemas are kept: the MCP list states every rule as a
    // keyword (a strict provider list says some of them in words instead).
    let original_facts = facts(&Value::Array(view.clone()));
    let ours_facts: usize = ours["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| facts(&t["inputSchema"]))
        .sum();
    assert!(
        ours_facts >= original_facts,
        "{port}: the port's input schemas state fewer facts ({ours_facts}) than the original's ({original_facts})"
    );
    let providers = PROVIDERS
        .iter()
        .map(|(provider, file)| {
            let ours = tokens(&read_json(&format!("{generated}/{file}")));
            let theirs = tokens(&as_provider_list(provider, &view));
            (*provider, ours, theirs)
        })
        .collect();
    Figures {
        tools: ours_names.len(),
        original_tools: original_tools.len(),
        original_view: tokens(&Value::Array(view)),
        original_mcp: tokens(&json!({ "tools": original_tools })),
        providers,
        mcp: tokens(&ours),
    }
}

#[test]
fn ports_cost_at_most_their_bounds_against_the_originals() {
    let mut failures = Vec::new();
    println!(
        "| port | tools (original's) | original: tokens per tool | Anthropic | OpenAI | Gemini | MCP tools/list |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (port, provider_bound, mcp_bound) in BOUNDS {
        let f = measure(port);
        let ratio = |ours: usize, theirs: usize| ours as f64 / theirs as f64;
        let mut row = format!(
            "| {port} | {} ({}) | {} |",
            f.tools,
            f.original_tools,
            f.original_view / f.original_tools
        );
        for (provider, ours, theirs) in &f.providers {
            let r = ratio(*ours, *theirs);
            row.push_str(&format!(" {ours} / {theirs} = {r:.2}x |"));
            if r > provider_bound {
                failures.push(format!("{port} {provider}: {r:.2}x > {provider_bound}x"));
            }
        }
        let r = ratio(f.mcp, f.original_mcp);
        row.push_str(&format!(" {} / {} = {r:.2}x |", f.mcp, f.original_mcp));
        if r > mcp_bound {
            failures.push(format!("{port} MCP: {r:.2}x > {mcp_bound}x"));
        }
        println!("{row}");
    }
    assert!(failures.is_empty(), "over the bounds: {failures:?}");
}

/// A port keeps its original's wire: every parameter of each original tool its mapping row
/// names is a parameter of the port's tool, under the same name, and so is every nested field
/// (of objects, array items and each variant of a union); the port requires nothing the
/// original does not at the top; an enum keeps every value the original takes, in its case;
/// a default stays the original's. What a port adds beside them (keys, previews, paging) may
/// only be optional, so a call an original caller makes still has its shape.
#[test]
fn ports_take_what_their_originals_callers_send() {
    let mut problems = Vec::new();
    for (port, _, _) in BOUNDS {
        let originals = read_json(&format!("tests/corpus/originals/{port}.tools.json"));
        let ours = read_json(&format!("tests/corpus/generated/{port}/tools.mcp.json"));
        let find = |list: &Value, name: &str| -> Option<Value> {
            list["tools"]
                .as_array()?
                .iter()
                .find(|t| t["name"] == name)
                .map(|t| t["inputSchema"].clone())
        };
        for (names, port_tool) in mapping(port) {
            let mine = find(&ours, &port_tool).expect("the port lists its tool");
            let mut original_required = BTreeSet::new();
            for name in &names {
                let theirs = find(&originals, name).expect("the original lists its tool");
                original_required.extend(required(&theirs));
                same_wire(
                    &theirs,
                    &mine,
                    &format!("{port} {port_tool}"),
                    true,
                    &mut problems,
                );
            }
            for extra in required(&mine).difference(&original_required) {
                problems.push(format!(
                    "{port} {port_tool}: requires `{extra}`, which the original does not"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "wire changes: {problems:#?}");
}

fn required(schema: &Value) -> BTreeSet<String> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn enum_values(schema: &Value) -> BTreeSet<String> {
    schema["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_owned))
        .collect()
}

/// The schemas a value may match: the variants of an `anyOf` (a union, or a nullable
/// field's value and `null`), else the schema itself.
fn variants(schema: &Value) -> Vec<&Value> {
    match schema["anyOf"].as_array() {
        Some(list) => list.iter().collect(),
        None => vec![schema],
    }
}

/// Problems where `ours` does not take what `theirs` takes, at `path`: a lost field, enum
/// value or default, or a nested field required that the original leaves optional (the
/// caller checks the top level, where several original tools may map onto one), followed
/// into objects, array items and union variants.
fn same_wire(theirs: &Value, ours: &Value, path: &str, top: bool, problems: &mut Vec<String>) {
    for want in variants(theirs) {
        let json_type = &want["type"];
        let candidates = variants(ours);
        let got = candidates
            .iter()
            .find(|g| json_type.is_null() || g["type"] == *json_type)
            .copied()
            .unwrap_or(ours);
        let lost: Vec<String> = enum_values(want)
            .difference(&enum_values(got))
            .cloned()
            .collect();
        if !lost.is_empty() {
            problems.push(format!("{path}: enum lost {lost:?}"));
        }
        if !want["default"].is_null() && want["default"] != got["default"] {
            problems.push(format!(
                "{path}: default {} where the original's is {}",
                got["default"], want["default"]
            ));
        }
        if let Some(fields) = want["properties"].as_object() {
            if !top {
                for extra in required(got).difference(&required(want)) {
                    problems.push(format!(
                        "{path}: requires `{extra}`, which the original does not"
                    ));
                }
            }
            for (name, field) in fields {
                match got["properties"].get(name) {
                    Some(mine) => {
                        same_wire(field, mine, &format!("{path}.{name}"), false, problems)
                    }
                    None => problems.push(format!("{path}: no `{name}`")),
                }
            }
        }
        if want["items"].is_object() {
            same_wire(
                &want["items"],
                &got["items"],
                &format!("{path}[]"),
                false,
                problems,
            );
        }
    }
}
