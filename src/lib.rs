//! toolspec: compile one YAML spec of AI-agent tools into everything that serves them.
pub mod builder;
pub mod cli;
pub mod diagnostics;
pub mod diff;
pub mod emit;
pub mod lint;
pub mod model;
pub mod spec;
pub mod stats;

pub use builder::{BuildError, Builder};
