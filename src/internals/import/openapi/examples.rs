//! Examples for scalar fields: the document's own when it fits the field's constraints,
//! otherwise one made to fit them (an enum value, the default, a value of the format, a
//! string the pattern matches), so every draft passes `check` and its examples are true.

use crate::import::report::Report;
use crate::import::yaml::Node;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value, json};

/// The example for a scalar field: the schema's (`example`, or the first of 3.1's
/// `examples`) if it fits `node`'s constraints, else one made from them.
pub fn choose(s: &Map<String, Value>, node: &Node, at: &str, report: &mut Report) -> Value {
    let written = s
        .get("example")
        .or_else(|| {
            s.get("examples")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
        })
        .filter(|e| !e.is_null());
    if let Some(e) = written {
        if fits(e, node) {
            report.carried(1);
            return e.clone();
        }
        report.drop(
            at,
            format!(
                "example {} breaks the document's own constraints: a fitting one was made",
                short(e)
            ),
        );
    }
    made(node)
}

/// The document's example for a parameter (`example`, or the first `examples` value),
/// when it fits.
pub fn of_parameter(p: &Value, node: &Node, at: &str, report: &mut Report) -> Option<Value> {
    let e = p.get("example").filter(|e| !e.is_null()).or_else(|| {
        p.get("examples")
            .and_then(Value::as_object)
            .and_then(|m| m.values().next())
            .and_then(|x| x.get("value"))
    })?;
    if fits(e, node) {
        report.carried(1);
        Some(e.clone())
    } else {
        report.drop(
            at,
            format!(
                "example {} breaks the parameter's own constraints: not carried",
                short(e)
            ),
        );
        None
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

fn get(node: &Node, key: &str) -> Option<Value> {
    node.get(key).map(Node::to_json)
}

/// Whether `v` is a value of the scalar field `node`: its JSON type, enum, bounds,
/// lengths, pattern and format.
pub fn fits(v: &Value, node: &Node) -> bool {
    let ty = get(node, "type");
    let type_ok = match ty.as_ref().and_then(Value::as_str) {
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        _ => true,
    };
    if !type_ok {
        return false;
    }
    if let Some(Value::Array(values)) = get(node, "enum")
        && !values.contains(v)
    {
        return false;
    }
    if let Some(n) = v.as_f64() {
        if get(node, "minimum")
            .and_then(|m| m.as_f64())
            .is_some_and(|m| n < m)
        {
            return false;
        }
        if get(node, "maximum")
            .and_then(|m| m.as_f64())
            .is_some_and(|m| n > m)
        {
            return false;
        }
    }
    if let Some(s) = v.as_str() {
        let len = s.chars().count() as u64;
        if get(node, "min_length")
            .and_then(|m| m.as_u64())
            .is_some_and(|m| len < m)
        {
            return false;
        }
        if get(node, "max_length")
            .and_then(|m| m.as_u64())
            .is_some_and(|m| len > m)
        {
            return false;
        }
        if let Some(Value::String(p)) = get(node, "pattern")
            && !regex::Regex::new(&p).is_ok_and(|r| r.is_match(s))
        {
            return false;
        }
        if let Some(Value::String(f)) = get(node, "format")
            && !format_ok(&f, s)
        {
            return false;
        }
    }
    true
}

/// A rough check of the spec's formats, strict enough that the spec's own check agrees.
fn format_ok(format: &str, s: &str) -> bool {
    let pattern = match format {
        "date-time" => r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
        "date" => r"^\d{4}-\d{2}-\d{2}$",
        "email" => r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
        "uri" => r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$",
        "uuid" => r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        _ => return true,
    };
    regex::Regex::new(pattern).is_ok_and(|r| r.is_match(s))
}

/// A value made to fit the field.
pub fn made(node: &Node) -> Value {
    if let Some(Value::Array(values)) = get(node, "enum")
        && let Some(first) = values.first()
    {
        return first.clone();
    }
    if let Some(d) = get(node, "default") {
        return d;
    }
    match get(node, "type").as_ref().and_then(Value::as_str) {
        Some("integer") => {
            let min = get(node, "minimum").and_then(|m| m.as_i64());
            let max = get(node, "maximum").and_then(|m| m.as_i64());
            json!(pick(min, max, 1))
        }
        Some("number") => {
            let min = get(node, "minimum").and_then(|m| m.as_f64());
            let max = get(node, "maximum").and_then(|m| m.as_f64());
            let v = match (min, max) {
                (Some(lo), _) if lo > 1.0 => lo,
                (_, Some(hi)) if hi < 1.0 => hi,
                _ => 1.0,
            };
            json!(v)
        }
        Some("boolean") => json!(true),
        _ => json!(made_string(node)),
    }
}

fn pick(min: Option<i64>, max: Option<i64>, usual: i64) -> i64 {
    match (min, max) {
        (Some(lo), _) if lo > usual => lo,
        (_, Some(hi)) if hi < usual => hi,
        _ => usual,
    }
}

fn made_string(node: &Node) -> String {
    let min = get(node, "min_length")
        .and_then(|m| m.as_u64())
        .unwrap_or(0) as usize;
    let max = get(node, "max_length")
        .and_then(|m| m.as_u64())
        .map(|m| m as usize);
    if let Some(Value::String(f)) = get(node, "format") {
        let v = match f.as_str() {
            "date-time" => "2026-01-15T09:30:00Z",
            "date" => "2026-01-15",
            "email" => "user@example.com",
            "uri" => "https://example.com/",
            "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
            _ => "example",
        };
        return v.to_string();
    }
    if let Some(Value::String(p)) = get(node, "pattern")
        && let Some(s) = sample(&p, min, max)
    {
        return s;
    }
    let mut s = String::from("example");
    while s.chars().count() < min {
        s.push('x');
    }
    if let Some(max) = max {
        s = s.chars().take(max).collect();
    }
    s
}

/// A short string `pattern` matches, between `min` and `max` characters when it can be.
fn sample(pattern: &str, min: usize, max: Option<usize>) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let re = regex::Regex::new(pattern).ok()?;
    // Try the shortest match, then with repetitions stretched to reach `min`.
    for stretch in [0usize, 1, 4, 16, 64] {
        let mut out = String::new();
        write_sample(&hir, stretch, &mut out);
        let len = out.chars().count();
        if re.is_match(&out) && len >= min && max.is_none_or(|m| len <= m) {
            return Some(out);
        }
    }
    None
}

fn write_sample(hir: &Hir, stretch: usize, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(&String::from_utf8_lossy(&lit.0)),
        HirKind::Class(Class::Unicode(c)) => {
            if let Some(ch) = preferred(c.ranges().iter().map(|r| (r.start(), r.end()))) {
                out.push(ch);
            }
        }
        HirKind::Class(Class::Bytes(c)) => {
            let ranges = c
                .ranges()
                .iter()
                .map(|r| (r.start() as char, r.end() as char));
            if let Some(ch) = preferred(ranges) {
                out.push(ch);
            }
        }
        HirKind::Repetition(rep) => {
            let wanted =
                (rep.min as usize).max(stretch.min(rep.max.map_or(usize::MAX, |m| m as usize)));
            let times = wanted
                .max(rep.min as usize)
                .min(rep.max.map_or(usize::MAX, |m| m as usize));
            for _ in 0..times.min(256) {
                write_sample(&rep.sub, stretch, out);
            }
        }
        HirKind::Capture(cap) => write_sample(&cap.sub, stretch, out),
        HirKind::Concat(parts) => {
            for p in parts {
                write_sample(p, stretch, out);
            }
        }
        HirKind::Alternation(alts) => {
            if let Some(first) = alts.first() {
                write_sample(first, stretch, out);
            }
        }
    }
}

/// A readable character of a class: a lowercase letter, a digit or an uppercase letter
/// when the class has one, else its first printable character.
fn preferred(ranges: impl Iterator<Item = (char, char)> + Clone) -> Option<char> {
    for want in ['a', '0', 'A'] {
        if ranges.clone().any(|(lo, hi)| lo <= want && want <= hi) {
            return Some(want);
        }
    }
    for (lo, hi) in ranges.clone() {
        for c in lo..=hi.min(char::from_u32(lo as u32 + 128).unwrap_or(hi)) {
            if !c.is_control() && !c.is_whitespace() {
                return Some(c);
            }
        }
    }
    ranges.clone().next().map(|(lo, _)| lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_node(pairs: &[(&str, Value)]) -> Node {
        let mut n = Node::map();
        n.set("type", Node::str("string"));
        for (k, v) in pairs {
            n.set(*k, Node::Scalar(v.clone()));
        }
        n
    }

    #[test]
    fn made_strings_match_their_patterns_and_lengths() {
        for (pattern, min, max) in [
            (r"^[A-Z]{2}-\d{4}$", 0, None),
            (r"^ghsa-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$", 0, None),
            (r"^[a-z0-9-]+$", 5, Some(10)),
            (r"^(msg|evt)_[A-Za-z0-9]{8,}$", 0, Some(40)),
            (r"^\+?[1-9]\d{1,14}$", 0, None),
        ] {
            let node = string_node(&[("pattern", json!(pattern)), ("min_length", json!(min))]);
            let mut node = node;
            if let Some(m) = max {
                node.set("max_length", Node::Scalar(json!(m)));
            }
            let v = made(&node);
            assert!(fits(&v, &node), "{pattern}: made {v}");
        }
    }

    #[test]
    fn a_written_example_that_breaks_its_constraints_is_replaced_and_reported() {
        let node = string_node(&[("max_length", json!(3))]);
        let mut s = Map::new();
        s.insert("example".into(), json!("far too long"));
        let mut report = Report::default();
        let v = choose(&s, &node, "GET /a q", &mut report);
        assert!(fits(&v, &node));
        assert_eq!(report.dropped.len(), 1);
        assert!(report.dropped[0].what.contains("far too long"));
    }
}
