//! The sanity of a field's constraints: string rules (a pattern that compiles), integral
//! bounds, lower bounds not above upper ones, and keys that do not apply to the field's type
//! or that a use of a named type may not override. Enums are checked in [`super::enums`].

use super::FieldResolver;
use crate::diagnostics::Diagnostic;
use crate::model::{Content, Kind, StringRules};
use crate::spec::format as raw;
use crate::spec::spanned::{Pos, Sp};
use regex::Regex;

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

    pub(super) fn string_rules(&mut self, f: &raw::Field) -> StringRules {
        self.order(&f.min_length, &f.max_length, "min_length", "max_length");
        if let Some(p) = &f.pattern {
            self.check_pattern(p);
        }
        let (enum_values, enum_descriptions) = self.string_enum(f);
        StringRules {
            enum_values,
            enum_descriptions,
            min_length: f.min_length.as_ref().map(|m| m.value),
            max_length: f.max_length.as_ref().map(|m| m.value),
            pattern: f.pattern.as_ref().map(|p| p.value.clone()),
            format: f.format.as_ref().map(|x| x.value),
        }
    }

    /// A whole number's kind: its bounds, whole and in order, and its `enum`.
    pub(super) fn integer_kind(&mut self, f: &raw::Field) -> Kind {
        let minimum = self.integer_bound(&f.minimum, "minimum");
        let maximum = self.integer_bound(&f.maximum, "maximum");
        self.order(&f.minimum, &f.maximum, "minimum", "maximum");
        let (enum_values, enum_descriptions) = self.integer_enum(f, minimum, maximum);
        Kind::Integer {
            minimum,
            maximum,
            enum_values,
            enum_descriptions,
        }
    }

    fn integer_bound(&mut self, bound: &Option<Sp<f64>>, key: &str) -> Option<i64> {
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
            Kind::String(_) => k == "string" || k == "enum",
            Kind::Integer { .. } => k == "number" || k == "enum",
            Kind::Number { .. } => k == "number",
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
        note(f.enum_values.as_ref().map(|v| v.pos), "enum", "enum");
        note(
            f.enum_descriptions
                .as_ref()
                .and_then(|v| v.0.first())
                .map(|(k, _)| k.pos),
            "enum_descriptions",
            "enum",
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
            let kind_word = match for_kind {
                "number" => "integer or number",
                "enum" => "string or integer",
                other => other,
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
