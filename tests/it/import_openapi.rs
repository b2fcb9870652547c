//! `toolspec import openapi` on real documents (`tests/import/documents/`, each with its
//! source and version in `SOURCES.md`): every draft checks and generates; the drafts and
//! their reports are golden files (`tests/import/drafts/`); and every constraint of the
//! chosen operations' parameters reaches the draft's input schemas, or the report says
//! why not.
//!
//! After an intended change: `UPDATE_GOLDEN=1 cargo test --features tokens --test it
//! import_openapi::`, then read the diff of the drafts.

use serde_json::{Value, json};
use toolspec::internals::emit::{Kind, Options as EmitOptions, generate};
use toolspec::internals::import::openapi::{Document, Draft, Options, import_document};
use toolspec::internals::plan::schema::{Profile, input_schema};

use crate::common::root;

/// The documents and the operations each test imports: all of the Petstore; one tag of
/// GitHub's 1,223 operations; two of OpenAI's and Svix's.
const CASES: [(&str, &str, &[&str]); 4] = [
    ("petstore3.yaml", "petstore", &[]),
    ("github.json", "github", &["tag:pulls"]),
    ("openai.yaml", "openai", &["tag:Assistants", "tag:Files"]),
    ("svix.json", "svix", &["tag:Application", "tag:Message"]),
];

fn document(file: &str) -> Document {
    let path = root().join("tests/import/documents").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Document::parse(&text).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

fn draft(doc: &Document, file: &str, service: &str, include: &[&str]) -> Draft {
    let options = Options {
        service: service.into(),
        include: include.iter().map(|s| s.to_string()).collect(),
        source_name: file.into(),
    };
    import_document(doc, &options).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

fn load_draft(service: &str, yaml: &str) -> toolspec::model::Model {
    let loaded = toolspec::load_texts([(format!("{service}.yaml"), yaml.to_string())]);
    assert!(
        !loaded.has_errors(),
        "the {service} draft does not check:\n{}",
        loaded.render_diagnostics()
    );
    loaded.model
}

fn golden(name: &str, actual: &str) {
    golden_at("drafts", name, actual);
}

/// Checks `actual` against `tests/import/<dir>/<name>` (writes it with UPDATE_GOLDEN).
fn golden_at(dir: &str, name: &str, actual: &str) {
    let path = root().join("tests/import").join(dir).join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&path, actual).expect("writes");
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} is stale; rerun with UPDATE_GOLDEN=1 and review the diff",
        path.display()
    );
}

#[test]
fn drafts_check_generate_and_are_the_checked_in_ones() {
    for (file, service, include) in CASES {
        let doc = document(file);
        let d = draft(&doc, file, service, include);
        let model = load_draft(service, &d.yaml);
        let generated = generate(&model, Kind::ALL, &EmitOptions::default())
            .unwrap_or_else(|e| panic!("{service}: generate failed: {e:?}"));
        assert!(
            generated
                .files
                .iter()
                .any(|f| f.path.ends_with(format!("{service}.rs")) && !f.contents.is_empty()),
            "{service}: no Rust layer generated"
        );
        assert_eq!(d.report.tools_written, model.toolsets[0].tools.len());
        golden(&format!("{service}.yaml"), &d.yaml);
        golden(&format!("{service}.report.txt"), &d.report.to_string());
    }
}

/// GitHub's `pulls`, `issues` and `repos` tags as one catalog: one group per tag, in the
/// order they were chosen (`pulls` first, loaded up front), the others deferred in every list that can defer and left out of the
/// lists that cannot. The draft is `tests/import/catalog/github.yaml`.
#[test]
fn a_catalog_of_three_tags_is_three_groups_deferred_where_providers_can() {
    let doc = document("github.json");
    let d = draft(
        &doc,
        "github.json",
        "github",
        &["tag:pulls", "tag:issues", "tag:repos"],
    );
    golden_at("catalog", "github.yaml", &d.yaml);
    golden_at("catalog", "github.report.txt", &d.report.to_string());
    let model = load_draft("github", &d.yaml);
    let ts = &model.toolsets[0];
    let names: Vec<&str> = ts.groups.iter().map(|g| g.name.text.as_str()).collect();
    assert_eq!(names, ["pulls", "issues", "repos"]);
    assert_eq!(
        ts.groups.iter().map(|g| g.up_front).collect::<Vec<_>>(),
        [true, false, false]
    );
    assert!(
        ts.tools.iter().all(|t| t.group.is_some()),
        "every tool in a group"
    );
    let loaded = ts.members(0).count();
    let all = ts.tools.len();
    assert!(loaded > 20 && all > 200, "{loaded} of {all}");

    let files = generate(&model, &[Kind::Schemas], &EmitOptions::default())
        .unwrap_or_else(|e| panic!("generate failed: {e:?}"))
        .files;
    let list = |name: &str| -> Value {
        let f = files
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap_or_else(|| panic!("no {name}"));
        serde_json::from_str(&f.contents).expect("JSON")
    };
    // Anthropic: the search tool first, then every tool, those outside `pulls` deferred.
    let anthropic = list("tools.anthropic.json");
    let anthropic = anthropic.as_array().expect("an array");
    assert_eq!(anthropic[0]["type"], "tool_search_tool_bm25_20251119");
    assert_eq!(anthropic.len(), all + 1);
    let deferred = anthropic
        .iter()
        .filter(|t| t["defer_loading"] == true)
        .count();
    assert_eq!(deferred, all - loaded);
    // Responses: one namespace per group, then the hosted search.
    let responses = list("tools.openai-responses.json");
    let kinds: Vec<&str> = responses
        .as_array()
        .expect("an array")
        .iter()
        .map(|t| t["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        ["namespace", "namespace", "namespace", "tool_search"]
    );
    assert_eq!(responses[0]["name"], "github_pulls");
    assert!(
        responses[0]["tools"]
            .as_array()
            .expect("members")
            .iter()
            .all(|f| f.get("defer_loading").is_none())
    );
    assert!(
        responses[1]["tools"]
            .as_array()
            .expect("members")
            .iter()
            .all(|f| f["defer_loading"] == true)
    );
    // Chat Completions and Gemini cannot defer: the group loaded up front only.
    assert_eq!(
        list("tools.openai.json").as_array().map(Vec::len),
        Some(loaded)
    );
    assert_eq!(
        list("tools.gemini.json")[0]["functionDeclarations"]
            .as_array()
            .map(Vec::len),
        Some(loaded)
    );
    // MCP lists every tool, and tells hosts that defer to keep the up-front ones.
    let mcp = list("tools.mcp.json");
    let kept = mcp["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["_meta"]["anthropic/alwaysLoad"] == true)
        .count();
    assert_eq!(kept, loaded);
    // What a model reads up front is a fraction of the whole list.
    let cost = toolspec::internals::stats::lists_cost(ts);
    let deferred = cost.deferred.expect("it defers");
    assert!(
        deferred.anthropic_up_front * 4 < cost.anthropic_tokens,
        "{cost:?}"
    );
    assert!(
        deferred.openai_up_front * 4 < cost.openai_tokens,
        "{cost:?}"
    );
}

#[test]
fn importing_is_deterministic() {
    let doc = document("svix.json");
    let a = draft(&doc, "svix.json", "svix", &["tag:Endpoint"]);
    let b = draft(&doc, "svix.json", "svix", &["tag:Endpoint"]);
    assert_eq!(a.yaml, b.yaml);
}

/// The constraint keywords of a parameter's schema (its own and its items'), with the
/// value each must have in the input schema. `exclusiveMinimum` on an integer arrives
/// as the equal `minimum`.
fn constraints(doc: &Document, schema: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Ok(s) = doc.resolve(schema) else {
        return out;
    };
    let integer = s.get("type") == Some(&json!("integer"));
    for key in [
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "default",
        "minItems",
        "maxItems",
    ] {
        // A `null` default is "left out", which every optional parameter already is.
        let Some(v) = s.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        if key == "format"
            && !["date-time", "date", "email", "uri", "url", "uuid"]
                .contains(&v.as_str().unwrap_or(""))
        {
            continue;
        }
        // `format: url` is the spec's `uri`.
        let v = if key == "format" && v == "url" {
            json!("uri")
        } else {
            v.clone()
        };
        let v = if key == "enum" {
            Value::Array(
                v.as_array()
                    .into_iter()
                    .flatten()
                    .filter(|x| !x.is_null())
                    .cloned()
                    .collect(),
            )
        } else {
            v
        };
        out.push((key.to_string(), v));
    }
    for (flag, bound, step) in [
        ("exclusiveMinimum", "minimum", 1),
        ("exclusiveMaximum", "maximum", -1),
    ] {
        let x = match s.get(flag) {
            Some(Value::Bool(true)) => s.get(bound).cloned(),
            Some(Value::Bool(false)) | None => None,
            Some(v) => Some(v.clone()),
        };
        if let Some(x) = x.and_then(|x| x.as_i64()).filter(|_| integer) {
            out.retain(|(k, _)| k != bound);
            out.push((bound.to_string(), json!(x + step)));
        }
    }
    if let Some(items) = s.get("items") {
        for (k, v) in constraints(doc, items) {
            out.push((format!("items.{k}"), v));
        }
    }
    out
}

/// Whether the input schema of a property holds `key: value`, anywhere in it (a nullable
/// parameter's rules sit in an `anyOf` branch).
fn holds(schema: &Value, key: &str, value: &Value) -> bool {
    let (key, inner) = match key.strip_prefix("items.") {
        Some(k) => (k, true),
        None => (key, false),
    };
    fn find(v: &Value, key: &str, value: &Value, want_items: bool, in_items: bool) -> bool {
        match v {
            Value::Object(m) => {
                if want_items == in_items && m.get(key).is_some_and(|x| same(x, value)) {
                    return true;
                }
                m.iter()
                    .any(|(k, x)| find(x, key, value, want_items, in_items || k == "items"))
            }
            Value::Array(a) => a.iter().any(|x| find(x, key, value, want_items, in_items)),
            _ => false,
        }
    }
    find(schema, key, value, inner, false)
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[test]
fn every_parameter_constraint_reaches_the_input_schemas() {
    let mut total = 0;
    let mut reached = 0;
    for (file, service, include) in CASES {
        let doc = document(file);
        let d = draft(&doc, file, service, include);
        let model = load_draft(service, &d.yaml);
        let toolset = &model.toolsets[0];
        let ops = d.json["tools"].as_array().expect("tools");
        for (tool_json, tool) in ops.iter().zip(&toolset.tools) {
            let http = &tool_json["http"];
            let method = http["method"]
                .as_str()
                .expect("method")
                .to_ascii_lowercase();
            let path = http["path"].as_str().expect("path");
            let schema = input_schema(tool, Profile::Standard);
            // The operation, found by method and path (placeholders renamed alike).
            let op_path =
                find_path(&doc, path).unwrap_or_else(|| panic!("{service}: no path like {path}"));
            let op = &doc.root["paths"][&op_path][&method];
            let shared = doc.root["paths"][&op_path]["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut wire: Vec<(String, Value)> = Vec::new();
            for p in op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(shared.iter())
            {
                let p = doc.resolve(p).expect("parameter");
                let name = p["name"].as_str().unwrap_or_default().to_string();
                if !wire.iter().any(|(n, _)| *n == name) {
                    wire.push((name, p["schema"].clone()));
                }
            }
            if let Some(body) = op.get("requestBody").and_then(|b| doc.resolve(b).ok())
                && let Some(s) = body.pointer("/content/application~1json/schema")
                && let Ok(s) = doc.resolve(s)
                && let Some(props) = s.get("properties").and_then(Value::as_object)
            {
                for (k, v) in props {
                    wire.push((k.clone(), v.clone()));
                }
            }
            for (wire_name, pschema) in wire {
                let Some(param) = param_of(http, &wire_name, path) else {
                    continue; // paging, the idempotency key, a cookie: not parameters.
                };
                let property = &schema["properties"][&param];
                for (key, value) in constraints(&doc, &pschema) {
                    total += 1;
                    if property.is_object() && holds(property, &key, &value) {
                        reached += 1;
                        continue;
                    }
                    let label = format!("{} {}", method.to_ascii_uppercase(), op_path);
                    let reported = d
                        .report
                        .dropped
                        .iter()
                        .any(|n| n.at.starts_with(&label) && n.at.contains(wire_name.as_str()));
                    assert!(
                        reported,
                        "{service} {label} `{wire_name}`: {key} {value} neither reached the input schema nor was reported:\n{}",
                        serde_json::to_string_pretty(property).unwrap_or_default()
                    );
                }
            }
        }
    }
    eprintln!(
        "parameter constraints: {reached} of {total} reached the input schemas; the rest are in the reports"
    );
    assert!(total > 100, "too few constraints to mean anything: {total}");
    assert!(reached * 100 >= total * 95, "{reached} of {total} reached");
}

/// The document's path key whose template matches `path` up to placeholder names.
fn find_path(doc: &Document, path: &str) -> Option<String> {
    let shape = |p: &str| {
        regex::Regex::new(r"\{[^}]*\}")
            .expect("regex")
            .replace_all(p, "{}")
            .into_owned()
    };
    let want = shape(path);
    doc.root["paths"]
        .as_object()?
        .keys()
        .find(|k| shape(k) == want)
        .cloned()
}

/// The spec parameter a wire name became, from the tool's `http`.
fn param_of(http: &Value, wire: &str, path: &str) -> Option<String> {
    for place in ["query", "headers", "body"] {
        if let Some(m) = http[place].as_object()
            && let Some((param, _)) = m.iter().find(|(_, w)| w.as_str() == Some(wire))
        {
            return Some(param.clone());
        }
    }
    let placeholder = format!("{{{wire}}}");
    if path.contains(&placeholder) {
        return Some(wire.to_string());
    }
    // A renamed path parameter: the import names it in snake_case.
    let snake = heck::ToSnakeCase::to_snake_case(wire);
    path.contains(&format!("{{{snake}}}")).then_some(snake)
}

#[test]
fn what_the_document_does_not_say_is_marked_and_counted() {
    let doc = document("petstore3.yaml");
    let d = draft(
        &doc,
        "petstore3.yaml",
        "petstore",
        &["operation:getPetById"],
    );
    let text = &d.yaml;
    let todos = text.matches("\"TODO:").count();
    assert_eq!(
        todos,
        d.report.missing.len(),
        "every TODO is in the report and no more:\n{text}"
    );
    assert!(
        d.report
            .to_string()
            .starts_with("imported: 1 of 19 operations read, 1 tools written")
    );
    // The facts it has are carried: the path parameter's description, the 404.
    assert!(text.contains("ID of pet to return"), "{text}");
    let tool = &d.json["tools"][0];
    assert_eq!(tool["name"], "petstore_pet_get");
    assert_eq!(tool["tier"], "read_only");
    assert!(
        tool["errors"]
            .as_array()
            .expect("errors")
            .contains(&json!("not_found"))
    );
    assert_eq!(d.json["errors"]["not_found"]["retryable"], false);
}

#[test]
fn writes_are_marked_as_guesses_and_keyed_apis_keep_their_key() {
    let doc = document("svix.json");
    let d = draft(
        &doc,
        "svix.json",
        "svix",
        &["operation:v1.application.create"],
    );
    let tool = &d.json["tools"][0];
    assert_eq!(tool["tier"], "irreversible");
    assert_eq!(tool["effect"], "remote_keyed");
    assert_eq!(tool["http"]["idempotency_header"], "idempotency-key");
    assert!(
        d.yaml.contains("# guessed by toolspec import"),
        "{}",
        d.yaml
    );
    assert_eq!(d.report.guessed.len(), 1);
    assert_eq!(d.json["errors"]["rate_limited"]["retryable"], true);
    let petstore = document("petstore3.yaml");
    let p = draft(
        &petstore,
        "petstore3.yaml",
        "petstore",
        &["operation:addPet"],
    );
    assert_eq!(p.json["tools"][0]["effect"], "remote_unprotected");
    assert!(p.json["tools"][0]["idempotency"]["key_optional"].is_string());
}

#[test]
fn selectors_choose_by_tag_path_and_operation() {
    let doc = document("petstore3.yaml");
    let count = |include: &[&str]| {
        draft(&doc, "petstore3.yaml", "petstore", include)
            .report
            .tools_written
    };
    assert_eq!(count(&["tag:store"]), 4);
    assert_eq!(count(&["path:/user"]), 7);
    // `/pet/{petId}/uploadImage` takes a file, not JSON: left out, and said so.
    assert_eq!(count(&["path:/pet/*"]), 5);
    assert_eq!(count(&["operation:getInventory", "tag:store"]), 4);
    assert_eq!(count(&["getInventory"]), 1);
    let none = import_document(
        &doc,
        &Options {
            service: "petstore".into(),
            include: vec!["tag:nothing".into()],
            ..Options::default()
        },
    )
    .expect_err("nothing matches");
    assert!(none.help.contains("pet, store, user"), "{none:?}");
}

/// Every operation of every document imports into a draft that checks: the whole
/// Petstore, OpenAI and Svix, and GitHub's largest tags.
#[test]
fn every_operation_of_the_documents_imports_into_a_draft_that_checks() {
    for (file, service, include) in [
        ("petstore3.yaml", "petstore", &[][..]),
        ("openai.yaml", "openai", &[][..]),
        ("svix.json", "svix", &[][..]),
        (
            "github.json",
            "github",
            &["tag:repos", "tag:actions", "tag:issues"][..],
        ),
    ] {
        let doc = document(file);
        let d = draft(&doc, file, service, include);
        let model = load_draft(service, &d.yaml);
        let skipped = d.report.skipped.len();
        assert_eq!(
            model.toolsets[0].tools.len() + skipped,
            d.report.operations_chosen,
            "{service}: every operation is a tool or a reported skip"
        );
    }
}
