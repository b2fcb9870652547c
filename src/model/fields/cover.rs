//! Examples written above a field that count for it.
//!
//! A realistic value is needed for every scalar field, for the docs' tables and example
//! results; but a value is often written once for a whole object: a named type's
//! `example: {number: 42, title: ...}`, an object field's own `example:`, or a whole result
//! in a tool's success example. Such an example already holds a value for each field inside
//! it, so those fields need none of their own: [`Cover`] gathers, for every field written in
//! a spec, the values the examples above it give it, and the resolver takes a field's example
//! from there when it has none (see `FieldResolver::field`).
//!
//! The enclosing examples are still validated as written (a named type's and a field's
//! against their types, a tool's result against its output), and a value taken from them is
//! used only if it is valid for the field's own type: a value an untagged union's other
//! variant holds, or one that breaks the field's rules, counts for nothing.

use crate::spec::format as raw;
use crate::spec::spanned::{Pos, Sp, SpMap};
use serde_json::Value;
use std::collections::HashMap;

/// How deep a walk follows an example: as deep as a spec may nest, with room for the named
/// types it passes through (a recursive type is reported elsewhere; here it must only end).
const MAX_DEPTH: usize = 2 * crate::spec::MAX_DEPTH;

/// The values that examples written above each field give it, keyed by where the field's
/// `type` is written (one place per field in the spec, whichever named type or tool it is in).
#[derive(Debug, Default)]
pub struct Cover {
    at: HashMap<Pos, Vec<Value>>,
}

impl Cover {
    /// Gathers what every example of `spec` says about the fields inside it: named types'
    /// examples, fields' examples, and tools' success results (and previews) for their
    /// output (and preview) fields.
    pub fn of(spec: &raw::SpecFile) -> Cover {
        let types: &[(Sp<String>, raw::Field)] =
            spec.types.as_ref().map_or(&[], |t| t.0.as_slice());
        let mut walk = Walk {
            types,
            cover: Cover::default(),
        };
        for (_, def) in types {
            walk.field(def, Vec::new(), 0);
        }
        for (_, def) in spec.errors.iter().flat_map(|e| e.iter()) {
            walk.fields(def.details.as_ref(), &[], 0);
        }
        for t in &spec.tools.value {
            walk.fields(t.params.as_ref(), &[], 0);
            let succeeded = || t.examples.iter().flatten().filter(|e| e.error.is_none());
            let results: Vec<&Value> = succeeded()
                .filter_map(|e| e.result.as_ref().map(|r| &r.value))
                .collect();
            walk.fields(Some(&t.output.value), &results, 0);
            if let Some(p) = &t.preview {
                let previews: Vec<&Value> = succeeded()
                    .filter_map(|e| e.preview.as_ref().map(|r| &r.value))
                    .collect();
                walk.fields(p.value.fields.as_ref(), &previews, 0);
            }
        }
        walk.cover
    }

    /// The values examples above `f` give it, in written order (empty when none does).
    pub fn values(&self, f: &raw::Field) -> &[Value] {
        self.at.get(&f.ty.pos).map_or(&[], Vec::as_slice)
    }
}

struct Walk<'a> {
    types: &'a [(Sp<String>, raw::Field)],
    cover: Cover,
}

impl Walk<'_> {
    /// The fields of an object, each given its key's value in every object of `values`.
    fn fields(&mut self, fields: Option<&SpMap<raw::Field>>, values: &[&Value], depth: usize) {
        for (name, f) in fields.iter().flat_map(|m| m.iter()) {
            let below = values
                .iter()
                .filter_map(|v| v.get(&name.value))
                .cloned()
                .collect();
            self.field(f, below, depth);
        }
    }

    /// Records `given` (the values examples above `f` hold for it) and follows them, with
    /// `f`'s own example, into whatever `f` holds.
    fn field(&mut self, f: &raw::Field, given: Vec<Value>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let given: Vec<Value> = given.into_iter().filter(|v| !v.is_null()).collect();
        let mut values: Vec<&Value> = given.iter().collect();
        values.extend(
            f.example
                .as_ref()
                .map(|e| &e.value)
                .filter(|v| !v.is_null()),
        );
        let depth = depth + 1;
        match f.ty.value.as_str() {
            "object" => self.fields(f.fields.as_ref(), &values, depth),
            "array" => {
                if let Some(items) = &f.items {
                    let each = values
                        .iter()
                        .filter_map(|v| v.as_array())
                        .flatten()
                        .cloned()
                        .collect();
                    self.field(items, each, depth);
                }
            }
            "map" => {
                if let Some(of) = &f.values {
                    let each = values
                        .iter()
                        .filter_map(|v| v.as_object())
                        .flat_map(|m| m.values())
                        .cloned()
                        .collect();
                    self.field(of, each, depth);
                }
            }
            "union" => {
                let tag = f.tag.as_ref().map(|t| t.value.as_str());
                for (name, variant) in f.variants.iter().flat_map(|m| m.iter()) {
                    // A tagged value belongs to the variant its tag names; an untagged one
                    // may belong to any, and the field that takes a value from it checks
                    // that it fits.
                    let mine = values
                        .iter()
                        .filter(|v| {
                            tag.is_none_or(|tag| {
                                v.get(tag).and_then(Value::as_str) == Some(&name.value)
                            })
                        })
                        .map(|v| (*v).clone())
                        .collect();
                    self.field(variant, mine, depth);
                }
            }
            named => {
                // A named type's fields are walked from its definition once; a use of it
                // adds what that use's examples say (a tool's result holding a `User`).
                if !values.is_empty()
                    && let Some((_, def)) = self.types.iter().find(|(n, _)| n.value == named)
                {
                    let values = values.into_iter().cloned().collect();
                    self.field(def, values, depth);
                }
            }
        }
        if !given.is_empty() {
            self.cover.at.entry(f.ty.pos).or_default().extend(given);
        }
    }
}
