//! The errors of a spec's own catalog: the message template filled from the typed details.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::ToolError;

/// An error of the spec's own catalog: `details` (the error's typed details, serialized to
/// a JSON object) fill the `{placeholders}` of `template` and become the error's
/// `details`; `retryable` is the catalog's flag.
///
/// ```
/// use serde_json::json;
/// let e = toolspec_runtime::engine::glue::catalog_error(
///     "not_found", "No ticket {ticket_id}.", false, &json!({"ticket_id": "T-9"}));
/// assert_eq!(e.message, "No ticket T-9.");
/// assert_eq!(e.details["ticket_id"], "T-9");
/// ```
pub fn catalog_error<D: Serialize + ?Sized>(
    code: &'static str,
    template: &str,
    retryable: bool,
    details: &D,
) -> ToolError {
    let details = match serde_json::to_value(details) {
        Ok(Value::Object(map)) => map,
        Ok(Value::Null) => Map::new(),
        Ok(other) => Map::from_iter([("value".to_owned(), other)]),
        Err(e) => return ToolError::internal(format!("details of {code}: {e}")),
    };
    let message = fill_template(template, &details);
    ToolError::new(code, message, retryable, Value::Object(details))
}

/// Replaces every `{name}` in `template` (`name` of ASCII letters, digits and `_`) with
/// `details[name]`: strings as they are, other values as JSON. Braces that are not such a
/// placeholder stay as written.
///
/// A sentence whose placeholder names a detail that is absent or `null` (an optional
/// detail the error was raised without) is left out, so the agent never reads a literal
/// `{name}`: `"Retry after {retry_after_s} s."` goes, the rest of the message stays. A
/// message all of whose sentences go keeps its first, with `unknown` in the gaps.
///
/// ```
/// use serde_json::{Map, json};
/// use toolspec_runtime::engine::glue::fill_template;
/// let details: Map<String, serde_json::Value> =
///     serde_json::from_value(json!({"ticket_id": "T-9"})).unwrap();
/// let m = fill_template("No ticket {ticket_id}. It closed on {closed_on}. Search again.", &details);
/// assert_eq!(m, "No ticket T-9. Search again.");
/// ```
pub fn fill_template(template: &str, details: &Map<String, Value>) -> String {
    let missing = |name: &str| details.get(name).is_none_or(Value::is_null);
    if !placeholder_names(template).any(&missing) {
        return fill_present(template, details);
    }
    let sentences = split_sentences(template);
    let kept: Vec<&str> = sentences
        .iter()
        .copied()
        .filter(|s| !placeholder_names(s).any(&missing))
        .collect();
    if kept.is_empty() {
        let mut with_gaps = details.clone();
        for name in placeholder_names(sentences[0]) {
            if missing(name) {
                with_gaps.insert(name.to_owned(), Value::from("unknown"));
            }
        }
        return fill_present(sentences[0].trim_end(), &with_gaps);
    }
    fill_present(kept.concat().trim_end(), details)
}

/// The names of the `{name}` placeholders of `text`.
fn placeholder_names(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(|(open, _)| {
        let after = &text[open + 1..];
        let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
        (len > 0 && after[len..].starts_with('}')).then(|| &after[..len])
    })
}

/// `text` cut after each `. `, `? ` or `! ` (each piece keeps its end and the space after).
fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len().saturating_sub(1) {
        if matches!(bytes[i], b'.' | b'?' | b'!') && bytes[i + 1] == b' ' {
            out.push(&text[start..i + 2]);
            start = i + 2;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// [`fill_template`]'s replacement of the placeholders whose detail is there.
fn fill_present(template: &str, details: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let closed = after[name_len..].starts_with('}');
        match details.get(name) {
            Some(value) if closed && !name.is_empty() => {
                match value {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                }
                rest = &after[name_len + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_fill_known_placeholders_only() {
        let d = json!({"id": "T-1", "n": 3, "s": "{id}"});
        let Value::Object(d) = d else { unreachable!() };
        assert_eq!(fill_template("a {id} b {n}", &d), "a T-1 b 3");
        assert_eq!(
            fill_template("{} {id {\"x\": 1} {s}", &d),
            "{} {id {\"x\": 1} {id}"
        );
        assert_eq!(fill_template("é{id}é{", &d), "éT-1é{");
    }

    #[test]
    fn a_sentence_whose_detail_is_missing_is_left_out() {
        let d = json!({"id": "T-1", "gone": null});
        let Value::Object(d) = d else { unreachable!() };
        let fill = |t: &str| fill_template(t, &d);
        assert_eq!(fill("No {id}. Retry in {wait} s. Ask."), "No T-1. Ask.");
        assert_eq!(fill("No {id}. Closed on {gone}."), "No T-1.");
        assert_eq!(fill("Retry in {wait} s? Or not! No {id}"), "Or not! No T-1");
        // Nothing left: the first sentence, with the gaps said.
        assert_eq!(
            fill("Retry in {wait} s. Later {gone}."),
            "Retry in unknown s."
        );
        // A value that is itself a placeholder is not filled again.
        assert!(!fill("Ok {id}.").contains('{'));
    }
}
