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
use crate::model::shapes::has_nullable;
use crate::model::{Field, Format, Kind, Requirement, StringRules, Type};

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

    /// A fresh static of type `ty`, its initializer written later (once what it refers to
    /// is declared): its name and slot.
    fn reserve(&mut self, words: &str, ty: &'static str) -> (String, usize) {
        let name = self.fresh(words);
        self.statics.push(StaticDecl {
            name: name.clone(),
            ty,
            expr: String::new(),
        });
        (name, self.statics.len() - 1)
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
    /// implied ones included, `requires` its rules over which go together); returns the
    /// static's name.
    pub fn input(&mut self, tool: &str, fields: &[Field], requires: &[Requirement]) -> String {
        let name = self.object(&format!("{tool} input"), fields, requires);
        if fields.iter().any(has_nullable)
            && let Some(s) = self.statics.iter_mut().find(|s| s.name == name)
        {
            s.expr.push_str(".with_nullable()");
        }
        name
    }

    fn object(&mut self, words: &str, fields: &[Field], requires: &[Requirement]) -> String {
        let (name, slot) = self.reserve(words, "ObjectShape");
        let items: Vec<String> = fields
            .iter()
            .map(|f| self.field(f, &format!("{words} {}", f.name)))
            .collect();
        let mut expr = format!("{V}::ObjectShape::new(&[{}])", items.join(", "));
        if !requires.is_empty() {
            let rules: Vec<String> = requires.iter().map(condition).collect();
            expr.push_str(&format!(".conditions(&[{}])", rules.join(", ")));
        }
        self.statics[slot].expr = expr;
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
        let nullable = if f.nullable { ".nullable()" } else { "" };
        format!(
            "{V}::Field::{ctor}({}, {shape}){default}{nullable}",
            lit(&f.name)
        )
    }

    fn shape(&mut self, ty: &Type, words: &str, at: &Field) -> String {
        match &ty.kind {
            Kind::String(rules) => {
                let s = self.string(rules, ty.name.as_deref().unwrap_or(words));
                format!("{V}::Shape::String({s})")
            }
            Kind::Map {
                values,
                keys,
                max_entries,
            } => {
                let (name, slot) = self.reserve(
                    &format!("{} map", ty.name.as_deref().unwrap_or(words)),
                    "MapShape",
                );
                let value = self.shape(values, &format!("{words} value"), at);
                let keys = self.string(keys, &format!("{words} key"));
                self.statics[slot].expr = format!(
                    "{V}::MapShape::new({value}).keys({keys}).max_entries({})",
                    opt(*max_entries)
                );
                format!("{V}::Shape::Map(&{name})")
            }
            Kind::Union { variants, tag } => {
                let (name, slot) = self.reserve(
                    &format!("{} union", ty.name.as_deref().unwrap_or(words)),
                    "UnionShape",
                );
                let list: Vec<String> = variants
                    .iter()
                    .map(|v| {
                        let shape = self.shape(&v.ty, &format!("{words} {}", v.name), at);
                        format!("({}, {shape})", lit(&v.name))
                    })
                    .collect();
                let mut expr = format!(
                    "{V}::UnionShape::new(&[{}], {})",
                    list.join(", "),
                    lit(&ty.json_type_words())
                );
                if let Some(tag) = tag {
                    expr.push_str(&format!(".tagged({})", lit(tag)));
                }
                self.statics[slot].expr = expr;
                format!("{V}::Shape::Union(&{name})")
            }
            Kind::Integer {
                minimum,
                maximum,
                enum_values: Some(values),
                ..
            } => {
                let values: Vec<String> = values.iter().map(i64::to_string).collect();
                format!(
                    "{V}::Shape::integer_one_of({}, {}, &[{}])",
                    opt(*minimum),
                    opt(*maximum),
                    values.join(", ")
                )
            }
            Kind::Integer {
                minimum, maximum, ..
            } => {
                format!("{V}::Shape::integer({}, {})", opt(*minimum), opt(*maximum))
            }
            // Outputs only: no input shape ever holds one.
            Kind::Content(_) => format!("{V}::Shape::Any"),
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
                let (name, slot) = self.reserve(
                    &format!("{} items", ty.name.as_deref().unwrap_or(words)),
                    "ArrayShape",
                );
                let item = self.shape(items, &format!("{words} item"), at);
                self.statics[slot].expr = format!(
                    "{V}::ArrayShape::new({item}).bounds({}, {})",
                    opt(*min_items),
                    opt(*max_items)
                );
                format!("{V}::Shape::Array(&{name})")
            }
            // Free-form JSON: any keys and values, but an object (the typed field is a
            // `serde_json::Map`).
            Kind::Object { open: true, .. } => {
                let name = self.fresh(&format!("{words} map"));
                self.statics.push(StaticDecl {
                    name: name.clone(),
                    ty: "MapShape",
                    expr: format!("{V}::MapShape::new({V}::Shape::Any)"),
                });
                format!("{V}::Shape::Map(&{name})")
            }
            Kind::Object {
                fields, requires, ..
            } => {
                let name = match ty.name.as_ref().and_then(|n| self.named.get(n)) {
                    Some(existing) => existing.clone(),
                    None => {
                        let name = self.object(
                            &format!("{} shape", ty.name.as_deref().unwrap_or(words)),
                            fields,
                            requires,
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

    /// A `StringShape` expression of `rules` (a pattern gets its own static).
    fn string(&mut self, rules: &StringRules, words: &str) -> String {
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
            let name = self.pattern(p, words);
            s.push_str(&format!(".pattern(&{name})"));
        }
        if let Some(f) = rules.format {
            s.push_str(&format!(".format({V}::Format::{})", format_variant(f)));
        }
        s
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

/// The `Condition` expression of a rule, as the generated server's tables write it.
fn condition(r: &Requirement) -> String {
    crate::emit::code::condition_at(V, r)
}
