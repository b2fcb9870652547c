//! Pure conversions between the engine's types and rmcp's model: tool definitions into
//! `tools/list` entries, call outcomes into `tools/call` results.

use std::fmt;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use toolspec_core::ToolError;
use toolspec_core::engine::{Annotations, Hint, ToolDefinition, unknown_tool};

/// The `_meta` key of a result produced through a deprecated alias. Its value is
/// `{"called": "<alias>", "use": "<canonical name>"}`.
pub const ALIAS_META_KEY: &str = "toolspec/deprecated_alias";

/// The `_meta` key of a tool that hosts should load on every turn rather than defer until a
/// search finds it: set on the tools of a spec's `up_front` groups.
pub const ALWAYS_LOAD_META_KEY: &str = "anthropic/alwaysLoad";

/// A tool definition that cannot be served: found when the server is built, so a broken
/// table fails at startup instead of making clients reject the whole `tools/list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError {
    /// The tool (or alias) at fault.
    pub tool: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool '{}': {}", self.tool, self.problem)
    }
}

impl std::error::Error for DefinitionError {}

/// The `tools/list` entries for `definitions`, in their order, after checking what MCP
/// clients rely on: names of 1-128 characters from `A-Z a-z 0-9 _ - .`, unique across tools
/// and aliases; input and output schemas that are JSON objects with `"type": "object"` at
/// the root. An empty `listed_output_schema` means the list publishes none.
pub fn tool_list(definitions: &[ToolDefinition]) -> Result<Vec<Tool>, DefinitionError> {
    let mut seen: Vec<&str> = Vec::new();
    let mut tools = Vec::with_capacity(definitions.len());
    for def in definitions {
        for name in std::iter::once(&def.name).chain(def.deprecated_aliases) {
            check_name(name)?;
            if seen.contains(name) {
                return Err(problem(
                    name,
                    "the name is used twice (as a tool or an alias)",
                ));
            }
            seen.push(name);
        }
        tools.push(to_tool(def)?);
    }
    Ok(tools)
}

fn to_tool(def: &ToolDefinition) -> Result<Tool, DefinitionError> {
    let input = object_schema(def.name, "input_schema", def.input_schema)?;
    let mut tool = Tool::new(def.name, def.description, Arc::new(input))
        .with_title(def.title)
        .with_annotations(annotations(&def.annotations));
    if def.group.is_some_and(|g| g.up_front) {
        // The spec loads this group on every turn: hosts that defer MCP tools until a
        // search finds them (Claude Code) keep it loaded.
        let mut meta = JsonObject::new();
        meta.insert(ALWAYS_LOAD_META_KEY.to_string(), Value::Bool(true));
        tool = tool.with_meta(MetaObject(meta));
    }
    if !def.listed_output_schema.trim().is_empty() {
        let output = object_schema(def.name, "listed_output_schema", def.listed_output_schema)?;
        tool = tool.with_raw_output_schema(Arc::new(output));
    }
    Ok(tool)
}

/// The hints [`Annotations::stated`] gives; the others are left to MCP's cautious defaults.
fn annotations(a: &Annotations) -> ToolAnnotations {
    a.stated()
        .into_iter()
        .fold(ToolAnnotations::new(), |hints, (hint, value)| match hint {
            Hint::ReadOnly => hints.read_only(value),
            Hint::Destructive => hints.destructive(value),
            Hint::Idempotent => hints.idempotent(value),
            Hint::OpenWorld => hints.open_world(value),
        })
}

fn object_schema(tool: &str, which: &str, text: &str) -> Result<JsonObject, DefinitionError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| problem(tool, &format!("{which} is not valid JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(problem(tool, &format!("{which} is not a JSON object")));
    };
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return Err(problem(
            tool,
            &format!("{which} must have \"type\": \"object\" at its root (MCP requires it)"),
        ));
    }
    Ok(map)
}

fn check_name(name: &str) -> Result<(), DefinitionError> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || name.len() > 128 || !name.chars().all(ok_char) {
        return Err(problem(
            name,
            "MCP tool names are 1-128 characters from A-Z a-z 0-9 _ - .",
        ));
    }
    Ok(())
}

fn problem(tool: &str, problem: &str) -> DefinitionError {
    DefinitionError {
        tool: tool.to_owned(),
        problem: problem.to_owned(),
    }
}

/// The sentence that tells the model to stop using a deprecated alias.
pub fn alias_note(alias: &str, canonical: &str) -> String {
    format!("Note: `{alias}` is deprecated; call `{canonical}` instead.")
}

/// `(alias called, canonical name)` of a call made through a deprecated alias.
pub(super) type AliasUse<'a> = Option<(&'a str, &'a str)>;

/// A successful call: `structuredContent` is the output unchanged (it must conform to the
/// output schema), and the same JSON is the first text block.
pub(super) fn success_result(
    structured: Value,
    content: Vec<Value>,
    alias: AliasUse<'_>,
) -> CallToolResult {
    let mut result = CallToolResult::structured(structured);
    // Images, audio, text and resource links the tool returns as content (already in
    // MCP's block shape); one the client library cannot read is left out, not faked.
    result.content.extend(
        content
            .into_iter()
            .filter_map(|block| serde_json::from_value::<ContentBlock>(block).ok()),
    );
    with_alias(result, alias)
}

/// A tool error the model reads: `isError: true`, the error as `structuredContent`, its
/// message as the first text block (what a host that shows only text gives the model) and
/// the whole error as JSON in the second (the serialized-structure block MCP asks for).
pub(super) fn error_result(error: &ToolError, alias: AliasUse<'_>) -> CallToolResult {
    let value = error.to_value();
    let mut result = CallToolResult::structured_error(value.clone());
    result.content = vec![
        ContentBlock::text(error.message.clone()),
        ContentBlock::text(value.to_string()),
    ];
    with_alias(result, alias)
}

fn with_alias(mut result: CallToolResult, alias: AliasUse<'_>) -> CallToolResult {
    let Some((called, canonical)) = alias else {
        return result;
    };
    result
        .content
        .push(ContentBlock::text(alias_note(called, canonical)));
    let mut meta = result.meta.take().unwrap_or_default();
    meta.insert(
        ALIAS_META_KEY.to_owned(),
        json!({ "called": called, "use": canonical }),
    );
    result.with_meta(Some(meta))
}

/// The JSON-RPC error for a name that is neither a tool nor an alias: invalid params
/// (`-32602`), with the engine's `unknown_tool` message and the known names as data.
pub(super) fn unknown_tool_error(definitions: &[ToolDefinition], name: &str) -> ErrorData {
    let error = unknown_tool(definitions, name);
    ErrorData::invalid_params(error.message.clone(), Some(error.to_value()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolspec_core::validate::ObjectShape;

    static EMPTY: ObjectShape = ObjectShape::new(&[]);

    const fn def(name: &'static str, input: &'static str) -> ToolDefinition {
        ToolDefinition {
            name,
            title: "T",
            description: "D",
            input_schema: input,
            output_schema: r#"{"type":"object"}"#,
            listed_output_schema: r#"{"type":"object"}"#,
            annotations: Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: false,
            },
            deprecated_aliases: &["old_name"],
            scopes: &[],
            input: &EMPTY,
            example_call: "{}",
            group: None,
        }
    }

    #[test]
    fn hints_are_stated_where_they_differ_from_the_defaults() {
        let tools = tool_list(&[def("a_get", r#"{"type":"object"}"#)]).unwrap();
        let json = serde_json::to_value(&tools[0]).unwrap();
        // A read: destructive and idempotent mean nothing for it; closed world is stated.
        assert_eq!(
            json["annotations"],
            json!({"readOnlyHint": true, "openWorldHint": false})
        );
        assert_eq!(json["title"], "T");
        assert_eq!(json["outputSchema"], json!({"type": "object"}));

        let hints = |a: Annotations| {
            let mut d = def("a_set", r#"{"type":"object"}"#);
            d.annotations = a;
            let tools = tool_list(&[d]).unwrap();
            serde_json::to_value(&tools[0]).unwrap()["annotations"].clone()
        };
        let write = Annotations {
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: true,
        };
        // A write always says whether it destroys; the rest are MCP's defaults.
        assert_eq!(hints(write), json!({"destructiveHint": false}));
        let delete = Annotations {
            destructive: true,
            idempotent: true,
            ..write
        };
        assert_eq!(
            hints(delete),
            json!({"destructiveHint": true, "idempotentHint": true})
        );
    }

    #[test]
    fn the_list_publishes_the_listed_output_schema_or_none() {
        let mut d = def("a_get", r#"{"type":"object"}"#);
        d.output_schema = r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}"#;
        d.listed_output_schema = r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#;
        let json = serde_json::to_value(&tool_list(&[d]).unwrap()[0]).unwrap();
        assert_eq!(
            json["outputSchema"],
            json!({"type": "object", "properties": {"n": {"type": "integer"}}})
        );
        d.listed_output_schema = "";
        let json = serde_json::to_value(&tool_list(&[d]).unwrap()[0]).unwrap();
        assert!(json.get("outputSchema").is_none(), "{json}");
    }

    #[test]
    fn broken_definitions_are_refused_with_the_tool_named() {
        let bad_json = tool_list(&[def("a_get", "{")]).unwrap_err();
        assert_eq!(bad_json.tool, "a_get");
        assert!(bad_json.problem.contains("not valid JSON"), "{bad_json}");
        let not_object = tool_list(&[def("a_get", r#"{"type":"array"}"#)]).unwrap_err();
        assert!(not_object.problem.contains("\"type\": \"object\""));
        let bad_name = tool_list(&[def("a get", r#"{"type":"object"}"#)]).unwrap_err();
        assert_eq!(bad_name.tool, "a get");
        let twice = tool_list(&[
            def("a_get", r#"{"type":"object"}"#),
            def("b_get", r#"{"type":"object"}"#),
        ])
        .unwrap_err();
        assert_eq!(twice.tool, "old_name");
    }

    #[test]
    fn alias_note_goes_to_text_and_meta_not_structured_content() {
        let r = success_result(json!({"id": 1}), Vec::new(), Some(("old", "new")));
        assert_eq!(r.structured_content, Some(json!({"id": 1})));
        assert_eq!(r.content.len(), 2);
        let note = r.content[1].as_text().unwrap().text.clone();
        assert_eq!(note, "Note: `old` is deprecated; call `new` instead.");
        let meta = r.meta.unwrap();
        assert_eq!(
            meta.get(ALIAS_META_KEY),
            Some(&json!({"called": "old", "use": "new"}))
        );
    }

    #[test]
    fn error_result_has_message_then_json() {
        let e = ToolError::new("not_found", "No ticket T-9.", false, json!({"id": "T-9"}));
        let r = error_result(&e, None);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.structured_content, Some(e.to_value()));
        assert_eq!(r.content[0].as_text().unwrap().text, "No ticket T-9.");
        let parsed: Value = serde_json::from_str(&r.content[1].as_text().unwrap().text).unwrap();
        assert_eq!(parsed, e.to_value());
    }
}
