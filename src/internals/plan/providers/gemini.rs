//! Gemini function declarations: the `tools` array of a `generateContent` request,
//! `[{"functionDeclarations": [{"name", "description", "parameters"}]}]`.
//!
//! `parameters` is Gemini's OpenAPI 3.0 subset ([`Profile::Gemini`]): one `type` per schema,
//! `nullable: true` for a field that takes `null`, `anyOf` alone in its schema (a union's
//! description goes into each variant), `items` on every array, no `$ref`, no
//! `additionalProperties`; rules it drops (`format` other than `date-time`, a map's key
//! rules) are said in words. A tool without parameters has no `parameters`.
//!
//! A tool whose keys are data (a map or a free-form object, [`schema::open_objects`]) cannot
//! be written in that subset, whose objects take only the properties they list: it is
//! declared with `parametersJsonSchema`, Gemini's JSON Schema alternative, holding the
//! standard input schema.
//!
//! One declaration Gemini refuses fails every request that carries the list, so each one is
//! held to the subset by [`problems`] before the file is written; a toolset with any problem
//! gets no Gemini list, and a warning says why.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::ToolSet;
use crate::plan::providers::Prepared;
use crate::plan::schema::{self, Profile};
use serde::Serialize;
use serde_json::{Map, Value};

/// Longest function name every Gemini endpoint takes (the Developer API says 63, Vertex 64).
pub const MAX_NAME: usize = 63;

/// The request's `tools` array: one tool holding every function declaration.
#[derive(Debug, Serialize)]
pub struct GeminiTools<'a> {
    /// The declarations, in spec order.
    #[serde(rename = "functionDeclarations")]
    pub function_declarations: Vec<Declaration<'a>>,
}

/// One function declaration.
#[derive(Debug, Serialize)]
pub struct Declaration<'a> {
    /// Function name.
    pub name: &'a str,
    /// The description agents read.
    pub description: &'a str,
    /// Arguments in Gemini's OpenAPI subset; absent for a tool without parameters or one
    /// declared with `parametersJsonSchema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Arguments as JSON Schema, for a tool the subset cannot describe.
    #[serde(
        rename = "parametersJsonSchema",
        skip_serializing_if = "Option::is_none"
    )]
    pub parameters_json_schema: Option<Value>,
}

impl<'a> From<&'a Prepared<'a>> for Declaration<'a> {
    fn from(p: &'a Prepared<'a>) -> Self {
        let t = p.tool;
        let (parameters, parameters_json_schema) = if t.params.is_empty() {
            (None, None)
        } else if schema::open_objects(&t.params).is_empty() {
            (Some(schema::input_schema(t, Profile::Gemini)), None)
        } else {
            (None, Some(p.input.clone()))
        };
        Declaration {
            name: &t.name.text,
            description: &p.description,
            parameters,
            parameters_json_schema,
        }
    }
}

/// The request's `tools` array for `prepared`, as a JSON value. Gemini has no deferred
/// loading: pass the tools loaded up front ([`crate::model::ToolSet::up_front`]).
pub fn tools<'a>(prepared: impl IntoIterator<Item = &'a Prepared<'a>>) -> Value {
    let list = [GeminiTools {
        function_declarations: prepared.into_iter().map(Declaration::from).collect(),
    }];
    serde_json::to_value(list).unwrap_or(Value::Null)
}

/// Everything in a toolset's Gemini list (its tools loaded up front) that Gemini would
/// refuse, each at its tool in the spec: a name outside its rules, or a declaration outside
/// its schema subset ([`problems`]). `prepared`: its tools, in spec order.
pub fn check(ts: &ToolSet, prepared: &[Prepared]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for p in prepared.iter().filter(|p| ts.up_front(p.tool)) {
        let t = p.tool;
        let name = &t.name.text;
        if !name_ok(name) {
            diags.push(
                Diagnostic::error(
                    "gemini-invalid-name",
                    t.name.span,
                    format!("Gemini refuses the function name `{name}`"),
                )
                .label("not a letter or `_`, then up to 62 letters, digits, `_`, `-`")
                .help("rename the tool, like `service_verb` in snake_case"),
            );
        }
        let declaration = serde_json::to_value(Declaration::from(p)).unwrap_or(Value::Null);
        for problem in problems(&declaration) {
            diags.push(
                Diagnostic::error(
                    "gemini-invalid-declaration",
                    t.name.span,
                    format!("`{name}`'s Gemini declaration would be refused: {problem}"),
                )
                .label("this tool")
                .help("this is a toolspec bug; please report it with the spec"),
            );
        }
    }
    diags
}

fn name_ok(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && super::name_ok(name, MAX_NAME, &['_', '-'])
}

/// Keywords a schema of the OpenAPI subset may hold.
const SUBSET_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "properties",
    "required",
    "anyOf",
    "default",
    "propertyOrdering",
];

/// What Gemini would refuse in one declaration, each as `where: what` (empty when it takes
/// it). The rules are the subset's, checked hard because one refused declaration fails every
/// request: known fields only, `parameters` or `parametersJsonSchema` but not both, and in
/// `parameters` only the subset's keywords, a single string `type` on every schema but a
/// lone `anyOf`, string-only `enum`, `items` on every array, non-empty `properties` on every
/// object, `required` naming listed properties, formats the subset has, and property names
/// of letters, digits and `_`. A `parametersJsonSchema` must be an object schema without
/// `$ref`.
pub fn problems(declaration: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(d) = declaration.as_object() else {
        return vec!["the declaration is not an object".into()];
    };
    for k in d.keys() {
        if !["name", "description", "parameters", "parametersJsonSchema"].contains(&k.as_str()) {
            out.push(format!("`{k}` is not a declaration field"));
        }
    }
    if !d.get("name").and_then(Value::as_str).is_some_and(name_ok) {
        out.push("name: not a valid function name".into());
    }
    match (d.get("parameters"), d.get("parametersJsonSchema")) {
        (Some(_), Some(_)) => out.push("both parameters and parametersJsonSchema".into()),
        (Some(p), None) => {
            if p.get("type").and_then(Value::as_str) != Some("object") {
                out.push("parameters: the root is not an object".into());
            }
            subset_problems(p, "parameters", &mut out);
        }
        (None, Some(j)) => {
            if j.get("type").and_then(Value::as_str) != Some("object") {
                out.push("parametersJsonSchema: the root is not an object".into());
            }
            if j.to_string().contains("\"$ref\"") {
                out.push("parametersJsonSchema: holds a $ref".into());
            }
        }
        (None, None) => {}
    }
    out
}

fn subset_problems(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        out.push(format!("{at}: not a schema object"));
        return;
    };
    for k in s.keys() {
        if !SUBSET_KEYWORDS.contains(&k.as_str()) {
            out.push(format!("{at}: `{k}` is not in Gemini's schema subset"));
        }
    }
    if let Some(any) = s.get("anyOf") {
        if s.len() > 1 {
            out.push(format!(
                "{at}: anyOf has siblings; Gemini takes it only alone"
            ));
        }
        match any.as_array() {
            Some(variants) if !variants.is_empty() => {
                for (i, v) in variants.iter().enumerate() {
                    subset_problems(v, &format!("{at}.anyOf[{i}]"), out);
                }
            }
            _ => out.push(format!("{at}: anyOf is not a non-empty list")),
        }
        return;
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => {
            out.push(format!("{at}: type is not one string"));
            return;
        }
        None => {
            out.push(format!("{at}: no type"));
            return;
        }
    };
    if !["string", "number", "integer", "boolean", "array", "object"].contains(&ty) {
        out.push(format!("{at}: type `{ty}` is not in the subset"));
    }
    if let Some(e) = s.get("enum") {
        let strings = e
            .as_array()
            .is_some_and(|v| !v.is_empty() && v.iter().all(Value::is_string));
        if ty != "string" || !strings {
            out.push(format!("{at}: enum is not a list of strings on a string"));
        }
    }
    if let Some(f) = s.get("format").and_then(Value::as_str) {
        let known: &[&str] = match ty {
            "string" => &["date-time", "enum"],
            "integer" => &["int32", "int64"],
            "number" => &["float", "double"],
            _ => &[],
        };
        if !known.contains(&f) {
            out.push(format!("{at}: format `{f}` is not one Gemini has for {ty}"));
        }
    }
    if s.get("nullable").is_some_and(|n| !n.is_boolean()) {
        out.push(format!("{at}: nullable is not a boolean"));
    }
    match ty {
        "array" => match s.get("items") {
            Some(items) => subset_problems(items, &format!("{at}.items"), out),
            None => out.push(format!("{at}: an array without items")),
        },
        "object" => object_problems(s, at, out),
        _ => {}
    }
}

fn object_problems(s: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        out.push(format!("{at}: an object without properties"));
        return;
    };
    if props.is_empty() {
        out.push(format!("{at}: an object with empty properties"));
    }
    for (name, p) in props {
        let ok = name.len() <= 64
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            out.push(format!(
                "{at}: property name `{name}` is not letters, digits and _"
            ));
        }
        subset_problems(p, &format!("{at}.{name}"), out);
    }
    if let Some(req) = s.get("required") {
        match req.as_array() {
            Some(names) => {
                for n in names {
                    if !n.as_str().is_some_and(|n| props.contains_key(n)) {
                        out.push(format!("{at}: required names {n}, not a property"));
                    }
                }
            }
            None => out.push(format!("{at}: required is not a list")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decl(parameters: Value) -> Value {
        json!({"name": "svc_do", "description": "Does.", "parameters": parameters})
    }

    #[test]
    fn a_declaration_in_the_subset_passes() {
        let d = decl(json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time", "nullable": true},
                "ids": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "scope": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "required": ["ids"]
        }));
        assert_eq!(problems(&d), Vec::<String>::new());
    }

    #[test]
    fn each_rule_of_the_subset_is_held() {
        let cases = [
            (
                json!({"type": ["string", "null"]}),
                "type is not one string",
            ),
            (
                json!({"anyOf": [{"type": "string"}], "description": "x"}),
                "anyOf has siblings",
            ),
            (json!({"type": "array"}), "an array without items"),
            (json!({"type": "object"}), "an object without properties"),
            (
                json!({"type": "string", "format": "email"}),
                "format `email`",
            ),
            (
                json!({"type": "string", "additionalProperties": false}),
                "`additionalProperties`",
            ),
            (
                json!({"type": "integer", "enum": [1, 2]}),
                "enum is not a list of strings",
            ),
            (json!({"$ref": "#/$defs/x"}), "`$ref` is not in"),
            (json!({"type": "null"}), "type `null`"),
        ];
        for (schema, expected) in cases {
            let d = decl(json!({"type": "object", "properties": {"p": schema}}));
            let found = problems(&d);
            assert!(
                found.iter().any(|p| p.contains(expected)),
                "{schema}: {found:?} lacks {expected}"
            );
        }
        let d = decl(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}),
        );
        assert!(problems(&d)[0].contains("required names \"b\""));
        let d = decl(json!({"type": "object", "properties": {"a-b": {"type": "string"}}}));
        assert!(problems(&d)[0].contains("property name `a-b`"));
        let both =
            json!({"name": "x", "description": "", "parameters": {}, "parametersJsonSchema": {}});
        assert!(problems(&both).iter().any(|p| p.contains("both")));
        assert!(problems(&json!({"name": "9x", "description": ""}))[0].contains("name"));
    }
}
