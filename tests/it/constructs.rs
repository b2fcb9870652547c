//! The small specs of `tests/constructs/`: `reviews.yaml`, rules that hold for some values
//! of an enum parameter (`when`) and a result whose variant follows one (`selected_by`);
//! `members.yaml`, integer enums. They check clean; their generated outputs, checked in
//! under `tests/constructs/generated/`, are their golden files (compiled and
//! gauntlet-tested by `tests/compile-check`); and the words, schemas and validator say the
//! same rules.
//!
//! After an intended change, regenerate with
//! `toolspec generate tests/constructs/*.yaml --out tests/constructs/generated` (or
//! `UPDATE_GOLDEN=1 cargo test --features tokens --test it constructs::`) and read the diff.

use serde_json::{Value, json};
use toolspec::internals::emit::write::{FileStatus, check_all, write_all};
use toolspec::internals::emit::{Kind, Options, generate};
use toolspec::internals::plan::schema::{Profile, input_schema, output_schema};
use toolspec::model::shapes::{input_shape, problem_codes};

use crate::common::{load_clean, root, yaml_files};

/// Every construct spec, loaded together as `toolspec generate tests/constructs/*.yaml` does.
fn model() -> toolspec::model::Model {
    load_clean(&yaml_files(&root().join("tests/constructs")))
}

#[test]
fn generated_outputs_are_the_checked_in_ones() {
    let model = model();
    let files = generate(&model, Kind::ALL, &Options::default())
        .expect("generates")
        .files;
    let out = root().join("tests/constructs/generated");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        write_all(&out, &files).expect("writes");
    }
    let stale: Vec<String> = check_all(&out, &files)
        .expect("reads")
        .into_iter()
        .filter(|(_, s)| *s != FileStatus::Unchanged)
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        stale.is_empty(),
        "stale: {stale:?}; rerun with UPDATE_GOLDEN=1 and review the diff"
    );
}

#[test]
fn the_validator_holds_the_when_rules() {
    let model = model();
    let (_, read) = model.tool("reviews_pull_request_read").expect("read tool");
    let shape = input_shape(read);
    let codes = |args: Value| problem_codes(shape, &args);
    assert!(
        codes(json!({"pull_number": 1, "method": "get_review_comments", "after": "c-1"}))
            .is_empty()
    );
    assert!(codes(json!({"pull_number": 1, "method": "get_files", "path": "a"})).is_empty());
    assert_eq!(
        codes(json!({"pull_number": 1, "method": "get_diff", "after": "c-1"})),
        ["argument_not_applicable"]
    );
    assert_eq!(
        codes(
            json!({"pull_number": 1, "method": "get_review_comments", "path": "a", "after": "c"})
        ),
        ["argument_not_applicable"]
    );
    // Every problem in one answer: a bad number and an argument the method does not take.
    let mut all = codes(json!({"pull_number": 0, "method": "get_diff", "after": "c-1"}));
    all.sort_unstable();
    assert_eq!(all, ["argument_not_applicable", "out_of_range"]);
    assert_eq!(
        codes(json!({"pull_number": 1, "method": "get_files", "path": "a", "after": "c"})),
        ["argument_not_applicable"]
    );

    let (_, comment) = model.tool("reviews_comment_add").expect("comment tool");
    let shape = input_shape(comment);
    let codes = |args: Value| problem_codes(shape, &args);
    let base = json!({"pull_number": 1, "path": "a", "body": "b"});
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    // `subject_type` left out holds its default, LINE: the line is needed.
    assert_eq!(codes(base.clone()), ["missing_argument"]);
    assert!(codes(with(json!({"line": 3, "side": "LEFT"}))).is_empty());
    assert!(codes(with(json!({"subject_type": "FILE"}))).is_empty());
    assert_eq!(
        codes(with(json!({"subject_type": "FILE", "side": "LEFT"}))),
        ["argument_not_applicable"]
    );
}

#[test]
fn the_words_say_the_rules_once_in_every_provider_and_mcp_lists_every_property() {
    let model = model();
    let (_, read) = model.tool("reviews_pull_request_read").expect("read tool");
    let description = toolspec::model::describe::tool_description(read);
    assert!(
        description.contains("after only when method is get_review_comments."),
        "{description}"
    );
    assert!(
        description.contains("path only when method is get_diff or get_files."),
        "{description}"
    );
    let (_, comment) = model.tool("reviews_comment_add").expect("comment tool");
    let description = toolspec::model::describe::tool_description(comment);
    assert!(
        description.contains("When subject_type is LINE, pass line; side only then."),
        "{description}"
    );
    // No provider keeps a top-level rule keyword: the words are the rule, said once.
    for profile in [
        Profile::Standard,
        Profile::OpenAiStrict,
        Profile::AnthropicStrict,
        Profile::Gemini,
    ] {
        let schema = input_schema(comment, profile).to_string();
        for keyword in ["\"allOf\"", "\"if\"", "\"dependentRequired\""] {
            assert!(!schema.contains(keyword), "{profile:?}: {schema}");
        }
        assert!(
            !schema.contains("only then"),
            "{profile:?} repeats the rule: {schema}"
        );
    }
    // The output schema says which variant the call selects.
    let out = output_schema(read);
    assert_eq!(
        out["properties"]["part"]["description"],
        "The part asked for. Its kind is the call's method."
    );
}

/// `paging.items: result.*.items` (the GitHub port's `pull_request_read`): the list of that
/// name in every variant that has one is paged, at one JSON pointer, and no other list.
#[test]
fn a_wildcard_variant_pages_each_variants_list() {
    let model = load_clean(&[root().join("tests/corpus/github.yaml")]);
    let (_, read) = model.tool("pull_request_read").expect("read tool");
    let paging = read.paging.as_ref().expect("paged");
    assert_eq!(paging.pointer(), "result/items");
    assert!(paging.in_variant);
    assert_eq!(
        paging.variants(&read.output),
        [
            "get_files",
            "get_commits",
            "get_reviews",
            "get_comments",
            "get_check_runs"
        ]
    );
    assert!(paging.names("result.get_files.items"));
    assert!(paging.names("result.get_check_runs.items"));
    assert!(!paging.names("result.get_review_comments.review_threads"));
    assert!(!paging.names("result.get_status.statuses"));
    // The lists it stands for are bounded by the page size; a list it does not name is not.
    let (_, list) = model.tool("list_pull_requests").expect("list tool");
    let one = list.paging.as_ref().expect("paged");
    assert!(one.names("pull_requests") && !one.names("pull_requests.labels"));
    assert_eq!(one.variants(&list.output), Vec::<String>::new());
}

#[test]
fn an_integer_enum_is_a_keyword_where_the_profile_keeps_one_and_words_where_not() {
    let model = model();
    let (_, list) = model.tool("members_list").expect("members tool");
    let codes = |args: Value| problem_codes(input_shape(list), &args);
    assert!(codes(json!({"project_id": 7, "min_access_level": 40})).is_empty());
    assert_eq!(
        codes(json!({"project_id": 7, "min_access_level": 35, "per_page": 10})),
        ["invalid_enum", "invalid_enum"]
    );
    let meanings = "One of: 10 (read issues and comment), 20 (read the code), 30 (push to \
                    unprotected branches), 40 (push to protected branches and manage the \
                    project), 50 (everything, deleting the project too).";
    for profile in [
        Profile::Standard,
        Profile::OpenAiStrict,
        Profile::AnthropicStrict,
        Profile::Gemini,
    ] {
        let schema = input_schema(list, profile);
        let level = &schema["properties"]["min_access_level"];
        let page = &schema["properties"]["per_page"];
        let described = level["description"].as_str().unwrap_or_default();
        // What each value means is words in every profile.
        assert!(described.contains(meanings), "{profile:?}: {described}");
        let page_words = page["description"].as_str().unwrap_or_default();
        if profile == Profile::Gemini {
            // Gemini's subset takes string enums only: the values are words.
            assert!(level.get("enum").is_none(), "{profile:?}: {level}");
            assert!(page.get("enum").is_none(), "{profile:?}: {page}");
            assert!(
                page_words.contains("One of: 20, 50, 100."),
                "{profile:?}: {page_words}"
            );
        } else {
            // OpenAI's strict mode adds `null` to an optional parameter's values.
            let values = |v: &Value| -> Vec<Value> {
                v["enum"]
                    .as_array()
                    .map(|a| a.iter().filter(|x| !x.is_null()).cloned().collect())
                    .unwrap_or_default()
            };
            assert_eq!(values(level), [10, 20, 30, 40, 50], "{profile:?}");
            assert_eq!(values(page), [20, 50, 100], "{profile:?}");
            assert!(!page_words.contains("One of"), "{profile:?}: {page_words}");
        }
    }
    let out = output_schema(list);
    assert_eq!(
        out["properties"]["members"]["items"]["properties"]["access_level"]["enum"],
        json!([10, 20, 30, 40, 50])
    );
}
