//! The closed sets of a field's values: a string's `enum` (`[open, closed]`) and an
//! integer's (`[1, 2, 5]`), and the `enum_descriptions` of either. Each value must have the
//! field's type, none may be listed twice, and an integer's must lie within its bounds.

use super::FieldResolver;
use crate::diagnostics::Diagnostic;
use crate::spec::format::{self as raw, EnumValue};
use crate::spec::spanned::Sp;
use std::collections::HashSet;

impl FieldResolver<'_> {
    /// A string's `enum` and what its values mean: every value a string.
    pub(super) fn string_enum(
        &mut self,
        f: &raw::Field,
    ) -> (Option<Vec<String>>, Vec<(String, String)>) {
        let values = f.enum_values.as_ref().map(|vals| {
            self.listed(vals, "string")
                .into_iter()
                .filter_map(|v| match v {
                    EnumValue::Text(s) => Some(s),
                    EnumValue::Integer(_) => None,
                })
                .collect::<Vec<String>>()
        });
        let described = self.enum_descriptions(f, (values.as_deref(), false), str::to_string);
        (values, described)
    }

    /// An integer's `enum` and what its values mean: every value a whole number within
    /// `minimum` and `maximum`. `enum_descriptions` name the values as keys (`5: ...`).
    pub(super) fn integer_enum(
        &mut self,
        f: &raw::Field,
        minimum: Option<i64>,
        maximum: Option<i64>,
    ) -> (Option<Vec<i64>>, Vec<(i64, String)>) {
        let Some(vals) = &f.enum_values else {
            self.enum_descriptions(f, (None, true), str::to_string);
            return (None, Vec::new());
        };
        let values: Vec<i64> = self
            .listed(vals, "integer")
            .into_iter()
            .filter_map(|v| match v {
                EnumValue::Integer(n) => Some(n),
                EnumValue::Text(_) => None,
            })
            .collect();
        for v in &vals.value {
            let EnumValue::Integer(n) = v.value else {
                continue;
            };
            let outside = match (minimum, maximum) {
                (Some(lo), _) if n < lo => Some(("below", "minimum", lo, "lower `minimum`")),
                (_, Some(hi)) if n > hi => Some(("above", "maximum", hi, "raise `maximum`")),
                _ => None,
            };
            if let Some((side, key, bound, fix)) = outside {
                self.diags.push(
                    Diagnostic::error(
                        "enum-out-of-range",
                        self.span(v.pos),
                        format!("enum value {n} is {side} `{key}` ({bound})"),
                    )
                    .label("no call could pass it")
                    .help(format!("remove {n} from `enum`, or {fix}")),
                );
            }
        }
        // A key is a number written as YAML writes keys (`5`, or `"5"`): compared as one.
        let texts: Vec<String> = values.iter().map(i64::to_string).collect();
        let canonical = |key: &str| {
            key.trim()
                .parse::<i64>()
                .map_or_else(|_| key.to_string(), |n| n.to_string())
        };
        let described = self
            .enum_descriptions(f, (Some(&texts), true), canonical)
            .into_iter()
            .filter_map(|(v, d)| v.parse::<i64>().ok().map(|n| (n, d)))
            .collect();
        (Some(values), described)
    }

    /// The values of `enum`, each reported when it is not of `json_type` (`string` or
    /// `integer`) or repeats an earlier one; an empty list is reported too.
    fn listed(&mut self, vals: &Sp<Vec<Sp<EnumValue>>>, json_type: &str) -> Vec<EnumValue> {
        if vals.value.is_empty() {
            self.diags.push(
                Diagnostic::error("empty-enum", self.span(vals.pos), "`enum` has no values")
                    .label("no value could ever be valid")
                    .help("list the allowed values, or remove `enum`"),
            );
        }
        let mut seen: HashSet<&EnumValue> = HashSet::new();
        let mut out = Vec::new();
        for v in &vals.value {
            if let Some(d) = self.wrong_type(v, json_type) {
                self.diags.push(d);
                continue;
            }
            // Values that spell the same identifier (`+1` and `1`, `Open` and `open`) are
            // fine: generated code names their variants apart and keeps each wire value.
            if !seen.insert(&v.value) {
                self.diags.push(
                    Diagnostic::error(
                        "duplicate-enum-value",
                        self.span(v.pos),
                        format!("enum value `{}` is listed twice", v.value),
                    )
                    .label("repeats an earlier value")
                    .help("remove one of the two"),
                );
                continue;
            }
            out.push(v.value.clone());
        }
        out
    }

    /// The error for an enum value that is not of the field's type: a number on a string,
    /// a string on an integer.
    fn wrong_type(&self, v: &Sp<EnumValue>, json_type: &str) -> Option<Diagnostic> {
        let at = self.span(v.pos);
        match (&v.value, json_type) {
            (EnumValue::Integer(n), "string") => Some(
                Diagnostic::error(
                    "wrong-type",
                    at,
                    format!("enum value {n} is a number, and the type is `string`"),
                )
                .label("not a string")
                .help(format!(
                    "quote it (`'{n}'`) to make it a string, or make the type `integer`"
                )),
            ),
            (EnumValue::Text(s), "integer") => {
                let d = Diagnostic::error(
                    "wrong-type",
                    at,
                    format!("enum value `{s}` is a string, and the type is `integer`"),
                )
                .label("not a whole number");
                Some(match s.trim().parse::<i64>() {
                    Ok(n) => d.help(format!("write the number without quotes (`{n}`)")),
                    Err(_) => {
                        d.help("list whole numbers (`enum: [1, 2, 5]`), or make the type `string`")
                    }
                })
            }
            _ => None,
        }
    }

    /// `enum_descriptions`, each naming a value of `enum` (`values`, as text; `numbers`
    /// when they are an integer's), in the values' order; `canonical` turns a written key
    /// into the text it names.
    fn enum_descriptions(
        &mut self,
        f: &raw::Field,
        (values, numbers): (Option<&[String]>, bool),
        canonical: impl Fn(&str) -> String,
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
            if !values.contains(&canonical(&value.value)) {
                let mut d = Diagnostic::error(
                    "unknown-enum-value",
                    self.span(value.pos),
                    format!("`{}` is not one of the enum's values", value.value),
                )
                .label("described, but not allowed");
                // A slip of spelling is likely in a word, not in a number.
                let slip = if numbers {
                    None
                } else {
                    crate::diagnostics::did_you_mean(
                        &value.value,
                        values.iter().map(String::as_str),
                    )
                };
                d = match slip {
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
                    .find(|(k, _)| &canonical(&k.value) == v)
                    .map(|(_, d)| (v.clone(), d.value.trim().to_string()))
            })
            .collect()
    }
}
