//! The integration tests of `toolspec`, in one crate.
//!
//! Each file here was once its own test binary; as modules of one crate they link once,
//! which is most of what a test run used to spend. Run one file's tests with its module
//! name as the filter: `cargo test --test it bad_specs::`.

mod common;
mod docs_common;
mod lint_common;

mod bad_specs;
mod cli_check;
mod codegen_builder;
mod codegen_rust;
mod diff_cases;
mod diff_cli;
mod docs_escaping;
mod docs_examples;
mod docs_mdbook;
mod docs_templates;
mod format_reference;
mod lint_cli;
mod lint_config;
mod lint_docs;
mod lint_rules;
mod lint_sarif;
mod lint_specs;
mod mutation;
mod providers_limits;
mod providers_rules;
mod schemas_golden;
mod schemas_validation;
mod schemas_vs_schemars;
mod stats_cli;
mod tutorial_sync;
