//! What a tool's served definition says: the texts generated code writes into its
//! `ToolDefinition`, worked out in one place. The Rust emitter writes them and the gauntlet
//! emitter digests them, so the digests a gauntlet checks are those of what the server was
//! generated to serve.

use toolspec_runtime::engine::digest::DefinitionText;

use super::Annotations;
use super::schema::{self, Profile};
use crate::model::describe::tool_description;
use crate::model::{Tool, ToolSet};

/// The served parts of one tool's definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Human title.
    pub title: String,
    /// The description the model reads ([`tool_description`]).
    pub description: String,
    /// MCP behaviour hints.
    pub annotations: Annotations,
    /// Deprecated names still answered.
    pub aliases: Vec<String>,
    /// The scopes a caller's token must grant (never in `tools/list`).
    pub scopes: Vec<String>,
    /// A valid call, as compact JSON.
    pub example_call: String,
    /// The input schema (standard profile), as compact JSON.
    pub input_schema: String,
    /// The output schema, as compact JSON.
    pub output_schema: String,
    /// What `tools/list` publishes of it, as compact JSON (empty for none).
    pub listed_output_schema: String,
    /// Its group's name and whether the group loads up front, when the spec has groups.
    pub group: Option<(String, bool)>,
}

impl Definition {
    /// The definition of `t`, a tool of `ts`.
    pub fn of(ts: &ToolSet, t: &Tool) -> Self {
        let output = schema::output_schema(t);
        Definition {
            title: t.title.text.clone(),
            description: tool_description(t),
            annotations: Annotations::of(t),
            aliases: t.aliases.iter().map(|a| a.text.clone()).collect(),
            scopes: t.scopes.iter().map(|s| s.text.clone()).collect(),
            example_call: t.example_call().to_string(),
            input_schema: schema::input_schema(t, Profile::Standard).to_string(),
            listed_output_schema: schema::published_output_schema_of(t, &output)
                .map(|s| s.to_string())
                .unwrap_or_default(),
            output_schema: output.to_string(),
            group: ts.group_of(t).map(|g| (g.name.text.clone(), g.up_front)),
        }
    }

    /// Its digests, part by part (`toolspec_runtime::engine::digest`), as the gauntlet
    /// compares them with the served definition's.
    pub fn digests(&self) -> [String; 10] {
        let aliases: Vec<&str> = self.aliases.iter().map(String::as_str).collect();
        let scopes: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
        DefinitionText {
            title: &self.title,
            description: &self.description,
            annotations: self.annotations.runtime(),
            aliases: &aliases,
            scopes: &scopes,
            example_call: &self.example_call,
            input_schema: &self.input_schema,
            output_schema: &self.output_schema,
            listed_output_schema: &self.listed_output_schema,
            group: self.group.as_ref().map(|(name, up)| (name.as_str(), *up)),
        }
        .digests()
    }
}
