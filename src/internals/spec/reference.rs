//! The format reference, `docs/spec-format.md`, generated from the format's JSON Schema.
//!
//! The schema comes from the structs in [`crate::spec::format`], whose doc comments are the
//! user documentation; the loader's shape check validates against the same schema. So the
//! reference lists exactly the keys the loader accepts, with their types, whether they are
//! required, their defaults and their meaning, and cannot drift from it. Only the
//! introduction and the small examples below are written by hand, and a test checks each
//! example against the schema.

use crate::spec::format_schema;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// The hand-written introduction, in Markdown.
const INTRO: &str = r#"# The toolspec spec format, version 1

A toolspec spec is one YAML file that describes one toolset: the tools an AI agent may call on
one service, their parameters and results, the errors they return and how they behave when
they change state. `toolspec` compiles it into JSON Schemas, provider tool lists, a Rust MCP
server layer, documentation and gauntlet tests, so that what a tool's description promises is
what the code enforces.

This reference is generated from the format's definition (`src/internals/spec/format.rs`), the same
definition the loader checks specs against and that `toolspec schema` prints as a JSON Schema.
Every key the loader accepts is listed here, and no other.

## Reading a spec

- YAML 1.2: `yes`, `no`, `on` and `off` are strings, not booleans; write `true` and `false`.
  Indent with spaces. Quote a value that contains `: `, or, inside `{ ... }`, a `,`.
- Keys are checked: a misspelled or misplaced key is an error with a suggestion, never
  silently ignored.
- Order is kept: parameters, output fields and tools appear in schemas, docs and code in the
  order they are written.
- `toolspec check specs/*.yaml` reports every problem of every spec at once, each with its
  file, line and column and how to fix it. Check specs that name each other's tools together.
- For completion and checking in an editor, start the file with
  `# yaml-language-server: $schema=<path to toolspec.schema.json>`.

## What toolspec adds

A tool's settings imply parameters and results that are never written in the spec, and whose
names are therefore reserved: `paging` adds the `limit` and `cursor` parameters and the
`total` and `next_cursor` results; `response_format` adds the `response_format` parameter;
`idempotency` adds `idempotency_key` and `replayed`; `preview` adds `preview_id`, `applied` and
`preview`; `undo` adds the `undo` result; and every result may carry `truncated` when it was
cut to fit the token budget. Built-in error codes (argument validation, cursors, idempotency,
previews, internal errors) exist in every toolset without being written.

## How to read the tables

Each section below is one kind of mapping in the spec. **Key** is the key as written, **Type**
the kind of value it takes (a linked name is another section), **Required** whether it must be
written and, if not, its default, and **Meaning** what it is for.
"#;

/// Small examples of each section, in YAML. Checked against the schema by this module's tests.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "Defaults",
        "paging: { default_limit: 10, max_limit: 50 }\nidempotency: { ttl: 24h }\npreview: { ttl: 10m }\ntoken_budget: 4000\n",
    ),
    ("PagingLimits", "default_limit: 10\nmax_limit: 50\n"),
    ("IdempotencyDefaults", "ttl: 24h\n"),
    ("PreviewDefaults", "ttl: 10m\napproval: host_or_preview\n"),
    (
        "ScopeDefaults",
        "read: [tickets:read]\nwrite: [tickets:write]\n",
    ),
    ("RequestLimits", "request_bytes: 4194304\ndepth: 32\n"),
    ("RateLimit", "calls: 30\nper: minute\nburst: 10\n"),
    ("TimeLimit", "limit: 30s\nusual: 2s\n"),
    ("TaskTerms", "kept: 1h\n"),
    (
        "Group",
        "description: Pull requests on a repository. List, read, open, review and merge them.\nmatch: github_pulls_*\nup_front: true\n",
    ),
    (
        "Tool",
        "name: tickets_get\ntitle: Get a ticket\nsummary: Get one support ticket by its id.\nreturns: the ticket with its title, status and customer email.\nuse_when: you already have a ticket id, from tickets_search or the user.\nnot_for:\n  - when: finding tickets by words\n    use: tickets_search\ntier: read_only\nparams:\n  ticket_id: { type: TicketId, description: The id of the ticket to read. }\noutput:\n  ticket: { type: Ticket, description: The ticket. }\nerrors: [not_found]\nexamples:\n  - title: Read one ticket\n    arguments: { ticket_id: T-1001 }\n    result: { ticket: { ticket_id: T-1001, status: open } }\n",
    ),
    (
        "Field",
        "type: string\ndescription: Words to match in ticket titles.\nmin_length: 1\nmax_length: 200\nexample: login loop\n",
    ),
    (
        "ErrorDef",
        "message: \"No ticket {ticket_id}. Find the id with tickets_search, then retry with it.\"\nretryable: false\nwhen: The ticket id is well formed but no ticket has it.\ndetails:\n  ticket_id: { type: TicketId, description: The id that was looked up. }\n",
    ),
    ("MapKeys", "max_length: 40\npattern: '^[a-z_]+$'\n"),
    ("Requirement", "exactly_one_of: [date, range]\n"),
    (
        "NotFor",
        "when: order status or delivery questions\nuse: orders_get\n",
    ),
    (
        "Paging",
        "items: tickets\ndefault_limit: 10\nmax_limit: 50\n",
    ),
    ("ResponseFormat", "default: concise\n"),
    (
        "Projection",
        "items: events\nalways: [id, summary, start]\ndefault: []\n",
    ),
    (
        "Idempotency",
        "ttl: 48h\nkey_optional: Callers from before keys existed send none; a duplicate note is harmless.\n",
    ),
    (
        "Preview",
        "ttl: 15m\nfields:\n  amount: { type: number, description: What would be refunded., example: 42.5 }\n",
    ),
    (
        "Undo",
        "tool: tickets_update_status\narguments: { ticket_id: ticket.ticket_id, status: previous_status }\n",
    ),
    (
        "Example",
        "title: A misspelled status is refused with the valid ones\narguments: { query: login, status: opened }\nerror: invalid_enum\n",
    ),
    (
        "LintConfig",
        "set: recommended\nallow: [tool-description-length]\ndeny: [missing-requests]\n",
    ),
    (
        "ToolLint",
        "allow:\n  - rule: tool-description-length\n    reason: The legal wording must be quoted in full.\n",
    ),
    (
        "Allowance",
        "rule: tool-description-length\nreason: The legal wording must be quoted in full.\n",
    ),
    ("Tier", "irreversible\n"),
    ("Format", "date-time\n"),
    ("Verbosity", "detailed\n"),
    ("PagingStyle", "pages\n"),
    ("Approval", "host\n"),
    ("Effect", "remote_keyed\n"),
    ("OutputSchema", "none\n"),
    ("ToolSearch", "regex\n"),
    (
        "Upstream",
        "base_url: https://petstore3.swagger.io/api/v3\nauth: { scheme: header, name: api_key }\nstatuses: { \"404\": not_found, \"429\": rate_limited }\n",
    ),
    ("UpstreamAuth", "scheme: bearer\n"),
    ("AuthScheme", "header\n"),
    (
        "Http",
        "method: GET\npath: /pet/findByStatus\nquery: { status: status }\nresponse: pets\n",
    ),
    ("HttpMethod", "POST\n"),
];

/// The order sections appear in: the top level, then the tool and what it holds, then the
/// catalog, defaults and lint settings. A type not listed here still gets its section, last.
const ORDER: &[&str] = &[
    "Tool",
    "Field",
    "MapKeys",
    "Requirement",
    "ErrorDef",
    "Tier",
    "Format",
    "NotFor",
    "Paging",
    "PagingStyle",
    "ResponseFormat",
    "Verbosity",
    "Projection",
    "Idempotency",
    "Preview",
    "Approval",
    "Effect",
    "OutputSchema",
    "Undo",
    "Http",
    "HttpMethod",
    "RateLimit",
    "TimeLimit",
    "Example",
    "Defaults",
    "PagingLimits",
    "IdempotencyDefaults",
    "PreviewDefaults",
    "ScopeDefaults",
    "RequestLimits",
    "Group",
    "ToolSearch",
    "Upstream",
    "UpstreamAuth",
    "AuthScheme",
    "LintConfig",
    "ToolLint",
    "Allowance",
];

/// The name of the top level's section.
const TOP: &str = "SpecFile";

/// The complete format reference in Markdown: the introduction, one section per kind of
/// mapping or closed set of values (each with a table of its keys or values and an example),
/// and a complete example spec (`specs/tickets.yaml`).
pub fn reference_markdown() -> String {
    let schema = format_schema();
    let empty = Map::new();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut names: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|n| defs.contains_key(*n))
        .collect();
    names.extend(
        defs.keys()
            .map(String::as_str)
            .filter(|n| !ORDER.contains(n)),
    );

    let mut out = String::from(INTRO);
    out.push_str("\n## Contents\n\n");
    let _ = writeln!(out, "- [`{TOP}`: the top level](#{})", anchor(TOP));
    for name in &names {
        let _ = writeln!(out, "- [`{name}`](#{})", anchor(name));
    }
    out.push_str("- [A complete example](#a-complete-example)\n");

    section(&mut out, TOP, schema, defs);
    for name in &names {
        section(&mut out, name, &defs[*name], defs);
    }

    out.push_str("\n## A complete example\n\n");
    out.push_str(
        "`specs/tickets.yaml`, one of the example specs in the repository (its `not_for` names \
         `orders_get` from `specs/orders.yaml`, so the two are checked together):\n\n",
    );
    out.push_str("```yaml\n");
    out.push_str(include_str!("../../../specs/tickets.yaml"));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

/// One section: title, description, where it is used, the table, the example.
fn section(out: &mut String, name: &str, schema: &Value, defs: &Map<String, Value>) {
    let title = if name == TOP {
        format!("`{TOP}`: the top level")
    } else {
        format!("`{name}`")
    };
    let _ = write!(out, "\n## {title}\n\n");
    if let Some(d) = description(schema) {
        let _ = write!(out, "{d}\n\n");
    }
    let used = used_in(name, defs);
    if !used.is_empty() {
        let _ = write!(out, "Used in: {}.\n\n", used.join(", "));
    }
    if let Some(values) = enum_values(schema) {
        out.push_str("| Value | Meaning |\n| --- | --- |\n");
        for (value, meaning) in values {
            let _ = writeln!(out, "| `{value}` | {} |", cell(&meaning));
        }
    } else if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str("| Key | Type | Required | Meaning |\n| --- | --- | --- | --- |\n");
        for (key, prop) in props {
            let meaning = description(prop).unwrap_or_default();
            let requirement = if required.contains(&key.as_str()) {
                "required".to_string()
            } else {
                match default_of(&meaning) {
                    Some(d) => format!("optional, default {d}"),
                    None => "optional".to_string(),
                }
            };
            let _ = writeln!(
                out,
                "| `{key}` | {} | {requirement} | {} |",
                type_of(prop),
                cell(&meaning)
            );
        }
    }
    if let Some((_, example)) = EXAMPLES.iter().find(|(n, _)| *n == name) {
        let _ = write!(out, "\nExample:\n\n```yaml\n{example}```\n");
    }
}

/// A schema's description as one paragraph (doc comments wrap lines).
fn description(schema: &Value) -> Option<String> {
    let d = schema.get("description").and_then(Value::as_str)?;
    Some(d.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Text safe inside a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The GitHub-style anchor of a section heading.
fn anchor(name: &str) -> String {
    if name == TOP {
        format!("{}-the-top-level", name.to_lowercase())
    } else {
        name.to_lowercase()
    }
}

/// A link to a type's section.
fn link(name: &str) -> String {
    format!("[`{name}`](#{})", anchor(name))
}

/// The name a `$ref` points at.
fn ref_name(schema: &Value) -> Option<&str> {
    let r = schema.get("$ref").and_then(Value::as_str)?;
    Some(r.rsplit('/').next().unwrap_or(r))
}

/// How a value's type reads in the table: `string`, `list of Field`, `map of name to Field`.
fn type_of(schema: &Value) -> String {
    if let Some(name) = ref_name(schema) {
        return link(name);
    }
    if let Some(alts) = schema.get("anyOf").and_then(Value::as_array) {
        let parts: Vec<String> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .map(type_of)
            .collect();
        return parts.join(" or ");
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    if types.len() > 1 {
        // One of several JSON types (an enum's values: `string or whole number`).
        return types
            .iter()
            .map(|t| type_of(&serde_json::json!({ "type": t })))
            .collect::<Vec<_>>()
            .join(" or ");
    }
    match types.first().copied() {
        None => "any value".to_string(),
        Some("array") => match schema.get("items") {
            Some(items) => format!("list of {}", type_of(items)),
            None => "list".to_string(),
        },
        Some("object") => match schema.get("additionalProperties") {
            Some(values) if values.is_object() => {
                format!("map of name to {}", type_of(values))
            }
            _ => "mapping".to_string(),
        },
        Some("integer") => match schema.get("minimum").and_then(Value::as_f64) {
            Some(min) if min >= 0.0 => format!("whole number ≥ {min}"),
            _ => "whole number".to_string(),
        },
        Some("number") => "number".to_string(),
        Some("boolean") => "`true` or `false`".to_string(),
        Some("string") => "string".to_string(),
        Some(other) => other.to_string(),
    }
}

/// The values of a closed set and their meanings (`oneOf` of `const`s, or `enum`).
fn enum_values(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(alts) = schema.get("oneOf").and_then(Value::as_array) {
        return alts
            .iter()
            .map(|a| {
                let v = a.get("const").and_then(Value::as_str)?;
                Some((v.to_string(), description(a).unwrap_or_default()))
            })
            .collect();
    }
    let values = schema.get("enum").and_then(Value::as_array)?;
    Some(
        values
            .iter()
            .filter_map(Value::as_str)
            .map(|v| (v.to_string(), String::new()))
            .collect(),
    )
}

/// The default a key's documentation states (`Default `false`.`, `Defaults to `true``,
/// `Built-in default: `5000``, `(defaults to the toolset's)`), so the table shows it in its
/// own column. The sentence stays in the meaning, which is the source.
fn default_of(meaning: &str) -> Option<String> {
    for marker in ["Built-in default: ", "Default ", "Defaults to "] {
        if let Some(i) = meaning.find(marker) {
            let rest = &meaning[i + marker.len()..];
            if let Some(code) = rest.strip_prefix('`') {
                let end = code.find('`')?;
                let mut value = format!("`{}`", &code[..end]);
                // `default_limit: 20`, `max_limit: 100`: several values in a row.
                let mut more = &code[end + 1..];
                while let Some(next) = more.strip_prefix(", `") {
                    let Some(end) = next.find('`') else { break };
                    let _ = write!(value, ", `{}`", &next[..end]);
                    more = &next[end + 1..];
                }
                return Some(value);
            }
        }
    }
    if meaning.contains("defaults to the toolset's") {
        return Some("the toolset's".to_string());
    }
    if let Some(i) = meaning.find(" (default)") {
        let before = &meaning[..i];
        let start = before.rfind('`')?;
        let open = before[..start].rfind('`')?;
        return Some(before[open..=start].to_string());
    }
    None
}

/// Where a type is used: `Tool.params`, `SpecFile.tools`, as links.
fn used_in(name: &str, defs: &Map<String, Value>) -> Vec<String> {
    let schema = format_schema();
    let mut owners: Vec<(&str, &Value)> = vec![(TOP, schema)];
    owners.extend(defs.iter().map(|(n, s)| (n.as_str(), s)));
    let mut out = Vec::new();
    for (owner, s) in owners {
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (key, prop) in props {
            if refers_to(prop, name) {
                out.push(format!("{} `{key}`", link(owner)));
            }
        }
    }
    out
}

fn refers_to(schema: &Value, name: &str) -> bool {
    if ref_name(schema) == Some(name) {
        return true;
    }
    ["items", "additionalProperties"]
        .iter()
        .filter_map(|k| schema.get(*k))
        .chain(
            schema
                .get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
        .any(|s| refers_to(s, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Diagnostics, Sources};
    use crate::spec::node::PNode;

    /// Each hand-written example has the shape of its section, by the loader's own check.
    #[test]
    fn every_example_fits_its_section() {
        let root = format_schema();
        let defs = root.get("$defs").expect("$defs").clone();
        for (name, yaml) in EXAMPLES {
            assert!(defs.get(*name).is_some(), "no section {name}");
            let schema = serde_json::json!({ "$ref": format!("#/$defs/{name}"), "$defs": defs });
            let doc: PNode = serde_saphyr::from_str(yaml).expect("example is YAML");
            let mut sources = Sources::default();
            let file = sources.add(format!("{name} example"), *yaml);
            let mut diags = Diagnostics::default();
            crate::spec::shape::check(&doc, &schema, file, &mut diags);
            assert!(diags.is_empty(), "{}", diags.render(&sources));
        }
    }

    /// Every type the loader takes is listed where a spec's author looks: in the `type`
    /// row of the reference (its words) and among the schema's `examples` for `type`
    /// (what an editor offers). The content types were once missing from both, because the
    /// words were written apart from the loader's list.
    #[test]
    fn every_type_is_listed() {
        let ty = &format_schema()["$defs"]["Field"]["properties"]["type"];
        let offered: Vec<&str> = ty["examples"]
            .as_array()
            .expect("examples of `type`")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(offered, crate::spec::format::BUILTIN_TYPES);
        let words = ty["description"].as_str().expect("description of `type`");
        let reference = reference_markdown();
        let row = reference
            .lines()
            .find(|l| l.starts_with("| `type` |") && l.contains("`union`"))
            .expect("the Field table's `type` row");
        for name in crate::spec::format::BUILTIN_TYPES {
            let code = format!("`{name}`");
            assert!(
                words.contains(&code),
                "`type`'s doc comment does not name {code}"
            );
            assert!(
                row.contains(&code),
                "the reference's `type` row does not name {code}"
            );
        }
    }

    /// Every kind of mapping has an example, so a new one cannot be added without one.
    #[test]
    fn every_section_has_an_example() {
        let defs = format_schema()["$defs"].as_object().expect("$defs");
        for name in defs.keys() {
            assert!(
                EXAMPLES.iter().any(|(n, _)| n == name),
                "add an example for `{name}` to EXAMPLES in src/spec/reference.rs"
            );
        }
    }

    #[test]
    fn lists_every_key_with_its_requirement() {
        let md = reference_markdown();
        assert!(md.contains("| `tier` | [`Tier`](#tier) | required |"));
        assert!(md.contains("| `open_world` | `true` or `false` | optional, default `false` |"));
        assert!(md.contains("| `params` | map of name to [`Field`](#field) | optional |"));
        assert!(md.contains("| `irreversible` |"));
    }

    #[test]
    fn reads_defaults_from_the_documentation() {
        assert_eq!(default_of("Default `false`."), Some("`false`".into()));
        assert_eq!(
            default_of("Built-in default: `default_limit: 20`, `max_limit: 100`."),
            Some("`default_limit: 20`, `max_limit: 100`".into())
        );
        assert_eq!(
            default_of("Rule set: `minimal`, `recommended` (default) or `strict`."),
            Some("`recommended`".into())
        );
        assert_eq!(
            default_of("Largest (defaults to the toolset's)."),
            Some("the toolset's".into())
        );
        assert_eq!(default_of("Smallest allowed number."), None);
    }
}
