//! The construct specs of `tests/constructs/`, each served by a small in-memory
//! implementation and held to the gauntlet generated from its spec; and what the generated
//! server does when a call breaks a `when` rule, an implementation returns a variant its
//! call did not select, or a call passes a number outside an integer enum.

mod reviews {
    use std::sync::{Arc, Mutex};

    use serde_json::{Value, json};
    use toolspec_compile_check::constructs::reviews::*;
    use toolspec_runtime::ToolError;
    use toolspec_runtime::engine::{CallContext, Runtime, Toolset};
    use toolspec_runtime::store::Work;

    /// Pull request 42, with one file, one diff and one comment; comments added are kept.
    pub struct Reviews {
        /// Serve the `get_diff` variant whatever the call's method (a broken implementation).
        always_diff: bool,
        comments: Arc<Mutex<Vec<String>>>,
    }

    impl Reviews {
        fn new(always_diff: bool) -> Self {
            Reviews {
                always_diff,
                comments: Arc::new(Mutex::new(vec!["Looks good.".to_owned()])),
            }
        }

        fn found(number: PullNumber) -> Result<(), ToolError> {
            if number == 42 {
                Ok(())
            } else {
                Err(ReviewsError::PullRequestNotFound {
                    pull_number: number,
                }
                .into())
            }
        }
    }

    impl ReviewsTools for Reviews {
        async fn reviews_pull_request_read(
            &self,
            input: ReviewsPullRequestReadInput,
        ) -> Result<ReviewsPullRequestReadOutput, ToolError> {
            Self::found(input.pull_number)?;
            let diff = || {
                ReviewsPullRequestReadOutputPart::GetDiff(ReviewsPullRequestReadOutputPartGetDiff {
                    diff: "@@ -1 +1 @@".to_owned(),
                })
            };
            let part = match input.method {
                _ if self.always_diff => diff(),
                ReadMethod::GetDiff => diff(),
                ReadMethod::GetFiles => ReviewsPullRequestReadOutputPart::GetFiles(
                    ReviewsPullRequestReadOutputPartGetFiles {
                        files: vec!["src/lib.rs".to_owned()],
                    },
                ),
                ReadMethod::GetReviewComments => {
                    let all = self.comments.lock().unwrap().clone();
                    let comments = match input.after.as_deref() {
                        Some("c-100") | None => all,
                        Some(_) => Vec::new(),
                    };
                    ReviewsPullRequestReadOutputPart::GetReviewComments(
                        ReviewsPullRequestReadOutputPartGetReviewComments { comments },
                    )
                }
            };
            Ok(ReviewsPullRequestReadOutput { part })
        }

        async fn reviews_comment_add(
            &self,
            input: ReviewsCommentAddInput,
            work: Work,
        ) -> Result<ReviewsCommentAddOutput, ToolError> {
            Self::found(input.pull_number)?;
            let comments = Arc::clone(&self.comments);
            let id = format!("c-{}", 100 + comments.lock().unwrap().len());
            // Kept only when the call's unit of work commits.
            work.on_commit(move || comments.lock().unwrap().push(input.body));
            Ok(ReviewsCommentAddOutput { comment_id: id })
        }

        async fn reviews_review_submit(
            &self,
            input: ReviewsReviewSubmitInput,
            work: Work,
        ) -> Result<ReviewsReviewSubmitOutput, ToolError> {
            Self::found(input.pull_number)?;
            // The verdict's words become a review comment; an approval may have none.
            let body = match input.verdict {
                ReviewsReviewSubmitInputVerdict::Approve(a) => a.body,
                ReviewsReviewSubmitInputVerdict::RequestChanges(r) => Some(r.body),
                ReviewsReviewSubmitInputVerdict::Comment(c) => Some(c.body),
            };
            if let Some(body) = body {
                let comments = Arc::clone(&self.comments);
                work.on_commit(move || comments.lock().unwrap().push(body));
            }
            Ok(ReviewsReviewSubmitOutput {
                review_id: "r-1".to_owned(),
            })
        }
    }

    pub fn fixture(runtime: Runtime) -> ReviewsServer<Reviews> {
        ReviewsServer::new(Reviews::new(false), runtime)
    }

    include!("../../../constructs/generated/reviews/reviews_gauntlet.rs");

    reviews_gauntlet!(fixture);

    fn call(server: &ReviewsServer<Reviews>, tool: &str, args: Value) -> Result<Value, ToolError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(server.call(tool, args, &CallContext::new()))
            .map(|out| out.structured)
    }

    fn problems(e: &ToolError) -> Vec<(String, String)> {
        e.details["problems"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        (
                            p["code"].as_str().unwrap_or_default().to_owned(),
                            p["path"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_call_breaking_a_when_rule_is_refused_with_every_problem_at_its_pointer() {
        let server = ReviewsServer::in_memory(Reviews::new(false)).unwrap();
        let e = call(
            &server,
            "reviews_pull_request_read",
            json!({"pull_number": 0, "method": "get_diff", "after": "c-100"}),
        )
        .unwrap_err();
        let mut got = problems(&e);
        got.sort();
        assert_eq!(
            got,
            [
                ("argument_not_applicable".to_owned(), "/after".to_owned()),
                ("out_of_range".to_owned(), "/pull_number".to_owned()),
            ],
            "{e:?}"
        );
        assert!(
            e.message
                .contains("'after' applies only when 'method' is get_review_comments"),
            "{}",
            e.message
        );

        // `subject_type` left out is LINE, its default: the line is needed.
        let e = call(
            &server,
            "reviews_comment_add",
            json!({"pull_number": 42, "path": "src/lib.rs", "body": "Nice."}),
        )
        .unwrap_err();
        assert_eq!(e.code, "missing_argument", "{e:?}");
        assert!(
            e.message
                .contains("'line' is required when 'subject_type' is LINE"),
            "{}",
            e.message
        );
        let ok = call(
            &server,
            "reviews_comment_add",
            json!({"pull_number": 42, "path": "src/lib.rs", "body": "Nice.", "subject_type": "FILE"}),
        )
        .unwrap();
        assert!(ok["comment_id"].is_string(), "{ok}");
    }

    #[test]
    fn a_result_of_another_variant_is_an_internal_error_not_the_agents() {
        let server = ReviewsServer::in_memory(Reviews::new(true)).unwrap();
        let diff = call(
            &server,
            "reviews_pull_request_read",
            json!({"pull_number": 42, "method": "get_diff"}),
        )
        .unwrap();
        assert_eq!(diff["part"]["kind"], "get_diff");
        let e = call(
            &server,
            "reviews_pull_request_read",
            json!({"pull_number": 42, "method": "get_files"}),
        )
        .unwrap_err();
        assert_eq!(e.code, "internal_error", "{e:?}");
        assert!(e.details.get("incident").is_some(), "{e:?}");
    }

    #[test]
    fn the_gauntlet_catches_an_implementation_that_ignores_the_method() {
        use toolspec_runtime::gauntlet::{Fixture, Gauntlet};
        let gauntlet = Gauntlet::new(
            &REVIEWS_GAUNTLET,
            Fixture::new(|rt| ReviewsServer::new(Reviews::new(true), rt)),
        );
        let check = REVIEWS_GAUNTLET
            .checks
            .iter()
            .find(|c| c.name.ends_with("result_variant_follows_its_parameter"))
            .expect("the selection check is generated");
        let failure = gauntlet
            .run(check.name)
            .expect_err("the broken fixture fails it");
        assert!(failure.to_string().contains("internal_error"), "{failure}");
    }
}

mod members {
    use serde_json::{Value, json};
    use toolspec_compile_check::constructs::members::*;
    use toolspec_runtime::ToolError;
    use toolspec_runtime::engine::{CallContext, Runtime, Toolset};

    /// Project 7 and its three members, highest access level first.
    pub struct Members;

    const ALL: [(&str, AccessLevel); 3] = [("ada", 50), ("grace", 40), ("linus", 30)];

    impl MembersTools for Members {
        async fn members_list(
            &self,
            input: MembersListInput,
        ) -> Result<MembersListOutput, ToolError> {
            if input.project_id != 7 {
                return Err(MembersError::ProjectNotFound {
                    project_id: input.project_id,
                }
                .into());
            }
            let least = input.min_access_level.unwrap_or(10);
            let page = usize::try_from(input.per_page).unwrap_or(usize::MAX);
            let members = ALL
                .iter()
                .filter(|(_, level)| *level >= least)
                .take(page)
                .map(|(name, level)| MembersListOutputMembersItem {
                    username: (*name).to_owned(),
                    access_level: *level,
                })
                .collect();
            Ok(MembersListOutput { members })
        }
    }

    pub fn fixture(runtime: Runtime) -> MembersServer<Members> {
        MembersServer::new(Members, runtime)
    }

    include!("../../../constructs/generated/members/members_gauntlet.rs");

    members_gauntlet!(fixture);

    fn call(args: Value) -> Result<Value, ToolError> {
        let server = MembersServer::in_memory(Members).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(server.call("members_list", args, &CallContext::new()))
            .map(|out| out.structured)
    }

    #[test]
    fn a_number_outside_an_integer_enum_is_refused_with_the_numbers_allowed() {
        let ok = call(json!({"project_id": 7, "min_access_level": 40})).unwrap();
        assert_eq!(
            ok["members"],
            json!([
                {"username": "ada", "access_level": 50},
                {"username": "grace", "access_level": 40}
            ])
        );
        // A whole number written as a float is the same number.
        assert!(call(json!({"project_id": 7, "min_access_level": 40.0, "per_page": 50})).is_ok());
        for (args, allowed) in [
            (
                json!({"project_id": 7, "min_access_level": 35}),
                json!([10, 20, 30, 40, 50]),
            ),
            (
                json!({"project_id": 7, "per_page": 10}),
                json!([20, 50, 100]),
            ),
        ] {
            let e = call(args.clone()).unwrap_err();
            assert_eq!(e.code, "invalid_enum", "{args}: {e:?}");
            assert_eq!(e.details["allowed"], allowed, "{args}");
        }
        let e = call(json!({"project_id": 7, "min_access_level": "40"})).unwrap_err();
        assert_eq!(e.code, "invalid_type", "{e:?}");
    }
}
