//! The words a property's description carries for the rules its profile drops.
//!
//! Every rule of a type is said once in each output: as a keyword where the profile keeps it
//! ([`Profile::keeps`]), here otherwise. What no keyword can say is always here: what each
//! enum value means, which parameters go together (`requires`).

use super::profile::{Profile, Rule};
use crate::model::describe::{
    Counted, bound_words, count_words, enum_words, json_number, map_words, requirement_sentence,
};
pub(super) use crate::model::describe::{capitalize, sentence};
use crate::model::{Kind, StringRules, Type};
use crate::spec::format::Format;
use serde_json::Value;

/// The sentences for the rules of `ty` that `profile` does not state as keywords, and for
/// what keywords cannot state.
pub(super) fn rule_words(ty: &Type, profile: Profile) -> Vec<String> {
    match &ty.kind {
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            let mut out = Vec::new();
            let min = min_items.filter(|n| !profile.keeps(Rule::MinItems(*n)));
            let max = max_items.filter(|_| !profile.keeps(Rule::MaxItems));
            if let Some(c) = count_words(min, max, Counted::Items) {
                out.push(sentence(&capitalize(&c)));
            }
            if !matches!(items.kind, Kind::Object { .. } | Kind::Array { .. }) {
                let each = scalar_phrases(items, profile);
                if !each.is_empty() {
                    out.push(format!("Each item: {}.", each.join(", ")));
                }
            }
            out
        }
        Kind::Map {
            values,
            keys,
            max_entries,
        } => {
            let mut out: Vec<String> = Vec::new();
            if !profile.keeps(Rule::MapKeys) {
                out.extend(
                    map_words(keys, *max_entries)
                        .into_iter()
                        .map(|w| sentence(&capitalize(&w))),
                );
            }
            if !matches!(values.kind, Kind::Object { .. } | Kind::Array { .. }) {
                let each = scalar_phrases(values, profile);
                if !each.is_empty() {
                    out.push(format!("Each value: {}.", each.join(", ")));
                }
            }
            out
        }
        Kind::Object { requires, .. } => requires.iter().map(requirement_sentence).collect(),
        Kind::Union { .. } => Vec::new(),
        _ => scalar_phrases(ty, profile)
            .into_iter()
            .map(|p| sentence(&capitalize(&p)))
            .collect(),
    }
}

/// `Default: 10.` where the profile drops the `default` keyword.
pub(super) fn default_words(default: Option<&Value>, profile: Profile) -> Option<String> {
    default
        .filter(|_| !profile.keeps(Rule::Default))
        .map(|d| format!("Default: {}.", compact(d)))
}

/// The words for a scalar's dropped rules, lower-case phrases (`1-200 characters`,
/// `0 to 100`, `an absolute URI`); and, in every profile, an enum's values with what each
/// means when the spec says (`one of: open (waiting for support), closed`).
fn scalar_phrases(ty: &Type, profile: Profile) -> Vec<String> {
    let mut out = Vec::new();
    match &ty.kind {
        Kind::String(StringRules {
            enum_values,
            enum_descriptions,
            min_length,
            max_length,
            format,
            pattern,
            ..
        }) => {
            // The values are a keyword everywhere; only their meanings need words.
            if let Some(values) = enum_values
                .as_ref()
                .filter(|_| !enum_descriptions.is_empty())
            {
                out.push(format!(
                    "one of: {}",
                    enum_words(values, enum_descriptions, str::to_owned)
                ));
            }
            if !profile.keeps(Rule::Length)
                && let Some(c) = count_words(*min_length, *max_length, Counted::Characters)
            {
                out.push(c);
            }
            if !profile.keeps(Rule::Pattern)
                && let Some(p) = pattern
            {
                out.push(format!("matching {p}"));
            }
            if let Some(f) = format.filter(|f| !profile.keeps(Rule::Format(*f))) {
                out.push(format_words(f));
            }
        }
        // An integer enum's values are a keyword where the profile keeps one (words say
        // what they mean), else words; and they say everything the bounds would.
        Kind::Integer {
            enum_values: Some(values),
            enum_descriptions,
            ..
        } if !profile.keeps(Rule::IntegerEnum) || !enum_descriptions.is_empty() => {
            out.push(format!(
                "one of: {}",
                enum_words(values, enum_descriptions, str::to_owned)
            ));
        }
        Kind::Integer {
            enum_values: Some(_),
            ..
        } => {}
        Kind::Integer {
            minimum, maximum, ..
        } if !profile.keeps(Rule::Bounds) => {
            out.extend(bound_words(*minimum, *maximum));
        }
        Kind::Number { minimum, maximum } if !profile.keeps(Rule::Bounds) => out.extend(
            bound_words(minimum.and_then(json_number), maximum.and_then(json_number)),
        ),
        _ => {}
    }
    out
}

fn format_words(f: Format) -> String {
    match f {
        Format::Uri => "an absolute URI".into(),
        Format::Email => "an email address".into(),
        Format::DateTime => "an RFC 3339 date-time".into(),
        Format::Date => "a date, YYYY-MM-DD".into(),
        Format::Uuid => "a UUID".into(),
    }
}

/// Compact JSON of a value, as an example or default is shown in words.
pub(super) fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

pub(super) fn join(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}
