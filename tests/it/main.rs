//! The integration tests of `toolspec`, in one crate.
//!
//! Each file here was once its own test binary; as modules of one crate they link once,
//! which is most of what a test run used to spend. Run one file's tests with its module
//! name as the filter: `cargo test --features tokens --test it lint_rules::`. The tests
//! that run the `toolspec` command are the `toolspec-cli` crate's (`cli/tests/it`).

#[cfg(not(feature = "tokens"))]
compile_error!(
    "the integration tests compare exact token counts: run them with `--features tokens` \
     (`cargo test --workspace --all-features`, as scripts/test does)"
);

mod architecture;
#[path = "../support/architecture.rs"]
mod architecture_scan;
mod common;
mod docs_common;
mod lint_common;

mod check_examples;
mod check_warnings;
mod codegen_builder;
mod codegen_rust;
mod constructs;
mod diff_cases;
mod docs_escaping;
mod docs_examples;
mod docs_mdbook;
mod docs_truth;
mod effect_words;
mod example_cover;
mod format_reference;
mod groups;
mod guide;
mod import_openapi;
mod key_optional;
mod lint_config;
mod lint_docs;
mod lint_rules;
mod lint_sarif;
mod lint_specs;
mod mutation;
mod originals;
mod providers_rules;
mod schemas_validation;
mod schemas_vs_schemars;
mod stats_lists;
mod tutorial_sync;
