//! Response shaping: concise stripping and budget truncation with a note; paging after a cut.

use serde_json::{Value, json};
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::shape::{Cut, ResponseFormat, ShapeSpec, apply, estimate_tokens};

static SPEC: ShapeSpec = ShapeSpec {
    detailed_only: &[
        "tickets/*/customer_email",
        "tickets/*/history/*/internal_note",
        "debug",
    ],
    token_budget: Some(400),
    takes_limit: true,
    size_param: "limit",
    by_page_number: false,
    takes_response_format: true,
    texts: &[],
};

fn tickets(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "id": format!("T-{i}"),
                "subject": "Refund for a damaged parcel, please help",
                "customer_email": "someone@example.com",
                "history": [{"at": "2025-01-01", "internal_note": "secret", "status": "open"}]
            })
        })
        .collect();
    json!({"tickets": items, "debug": {"took_ms": 3}})
}

#[test]
fn concise_drops_detailed_only_nested_fields_and_detailed_keeps_them() {
    let unlimited = ShapeSpec {
        token_budget: None,
        ..SPEC
    };
    let mut concise = tickets(2);
    assert_eq!(
        apply(&mut concise, &unlimited, ResponseFormat::Concise),
        None
    );
    assert!(concise.get("debug").is_none());
    for t in concise["tickets"].as_array().unwrap() {
        assert!(t.get("customer_email").is_none());
        assert_eq!(
            t["history"][0],
            json!({"at": "2025-01-01", "status": "open"})
        );
        assert!(t.get("subject").is_some());
    }
    let mut detailed = tickets(2);
    apply(&mut detailed, &unlimited, ResponseFormat::Detailed);
    assert_eq!(detailed, tickets(2));
    assert_eq!(
        ResponseFormat::from_arguments(
            &json!({"response_format": "detailed"}),
            ResponseFormat::Concise
        ),
        ResponseFormat::Detailed
    );
    assert_eq!(
        ResponseFormat::from_arguments(&json!({}), ResponseFormat::Detailed),
        ResponseFormat::Detailed
    );
}

#[test]
fn over_budget_cuts_the_largest_array_and_adds_a_note() {
    let mut result = tickets(40);
    let cuts = apply(&mut result, &SPEC, ResponseFormat::Detailed).expect("cut");
    assert!(
        estimate_tokens(&result) <= 400,
        "fits: {}",
        estimate_tokens(&result)
    );
    let kept = result["tickets"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 40, "kept {kept}");
    assert_eq!(
        cuts,
        vec![Cut {
            path: "/tickets".into(),
            kept,
            total: 40
        }]
    );
    // The first items are kept, in order.
    assert_eq!(result["tickets"][0]["id"], "T-0");
    assert_eq!(result["tickets"][kept - 1]["id"], format!("T-{}", kept - 1));
    let note = &result["truncated"];
    assert_eq!(
        note["cuts"],
        json!([{"path": "/tickets", "kept": kept, "total": 40}])
    );
    assert_eq!(note["budget_tokens"], 400);
    let msg = note["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("kept {kept} of 40 items of tickets")),
        "{msg}"
    );
    assert!(
        msg.contains("narrow the query")
            && msg.contains("smaller `limit`")
            && msg.contains("concise"),
        "{msg}"
    );
}

#[test]
fn small_results_are_untouched_and_impossible_budgets_do_not_loop() {
    let mut small = json!({"tickets": [{"id": "T-1"}]});
    assert_eq!(apply(&mut small, &SPEC, ResponseFormat::Concise), None);
    assert!(small.get("truncated").is_none());
    let tiny = ShapeSpec {
        token_budget: Some(1),
        ..SPEC
    };
    let mut r = json!({"a": [1, 2, 3], "b": [[1, 2], [3]], "text": "x".repeat(50)});
    let cuts = apply(&mut r, &tiny, ResponseFormat::Detailed).expect("cut");
    assert!(cuts.iter().all(|c| c.kept == 0), "{cuts:?}");
    assert_eq!(r["text"], "x".repeat(50), "scalars are never cut");
}

#[test]
fn paging_continues_after_the_last_item_kept() {
    let rt = Runtime::in_memory().expect("runtime");
    let fp = "fp";
    let offset = rt
        .cursor_offset("tickets_search", fp, None)
        .expect("first page");
    assert_eq!(offset, 0);
    let mut result = tickets(40);
    apply(&mut result, &SPEC, ResponseFormat::Concise);
    let kept = result["tickets"].as_array().unwrap().len() as u64;
    rt.page("tickets_search", fp, &mut result, "tickets", offset, 100);
    assert_eq!(result["total"], 100);
    let next = result["next_cursor"].as_str().expect("more pages");
    assert_eq!(
        rt.cursor_offset("tickets_search", fp, Some(next))
            .expect("decode"),
        kept
    );
    // Last page: next_cursor omitted, not null.
    let mut last = json!({"tickets": [1, 2], "next_cursor": "stale"});
    rt.page("tickets_search", fp, &mut last, "tickets", 98, 100);
    assert!(last.get("next_cursor").is_none());
    assert_eq!(last["total"], 100);
    let mut empty = json!({"tickets": []});
    rt.page("tickets_search", fp, &mut empty, "tickets", 0, 5);
    assert!(
        empty.get("next_cursor").is_none(),
        "an empty page ends paging"
    );
}

#[test]
fn json_len_is_the_length_of_the_compact_text() {
    for v in [
        json!(null),
        json!({"a": [1, 2.5, "é\"\\x\n"], "b": {"c": true}}),
        json!("\u{1F600}"),
    ] {
        assert_eq!(
            toolspec_runtime::shape::json_len(&v),
            v.to_string().len(),
            "{v}"
        );
    }
}

#[test]
fn a_long_text_is_cut_to_the_budget_on_a_character_boundary_with_a_note() {
    let spec = ShapeSpec {
        detailed_only: &[],
        token_budget: Some(300),
        takes_limit: false,
        size_param: "limit",
        by_page_number: false,
        takes_response_format: false,
        texts: &["contents"],
    };
    // Multi-byte characters, so a byte cut would split one.
    let mut r = json!({"path": "notes.md", "contents": "héllo wörld ".repeat(400)});
    let cuts = apply(&mut r, &spec, ResponseFormat::Detailed).expect("cut");
    assert_eq!(cuts.len(), 1, "{cuts:?}");
    assert_eq!(cuts[0].path, "/contents");
    assert_eq!(cuts[0].total, 12 * 400);
    let kept = r["contents"].as_str().expect("still text");
    assert_eq!(kept.chars().count(), cuts[0].kept);
    assert!(cuts[0].kept > 0 && cuts[0].kept < cuts[0].total);
    assert!(estimate_tokens(&r) <= 300, "{} tokens", estimate_tokens(&r));
    let message = r["truncated"]["message"].as_str().expect("note");
    assert!(
        message.contains(&format!(
            "kept {} of 4800 characters of contents",
            cuts[0].kept
        )),
        "{message}"
    );
    assert_eq!(r["path"], "notes.md", "other fields untouched");
}
