//! Values the checks send: one invalid value per kind of violation, other valid values for
//! "the same call with other arguments", and the comparisons the checks make.

use serde_json::{Value, json};

use super::facts::{ParamFacts, Range, Violation};
use super::session::parse;
use toolspec_core::engine::ToolDefinition;
use toolspec_core::fingerprint::CONTROL_PARAMS;
use toolspec_core::validate::{Format, Pattern};

const FORMATS: [Format; 5] = [
    Format::Email,
    Format::DateTime,
    Format::Date,
    Format::Uri,
    Format::Uuid,
];

/// The validator's format called `name`.
pub(crate) fn format_named(name: &str) -> Option<Format> {
    FORMATS.into_iter().find(|f| f.name() == name)
}

/// A string value to start from: the call's current value, else the parameter's example.
fn seed(param: &ParamFacts, current: Option<&Value>) -> String {
    current
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| parse(param.example).as_str().map(str::to_owned))
        .unwrap_or_else(|| "x".into())
}

/// `seed` cut or grown (repeating its last character, which keeps most patterns matching:
/// `T-1001` becomes `T-10011111`) to exactly `len` characters.
pub(crate) fn sized(seed: &str, len: u64) -> String {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let mut chars: Vec<char> = seed.chars().take(len).collect();
    let fill = chars.last().copied().unwrap_or('x');
    while chars.len() < len {
        chars.push(fill);
    }
    chars.into_iter().collect()
}

/// A value of `param` that breaks it in the way `violation` says, or `None` when the
/// parameter has no such constraint.
pub(crate) fn bad_value(
    param: &ParamFacts,
    violation: Violation,
    current: Option<&Value>,
) -> Option<Value> {
    match violation {
        Violation::Missing => None,
        Violation::WrongType => Some(match param.json_type {
            "string" => json!(12345),
            "integer" | "number" => json!("twelve"),
            "boolean" => json!("yes"),
            "array" => json!("not a list"),
            "object" => json!("not an object"),
            // A union (`string or object`): a value of a type none of its variants takes.
            expected => [
                (json!(12345), "number"),
                (json!("not this"), "string"),
                (json!(true), "boolean"),
                (json!(["not this"]), "array"),
                (json!({"not": "this"}), "object"),
            ]
            .into_iter()
            .find(|(_, word)| {
                let taken =
                    expected.contains(word) || (*word == "number" && expected.contains("integer"));
                !taken
            })
            .map_or(Value::Null, |(v, _)| v),
        }),
        Violation::NotAllowed if !param.allowed_integers.is_empty() => {
            Some(Value::from(outside(param.allowed_integers)))
        }
        Violation::NotAllowed => {
            let first = param.allowed.first()?;
            let mut value = format!("{first}_not_allowed");
            while param.allowed.contains(&value.as_str()) {
                value.push('x');
            }
            Some(json!(value))
        }
        Violation::BelowMinimum => match param.range {
            Range::Integer(Some(min), _) => min.checked_sub(1).map(Value::from),
            Range::Number(Some(min), _) => Some(json!(min - 1.0)),
            _ => None,
        },
        Violation::AboveMaximum => match param.range {
            Range::Integer(_, Some(max)) => max.checked_add(1).map(Value::from),
            Range::Number(_, Some(max)) => Some(json!(max + 1.0)),
            _ => None,
        },
        Violation::TooShort => {
            let min = param.min_length.filter(|m| *m > 0)?;
            Some(sized_value(param, current, min - 1))
        }
        Violation::TooLong => {
            let max = param.max_length?;
            Some(sized_value(param, current, max.checked_add(1)?))
        }
        Violation::PatternMismatch => {
            let pattern = Pattern::new(param.pattern?);
            let candidates = ["!", "not a match", "0", "zzzz", "?!?", "", "A"];
            let fits = |s: &&str| {
                let n = s.chars().count() as u64;
                param.min_length.is_none_or(|m| n >= m) && param.max_length.is_none_or(|m| n <= m)
            };
            let misses = |s: &&str| !pattern.is_match(s);
            candidates
                .iter()
                .find(|s| misses(s) && fits(s))
                .or_else(|| candidates.iter().find(|s| misses(s)))
                .map(|s| json!(s))
        }
        Violation::WrongFormat => {
            let format = format_named(param.format?)?;
            ["not-a-valid-value", "31/12/2025", "no spaces allowed", "x"]
                .into_iter()
                .find(|s| !format.is_valid(s))
                .map(|s| json!(s))
        }
    }
}

/// A whole number outside `allowed`: one above the largest, else one below the smallest,
/// else (the set holds both ends of the range) the first number from 0 it lacks.
fn outside(allowed: &[i64]) -> i64 {
    let above = allowed.iter().max().and_then(|m| m.checked_add(1));
    let below = allowed.iter().min().and_then(|m| m.checked_sub(1));
    // Of `len + 1` numbers, one is not among `len` values: the search ends.
    above
        .or(below)
        .unwrap_or_else(|| (0..).find(|n| !allowed.contains(n)).unwrap_or(0))
}

/// A string of `len` characters, or an array of `len` items, for length probes.
fn sized_value(param: &ParamFacts, current: Option<&Value>, len: u64) -> Value {
    if param.json_type == "array" {
        let item = current
            .and_then(Value::as_array)
            .and_then(|a| a.first().cloned())
            .or_else(|| {
                parse(param.example)
                    .as_array()
                    .and_then(|a| a.first().cloned())
            })
            .unwrap_or(Value::Null);
        let n = usize::try_from(len).unwrap_or(0);
        return Value::Array(vec![item; n]);
    }
    json!(sized(&seed(param, current), len))
}

/// The values at the edges of `param`'s bounds (minimum and maximum, shortest and longest),
/// each valid in every other respect as far as can be told from the facts.
pub(crate) fn bound_values(param: &ParamFacts, current: Option<&Value>) -> Vec<Value> {
    let mut out = Vec::new();
    match param.range {
        Range::Integer(min, max) => out.extend([min, max].into_iter().flatten().map(Value::from)),
        Range::Number(min, max) => out.extend([min, max].into_iter().flatten().map(|n| json!(n))),
        Range::None => {}
    }
    if param.json_type == "string" {
        let pattern = param.pattern.map(Pattern::new);
        for len in [param.min_length.filter(|m| *m > 0), param.max_length]
            .into_iter()
            .flatten()
        {
            let s = sized(&seed(param, current), len);
            if pattern.as_ref().is_none_or(|p| p.is_match(&s)) {
                out.push(json!(s));
            }
        }
    }
    out
}

/// Values other than `current` that `param` accepts, most plausible first.
fn other_values(param: &ParamFacts, current: Option<&Value>) -> Vec<Value> {
    let allowed = param.allowed_values();
    if !allowed.is_empty() {
        return allowed.into_iter().filter(|v| Some(v) != current).collect();
    }
    match param.json_type {
        "integer" => {
            let n = current.and_then(Value::as_i64).unwrap_or(0);
            [n.checked_add(1), n.checked_sub(1)]
                .into_iter()
                .flatten()
                .map(Value::from)
                .collect()
        }
        "number" => {
            let n = current.and_then(Value::as_f64).unwrap_or(0.0);
            vec![json!(n + 1.0), json!(n - 1.0)]
        }
        "boolean" => vec![json!(!current.and_then(Value::as_bool).unwrap_or(false))],
        "string" => {
            let s = seed(param, current);
            let mut out = Vec::new();
            if let Some(format) = param.format.and_then(format_named) {
                match format {
                    Format::Email => out.push(format!("other.{s}")),
                    _ => out.push(format.example().to_owned()),
                }
            }
            // Change the last character to a sibling of its kind (keeps patterns matching).
            if let Some(last) = s.chars().last() {
                let swapped = match last {
                    '0'..='8' | 'a'..='y' | 'A'..='Y' => char::from(last as u8 + 1),
                    '9' => '8',
                    'z' => 'y',
                    'Z' => 'Y',
                    _ => 'x',
                };
                let mut t: String = s.chars().take(s.chars().count() - 1).collect();
                t.push(swapped);
                out.push(t);
            }
            out.push(format!("{s} (other)"));
            out.into_iter().map(Value::from).collect()
        }
        _ => Vec::new(),
    }
}

/// `args` with one parameter that counts for the fingerprint changed to another valid
/// value (checked with the served validator), or `None` when no such change is found.
pub(crate) fn other_arguments(
    params: &[ParamFacts],
    definition: &ToolDefinition,
    args: &Value,
) -> Option<Value> {
    variants(params, definition, args, 1).into_iter().next()
}

/// Up to `max` valid calls that each differ from `args` in one parameter (not a control
/// parameter such as the idempotency key): present parameters first, since changing one
/// the call already has is the plainest change, then absent ones, each in the order of
/// [`other_values`].
pub(crate) fn variants(
    params: &[ParamFacts],
    definition: &ToolDefinition,
    args: &Value,
    max: usize,
) -> Vec<Value> {
    let counted = params.iter().filter(|p| !CONTROL_PARAMS.contains(&p.name));
    let (present, absent): (Vec<_>, Vec<_>) = counted.partition(|p| args.get(p.name).is_some());
    let mut out = Vec::new();
    for param in present.into_iter().chain(absent) {
        for value in other_values(param, args.get(param.name)) {
            if out.len() >= max {
                return out;
            }
            let mut other = args.clone();
            if let Value::Object(map) = &mut other {
                map.insert(param.name.to_owned(), value);
            }
            if other != *args && definition.prepare(other.clone()).is_ok() {
                out.push(other);
            }
        }
    }
    out
}

/// Whether `expected` is a part of `actual`: objects by their keys (extra keys allowed),
/// arrays item by item with equal lengths, scalars equal (numbers by value). On a mismatch,
/// the JSON Pointer where it is and both sides.
pub(crate) fn subset(expected: &Value, actual: &Value, at: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let path = format!("{at}/{k}");
                match a.get(k) {
                    Some(av) => subset(ev, av, &path)?,
                    None => return Err(format!("{path} is missing (expected {ev})")),
                }
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!("{at} has {} items (expected {})", a.len(), e.len()));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                subset(ev, av, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => Ok(()),
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!(
            "{} is {a} (expected {e})",
            if at.is_empty() { "the result" } else { at }
        )),
    }
}

/// The first place (keys in sorted order) where `a` and `b` differ: its JSON Pointer and
/// both values there (`None` where one side has nothing), or `None` when they are equal.
pub(crate) fn first_diff<'v>(
    a: &'v Value,
    b: &'v Value,
    at: &str,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            // Sorted, so the difference reported does not depend on how the map orders keys
            // (insertion order under serde_json's `preserve_order`, sorted without it).
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let path = format!("{at}/{}", toolspec_core::for_adapters::escape_pointer(k));
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => {
                        if let Some(d) = first_diff(va, vb, &path) {
                            return Some(d);
                        }
                    }
                    (va, vb) => return Some((path, va, vb)),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let path = format!("{at}/{i}");
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => {
                        if let Some(d) = first_diff(va, vb, &path) {
                            return Some(d);
                        }
                    }
                    (va, vb) => return Some((path, va, vb)),
                }
            }
            None
        }
        _ if a == b => None,
        _ => Some((at.to_owned(), Some(a), Some(b))),
    }
}

/// Every value under a key called `key`, at any depth of `value`, with its JSON Pointer.
pub(crate) fn find_key<'v>(
    value: &'v Value,
    key: &str,
    at: &str,
    out: &mut Vec<(String, &'v Value)>,
) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = format!("{at}/{k}");
                if k == key {
                    out.push((path.clone(), v));
                }
                find_key(v, key, &path, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                find_key(v, key, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The JSON Pointer of a value present at a detailed-only `path` (keys joined by `/`, `*`
/// for every item of a list), if any.
pub(crate) fn present_at(value: &Value, path: &str) -> Option<String> {
    fn walk(value: &Value, parts: &[&str], at: String) -> Option<String> {
        let Some((first, rest)) = parts.split_first() else {
            return Some(at);
        };
        match (*first, value) {
            ("*", Value::Array(items)) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, rest, format!("{at}/{i}"))),
            (key, Value::Object(map)) => map
                .get(key)
                .and_then(|v| walk(v, rest, format!("{at}/{key}"))),
            _ => None,
        }
    }
    let parts: Vec<&str> = path.split('/').collect();
    walk(value, &parts, String::new())
}

/// The valid call at the end of a validation message (`... Example of a valid call: {...}`).
pub(crate) fn suggested_call(message: &str) -> Option<Value> {
    let marker = "Example of a valid call:";
    let start = message.rfind(marker)? + marker.len();
    let text = message[start..].trim_start();
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    values.next()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICKET_ID: ParamFacts = ParamFacts {
        name: "ticket_id",
        json_type: "string",
        required: true,
        nullable: false,
        allowed: &[],
        allowed_integers: &[],
        range: Range::None,
        min_length: None,
        max_length: Some(20),
        pattern: Some("^T-[0-9]+$"),
        format: None,
        default: None,
        example: "\"T-1001\"",
    };

    #[test]
    fn bad_values_break_only_what_they_target() {
        let too_long = bad_value(&TICKET_ID, Violation::TooLong, None).unwrap();
        let s = too_long.as_str().unwrap();
        assert_eq!(s.chars().count(), 21);
        assert!(Pattern::new("^T-[0-9]+$").is_match(s), "{s}");
        let miss = bad_value(&TICKET_ID, Violation::PatternMismatch, None).unwrap();
        assert!(!Pattern::new("^T-[0-9]+$").is_match(miss.as_str().unwrap()));
        assert_eq!(bad_value(&TICKET_ID, Violation::TooShort, None), None);
        assert_eq!(
            bound_values(&TICKET_ID, None),
            vec![json!("T-100111111111111111")]
        );
    }

    #[test]
    fn an_integer_enum_is_probed_outside_its_values() {
        const PRIORITY: ParamFacts = ParamFacts {
            name: "priority",
            json_type: "integer",
            allowed: &[],
            allowed_integers: &[1, 2, 5],
            range: Range::Integer(Some(1), Some(5)),
            pattern: None,
            max_length: None,
            example: "2",
            ..TICKET_ID
        };
        assert_eq!(
            bad_value(&PRIORITY, Violation::NotAllowed, None),
            Some(json!(6))
        );
        assert_eq!(
            other_values(&PRIORITY, Some(&json!(2))),
            vec![json!(1), json!(5)]
        );
        let top = ParamFacts {
            allowed_integers: &[i64::MAX],
            ..PRIORITY
        };
        assert_eq!(
            bad_value(&top, Violation::NotAllowed, None),
            Some(json!(i64::MAX - 1))
        );
        let ends = ParamFacts {
            allowed_integers: &[i64::MIN, 0, i64::MAX],
            ..PRIORITY
        };
        assert_eq!(
            bad_value(&ends, Violation::NotAllowed, None),
            Some(json!(1))
        );
    }

    #[test]
    fn subsets_report_where_they_differ() {
        let actual = json!({"ticket": {"id": "T-1", "status": "open"}, "total": 15});
        assert!(subset(&json!({"total": 15.0}), &actual, "").is_ok());
        assert!(subset(&json!({"ticket": {"status": "open"}}), &actual, "").is_ok());
        assert_eq!(
            subset(&json!({"ticket": {"status": "closed"}}), &actual, ""),
            Err("/ticket/status is \"open\" (expected \"closed\")".into())
        );
    }

    #[test]
    fn the_first_difference_is_located() {
        let a = json!({"total": 15, "tickets": [{"id": 1}, {"id": 2}]});
        let b = json!({"total": 16, "tickets": [{"id": 1}, {"id": 3}]});
        let (at, x, y) = first_diff(&a, &b, "").unwrap();
        assert_eq!(
            (at.as_str(), x, y),
            ("/tickets/1/id", Some(&json!(2)), Some(&json!(3)))
        );
        let d = json!({"total": 16, "tickets": [{"id": 1}, {"id": 2}]});
        let (at, x, y) = first_diff(&a, &d, "").unwrap();
        assert_eq!(
            (at.as_str(), x, y),
            ("/total", Some(&json!(15)), Some(&json!(16)))
        );
        let c = json!({"total": 15, "tickets": [{"id": 1}]});
        let (at, x, y) = first_diff(&a, &c, "").unwrap();
        assert_eq!(
            (at.as_str(), x, y),
            ("/tickets/1", Some(&json!({"id": 2})), None)
        );
        assert!(first_diff(&a, &a, "").is_none());
    }

    #[test]
    fn detailed_paths_find_present_values() {
        let v = json!({"tickets": [{"id": 1}, {"id": 2, "email": "a@b.c"}]});
        assert_eq!(
            present_at(&v, "tickets/*/email"),
            Some("/tickets/1/email".into())
        );
        assert_eq!(present_at(&v, "tickets/*/phone"), None);
    }

    #[test]
    fn the_suggested_call_is_parsed_from_the_message() {
        let m = "status 'x' is not valid. Example of a valid call: {\"query\":\"a b\"}";
        assert_eq!(suggested_call(m), Some(json!({"query": "a b"})));
        assert_eq!(suggested_call("no call here"), None);
    }
}
