//! Drafts from what a team already has: `toolspec import openapi` turns an OpenAPI document
//! into a spec that checks, with every fact the document states carried into the spec's own
//! constructs and what it does not state marked for a person to finish.

pub mod openapi;
pub mod report;
pub mod yaml;

pub use report::{Note, Report};
