//! The phrasebook: the tool description an agent reads, composed from the spec's structured
//! parts, and the words every output uses for a constraint ([`count_words`],
//! [`bound_words`]).
//!
//! This is the one place where facts about a tool (what it returns, when not to use it,
//! its page limits, tier, idempotency and preview behaviour, a length or a range) become
//! words. The MCP, Anthropic
//! and OpenAI tool lists, the docs and the Rust definitions all call [`tool_description`], so
//! they cannot say different things, and the numbers in it are the ones the runtime enforces.

use crate::model::{Approval, Effect, Requirement, Selection, Tool};
use crate::spec::format::Tier;

/// The full description of a tool, as every output shows it.
pub fn tool_description(tool: &Tool) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.push(sentence(&tool.summary.text));
    parts.push(sentence(&format!(
        "Returns {}",
        lower_first(&tool.returns.text)
    )));
    if let Some(when) = &tool.use_when {
        parts.push(sentence(&format!("Use when {}", lower_first(&when.text))));
    }
    for nf in &tool.not_for {
        parts.push(format!(
            "Not for {}: call {} instead.",
            trim_period(&lower_first(&nf.when.text)),
            nf.use_tool.text
        ));
    }
    parts.extend(content_sentence(tool));
    parts.extend(tool.requires.iter().map(requirement_sentence));
    // Paging, response_format and the idempotency key are said once, by the parameters that
    // carry them (`limit`, `cursor`, `response_format`, `idempotency_key`): every provider's
    // list shows them beside this description.
    parts.push(tier_sentence(tool));
    parts.extend(effect_sentence(tool));
    parts.extend(tool.time.as_ref().map(time_sentence));
    parts.extend(tool.rate_limit.as_ref().map(|l| l.sentence()));
    parts.join(" ")
}

/// How long a tool takes and when it is stopped, as every output says it: "Usually takes
/// 1s; stopped after 10s."
pub fn time_sentence(time: &crate::model::TimeLimit) -> String {
    let limit = crate::model::format_duration(time.limit);
    match time.usual {
        Some(usual) => format!(
            "Usually takes {}; stopped after {limit}.",
            crate::model::format_duration(usual)
        ),
        None => format!("Stopped after {limit}."),
    }
}

/// Whether calls run as tasks and for how long a task's result is kept, for the people who
/// run and integrate the server (the tool page): "Runs as a task for MCP clients that
/// support tasks; its result is kept for 1h." Not in the description: the host, not the
/// model, decides whether a call runs as a task, and other providers have no tasks at all;
/// a client reads the lifetime from the task itself (`ttlMs`).
pub fn task_sentence(time: &crate::model::TimeLimit) -> Option<String> {
    time.task_kept.map(|kept| {
        format!(
            "Runs as a task for MCP clients that support tasks; its result is kept for {}.",
            crate::model::format_duration(kept)
        )
    })
}

/// What a retry may do when nothing keeps it from repeating a change made at a remote
/// service (`effect: remote_unprotected`). The other effects' retries are safe, which the
/// `idempotency_key` parameter says where it is passed.
fn effect_sentence(tool: &Tool) -> Option<String> {
    (tool.effect == Effect::RemoteUnprotected).then(|| {
        "After an error or no answer, a retry may make the change twice: check first.".to_string()
    })
}

/// Where a tool's content outputs go (`The image screenshot comes as its own content
/// block.`), so a model that reads the structured result knows what it will not find there.
fn content_sentence(tool: &Tool) -> Option<String> {
    let moved: Vec<String> = tool
        .spec_output()
        .filter_map(|f| match f.ty.kind {
            // `image (image)` would say one word twice.
            crate::model::Kind::Content(c) if c.moves() && f.name == c.as_str() => {
                Some(f.name.clone())
            }
            crate::model::Kind::Content(c) if c.moves() => {
                Some(format!("{} ({})", f.name, c.as_str()))
            }
            _ => None,
        })
        .collect();
    (!moved.is_empty()).then(|| {
        format!(
            "Sent as content blocks beside the JSON result: {}.",
            moved.join(", ")
        )
    })
}

/// A rule over which parameters go together, as the one sentence every provider reads (no
/// provider keeps a keyword for it at the top of a tool's parameters: the APIs that take
/// tool lists refuse `allOf`, `oneOf` and `if` there, and MCP clients pass the schema on).
/// A `when` rule reads `When subject_type is LINE, pass line.` or `after only when method
/// is get_review_comments.`
pub fn requirement_sentence(r: &Requirement) -> String {
    let list = |names: &[crate::model::Text]| {
        names
            .iter()
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match r {
        Requirement::ExactlyOne(n) => format!("Pass exactly one of {}.", list(n)),
        Requirement::AtLeastOne(n) => format!("Pass at least one of {}.", list(n)),
        Requirement::AllOrNone(n) => format!("Pass all of {} or none.", list(n)),
        Requirement::Requires { field, needs } => {
            format!("{} only together with {}.", field.text, list(needs))
        }
        Requirement::When {
            field,
            values,
            needs,
            allows,
            ..
        } => {
            let values: Vec<&str> = values.iter().map(|v| v.text.as_str()).collect();
            let when = format!("{} is {}", field.text, values.join(" or "));
            match (needs.is_empty(), allows.is_empty()) {
                (false, false) => format!(
                    "When {when}, pass {}; {} only then.",
                    list(needs),
                    list(allows)
                ),
                (false, true) => format!("When {when}, pass {}.", list(needs)),
                _ => format!("{} only when {when}.", list(allows)),
            }
        }
    }
}

/// What an output union selected by a parameter holds, as its output schema says it
/// (`Its kind is the call's method.`).
pub fn selection_sentence(s: &Selection) -> String {
    format!("Its {} is the call's {}.", s.tag, s.param.text)
}

/// What an output union selected by a parameter holds for each value, as the docs say it:
/// `` when `method` is `get_diff`, the result is `get_diff` ``, with `code` marking names.
pub fn selection_words(s: &Selection, values: &[String], code: fn(&str) -> String) -> Vec<String> {
    values
        .iter()
        .map(|v| {
            format!(
                "when {} is {}, the result is {}",
                code(&s.param.text),
                code(v),
                code(v)
            )
        })
        .collect()
}

/// How a previewed tool is called: preview, show, apply with the id.
fn preview_steps(p: &crate::model::Preview) -> String {
    if p.approval == Approval::Host {
        return approval_explained(p.approval).to_string();
    }
    // How to apply is the preview_id parameter's to say; this says who decides.
    let steps = "Without preview_id a call only previews: show it to the user and apply only once they agree";
    match p.approval {
        Approval::HostOrPreview => format!(
            "{steps} (a client with MCP elicitation asks them in the call; a no is approval_declined: do not retry)."
        ),
        // The steps already say the user agrees first; that is all "preview" adds.
        _ => format!("{steps}."),
    }
}

fn tier_sentence(tool: &Tool) -> String {
    match tool.tier {
        Tier::ReadOnly => "Read-only.".to_string(),
        Tier::Reversible => {
            let result = if tool.preview.is_some() {
                "the applied result's"
            } else {
                "the result's"
            };
            // An undo reverts the change at the service; what the service did with it in
            // the meantime (a notification, a webhook) is not the toolset's to recall.
            let reverts = if tool.effect.is_remote() {
                "reverts it at the remote service, not what that service did with it meanwhile (notifications it sent)"
            } else {
                "reverts it"
            };
            let mut s = format!("Reversible: {result} undo is the call that {reverts}.");
            if let Some(p) = &tool.preview {
                s.push(' ');
                s.push_str(&preview_steps(p));
            }
            s
        }
        Tier::Irreversible => match &tool.preview {
            Some(p) if p.approval == Approval::Host => {
                format!("Irreversible. {}", approval_explained(p.approval))
            }
            Some(p) => format!("Irreversible: {}", lower_first(&preview_steps(p))),
            // Why no preview is needed is for the people who review the spec (docs, check);
            // the agent needs what the call does.
            None if tool.low_risk.is_some() => {
                "Irreversible, in one call without a preview.".to_string()
            }
            None => "Irreversible.".to_string(),
        },
    }
}

/// Where a write's change happens and what a retry of it can do, in the words the docs'
/// safety section and `toolspec check` use (the agent reads the same promise in the
/// `idempotency_key` parameter, or in the tool's description for `remote_unprotected`).
pub fn effect_explained(effect: Effect) -> &'static str {
    match effect {
        Effect::Store => {
            "In the server's own store, committed together with the call's idempotency record: a retry never makes the change twice."
        }
        Effect::RemoteKeyed => {
            "At a remote service that receives a key derived from the call's idempotency_key, the same on every retry of one call, and makes the change once per key: a retry never makes it twice, as long as the service honours the key."
        }
        Effect::RemoteLookup => {
            "At a remote service the server can query: each attempt is recorded before it runs, and a retry after an unknown outcome (the server died, the answer was lost) looks the change up there instead of making it again."
        }
        Effect::RemoteUnprotected => {
            "At a remote service that can neither recognise a retry nor be asked whether a change was made: at least once. After an error or no answer, a retry may make the change twice."
        }
    }
}

/// Who approves an irreversible change, in the words the docs' safety section and
/// `toolspec check` use (a `host` approval's tool description says it in these words too;
/// the other descriptions fold it into their preview steps, addressed to the agent).
pub fn approval_explained(approval: Approval) -> &'static str {
    match approval {
        Approval::HostOrPreview => {
            "A client with MCP elicitation asks the user in the call; elsewhere the agent shows the preview, which is not the user's approval. A no is approval_declined (do not retry)."
        }
        Approval::Host => {
            "The user approves it through the client (MCP elicitation), in the call; a no is approval_declined (do not retry), and a client that cannot ask gets approval_unavailable."
        }
        Approval::Preview => {
            "The preview is not the user's approval: apply it only once they agree."
        }
    }
}

/// `s` trimmed and ended with a full stop unless it already ends a sentence; empty stays
/// empty (a missing part adds nothing).
pub fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() || s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

/// `s` with its first letter upper-case (`up to 5 items` becomes `Up to 5 items`).
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn trim_period(s: &str) -> &str {
    s.trim().trim_end_matches('.')
}

/// Lower-cases the first letter unless the first word looks like a name or an acronym
/// (`Ticket` becomes `ticket`; `SSO` and `T-1000` stay).
fn lower_first(s: &str) -> String {
    let s = s.trim();
    // Punctuation after the word (`Nobody;`) says nothing about how it is spelt.
    let first_word = s
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(|c: char| c.is_ascii_punctuation());
    let keep = first_word
        .chars()
        .skip(1)
        .any(|c| c.is_uppercase() || !c.is_alphabetic());
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if !keep => c.to_lowercase().chain(chars).collect(),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_words_say_each_value_and_what_it_means() {
        let levels = [10_i64, 20, 50];
        let meanings = [(10, "Guest.".to_string()), (50, "Owner.".to_string())];
        assert_eq!(
            enum_words(&levels, &meanings, str::to_owned),
            "10 (guest), 20, 50 (owner)"
        );
        let statuses = ["open".to_string(), "closed".to_string()];
        assert_eq!(
            enum_words(&statuses, &[], |v| format!("`{v}`")),
            "`open`, `closed`"
        );
    }

    #[test]
    fn lowercases_plain_words_only() {
        assert_eq!(lower_first("Matching tickets"), "matching tickets");
        assert_eq!(lower_first("SSO tickets"), "SSO tickets");
        assert_eq!(sentence("Ends here"), "Ends here.");
        assert_eq!(sentence("Ends here."), "Ends here.");
    }
}

/// What a count range counts, in the words for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// A string's length.
    Characters,
    /// A list's length.
    Items,
    /// A map's number of entries.
    Entries,
}

impl Counted {
    fn unit(self, n: u64) -> &'static str {
        match (self, n) {
            (Counted::Characters, 1) => "character",
            (Counted::Characters, _) => "characters",
            (Counted::Items, 1) => "item",
            (Counted::Items, _) => "items",
            (Counted::Entries, 1) => "entry",
            (Counted::Entries, _) => "entries",
        }
    }
}

/// A length range in words: `1-200 characters`, `exactly 3 items`, `at least 1 item`,
/// `up to 5 items`; `None` when nothing is bounded (a minimum of 0 bounds nothing).
pub fn count_words(min: Option<u64>, max: Option<u64>, counted: Counted) -> Option<String> {
    let unit = |n| counted.unit(n);
    match (min, max) {
        (Some(a), Some(b)) if a == b => Some(format!("exactly {a} {}", unit(a))),
        (Some(a), Some(b)) => Some(format!("{a}-{b} {}", unit(2))),
        (Some(a), None) if a > 0 => Some(format!("at least {a} {}", unit(a))),
        (_, Some(b)) => Some(format!("up to {b} {}", unit(b))),
        _ => None,
    }
}

/// An enum's values in words, each with what it means where the spec says
/// (`open (waiting for support), pending, closed`; an integer's `1 (urgent), 2, 5`); `show`
/// writes one value (plain, or as code for Markdown).
pub fn enum_words<T: PartialEq + std::fmt::Display>(
    values: &[T],
    descriptions: &[(T, String)],
    show: impl Fn(&str) -> String,
) -> String {
    values
        .iter()
        .map(|v| {
            let meaning = descriptions
                .iter()
                .find(|(value, _)| value == v)
                .map(|(_, d)| lower_first(d.trim_end_matches('.')));
            let v = show(&v.to_string());
            match meaning {
                Some(d) => format!("{v} ({d})"),
                None => v,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `null` means for a nullable field, lower-case: an optional parameter's `null`
/// clears it (leaving it out keeps it); otherwise `null` says there is none.
pub fn null_words(f: &crate::model::Field) -> String {
    if f.required || f.origin != crate::model::Origin::Spec {
        "null for none".into()
    } else {
        "null clears it; left out, it is kept".into()
    }
}

/// A map's rules in words, lower-case phrases: `up to 50 entries`, `keys up to 40
/// characters`, `keys matching ^[a-z_]+$` (the pattern as written). Empty when unbounded.
pub fn map_words(keys: &crate::model::StringRules, max_entries: Option<u64>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = count_words(None, max_entries, Counted::Entries) {
        out.push(c);
    }
    if let Some(c) = count_words(keys.min_length, keys.max_length, Counted::Characters) {
        out.push(format!("keys {c}"));
    }
    if let Some(p) = &keys.pattern {
        out.push(format!("keys matching {p}"));
    }
    out
}

/// Numeric bounds in words: `1 to 50`, `at least 0`, `at most 2.5`; each bound written as
/// JSON writes it (`0`, not `0.0`).
pub fn bound_words<N: Into<serde_json::Number>>(min: Option<N>, max: Option<N>) -> Option<String> {
    let text = |n: N| n.into().to_string();
    match (min.map(text), max.map(text)) {
        (Some(a), Some(b)) => Some(format!("{a} to {b}")),
        (Some(a), None) => Some(format!("at least {a}")),
        (None, Some(b)) => Some(format!("at most {b}")),
        (None, None) => None,
    }
}

/// A float bound as JSON writes a number: whole values without `.0` (`0`, `42.5`); `None`
/// for a value JSON cannot hold (NaN, infinity).
pub fn json_number(v: f64) -> Option<serde_json::Number> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        return Some(serde_json::Number::from(v as i64));
    }
    serde_json::Number::from_f64(v)
}

#[cfg(test)]
mod words {
    use super::*;

    #[test]
    fn counts_and_bounds() {
        let c = |a, b, u| count_words(a, b, u);
        assert_eq!(
            c(Some(1), Some(200), Counted::Characters).as_deref(),
            Some("1-200 characters")
        );
        assert_eq!(
            c(None, Some(1), Counted::Items).as_deref(),
            Some("up to 1 item")
        );
        assert_eq!(
            c(Some(3), Some(3), Counted::Items).as_deref(),
            Some("exactly 3 items")
        );
        assert_eq!(
            c(Some(1), None, Counted::Items).as_deref(),
            Some("at least 1 item")
        );
        assert_eq!(c(Some(0), None, Counted::Items), None);
        assert_eq!(
            bound_words(Some(0_i64), Some(1_000_000)).as_deref(),
            Some("0 to 1000000")
        );
        assert_eq!(
            bound_words(None, json_number(2.5)).as_deref(),
            Some("at most 2.5")
        );
        assert_eq!(
            bound_words(json_number(1.0), None).as_deref(),
            Some("at least 1")
        );
    }
}
