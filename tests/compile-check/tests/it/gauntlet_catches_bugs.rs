//! Proof that the gauntlet catches real bugs: the tickets desk of `broken/` with one
//! deliberate bug at a time, run through every check of the generated tickets gauntlet.
//! Each bug must fail the check named after the promise it breaks, and the desk without
//! bugs must pass them all.

use crate::broken;

use broken::{Bug, Desk};
use toolspec_compile_check::tickets::TicketsServer;
use toolspec_runtime::gauntlet::{Fixture, Gauntlet, Report};

include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));

fn run(bug: Option<Bug>) -> Report {
    let fixture = move |runtime| {
        let desk = bug.map_or_else(Desk::demo, Desk::with_bug);
        TicketsServer::new(desk, runtime)
    };
    Gauntlet::new(&TICKETS_GAUNTLET, Fixture::new(fixture)).run_all()
}

/// Runs the gauntlet against `bug` and checks that `check` is among the failures, and that
/// the served definitions (which no bug touches) still pass. The failure's text.
fn assert_caught(bug: Bug, check: &str) -> String {
    let report = run(Some(bug));
    let Some(failure) = report.failure(check) else {
        panic!("{bug:?} should fail {check}; failed: {:?}", report.failed());
    };
    assert!(
        !report
            .failed()
            .iter()
            .any(|c| c.ends_with("::schema_matches_the_spec")),
        "{bug:?} does not change the definitions: {report}"
    );
    failure.to_string()
}

#[test]
fn the_desk_without_bugs_passes_every_check() {
    let report = run(None);
    assert!(report.passed(), "{report}");
    assert_eq!(report.outcomes.len(), TICKETS_GAUNTLET.checks.len());
}

#[test]
fn a_search_that_ignores_the_limit_fails_the_max_limit_check() {
    assert_caught(
        Bug::IgnoresLimit,
        "tickets_search::max_limit_is_served_and_one_more_refused",
    );
}

#[test]
fn paging_that_skips_items_fails_the_walk() {
    assert_caught(
        Bug::SkipsItems,
        "tickets_search::pagination_walks_every_item_once",
    );
}

#[test]
fn paging_that_repeats_items_fails_the_walk() {
    assert_caught(
        Bug::RepeatsItems,
        "tickets_search::pagination_walks_every_item_once",
    );
}

#[test]
fn a_wrong_total_fails_the_walk_and_the_example() {
    assert_caught(
        Bug::WrongTotal,
        "tickets_search::pagination_walks_every_item_once",
    );
    assert_caught(
        Bug::WrongTotal,
        "tickets_search::example_open_tickets_about_the_login_loop_five_per_page",
    );
}

#[test]
fn a_preview_that_writes_fails_preview_changes_nothing() {
    assert_caught(
        Bug::PreviewWrites,
        "tickets_create::preview_changes_nothing",
    );
}

#[test]
fn an_apply_that_differs_from_its_preview_fails() {
    assert_caught(
        Bug::ApplyDiffersFromPreview,
        "tickets_create::apply_does_what_the_preview_said",
    );
}

#[test]
fn an_undo_that_does_not_restore_fails() {
    assert_caught(
        Bug::UndoDoesNotRestore,
        "tickets_update_status::undo_restores_the_prior_state",
    );
}

#[test]
fn an_undo_that_ignores_the_prior_state_fails_from_a_changed_state() {
    // From the fixture's state the reported previous status is right; the check changes
    // the ticket first, and the undo then restores the fixture's status instead.
    let failure = assert_caught(
        Bug::UndoIgnoresPriorState,
        "tickets_update_status::undo_restores_the_prior_state",
    );
    assert!(
        failure.contains("also from a state the check changed first"),
        "the failure should say where the calls started:\n{failure}"
    );
}

#[test]
fn a_result_that_breaks_the_output_schema_fails() {
    assert_caught(
        Bug::BreaksOutputSchema,
        "tickets_get::output_matches_the_schema",
    );
}

#[test]
fn a_not_found_reported_as_internal_error_fails_its_example() {
    assert_caught(
        Bug::NotFoundIsInternal,
        "tickets_get::example_an_unknown_id",
    );
}

#[test]
fn writes_outside_the_unit_of_work_fail_for_every_write_tool() {
    assert_caught(
        Bug::WritesOutsideUnitOfWork,
        "tickets_create::writes_only_through_the_unit_of_work",
    );
    assert_caught(
        Bug::WritesOutsideUnitOfWork,
        "tickets_update_status::writes_only_through_the_unit_of_work",
    );
}

#[test]
fn the_preview_checks_hold_when_only_the_person_may_approve() {
    // The same spec with `approval: host` on tickets_create: the gauntlet plays the
    // person, in two rounds, and every preview promise must still hold.
    let mut tools = TICKETS_GAUNTLET.tools.to_vec();
    for tool in &mut tools {
        if let Some(preview) = &mut tool.preview {
            preview.host_only = true;
        }
    }
    let facts: &'static toolspec_runtime::gauntlet::Facts =
        Box::leak(Box::new(toolspec_runtime::gauntlet::Facts {
            tools: Box::leak(tools.into_boxed_slice()),
            ..TICKETS_GAUNTLET
        }));
    let fixture = |runtime| TicketsServer::new(Desk::demo(), runtime);
    let report = Gauntlet::new(facts, Fixture::new(fixture)).run_all();
    assert!(report.passed(), "{report}");
    let bugged =
        |runtime| TicketsServer::new(Desk::with_bug(Bug::ApplyDiffersFromPreview), runtime);
    let report = Gauntlet::new(facts, Fixture::new(bugged)).run_all();
    assert!(
        report
            .failure("tickets_create::apply_does_what_the_preview_said")
            .is_some(),
        "{report}"
    );
}

#[test]
fn a_failure_says_which_promise_broke_and_how_to_fix_it() {
    let report = run(Some(Bug::RepeatsItems));
    let failure = report
        .failure("tickets_search::pagination_walks_every_item_once")
        .expect("the walk fails");
    // The gauntlet's cursor key and clock are fixed, so the text is the same on every run.
    assert_eq!(
        failure.to_string(),
        "gauntlet check tickets_search::pagination_walks_every_item_once failed
  promise:  walking every page of a tickets_search query returns each matching item exactly once, as many as total says
  call:     tickets_search {\"cursor\":\"AgAAAAAAAAAFJ98zUaDP1VYAClsiVC0xMDA3Il1uM3fG9x6mzn8QqovlvLQc\",\"limit\":5,\"query\":\"login\",\"status\":\"open\"}
  got:      page 2 repeats an item already seen as item 5: {\"status\":\"open\",\"ticket_id\":\"T-1007\",\"title\":\"login loop case 7\"}
  expected: every item on exactly one page
  fix:      return the `window.limit` items that sort after `window.after()` (from the first when it is None), in the keyset's order, with the number of all matches as the page's total"
    );
}

/// The tickets desk served under other definitions: what a server generated from another
/// spec, or a hand-written definition, looks like to the gauntlet.
struct OtherDefinitions {
    inner: TicketsServer<Desk>,
    definitions: &'static [toolspec_runtime::engine::ToolDefinition],
}

impl toolspec_runtime::engine::Toolset for OtherDefinitions {
    fn definitions(&self) -> &'static [toolspec_runtime::engine::ToolDefinition] {
        self.definitions
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: serde_json::Value,
        ctx: &'a toolspec_runtime::engine::CallContext,
    ) -> toolspec_runtime::engine::BoxFuture<
        'a,
        Result<toolspec_runtime::engine::CallOutput, toolspec_runtime::ToolError>,
    > {
        self.inner.call(name, arguments, ctx)
    }
}

#[test]
fn a_definition_other_than_the_specs_fails_the_schema_check_naming_what_differs() {
    use toolspec_runtime::validate::{Field, ObjectShape, Shape};
    let mut definitions = toolspec_compile_check::tickets::DEFINITIONS.to_vec();
    // tickets_search as an older spec described it.
    definitions[0].description = "Search tickets.";
    // tickets_get whose validator lets longer ids through than its input schema says.
    let mut fields = definitions[1].input.fields.to_vec();
    let Shape::String(mut id) = fields[0].shape else {
        panic!("ticket_id is a string");
    };
    id.max_length = Some(40);
    fields[0] = Field {
        shape: Shape::String(id),
        ..fields[0]
    };
    let fields: &'static [Field] = Vec::leak(fields);
    definitions[1].input = Box::leak(Box::new(ObjectShape::new(fields)));
    let definitions: &'static [toolspec_runtime::engine::ToolDefinition] = Vec::leak(definitions);

    let fixture = move |runtime| OtherDefinitions {
        inner: TicketsServer::new(Desk::demo(), runtime),
        definitions,
    };
    let report = Gauntlet::new(&TICKETS_GAUNTLET, Fixture::new(fixture)).run_all();
    let search = report
        .failure("tickets_search::schema_matches_the_spec")
        .expect("a stale description is caught")
        .to_string();
    assert!(
        search.contains("description differ from the definition generated from the spec"),
        "{search}"
    );
    let get = report
        .failure("tickets_get::schema_matches_the_spec")
        .expect("a validator looser than the schema is caught")
        .to_string();
    assert!(
        get.contains("parameter `ticket_id`: schema maxLength 20, validator 40"),
        "{get}"
    );
    assert!(
        report
            .failure("tickets_create::schema_matches_the_spec")
            .is_none(),
        "{report}"
    );
}

#[test]
fn a_method_that_holds_what_it_took_past_a_cancel_fails() {
    assert_caught(
        Bug::HoldsPastCancel,
        "tickets_create::a_cancelled_call_leaves_nothing_behind",
    );
}
