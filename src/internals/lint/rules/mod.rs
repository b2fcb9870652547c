//! Every lint rule, one per file. A rule's file is named after its id (`-` becomes `_`), and
//! declares a `static RULE: Rule` with its documentation and its check.
//!
//! To add a rule: copy a rule of the same category, give it a new id, write its docs and
//! check, add it to [`ALL`] below, add a triggering and a clean spec under
//! `tests/lint/rules/`, and regenerate the docs page with
//! `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_docs::`.

/// What rule files use.
mod prelude {
    pub use crate::diagnostics::Severity;
    pub use crate::lint::context::{
        Ctx, Slot, constraint_finding, constraint_span, walk, walk_variants,
    };
    pub use crate::lint::rule::{Category, Finding, Rule, Set};
    pub use crate::lint::words;
    pub use crate::model::{Field, Kind, Tool, ToolSet, Type};
}

mod array_unbounded;
mod confirm_flag_param;
mod description_overlap;
mod destructive_name_tier;
mod enum_in_prose;
mod error_message_no_next_step;
mod errors_not_listed;
mod free_form_object;
mod group_too_big;
mod groups_missing;
mod id_name_suffix;
mod id_without_name;
mod irreversible_scope_too_weak;
mod list_without_pagination;
mod misroute;
mod missing_error_example;
mod missing_not_for;
mod missing_requests;
mod nesting_too_deep;
mod no_group_up_front;
mod number_unbounded;
mod open_world_write_without_preview;
mod page_limit_too_high;
mod page_numbers;
mod param_description_vague;
mod param_name_cryptic;
mod placeholder_text;
mod preview_without_fields;
mod provider_limits;
mod rate_limit_not_retryable;
mod response_format_missing;
mod retryable_permanent_error;
mod returns_vague;
mod safeguard_waived;
mod string_unbounded;
mod token_budget;
mod too_many_params;
mod too_many_tools;
mod tool_description_length;
mod tool_name_prefix;
mod tool_name_verb;
mod unprotected_remote_write;

use crate::lint::rule::Rule;

/// Every rule, grouped by category, in documentation order.
pub static ALL: &[&Rule] = &[
    // names
    &tool_name_prefix::RULE,
    &tool_name_verb::RULE,
    &param_name_cryptic::RULE,
    &id_name_suffix::RULE,
    // descriptions
    &placeholder_text::RULE,
    &tool_description_length::RULE,
    &returns_vague::RULE,
    &missing_not_for::RULE,
    &param_description_vague::RULE,
    // schemas
    &enum_in_prose::RULE,
    &number_unbounded::RULE,
    &string_unbounded::RULE,
    &array_unbounded::RULE,
    &free_form_object::RULE,
    &nesting_too_deep::RULE,
    &too_many_params::RULE,
    // safety
    &destructive_name_tier::RULE,
    &open_world_write_without_preview::RULE,
    &unprotected_remote_write::RULE,
    &preview_without_fields::RULE,
    &confirm_flag_param::RULE,
    &safeguard_waived::RULE,
    &irreversible_scope_too_weak::RULE,
    // results
    &list_without_pagination::RULE,
    &page_limit_too_high::RULE,
    &page_numbers::RULE,
    &id_without_name::RULE,
    &response_format_missing::RULE,
    // errors
    &errors_not_listed::RULE,
    &error_message_no_next_step::RULE,
    &retryable_permanent_error::RULE,
    &rate_limit_not_retryable::RULE,
    &missing_error_example::RULE,
    // toolset
    &too_many_tools::RULE,
    &groups_missing::RULE,
    &group_too_big::RULE,
    &no_group_up_front::RULE,
    &description_overlap::RULE,
    &misroute::RULE,
    &missing_requests::RULE,
    &token_budget::RULE,
    &provider_limits::RULE,
];

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.id == id)
}
