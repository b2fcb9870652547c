//! The docs tell the truth about the call they show.
//!
//! The truth fixture (`tests/docs/truth/shop.yaml`) has the tools whose pages were found
//! saying something false: a previewed update, a previewed delete, an output that is a
//! tagged union and an undo through a previewed tool. Their pages are golden files
//! (`tests/docs/truth/docs/`), read by a person as a user would; after an intended change,
//! rewrite them with `UPDATE_GOLDEN=1 cargo test --features tokens --test it docs_truth::`
//! and read the diff. The other tests here hold each rule on every spec, not only the
//! fixture: the example specs and the corpus ports too.

use crate::docs_common::{self as common, Block, blocks, generate, json, load, spec_paths};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use toolspec::internals::emit::Kind;
use toolspec::internals::emit::docs::preview_summary;
use toolspec::model::Model;

fn truth_paths() -> Vec<PathBuf> {
    crate::common::yaml_files(&common::root().join("tests/docs/truth"))
}

fn corpus_paths() -> Vec<PathBuf> {
    crate::common::yaml_files(&common::root().join("tests/corpus"))
}

/// The model and docs pages of every spec set, each set loaded as `toolspec generate`
/// loads it.
fn every_set() -> Vec<(Model, BTreeMap<String, String>)> {
    [spec_paths(), corpus_paths(), truth_paths()]
        .into_iter()
        .map(|paths| {
            let model = load(&paths);
            let files = generate(&model, &[Kind::Docs]);
            (model, files)
        })
        .collect()
}

/// The tagged JSON blocks of a tool page, in order.
fn tagged(path: &str, page: &str) -> Vec<(String, Value)> {
    blocks(page)
        .into_iter()
        .filter(|b: &Block| b.lang == "json")
        .filter_map(|b| Some((b.tag.clone()?, json(path, &b))))
        .collect()
}

fn tool_pages<'a>(
    model: &'a Model,
    files: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = (&'a toolspec::model::Tool, &'a String, &'a String)> {
    model.toolsets.iter().flat_map(move |ts| {
        ts.tools.iter().filter_map(move |t| {
            let path = format!("{}/docs/{}.md", ts.service.text, t.name.text);
            files.get_key_value(&path).map(|(p, page)| (t, p, page))
        })
    })
}

#[test]
fn golden_pages_of_the_truth_fixture() {
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let dir = common::root().join("tests/docs/truth/docs");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for tool in ["shop_lookup", "shop_price_set", "shop_product_delete"] {
        let page = &files[&format!("shop/docs/{tool}.md")];
        let golden = dir.join(format!("{tool}.md"));
        if update {
            std::fs::create_dir_all(&dir).expect("golden dir");
            std::fs::write(&golden, page).expect("golden written");
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if want != *page {
            stale.push(golden.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale golden pages (UPDATE_GOLDEN=1 rewrites them; read the diff): {stale:?}"
    );
}

/// A preview shows the call it answers: every preview field named like an argument holds
/// that argument, the summary is worded for the tool (`Would delete a product.`), and
/// what only the server knows comes from the example's `preview`.
#[test]
fn previews_show_the_call_itself() {
    let mut previews = 0;
    for (model, files) in every_set() {
        for (tool, path, page) in tool_pages(&model, &files) {
            let list = tagged(path, page);
            for (i, (tag, value)) in list.iter().enumerate() {
                let Some(preview) = value.get("preview") else {
                    continue;
                };
                assert!(tag.starts_with("result: "), "{path}: {tag}");
                previews += 1;
                let (_, call) = &list[i - 1];
                let summary = preview["summary"].as_str().unwrap_or_default();
                let written = tool
                    .examples
                    .iter()
                    .filter_map(|e| e.preview.as_ref())
                    .any(|p| p.get("summary").is_some());
                if !written {
                    assert_eq!(summary, preview_summary(&tool.title.text), "{path}");
                }
                for (k, v) in preview.as_object().into_iter().flatten() {
                    // The runtime's own keys are not the tool's fields (`summary` of an event).
                    if ["preview_id", "expires_at", "summary"].contains(&k.as_str()) {
                        continue;
                    }
                    if let Some(arg) = call.get(k) {
                        assert_eq!(arg, v, "{path}: the preview's `{k}` is not the call's");
                    }
                }
            }
        }
    }
    assert!(previews >= 8, "only {previews} previews checked");
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let delete = &files["shop/docs/shop_product_delete.md"];
    assert!(delete.contains("\"summary\": \"Would delete a product.\""));
    assert!(delete.contains("\"name\": \"Brass telescope\""));
    assert!(
        !delete.contains("Red mug"),
        "the delete previews the fields' example"
    );
    let price = &files["shop/docs/shop_price_set.md"];
    assert!(price.contains("\"summary\": \"Would set a price.\""));
    assert!(!price.contains("create"), "an update is said to create");
}

/// An applied result agrees with its call: the product repriced to 1499 comes back at
/// 1499, and the price it replaced is the one the undo restores.
#[test]
fn applied_results_agree_with_their_call() {
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let path = "shop/docs/shop_price_set.md";
    let list = tagged(path, &files[path]);
    let (_, result) = list
        .iter()
        .find(|(t, v)| t == "result: shop_price_set" && v["applied"] == true)
        .expect("an applied result");
    assert_eq!(result["product"]["price_cents"], 1499);
    assert_eq!(result["product"]["sku"], "SKU-RED-MUG");
    assert_eq!(result["previous_price_cents"], 1299);
    assert_eq!(result["undo"]["arguments"]["price_cents"], 1299);
    // A value the call leaves alone is the same before and after it: the calendar move
    // changes the place, so the undo restores the place and keeps the title.
    let model = load(&corpus_paths());
    let files = generate(&model, &[Kind::Docs]);
    let path = "calendar/docs/update-event.md";
    let list = tagged(path, &files[path]);
    let (_, result) = list
        .iter()
        .find(|(t, v)| t == "result: update-event" && v["applied"] == true)
        .expect("an applied result");
    assert_eq!(result["event"]["location"], "Room 7");
    assert_eq!(result["previous"]["location"], "Room 4");
    assert_eq!(result["previous"]["summary"], result["event"]["summary"]);
}

/// After an error the tool returned, the corrected call is the refused call mended: the
/// same arguments but those the error names, and a new idempotency key no other example
/// of the page uses. After a validation error, only the arguments its problems name
/// change.
#[test]
fn recovery_fixes_the_call_that_failed() {
    let mut fixes = 0;
    for (model, files) in every_set() {
        for (tool, path, page) in tool_pages(&model, &files) {
            let list = tagged(path, page);
            let keys: Vec<&Value> = tool
                .examples
                .iter()
                .filter_map(|e| e.arguments.get("idempotency_key"))
                .collect();
            for w in list.windows(3) {
                let [(refused_tag, refused), (_, error), (fix_tag, fix)] = w else {
                    continue;
                };
                if !refused_tag.contains(" refused: ") || !fix_tag.starts_with("call: ") {
                    continue;
                }
                fixes += 1;
                let named: Vec<String> = error["details"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .chain(
                        error["details"]["problems"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|p| p["path"].as_str())
                            .map(|p| {
                                p.trim_start_matches('/')
                                    .split('/')
                                    .next()
                                    .unwrap_or("")
                                    .to_string()
                            }),
                    )
                    .collect();
                let builtin =
                    toolspec_runtime::catalog::find(error["code"].as_str().unwrap_or_default())
                        .is_some();
                let detail_values: Vec<&Value> = error["details"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(_, v)| v)
                    .collect();
                for (k, v) in refused.as_object().into_iter().flatten() {
                    // An argument is named by its name, or by a detail holding its value
                    // (`project_id` about the `id` argument).
                    let by_value = v.is_string() && detail_values.contains(&v);
                    if k == "idempotency_key" || named.contains(k) || by_value || builtin {
                        continue;
                    }
                    // An argument of a requirement (`at_least_one_of`) may be added, never
                    // one the error does not name changed.
                    assert_eq!(
                        fix.get(k),
                        Some(v),
                        "{path}: the fix after `{}` changes `{k}`, which the error does not name",
                        error["code"]
                    );
                }
                let retryable = error["retryable"] == true;
                let validation =
                    toolspec_runtime::catalog::is_validation(error["code"].as_str().unwrap_or(""));
                if let Some(key) = fix.get("idempotency_key")
                    && !retryable
                    && !validation
                {
                    assert_ne!(
                        Some(key),
                        refused.get("idempotency_key"),
                        "{path}: key reused"
                    );
                    assert!(
                        !keys.contains(&key),
                        "{path}: the fix reuses another example's key {key}"
                    );
                }
            }
        }
    }
    assert!(fixes >= 20, "only {fixes} fixes checked");
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let path = "shop/docs/shop_price_set.md";
    let list = tagged(path, &files[path]);
    let at = list
        .iter()
        .position(|(t, _)| t == "call: shop_price_set refused: not_found")
        .expect("the refused call");
    let fix = &list[at + 2].1;
    assert_eq!(
        fix["price_cents"], 1499,
        "the fix keeps the price asked for"
    );
    assert_eq!(fix["idempotency_key"], "price-blue-1-2");
    assert!(files[path].contains("The agent fixes the call as the message says (it corrects `sku`), with a new `idempotency_key`"));
}

/// A tagged union's fields are listed at their wire paths (`item.skus`), each with the
/// tag value that brings it, and the tag itself; never under a variant's name, which is
/// no key on the wire.
#[test]
fn union_outputs_are_listed_per_variant_at_wire_paths() {
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let page = &files["shop/docs/shop_lookup.md"];
    assert!(
        page.contains("- **`item`** · one of product, bundle (by `kind`) · always"),
        "{page}"
    );
    assert!(page.contains("- **`item.kind`** · string · always: Which variant `item` is"));
    assert!(page.contains("- **`item.skus`** · array of Sku · when `item.kind` is `bundle`"));
    assert!(page.contains(
        "- **`item.product.price_cents`** · Cents (integer) · when `item.kind` is `product`"
    ));
    assert!(!page.contains("`item.bundle"), "a variant shown as a key");
    assert!(
        !page.contains("`item.product.product"),
        "a variant shown as a key"
    );
    // A tagged-union parameter too (the calendar port had one until it went back to its
    // original's flat wire): each variant's fields at wire paths, required per variant.
    let dir = std::env::temp_dir().join(format!("toolspec-union-param-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let spec = dir.join("events.yaml");
    std::fs::write(&spec, UNION_PARAM).expect("spec written");
    let model = load(&[spec]);
    let files = generate(&model, &[Kind::Docs]);
    let page = &files["events/docs/events_move.md"];
    assert!(
        page.contains(
            "- **`scope.original_start`** · string · required when `scope.kind` is `one`"
        ),
        "{page}"
    );
    assert!(!page.contains("`scope.one"), "a variant shown as a key");
    std::fs::remove_dir_all(&dir).ok();
}

/// A spec whose one tool takes a tagged union: which occurrences of an event move.
const UNION_PARAM: &str = r#"toolspec: 1
service: events
title: Events
description: Move the events of one calendar.
tools:
  - name: events_move
    title: Move an event
    summary: Move an event, or some of its occurrences, to a new start.
    returns: the event's new start.
    tier: read_only
    params:
      event_id: { type: string, description: The event to move., max_length: 40, example: ev1 }
      scope:
        type: union
        description: Which occurrences move; all of them when left out.
        required: false
        tag: kind
        variants:
          one:
            type: object
            description: Only the occurrence that was to start at original_start.
            fields:
              original_start: { type: string, format: date-time, description: When that occurrence was to start., example: '2026-12-07T10:00:00Z' }
          all:
            type: object
            description: Every occurrence.
            fields: {}
    output:
      start: { type: string, format: date-time, description: The new start., example: '2026-12-07T11:00:00Z' }
    examples:
      - title: Move one occurrence
        arguments: { event_id: ev1, scope: { kind: one, original_start: '2026-12-07T10:00:00Z' } }
"#;

/// An undo through a previewed tool is a preview: the page says the undo call reverts
/// nothing until its preview is applied and shows that apply; the undo's arguments are
/// described as the values they restore.
#[test]
fn undo_through_a_previewed_tool_is_a_preview() {
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Docs]);
    let path = "shop/docs/shop_price_set.md";
    let page = &files[path];
    assert!(page.contains("`shop_price_set` is previewed, so this call only asks for a preview"));
    assert!(page.contains("every applied result carries `undo`"));
    // The preview answer has no product: the fields of the applied result say so.
    assert!(page.contains("- **`product`** · Product · when `applied` is true"));
    let list = tagged(path, page);
    let at = list
        .iter()
        .position(|(_, v)| v.get("idempotency_key") == Some(&"undo-price-mug-1".into()))
        .expect("the undo call");
    let apply = &list[at + 1].1;
    assert!(apply.get("preview_id").is_some(), "{apply}");
    assert!(page.contains(
        "- **`undo.arguments.price_cents`** · Cents (integer) · always: Its price before this call."
    ));
    let model = load(&corpus_paths());
    let files = generate(&model, &[Kind::Docs]);
    let page = &files["calendar/docs/update-event.md"];
    assert!(page.contains("- **`undo.arguments.summary`** · string · always: Its title before."));
    assert!(!page.contains("undo.arguments.summary`** · string · always: Its new title."));
}

/// The trait's docs name the tier and the paging each method really has.
#[test]
fn trait_docs_name_the_tier_and_paging() {
    let model = load(&truth_paths());
    let files = generate(&model, &[Kind::Rust]);
    let code = files
        .iter()
        .find(|(p, _)| p.ends_with("shop.rs"))
        .map(|(_, c)| c)
        .expect("shop.rs");
    assert!(
        code.contains("/// Reversible, previewed, first step"),
        "{code}"
    );
    assert!(code.contains("/// Reversible, previewed, second step"));
    assert!(code.contains("/// Irreversible, first step"));
    let price = &code[code.find("fn preview_shop_price_set").expect("method")..];
    assert!(!price[..price.find("fn shop_price_set(").unwrap_or(0)].contains("Irreversible"));
    let model = load(&spec_paths());
    let files = generate(&model, &[Kind::Rust]);
    let tickets = files
        .iter()
        .find(|(p, _)| p.ends_with("tickets.rs"))
        .map(|(_, c)| c)
        .expect("tickets.rs");
    let search = tickets.find("fn tickets_search(").expect("tickets_search");
    let doc = &tickets[tickets[..search].rfind("Paged").expect("paging docs")..search];
    assert!(doc.contains("window.after()"), "{doc}");
    assert!(!doc.contains("window.offset"), "{doc}");
}
