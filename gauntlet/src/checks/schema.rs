//! Schema: the served definition is the spec's, and the validator enforces what its input
//! schema says.

use serde_json::{Value, json};

use super::Ctx;
use crate::facts::{ParamFacts, Range};
use crate::failure::Failure;
use crate::session::parse;
use toolspec_core::engine::digest::PARTS;

const PROMISE: &str = "the served tool definition is the one the spec describes";

/// Compares the served definition with the spec's (part by part, through the digests the
/// gauntlet was generated with), then its input schema with its validator table, and lists
/// every difference.
pub(crate) fn matches_spec(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let (tool, def) = (ctx.tool, ctx.definition);
    let mut diffs = Vec::new();
    let served = def.text().digests();
    let stale: Vec<&str> = PARTS
        .iter()
        .zip(served.iter().zip(tool.definition))
        .filter(|(_, (served, spec))| served.as_str() != *spec)
        .map(|(part, _)| *part)
        .collect();
    if !stale.is_empty() {
        diffs.push(format!(
            "{} differ from the definition generated from the spec",
            stale.join(", ")
        ));
    }

    let schema = parse(def.input_schema);
    let props = schema.get("properties").and_then(Value::as_object);
    let same = |diffs: &mut Vec<String>, what: &str, served: String, spec: String| {
        if served != spec {
            diffs.push(format!(
                "{what}: {served} in the schema, {spec} in the validator"
            ));
        }
    };
    // Schema properties are compared as sets (a JSON object's key order is not kept by
    // every parser); the validator's order, which its messages list, must be the spec's.
    let mut schema_names: Vec<&str> = props
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    schema_names.sort_unstable();
    let validator_order: Vec<&str> = ctx.params.iter().map(|p| p.name).collect();
    let mut validator_names = validator_order.clone();
    validator_names.sort_unstable();
    same(
        &mut diffs,
        "parameters",
        format!("{schema_names:?}"),
        format!("{validator_names:?}"),
    );
    let spec_order: Vec<&str> = tool.param_examples.iter().map(|p| p.name).collect();
    if validator_order != spec_order {
        diffs.push(format!(
            "parameter order of the validator: served {validator_order:?}, spec {spec_order:?}"
        ));
    }
    let mut required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    required.sort_unstable();
    let mut validator_required: Vec<&str> = ctx
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    validator_required.sort_unstable();
    same(
        &mut diffs,
        "required",
        format!("{required:?}"),
        format!("{validator_required:?}"),
    );
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        diffs.push(
            "the input schema does not refuse unknown arguments (additionalProperties: false)"
                .into(),
        );
    }
    for param in &ctx.params {
        if let Some(prop) = props.and_then(|p| p.get(param.name)) {
            schema_param(param, prop, &mut diffs);
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

/// The schema keywords of one parameter against the validator's table. A nullable value's
/// keywords sit in the first branch of its `anyOf` (the other is `{"type": "null"}`); a
/// union's branches are its variants, whose JSON types together are the validator's.
fn schema_param(param: &ParamFacts, prop: &Value, diffs: &mut Vec<String>) {
    let branches = prop.get("anyOf").and_then(Value::as_array);
    let takes_null = branches.is_some_and(|b| b.iter().any(|x| x["type"] == "null"));
    if param.nullable != takes_null && prop.get("type").is_none() {
        diffs.push(format!(
            "parameter `{}`: schema takes null {takes_null}, validator {}",
            param.name, param.nullable
        ));
    }
    let variants: Vec<&Value> = branches
        .map(|b| b.iter().filter(|x| x["type"] != "null").collect())
        .unwrap_or_default();
    if prop.get("type").is_none() && variants.len() > 1 {
        let mut types: Vec<&str> = Vec::new();
        for v in &variants {
            if let Some(t) = v["type"].as_str()
                && !types.contains(&t)
            {
                types.push(t);
            }
        }
        let served = types.join(" or ");
        if served != param.json_type {
            diffs.push(format!(
                "parameter `{}`: schema types {served}, validator {}",
                param.name, param.json_type
            ));
        }
        return;
    }
    let keywords = match variants.first() {
        Some(inner) if prop.get("type").is_none() => *inner,
        _ => prop,
    };
    let mut check = |keyword: &str, spec: Option<Value>| {
        let served = match keyword {
            "default" => prop.get(keyword).cloned(),
            _ => keywords.get(keyword).cloned(),
        };
        let equal = match (&served, &spec) {
            (Some(Value::Number(a)), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
            (a, b) => a == b,
        };
        if !equal {
            let show = |v: &Option<Value>| v.as_ref().map_or("none".into(), Value::to_string);
            diffs.push(format!(
                "parameter `{}`: schema {keyword} {}, validator {}",
                param.name,
                show(&served),
                show(&spec)
            ));
        }
    };
    check("type", Some(json!(param.json_type)));
    let allowed = param.allowed_values();
    check(
        "enum",
        (!allowed.is_empty()).then_some(Value::Array(allowed)),
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
