//! OpenAI function tools, strict: the Chat Completions `tools` array.
//!
//! Each entry is `{"type": "function", "function": {"name", "description", "parameters",
//! "strict": true}}`, the Chat Completions shape. The Responses API takes the same fields one
//! level up (`{"type": "function", "name", ...}`); move them out of `function` to use it.
//!
//! `parameters` is the OpenAI strict profile of the input schema
//! ([`Profile::OpenAiStrict`]): every property required, optional ones nullable. A `null`
//! argument means "omitted" to the runtime, so the same server serves both profiles.
//! A tool that strict mode cannot describe ([`schema::strict_blockers`]: a free-form object
//! or a map, whose keys are data, or an optional field that `null` clears) is exported with
//! `"strict": false` and the standard schema, which keeps every fact as a keyword, rather
//! than refused: the call still works, only without OpenAI's guarantee that arguments match
//! the schema. The docs page of the tool says why.
//!
//! What OpenAI refuses is reported as a diagnostic before any file is written:
//! names outside `^[a-zA-Z0-9_-]{1,64}$`, descriptions over 1,024 characters, more than 128
//! tools, and per function schema more than 10 levels of nesting, 5,000 properties, 1,000
//! enum values, or 120,000 characters of property names and enum values (and, for one enum of
//! over 250 values, over 15,000 characters of them).

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::describe::tool_description;
use crate::model::{Field, Kind, Tool, ToolSet, Type};
use crate::plan::providers::Prepared;
use crate::plan::schema::{self, Profile};
use serde::Serialize;
use serde_json::Value;

/// Longest function name.
pub const MAX_NAME: usize = 64;
/// Longest function description, in characters.
pub const MAX_DESCRIPTION: usize = 1024;
/// Most functions in one request.
pub const MAX_TOOLS: usize = 128;
/// Deepest nesting of a strict schema (the root object is level 1).
pub const MAX_DEPTH: usize = 10;
/// Most object properties in one strict schema.
pub const MAX_PROPERTIES: usize = 5000;
/// Most enum values in one strict schema.
pub const MAX_ENUM_VALUES: usize = 1000;
/// Most characters of property names and enum values in one strict schema.
pub const MAX_SCHEMA_CHARS: usize = 120_000;
/// Most characters of the values of one enum that has over 250 values.
pub const MAX_LARGE_ENUM_CHARS: usize = 15_000;

/// One entry of the Chat Completions `tools` array.
#[derive(Debug, Serialize)]
pub struct OpenAiTool<'a> {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The function.
    pub function: Function<'a>,
}

/// A function definition.
#[derive(Debug, Serialize)]
pub struct Function<'a> {
    /// Function name.
    pub name: &'a str,
    /// The description agents read.
    pub description: &'a str,
    /// Arguments schema, OpenAI strict profile.
    pub parameters: Value,
    /// Whether OpenAI guarantees arguments match `parameters` (false when
    /// [`schema::strict_blockers`] names a reason).
    pub strict: bool,
}

impl<'a> OpenAiTool<'a> {
    /// The entry of `tool`, whose [`tool_description`] is `description`.
    pub fn new(tool: &'a Tool, description: &'a str) -> Self {
        let profile = if schema::strict_blockers(&tool.params).is_empty() {
            Profile::OpenAiStrict
        } else {
            Profile::Standard
        };
        OpenAiTool {
            kind: "function",
            function: Function {
                name: &tool.name.text,
                description,
                parameters: schema::input_schema(tool, profile),
                strict: profile == Profile::OpenAiStrict,
            },
        }
    }
}

impl<'a> From<&'a Prepared<'a>> for OpenAiTool<'a> {
    fn from(p: &'a Prepared<'a>) -> Self {
        OpenAiTool::new(p.tool, &p.description)
    }
}

/// One tool's entry in the Chat Completions `tools` array, as a JSON value.
pub fn tool(t: &Tool) -> Value {
    let description = tool_description(t);
    serde_json::to_value(OpenAiTool::new(t, &description)).unwrap_or(Value::Null)
}

/// Everything in the Chat Completions list of a toolset (its tools loaded up front) that
/// OpenAI would refuse, each at its place in the spec.
pub fn check(ts: &ToolSet) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let listed: Vec<&Tool> = ts.tools.iter().filter(|t| ts.up_front(t)).collect();
    for t in &listed {
        check_tool(t, &mut diags);
    }
    if let Some(first_over) = listed.get(MAX_TOOLS) {
        let help = if ts.groups.is_empty() {
            "group the tools (`groups`) and load a few groups up front, or split the toolset into several specs"
        } else {
            "mark fewer groups `up_front`: the others reach OpenAI through tool search (tools.openai-responses.json)"
        };
        diags.push(
            Diagnostic::error(
                "openai-too-many-tools",
                first_over.name.span,
                format!(
                    "`{}` loads {} tools up front; OpenAI accepts at most {MAX_TOOLS} in one request",
                    ts.service.text,
                    listed.len()
                ),
            )
            .label(format!("tool number {}", MAX_TOOLS + 1))
            .help(help),
        );
    }
    diags
}

/// What OpenAI would refuse in each function of a toolset, wherever it is listed: names,
/// descriptions and schemas past its limits.
pub fn check_tools(ts: &ToolSet) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for t in &ts.tools {
        check_tool(t, &mut diags);
    }
    diags
}

fn check_tool(t: &Tool, diags: &mut Diagnostics) {
    let name = &t.name.text;
    if !super::name_ok(name, MAX_NAME, &['_', '-']) {
        diags.push(
            Diagnostic::error(
                "openai-invalid-name",
                t.name.span,
                format!("OpenAI refuses the function name `{name}`"),
            )
            .label("not 1-64 characters of letters, digits, `_`, `-`")
            .help("rename the tool, like `service_verb` in snake_case"),
        );
    }
    let chars = tool_description(t).chars().count();
    if chars > MAX_DESCRIPTION {
        diags.push(
            Diagnostic::error(
                "openai-description-too-long",
                t.name.span,
                format!(
                    "the description of `{name}` is {chars} characters; OpenAI accepts at most {MAX_DESCRIPTION}"
                ),
            )
            .label("description composed from summary, returns, use_when, not_for and the tool's settings")
            .help(format!(
                "shorten summary, returns or use_when by {} characters, or drop a not_for entry",
                chars - MAX_DESCRIPTION
            )),
        );
    }
    let depth = 1 + t.params.iter().map(|f| f.ty.depth()).max().unwrap_or(0);
    if depth > MAX_DEPTH {
        diags.push(
            Diagnostic::error(
                "openai-too-deep",
                t.name.span,
                format!("the parameters of `{name}` nest {depth} levels; OpenAI strict mode accepts {MAX_DEPTH}"),
            )
            .label("parameters nest too deeply")
            .help("flatten nested objects into fewer levels"),
        );
    }
    let mut tally = Tally::default();
    tally.fields(&t.params, diags);
    let over = [
        (tally.properties, MAX_PROPERTIES, "properties"),
        (tally.enum_values, MAX_ENUM_VALUES, "enum values"),
        (
            tally.chars,
            MAX_SCHEMA_CHARS,
            "characters of property names and enum values",
        ),
    ];
    for (n, max, what) in over {
        if n > max {
            diags.push(
                Diagnostic::error(
                    "openai-schema-too-large",
                    t.name.span,
                    format!("the parameters of `{name}` have {n} {what}; OpenAI strict mode accepts {max}"),
                )
                .label("schema over OpenAI's limit")
                .help("split the tool, or replace a long enum by a string the tool checks itself"),
            );
        }
    }
}

/// Counts of one function schema, as OpenAI limits them.
#[derive(Default)]
struct Tally {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl Tally {
    fn fields(&mut self, fields: &[Field], diags: &mut Diagnostics) {
        for f in fields {
            self.properties += 1;
            self.chars += f.name.chars().count();
            self.ty(&f.ty, f, diags);
        }
    }

    fn ty(&mut self, ty: &Type, f: &Field, diags: &mut Diagnostics) {
        match &ty.kind {
            Kind::String(r) => {
                if let Some(values) = &r.enum_values {
                    let chars: usize = values.iter().map(|v| v.chars().count()).sum();
                    self.enum_values += values.len();
                    self.chars += chars;
                    if values.len() > 250 && chars > MAX_LARGE_ENUM_CHARS {
                        diags.push(
                            Diagnostic::error(
                                "openai-schema-too-large",
                                f.span,
                                format!(
                                    "`{}` has {} enum values of {chars} characters; OpenAI strict mode accepts {MAX_LARGE_ENUM_CHARS} characters for an enum of over 250 values",
                                    f.name,
                                    values.len()
                                ),
                            )
                            .label("enum over OpenAI's limit")
                            .help("shorten the values, or make it a string the tool checks itself"),
                        );
                    }
                }
            }
            // OpenAI counts every enum value; only string values count toward the characters.
            Kind::Integer {
                enum_values: Some(values),
                ..
            } => self.enum_values += values.len(),
            Kind::Array { items, .. } => self.ty(items, f, diags),
            Kind::Map { values, .. } => self.ty(values, f, diags),
            Kind::Object { fields, .. } => self.fields(fields, diags),
            _ => {}
        }
    }
}
