//! Schema: the served definition is the spec's, and the validator enforces what it says.

use serde_json::{Value, json};

use super::Ctx;
use crate::gauntlet::facts::{ParamFacts, Range};
use crate::gauntlet::failure::Failure;
use crate::gauntlet::session::parse;
use crate::validate::{Field, Shape};

const PROMISE: &str = "the served tool definition is the one the spec describes";

/// Compares the served definition with the facts and lists every difference.
pub(crate) fn matches_spec(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let session = ctx.session()?;
    let tool = ctx.tool;
    let Some(def) = session.definition(tool.name) else {
        let served: Vec<&str> = session
            .server
            .definitions()
            .iter()
            .map(|d| d.name)
            .collect();
        return Err(Failure::new(PROMISE)
            .got(format!(
                "no tool {} among the served ones: {}",
                tool.name,
                served.join(", ")
            ))
            .expected(format!("a tool named {}", tool.name))
            .fix("regenerate the server code and the gauntlet from the same spec"));
    };
    let mut diffs = Vec::new();
    let same = |diffs: &mut Vec<String>, what: &str, served: String, spec: String| {
        if served != spec {
            diffs.push(format!("{what}: served {served}, spec {spec}"));
        }
    };
    same(
        &mut diffs,
        "title",
        json!(def.title).to_string(),
        json!(tool.title).to_string(),
    );
    same(
        &mut diffs,
        "description",
        json!(def.description).to_string(),
        json!(tool.description).to_string(),
    );
    same(
        &mut diffs,
        "annotations",
        format!("{:?}", def.annotations),
        format!("{:?}", tool.annotations),
    );
    same(
        &mut diffs,
        "deprecated aliases",
        format!("{:?}", def.deprecated_aliases),
        format!("{:?}", tool.aliases),
    );
    let served_out = parse(def.output_schema);
    let spec_out = parse(tool.output_schema);
    if served_out != spec_out {
        diffs.push(format!(
            "output schema differs: served {}, spec {}",
            crate::gauntlet::failure::show(&served_out),
            crate::gauntlet::failure::show(&spec_out)
        ));
    }

    let schema = parse(def.input_schema);
    let props = schema.get("properties").and_then(Value::as_object);
    // Schema properties are compared as sets (a JSON object's key order is not kept by
    // every parser); the validator's order, which its messages list, must be the spec's.
    let mut served_names: Vec<&str> = props
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    served_names.sort_unstable();
    let mut spec_names: Vec<&str> = tool.params.iter().map(|p| p.name).collect();
    spec_names.sort_unstable();
    same(
        &mut diffs,
        "parameters",
        format!("{served_names:?}"),
        format!("{spec_names:?}"),
    );
    let validator_order: Vec<&str> = def.input.fields.iter().map(|f| f.name).collect();
    let spec_order: Vec<&str> = tool.params.iter().map(|p| p.name).collect();
    same(
        &mut diffs,
        "parameter order of the validator",
        format!("{validator_order:?}"),
        format!("{spec_order:?}"),
    );
    let mut required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    required.sort_unstable();
    let mut spec_required: Vec<&str> = tool
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    spec_required.sort_unstable();
    same(
        &mut diffs,
        "required",
        format!("{required:?}"),
        format!("{spec_required:?}"),
    );
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        diffs.push(
            "the input schema does not refuse unknown arguments (additionalProperties: false)"
                .into(),
        );
    }

    for param in tool.params {
        if let Some(prop) = props.and_then(|p| p.get(param.name)) {
            schema_param(param, prop, &mut diffs);
        }
        match def.input.field(param.name) {
            Some(field) => shape_param(param, field, &mut diffs),
            None => diffs.push(format!(
                "parameter `{}`: the validator does not know it (calls with it are refused)",
                param.name
            )),
        }
    }
    for field in def.input.fields {
        if tool.param(field.name).is_none() {
            diffs.push(format!(
                "the validator accepts `{}`, which the spec does not declare",
                field.name
            ));
        }
    }

    if diffs.is_empty() {
        return Ok(());
    }
    Err(Failure::new(PROMISE)
        .got(diffs.join("; "))
        .expected(format!("the definition of {} generated from the spec", tool.name))
        .fix("regenerate the server code from the spec the gauntlet came from (or fix a hand-written ToolDefinition)"))
}

/// The schema keywords of one parameter against its facts.
fn schema_param(param: &ParamFacts, prop: &Value, diffs: &mut Vec<String>) {
    let mut check = |keyword: &str, spec: Option<Value>| {
        let served = prop.get(keyword).cloned();
        let equal = match (&served, &spec) {
            (Some(Value::Number(a)), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
            (a, b) => a == b,
        };
        if !equal {
            let show = |v: &Option<Value>| v.as_ref().map_or("none".into(), Value::to_string);
            diffs.push(format!(
                "parameter `{}`: schema {keyword} {}, spec {}",
                param.name,
                show(&served),
                show(&spec)
            ));
        }
    };
    check("type", Some(json!(param.json_type)));
    check(
        "enum",
        (!param.allowed.is_empty()).then(|| json!(param.allowed)),
    );
    let (min, max) = match param.range {
        Range::Integer(a, b) => (a.map(Value::from), b.map(Value::from)),
        Range::Number(a, b) => (a.map(|n| json!(n)), b.map(|n| json!(n))),
        Range::None => (None, None),
    };
    check("minimum", min);
    check("maximum", max);
    let (lo, hi) = if param.json_type == "array" {
        ("minItems", "maxItems")
    } else {
        ("minLength", "maxLength")
    };
    check(lo, param.min_length.map(Value::from));
    check(hi, param.max_length.map(Value::from));
    check("pattern", param.pattern.map(Value::from));
    check("format", param.format.map(Value::from));
    check("default", param.default.map(parse));
}

/// The validator's table for one parameter against its facts.
fn shape_param(param: &ParamFacts, field: &Field, diffs: &mut Vec<String>) {
    let mut same = |what: &str, served: String, spec: String| {
        if served != spec {
            diffs.push(format!(
                "parameter `{}`: the validator enforces {what} {served}, the spec says {spec}",
                param.name
            ));
        }
    };
    same(
        "required",
        field.required.to_string(),
        param.required.to_string(),
    );
    // A free-form object is `Any` to the validator: no type to compare.
    if !matches!(field.shape, Shape::Any) {
        same(
            "type",
            field.shape.type_name().to_string(),
            param.json_type.to_string(),
        );
    }
    same(
        "default",
        format!("{:?}", field.default.map(parse)),
        format!("{:?}", param.default.map(parse)),
    );
    match &field.shape {
        Shape::String(s) => {
            same(
                "allowed values",
                format!("{:?}", s.allowed),
                format!("{:?}", param.allowed),
            );
            same(
                "length",
                format!("{:?}..{:?}", s.min_length, s.max_length),
                format!("{:?}..{:?}", param.min_length, param.max_length),
            );
            same(
                "pattern",
                format!("{:?}", s.pattern.map(|p| p.source())),
                format!("{:?}", param.pattern),
            );
            same(
                "format",
                format!("{:?}", s.format.map(|f| f.name())),
                format!("{:?}", param.format),
            );
        }
        Shape::Integer { minimum, maximum } => same(
            "range",
            format!("{minimum:?}..{maximum:?}"),
            match param.range {
                Range::Integer(a, b) => format!("{a:?}..{b:?}"),
                _ => "None..None".into(),
            },
        ),
        Shape::Number { minimum, maximum } => same(
            "range",
            format!("{minimum:?}..{maximum:?}"),
            match param.range {
                Range::Number(a, b) => format!("{a:?}..{b:?}"),
                _ => "None..None".into(),
            },
        ),
        Shape::Array(a) => same(
            "item count",
            format!("{:?}..{:?}", a.min_items, a.max_items),
            format!("{:?}..{:?}", param.min_length, param.max_length),
        ),
        Shape::Boolean | Shape::Object(_) | Shape::Any => {}
    }
}
