//! The stages behind the command line: the spec's parser, the plan, the emitters, lint,
//! diff, import, stats and eval, for `toolspec-cli` and `toolspec-eval`.
//!
//! Hidden from the docs and exempt from semver: a build script needs none of it
//! ([`crate::Builder`], [`crate::load`], [`crate::diagnostics`] and [`crate::model`] are the
//! library's front door), and these modules change with the command line.

pub mod diff;
pub mod emit;
pub mod eval;
pub mod import;
pub mod lint;
pub mod plan;
pub mod spec;
pub mod stats;
