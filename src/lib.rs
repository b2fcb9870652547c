//! toolspec: compile one YAML spec of AI-agent tools into everything that serves them.
pub mod cli;
pub mod diagnostics;
pub mod emit;
pub mod model;
pub mod spec;
