//! Comparing fields and types: parameters (inputs) and output fields (outputs).
//!
//! The same change means opposite things on each side. Narrowing an input (a lower
//! `max_length`, a removed enum value, a new pattern) refuses calls that worked, so it breaks
//! callers; widening it is safe. Widening an output (a higher `maximum`, a new enum value)
//! hands readers values they never saw, so it breaks consumers; narrowing it is safe.

use super::{Changes, Party, Side};
use crate::diagnostics::Span;
use crate::model::{Field, Kind, StringRules, Type};

/// Which side of a call the fields are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Parameters: narrowing breaks callers.
    Input,
    /// Output fields (or error details): widening breaks consumers. `concise` is whether the
    /// tool answers concise by default, so that newly `detailed_only` fields go missing.
    Output {
        /// Concise by default.
        concise: bool,
    },
}

impl Dir {
    fn noun(self) -> &'static str {
        match self {
            Dir::Input => "parameter",
            Dir::Output { .. } => "output field",
        }
    }
}

/// Compares parameters by name.
pub fn compare_fields(
    old: &[Field],
    new: &[Field],
    dir: Dir,
    tool: &str,
    path: &str,
    out: &mut Changes,
) {
    Cmp { tool, out }.fields(old, new, dir, path);
}

/// Compares output fields (or error details) by name.
pub fn compare_outputs(
    old: &[Field],
    new: &[Field],
    concise: bool,
    tool: &str,
    path: &str,
    out: &mut Changes,
) {
    Cmp { tool, out }.fields(old, new, Dir::Output { concise }, path);
}

/// Whether any field, at any depth, is marked `detailed_only`.
pub fn has_detailed_only(fields: &[Field]) -> bool {
    fields
        .iter()
        .any(|f| f.detailed_only || type_has_detailed_only(&f.ty))
}

fn type_has_detailed_only(ty: &Type) -> bool {
    match &ty.kind {
        Kind::Object { fields, .. } => has_detailed_only(fields),
        Kind::Array { items, .. } => type_has_detailed_only(items),
        _ => false,
    }
}

struct Cmp<'a> {
    tool: &'a str,
    out: &'a mut Changes,
}

/// A constraint that narrowed or widened, and the error a refused call gets.
struct Bound<'b> {
    name: &'b str,
    old: Option<String>,
    new: Option<String>,
    narrowed: bool,
    code: &'b str,
}

impl<'a> Cmp<'a> {
    fn tool(&self) -> Option<&'a str> {
        (!self.tool.is_empty()).then_some(self.tool)
    }

    fn who(&self) -> String {
        if self.tool.is_empty() {
            String::new()
        } else {
            format!("`{}`: ", self.tool)
        }
    }

    fn fields(&mut self, old: &[Field], new: &[Field], dir: Dir, path: &str) {
        let noun = dir.noun();
        let who = self.who();
        for of in old {
            let p = format!("{path}.{}", of.name);
            match new.iter().find(|f| f.name == of.name) {
                None => match dir {
                    Dir::Input => self.out.push(
                        "param-removed",
                        Some(Party::Callers),
                        self.tool(),
                        p,
                        (Side::Old, of.span),
                        format!("{who}{noun} `{}` was removed", of.name),
                        format!(
                            "a call that passes `{}` is refused with unknown_argument",
                            of.name
                        ),
                    ),
                    Dir::Output { .. } => self.out.push(
                        "output-removed",
                        Some(Party::Consumers),
                        self.tool(),
                        p,
                        (Side::Old, of.span),
                        format!("{who}{noun} `{}` was removed", of.name),
                        format!("readers of `{}` find nothing there", of.name),
                    ),
                },
                Some(nf) => self.field(of, nf, dir, &p),
            }
        }
        for nf in new {
            if old.iter().any(|f| f.name == nf.name) {
                continue;
            }
            let p = format!("{path}.{}", nf.name);
            let at = (Side::New, nf.span);
            match dir {
                Dir::Input if nf.required => self.out.push(
                    "param-added-required",
                    Some(Party::Callers),
                    self.tool(),
                    p,
                    at,
                    format!("{who}new required {noun} `{}`", nf.name),
                    format!(
                        "a call without `{}` is refused with missing_argument",
                        nf.name
                    ),
                ),
                Dir::Input => self.out.push(
                    "param-added-optional",
                    None,
                    self.tool(),
                    p,
                    at,
                    format!("{who}new optional {noun} `{}`", nf.name),
                    "calls that leave it out work as before",
                ),
                Dir::Output { .. } => self.out.push(
                    "output-added",
                    None,
                    self.tool(),
                    p,
                    at,
                    format!("{who}new {noun} `{}`", nf.name),
                    "readers that do not know it ignore it",
                ),
            }
        }
    }

    fn field(&mut self, of: &Field, nf: &Field, dir: Dir, path: &str) {
        let who = self.who();
        let noun = dir.noun();
        let at = (Side::New, nf.span);
        let name = &nf.name;
        match dir {
            Dir::Input => {
                if !of.required && nf.required {
                    self.out.push(
                        "param-now-required",
                        Some(Party::Callers),
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}{noun} `{name}` is now required"),
                        format!("a call without `{name}` is refused with missing_argument"),
                    );
                } else if of.required && !nf.required {
                    self.out.push(
                        "param-now-optional",
                        None,
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}{noun} `{name}` is now optional"),
                        "calls that pass it work as before",
                    );
                }
                if of.default != nf.default && !nf.required {
                    let show = |v: &Option<serde_json::Value>| {
                        v.as_ref().map_or("none".to_string(), |v| v.to_string())
                    };
                    self.out.push(
                        "param-default-changed",
                        Some(Party::Callers),
                        self.tool(),
                        path.to_string(),
                        at,
                        format!(
                            "{who}the default of `{name}` changed from {} to {}",
                            show(&of.default),
                            show(&nf.default)
                        ),
                        format!("calls that leave `{name}` out now act differently"),
                    );
                }
            }
            Dir::Output { concise } => {
                if of.required && !nf.required {
                    self.out.push(
                        "output-now-optional",
                        Some(Party::Consumers),
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}{noun} `{name}` may now be absent"),
                        format!(
                            "readers that expect `{name}` in every result break when it is missing"
                        ),
                    );
                } else if !of.required && nf.required {
                    self.out.push(
                        "output-now-always",
                        None,
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}{noun} `{name}` is now always present"),
                        "readers that handle its absence still work",
                    );
                }
                if concise && !of.detailed_only && nf.detailed_only {
                    self.out.push(
                        "output-now-detailed-only",
                        Some(Party::Consumers),
                        self.tool(),
                        path.to_string(),
                        at,
                        format!("{who}{noun} `{name}` is now left out of concise results"),
                        "concise is the default, so calls without response_format stop getting it",
                    );
                }
            }
        }
        self.types(&of.ty, &nf.ty, dir, path, nf.span, name);
    }

    fn types(&mut self, o: &Type, n: &Type, dir: Dir, path: &str, span: Span, name: &str) {
        let who = self.who();
        if o.json_type() != n.json_type() {
            let (party, why) = match dir {
                Dir::Input => (
                    Party::Callers,
                    format!(
                        "a call that passes {} {} is refused with invalid_type",
                        article(o.json_type()),
                        o.json_type()
                    ),
                ),
                Dir::Output { .. } => (
                    Party::Consumers,
                    format!(
                        "readers that parse {} {} get {} {}",
                        article(o.json_type()),
                        o.json_type(),
                        article(n.json_type()),
                        n.json_type()
                    ),
                ),
            };
            self.out.push(
                "type-changed",
                Some(party),
                self.tool(),
                path.to_string(),
                (Side::New, span),
                format!(
                    "{who}`{name}` changed type from {} to {}",
                    o.json_type(),
                    n.json_type()
                ),
                why,
            );
            return;
        }
        match (&o.kind, &n.kind) {
            (Kind::String(a), Kind::String(b)) => self.strings(a, b, dir, path, span, name),
            (
                Kind::Integer {
                    minimum: omin,
                    maximum: omax,
                },
                Kind::Integer {
                    minimum: nmin,
                    maximum: nmax,
                },
            ) => {
                let f = |v: &Option<i64>| v.map(|x| x as f64);
                self.numbers(
                    (f(omin), f(omax)),
                    (f(nmin), f(nmax)),
                    dir,
                    path,
                    span,
                    name,
                );
            }
            (
                Kind::Number {
                    minimum: omin,
                    maximum: omax,
                },
                Kind::Number {
                    minimum: nmin,
                    maximum: nmax,
                },
            ) => self.numbers((*omin, *omax), (*nmin, *nmax), dir, path, span, name),
            (
                Kind::Array {
                    items: oi,
                    min_items: omin,
                    max_items: omax,
                },
                Kind::Array {
                    items: ni,
                    min_items: nmin,
                    max_items: nmax,
                },
            ) => {
                let f = |v: &Option<u64>| v.map(|x| x as f64);
                self.bound(
                    lower_bound("min_items", f(omin), f(nmin), "invalid_length"),
                    dir,
                    path,
                    span,
                    name,
                );
                self.bound(
                    upper_bound("max_items", f(omax), f(nmax), "invalid_length"),
                    dir,
                    path,
                    span,
                    name,
                );
                self.types(
                    oi,
                    ni,
                    dir,
                    &format!("{path}[]"),
                    span,
                    &format!("{name}[]"),
                );
            }
            (
                Kind::Object {
                    fields: of,
                    open: oopen,
                },
                Kind::Object {
                    fields: nf,
                    open: nopen,
                },
            ) => {
                if oopen != nopen {
                    self.bound(
                        Some(Bound {
                            name: "free-form keys",
                            old: Some(if *oopen { "any" } else { "declared only" }.into()),
                            new: Some(if *nopen { "any" } else { "declared only" }.into()),
                            narrowed: *oopen,
                            code: "unknown_argument",
                        }),
                        dir,
                        path,
                        span,
                        name,
                    );
                }
                self.fields(of, nf, dir, path);
            }
            _ => {}
        }
    }

    fn strings(
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
            a.enum_values.as_deref(),
            b.enum_values.as_deref(),
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

    fn numbers(
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

    fn enums(
        &mut self,
        a: Option<&[String]>,
        b: Option<&[String]>,
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
                    Dir::Input => (None, "every value accepted before is still accepted"),
                    Dir::Output { .. } => (
                        Some(Party::Consumers),
                        "readers that match on the listed values may meet any string",
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

    fn bound(&mut self, b: Option<Bound>, dir: Dir, path: &str, span: Span, name: &str) {
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
fn article(word: &str) -> &'static str {
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
fn lower_bound<'b>(
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
fn upper_bound<'b>(
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
