//! [`Problem`]: one thing wrong with a call, and how a list of them becomes one
//! [`ToolError`].
//!
//! Validation reports every problem of a call at once. With exactly one problem the error's
//! `code` is that problem's code (`invalid_enum`, ...) and its facts are also copied to the
//! top level of `details`; with several the code is `invalid_arguments`. In both cases
//! `details.problems` lists each problem as
//! `{"code", "path", "message", ...facts}` where `path` is a JSON Pointer (`/status`,
//! `/items/2/sku`) and the facts are among `allowed`, `expected`, `minimum`, `maximum`,
//! `min_length`, `max_length`, `min_items`, `max_items`, `pattern`, `format`, `example`.
//! Every message ends with `Example of a valid call: {...}` built from the spec's examples.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::catalog::{self, BuiltinError};
use crate::error::ToolError;

/// The most problems one refusal lists in full; the rest are counted ("and K more").
pub const MAX_PROBLEMS: usize = 20;

pub use crate::text::ECHO_CHARS;
pub(crate) use crate::text::echo;

/// The problems of one call: the first [`MAX_PROBLEMS`] in full, the rest only counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Problems {
    list: Vec<Problem>,
    more: usize,
}

impl Problems {
    /// Adds the problem `make` builds, or only counts it once the list is full (so a
    /// hostile call does not pay for messages nobody reads).
    pub fn add(&mut self, make: impl FnOnce() -> Problem) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(make());
        } else {
            self.more += 1;
        }
    }

    /// How many more problems would be listed in full.
    pub fn room(&self) -> usize {
        MAX_PROBLEMS.saturating_sub(self.list.len())
    }

    /// Problems found beyond the listed ones.
    pub fn more(&self) -> usize {
        self.more
    }

    /// Every problem found, listed or not.
    pub fn total(&self) -> usize {
        self.list.len() + self.more
    }
}

impl std::ops::Deref for Problems {
    type Target = [Problem];
    fn deref(&self) -> &[Problem] {
        &self.list
    }
}

impl From<Vec<Problem>> for Problems {
    fn from(list: Vec<Problem>) -> Self {
        let mut problems = Problems::default();
        for p in list {
            problems.add(|| p);
        }
        problems
    }
}

/// One problem with one value of a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// The built-in code for this kind of problem (`missing_argument`, `invalid_enum`, ...).
    pub code: &'static str,
    /// JSON Pointer to the value (RFC 6901): `/status`, `/items/2/sku`; `""` is the whole call.
    pub path: String,
    /// One sentence: what was wrong and what is allowed.
    pub message: String,
    /// The allowed facts (`allowed`, `minimum`, `expected`, ...), flattened into the problem.
    #[serde(flatten)]
    pub facts: Map<String, Value>,
}

impl Problem {
    /// A problem of kind `entry` at `path`, with a message and facts (a JSON object).
    pub fn new(
        entry: &BuiltinError,
        path: impl Into<String>,
        message: String,
        facts: Value,
    ) -> Self {
        let facts = match facts {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self {
            code: entry.code,
            path: path.into(),
            message,
            facts,
        }
    }

    /// `missing_argument`: a required value is absent (or null).
    pub fn missing(path: &str, expected: &str) -> Self {
        Self::new(
            &catalog::MISSING_ARGUMENT,
            path,
            format!("Missing required argument '{}' ({expected}).", label(path)),
            json!({ "expected": expected }),
        )
    }

    /// `unknown_argument`: a key the object does not take; `allowed` lists the keys it does.
    pub fn unknown(parent: &str, key: &str, allowed: &[&str]) -> Self {
        let key = &echo(key);
        let path = format!("{parent}/{}", escape_pointer(key));
        let list = if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed.join(", ")
        };
        let message = if parent.is_empty() {
            format!("Unknown argument '{key}'. Allowed arguments: {list}.")
        } else {
            format!(
                "Unknown field '{key}' in {}. Allowed fields: {list}.",
                label(parent)
            )
        };
        Self::new(
            &catalog::UNKNOWN_ARGUMENT,
            path,
            message,
            json!({ "allowed": allowed }),
        )
    }

    /// `invalid_type`: the value has the wrong JSON type; `expected` names the right one.
    pub fn wrong_type(path: &str, expected: &str, got: &Value) -> Self {
        Self::new(
            &catalog::INVALID_TYPE,
            path,
            format!(
                "{} must be {}, not {} {}.",
                label(path),
                with_article(expected),
                type_name(got),
                show(got)
            ),
            json!({ "expected": expected }),
        )
    }

    /// `invalid_enum`: the value is not one of `allowed`; `optional` adds "or omit it".
    pub fn not_allowed(path: &str, got: &Value, allowed: &[&str], optional: bool) -> Self {
        Self::not_in(path, got, allowed.join(", "), json!(allowed), optional)
    }

    /// `invalid_enum` for a whole number that is not one of `allowed` (an integer enum);
    /// `details.allowed` lists the numbers as numbers.
    pub fn not_allowed_integer(path: &str, got: &Value, allowed: &[i64], optional: bool) -> Self {
        let list: Vec<String> = allowed.iter().map(i64::to_string).collect();
        Self::not_in(path, got, list.join(", "), json!(allowed), optional)
    }

    /// `invalid_enum` with the values as the message lists them and as `details.allowed`.
    fn not_in(path: &str, got: &Value, listed: String, allowed: Value, optional: bool) -> Self {
        let omit = if optional { ", or omit it" } else { "" };
        Self::new(
            &catalog::INVALID_ENUM,
            path,
            format!(
                "{} {} is not valid. Use one of: {listed}{omit}.",
                label(path),
                show(got),
            ),
            json!({ "allowed": allowed }),
        )
    }

    /// `out_of_range`: a number outside `[minimum, maximum]` (either bound may be absent).
    pub fn out_of_range(
        path: &str,
        got: &Value,
        minimum: Option<Value>,
        maximum: Option<Value>,
    ) -> Self {
        let range = match (&minimum, &maximum) {
            (Some(lo), Some(hi)) => format!("Use a value from {lo} to {hi}"),
            (Some(lo), None) => format!("Use a value of at least {lo}"),
            (None, Some(hi)) => format!("Use a value of at most {hi}"),
            (None, None) => "Use a value in range".to_owned(),
        };
        let mut facts = Map::new();
        if let Some(lo) = minimum {
            facts.insert("minimum".into(), lo);
        }
        if let Some(hi) = maximum {
            facts.insert("maximum".into(), hi);
        }
        Self::new(
            &catalog::OUT_OF_RANGE,
            path,
            format!("{} {} is out of range. {range}.", label(path), show(got)),
            Value::Object(facts),
        )
    }

    /// `invalid_length`: a string (in characters, `unit` = "characters") or array
    /// (`unit` = "items") of `len` outside its bounds. Facts use `min_length`/`max_length` for
    /// strings and `min_items`/`max_items` for arrays, as in JSON Schema.
    pub fn length(path: &str, len: usize, min: Option<u64>, max: Option<u64>, unit: &str) -> Self {
        let (min_key, max_key) = if unit == "items" {
            ("min_items", "max_items")
        } else if unit == "entries" {
            ("min_entries", "max_entries")
        } else {
            ("min_length", "max_length")
        };
        let bounds = match (min, max) {
            (Some(lo), Some(hi)) => format!("Use {lo} to {hi} {unit}"),
            (Some(lo), None) => format!("Use at least {lo} {unit}"),
            (None, Some(hi)) => format!("Use at most {hi} {unit}"),
            (None, None) => format!("Use a valid number of {unit}"),
        };
        let mut facts = Map::new();
        if let Some(lo) = min {
            facts.insert(min_key.into(), lo.into());
        }
        if let Some(hi) = max {
            facts.insert(max_key.into(), hi.into());
        }
        Self::new(
            &catalog::INVALID_LENGTH,
            path,
            format!("{} has {len} {unit}. {bounds}.", label(path)),
            Value::Object(facts),
        )
    }

    /// `pattern_mismatch`: the string does not match `pattern`.
    pub fn pattern(path: &str, got: &Value, pattern: &str) -> Self {
        Self::new(
            &catalog::PATTERN_MISMATCH,
            path,
            format!(
                "{} {} does not match the required pattern {pattern}.",
                label(path),
                show(got)
            ),
            json!({ "pattern": pattern }),
        )
    }

    /// `missing_argument` for a set: none of `names` was passed, and `exactly` one of them
    /// (else at least one) must be. `path` is the object's.
    pub fn none_of(path: &str, names: &[&str], exactly: bool) -> Self {
        let how = if exactly {
            "exactly one"
        } else {
            "at least one"
        };
        let key = if exactly { "one_of" } else { "any_of" };
        let place = if path.is_empty() {
            String::new()
        } else {
            format!(" in {}", label(path))
        };
        Self::new(
            &catalog::MISSING_ARGUMENT,
            path,
            format!("Pass {how} of {}{place}.", quoted(names)),
            json!({ key: names }),
        )
    }

    /// `conflicting_arguments`: several of `names` were passed (`given`), and only one may be.
    pub fn conflict(path: &str, names: &[&str], given: &[&str]) -> Self {
        Self::new(
            &catalog::CONFLICTING_ARGUMENTS,
            path,
            format!(
                "Pass only one of {}; the call has {}. Keep the one that says what you mean and remove the others.",
                quoted(names),
                quoted(given)
            ),
            json!({ "one_of": names, "given": given }),
        )
    }

    /// `missing_argument`: the field at `path` must come with `given`, which was passed
    /// (`together` is the whole set of fields that go together).
    pub fn needed(path: &str, given: &[&str], together: &[&str]) -> Self {
        Self::new(
            &catalog::MISSING_ARGUMENT,
            path,
            format!(
                "'{}' is required when {} is passed.",
                label(path),
                quoted(given)
            ),
            json!({ "with": given, "together": together }),
        )
    }

    /// `missing_argument`: the field at `path` is required while `when` holds one of
    /// `values` (`'line' is required when 'subject_type' is LINE.`).
    pub fn needed_when(path: &str, when: &str, values: &[&str]) -> Self {
        Self::new(
            &catalog::MISSING_ARGUMENT,
            path,
            format!(
                "'{}' is required when '{when}' is {}.",
                label(path),
                values.join(" or ")
            ),
            json!({ "when": when, "values": values }),
        )
    }

    /// `argument_not_applicable`: the field at `path` is taken only while `when` holds one
    /// of `values`, and the call's `when` holds `held` (`None`: left out, with no default
    /// among `values`).
    pub fn not_applicable(path: &str, when: &str, values: &[&str], held: Option<&str>) -> Self {
        let call = match held {
            Some(h) => format!("this call has '{when}' {}", echo(h)),
            None => format!("this call leaves '{when}' out"),
        };
        Self::new(
            &catalog::ARGUMENT_NOT_APPLICABLE,
            path,
            format!(
                "'{}' applies only when '{when}' is {}; {call}. Remove '{}', or set '{when}' to {}.",
                label(path),
                values.join(" or "),
                label(path),
                values.join(" or ")
            ),
            json!({ "when": when, "values": values, "given": held }),
        )
    }

    /// `invalid_key`: a key of a map breaks the rules for its keys (length, pattern). `path`
    /// is the entry's; the key itself is echoed bounded.
    pub fn key(
        path: &str,
        key: &str,
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<&str>,
    ) -> Self {
        let mut rules = Vec::new();
        match (min, max) {
            (Some(lo), Some(hi)) => rules.push(format!("{lo} to {hi} characters")),
            (Some(lo), None) => rules.push(format!("at least {lo} characters")),
            (None, Some(hi)) => rules.push(format!("at most {hi} characters")),
            (None, None) => {}
        }
        let mut facts = Map::new();
        if let Some(lo) = min {
            facts.insert("min_length".into(), lo.into());
        }
        if let Some(hi) = max {
            facts.insert("max_length".into(), hi.into());
        }
        if let Some(p) = pattern {
            rules.push(format!("matching {p}"));
            facts.insert("pattern".into(), p.into());
        }
        let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
        Self::new(
            &catalog::INVALID_KEY,
            path,
            format!(
                "Key '{}' of {} is not allowed: keys must be {}.",
                echo(key),
                label(parent),
                rules.join(", ")
            ),
            Value::Object(facts),
        )
    }

    /// `invalid_format`: the string is not a valid `format` (`email`, `date-time`, ...);
    /// `example` is a value in that format.
    pub fn format(path: &str, got: &Value, format: &str, example: &str) -> Self {
        Self::new(
            &catalog::INVALID_FORMAT,
            path,
            format!(
                "{} {} is not a valid {format}. Use a value like {example}.",
                label(path),
                show(got)
            ),
            json!({ "format": format, "example": example }),
        )
    }
}

/// `'a', 'b'` for a list of field names.
fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl ToolError {
    /// One error for all `problems` of a call (see the module docs for the shape).
    /// `example_call` is the tool's valid example call as JSON text, from the spec.
    ///
    /// With no problems (a caller bug) this still returns an honest `invalid_arguments`.
    pub fn from_problems(problems: impl Into<Problems>, example_call: &str) -> Self {
        let problems: Problems = problems.into();
        let example = format!("Example of a valid call: {example_call}");
        let mut details = Map::new();
        let (entry, message) = match &*problems {
            [one] if problems.more == 0 => {
                for (k, v) in &one.facts {
                    details.insert(k.clone(), v.clone());
                }
                details.insert("path".into(), one.path.clone().into());
                let entry = catalog::find(one.code).unwrap_or(&catalog::INVALID_ARGUMENTS);
                (entry, format!("{} {example}", one.message))
            }
            many => {
                let listed: Vec<String> = many
                    .iter()
                    .enumerate()
                    .map(|(i, p)| format!("{}) {}", i + 1, p.message))
                    .collect();
                let more = match problems.more {
                    0 => String::new(),
                    k => format!(" ...and {k} more, not listed."),
                };
                let message = format!(
                    "The call has {} problems: {}{more} {example}",
                    problems.total(),
                    listed.join(" ")
                );
                (&catalog::INVALID_ARGUMENTS, message)
            }
        };
        let list = serde_json::to_value(&problems.list).unwrap_or(Value::Array(Vec::new()));
        details.insert("problems".into(), list);
        if problems.more > 0 {
            details.insert("more_problems".into(), problems.more.into());
        }
        let mut err = ToolError::builtin(entry, message, Value::Null);
        *err.details = details;
        err
    }
}

/// The name a message uses for the value at `path`: the pointer without its leading slash
/// (`status`, `items/2/sku`), or "arguments" for the whole call.
fn label(path: &str) -> String {
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    if trimmed.is_empty() {
        "arguments".to_owned()
    } else {
        trimmed.replace("~1", "/").replace("~0", "~")
    }
}

/// Escapes a key for a JSON Pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`).
pub(crate) fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// How a value appears in a message: strings in single quotes, the rest as JSON, cut short.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", echo(s)),
        // Serializing a huge array to cut it would cost what the cut saves: say its size.
        Value::Array(a) if a.len() > 8 => format!("a list of {} items", a.len()),
        Value::Object(o) if o.len() > 8 => format!("an object of {} keys", o.len()),
        other => echo(&other.to_string()),
    }
}

/// JSON type name of a value, as a schema would say it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn with_article(word: &str) -> String {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {word}"),
        _ => format!("a {word}"),
    }
}
