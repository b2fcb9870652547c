//! The static validation tables of a toolset: `toolspec_runtime::validate` shapes built from
//! the model's fields, which the runtime's validator walks on every call.
//!
//! Each tool's input is one `ObjectShape`; nested objects and lists get their own statics
//! (a named type's once, shared by every tool using it), and each distinct pattern one
//! `Pattern` (compiled once, on first use). Only what tool inputs reach is emitted, so no
//! static is ever unused.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::escape::{const_ident, lit};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{Field, Format, Kind, Type};

/// One `static` of the generated file.
#[derive(Debug, Clone, Serialize)]
pub struct StaticDecl {
    /// Its SCREAMING_SNAKE_CASE name.
    #[serde(serialize_with = "super::safe")]
    pub name: String,
    /// Its type, relative to `toolspec_runtime::validate`.
    #[serde(serialize_with = "super::safe")]
    pub ty: &'static str,
    /// Its initializer (a const expression).
    #[serde(serialize_with = "super::safe")]
    pub expr: String,
}

/// Builds the statics.
pub struct Shapes<'d> {
    /// The statics, in order of first use.
    pub statics: Vec<StaticDecl>,
    named: HashMap<String, String>,
    patterns: HashMap<String, String>,
    used: HashSet<String>,
    diags: &'d mut Diagnostics,
}

/// The path the templates import `toolspec_runtime::validate` as.
const V: &str = "validate";

impl<'d> Shapes<'d> {
    /// No statics yet; problems (a non-finite number bound) go to `diags`.
    pub fn new(diags: &'d mut Diagnostics) -> Self {
        Shapes {
            statics: Vec::new(),
            named: HashMap::new(),
            patterns: HashMap::new(),
            // The names the templates use for their own statics.
            used: HashSet::from(["DEFINITIONS".to_string(), "SERVE".to_string()]),
            diags,
        }
    }

    fn fresh(&mut self, words: &str) -> String {
        let base = const_ident(words);
        let mut name = base.clone();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }

    /// The `ObjectShape` static for a tool's input (`fields` are all its parameters,
    /// implied ones included); returns the static's name.
    pub fn input(&mut self, tool: &str, fields: &[Field]) -> String {
        self.object(&format!("{tool} input"), fields)
    }

    fn object(&mut self, words: &str, fields: &[Field]) -> String {
        let name = self.fresh(words);
        let slot = self.statics.len();
        self.statics.push(StaticDecl {
            name: name.clone(),
            ty: "ObjectShape",
            expr: String::new(),
        });
        let items: Vec<String> = fields
            .iter()
            .map(|f| self.field(f, &format!("{words} {}", f.name)))
            .collect();
        self.statics[slot].expr = format!("{V}::ObjectShape::new(&[{}])", items.join(", "));
        name
    }

    fn field(&mut self, f: &Field, words: &str) -> String {
        let shape = self.shape(&f.ty, words, f);
        let ctor = if f.required { "required" } else { "optional" };
        let default = match &f.default {
            Some(d) => format!(
                ".default_json({})",
                lit(&serde_json::to_string(d).unwrap_or_default())
            ),
            None => String::new(),
        };
        format!("{V}::Field::{ctor}({}, {shape}){default}", lit(&f.name))
    }

    fn shape(&mut self, ty: &Type, words: &str, at: &Field) -> String {
        match &ty.kind {
            Kind::String(rules) => {
                let mut s = format!("{V}::StringShape::new()");
                if let Some(values) = &rules.enum_values {
                    let lits: Vec<String> = values.iter().map(|v| lit(v)).collect();
                    s.push_str(&format!(".one_of(&[{}])", lits.join(", ")));
                }
                if rules.min_length.is_some() || rules.max_length.is_some() {
                    s.push_str(&format!(
                        ".length({}, {})",
                        opt(rules.min_length),
                        opt(rules.max_length)
                    ));
                }
                if let Some(p) = &rules.pattern {
                    let name = self.pattern(p, ty.name.as_deref().unwrap_or(words));
                    s.push_str(&format!(".pattern(&{name})"));
                }
                if let Some(f) = rules.format {
                    s.push_str(&format!(".format({V}::Format::{})", format_variant(f)));
                }
                format!("{V}::Shape::String({s})")
            }
            Kind::Integer { minimum, maximum } => {
                format!("{V}::Shape::integer({}, {})", opt(*minimum), opt(*maximum))
            }
            Kind::Number { minimum, maximum } => format!(
                "{V}::Shape::number({}, {})",
                self.float(*minimum, at),
                self.float(*maximum, at)
            ),
            Kind::Boolean => format!("{V}::Shape::Boolean"),
            Kind::Array {
                items,
                min_items,
                max_items,
            } => {
                let name = self.fresh(&format!("{} items", ty.name.as_deref().unwrap_or(words)));
                let slot = self.statics.len();
                self.statics.push(StaticDecl {
                    name: name.clone(),
                    ty: "ArrayShape",
                    expr: String::new(),
                });
                let item = self.shape(items, &format!("{words} item"), at);
                self.statics[slot].expr = format!(
                    "{V}::ArrayShape::new({item}).bounds({}, {})",
                    opt(*min_items),
                    opt(*max_items)
                );
                format!("{V}::Shape::Array(&{name})")
            }
            // Free-form JSON: anything goes (the typed field is a `serde_json::Value`).
            Kind::Object { open: true, .. } => format!("{V}::Shape::Any"),
            Kind::Object { fields, .. } => {
                let name = match ty.name.as_ref().and_then(|n| self.named.get(n)) {
                    Some(existing) => existing.clone(),
                    None => {
                        let name = self.object(
                            &format!("{} shape", ty.name.as_deref().unwrap_or(words)),
                            fields,
                        );
                        if let Some(n) = &ty.name {
                            self.named.insert(n.clone(), name.clone());
                        }
                        name
                    }
                };
                format!("{V}::Shape::Object(&{name})")
            }
        }
    }

    fn pattern(&mut self, source: &str, words: &str) -> String {
        if let Some(name) = self.patterns.get(source) {
            return name.clone();
        }
        let name = self.fresh(&format!("{words} pattern"));
        self.statics.push(StaticDecl {
            name: name.clone(),
            ty: "Pattern",
            expr: format!("{V}::Pattern::new({})", lit(source)),
        });
        self.patterns.insert(source.to_string(), name.clone());
        name
    }

    /// A number bound as a Rust `Option<f64>`: infinities are no bound, NaN is an error.
    fn float(&mut self, bound: Option<f64>, at: &Field) -> String {
        match bound {
            Some(b) if b.is_finite() => format!("Some({b:?})"),
            Some(b) if b.is_nan() => {
                self.diags.push(
                    Diagnostic::error(
                        "invalid-value",
                        at.span,
                        format!("a bound of `{}` is not a number", at.name),
                    )
                    .label("NaN bound")
                    .help("write a finite number, or leave the bound out"),
                );
                "None".into()
            }
            _ => "None".into(),
        }
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    match v {
        Some(v) => format!("Some({v})"),
        None => "None".into(),
    }
}

fn format_variant(f: Format) -> &'static str {
    match f {
        Format::Email => "Email",
        Format::DateTime => "DateTime",
        Format::Date => "Date",
        Format::Uri => "Uri",
        Format::Uuid => "Uuid",
    }
}
