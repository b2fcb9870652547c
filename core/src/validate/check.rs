//! The validator: walks a value against a shape and collects every problem.
//!
//! One walk, two sinks: [`Problems`] collects every problem with its message, for a refusal;
//! [`Verdict`] only notes that there was one and builds nothing, for [`accepts`], the fast
//! yes-or-no a valid call (the common case) takes. The rules are written once, here.

use serde_json::{Map, Value};

use super::{ArrayShape, Condition, Field, MapShape, ObjectShape, Shape, StringShape, UnionShape};
use crate::problem::{Problem, Problems, escape_pointer};

/// Where the walk reports what it finds.
trait Sink {
    /// Records the problem `make` builds (a sink may never call it).
    fn add(&mut self, make: impl FnOnce() -> Problem);
    /// How many more problems are worth listing in full.
    fn room(&self) -> usize;
}

impl Sink for Problems {
    fn add(&mut self, make: impl FnOnce() -> Problem) {
        Problems::add(self, make);
    }
    fn room(&self) -> usize {
        Problems::room(self)
    }
}

/// A sink that only remembers whether anything was wrong.
#[derive(Default)]
struct Verdict {
    refused: bool,
}

impl Sink for Verdict {
    fn add(&mut self, _make: impl FnOnce() -> Problem) {
        self.refused = true;
    }
    fn room(&self) -> usize {
        1
    }
}

/// Where the walk is, as a chain of borrowed steps from the root. The JSON Pointer text is
/// built only when a problem is recorded: a valid call (the common case) formats nothing.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// The JSON Pointer (`/items/0/sku`; `""` for the root).
    fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write(out);
                out.push('/');
                out.push_str(&escape_pointer(key));
            }
            Path::Index(parent, i) => {
                parent.write(out);
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
}

/// Checks the arguments of a call against the tool's input shape and returns **all**
/// problems (empty when the call is valid), each with its JSON Pointer path: the first
/// [`crate::problem::MAX_PROBLEMS`] in full, the rest counted (a hostile call with a
/// million unknown keys costs a count, not a million messages).
///
/// A `null` or absent argument object is treated as `{}` (clients send no `arguments` for a
/// call without parameters); any other non-object is an `invalid_type` at path `""`.
pub fn validate(shape: &ObjectShape, arguments: &Value) -> Problems {
    let mut problems = Problems::default();
    match arguments {
        Value::Null => check_object(shape, &Map::new(), &Path::Root, &mut problems),
        Value::Object(map) => check_object(shape, map, &Path::Root, &mut problems),
        other => problems.add(|| Problem::wrong_type("", "object", other)),
    }
    problems
}

/// Checks one value of the field `name` against `shape` and returns all problems, as a
/// call holding only that value would get them (paths start `/name`, messages name it).
/// For checking a default or an example outside a call.
pub fn validate_value(name: &str, shape: &Shape, value: &Value) -> Problems {
    let mut problems = Problems::default();
    check(
        shape,
        value,
        &Path::Key(&Path::Root, name),
        false,
        &mut problems,
    );
    problems
}

/// Whether the call `map` is valid, by the same rules as [`validate`], walked from the call's
/// own keys (each found among the fields by name) rather than by a lookup per field, and
/// building nothing; with the fields it leaves out, as a bit set over `shape.fields` (bit
/// `i` for field `i`). `None` when the call is refused, or when the shape has more than 64
/// fields (then [`validate`] decides).
///
/// A `Some` here means [`validate`] finds no problem: both apply the same check to each
/// value and the same presence rules; only the walk differs.
pub fn accepts(shape: &ObjectShape, map: &Map<String, Value>) -> Option<u64> {
    let fields = shape.fields;
    if fields.len() > 64 {
        return None;
    }
    let mut seen = 0u64;
    let mut verdict = Verdict::default();
    for (key, value) in map {
        let i = fields.iter().position(|f| f.name == key.as_str())?;
        let field: &Field = &fields[i];
        // Null means absent (see the module docs): a required field may not be null, unless
        // null is one of its values.
        if value.is_null() {
            if field.nullable {
                seen |= 1 << i;
            } else if field.required {
                return None;
            }
            continue;
        }
        seen |= 1 << i;
        check(
            &field.shape,
            value,
            &Path::Root,
            !field.required,
            &mut verdict,
        );
        if verdict.refused {
            return None;
        }
    }
    let all = if fields.len() == 64 {
        u64::MAX
    } else {
        (1u64 << fields.len()) - 1
    };
    let absent = all & !seen;
    let missing_required = fields
        .iter()
        .enumerate()
        .any(|(i, f)| f.required && absent & (1 << i) != 0);
    if missing_required {
        return None;
    }
    if !shape.conditions.is_empty() {
        check_conditions(shape, map, &Path::Root, &mut verdict);
        if verdict.refused {
            return None;
        }
    }
    Some(absent)
}

/// Whether the field `name` counts as passed in `map` (see [`Condition`]).
fn is_passed(shape: &ObjectShape, map: &Map<String, Value>, name: &str) -> bool {
    match map.get(name) {
        None => false,
        Some(Value::Null) => shape.field(name).is_some_and(|f| f.nullable),
        Some(_) => true,
    }
}

/// Checks each condition over which fields are passed; problems sit at the object's path
/// (for a set of fields) or at the missing field's.
fn check_conditions<S: Sink>(
    shape: &ObjectShape,
    map: &Map<String, Value>,
    path: &Path<'_>,
    out: &mut S,
) {
    let passed = |name: &str| is_passed(shape, map, name);
    for condition in shape.conditions {
        match condition {
            Condition::ExactlyOne(names) => {
                let given: Vec<&str> = names.iter().copied().filter(|n| passed(n)).collect();
                match given.len() {
                    0 => out.add(|| Problem::none_of(&path.pointer(), names, true)),
                    1 => {}
                    _ => out.add(|| Problem::conflict(&path.pointer(), names, &given)),
                }
            }
            Condition::AtLeastOne(names) => {
                if !names.iter().any(|n| passed(n)) {
                    out.add(|| Problem::none_of(&path.pointer(), names, false));
                }
            }
            Condition::AllOrNone(names) => {
                let given: Vec<&str> = names.iter().copied().filter(|n| passed(n)).collect();
                if !given.is_empty() && given.len() < names.len() {
                    for missing in names.iter().filter(|n| !given.contains(n)) {
                        out.add(|| {
                            Problem::needed(&Path::Key(path, missing).pointer(), &given, names)
                        });
                    }
                }
            }
            Condition::Requires { field, needs } => {
                if passed(field) {
                    for missing in needs.iter().filter(|n| !passed(n)) {
                        out.add(|| {
                            Problem::needed(&Path::Key(path, missing).pointer(), &[field], needs)
                        });
                    }
                }
            }
            Condition::When {
                field,
                values,
                by_default,
                needs,
                allows,
            } => {
                let held = match map.get(*field) {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.as_str()),
                    // A value of the wrong type is its field's own problem, reported there.
                    Some(_) => continue,
                };
                let holds = held.map_or(*by_default, |h| values.contains(&h));
                if holds {
                    for missing in needs.iter().filter(|n| !passed(n)) {
                        out.add(|| {
                            Problem::needed_when(&Path::Key(path, missing).pointer(), field, values)
                        });
                    }
                } else {
                    for extra in allows.iter().filter(|n| passed(n)) {
                        out.add(|| {
                            Problem::not_applicable(
                                &Path::Key(path, extra).pointer(),
                                field,
                                values,
                                held,
                            )
                        });
                    }
                }
            }
        }
    }
}

fn check_object<S: Sink>(
    shape: &ObjectShape,
    map: &Map<String, Value>,
    path: &Path<'_>,
    out: &mut S,
) {
    check_object_but(shape, map, None, path, out);
}

/// [`check_object`], where the key `skip` (a tagged union's tag, already checked) is not
/// one of the object's own.
fn check_object_but<S: Sink>(
    shape: &ObjectShape,
    map: &Map<String, Value>,
    skip: Option<&str>,
    path: &Path<'_>,
    out: &mut S,
) {
    // Keys that are fields; when every key is one (a valid call), the unknown-key scan is skipped.
    let mut known = 0;
    for field in shape.fields {
        let field_path = Path::Key(path, field.name);
        let value = map.get(field.name);
        known += usize::from(value.is_some());
        match value {
            // A value of its own for a nullable field.
            Some(Value::Null) if field.nullable => {}
            // Null means absent: see the module docs (OpenAI strict mode).
            None | Some(Value::Null) => {
                if field.required {
                    out.add(|| Problem::missing(&field_path.pointer(), field.shape.type_name()));
                }
            }
            Some(value) => check(&field.shape, value, &field_path, !field.required, out),
        }
    }
    if !shape.conditions.is_empty() {
        check_conditions(shape, map, path, out);
    }
    let skipped = skip.is_some_and(|k| map.contains_key(k));
    if known + usize::from(skipped) == map.len() {
        return;
    }
    let mut unknown: Vec<&String> = map
        .keys()
        .filter(|k| shape.field(k).is_none() && Some(k.as_str()) != skip)
        .collect();
    // Sorted so the error text does not depend on the client's key order; only the keys
    // that will be listed are sorted, so a call with a million unknown keys costs O(n).
    let room = out.room();
    if room > 0 && unknown.len() > room {
        unknown.select_nth_unstable(room - 1);
        unknown[..room].sort_unstable();
    } else {
        unknown.sort_unstable();
    }
    if !unknown.is_empty() {
        let allowed: Vec<&str> = shape.fields.iter().map(|f| f.name).collect();
        let path = path.pointer();
        for key in unknown {
            out.add(|| Problem::unknown(&path, key, &allowed));
        }
    }
}

fn check<S: Sink>(shape: &Shape, value: &Value, path: &Path<'_>, optional: bool, out: &mut S) {
    match shape {
        Shape::Any => {}
        Shape::Boolean => {
            if !value.is_boolean() {
                out.add(|| Problem::wrong_type(&path.pointer(), "boolean", value));
            }
        }
        Shape::String(s) => match value {
            Value::String(text) => check_string(s, text, value, path, optional, out),
            _ => out.add(|| Problem::wrong_type(&path.pointer(), "string", value)),
        },
        Shape::Integer {
            minimum,
            maximum,
            allowed,
        } => match as_integer(value) {
            // An enum says everything: its values lie within the bounds.
            Some(n) if !allowed.is_empty() => {
                if !allowed.iter().any(|a| i128::from(*a) == n) {
                    out.add(|| {
                        Problem::not_allowed_integer(&path.pointer(), value, allowed, optional)
                    });
                }
            }
            Some(n) => {
                let low = minimum.is_some_and(|lo| n < i128::from(lo));
                let high = maximum.is_some_and(|hi| n > i128::from(hi));
                if low || high {
                    out.add(|| {
                        Problem::out_of_range(
                            &path.pointer(),
                            value,
                            minimum.map(Value::from),
                            maximum.map(Value::from),
                        )
                    });
                }
            }
            None => out.add(|| Problem::wrong_type(&path.pointer(), "integer", value)),
        },
        Shape::Number { minimum, maximum } => match value.as_f64() {
            Some(n) if value.is_number() => {
                let low = minimum.is_some_and(|lo| n < lo);
                let high = maximum.is_some_and(|hi| n > hi);
                if low || high {
                    out.add(|| {
                        Problem::out_of_range(
                            &path.pointer(),
                            value,
                            minimum.map(Value::from),
                            maximum.map(Value::from),
                        )
                    });
                }
            }
            _ => out.add(|| Problem::wrong_type(&path.pointer(), "number", value)),
        },
        Shape::Array(a) => match value {
            Value::Array(items) => check_array(a, items, path, out),
            _ => out.add(|| Problem::wrong_type(&path.pointer(), "array", value)),
        },
        Shape::Object(o) => match value {
            Value::Object(map) => check_object(o, map, path, out),
            _ => out.add(|| Problem::wrong_type(&path.pointer(), "object", value)),
        },
        Shape::Map(m) => match value {
            Value::Object(map) => check_map(m, map, path, out),
            _ => out.add(|| Problem::wrong_type(&path.pointer(), "object", value)),
        },
        Shape::Union(u) => check_union(u, value, path, optional, out),
    }
}

/// A union value: its variant found by tag or JSON type, then checked as that variant.
fn check_union<S: Sink>(
    u: &UnionShape,
    value: &Value,
    path: &Path<'_>,
    optional: bool,
    out: &mut S,
) {
    let Some(tag) = u.tag else {
        match u.variant_of(value) {
            Some((_, shape)) => check(shape, value, path, optional, out),
            None => out.add(|| Problem::wrong_type(&path.pointer(), u.expected, value)),
        }
        return;
    };
    let Value::Object(map) = value else {
        out.add(|| Problem::wrong_type(&path.pointer(), "object", value));
        return;
    };
    let names: Vec<&str> = u.variants.iter().map(|(n, _)| *n).collect();
    let tag_path = Path::Key(path, tag);
    match map.get(tag) {
        None | Some(Value::Null) => out.add(|| Problem::missing(&tag_path.pointer(), "string")),
        Some(t) => match u.variant_of(value) {
            Some((_, Shape::Object(o))) => check_object_but(o, map, Some(tag), path, out),
            Some((_, other)) => check(other, value, path, optional, out),
            None => out.add(|| Problem::not_allowed(&tag_path.pointer(), t, &names, false)),
        },
    }
}

/// A map's entry count, then each key (reported at the entry's own path) and value.
fn check_map<S: Sink>(m: &MapShape, map: &Map<String, Value>, path: &Path<'_>, out: &mut S) {
    let n = map.len() as u64;
    if m.max_entries.is_some_and(|max| n > max) {
        out.add(|| Problem::length(&path.pointer(), map.len(), None, m.max_entries, "entries"));
        // Entries beyond the limit are not worth a message each.
        return;
    }
    for (key, value) in map {
        let entry = Path::Key(path, key);
        check_key(&m.keys, key, &entry, out);
        check(&m.values, value, &entry, false, out);
        if out.room() == 0 {
            return;
        }
    }
}

/// A map key against its string rules; the problem's path is the entry's.
fn check_key<S: Sink>(s: &StringShape, key: &str, path: &Path<'_>, out: &mut S) {
    let len = key.chars().count() as u64;
    let short = s.min_length.is_some_and(|m| len < m);
    let long = s.max_length.is_some_and(|m| len > m);
    let unmatched = s.pattern.is_some_and(|p| !p.is_match(key));
    if short || long || unmatched {
        out.add(|| {
            Problem::key(
                &path.pointer(),
                key,
                s.min_length,
                s.max_length,
                s.pattern.map(|p| p.source()),
            )
        });
    }
}

fn check_string<S: Sink>(
    s: &StringShape,
    text: &str,
    value: &Value,
    path: &Path<'_>,
    optional: bool,
    out: &mut S,
) {
    if !s.allowed.is_empty() {
        // An enum says everything: length, pattern and format add nothing to the fix.
        if !s.allowed.contains(&text) {
            out.add(|| Problem::not_allowed(&path.pointer(), value, s.allowed, optional));
        }
        return;
    }
    let len = text.chars().count();
    let short = s.min_length.is_some_and(|m| (len as u64) < m);
    let long = s.max_length.is_some_and(|m| (len as u64) > m);
    if short || long {
        out.add(|| {
            Problem::length(
                &path.pointer(),
                len,
                s.min_length,
                s.max_length,
                "characters",
            )
        });
    }
    if let Some(p) = s.pattern
        && !p.is_match(text)
    {
        out.add(|| Problem::pattern(&path.pointer(), value, p.source()));
    }
    if let Some(f) = s.format
        && !f.is_valid(text)
    {
        out.add(|| Problem::format(&path.pointer(), value, f.name(), f.example()));
    }
}

fn check_array<S: Sink>(a: &ArrayShape, items: &[Value], path: &Path<'_>, out: &mut S) {
    let n = items.len() as u64;
    if a.min_items.is_some_and(|m| n < m) || a.max_items.is_some_and(|m| n > m) {
        out.add(|| {
            Problem::length(
                &path.pointer(),
                items.len(),
                a.min_items,
                a.max_items,
                "items",
            )
        });
    }
    for (i, item) in items.iter().enumerate() {
        // Items of a list are never optional: a null item is a type problem.
        check(&a.items, item, &Path::Index(path, i), false, out);
    }
}

/// A JSON number as a whole number: `3`, `3.0` and large unsigned values are accepted,
/// `1.5` is not. i128 holds every i64 and u64 so bounds compare exactly.
fn as_integer(value: &Value) -> Option<i128> {
    let Value::Number(n) = value else {
        return None;
    };
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // 2^63 bounds the range a float can hold as an exact i64-sized integer for our purposes.
    if f.fract() == 0.0 && f.abs() < 9.2e18 {
        Some(f as i128)
    } else {
        None
    }
}
