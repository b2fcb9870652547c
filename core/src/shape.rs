//! Response shaping: the concise/detailed switch and the per-tool token budget.
//!
//! Generated code calls [`apply`] on the user's result, after it is serialized and before
//! paging is added ([`crate::engine::Runtime::page`] counts the items actually kept).
//!
//! **`response_format`**: `"concise"` removes the fields the spec marks detailed-only, given
//! as static paths of object keys separated by `/`, where `*` means every item of an array
//! (`tickets/*/customer_email`). `"detailed"` keeps everything.
//!
//! **Budget**: the result's size is estimated as `ceil(bytes / 3)` tokens of its compact
//! JSON. Real tokenizers average 3.5 to 4 bytes per token on English JSON, so dividing by 3
//! over-counts a little: a result under the estimate is under the budget in practice, and
//! the estimate costs one serialization, no tokenizer tables. When over budget, the largest
//! array in the result loses items from its end until the result (with its note) fits; if
//! that array is emptied and it still does not fit, the next largest is cut, and so on.
//!
//! When anything was cut, the result gets this optional top-level key, which the generator
//! declares in every budgeted tool's output schema:
//!
//! ```json
//! "truncated": {
//!   "cuts": [{"path": "/tickets", "kept": 12, "total": 50}],
//!   "budget_tokens": 2000,
//!   "message": "The result was cut to fit a budget of about 2000 tokens: kept 12 of 50 items of tickets. ..."
//! }
//! ```
//! `path` is a JSON Pointer to the array that was cut; `kept` and `total` count its items.
//! When no list is left to cut, the tool's text fields ([`ShapeSpec::texts`], a file's
//! contents) are cut from their end, and `kept` and `total` count characters.
//! Dropping items from a list keeps every remaining item valid against the output schema.

use serde::Serialize;
use serde_json::{Value, json};

/// How much detail a result carries (`response_format` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseFormat {
    /// Drop detailed-only fields (the usual default: fewer tokens).
    #[default]
    Concise,
    /// Keep every field.
    Detailed,
}

impl ResponseFormat {
    /// Reads `response_format` from validated arguments, or `default` when absent.
    pub fn from_arguments(arguments: &Value, default: ResponseFormat) -> Self {
        match arguments.get("response_format").and_then(Value::as_str) {
            Some(named) if named == ResponseFormat::Concise.as_str() => ResponseFormat::Concise,
            Some(named) if named == ResponseFormat::Detailed.as_str() => ResponseFormat::Detailed,
            _ => default,
        }
    }

    /// The format's name, as `response_format` and the metrics' `format` label spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ResponseFormat::Concise => "concise",
            ResponseFormat::Detailed => "detailed",
        }
    }
}

/// A tool's shaping rules, as static data in generated code.
#[derive(Debug, Clone, Copy)]
pub struct ShapeSpec {
    /// Paths of fields removed in concise results (`tickets/*/customer_email`).
    pub detailed_only: &'static [&'static str],
    /// Token budget of one result; `None` = unlimited.
    pub token_budget: Option<usize>,
    /// Whether the tool takes a page size (the note then suggests a smaller one).
    pub takes_limit: bool,
    /// The page size parameter's name: `limit`, or page numbers' (`perPage`).
    pub size_param: &'static str,
    /// Whether pages are asked for by number: the next page then starts after the whole
    /// page, so the note says that cut items are not on it.
    pub by_page_number: bool,
    /// Whether the tool takes `response_format` (the note then suggests `concise`).
    pub takes_response_format: bool,
    /// Top-level text fields (a file's contents) cut from their end, in characters, when
    /// cutting lists was not enough.
    pub texts: &'static [&'static str],
}

/// One array that was cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// JSON Pointer to the array.
    pub path: String,
    /// Items left.
    pub kept: usize,
    /// Items before the cut.
    pub total: usize,
}

/// Concise stripping then budget fitting; returns the cuts made (also written into the
/// result under `truncated`), or `None` when the result fit as it was.
pub fn apply(result: &mut Value, spec: &ShapeSpec, format: ResponseFormat) -> Option<Vec<Cut>> {
    if format == ResponseFormat::Concise {
        strip_detailed(result, spec.detailed_only);
    }
    let budget = spec.token_budget?;
    fit_budget(result, budget, spec)
}

/// Removes every field named by `paths` (see the module docs for the path syntax).
pub fn strip_detailed(result: &mut Value, paths: &[&str]) {
    for path in paths {
        remove_at(result, path);
    }
}

/// Removes what `path` (`/`-separated keys, `*` for every item) names below `value`. The path
/// is cut as the walk goes, not split up front: this runs on every concise result.
fn remove_at(value: &mut Value, path: &str) {
    let path = path.trim_start_matches('/');
    if path.is_empty() {
        return;
    }
    let (head, rest) = path.split_once('/').unwrap_or((path, ""));
    match value {
        Value::Array(items) if head == "*" => {
            for item in items {
                remove_at(item, rest);
            }
        }
        Value::Object(map) if rest.trim_start_matches('/').is_empty() => {
            map.remove(head);
        }
        Value::Object(map) => {
            if let Some(child) = map.get_mut(head) {
                remove_at(child, rest);
            }
        }
        _ => {}
    }
}

/// Estimated tokens of a value: `ceil(compact JSON bytes / 3)` (see the module docs).
pub fn estimate_tokens(value: &Value) -> usize {
    tokens(json_len(value))
}

/// [`estimate_tokens`], handing each top-level member of an object result to `visit` on
/// the way: the metrics read the runtime's own keys (`truncated`, the page's items) in the
/// same pass instead of looking each up again.
#[cfg(feature = "metrics")]
pub(crate) fn estimate_tokens_visiting(value: &Value, visit: impl FnMut(&str, &Value)) -> usize {
    tokens(match value {
        Value::Object(map) => object_len(map, visit),
        other => json_len(other),
    })
}

/// Bytes of `value` as compact JSON (exactly what `serde_json::to_vec` writes), counted
/// by a walk that writes nothing: this runs on every result of a tool with a token budget,
/// and on every result the metrics count.
pub fn json_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string_len(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(json_len).sum::<usize>()
        }
        Value::Object(map) => object_len(map, |_, _| {}),
    }
}

/// An object's JSON length, each member handed to `visit` as it is counted.
fn object_len(map: &serde_json::Map<String, Value>, mut visit: impl FnMut(&str, &Value)) -> usize {
    2 + map.len().saturating_sub(1)
        + map
            .iter()
            .map(|(k, v)| {
                visit(k, v);
                string_len(k) + 1 + json_len(v)
            })
            .sum::<usize>()
}

/// A string's JSON length: quotes, bytes, and what serde_json's escapes add (`\"`, `\\`
/// and the short control escapes one byte, other control characters `\u00XX` five).
///
/// Most strings escape nothing, so eight bytes at a time are first checked for any byte
/// that would be escaped; only a string with one is counted byte by byte. (Byte by byte
/// alone cost about 0.8 ns a byte, most of what the metrics spent on a page of tickets.)
fn string_len(s: &str) -> usize {
    if needs_no_escape(s.as_bytes()) {
        return 2 + s.len();
    }
    let escapes: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    2 + s.len() + escapes
}

/// Whether no byte of `bytes` is a control character, `"` or `\`.
///
/// Per 8-byte word, with the classic bit tricks: `(x - 0x01..01 * n) & !x & 0x80..80` is
/// non-zero exactly when some byte of `x` is below `n` (for `n` up to 0x80), and a byte
/// equal to `c` is a zero byte of `x ^ (0x01..01 * c)`.
fn needs_no_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    let mut words = bytes.chunks_exact(8);
    let mut found = 0;
    for word in &mut words {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight);
        found |= below(x, 0x20) | below(x ^ (ONES * 0x22), 1) | below(x ^ (ONES * 0x5c), 1);
    }
    found == 0
        && words
            .remainder()
            .iter()
            .all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

fn number_len(n: &serde_json::Number) -> usize {
    fn digits(mut n: u64) -> usize {
        let mut len = 1;
        while n >= 10 {
            n /= 10;
            len += 1;
        }
        len
    }
    if let Some(u) = n.as_u64() {
        digits(u)
    } else if let Some(i) = n.as_i64() {
        1 + digits(i.unsigned_abs())
    } else {
        // Floats are rare in results: let serde_json format this one.
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0 += bytes.len();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut count = Count(0);
        // Writing a number to a sink that never fails cannot fail.
        let _ = serde_json::to_writer(&mut count, n);
        count.0
    }
}

fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(3)
}

/// Room kept for the note while cutting; the outer loop then checks the exact size.
const NOTE_RESERVE: usize = 600;

/// Cuts the largest arrays of `result` until its estimate fits `budget` tokens and adds the
/// `truncated` note. Returns `None` when nothing had to be cut.
pub fn fit_budget(result: &mut Value, budget: usize, spec: &ShapeSpec) -> Option<Vec<Cut>> {
    let mut cuts: Vec<Cut> = Vec::new();
    // Each round empties or fits one array, so rounds are bounded by the number of arrays;
    // the cap only guards against a pathological value.
    for _ in 0..64 {
        let result_len = json_len(result);
        let note_len = note_bytes(&cuts, budget, spec);
        if tokens(result_len + note_len) <= budget {
            break;
        }
        let Some((path, _)) = largest_array(result, String::new()) else {
            break;
        };
        let Some(Value::Array(items)) = result.pointer_mut(&path) else {
            break;
        };
        let before = items.len();
        let mut bytes = result_len + note_len.max(NOTE_RESERVE);
        while tokens(bytes) > budget {
            let Some(item) = items.pop() else { break };
            // The item and the comma before it, if any, leave the serialization.
            bytes = bytes.saturating_sub(json_len(&item) + usize::from(!items.is_empty()));
        }
        let kept = items.len();
        match cuts.iter_mut().find(|c| c.path == path) {
            Some(cut) => cut.kept = kept,
            None => cuts.push(Cut {
                path,
                kept,
                total: before,
            }),
        }
    }
    cut_texts(result, budget, spec, &mut cuts);
    if cuts.is_empty() {
        return None;
    }
    if let Value::Object(map) = result {
        map.insert("truncated".into(), note(&cuts, budget, spec));
    }
    Some(cuts)
}

/// Cuts the text fields of `spec`, longest first, from their end (on a character boundary)
/// until the result fits; each cut is noted with `kept` and `total` in characters.
fn cut_texts(result: &mut Value, budget: usize, spec: &ShapeSpec, cuts: &mut Vec<Cut>) {
    for _ in 0..spec.texts.len() {
        let over = tokens(json_len(result) + note_bytes(cuts, budget, spec).max(NOTE_RESERVE))
            .saturating_sub(budget);
        if over == 0 {
            return;
        }
        let Value::Object(map) = &mut *result else {
            return;
        };
        let longest = spec
            .texts
            .iter()
            .filter(|name| !cuts.iter().any(|c| c.path == format!("/{}", escape(name))))
            .filter_map(|name| {
                map.get(*name)
                    .and_then(Value::as_str)
                    .map(|t| (*name, t.len()))
            })
            .max_by_key(|(_, len)| *len);
        let Some((name, _)) = longest else { return };
        let Some(Value::String(text)) = map.get_mut(name) else {
            return;
        };
        let total = text.chars().count();
        // Three bytes a token (the estimate's rate), and JSON escapes may make a character
        // cost more than one byte: cut a little more than the excess.
        let drop_bytes = over.saturating_mul(3).saturating_add(16);
        let mut end = text.len().saturating_sub(drop_bytes);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        cuts.push(Cut {
            path: format!("/{}", escape(name)),
            kept: text.chars().count(),
            total,
        });
    }
}

fn escape(name: &str) -> String {
    crate::problem::escape_pointer(name)
}

/// The largest non-empty array under `value` (by serialized size): its pointer and size.
fn largest_array(value: &Value, path: String) -> Option<(String, usize)> {
    let mut best: Option<(String, usize)> = None;
    let mut consider = |candidate: Option<(String, usize)>| {
        if let Some(c) = candidate
            && best.as_ref().is_none_or(|b| c.1 > b.1)
        {
            best = Some(c);
        }
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            consider(Some((path.clone(), json_len(value))));
            for (i, item) in items.iter().enumerate() {
                consider(largest_array(item, format!("{path}/{i}")));
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let child = format!("{path}/{}", crate::problem::escape_pointer(k));
                consider(largest_array(v, child));
            }
        }
        _ => {}
    }
    best
}

fn note_bytes(cuts: &[Cut], budget: usize, spec: &ShapeSpec) -> usize {
    if cuts.is_empty() {
        0
    } else {
        // `,"truncated":` plus the note itself.
        13 + json_len(&note(cuts, budget, spec))
    }
}

fn note(cuts: &[Cut], budget: usize, spec: &ShapeSpec) -> Value {
    let what: Vec<String> = cuts
        .iter()
        .map(|c| {
            let name = c.path.trim_start_matches('/');
            let unit = if spec.texts.contains(&name) {
                "characters"
            } else {
                "items"
            };
            format!(
                "kept {} of {} {unit} of {}",
                c.kept,
                c.total,
                if name.is_empty() { "the result" } else { name }
            )
        })
        .collect();
    let mut asks = vec!["narrow the query".to_owned()];
    if spec.takes_limit && spec.by_page_number {
        asks.push(format!(
            "ask for smaller pages (`{}`; the next page starts after all of this one, cut items included)",
            spec.size_param
        ));
    } else if spec.takes_limit {
        asks.push(format!("pass a smaller `{}`", spec.size_param));
    }
    if spec.takes_response_format {
        asks.push("use `response_format: \"concise\"`".into());
    }
    let message = format!(
        "The result was cut to fit a budget of about {budget} tokens: {}. To see what was cut, {}.",
        what.join("; "),
        asks.join(", or ")
    );
    json!({ "cuts": cuts, "budget_tokens": budget, "message": message })
}

#[cfg(test)]
mod tests {
    use super::json_len;
    use serde_json::json;

    #[cfg(feature = "metrics")]
    #[test]
    fn the_visiting_estimate_is_the_estimate_and_sees_each_member_once() {
        for v in [
            json!({"b": [1, 2], "a": {"x": "y"}, "c": null}),
            json!([1]),
            json!("s"),
        ] {
            let mut seen = Vec::new();
            let tokens = super::estimate_tokens_visiting(&v, |k, _| seen.push(k.to_owned()));
            assert_eq!(tokens, super::estimate_tokens(&v), "{v}");
            let keys: Vec<String> = v
                .as_object()
                .map_or(vec![], |m| m.keys().cloned().collect());
            assert_eq!(seen, keys, "{v}");
        }
    }

    #[test]
    fn json_len_is_what_serde_json_writes() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(9),
            json!(10),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(-1),
            json!(1.5),
            json!(-0.000_001_25),
            json!(1e300),
            json!(""),
            json!("plain"),
            json!(
                "quote \" backslash \\ newline \n tab \t cr \r bell \u{7} nul \u{0} esc \u{1b} del \u{7f}"
            ),
            json!("\u{8}\u{c} é ✓ 😀 \u{2028}"),
            json!([]),
            json!([1, [2, [3, []]], {}]),
            json!({"a": {"b\n": [null, true, "x"]}, "": 0, "k\"": -3.25}),
        ];
        for v in values {
            assert_eq!(json_len(&v), serde_json::to_vec(&v).unwrap().len(), "{v}");
        }
    }

    /// Every byte that is escaped, and bytes on either side of each boundary the word-wise
    /// check tests at, in every position of strings of one to twenty bytes.
    #[test]
    fn string_lengths_count_escapes_in_every_position() {
        let specials = [
            '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{8}', '\u{20}', '\u{21}', '\u{23}',
        ];
        let others = ['\u{5b}', '\u{5d}', '\u{7f}', 'é', 'a'];
        for len in 1..=20 {
            for position in 0..len {
                for c in specials.iter().chain(&others) {
                    let text: String = (0..len)
                        .map(|i| if i == position { *c } else { 'x' })
                        .collect();
                    let v = serde_json::Value::String(text);
                    assert_eq!(json_len(&v), serde_json::to_vec(&v).unwrap().len(), "{v}");
                }
            }
        }
    }
}
