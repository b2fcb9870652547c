//! Validation: every problem at once, JSON Pointer paths, messages, defaults.

use crate::common;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::validate::{
    Field, Pattern, Shape, StringShape, normalize, prepare, prepare_fast, validate,
};

fn err(
    shape: &toolspec_runtime::validate::ObjectShape,
    ex: &str,
    v: Value,
) -> toolspec_runtime::ToolError {
    prepare(shape, ex, v).expect_err("should be refused")
}

#[test]
fn single_enum_problem_has_its_own_code_message_and_facts() {
    let e = err(
        &SEARCH,
        SEARCH_EXAMPLE,
        json!({"query": "x", "status": "opened"}),
    );
    assert_eq!(e.code, "invalid_enum");
    assert!(!e.retryable);
    assert_eq!(
        e.message,
        format!(
            "status 'opened' is not valid. Use one of: open, pending, closed, or omit it. Example of a valid call: {SEARCH_EXAMPLE}"
        )
    );
    assert_eq!(e.details["allowed"], json!(["open", "pending", "closed"]));
    assert_eq!(e.details["path"], "/status");
    assert_eq!(e.details["problems"][0]["code"], "invalid_enum");
    assert_eq!(e.details["problems"][0]["path"], "/status");
    assert_eq!(
        e.details["problems"][0]["allowed"],
        json!(["open", "pending", "closed"])
    );
}

#[test]
fn an_integer_enum_refuses_other_numbers_as_invalid_enum() {
    static PRIORITY: toolspec_runtime::validate::ObjectShape =
        toolspec_runtime::validate::ObjectShape::new(&[Field::optional(
            "priority",
            Shape::integer_one_of(Some(1), Some(5), &[1, 2, 5]),
        )]);
    let example = r#"{"priority":2}"#;
    for ok in [json!(1), json!(5), json!(2.0)] {
        assert!(
            prepare(&PRIORITY, example, json!({ "priority": ok })).is_ok(),
            "{ok}"
        );
    }
    // Inside the bounds but outside the set, and outside both: the set says everything.
    for bad in [json!(3), json!(9)] {
        let e = err(&PRIORITY, example, json!({ "priority": bad }));
        assert_eq!(e.code, "invalid_enum", "{bad}");
        assert_eq!(e.details["allowed"], json!([1, 2, 5]));
        assert_eq!(
            e.message,
            format!(
                "priority {bad} is not valid. Use one of: 1, 2, 5, or omit it. Example of a valid call: {example}"
            )
        );
    }
    let e = err(&PRIORITY, example, json!({"priority": "2"}));
    assert_eq!(e.code, "invalid_type");
}

#[test]
fn unknown_argument_lists_the_allowed_names() {
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"q": "x", "query": "y"}));
    assert_eq!(e.code, "unknown_argument");
    assert!(e.message.starts_with(
        "Unknown argument 'q'. Allowed arguments: query, status, limit, cursor. Example of a valid call: {"
    ));
    assert_eq!(
        e.details["allowed"],
        json!(["query", "status", "limit", "cursor"])
    );
    assert_eq!(e.details["problems"][0]["path"], "/q");
}

#[test]
fn all_problems_at_once_with_json_pointer_paths() {
    let call = json!({
        "email": "not-an-email",
        "items": [
            {"sku": "ABC-1"},
            {"sku": "ABC-2", "quantity": 1.5},
            {"sku": "abc", "quantity": 500, "colour": "red"},
            {"gift": "yes"}
        ],
        "weight": "heavy",
        "filter": {"since": "31/01/2025"},
        "extra": 1
    });
    let e = err(&ORDER, ORDER_EXAMPLE, call);
    assert_eq!(e.code, "invalid_arguments");
    assert!(!e.retryable);
    let got: Vec<(String, String)> = e.details["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_owned(),
                p["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [
        ("invalid_format", "/email"),
        ("invalid_type", "/items/1/quantity"),
        ("pattern_mismatch", "/items/2/sku"),
        ("out_of_range", "/items/2/quantity"),
        ("unknown_argument", "/items/2/colour"),
        ("missing_argument", "/items/3/sku"),
        ("invalid_type", "/items/3/gift"),
        ("invalid_type", "/weight"),
        ("invalid_format", "/filter/since"),
        ("unknown_argument", "/extra"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    assert!(e.message.starts_with("The call has 10 problems: 1) "));
    assert!(
        e.message
            .ends_with(&format!("Example of a valid call: {ORDER_EXAMPLE}"))
    );
    let p = &e.details["problems"];
    assert_eq!(p[2]["pattern"], "^[A-Z]{3}-[0-9]+$");
    assert_eq!(
        (p[3]["minimum"].clone(), p[3]["maximum"].clone()),
        (json!(1), json!(99))
    );
    assert_eq!(p[4]["allowed"], json!(["sku", "quantity", "gift"]));
    assert_eq!(p[0]["format"], "email");
    assert_eq!(p[1]["expected"], "integer");
    assert!(
        p[4]["message"]
            .as_str()
            .unwrap()
            .contains("Unknown field 'colour' in items/2.")
    );
    // The multi-problem error does not copy one problem's facts to the top level.
    assert!(e.details.get("allowed").is_none());
}

#[test]
fn lengths_count_chars_and_items() {
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"query": "é".repeat(21)}));
    assert_eq!(e.code, "invalid_length");
    assert_eq!(e.details["max_length"], 20);
    assert!(prepare(&SEARCH, SEARCH_EXAMPLE, json!({"query": "é".repeat(20)})).is_ok());
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"query": ""}));
    assert_eq!(
        (e.code.as_ref(), e.details["min_length"].clone()),
        ("invalid_length", json!(1))
    );
    let e = err(
        &ORDER,
        ORDER_EXAMPLE,
        json!({"email": "a@b.co", "items": []}),
    );
    assert_eq!(e.code, "invalid_length");
    assert_eq!(e.details["min_items"], 1);
    assert_eq!(e.details["path"], "/items");
}

#[test]
fn integers_refuse_fractions_and_bounds_are_reported() {
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"query": "x", "limit": 1.5}));
    assert_eq!(
        (e.code.as_ref(), e.details["expected"].clone()),
        ("invalid_type", json!("integer"))
    );
    assert!(
        e.message
            .starts_with("limit must be an integer, not number 1.5.")
    );
    assert!(prepare(&SEARCH, SEARCH_EXAMPLE, json!({"query": "x", "limit": 3.0})).is_ok());
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"query": "x", "limit": 500}));
    assert_eq!(e.code, "out_of_range");
    assert!(
        e.message
            .starts_with("limit 500 is out of range. Use a value from 1 to 100.")
    );
    let e = err(
        &SEARCH,
        SEARCH_EXAMPLE,
        json!({"query": "x", "limit": u64::MAX}),
    );
    assert_eq!(e.code, "out_of_range");
    let e = err(
        &ORDER,
        ORDER_EXAMPLE,
        json!({"email": "a@b.co", "items": [{"sku": "ABC-1"}], "weight": 50.6}),
    );
    assert_eq!(
        (e.code.as_ref(), e.details["maximum"].clone()),
        ("out_of_range", json!(50.5))
    );
}

#[test]
fn null_means_absent_for_optional_and_missing_for_required() {
    let ok = prepare(
        &SEARCH,
        SEARCH_EXAMPLE,
        json!({"query": "x", "status": null, "cursor": null}),
    )
    .expect("valid");
    // `limit`'s default is not written in: it is a control parameter, which the engine
    // reads with the tool's default when absent and no fingerprint includes.
    assert_eq!(ok, json!({"query": "x"}));
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!({"query": null}));
    assert_eq!(e.code, "missing_argument");
    assert_eq!(e.details["path"], "/query");
    assert!(
        e.message
            .starts_with("Missing required argument 'query' (string).")
    );
}

#[test]
fn defaults_fill_top_level_and_nested_fields() {
    let ok = prepare(
        &ORDER,
        ORDER_EXAMPLE,
        json!({"email": "a@b.co", "items": [{"sku": "ABC-1"}, {"sku": "XYZ-2", "quantity": 3}]}),
    )
    .expect("valid");
    assert_eq!(ok["items"][0]["quantity"], 1);
    assert_eq!(ok["items"][1]["quantity"], 3);
    assert_eq!(ok["filter"], json!({"tag": "any"}));
    let mut v = json!({"filter": {"since": null}});
    normalize(&ORDER, &mut v);
    assert_eq!(v["filter"], json!({"tag": "any"}));
}

#[test]
fn control_parameter_defaults_are_left_out_and_others_filled() {
    static NESTED: toolspec_runtime::validate::ObjectShape =
        toolspec_runtime::validate::ObjectShape::new(&[Field::optional(
            "limit",
            Shape::integer(None, None),
        )
        .default_json("3")]);
    static SHAPE: toolspec_runtime::validate::ObjectShape =
        toolspec_runtime::validate::ObjectShape::new(&[
            Field::optional("limit", Shape::integer(None, None)).default_json("10"),
            Field::optional("response_format", Shape::String(StringShape::new()))
                .default_json("\"concise\""),
            Field::optional("page_size", Shape::integer(None, None)).default_json("10"),
            Field::optional("nested", Shape::Object(&NESTED)).default_json("{}"),
        ]);
    let mut v = json!({});
    normalize(&SHAPE, &mut v);
    // Only the top level's control names are special: a nested `limit` is a plain field.
    assert_eq!(v, json!({"page_size": 10, "nested": {"limit": 3}}));
}

#[test]
fn root_must_be_an_object_and_null_is_an_empty_call() {
    let e = err(&SEARCH, SEARCH_EXAMPLE, json!([1]));
    assert_eq!(
        (e.code.as_ref(), e.details["path"].clone()),
        ("invalid_type", json!(""))
    );
    let e = err(&SEARCH, SEARCH_EXAMPLE, Value::Null);
    assert_eq!(e.code, "missing_argument");
    static NONE: toolspec_runtime::validate::ObjectShape =
        toolspec_runtime::validate::ObjectShape::new(&[]);
    assert_eq!(prepare(&NONE, "{}", Value::Null).expect("valid"), json!({}));
    let e = err(&NONE, "{}", json!({"x": 1}));
    assert!(
        e.message
            .starts_with("Unknown argument 'x'. Allowed arguments: none.")
    );
}

#[test]
fn patterns_search_like_json_schema_and_live_in_statics() {
    static ANY_DIGIT: Pattern = Pattern::new("[0-9]");
    assert!(
        ANY_DIGIT.is_match("abc1def"),
        "pattern is a search, not a full match"
    );
    assert!(!SKU.is_match("xABC-1"), "anchors make it a full match");
    assert!(Pattern::check("(").is_err());
    assert!(validate(&SEARCH, &json!({"query": "ok"})).is_empty());
}

#[test]
fn odd_inputs_never_panic() {
    let odd = [
        json!(null),
        json!(true),
        json!("é"),
        json!(1e308),
        json!(-0.0),
        json!(u64::MAX),
        json!(i64::MIN),
        json!({"query": "\u{0}", "status": 3, "limit": -1e30, "cursor": {"a": []}}),
        json!({"email": "é@é.é", "items": [null, [], {"sku": ""}], "filter": {"since": "2025-é-01x"}}),
        json!({"email": "a@b.co", "items": [{"sku": "ABC-1", "quantity": 9.2e18}], "weight": -1e300}),
        json!({"~/": 1, "a/b": {"c~d": 2}}),
    ];
    for v in odd {
        for (shape, ex) in [(&SEARCH, SEARCH_EXAMPLE), (&ORDER, ORDER_EXAMPLE)] {
            let _ = prepare(shape, ex, v.clone());
        }
        let _ = toolspec_runtime::fingerprint::fingerprint(&v);
        let _ = toolspec_runtime::shape::estimate_tokens(&v);
    }
    let e = prepare(&SEARCH, SEARCH_EXAMPLE, json!({"query": "x", "a/b": 1})).expect_err("unknown");
    assert_eq!(e.details["path"], "/a~1b", "pointer segments are escaped");
}

#[test]
fn a_hostile_call_gets_a_bounded_refusal_that_still_shows_a_valid_call() {
    // 100,000 unknown keys, one of them 1 MB long, and a control-character trick.
    let mut args = serde_json::Map::new();
    args.insert("query".into(), json!("ok"));
    for i in 0..100_000 {
        args.insert(format!("junk{i:06}"), json!(i));
    }
    args.insert("k".repeat(1 << 20), json!(1));
    args.insert("evil\u{202e}\nname".into(), json!(1));
    let e = err(&SEARCH, SEARCH_EXAMPLE, Value::Object(args));
    assert_eq!(e.code, "invalid_arguments");
    let wire = e.to_value().to_string();
    assert!(wire.len() < 16_384, "the refusal is {} bytes", wire.len());
    let listed = e.details["problems"].as_array().expect("problems");
    assert_eq!(listed.len(), toolspec_runtime::problem::MAX_PROBLEMS);
    assert_eq!(
        e.details["more_problems"],
        100_002 - toolspec_runtime::problem::MAX_PROBLEMS
    );
    assert!(
        e.message.contains("The call has 100002 problems"),
        "{}",
        e.message
    );
    assert!(e.message.contains("...and 99982 more, not listed."));
    assert!(
        e.message
            .ends_with(&format!("Example of a valid call: {SEARCH_EXAMPLE}"))
    );
    assert!(!wire.contains('\u{202e}'));

    // The same cut for a single problem: the echoed key is a short prefix.
    let mut one = serde_json::Map::new();
    one.insert("query".into(), json!("ok"));
    one.insert(format!("{}\u{202e}", "x".repeat(1 << 20)), json!(1));
    let e = err(&SEARCH, SEARCH_EXAMPLE, Value::Object(one));
    assert_eq!(e.code, "unknown_argument");
    assert!(e.to_value().to_string().len() < 4_096);
    assert!(
        e.message.contains(&format!("'{}…'", "x".repeat(64))),
        "{}",
        e.message
    );
}

#[test]
fn the_fast_path_fills_top_level_defaults_and_refuses_what_validate_refuses() {
    static SHAPE: toolspec_runtime::validate::ObjectShape =
        toolspec_runtime::validate::ObjectShape::new(&[
            Field::required(
                "query",
                Shape::String(StringShape::new().length(Some(1), None)),
            ),
            Field::optional(
                "sort",
                Shape::String(StringShape::new().one_of(&["new", "old"])),
            )
            .default_json("\"new\""),
            Field::optional("limit", Shape::integer(Some(1), Some(50))).default_json("10"),
            Field::optional("tag", Shape::String(StringShape::new())),
        ]);
    let fast = |v: Value| {
        let Value::Object(mut map) = v else {
            panic!("an object")
        };
        prepare_fast(&SHAPE, &mut map).then_some(Value::Object(map))
    };
    // Defaults filled, a control parameter's default left to the engine, null kept.
    assert_eq!(
        fast(json!({"query": "x", "tag": null})),
        Some(json!({"query": "x", "sort": "new", "tag": null}))
    );
    assert_eq!(
        fast(json!({"query": "x", "sort": null})),
        Some(json!({"query": "x", "sort": "new"}))
    );
    // Everything validate refuses, the fast path refuses, untouched.
    for bad in [
        json!({}),
        json!({"query": null}),
        json!({"query": ""}),
        json!({"query": "x", "sort": "newest"}),
        json!({"query": "x", "limit": 0}),
        json!({"query": "x", "other": 1}),
    ] {
        assert!(!validate(&SHAPE, &bad).is_empty(), "{bad}");
        assert_eq!(fast(bad.clone()), None, "{bad}");
    }
}

mod maps_nulls_and_conditions {
    use super::*;
    use toolspec_runtime::validate::{Condition, MapShape, ObjectShape, accepts};

    static KEY: Pattern = Pattern::new("^[a-z_]+$");
    static METADATA: MapShape =
        MapShape::new(Shape::String(StringShape::new().length(None, Some(5))))
            .keys(StringShape::new().length(Some(1), Some(8)).pattern(&KEY))
            .max_entries(Some(2));
    static ANY: MapShape = MapShape::new(Shape::Any);
    static UPDATE: ObjectShape = ObjectShape::new(&[
        Field::required("id", Shape::String(StringShape::new())),
        Field::optional("milestone", Shape::integer(Some(1), None)).nullable(),
        Field::optional("title", Shape::String(StringShape::new())),
        Field::optional("metadata", Shape::Map(&METADATA)),
        Field::optional("extra", Shape::Map(&ANY)),
        Field::optional("date", Shape::String(StringShape::new())),
        Field::optional("range", Shape::String(StringShape::new())),
        Field::optional("start", Shape::integer(None, None)),
        Field::optional("end", Shape::integer(None, None)),
        Field::optional("thread", Shape::String(StringShape::new())),
        Field::optional("channel", Shape::String(StringShape::new())),
    ])
    .conditions(&[
        Condition::AtLeastOne(&["milestone", "title", "metadata", "date", "range"]),
        Condition::ExactlyOne(&["date", "range"]),
        Condition::AllOrNone(&["start", "end"]),
        Condition::Requires {
            field: "thread",
            needs: &["channel"],
        },
    ])
    .with_nullable();
    const EX: &str = r#"{"id":"1","date":"x"}"#;

    fn problems(v: Value) -> Vec<(String, String, String)> {
        validate(&UPDATE, &v)
            .iter()
            .map(|p| (p.code.to_owned(), p.path.clone(), p.message.clone()))
            .collect()
    }

    /// `validate` and the fast path agree on every call here.
    fn agree(v: &Value) {
        let fast = accepts(&UPDATE, v.as_object().expect("object")).is_some();
        assert_eq!(fast, validate(&UPDATE, v).is_empty(), "{v}");
    }

    #[test]
    fn a_nullable_field_keeps_its_null_and_counts_as_passed() {
        let call = json!({"id": "1", "milestone": null, "date": "d"});
        agree(&call);
        let ready = prepare(&UPDATE, EX, call).expect("valid");
        assert!(ready["milestone"].is_null(), "null kept: {ready}");
        // Null of an ordinary optional field is still absent, and does not count as passed.
        let p = problems(json!({"id": "1", "title": null}));
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].0, "missing_argument");
        assert!(
            p[0].2.contains("at least one of 'milestone', 'title'"),
            "{}",
            p[0].2
        );
    }

    #[test]
    fn maps_check_their_count_keys_and_values_at_the_entrys_pointer() {
        let p =
            problems(json!({"id": "1", "date": "d", "metadata": {"Plan": "pro", "ok": "toolong"}}));
        assert_eq!(
            p.iter()
                .map(|p| (p.0.as_str(), p.1.as_str()))
                .collect::<Vec<_>>(),
            [
                ("invalid_key", "/metadata/Plan"),
                ("invalid_length", "/metadata/ok")
            ]
        );
        assert!(p[0].2.contains("matching ^[a-z_]+$"), "{}", p[0].2);
        let p =
            problems(json!({"id": "1", "date": "d", "metadata": {"a": "1", "b": "2", "c": "3"}}));
        assert_eq!(p.len(), 1);
        assert!(
            p[0].2.contains("3 entries. Use at most 2 entries"),
            "{}",
            p[0].2
        );
        // A free-form object takes any keys and values, but must be an object.
        assert!(
            problems(json!({"id": "1", "date": "d", "extra": {"x": [1, {"y": null}]}})).is_empty()
        );
        let p = problems(json!({"id": "1", "date": "d", "extra": "text"}));
        assert_eq!(p[0].0, "invalid_type");
        for v in [
            json!({"id": "1", "date": "d", "metadata": {"Plan": "pro"}}),
            json!({"id": "1", "date": "d", "extra": [1]}),
            json!({"id": "1", "date": "d", "metadata": {"a": "b"}}),
        ] {
            agree(&v);
        }
    }

    #[test]
    fn conditions_name_the_fields_and_the_fix() {
        let p = problems(json!({"id": "1", "date": "d", "range": "r"}));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, "conflicting_arguments");
        assert!(
            p[0].2
                .starts_with("Pass only one of 'date', 'range'; the call has 'date', 'range'."),
            "{}",
            p[0].2
        );
        let p = problems(json!({"id": "1", "milestone": 2}));
        assert_eq!((p[0].0.as_str(), p[0].1.as_str()), ("missing_argument", ""));
        assert!(
            p[0].2.starts_with("Pass exactly one of 'date', 'range'."),
            "{}",
            p[0].2
        );
        let p = problems(json!({"id": "1", "date": "d", "start": 1}));
        assert_eq!(
            (p[0].0.as_str(), p[0].1.as_str()),
            ("missing_argument", "/end")
        );
        assert_eq!(p[0].2, "'end' is required when 'start' is passed.");
        let p = problems(json!({"id": "1", "date": "d", "thread": "t"}));
        assert_eq!(p[0].1, "/channel");
        let e = err(&UPDATE, EX, json!({"id": "1", "date": "d", "range": "r"}));
        assert_eq!(e.code, "conflicting_arguments");
        assert_eq!(e.details["one_of"], json!(["date", "range"]));
        assert_eq!(e.details["given"], json!(["date", "range"]));
        for v in [
            json!({"id": "1", "date": "d", "range": "r"}),
            json!({"id": "1", "milestone": 2}),
            json!({"id": "1", "date": "d", "start": 1}),
            json!({"id": "1", "date": "d", "start": 1, "end": 2}),
            json!({"id": "1", "date": "d", "thread": "t", "channel": "c"}),
            json!({"id": "1", "date": "d", "thread": "t"}),
        ] {
            agree(&v);
        }
    }

    static COMMENT: ObjectShape = ObjectShape::new(&[
        Field::required(
            "method",
            Shape::String(StringShape::new().one_of(&["diff", "comments"])),
        ),
        Field::optional(
            "subject",
            Shape::String(StringShape::new().one_of(&["LINE", "FILE"])),
        )
        .default_json("\"LINE\""),
        Field::optional("after", Shape::String(StringShape::new())),
        Field::optional("line", Shape::integer(Some(1), None)),
        Field::optional("side", Shape::String(StringShape::new())),
    ])
    .conditions(&[
        Condition::When {
            field: "method",
            values: &["comments"],
            by_default: false,
            needs: &[],
            allows: &["after"],
        },
        Condition::When {
            field: "subject",
            values: &["LINE"],
            by_default: true,
            needs: &["line"],
            allows: &["side"],
        },
    ]);

    #[test]
    fn when_rules_refuse_by_the_enums_value_and_its_default() {
        let problems = |v: Value| -> Vec<(String, String, String)> {
            validate(&COMMENT, &v)
                .iter()
                .map(|p| (p.code.to_owned(), p.path.clone(), p.message.clone()))
                .collect()
        };
        let agree = |v: &Value| {
            let fast = accepts(&COMMENT, v.as_object().expect("object")).is_some();
            assert_eq!(fast, validate(&COMMENT, v).is_empty(), "{v}");
        };
        // `subject` left out holds LINE, its default: `line` is needed, `side` taken.
        let p = problems(json!({"method": "diff"}));
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].0.as_str(), p[0].1.as_str()),
            ("missing_argument", "/line")
        );
        assert_eq!(p[0].2, "'line' is required when 'subject' is LINE.");
        // Both rules broken: both problems, each at its pointer.
        let p = problems(json!({"method": "diff", "after": "c", "subject": "FILE", "side": "L"}));
        let at: Vec<(&str, &str)> = p.iter().map(|p| (p.0.as_str(), p.1.as_str())).collect();
        assert_eq!(
            at,
            [
                ("argument_not_applicable", "/after"),
                ("argument_not_applicable", "/side")
            ]
        );
        assert!(
            p[0].2.starts_with(
                "'after' applies only when 'method' is comments; this call has 'method' diff."
            ),
            "{}",
            p[0].2
        );
        let e = err(
            &COMMENT,
            r#"{"method":"diff","line":1}"#,
            json!({"method": "diff", "line": 1, "after": "c"}),
        );
        assert_eq!(e.code, "argument_not_applicable");
        assert_eq!(e.details["values"], json!(["comments"]));
        assert_eq!(e.details["given"], json!("diff"));
        for v in [
            json!({"method": "diff"}),
            json!({"method": "diff", "line": 1, "side": "L"}),
            json!({"method": "comments", "after": "c", "line": 2}),
            json!({"method": "diff", "subject": "FILE"}),
            json!({"method": "diff", "subject": "FILE", "side": "L"}),
            json!({"method": "diff", "after": "c", "line": 1}),
        ] {
            agree(&v);
        }
    }
}
