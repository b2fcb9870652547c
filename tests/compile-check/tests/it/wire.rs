//! The wire fixture (`tests/compile-check/specs/wire.yaml`) served by an in-memory code host
//! and held to its generated gauntlet: page numbers with the wire's own `page`/`perPage`,
//! output keys `+1`, `-1` and `@type` behind derived Rust names, and one enum type for the
//! thread state written in three places.
//!
//! Pull request 7 has five comments, ids 101 to 105; 102 and 104 are resolved.

use serde_json::{Value, json};
use toolspec_compile_check::wire::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::glue::{Page, Window};
use toolspec_runtime::engine::{CallContext, Runtime, Toolset};

/// An in-memory code host.
pub struct Host {
    comments: Vec<WireCommentsListOutputCommentsItem>,
}

impl Host {
    fn demo() -> Self {
        let comments = (101..=105)
            .map(|id| WireCommentsListOutputCommentsItem {
                id,
                body: format!("comment {id}"),
                // The input's, the item's and the list's enum are one type: no conversion.
                state: if id % 2 == 0 {
                    WireCommentsListInputState::Resolved
                } else {
                    WireCommentsListInputState::Open
                },
                reactions: WireCommentsListOutputCommentsItemReactions {
                    plus_1: id - 100,
                    minus_1: 0,
                    r#type: "Reactions".into(),
                },
            })
            .collect();
        Self { comments }
    }
}

impl WireTools for Host {
    async fn wire_comments_list(
        &self,
        input: WireCommentsListInput,
        window: Window,
    ) -> Result<Page<WireCommentsListOutput>, ToolError> {
        if input.pull_number != 7 {
            return Ok(Page::new(
                WireCommentsListOutput {
                    comments: Vec::new(),
                    states: Vec::new(),
                },
                0,
            ));
        }
        let wanted: WireCommentsListOutputStatesItem =
            input.state.unwrap_or(WireCommentsListInputState::All);
        let matching: Vec<_> = self
            .comments
            .iter()
            .filter(|c| wanted == WireCommentsListInputState::All || c.state == wanted)
            .cloned()
            .collect();
        let total = matching.len() as u64;
        let comments: Vec<_> = matching
            .into_iter()
            .skip(window.skip())
            .take(window.take())
            .collect();
        let mut states: Vec<WireCommentsListOutputStatesItem> =
            comments.iter().map(|c| c.state).collect();
        states.dedup();
        Ok(Page::new(
            WireCommentsListOutput { comments, states },
            total,
        ))
    }

    async fn wire_pull_read(
        &self,
        input: WirePullReadInput,
        window: Window,
    ) -> Result<Page<WirePullReadOutput>, ToolError> {
        let result = match input.method {
            WirePullReadInputMethod::Get => {
                WirePullReadOutputResult::Get(WirePullReadOutputResultGet {
                    title: format!("Pull request {}", input.pull_number),
                })
            }
            WirePullReadInputMethod::GetReviews => {
                // Reviews 201 to 205 on pull request 7; fetch one more to know if more follow.
                let all: Vec<u64> = if input.pull_number == 7 {
                    (201..=205).collect()
                } else {
                    Vec::new()
                };
                let page: Vec<u64> = all
                    .iter()
                    .copied()
                    .skip(window.skip())
                    .take(window.take() + 1)
                    .collect();
                let more = page.len() > window.take();
                let reviews = page
                    .into_iter()
                    .take(window.take())
                    .map(|id| WirePullReadOutputResultGetReviewsReviewsItem {
                        id,
                        state: WireCommentsListInputState::Open,
                    })
                    .collect();
                return Ok(Page::more(
                    WirePullReadOutput {
                        result: WirePullReadOutputResult::GetReviews(
                            WirePullReadOutputResultGetReviews {
                                reviews,
                                labels: vec!["lgtm".into()],
                            },
                        ),
                    },
                    more,
                ));
            }
        };
        Ok(Page::more(WirePullReadOutput { result }, false))
    }

    async fn wire_pull_get(&self, input: WirePullGetInput) -> Result<WirePullGetOutput, ToolError> {
        // Every field, whatever the call asked for: the generated layer projects.
        let n = input.pull_number;
        Ok(WirePullGetOutput {
            number: n,
            title: format!("Pull request {n}"),
            body: "Pins the toolchain.".into(),
            author: "ada".into(),
            html_url: format!("https://example.com/pull/{n}"),
        })
    }
}

/// The server under test, around a fresh host.
pub fn fixture(runtime: Runtime) -> WireServer<Host> {
    WireServer::new(Host::demo(), runtime)
}

include!(concat!(env!("OUT_DIR"), "/wire_gauntlet.rs"));

wire_gauntlet!(fixture);

async fn call(server: &WireServer<Host>, args: Value) -> Result<Value, ToolError> {
    server
        .call("wire_comments_list", args, &CallContext::new())
        .await
        .map(|out| out.structured)
}

#[tokio::test]
async fn pages_by_number_with_the_wire_s_names() {
    let server = fixture(Runtime::in_memory().expect("runtime"));
    let first = call(&server, json!({"pull_number": 7}))
        .await
        .expect("page 1");
    assert_eq!(first["total"], 5);
    assert_eq!(first["next_page"], 2);
    assert_eq!(first["comments"][0]["id"], 101);
    let reacted = call(&server, json!({"pull_number": 7, "fields": ["reactions"]}))
        .await
        .expect("reactions");
    assert_eq!(reacted["comments"][0]["reactions"]["+1"], 1);
    assert_eq!(reacted["comments"][0]["reactions"]["@type"], "Reactions");
    assert!(first.get("next_cursor").is_none());
    let third = call(&server, json!({"pull_number": 7, "page": 3, "perPage": 2}))
        .await
        .expect("page 3");
    assert_eq!(third["comments"].as_array().map(Vec::len), Some(1));
    assert_eq!(third["comments"][0]["id"], 105);
    assert!(third.get("next_page").is_none(), "{third}");
    let past = call(&server, json!({"pull_number": 7, "page": 9}))
        .await
        .expect("a page past the end is empty");
    assert_eq!(past["comments"], json!([]));
    assert!(past.get("next_page").is_none());
    for bad in [
        json!({"page": 0}),
        json!({"perPage": 6}),
        json!({"perPage": 0}),
    ] {
        let mut args = json!({"pull_number": 7});
        args.as_object_mut()
            .expect("object")
            .extend(bad.as_object().expect("object").clone());
        let e = call(&server, args.clone())
            .await
            .expect_err("out of bounds");
        assert_eq!(e.code, "out_of_range", "{args}: {e:?}");
    }
    let e = call(&server, json!({"pull_number": 7, "limit": 2}))
        .await
        .expect_err("limit is not this tool's parameter");
    assert_eq!(e.code, "unknown_argument");
}

#[tokio::test]
async fn pages_a_list_inside_one_variant_of_a_tagged_union() {
    let server = fixture(Runtime::in_memory().expect("runtime"));
    let read = |args: Value| {
        let server = &server;
        async move {
            server
                .call("wire_pull_read", args, &CallContext::new())
                .await
                .map(|out| out.structured)
        }
    };
    let first = read(json!({"pull_number": 7, "method": "get_reviews"}))
        .await
        .expect("page 1");
    assert_eq!(first["result"]["method"], "get_reviews");
    assert_eq!(first["result"]["reviews"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        first["result"]["labels"],
        json!(["lgtm"]),
        "the other list is not paged"
    );
    assert_eq!(first["next_page"], 2);
    assert!(first.get("total").is_none(), "total: false");
    let last = read(json!({"pull_number": 7, "method": "get_reviews", "page": 3}))
        .await
        .expect("page 3");
    assert_eq!(
        last["result"]["reviews"],
        json!([{"id": 205, "state": "open"}])
    );
    assert!(last.get("next_page").is_none(), "{last}");
    let get = read(json!({"pull_number": 7, "method": "get"}))
        .await
        .expect("get");
    assert_eq!(get["result"]["title"], "Pull request 7");
    assert!(
        get.get("next_page").is_none() && get.get("total").is_none(),
        "{get}"
    );
}

#[tokio::test]
async fn results_keep_the_fields_asked_for() {
    let server = fixture(Runtime::in_memory().expect("runtime"));
    let get = |args: Value| {
        let server = &server;
        async move {
            server
                .call("wire_pull_get", args, &CallContext::new())
                .await
                .map(|out| out.structured)
        }
    };
    let every = get(json!({"pull_number": 7})).await.expect("get");
    assert_eq!(
        every.as_object().map(|m| m.len()),
        Some(5),
        "no fields named: every field ({every})"
    );
    let title = get(json!({"pull_number": 7, "fields": ["title"]}))
        .await
        .expect("title");
    assert_eq!(title, json!({"number": 7, "title": "Pull request 7"}));
    let none = get(json!({"pull_number": 7, "fields": []}))
        .await
        .expect("[]");
    assert_eq!(none, json!({"number": 7}), "`always` fields only");
    let e = get(json!({"pull_number": 7, "fields": ["titel"]}))
        .await
        .expect_err("not a field");
    assert_eq!(e.code, "invalid_enum", "{e:?}");

    // A page's items: the default leaves the reactions out; asked for, only they come
    // (with the id), and the page itself keeps its count and next page.
    let page = call(&server, json!({"pull_number": 7}))
        .await
        .expect("page");
    assert_eq!(
        page["comments"][0],
        json!({"id": 101, "body": "comment 101", "state": "open"})
    );
    let reactions = call(&server, json!({"pull_number": 7, "fields": ["reactions"]}))
        .await
        .expect("reactions");
    assert_eq!(
        reactions["comments"][1],
        json!({"id": 102, "reactions": {"+1": 2, "-1": 0, "@type": "Reactions"}})
    );
    assert_eq!(
        (reactions["total"].clone(), reactions["next_page"].clone()),
        (json!(5), json!(2))
    );
}

/// The wire server behind a hand-written layer that drops the field list before the
/// generated one sees it: a server that ignores `fields`.
struct IgnoresFields(WireServer<Host>);

impl Toolset for IgnoresFields {
    fn definitions(&self) -> &'static [toolspec_runtime::engine::ToolDefinition] {
        self.0.definitions()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        mut arguments: Value,
        ctx: &'a CallContext,
    ) -> toolspec_runtime::engine::BoxFuture<
        'a,
        Result<toolspec_runtime::engine::CallOutput, ToolError>,
    > {
        if let Some(m) = arguments.as_object_mut() {
            m.remove("fields");
        }
        self.0.call(name, arguments, ctx)
    }
}

#[test]
fn a_server_that_ignores_the_field_list_fails_the_projection_check() {
    use toolspec_runtime::gauntlet::{Fixture, Gauntlet};
    let fixture = |runtime| IgnoresFields(fixture(runtime));
    let report = Gauntlet::new(&WIRE_GAUNTLET, Fixture::new(fixture)).run_all();
    for tool in ["wire_pull_get", "wire_comments_list"] {
        let check = format!("{tool}::projected_results_keep_only_what_was_asked");
        let failure = report
            .failure(&check)
            .unwrap_or_else(|| panic!("{check} should fail: {report}"))
            .to_string();
        assert!(failure.contains("returns only"), "{failure}");
    }
}
