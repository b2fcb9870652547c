//! Which checks each tool gets, and what its `#[test]` is called.
//!
//! This is the one place that decides: the runtime runs whatever the generated facts list.
//! A check is planned only where its promise exists in the spec (a pattern probe for a
//! parameter with a pattern, retry checks for an idempotent write, ...), so a test that
//! cannot apply is never generated.

use serde::Serialize;

use crate::emit::code::escape::{ident, lit};
use crate::emit::code::safe;
use crate::model::{Effect, Field, Kind, Tool, ToolSet};

// The facts template imports these names in the block that builds the facts.
const CHECK: &str = "Check";
const VIOLATION: &str = "Violation";

/// The tests of one tool: a module named after it.
#[derive(Debug, Serialize)]
pub(super) struct ModuleCtx {
    #[serde(serialize_with = "safe")]
    pub ident: String,
    pub tool: String,
    pub tests: Vec<TestCtx>,
}

/// One check: its test function, full name and `Check` expression.
#[derive(Debug, Serialize)]
pub(super) struct TestCtx {
    #[serde(serialize_with = "safe")]
    pub ident: String,
    /// `<tool>::<test>` with the tool's wire name, as reports name it (`list-events::…`);
    /// `cargo test` names the module by its Rust name (`list_events::…`).
    pub name: String,
    #[serde(serialize_with = "safe")]
    pub check: String,
}

/// The planned checks of every tool of a toolset, in the spec's order.
pub(super) fn modules(ts: &ToolSet) -> Vec<ModuleCtx> {
    ts.tools
        .iter()
        .map(|t| {
            let mut tests: Vec<TestCtx> = Vec::new();
            for (test, check) in checks(ts, t) {
                // Names are made unique within the module (two examples with one title).
                let mut id = ident(&test);
                let mut n = 2;
                while tests.iter().any(|x| x.ident == id) {
                    id = ident(&format!("{test}_{n}"));
                    n += 1;
                }
                tests.push(TestCtx {
                    name: format!("{}::{}", t.name.text, id.trim_start_matches("r#")),
                    ident: id,
                    check,
                });
            }
            ModuleCtx {
                ident: ident(&t.name.text),
                tool: t.name.text.clone(),
                tests,
            }
        })
        .collect()
}

/// `(test name, Check expression)` for every check that applies to `t`.
fn checks(ts: &ToolSet, t: &Tool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |name: String, check: String| out.push((name, check));

    add("schema_matches_the_spec".into(), format!("{CHECK}::Schema"));
    for (i, e) in t.examples.iter().enumerate() {
        add(
            format!("example_{}", slug(&e.title.text)),
            format!("{CHECK}::Example({i})"),
        );
    }
    for p in &t.params {
        for (suffix, violation) in violations(p) {
            add(
                format!("{}_{suffix}", p.name),
                format!(
                    "{CHECK}::Refused {{ param: {}, violation: {VIOLATION}::{violation} }}",
                    lit(&p.name)
                ),
            );
        }
    }
    add(
        "unknown_argument_is_refused".into(),
        format!("{CHECK}::UnknownArgument"),
    );

    if t.is_write() && t.idempotency.is_some() {
        add(
            "retry_with_the_same_key_runs_once".into(),
            format!("{CHECK}::RetryRunsOnce"),
        );
        add(
            "same_key_with_other_arguments_is_refused".into(),
            format!("{CHECK}::RetryWithOtherArgumentsRefused"),
        );
        add(
            "concurrent_calls_with_one_key_run_once".into(),
            format!("{CHECK}::ConcurrentRetriesRunOnce"),
        );
        add(
            "idempotency_key_is_kept_for_its_ttl".into(),
            format!("{CHECK}::IdempotencyTtl"),
        );
    }
    if !t.requires.is_empty() {
        add(
            "calls_breaking_its_rules_are_refused".into(),
            format!("{CHECK}::RequirementsEnforced"),
        );
    }
    if !t.selections.is_empty() {
        add(
            "result_variant_follows_its_parameter".into(),
            format!("{CHECK}::SelectionsFollowed"),
        );
    }
    // Where the change is made decides what a failed commit can promise: nothing changed
    // (the store), or a retry that does not repeat the change, or a warning that it may.
    if t.is_write() {
        let (name, check) = match t.effect {
            Effect::Store => (
                "writes_only_through_the_unit_of_work",
                "WritesOnlyThroughUnitOfWork",
            ),
            Effect::RemoteKeyed | Effect::RemoteLookup => (
                "a_retry_after_a_lost_outcome_does_not_repeat_the_change",
                "RemoteRetryChangesOnce",
            ),
            Effect::RemoteUnprotected => (
                "a_lost_outcome_says_a_retry_may_repeat_the_change",
                "RemoteRetryMayRepeat",
            ),
        };
        add(name.into(), format!("{CHECK}::{check}"));
    }
    if t.preview
        .as_ref()
        .is_some_and(|p| p.approval == crate::model::Approval::Host)
    {
        add(
            "without_a_host_that_can_ask_nothing_changes".into(),
            format!("{CHECK}::HostRequired"),
        );
    }
    if !t.scopes.is_empty() {
        add(
            "a_caller_without_its_scopes_is_refused".into(),
            format!("{CHECK}::ScopesRequired"),
        );
    }
    if let Some(l) = &t.rate_limit {
        add(
            "a_caller_past_its_rate_limit_waits_as_told".into(),
            format!(
                "{CHECK}::RateLimitKept {{ calls: {}, per_secs: {}, burst: {:?} }}",
                l.calls,
                l.per.as_secs(),
                l.burst
            ),
        );
    }
    if let Some(time) = &t.time {
        add(
            "finishes_well_within_its_time_limit".into(),
            format!(
                "{CHECK}::TimeLimitKept {{ limit_secs: {} }}",
                time.limit.as_secs()
            ),
        );
        add(
            "a_cancelled_call_leaves_nothing_behind".into(),
            format!("{CHECK}::CancelledCallLeavesNothing"),
        );
    }
    // An unprotected remote apply whose commit failed may have made its change: applying
    // its preview again is exactly the retry its words warn against.
    if t.preview.is_some() && t.effect != Effect::RemoteUnprotected {
        add(
            "a_failed_apply_leaves_the_preview_usable".into(),
            format!("{CHECK}::FailedApplyKeepsPreview"),
        );
    }
    if t.preview.is_some() {
        for (name, check) in [
            ("preview_changes_nothing", "PreviewChangesNothing"),
            ("apply_does_what_the_preview_said", "ApplyMatchesPreview"),
            (
                "apply_with_changed_arguments_is_refused",
                "ApplyChangedArgumentsRefused",
            ),
            (
                "apply_with_a_used_preview_is_refused",
                "ApplyUsedPreviewRefused",
            ),
            (
                "apply_after_the_preview_expires_is_refused",
                "ApplyExpiredPreviewRefused",
            ),
            ("preview_stays_valid_for_its_ttl", "PreviewTtl"),
        ] {
            add(name.into(), format!("{CHECK}::{check}"));
        }
    }
    // The undo call can be made only through a tool this toolset serves.
    if let Some(undo) = &t.undo
        && ts.tool(&undo.tool.text).is_some()
    {
        add(
            "undo_restores_the_prior_state".into(),
            format!("{CHECK}::UndoRestores"),
        );
    }
    if t.paging.is_some() {
        for (name, check) in [
            ("pagination_walks_every_item_once", "PagesWalkEveryItemOnce"),
            ("pagination_refuses_a_forged_cursor", "ForgedCursorRefused"),
            ("default_limit_is_the_page_size", "DefaultLimit"),
            ("max_limit_is_served_and_one_more_refused", "MaxLimit"),
        ] {
            add(name.into(), format!("{CHECK}::{check}"));
        }
    }
    add(
        "output_matches_the_schema".into(),
        format!("{CHECK}::OutputMatchesSchema"),
    );
    if t.response_format.is_some() && t.output.iter().any(has_detailed_only) {
        add(
            "concise_results_hold_no_detailed_only_field".into(),
            format!("{CHECK}::ConciseOmitsDetailedOnly"),
        );
    }
    if t.projection
        .as_ref()
        .is_some_and(|p| p.fields.len() > p.always.len())
    {
        add(
            "projected_results_keep_only_what_was_asked".into(),
            format!("{CHECK}::ProjectionKeepsWhatWasAsked"),
        );
    }
    for p in &t.params {
        let integer_enum = matches!(
            p.ty.kind,
            Kind::Integer {
                enum_values: Some(_),
                ..
            }
        );
        if p.ty.enum_values().is_some() || integer_enum {
            add(
                format!("{}_accepts_every_allowed_value", p.name),
                format!(
                    "{CHECK}::AllowedValuesAccepted {{ param: {} }}",
                    lit(&p.name)
                ),
            );
        }
        if has_bounds(p) {
            add(
                format!("{}_accepts_its_bounds", p.name),
                format!("{CHECK}::BoundsAccepted {{ param: {} }}", lit(&p.name)),
            );
        }
    }
    out
}

/// The ways a parameter can be made invalid: `(test name suffix, Violation variant)`.
fn violations(p: &Field) -> Vec<(&'static str, &'static str)> {
    let mut v = Vec::new();
    if p.required {
        v.push(("missing_is_refused", "Missing"));
    }
    v.push(("of_the_wrong_type_is_refused", "WrongType"));
    match &p.ty.kind {
        Kind::String(rules) => {
            if rules.enum_values.is_some() {
                v.push(("outside_the_allowed_values_is_refused", "NotAllowed"));
            }
            if rules.min_length.is_some_and(|n| n > 0) {
                v.push(("too_short_is_refused", "TooShort"));
            }
            if rules.max_length.is_some_and(|n| n < u64::MAX) {
                v.push(("too_long_is_refused", "TooLong"));
            }
            if rules.pattern.is_some() {
                v.push(("not_matching_the_pattern_is_refused", "PatternMismatch"));
            }
            if rules.format.is_some() {
                v.push(("in_the_wrong_format_is_refused", "WrongFormat"));
            }
        }
        // The validator checks nothing else on an enum: a value outside it is the probe.
        Kind::Integer {
            enum_values: Some(_),
            ..
        } => v.push(("outside_the_allowed_values_is_refused", "NotAllowed")),
        Kind::Integer {
            minimum, maximum, ..
        } => {
            if minimum.is_some_and(|n| n > i64::MIN) {
                v.push(("below_the_minimum_is_refused", "BelowMinimum"));
            }
            if maximum.is_some_and(|n| n < i64::MAX) {
                v.push(("above_the_maximum_is_refused", "AboveMaximum"));
            }
        }
        Kind::Number { minimum, maximum } => {
            if minimum.is_some_and(f64::is_finite) {
                v.push(("below_the_minimum_is_refused", "BelowMinimum"));
            }
            if maximum.is_some_and(f64::is_finite) {
                v.push(("above_the_maximum_is_refused", "AboveMaximum"));
            }
        }
        Kind::Array {
            min_items,
            max_items,
            ..
        } => {
            if min_items.is_some_and(|n| n > 0) {
                v.push(("too_short_is_refused", "TooShort"));
            }
            if max_items.is_some_and(|n| n < u64::MAX) {
                v.push(("too_long_is_refused", "TooLong"));
            }
        }
        Kind::Boolean
        | Kind::Object { .. }
        | Kind::Map { .. }
        | Kind::Union { .. }
        | Kind::Content(_) => {}
    }
    v
}

/// Whether a parameter publishes bounds a probe can hit exactly (numbers, string lengths).
fn has_bounds(p: &Field) -> bool {
    match &p.ty.kind {
        Kind::String(r) => {
            r.enum_values.is_none()
                && (r.min_length.is_some_and(|n| n > 0) || r.max_length.is_some())
        }
        Kind::Integer {
            minimum,
            maximum,
            enum_values,
            ..
        } => enum_values.is_none() && (minimum.is_some() || maximum.is_some()),
        Kind::Number { minimum, maximum } => {
            minimum.is_some_and(f64::is_finite) || maximum.is_some_and(f64::is_finite)
        }
        _ => false,
    }
}

/// Whether a field, or one inside it, is detailed-only.
fn has_detailed_only(f: &Field) -> bool {
    if f.detailed_only {
        return true;
    }
    let mut ty = &f.ty;
    while let Kind::Array { items, .. } = &ty.kind {
        ty = items;
    }
    matches!(&ty.kind, Kind::Object { fields, .. } if fields.iter().any(has_detailed_only))
}

/// An example's title as a test name: lower-case ASCII words joined by `_`, at most about
/// 60 characters (cut at a word).
pub(super) fn slug(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut out = String::new();
    for w in words {
        if !out.is_empty() && out.len() + 1 + w.len() > 60 {
            break;
        }
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(&w);
    }
    if out.is_empty() {
        "untitled".into()
    } else {
        out
    }
}
