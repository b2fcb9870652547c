//! The tool lists follow each provider's published rules (their API references for tool
//! definitions, function calling and structured outputs): names, strictness, required and nullable
//! properties, supported keywords, annotations and limits. Covers every spec in `specs/`.
//!
//! Run: `cargo test --features tokens --test it providers_rules::`.

use regex::Regex;
use serde_json::{Value, json};
use toolspec::internals::emit::{self, Kind, Options};
use toolspec::model::describe::tool_description;
use toolspec::model::{Kind as TyKind, Model, Origin, Tier, ToolSet};

use crate::common;
use common::{example_specs, load_clean};

/// The parsed file `<service>/<name>` of the generated output.
fn generated(model: &Model, ts: &ToolSet, name: &str) -> Value {
    let files = emit::generate(model, &[Kind::Schemas], &Options::default())
        .expect("specs export")
        .files;
    let path = format!("{}/{name}", ts.service);
    let f = files
        .iter()
        .find(|f| f.path.to_string_lossy().replace('\\', "/") == path)
        .unwrap_or_else(|| panic!("{path} was not generated"));
    assert!(
        f.contents.ends_with("}\n") || f.contents.ends_with("]\n"),
        "{path} must end with a newline"
    );
    serde_json::from_str(&f.contents).expect("valid JSON")
}

/// Calls `visit(node, is_schema_position)` on every schema node below `schema`.
fn walk_schemas<'a>(schema: &'a Value, visit: &mut dyn FnMut(&'a Value)) {
    visit(schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for p in props.values() {
            walk_schemas(p, visit);
        }
    }
    if let Some(items) = schema.get("items") {
        walk_schemas(items, visit);
    }
}

fn has_type(node: &Value, ty: &str) -> bool {
    match &node["type"] {
        Value::String(s) => s == ty,
        Value::Array(list) => list.iter().any(|t| t == ty),
        _ => false,
    }
}

/// Keys that are never allowed anywhere in any emitted file.
fn assert_self_contained(v: &Value, at: &str) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                assert!(
                    !["$ref", "$defs", "$schema", "definitions"].contains(&k.as_str()),
                    "{at}: `{k}` found"
                );
                assert_self_contained(child, at);
            }
        }
        Value::Array(list) => list.iter().for_each(|c| assert_self_contained(c, at)),
        _ => {}
    }
}

/// Standard-profile input rules: closed objects, items on every array, no type arrays, a
/// description on every property.
fn assert_standard_input(schema: &Value, at: &str) {
    assert_eq!(schema["type"], "object", "{at}: root is an object");
    walk_schemas(schema, &mut |node| {
        assert!(
            node["type"].is_string(),
            "{at}: type arrays are rejected by several clients: {node}"
        );
        if has_type(node, "object") {
            assert_eq!(
                node["additionalProperties"], false,
                "{at}: open input object {node}"
            );
        }
        if has_type(node, "array") {
            assert!(
                node["items"].is_object(),
                "{at}: array without items {node}"
            );
        }
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (k, p) in props {
                let d = p["description"].as_str().unwrap_or("");
                assert!(!d.trim().is_empty(), "{at}: `{k}` has no description");
            }
        }
    });
}

#[test]
fn mcp_tools_list() {
    let model = load_clean(&example_specs());
    let name_re = Regex::new(r"^[A-Za-z0-9_.\-]{1,128}$").unwrap();
    for ts in &model.toolsets {
        let list = generated(&model, ts, "tools.mcp.json");
        assert_self_contained(&list, "tools.mcp.json");
        let tools = list["tools"].as_array().expect("{\"tools\": [...]}");
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        let spec_order: Vec<&str> = ts.tools.iter().map(|t| t.name.text.as_str()).collect();
        assert_eq!(names, spec_order, "tools are listed in spec order");
        for (t, tool) in tools.iter().zip(&ts.tools) {
            let at = format!("{} (MCP)", tool.name);
            let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                [
                    "name",
                    "title",
                    "description",
                    "inputSchema",
                    "outputSchema",
                    "annotations"
                ],
                "{at}"
            );
            assert!(name_re.is_match(&tool.name.text), "{at}: name");
            assert_eq!(t["title"], tool.title.text.as_str(), "{at}");
            assert_eq!(
                t["description"],
                tool_description(tool).as_str(),
                "{at}: description is the model's"
            );
            assert_standard_input(&t["inputSchema"], &at);
            assert_eq!(
                t["outputSchema"]["type"], "object",
                "{at}: output root is an object"
            );
            walk_schemas(&t["outputSchema"], &mut |node| {
                if has_type(node, "array") {
                    assert!(
                        node["items"].is_object(),
                        "{at}: output array without items"
                    );
                }
            });
            // A hint is stated when it differs from MCP's (cautious) default, and a write
            // always states destructiveHint; a read states neither destructiveHint nor
            // idempotentHint, which MCP gives meaning only for writes.
            let a = &t["annotations"];
            let read_only = tool.tier == Tier::ReadOnly;
            let hint = |name: &str, default: bool| a.get(name).map_or(default, |h| h == true);
            for (name, default) in [
                ("readOnlyHint", false),
                ("destructiveHint", true),
                ("idempotentHint", false),
                ("openWorldHint", true),
            ] {
                if let Some(h) = a.get(name) {
                    assert!(h.is_boolean(), "{at}: {name} is a boolean");
                    let shown_for_a_write = name == "destructiveHint" && !read_only;
                    assert!(
                        h != default || shown_for_a_write,
                        "{at}: {name} states its default"
                    );
                }
            }
            assert_eq!(hint("readOnlyHint", false), read_only, "{at}");
            if read_only {
                assert!(
                    a.get("destructiveHint").is_none() && a.get("idempotentHint").is_none(),
                    "{at}"
                );
            } else {
                assert_eq!(
                    a["destructiveHint"],
                    tool.tier == Tier::Irreversible,
                    "{at}: a write states destructiveHint"
                );
                assert_eq!(
                    hint("idempotentHint", false),
                    tool.idempotency.is_some(),
                    "{at}"
                );
            }
            assert_eq!(hint("openWorldHint", true), tool.open_world, "{at}");
        }
    }
}

#[test]
fn mcp_property_descriptions_carry_examples_and_rules() {
    let model = load_clean(&example_specs());
    for ts in &model.toolsets {
        let list = generated(&model, ts, "tools.mcp.json");
        for (t, tool) in list["tools"].as_array().unwrap().iter().zip(&ts.tools) {
            let props = &t["inputSchema"]["properties"];
            for p in tool.params.iter() {
                let d = props[&p.name]["description"].as_str().unwrap_or_default();
                assert!(
                    d.starts_with(p.description.trim().trim_end_matches('.')),
                    "{}.{}: {d}",
                    tool.name,
                    p.name
                );
                if p.origin != Origin::Spec {
                    continue;
                }
                let scalar = !matches!(p.ty.kind, TyKind::Object { .. } | TyKind::Array { .. });
                if scalar && p.default.as_ref() != Some(&p.example) {
                    let ex = format!("Example: {}.", serde_json::to_string(&p.example).unwrap());
                    assert!(
                        d.contains(&ex),
                        "{}.{}: `{d}` lacks `{ex}`",
                        tool.name,
                        p.name
                    );
                }
                // Each rule is said once: the enum keyword lists the values, and the words
                // only what each means, where the spec says.
                if let Some(values) = p.ty.enum_values() {
                    let words = format!("One of: {}.", values.join(", "));
                    assert!(
                        !d.contains(&words),
                        "{}.{}: `{d}` repeats the enum keyword",
                        tool.name,
                        p.name
                    );
                    assert_eq!(
                        props[&p.name]["enum"],
                        serde_json::json!(values),
                        "{}.{}",
                        tool.name,
                        p.name
                    );
                }
                if let TyKind::Integer {
                    enum_values: Some(values),
                    ..
                } = &p.ty.kind
                {
                    assert_eq!(
                        props[&p.name]["enum"],
                        serde_json::json!(values),
                        "{}.{}",
                        tool.name,
                        p.name
                    );
                }
                let lengths = match &p.ty.kind {
                    TyKind::String(r) => toolspec::model::describe::count_words(
                        r.min_length,
                        r.max_length,
                        toolspec::model::describe::Counted::Characters,
                    ),
                    TyKind::Integer {
                        minimum, maximum, ..
                    } => toolspec::model::describe::bound_words(*minimum, *maximum),
                    _ => None,
                };
                if let Some(words) = lengths {
                    assert!(
                        !d.to_lowercase().contains(&words),
                        "{}.{}: `{d}` says `{words}`, which its keywords state",
                        tool.name,
                        p.name
                    );
                }
                assert_eq!(
                    props[&p.name].get("default"),
                    p.default.as_ref(),
                    "{}.{} default",
                    tool.name,
                    p.name
                );
            }
            let required: Vec<&str> = t["inputSchema"]["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let expected: Vec<&str> = tool
                .params
                .iter()
                .filter(|p| p.required)
                .map(|p| p.name.as_str())
                .collect();
            assert_eq!(
                required, expected,
                "{}: optional means absent from required",
                tool.name
            );
        }
    }
}

#[test]
fn anthropic_tools() {
    let model = load_clean(&example_specs());
    let name_re = Regex::new(r"^[a-zA-Z0-9_-]{1,64}$").unwrap();
    for ts in &model.toolsets {
        let list = generated(&model, ts, "tools.anthropic.json");
        assert_self_contained(&list, "tools.anthropic.json");
        let mcp = generated(&model, ts, "tools.mcp.json");
        let tools = list.as_array().expect("a `tools` array");
        assert_eq!(tools.len(), ts.tools.len());
        for ((t, tool), m) in tools
            .iter()
            .zip(&ts.tools)
            .zip(mcp["tools"].as_array().unwrap())
        {
            let at = format!("{} (Anthropic)", tool.name);
            let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
            let successes: Vec<&serde_json::Value> = tool
                .examples
                .iter()
                .filter(|e| e.error.is_none())
                .map(|e| &e.arguments)
                .collect();
            let strict = t["strict"] == true;
            let mut expected = vec!["name", "description", "input_schema"];
            if strict {
                expected.push("strict");
            }
            if !successes.is_empty() {
                expected.push("input_examples");
            }
            assert_eq!(keys, expected, "{at}: no other keys");
            // The spec's successful calls, in order, as the agent passes them.
            if !successes.is_empty() {
                let examples: Vec<&serde_json::Value> =
                    t["input_examples"].as_array().unwrap().iter().collect();
                assert_eq!(examples, successes, "{at}: input_examples");
            }
            assert!(name_re.is_match(t["name"].as_str().unwrap()), "{at}: name");
            assert_eq!(t["description"], tool_description(tool).as_str(), "{at}");
            if !strict {
                assert_standard_input(&t["input_schema"], &at);
                assert_eq!(
                    t["input_schema"], m["inputSchema"],
                    "{at}: same schema as MCP"
                );
                continue;
            }
            // Strict: the MCP schema's structure, without the keywords strict mode drops
            // (their rules are in the words), every object closed.
            assert_anthropic_strict(&t["input_schema"], &at);
            let dropped = [
                "minimum",
                "maximum",
                "minLength",
                "maxLength",
                "pattern",
                "maxItems",
                "default",
            ];
            assert_eq!(
                bare(&t["input_schema"], &[]),
                bare(&m["inputSchema"], &dropped),
                "{at}: the MCP schema, lowered"
            );
        }
    }
}

/// Keywords Anthropic's strict mode keeps.
fn assert_anthropic_strict(schema: &Value, at: &str) {
    const KEPT: &[&str] = &[
        "type",
        "description",
        "enum",
        "anyOf",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "minItems",
        "format",
    ];
    let Some(m) = schema.as_object() else { return };
    for (k, v) in m {
        assert!(KEPT.contains(&k.as_str()), "{at}: `{k}` in a strict schema");
        if k == "minItems" {
            assert!(v.as_u64().is_some_and(|n| n <= 1), "{at}: minItems {v}");
        }
    }
    if m.get("type") == Some(&json!("object")) {
        assert_eq!(
            m.get("additionalProperties"),
            Some(&json!(false)),
            "{at}: closed"
        );
    }
    for (name, p) in m
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        assert_anthropic_strict(p, &format!("{at}.{name}"));
    }
    if let Some(items) = m.get("items") {
        assert_anthropic_strict(items, &format!("{at}[]"));
    }
    for v in m
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        assert_anthropic_strict(v, &format!("{at}|"));
    }
}

/// `schema` without descriptions and without the keywords `drop` names (and a `minItems`
/// above one, which strict mode also drops), at every depth.
fn bare(schema: &Value, drop: &[&str]) -> Value {
    let Some(m) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (k, v) in m {
        let high_min = k == "minItems" && v.as_u64().is_some_and(|n| n > 1);
        if k == "description" || drop.contains(&k.as_str()) || (!drop.is_empty() && high_min) {
            continue;
        }
        let v = match k.as_str() {
            "properties" => Value::Object(
                v.as_object()
                    .unwrap()
                    .iter()
                    .map(|(n, p)| (n.clone(), bare(p, drop)))
                    .collect(),
            ),
            "items" => bare(v, drop),
            "anyOf" => Value::Array(
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| bare(x, drop))
                    .collect(),
            ),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

#[test]
fn openai_strict_tools() {
    let model = load_clean(&example_specs());
    let name_re = Regex::new(r"^[a-zA-Z0-9_-]{1,64}$").unwrap();
    let supported = [
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
    ];
    let formats = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    for ts in &model.toolsets {
        let list = generated(&model, ts, "tools.openai.json");
        assert_self_contained(&list, "tools.openai.json");
        let tools = list.as_array().expect("a `tools` array");
        assert!(tools.len() <= 128, "OpenAI takes at most 128 tools");
        for (t, tool) in tools.iter().zip(&ts.tools) {
            let at = format!("{} (OpenAI)", tool.name);
            assert_eq!(t["type"], "function", "{at}");
            let f = &t["function"];
            let keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                ["name", "description", "parameters", "strict"],
                "{at}"
            );
            assert!(name_re.is_match(f["name"].as_str().unwrap()), "{at}: name");
            assert!(
                f["description"].as_str().unwrap().chars().count() <= 1024,
                "{at}: description too long"
            );
            assert_eq!(f["strict"], true, "{at}: strict");
            let params = &f["parameters"];
            assert_eq!(params["type"], "object", "{at}: root is a plain object");
            let mut depth_ok = true;
            check_depth(params, 1, &mut depth_ok);
            assert!(depth_ok, "{at}: nesting over 10 levels");
            walk_schemas(params, &mut |node| {
                for k in node.as_object().unwrap().keys() {
                    assert!(
                        supported.contains(&k.as_str()),
                        "{at}: `{k}` is not supported in strict mode: {node}"
                    );
                }
                if let Some(fmt) = node.get("format") {
                    assert!(
                        formats.contains(&fmt.as_str().unwrap()),
                        "{at}: format {fmt} unsupported"
                    );
                }
                if has_type(node, "array") {
                    assert!(node["items"].is_object(), "{at}: array without items");
                }
                if has_type(node, "object") {
                    assert_eq!(
                        node["additionalProperties"], false,
                        "{at}: every object is closed"
                    );
                    let props: Vec<&String> = node["properties"]
                        .as_object()
                        .expect("properties")
                        .keys()
                        .collect();
                    let required: Vec<&str> = node["required"]
                        .as_array()
                        .expect("required")
                        .iter()
                        .map(|r| r.as_str().unwrap())
                        .collect();
                    assert_eq!(
                        props, required,
                        "{at}: every property is required in strict mode"
                    );
                }
            });
            // Optional parameters (at the top level, as the model says) are nullable.
            for p in &tool.params {
                let node = &params["properties"][&p.name];
                assert_eq!(
                    has_type(node, "null"),
                    !p.required,
                    "{at}: `{}` nullable iff optional",
                    p.name
                );
                if let Some(values) = node.get("enum").and_then(Value::as_array) {
                    assert_eq!(
                        values.contains(&Value::Null),
                        !p.required,
                        "{at}: `{}` enum and null",
                        p.name
                    );
                }
                if let Some(d) = &p.default {
                    let words = format!("Default: {}.", serde_json::to_string(d).unwrap());
                    let desc = node["description"].as_str().unwrap();
                    assert!(
                        p.origin != Origin::Spec || desc.contains(&words),
                        "{at}: `{}` lost its default: {desc}",
                        p.name
                    );
                }
            }
        }
    }
}

fn check_depth(node: &Value, level: usize, ok: &mut bool) {
    if level > 10 {
        *ok = false;
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for p in props.values() {
            if has_type(p, "object") || has_type(p, "array") {
                check_depth(p, level + 1, ok);
            }
        }
    }
    if let Some(items) = node.get("items") {
        check_depth(items, level + 1, ok);
    }
}

/// Keywords the strict profile drops reappear as words: nothing is lost.
#[test]
fn openai_profile_keeps_dropped_facts_in_words() {
    let model = load_clean(&example_specs());
    let mut seen_length = false;
    for ts in &model.toolsets {
        let openai = generated(&model, ts, "tools.openai.json");
        for (t, tool) in openai.as_array().unwrap().iter().zip(&ts.tools) {
            for p in tool.params.iter() {
                let TyKind::String(rules) = &p.ty.kind else {
                    continue;
                };
                let d = t["function"]["parameters"]["properties"][&p.name]["description"]
                    .as_str()
                    .unwrap();
                if let (Some(a), Some(b)) = (rules.min_length, rules.max_length) {
                    assert!(
                        d.contains(&format!("{a}-{b}")),
                        "{}.{}: length lost: {d}",
                        tool.name,
                        p.name
                    );
                    seen_length = true;
                } else if let Some(b) = rules.max_length {
                    assert!(
                        d.contains(&format!("{b} character")),
                        "{}.{}: length lost: {d}",
                        tool.name,
                        p.name
                    );
                    seen_length = true;
                }
            }
        }
    }
    assert!(seen_length, "the specs have length-limited strings");
}

/// The hints say what the ports' tools really do: a low-risk post only adds (not
/// destructive) and, with its key optional, runs again when sent again without one (not
/// idempotent); a previewed delete is destructive and, with its key required, idempotent.
#[test]
fn hints_follow_low_risk_and_optional_keys() {
    let mut paths = common::yaml_files(&common::root().join("tests/corpus"));
    paths.extend(example_specs());
    let model = load_clean(&paths);
    let hints = |name: &str| {
        let (ts, _) = model.tool(name).expect("a port's tool");
        let list = generated(&model, ts, "tools.mcp.json");
        list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .expect("listed")["annotations"]
            .clone()
    };
    let post = hints("slack_post_message");
    assert_eq!(
        (
            post["destructiveHint"].as_bool(),
            post["idempotentHint"].as_bool()
        ),
        // Not idempotent is MCP's default: left out.
        (Some(false), None)
    );
    // A destructive write whose key every call must send is idempotent.
    let refund = hints("orders_refund");
    assert_eq!(
        (
            refund["destructiveHint"].as_bool(),
            refund["idempotentHint"].as_bool()
        ),
        (Some(true), Some(true))
    );
    // The same with the key optional, as the calendar port's original callers send none.
    let delete = hints("delete-event");
    assert_eq!(
        (
            delete["destructiveHint"].as_bool(),
            delete["idempotentHint"].as_bool()
        ),
        (Some(true), None)
    );
    let fill = hints("puppeteer_fill");
    assert_eq!(
        fill["idempotentHint"].as_bool(),
        None,
        "its key is optional: not idempotent, MCP's default"
    );
}

/// The MCP list publishes each output schema's shape by default: the same properties and
/// `required` as the whole schema (`schemas/<tool>.output.json`), no words and no rules at any
/// depth, and the runtime's own blocks as plain objects. `full` publishes the whole schema,
/// `none` nothing; the per-tool file is whole either way.
#[test]
fn mcp_output_schemas_are_published_at_the_spec_level() {
    use toolspec::model::OutputSchema;
    let mut model = load_clean(&example_specs());
    let ts = model.toolsets[0].clone();
    let list = generated(&model, &ts, "tools.mcp.json");
    for (t, tool) in list["tools"].as_array().unwrap().iter().zip(&ts.tools) {
        let at = format!("{} (MCP)", tool.name.text);
        let whole = generated(
            &model,
            &ts,
            &format!("schemas/{}.output.json", tool.name.text),
        );
        let shape = &t["outputSchema"];
        assert_eq!(shape["required"], whole["required"], "{at}");
        let keys = |s: &Value| -> Vec<String> {
            s["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(shape), keys(&whole), "{at}");
        walk_schemas(shape, &mut |node| {
            for rule in ["description", "pattern", "format", "maxLength", "minimum"] {
                assert!(node.get(rule).is_none(), "{at}: {rule} in {node}");
            }
        });
        for block in ["truncated", "preview", "undo"] {
            if let Some(b) = shape["properties"].get(block) {
                assert_eq!(b, &json!({"type": "object"}), "{at}: {block}");
            }
        }
    }
    let published = |model: &mut Model, level: OutputSchema| {
        let mut ts = model.toolsets[0].clone();
        for t in &mut ts.tools {
            t.output_schema = level;
        }
        let first = ts.tools[0].name.text.clone();
        model.toolsets[0] = ts.clone();
        let list = generated(model, &ts, "tools.mcp.json");
        let whole = generated(model, &ts, &format!("schemas/{first}.output.json"));
        (list["tools"][0].get("outputSchema").cloned(), whole)
    };
    let (full, whole) = published(&mut model.clone(), OutputSchema::Full);
    assert_eq!(full, Some(whole));
    let (none, whole) = published(&mut model, OutputSchema::None);
    assert_eq!(none, None);
    assert_eq!(whole["type"], "object", "the per-tool file stays whole");
}

/// OpenAI strict mode lists every property as required and sends `null` for one left out,
/// so every optional parameter's schema takes `null`: a scalar by its type list, a union by
/// one more `{"type": "null"}` variant (an optional union without it refused every call
/// that left it out, as the calendar port's `account` did).
#[test]
fn openai_strict_optional_parameters_take_null() {
    let mut paths = example_specs();
    paths.extend(common::yaml_files(&common::root().join("tests/corpus")));
    let model = load_clean(&paths);
    let mut unions = 0;
    for ts in &model.toolsets {
        let list = generated(&model, ts, "tools.openai.json");
        for tool in &ts.tools {
            let entry = list
                .as_array()
                .and_then(|l| l.iter().find(|e| e["function"]["name"] == tool.name.text))
                .expect("tool in the OpenAI list");
            if entry["function"]["strict"] != true {
                continue;
            }
            let props = &entry["function"]["parameters"]["properties"];
            for f in tool.params.iter().filter(|f| !f.required) {
                let p = &props[f.name.as_str()];
                let by_type = p["type"]
                    .as_array()
                    .is_some_and(|t| t.iter().any(|x| x == "null"));
                let by_variant = p["anyOf"]
                    .as_array()
                    .is_some_and(|v| v.iter().any(|x| x["type"] == "null"));
                unions += usize::from(by_variant);
                assert!(
                    by_type || by_variant,
                    "{} `{}` takes no null: {p}",
                    tool.name.text,
                    f.name
                );
            }
        }
    }
    assert!(unions > 0, "an optional union was checked");
}

/// A parameter of a named type is described in its own words when it has some, and in the
/// type's words only when it has none: the type's description is never appended.
#[test]
fn a_named_type_describes_only_the_parameters_without_words_of_their_own() {
    use toolspec::internals::plan::schema::{Profile, input_schema};
    let spec = r#"
toolspec: 1
service: notes
title: Notes
description: Keep short notes.
types:
  NoteId: { type: string, description: A note's id from notes_list., max_length: 20, example: N-1 }
tools:
  - name: notes_move
    title: Move a note
    summary: Move one note before another.
    returns: the note's new position.
    tier: read_only
    params:
      note_id: { type: NoteId, description: The note to move. }
      before: { type: NoteId }
    output:
      position: { type: integer, description: Its place from 1., minimum: 1, example: 1 }
"#;
    let loaded = toolspec::load_texts([("notes.yaml".to_string(), spec.to_string())]);
    assert!(
        !loaded.diagnostics.has_errors(),
        "{}",
        loaded.diagnostics.render(&loaded.sources)
    );
    let tool = &loaded.model.toolsets[0].tools[0];
    for profile in [
        Profile::Standard,
        Profile::AnthropicStrict,
        Profile::OpenAiStrict,
    ] {
        let schema = input_schema(tool, profile);
        let words = |p: &str| {
            schema["properties"][p]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            words("note_id").starts_with("The note to move."),
            "{profile:?}: {schema}"
        );
        assert!(
            !words("note_id").contains("from notes_list"),
            "{profile:?}: {schema}"
        );
        assert!(
            words("before").starts_with("A note's id from notes_list."),
            "{profile:?}: {schema}"
        );
    }
}
