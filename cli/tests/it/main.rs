//! The `toolspec` command's integration tests, in one crate: they run the built binary on the
//! repository's specs and fixtures and compare with golden files. Run one file's tests with its
//! module name as the filter: `cargo test -p toolspec-cli --test it bad_specs::`.
//!
//! The helpers are the library's test helpers (`tests/it/`), shared, not copied.

#[path = "../../../tests/it/common.rs"]
mod common;
#[path = "../../../tests/it/docs_common.rs"]
mod docs_common;

mod bad_specs;
mod cli_check;
mod cli_reference;
mod diff_cli;
mod docs_templates;
mod eval_cli;
mod import_cli;
mod init_cli;
mod lint_cli;
mod providers_limits;
mod schemas_golden;
mod stats_cli;
