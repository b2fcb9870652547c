//! Comparing constraints: enums, lengths, ranges, item counts, patterns and formats.
//!
//! A bound that rules out values it used to allow has *narrowed*; one that allows more has
//! *widened*. On a parameter, narrowing breaks callers (the runtime now refuses their values
//! with the named error code); on an output, widening breaks consumers (they now meet values
//! they never saw).

use super::fields::{Cmp, Dir};
use super::{Party, Side};
use crate::diagnostics::Span;
use crate::model::StringRules;

/// A constraint that narrowed or widened, and the error a refused call gets.
pub(super) struct Bound<'b> {
    pub(super) name: &'b str,
    pub(super) old: Option<String>,
    pub(super) new: Option<String>,
    pub(super) narrowed: bool,
    pub(super) code: &'b str,
}

impl Cmp<'_> {
    pub(super) fn strings(
        &mut self,
        a: &StringRules,
        b: &StringRules,
        dir: Dir,
        path: &str,
        span: Span,
        name: &str,
    ) {
        let f = |v: &Option<u64>| v.map(|x| x as f64);
        self.enums(
            (a.enum_values.as_deref(), b.enum_values.as_deref()),
            "string",
            dir,
            path,
            span,
            name,
        );
        self.bound(
            lower_bound(
                "min_length",
                f(&a.min_length),
                f(&b.min_length),
                "invalid_length",
            ),
            dir,
            path,
            span,
            name,
        );
        self.bound(
            upper_bound(
                "max_length",
                f(&a.max_length),
                f(&b.max_length),
                "invalid_length",
            ),
            dir,
            path,
            span,
            name,
        );
        if a.pattern != b.pattern {
            self.bound(
                Some(Bound {
                    name: "pattern",
                    old: a.pattern.clone(),
                    new: b.pattern.clone(),
                    // A new or different pattern may refuse values the old one took; only
                    // dropping it is certainly wider.
                    narrowed: b.pattern.is_some(),
                    code: "pattern_mismatch",
                }),
                dir,
                path,
                span,
                name,
            );
        }
        if a.format != b.format {
            self.bound(
                Some(Bound {
                    name: "format",
                    old: a.format.map(|x| x.as_str().to_string()),
                    new: b.format.map(|x| x.as_str().to_string()),
                    narrowed: b.format.is_some(),
                    code: "invalid_format",
                }),
                dir,
                path,
                span,
                name,
            );
        }
    }

    pub(super) fn numbers(
        &mut self,
        (omin, omax): (Option<f64>, Option<f64>),
        (nmin, nmax): (Option<f64>, Option<f64>),
        dir: Dir,
        path: &str,
        span: Span,
        name: &str,
    ) {
        self.bound(
            lower_bound("minimum", omin, nmin, "out_of_range"),
            dir,
            path,
            span,
            name,
        );
        self.bound(
            upper_bound("maximum", omax, nmax, "out_of_range"),
            dir,
            path,
            span,
            name,
        );
    }

    /// An integer's enum and bounds.
    pub(super) fn integers(
        &mut self,
        (omin, omax, old): (Option<i64>, Option<i64>, Option<&[i64]>),
        (nmin, nmax, new): (Option<i64>, Option<i64>, Option<&[i64]>),
        dir: Dir,
        path: &str,
        span: Span,
        name: &str,
    ) {
        let text = |v: Option<&[i64]>| v.map(|v| v.iter().map(i64::to_string).collect::<Vec<_>>());
        let (old, new) = (text(old), text(new));
        self.enums(
            (old.as_deref(), new.as_deref()),
            "integer",
            dir,
            path,
            span,
            name,
        );
        let f = |v: Option<i64>| v.map(|x| x as f64);
        self.numbers(
            (f(omin), f(omax)),
            (f(nmin), f(nmax)),
            dir,
            path,
            span,
            name,
        );
    }

    /// An enum's values (strings, or integers as JSON writes them) of a `json_type`.
    fn enums(
        &mut self,
        (a, b): (Option<&[String]>, Option<&[String]>),
        json_type: &str,
        dir: Dir,
        path: &str,
        span: Span,
        name: &str,
    ) {
        let who = self.who();
        let at = (Side::New, span);
        match (a, b) {
            (None, None) => {}
            (None, Some(vals)) => {
                let (party, why) = match dir {
                    Dir::Input => (
                        Some(Party::Callers),
                        "any other value a call passes is refused with invalid_enum",
                    ),
                    Dir::Output { .. } => (None, "readers see fewer distinct values than before"),
                };
                self.out.push(
                    "enum-added",
                    party,
                    self.tool(),
                    path.to_string(),
                    at,
                    format!("{who}`{name}` is now limited to {}", vals.join(", ")),
                    why,
                );
            }
            (Some(_), None) => {
                let (party, why) = match dir {
                    Dir::Input => (
                        None,
                        "every value accepted before is still accepted".to_string(),
                    ),
                    Dir::Output { .. } => (
                        Some(Party::Consumers),
                        format!("readers that match on the listed values may meet any {json_type}"),
                    ),
                };
                self.out.push(
                    "enum-removed",
                    party,
                    self.tool(),
                    path.to_string(),
                    at,
                    format!("{who}`{name}` is no longer limited to a list of values"),
                    why,
                );
            }
            (Some(a), Some(b)) => {
                let removed: Vec<&str> = a
                    .iter()
                    .filter(|v| !b.contains(v))
                    .map(String::as_str)
                    .collect();
                let added: Vec<&str> = b
                    .iter()
                    .filter(|v| !a.contains(v))
                    .map(String::as_str)
                    .collect();
                if !removed.is_empty() {
                    let (party, why) = match dir {
                        Dir::Input => (
                            Some(Party::Callers),
                            format!(
                                "a call that passes {} is refused with invalid_enum",
                                removed.join(" or ")
                            ),
                        ),
                        Dir::Output { .. } => (None, "readers simply stop seeing it".to_string()),
                    };
                    self.out.push(
                        "enum-value-removed",
                        party,
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}`{name}` no longer allows {}", removed.join(", ")),
                        why,
                    );
                }
                if !added.is_empty() {
                    let (party, why) = match dir {
                        Dir::Input => (
                            None,
                            "every value accepted before is still accepted".to_string(),
                        ),
                        Dir::Output { .. } => (
                            Some(Party::Consumers),
                            format!(
                                "readers that match on the values they know meet {} unhandled",
                                added.join(", ")
                            ),
                        ),
                    };
                    self.out.push(
                        "enum-value-added",
                        party,
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}`{name}` now also allows {}", added.join(", ")),
                        why,
                    );
                }
            }
        }
    }

    pub(super) fn bound(&mut self, b: Option<Bound>, dir: Dir, path: &str, span: Span, name: &str) {
        let Some(b) = b else { return };
        let who = self.who();
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_string());
        let message = format!(
            "{who}{} of `{name}` changed from {} to {}",
            b.name,
            show(&b.old),
            show(&b.new)
        );
        let (kind, party, why) = match (dir, b.narrowed) {
            (Dir::Input, true) => (
                "constraint-narrowed",
                Some(Party::Callers),
                format!(
                    "values the old {} accepted are now refused with {}",
                    b.name, b.code
                ),
            ),
            (Dir::Input, false) => (
                "constraint-widened",
                None,
                "every value accepted before is still accepted".to_string(),
            ),
            (Dir::Output { .. }, true) => (
                "constraint-narrowed",
                None,
                "results stay within what readers saw before".to_string(),
            ),
            (Dir::Output { .. }, false) => (
                "constraint-widened",
                Some(Party::Consumers),
                format!("readers may now get values outside the old {}", b.name),
            ),
        };
        self.out.push(
            kind,
            party,
            self.tool(),
            path.to_string(),
            (Side::New, span),
            message,
            why,
        );
    }
}

/// `a` or `an` before a JSON type name.
pub(super) fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A lower bound (minimum, min_length, min_items) that changed: raising or adding it narrows.
pub(super) fn lower_bound<'b>(
    name: &'b str,
    old: Option<f64>,
    new: Option<f64>,
    code: &'b str,
) -> Option<Bound<'b>> {
    if old == new {
        return None;
    }
    let narrowed = match (old, new) {
        (None, Some(_)) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => b > a,
        (None, None) => return None,
    };
    Some(Bound {
        name,
        old: old.map(fmt),
        new: new.map(fmt),
        narrowed,
        code,
    })
}

/// An upper bound (maximum, max_length, max_items) that changed: lowering or adding it
/// narrows.
pub(super) fn upper_bound<'b>(
    name: &'b str,
    old: Option<f64>,
    new: Option<f64>,
    code: &'b str,
) -> Option<Bound<'b>> {
    if old == new {
        return None;
    }
    let narrowed = match (old, new) {
        (None, Some(_)) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => b < a,
        (None, None) => return None,
    };
    Some(Bound {
        name,
        old: old.map(fmt),
        new: new.map(fmt),
        narrowed,
        code,
    })
}
