//! Checking JSON values against resolved types, for defaults and examples.
//!
//! The loader uses this to refuse a default or example that breaks its own constraints, and
//! example calls that the tool itself would refuse: a spec's examples are shown to agents, so
//! an invalid one teaches a wrong call.

use crate::model::{Field, Kind, Type};
use crate::spec::format::Format;
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// Every way `value` breaks `ty`, each as (JSON Pointer below `path`, what is wrong).
pub fn check_value(value: &Value, ty: &Type, path: &str) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    check_into(value, ty, path, &mut problems);
    problems
}

/// Every way an argument object breaks a parameter list: unknown and missing arguments, and
/// each value against its type.
pub fn check_arguments(args: &Value, params: &[Field]) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    let Some(obj) = args.as_object() else {
        problems.push((
            String::new(),
            format!("arguments must be an object, found {}", kind_of(args)),
        ));
        return problems;
    };
    check_fields(obj, params, "", false, &mut problems);
    problems
}

fn check_fields(
    obj: &serde_json::Map<String, Value>,
    fields: &[Field],
    path: &str,
    open: bool,
    problems: &mut Vec<(String, String)>,
) {
    for (key, v) in obj {
        let p = format!("{path}/{}", escape_pointer(key));
        match fields.iter().find(|f| f.name == *key) {
            Some(f) => check_into(v, &f.ty, &p, problems),
            None if !open => {
                let allowed: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                problems.push((
                    p,
                    format!("unknown key `{key}`; allowed: {}", allowed.join(", ")),
                ));
            }
            None => {}
        }
    }
    for f in fields.iter().filter(|f| f.required) {
        if !obj.contains_key(&f.name) {
            problems.push((path.to_string(), format!("missing required `{}`", f.name)));
        }
    }
}

fn check_into(value: &Value, ty: &Type, path: &str, problems: &mut Vec<(String, String)>) {
    let mut push = |msg: String| problems.push((path.to_string(), msg));
    match &ty.kind {
        Kind::String(rules) => {
            let Some(s) = value.as_str() else {
                return push(format!("expected a string, found {}", kind_of(value)));
            };
            if let Some(values) = &rules.enum_values
                && !values.iter().any(|v| v == s)
            {
                push(format!("`{s}` is not one of {}", values.join(", ")));
            }
            let chars = s.chars().count() as u64;
            if let Some(min) = rules.min_length
                && chars < min
            {
                push(format!(
                    "`{s}` has {chars} characters, fewer than min_length {min}"
                ));
            }
            if let Some(max) = rules.max_length
                && chars > max
            {
                push(format!(
                    "`{s}` has {chars} characters, more than max_length {max}"
                ));
            }
            if let Some(pattern) = &rules.pattern
                && let Ok(re) = Regex::new(pattern)
                && !re.is_match(s)
            {
                push(format!("`{s}` does not match pattern {pattern}"));
            }
            if let Some(format) = rules.format
                && !format_matches(format, s)
            {
                push(format!("`{s}` is not a valid {}", format.as_str()));
            }
        }
        Kind::Integer { minimum, maximum } => {
            let n = match value.as_i64() {
                Some(n) => n,
                None => return push(format!("expected a whole number, found {}", kind_of(value))),
            };
            if let Some(min) = minimum
                && n < *min
            {
                push(format!("{n} is below the minimum {min}"));
            }
            if let Some(max) = maximum
                && n > *max
            {
                push(format!("{n} is above the maximum {max}"));
            }
        }
        Kind::Number { minimum, maximum } => {
            let Some(n) = value.as_f64() else {
                return push(format!("expected a number, found {}", kind_of(value)));
            };
            if let Some(min) = minimum
                && n < *min
            {
                push(format!("{n} is below the minimum {min}"));
            }
            if let Some(max) = maximum
                && n > *max
            {
                push(format!("{n} is above the maximum {max}"));
            }
        }
        Kind::Boolean => {
            if !value.is_boolean() {
                push(format!("expected true or false, found {}", kind_of(value)));
            }
        }
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            let Some(list) = value.as_array() else {
                return push(format!("expected a list, found {}", kind_of(value)));
            };
            let n = list.len() as u64;
            if let Some(min) = min_items
                && n < *min
            {
                push(format!("{n} items, fewer than min_items {min}"));
            }
            if let Some(max) = max_items
                && n > *max
            {
                push(format!("{n} items, more than max_items {max}"));
            }
            for (i, item) in list.iter().enumerate() {
                check_into(item, items, &format!("{path}/{i}"), problems);
            }
        }
        Kind::Object { fields, open } => {
            let Some(obj) = value.as_object() else {
                return push(format!("expected an object, found {}", kind_of(value)));
            };
            check_fields(obj, fields, path, *open, problems);
        }
    }
}

/// Whether `s` has the given format. Deliberately the same simple rules the runtime applies,
/// so a spec example accepted here is accepted by the server.
pub fn format_matches(format: Format, s: &str) -> bool {
    static RES: OnceLock<[Regex; 5]> = OnceLock::new();
    let [email, date_time, date, uri, uuid] = RES.get_or_init(|| {
        [
            Regex::new(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
            Regex::new(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"),
            Regex::new(r"^\d{4}-\d{2}-\d{2}$"),
            Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$"),
            Regex::new(
                r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
            ),
        ]
        .map(|r| r.expect("built-in format regexes are valid"))
    });
    match format {
        Format::Email => email.is_match(s),
        Format::DateTime => date_time.is_match(s),
        Format::Date => date.is_match(s),
        Format::Uri => uri.is_match(s),
        Format::Uuid => uuid.is_match(s),
    }
}

/// How a JSON value's kind is called in messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "a whole number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Escapes a key for a JSON Pointer (RFC 6901).
pub fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// An example for a type that has none written: objects from their fields' examples, arrays
/// from one item's. Scalars without an example get a neutral value (the loader has already
/// reported the missing example).
pub fn compose_example(ty: &Type) -> Value {
    match &ty.kind {
        Kind::Object { fields, .. } => Value::Object(
            fields
                .iter()
                .map(|f| (f.name.clone(), f.example.clone()))
                .collect(),
        ),
        Kind::Array { items, .. } => Value::Array(vec![compose_example(items)]),
        Kind::String(rules) => rules
            .enum_values
            .as_ref()
            .and_then(|v| v.first())
            .map(|v| Value::String(v.clone()))
            .unwrap_or_else(|| Value::String(String::new())),
        Kind::Integer { minimum, .. } => Value::from(minimum.unwrap_or(0)),
        Kind::Number { minimum, .. } => {
            serde_json::Number::from_f64(minimum.unwrap_or(0.0)).map_or(Value::Null, Value::Number)
        }
        Kind::Boolean => Value::Bool(false),
    }
}
