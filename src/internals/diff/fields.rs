//! Comparing fields and types: parameters (inputs) and output fields (outputs).
//!
//! The same change means opposite things on each side. Narrowing an input (a lower
//! `max_length`, a removed enum value, a new pattern) refuses calls that worked, so it breaks
//! callers; widening it is safe. Widening an output (a higher `maximum`, a new enum value)
//! hands readers values they never saw, so it breaks consumers; narrowing it is safe.

use super::constraints::{Bound, article, lower_bound, upper_bound};
use super::{Changes, Party, Side};
use crate::diagnostics::Span;
use crate::model::{Field, Kind, Type};

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
    pub(super) fn noun(self) -> &'static str {
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

pub(super) struct Cmp<'a> {
    pub(super) tool: &'a str,
    pub(super) out: &'a mut Changes,
}

impl<'a> Cmp<'a> {
    pub(super) fn tool(&self) -> Option<&'a str> {
        (!self.tool.is_empty()).then_some(self.tool)
    }

    pub(super) fn who(&self) -> String {
        if self.tool.is_empty() {
            String::new()
        } else {
            format!("`{}`: ", self.tool)
        }
    }

    pub(super) fn fields(&mut self, old: &[Field], new: &[Field], dir: Dir, path: &str) {
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
        self.nullable(of, nf, dir, path);
        self.types(&of.ty, &nf.ty, dir, path, nf.span, name);
    }

    /// `null` becoming a value of its own, or no longer one. For an optional parameter,
    /// `null` meant "left out" before it meant "clear": a caller that sends null for "no
    /// change" (OpenAI strict mode does) now clears it.
    fn nullable(&mut self, of: &Field, nf: &Field, dir: Dir, path: &str) {
        if of.nullable == nf.nullable {
            return;
        }
        let who = self.who();
        let name = &nf.name;
        let at = (Side::New, nf.span);
        let (code, party, what, why) = match (dir, nf.nullable) {
            (Dir::Input, true) if !nf.required => (
                "param-now-clearable",
                Some(Party::Callers),
                format!("{who}`{name}` is now cleared by null"),
                format!("a call that sends `{name}: null` to leave it alone now clears it"),
            ),
            (Dir::Input, true) => (
                "param-now-nullable",
                None,
                format!("{who}`{name}` now takes null"),
                "calls that pass a value work as before".to_string(),
            ),
            (Dir::Input, false) => (
                "param-no-longer-nullable",
                Some(Party::Callers),
                format!("{who}`{name}` no longer takes null as a value"),
                format!("a call that sends `{name}: null` to clear it no longer clears it"),
            ),
            (Dir::Output { .. }, true) => (
                "output-now-nullable",
                Some(Party::Consumers),
                format!("{who}output field `{name}` may now be null"),
                format!("readers that expect a value in `{name}` get null"),
            ),
            (Dir::Output { .. }, false) => (
                "output-no-longer-nullable",
                None,
                format!("{who}output field `{name}` is never null now"),
                "readers that handle null still work".to_string(),
            ),
        };
        self.out
            .push(code, party, self.tool(), path.to_string(), at, what, why);
    }

    /// Two unions: variants added and removed (by name), the tag, then each variant kept.
    fn unions(
        &mut self,
        (ov, otag): (&[Field], &Option<String>),
        (nv, ntag): (&[Field], &Option<String>),
        dir: Dir,
        path: &str,
        span: Span,
        name: &str,
    ) {
        let who = self.who();
        if otag != ntag {
            let party = match dir {
                Dir::Input => Party::Callers,
                Dir::Output { .. } => Party::Consumers,
            };
            self.out.push(
                "union-tag-changed",
                Some(party),
                self.tool(),
                path.to_string(),
                (Side::New, span),
                format!(
                    "{who}`{name}` tells its variants apart by {} (was {})",
                    ntag.as_deref()
                        .map_or("JSON type".into(), |t| format!("`{t}`")),
                    otag.as_deref()
                        .map_or("JSON type".into(), |t| format!("`{t}`"))
                ),
                "values written the old way name no variant and are refused",
            );
        }
        for v in nv.iter().filter(|v| !ov.iter().any(|o| o.name == v.name)) {
            let (code, party, why) = match dir {
                Dir::Input => (
                    "variant-added",
                    None,
                    "calls that pass another variant work as before".to_string(),
                ),
                Dir::Output { .. } => (
                    "output-variant-added",
                    Some(Party::Consumers),
                    format!(
                        "readers that know only the old variants get `{}` values",
                        v.name
                    ),
                ),
            };
            self.out.push(
                code,
                party,
                self.tool(),
                format!("{path}.{}", v.name),
                (Side::New, v.span),
                format!("{who}`{name}` has a new variant `{}`", v.name),
                why,
            );
        }
        for v in ov.iter().filter(|v| !nv.iter().any(|n| n.name == v.name)) {
            let (code, party, why) = match dir {
                Dir::Input => (
                    "variant-removed",
                    Some(Party::Callers),
                    format!(
                        "a call that passes a value of the `{}` variant is refused",
                        v.name
                    ),
                ),
                Dir::Output { .. } => (
                    "output-variant-removed",
                    None,
                    "readers that handle it still work".to_string(),
                ),
            };
            self.out.push(
                code,
                party,
                self.tool(),
                format!("{path}.{}", v.name),
                (Side::Old, v.span),
                format!("{who}`{name}` lost its variant `{}`", v.name),
                why,
            );
        }
        for o in ov {
            if let Some(n) = nv.iter().find(|n| n.name == o.name) {
                self.types(
                    &o.ty,
                    &n.ty,
                    dir,
                    &format!("{path}.{}", n.name),
                    n.span,
                    &format!("{name}.{}", n.name),
                );
            }
        }
    }

    fn types(&mut self, o: &Type, n: &Type, dir: Dir, path: &str, span: Span, name: &str) {
        let who = self.who();
        // A value made a union that still takes the old type (a calendar id, now also a
        // list of them) widens it; the reverse narrows it.
        let widened = match (&o.kind, &n.kind) {
            (Kind::Union { .. }, Kind::Union { .. }) => None,
            (_, Kind::Union { variants, .. }) => variants
                .iter()
                .any(|v| v.ty.json_type() == o.json_type())
                .then_some(true),
            (Kind::Union { variants, .. }, _) => variants
                .iter()
                .any(|v| v.ty.json_type() == n.json_type())
                .then_some(false),
            _ => None,
        };
        if let Some(wider) = widened {
            let (code, party) = match (dir, wider) {
                (Dir::Input, true) | (Dir::Output { .. }, false) => ("type-widened-to-union", None),
                (Dir::Input, false) => ("type-narrowed-from-union", Some(Party::Callers)),
                (Dir::Output { .. }, true) => ("type-widened-to-union", Some(Party::Consumers)),
            };
            let why = match party {
                None => "every value that was valid still is".to_string(),
                Some(Party::Callers) => format!(
                    "a call that passes {} other than {} is refused with invalid_type",
                    name,
                    n.json_type_words()
                ),
                Some(_) => format!(
                    "readers that parse {} {} may get {}",
                    article(o.json_type()),
                    o.json_type(),
                    n.json_type_words()
                ),
            };
            self.out.push(
                code,
                party,
                self.tool(),
                path.to_string(),
                (Side::New, span),
                format!(
                    "{who}`{name}` now takes {} (was {})",
                    n.json_type_words(),
                    o.json_type_words()
                ),
                why,
            );
            return;
        }
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
                    enum_values: oe,
                    ..
                },
                Kind::Integer {
                    minimum: nmin,
                    maximum: nmax,
                    enum_values: ne,
                    ..
                },
            ) => self.integers(
                (*omin, *omax, oe.as_deref()),
                (*nmin, *nmax, ne.as_deref()),
                dir,
                path,
                span,
                name,
            ),
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
                    ..
                },
                Kind::Object {
                    fields: nf,
                    open: nopen,
                    ..
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
            (
                Kind::Map {
                    values: ov,
                    keys: ok,
                    max_entries: omax,
                },
                Kind::Map {
                    values: nv,
                    keys: nk,
                    max_entries: nmax,
                },
            ) => {
                let f = |v: &Option<u64>| v.map(|x| x as f64);
                self.bound(
                    upper_bound("max_entries", f(omax), f(nmax), "invalid_length"),
                    dir,
                    path,
                    span,
                    name,
                );
                self.strings(
                    ok,
                    nk,
                    dir,
                    &format!("{path}{{key}}"),
                    span,
                    &format!("{name} keys"),
                );
                self.types(
                    ov,
                    nv,
                    dir,
                    &format!("{path}{{}}"),
                    span,
                    &format!("{name} values"),
                );
            }
            (
                Kind::Union {
                    variants: ov,
                    tag: ot,
                },
                Kind::Union {
                    variants: nv,
                    tag: nt,
                },
            ) => {
                self.unions((ov, ot), (nv, nt), dir, path, span, name);
            }
            _ => {}
        }
    }
}
