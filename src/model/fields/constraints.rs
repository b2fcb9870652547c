//! The sanity of a field's constraints: string rules (a pattern that compiles), integral
//! bounds, lower bounds not above upper ones, and keys that do not apply to the field's type
//! or that a use of a named type may not override.

use super::FieldResolver;
use crate::diagnostics::Diagnostic;
use crate::model::{Content, Kind, StringRules};
use crate::spec::format as raw;
use crate::spec::spanned::{Pos, Sp};
use regex::Regex;
use std::collections::HashSet;

impl FieldResolver<'_> {
    /// The rules of a map's keys (lengths and a pattern), checked like a string's.
    pub(super) fn key_rules(&mut self, keys: Option<&raw::MapKeys>) -> StringRules {
        let Some(k) = keys else {
            return StringRules::default();
        };
        self.order(&k.min_length, &k.max_length, "min_length", "max_length");
        if let Some(p) = &k.pattern {
            self.check_pattern(p);
        }
        StringRules {
            min_length: k.min_length.as_ref().map(|m| m.value),
            max_length: k.max_length.as_ref().map(|m| m.value),
            pattern: k.pattern.as_ref().map(|p| p.value.clone()),
            ..StringRules::default()
        }
    }

    /// Reports a pattern that does not compile.
    fn check_pattern(&mut self, p: &Sp<String>) {
        if let Err(e) = Regex::new(&p.value) {
            let message = e.to_string();
            let last = message.lines().last().unwrap_or("invalid").trim();
            let reason = last.strip_prefix("error: ").unwrap_or(last).to_string();
            self.diags.push(
                Diagnostic::error("invalid-pattern", self.span(p.pos), format!("`{}` is not a valid regular expression: {reason}", p.value))
                    .label("invalid regex")
                    .help("fix the pattern; in YAML, quote it with single quotes so backslashes stay as written"),
            );
        }
    }

    /// `enum_descriptions`, each naming a value of `enum`, in the values' order.
    fn enum_descriptions(
        &mut self,
        f: &raw::Field,
        values: Option<&[String]>,
    ) -> Vec<(String, String)> {
        let Some(described) = &f.enum_descriptions else {
            return Vec::new();
        };
        let Some(values) = values else {
            if let Some((k, _)) = described.0.first() {
                self.diags.push(
                    Diagnostic::error(
                        "not-applicable",
                        self.span(k.pos),
                        "`enum_descriptions` describes the values of `enum`, and there is none",
                    )
                    .label("no enum here")
                    .help("add `enum: [...]` with the values, or remove `enum_descriptions`"),
                );
            }
            return Vec::new();
        };
        for (value, _) in described.iter() {
            if !values.contains(&value.value) {
                let mut d = Diagnostic::error(
                    "unknown-enum-value",
                    self.span(value.pos),
                    format!("`{}` is not one of the enum's values", value.value),
                )
                .label("described, but not allowed");
                d = match crate::diagnostics::did_you_mean(
                    &value.value,
                    values.iter().map(String::as_str),
                ) {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d.help(format!("describe one of: {}", values.join(", "))),
                };
                self.diags.push(d);
            }
        }
        values
            .iter()
            .filter_map(|v| {
                described
                    .iter()
                    .find(|(k, _)| &k.value == v)
                    .map(|(_, d)| (v.clone(), d.value.trim().to_string()))
            })
            .collect()
    }

    pub(super) fn string_rules(&mut self, f: &raw::Field) -> StringRules {
        self.order(&f.min_length, &f.max_length, "min_length", "max_length");
        if let Some(p) = &f.pattern {
            self.check_pattern(p);
        }
        let enum_values = f.enum_values.as_ref().map(|vals| {
            if vals.value.is_empty() {
                self.diags.push(
                    Diagnostic::error("empty-enum", self.span(vals.pos), "`enum` has no values")
                        .label("no value could ever be valid")
                        .help("list the allowed values, or remove `enum`"),
                );
            }
            // Values that spell the same identifier (`+1` and `1`, `Open` and `open`) are
            // fine: generated code names their variants apart and keeps each wire value.
            let mut seen: HashSet<&str> = HashSet::new();
            for v in &vals.value {
                if !seen.insert(v.value.as_str()) {
                    self.diags.push(
                        Diagnostic::error(
                            "duplicate-enum-value",
                            self.span(v.pos),
                            format!("enum value `{}` is listed twice", v.value),
                        )
                        .label("repeats an earlier value")
                        .help("remove one of the two"),
                    );
                }
            }
            vals.value.iter().map(|v| v.value.clone()).collect()
        });
        let enum_descriptions = self.enum_descriptions(f, enum_values.as_deref());
        StringRules {
            enum_values,
            enum_descriptions,
            min_length: f.min_length.as_ref().map(|m| m.value),
            max_length: f.max_length.as_ref().map(|m| m.value),
            pattern: f.pattern.as_ref().map(|p| p.value.clone()),
            format: f.format.as_ref().map(|x| x.value),
        }
    }

    pub(super) fn integer_bound(&mut self, bound: &Option<Sp<f64>>, key: &str) -> Option<i64> {
        let b = bound.as_ref()?;
        if b.value.fract() != 0.0 || !b.value.is_finite() || b.value.abs() > 9.007e15 {
            self.diags.push(
                Diagnostic::error(
                    "invalid-value",
                    self.span(b.pos),
                    format!(
                        "`{key}` of an integer must be a whole number, found {}",
                        b.value
                    ),
                )
                .label("not a whole number")
                .help(format!(
                    "use a whole number for `{key}`, or make the type `number`"
                )),
            );
            return None;
        }
        Some(b.value as i64)
    }

    /// Reports a lower bound above its upper bound (`min_length: 5, max_length: 2`).
    pub(super) fn order<T: PartialOrd + std::fmt::Display>(
        &mut self,
        lo: &Option<Sp<T>>,
        hi: &Option<Sp<T>>,
        lo_key: &str,
        hi_key: &str,
    ) {
        if let (Some(l), Some(h)) = (lo, hi)
            && l.value > h.value
        {
            self.min_above_max(
                l.pos,
                lo_key,
                hi_key,
                &l.value.to_string(),
                &h.value.to_string(),
            );
        }
    }

    fn min_above_max(&mut self, pos: Pos, lo_key: &str, hi_key: &str, lo: &str, hi: &str) {
        self.diags.push(
            Diagnostic::error(
                "min-above-max",
                self.span(pos),
                format!("`{lo_key}` ({lo}) is above `{hi_key}` ({hi})"),
            )
            .label("no value can satisfy both")
            .help(format!("make `{lo_key}` at most `{hi_key}`")),
        );
    }

    /// Constraint keys that make no sense for the resolved kind.
    pub(super) fn not_applicable(&mut self, f: &raw::Field, kind: &Kind) {
        let is = |k: &str| match kind {
            Kind::String(_) => k == "string",
            Kind::Integer { .. } | Kind::Number { .. } => k == "number",
            Kind::Array { .. } => k == "array",
            Kind::Object { .. } => k == "object",
            Kind::Map { .. } => k == "map",
            Kind::Union { .. } => k == "union",
            Kind::Content(Content::Text) => k == "text",
            Kind::Content(_) => false,
            Kind::Boolean => false,
        };
        let mut wrong: Vec<(&str, Pos, &str)> = Vec::new();
        let mut note = |present: Option<Pos>, key: &'static str, for_kind: &'static str| {
            if let Some(p) = present
                && !is(for_kind)
            {
                wrong.push((key, p, for_kind));
            }
        };
        note(f.enum_values.as_ref().map(|v| v.pos), "enum", "string");
        note(
            f.enum_descriptions
                .as_ref()
                .and_then(|v| v.0.first())
                .map(|(k, _)| k.pos),
            "enum_descriptions",
            "string",
        );
        note(f.min_length.as_ref().map(|v| v.pos), "min_length", "string");
        note(f.max_length.as_ref().map(|v| v.pos), "max_length", "string");
        note(f.pattern.as_ref().map(|v| v.pos), "pattern", "string");
        note(f.format.as_ref().map(|v| v.pos), "format", "string");
        note(f.minimum.as_ref().map(|v| v.pos), "minimum", "number");
        note(f.maximum.as_ref().map(|v| v.pos), "maximum", "number");
        note(f.min_items.as_ref().map(|v| v.pos), "min_items", "array");
        note(f.max_items.as_ref().map(|v| v.pos), "max_items", "array");
        note(f.items.as_ref().map(|v| v.ty.pos), "items", "array");
        note(f.values.as_ref().map(|v| v.ty.pos), "values", "map");
        note(f.keys.as_ref().map(|v| v.pos), "keys", "map");
        note(f.max_entries.as_ref().map(|v| v.pos), "max_entries", "map");
        note(
            f.requires.as_ref().and_then(|r| r.first()).map(|r| r.pos),
            "requires",
            "object",
        );
        note(
            f.variants
                .as_ref()
                .and_then(|v| v.0.first())
                .map(|(k, _)| k.pos),
            "variants",
            "union",
        );
        note(f.tag.as_ref().map(|v| v.pos), "tag", "union");
        note(
            f.fields
                .as_ref()
                .and_then(|v| v.0.first())
                .map(|(k, _)| k.pos),
            "fields",
            "object",
        );
        for (key, pos, for_kind) in wrong {
            let kind_word = if for_kind == "number" {
                "integer or number"
            } else {
                for_kind
            };
            self.diags.push(
                Diagnostic::error(
                    "constraint-not-applicable",
                    self.span(pos),
                    format!(
                        "`{key}` applies to {kind_word} values, not `{}`",
                        f.ty.value
                    ),
                )
                .label(format!("not a constraint of `{}`", f.ty.value))
                .help(format!("remove `{key}`, or change the type to {kind_word}")),
            );
        }
    }

    /// A reference to a named type takes its constraints from the type.
    pub(super) fn not_on_named(&mut self, f: &raw::Field) {
        let keys = [
            ("enum", f.enum_values.as_ref().map(|v| v.pos)),
            (
                "enum_descriptions",
                f.enum_descriptions
                    .as_ref()
                    .and_then(|v| v.0.first())
                    .map(|(k, _)| k.pos),
            ),
            ("minimum", f.minimum.as_ref().map(|v| v.pos)),
            ("maximum", f.maximum.as_ref().map(|v| v.pos)),
            ("min_length", f.min_length.as_ref().map(|v| v.pos)),
            ("max_length", f.max_length.as_ref().map(|v| v.pos)),
            ("pattern", f.pattern.as_ref().map(|v| v.pos)),
            ("format", f.format.as_ref().map(|v| v.pos)),
            ("items", f.items.as_ref().map(|v| v.ty.pos)),
            ("values", f.values.as_ref().map(|v| v.ty.pos)),
            ("keys", f.keys.as_ref().map(|v| v.pos)),
            ("max_entries", f.max_entries.as_ref().map(|v| v.pos)),
            (
                "requires",
                f.requires.as_ref().and_then(|r| r.first()).map(|r| r.pos),
            ),
            (
                "variants",
                f.variants
                    .as_ref()
                    .and_then(|v| v.0.first())
                    .map(|(k, _)| k.pos),
            ),
            ("tag", f.tag.as_ref().map(|v| v.pos)),
            (
                "fields",
                f.fields
                    .as_ref()
                    .and_then(|v| v.0.first())
                    .map(|(k, _)| k.pos),
            ),
        ];
        for (key, pos) in keys {
            if let Some(pos) = pos {
                self.diags.push(
                    Diagnostic::error(
                        "constraint-not-applicable",
                        self.span(pos),
                        format!(
                            "`{key}` cannot be added to a reference to type `{}`",
                            f.ty.value
                        ),
                    )
                    .label("named types carry their own constraints")
                    .help(format!(
                        "put `{key}` in the definition of `{}`, or declare a new type",
                        f.ty.value
                    )),
                );
            }
        }
    }
}
