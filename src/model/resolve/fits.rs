//! Whether every value of one field is a value another field takes.
//!
//! An undo call is assembled by the runtime from a reversible tool's result: each argument is
//! a result field (the *source*) passed as a parameter of the undo tool (the *target*). The
//! agent makes that call later, after the change; if the undo tool refuses it, the change
//! stays. So `check` compares the two types the way the undo tool's validator will see the
//! values: item by item, field by field, variant by variant. Each way a source value can
//! break the target is a [`Misfit`], found at a suffix below the argument (`""` for the value
//! itself, `[]` for a list's items, `.name` for an object's field, `(variant)` for a tagged
//! union's variant, `.<key>` for a map's values).
//!
//! Only what changes whether a value is accepted at all is compared: JSON types, enums,
//! `null`, which keys a closed object takes and which it requires, tags and variants. Lengths,
//! ranges, patterns and formats are not: a result field usually states its limits less
//! tightly than the parameter it feeds, and flagging every such pair would drown the
//! mismatches that always fail.

use crate::model::{Field, Kind, Type};

/// One way values of the source break the target.
#[derive(Debug, Clone, PartialEq)]
pub enum Misfit {
    /// Another JSON type (`integer` where `string` is taken), in words with their article.
    Type {
        /// Where below the argument.
        at: String,
        /// What the source holds (`an integer`).
        from: String,
        /// What the target takes (`a string`).
        to: String,
    },
    /// Values the target's enum does not have (strings, or whole numbers as JSON writes
    /// them).
    Values {
        /// Where below the argument.
        at: String,
        /// The source's values outside the enum (`any other string` for an open string,
        /// `any other integer` for an integer without an enum).
        outside: Vec<String>,
        /// The target's enum.
        allowed: Vec<String>,
    },
    /// `null`, which the target does not take.
    Null {
        /// Where below the argument.
        at: String,
    },
    /// A field of the source that the target's closed object does not take.
    ExtraKey {
        /// Where below the argument (the object, not the field).
        at: String,
        /// The field's name.
        key: String,
        /// The fields the target takes.
        takes: Vec<String>,
        /// Those of them the source has no field of that name for: what `key` may have been
        /// meant to be.
        unmatched: Vec<String>,
    },
    /// A field the target requires that the source lacks (`optional: false`) or may leave
    /// out (`optional: true`).
    MissingKey {
        /// Where below the argument (the object, not the field).
        at: String,
        /// The field's name.
        key: String,
        /// Whether the source has it, but not always.
        optional: bool,
    },
    /// Keys the source does not fix (a free-form object or a map) where the target takes
    /// only its own fields.
    OpenKeys {
        /// Where below the argument.
        at: String,
        /// The fields the target takes.
        takes: Vec<String>,
    },
    /// A variant of a tagged source union the target has no variant for.
    Variant {
        /// Where below the argument.
        at: String,
        /// The variant's tag value.
        name: String,
        /// The target's variants.
        takes: Vec<String>,
    },
}

impl Misfit {
    /// Where below the argument the values part ways.
    pub fn at(&self) -> &str {
        match self {
            Misfit::Type { at, .. }
            | Misfit::Values { at, .. }
            | Misfit::Null { at }
            | Misfit::ExtraKey { at, .. }
            | Misfit::MissingKey { at, .. }
            | Misfit::OpenKeys { at, .. }
            | Misfit::Variant { at, .. } => at,
        }
    }

    /// Whether the misfit is about an object's keys (which fields), not about a value's
    /// type: the two are told apart by their diagnostic codes.
    pub fn is_shape(&self) -> bool {
        matches!(
            self,
            Misfit::ExtraKey { .. } | Misfit::MissingKey { .. } | Misfit::OpenKeys { .. }
        )
    }
}

/// Every way a value of `source` can be one `target` refuses, the field itself included
/// (its `null`); whether the source is present at all is the caller's question.
pub fn misfits(source: &Field, target: &Field) -> Vec<Misfit> {
    let mut out = Vec::new();
    field(source, target, "", &mut out);
    out
}

fn field(source: &Field, target: &Field, at: &str, out: &mut Vec<Misfit>) {
    if source.nullable && !target.nullable {
        out.push(Misfit::Null { at: at.into() });
    }
    ty(&source.ty, &target.ty, at, out);
}

fn ty(source: &Type, target: &Type, at: &str, out: &mut Vec<Misfit>) {
    let mismatch = |out: &mut Vec<Misfit>| {
        out.push(Misfit::Type {
            at: at.into(),
            from: words(source),
            to: words(target),
        });
    };
    match (&source.kind, &target.kind) {
        // A free-form object takes any object, and nothing else.
        (_, Kind::Object { fields, open, .. })
            if *open && fields.is_empty() && source.json_type() != "object" =>
        {
            mismatch(out);
        }
        (_, Kind::Object { fields, open, .. }) if *open && fields.is_empty() => {}
        // Each variant of an untagged source is a value of its own.
        (
            Kind::Union {
                variants,
                tag: None,
            },
            _,
        ) => {
            for v in variants {
                ty(&v.ty, target, at, out);
            }
        }
        // An untagged target picks its variant by JSON type, as its validator does.
        (
            _,
            Kind::Union {
                variants,
                tag: None,
            },
        ) => match variants.iter().find(|v| same_json_type(source, &v.ty)) {
            Some(v) => ty(source, &v.ty, at, out),
            None => mismatch(out),
        },
        (
            Kind::Union {
                variants: from,
                tag: Some(from_tag),
            },
            Kind::Union {
                variants: to,
                tag: Some(to_tag),
            },
        ) if from_tag == to_tag => {
            for v in from {
                match to.iter().find(|w| w.name == v.name) {
                    Some(w) => ty(&v.ty, &w.ty, &format!("{at}({})", v.name), out),
                    None => out.push(Misfit::Variant {
                        at: at.into(),
                        name: v.name.clone(),
                        takes: to.iter().map(|w| w.name.clone()).collect(),
                    }),
                }
            }
        }
        (Kind::Union { .. }, _) | (_, Kind::Union { .. }) => mismatch(out),
        (Kind::Integer { .. }, Kind::Number { .. }) => {}
        (
            Kind::Integer {
                enum_values: from, ..
            },
            Kind::Integer {
                enum_values: Some(allowed),
                ..
            },
        ) => {
            let outside: Vec<String> = match from {
                Some(values) => values
                    .iter()
                    .filter(|v| !allowed.contains(v))
                    .map(i64::to_string)
                    .collect(),
                None => vec!["any other integer".into()],
            };
            if !outside.is_empty() {
                out.push(Misfit::Values {
                    at: at.into(),
                    outside,
                    allowed: allowed.iter().map(i64::to_string).collect(),
                });
            }
        }
        (Kind::String(from), Kind::String(to)) => {
            if let Some(allowed) = &to.enum_values {
                let outside: Vec<String> = match &from.enum_values {
                    Some(values) => values
                        .iter()
                        .filter(|v| !allowed.contains(v))
                        .cloned()
                        .collect(),
                    None => vec!["any other string".into()],
                };
                if !outside.is_empty() {
                    out.push(Misfit::Values {
                        at: at.into(),
                        outside,
                        allowed: allowed.clone(),
                    });
                }
            }
        }
        (Kind::Array { items: from, .. }, Kind::Array { items: to, .. }) => {
            ty(from, to, &format!("{at}[]"), out);
        }
        (Kind::Map { values: from, .. }, Kind::Map { values: to, .. }) => {
            ty(from, to, &format!("{at}.<key>"), out);
        }
        (Kind::Object { fields, .. }, Kind::Map { values, .. }) => {
            for f in fields {
                let inner = format!("{at}.{}", f.name);
                if f.nullable {
                    out.push(Misfit::Null { at: inner.clone() });
                }
                ty(&f.ty, values, &inner, out);
            }
        }
        (Kind::Map { .. }, Kind::Object { fields, .. }) => out.push(Misfit::OpenKeys {
            at: at.into(),
            takes: names(fields),
        }),
        (
            Kind::Object {
                fields: from, open, ..
            },
            Kind::Object { fields: to, .. },
        ) => {
            if *open && from.is_empty() {
                out.push(Misfit::OpenKeys {
                    at: at.into(),
                    takes: names(to),
                });
                return;
            }
            for f in from {
                match to.iter().find(|g| g.name == f.name) {
                    Some(g) => field(f, g, &format!("{at}.{}", f.name), out),
                    None => out.push(Misfit::ExtraKey {
                        at: at.into(),
                        key: f.name.clone(),
                        takes: names(to),
                        unmatched: to
                            .iter()
                            .filter(|g| !from.iter().any(|f| f.name == g.name))
                            .map(|g| g.name.clone())
                            .collect(),
                    }),
                }
            }
            for g in to.iter().filter(|g| g.required) {
                match from.iter().find(|f| f.name == g.name) {
                    Some(f) if f.required => {}
                    found => out.push(Misfit::MissingKey {
                        at: at.into(),
                        key: g.name.clone(),
                        optional: found.is_some(),
                    }),
                }
            }
        }
        (Kind::Content(from), Kind::Content(to)) if from == to => {}
        _ if !same_json_type(source, target) => mismatch(out),
        _ => {}
    }
}

/// Whether a value of `source` has the JSON type `target` takes (an integer is a number).
fn same_json_type(source: &Type, target: &Type) -> bool {
    let (from, to) = (source.json_type(), target.json_type());
    from == to || (from == "integer" && to == "number")
}

fn names(fields: &[Field]) -> Vec<String> {
    fields.iter().map(|f| f.name.clone()).collect()
}

/// A type in words with its article: `an integer`, `a string or object`, `an object tagged
/// by kind`.
fn words(ty: &Type) -> String {
    let plain = match &ty.kind {
        Kind::Union { tag: Some(tag), .. } => format!("object tagged by `{tag}`"),
        _ => ty.json_type_words(),
    };
    format!("{} {plain}", article(&plain))
}

/// `a` or `an` before a word.
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Span;
    use crate::model::{Origin, StringRules};
    use serde_json::Value;

    fn f(name: &str, ty: Type, required: bool) -> Field {
        Field {
            name: name.into(),
            span: Span::default(),
            description: String::new(),
            ty,
            required,
            default: None,
            example: Value::Null,
            detailed_only: false,
            projected: false,
            nullable: false,
            origin: Origin::Spec,
        }
    }

    fn object(fields: Vec<Field>) -> Type {
        Type::of(Kind::Object {
            fields,
            open: false,
            requires: Vec::new(),
        })
    }

    fn list(items: Type) -> Type {
        Type::of(Kind::Array {
            items: Box::new(items),
            min_items: None,
            max_items: None,
        })
    }

    fn int() -> Type {
        Type::of(Kind::integer(None, None))
    }

    #[test]
    fn items_are_compared_field_by_field() {
        let source = f(
            "added",
            list(object(vec![
                f("entityName", Type::string(), true),
                f("addedObservations", list(Type::string()), true),
            ])),
            true,
        );
        let target = f(
            "observations",
            list(object(vec![
                f("entityName", Type::string(), true),
                f("observations", list(Type::string()), true),
            ])),
            true,
        );
        assert_eq!(
            misfits(&source, &target),
            [
                Misfit::ExtraKey {
                    at: "[]".into(),
                    key: "addedObservations".into(),
                    takes: vec!["entityName".into(), "observations".into()],
                    unmatched: vec!["observations".into()],
                },
                Misfit::MissingKey {
                    at: "[]".into(),
                    key: "observations".into(),
                    optional: false,
                },
            ]
        );
    }

    #[test]
    fn item_types_and_optional_fields_are_found_at_their_depth() {
        let source = f("ids", list(int()), true);
        let target = f("ids", list(Type::string()), true);
        assert_eq!(
            misfits(&source, &target),
            [Misfit::Type {
                at: "[]".into(),
                from: "an integer".into(),
                to: "a string".into(),
            }]
        );
        let source = f("a", object(vec![f("b", Type::string(), false)]), true);
        let target = f("a", object(vec![f("b", Type::string(), true)]), true);
        assert_eq!(
            misfits(&source, &target),
            [Misfit::MissingKey {
                at: String::new(),
                key: "b".into(),
                optional: true,
            }]
        );
    }

    #[test]
    fn what_the_target_accepts_fits() {
        let number = Type::of(Kind::Number {
            minimum: None,
            maximum: None,
        });
        assert!(misfits(&f("n", int(), true), &f("n", number, true)).is_empty());
        let status = |values: &[&str]| {
            Type::of(Kind::String(StringRules {
                enum_values: Some(values.iter().map(|v| v.to_string()).collect()),
                ..StringRules::default()
            }))
        };
        let source = f(
            "s",
            object(vec![f("status", status(&["open"]), true)]),
            true,
        );
        let target = f(
            "s",
            object(vec![
                f("status", status(&["open", "closed"]), true),
                f("note", Type::string(), false),
            ]),
            true,
        );
        assert!(misfits(&source, &target).is_empty());
        let free = Type::of(Kind::Object {
            fields: Vec::new(),
            open: true,
            requires: Vec::new(),
        });
        assert!(misfits(&source, &f("s", free.clone(), true)).is_empty());
        // But a free-form source cannot promise a closed target's fields.
        assert_eq!(
            misfits(&f("s", free, true), &target),
            [Misfit::OpenKeys {
                at: String::new(),
                takes: vec!["status".into(), "note".into()],
            }]
        );
    }

    #[test]
    fn an_integer_enum_takes_only_its_values() {
        let levels = |values: Option<Vec<i64>>| {
            Type::of(Kind::Integer {
                minimum: None,
                maximum: None,
                enum_values: values,
                enum_descriptions: Vec::new(),
            })
        };
        let target = f("level", levels(Some(vec![1, 2, 5])), true);
        assert!(misfits(&f("level", levels(Some(vec![5, 1])), true), &target).is_empty());
        assert_eq!(
            misfits(&f("level", levels(Some(vec![1, 3])), true), &target),
            [Misfit::Values {
                at: String::new(),
                outside: vec!["3".into()],
                allowed: vec!["1".into(), "2".into(), "5".into()],
            }]
        );
        assert_eq!(
            misfits(&f("level", int(), true), &target),
            [Misfit::Values {
                at: String::new(),
                outside: vec!["any other integer".into()],
                allowed: vec!["1".into(), "2".into(), "5".into()],
            }]
        );
        // An enum's values are integers, which an open integer takes.
        assert!(misfits(&target, &f("level", int(), true)).is_empty());
    }

    #[test]
    fn null_is_a_value_of_its_own() {
        let mut source = f("s", Type::string(), true);
        source.nullable = true;
        assert_eq!(
            misfits(&source, &f("s", Type::string(), true)),
            [Misfit::Null { at: String::new() }]
        );
        let mut target = f("s", Type::string(), true);
        target.nullable = true;
        assert!(misfits(&source, &target).is_empty());
    }
}
