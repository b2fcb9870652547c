//! Digests of the parts of a tool definition, so a gauntlet generated from a spec can tell,
//! part by part, whether the server it tests was generated from the same spec without
//! carrying a second copy of every definition.
//!
//! The generator computes them from the texts it writes into the definition; the gauntlet
//! computes them again from the served [`ToolDefinition`]. JSON Schemas are digested in
//! their canonical form ([`canonical_json`]), so a hand-written definition that says the
//! same with other whitespace or key order matches.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Annotations, ToolDefinition};
use crate::fingerprint::canonical_json;

/// The parts digested, in the order [`DefinitionText::digests`] returns them.
pub const PARTS: [&str; 10] = [
    "title",
    "description",
    "annotations",
    "deprecated aliases",
    "scopes",
    "example call",
    "input schema",
    "output schema",
    "listed output schema",
    "group",
];

/// The served parts of one tool definition, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct DefinitionText<'a> {
    /// Human title.
    pub title: &'a str,
    /// The description the model reads.
    pub description: &'a str,
    /// MCP annotations.
    pub annotations: Annotations,
    /// Old names still answered.
    pub aliases: &'a [&'a str],
    /// The scopes a caller's token must grant.
    pub scopes: &'a [&'a str],
    /// A valid call, as JSON text.
    pub example_call: &'a str,
    /// JSON Schema of the arguments, as JSON text.
    pub input_schema: &'a str,
    /// JSON Schema of the result, as JSON text.
    pub output_schema: &'a str,
    /// What `tools/list` publishes of it, as JSON text (empty for none).
    pub listed_output_schema: &'a str,
    /// Its group's name and whether the group loads up front, when the spec has groups.
    pub group: Option<(&'a str, bool)>,
}

impl DefinitionText<'_> {
    /// One digest per part of [`PARTS`]: 16 hex digits (64 bits of SHA-256) each, enough
    /// to tell a stale definition from a current one.
    pub fn digests(&self) -> [String; 10] {
        let a = self.annotations;
        let annotations = format!(
            "read_only={} destructive={} idempotent={} open_world={}",
            a.read_only, a.destructive, a.idempotent, a.open_world
        );
        // A set: which scopes are needed, not the order they were written in.
        let mut scopes = self.scopes.to_vec();
        scopes.sort_unstable();
        let group = self
            .group
            .map(|(name, up_front)| format!("{name} up_front={up_front}"))
            .unwrap_or_default();
        [
            short(self.title),
            short(self.description),
            short(&annotations),
            short(&self.aliases.join("\n")),
            short(&scopes.join(" ")),
            short(&json_text(self.example_call)),
            short(&json_text(self.input_schema)),
            short(&json_text(self.output_schema)),
            short(&json_text(self.listed_output_schema)),
            short(&group),
        ]
    }
}

impl ToolDefinition {
    /// Its served parts, for [`DefinitionText::digests`].
    pub fn text(&self) -> DefinitionText<'static> {
        DefinitionText {
            title: self.title,
            description: self.description,
            annotations: self.annotations,
            aliases: self.deprecated_aliases,
            scopes: self.scopes,
            example_call: self.example_call,
            input_schema: self.input_schema,
            output_schema: self.output_schema,
            listed_output_schema: self.listed_output_schema,
            group: self.group.map(|g| (g.name, g.up_front)),
        }
    }
}

/// JSON text in canonical form; text that is not JSON is digested as it is.
fn json_text(text: &str) -> String {
    serde_json::from_str::<Value>(text).map_or_else(|_| text.to_owned(), |v| canonical_json(&v))
}

fn short(text: &str) -> String {
    let hex = crate::random::hex(&Sha256::digest(text.as_bytes()));
    hex[..16].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<'a>(input_schema: &'a str) -> DefinitionText<'a> {
        DefinitionText {
            title: "Search",
            description: "Searches.",
            annotations: Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: false,
            },
            aliases: &[],
            scopes: &[],
            example_call: r#"{"q":"x"}"#,
            input_schema,
            output_schema: "{}",
            listed_output_schema: "{}",
            group: None,
        }
    }

    #[test]
    fn a_tool_moved_to_another_group_or_loaded_otherwise_is_a_changed_group() {
        let group = |group| {
            DefinitionText {
                group,
                ..text("{}")
            }
            .digests()[9]
                .clone()
        };
        assert_eq!(PARTS[9], "group");
        assert_ne!(group(Some(("pulls", true))), group(Some(("issues", true))));
        assert_ne!(group(Some(("pulls", true))), group(Some(("pulls", false))));
        assert_ne!(group(Some(("pulls", true))), group(None));
        assert_eq!(group(Some(("pulls", false))), group(Some(("pulls", false))));
    }

    #[test]
    fn schemas_are_compared_as_json_and_each_part_on_its_own() {
        let a = text(r#"{"type":"object","required":["q"]}"#).digests();
        let b = text("{ \"required\": [\"q\"],\n  \"type\": \"object\" }").digests();
        assert_eq!(a, b);
        let c = text(r#"{"type":"object"}"#).digests();
        let differ: Vec<&str> = PARTS
            .iter()
            .zip(a.iter().zip(&c))
            .filter(|(_, (x, y))| x != y)
            .map(|(p, _)| *p)
            .collect();
        assert_eq!(differ, ["input schema"]);
        assert!(a.iter().all(|d| d.len() == 16));
    }

    #[test]
    fn scopes_are_digested_as_a_set() {
        let read = ["tickets:read", "tickets:admin"];
        let swapped = ["tickets:admin", "tickets:read"];
        let one = ["tickets:read"];
        let with = |scopes| {
            DefinitionText {
                scopes,
                ..text("{}")
            }
            .digests()[4]
                .clone()
        };
        assert_eq!(PARTS[4], "scopes");
        assert_eq!(with(&read), with(&swapped));
        assert_ne!(with(&read), with(&one));
        assert_ne!(with(&one), with(&[]));
    }
}
