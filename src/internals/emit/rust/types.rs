//! The Rust types of one toolset: named types, each tool's input, output and preview, the
//! error enum, and the inline types their fields need.
//!
//! Names are settled here, before any template runs: every identifier comes from
//! [`escape`](super::escape), so it is valid and lint-free whatever the spec says. Names a
//! user reads and writes (named types, fields, the generated `Input`/`Output` types, methods)
//! must not collide after escaping; a collision is a diagnostic at the spec location. Names
//! the generator invents (inline types, enum variants of odd values) get a number instead.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::escape::{ident, type_ident, variant};
use crate::diagnostics::{Diagnostic, Diagnostics, Span};
use crate::model::{Content, Field, Kind, Origin, Type};

/// One Rust type to declare.
#[derive(Debug, Clone, Serialize)]
pub struct TypeDecl {
    /// Its identifier.
    #[serde(serialize_with = "super::safe")]
    pub name: String,
    /// Its doc text (raw spec text).
    pub doc: String,
    /// `struct`, `enum` or `alias`.
    pub kind: &'static str,
    /// Struct fields.
    pub fields: Vec<FieldDecl>,
    /// Enum variants.
    pub variants: Vec<VariantDecl>,
    /// Alias target (a Rust type expression).
    #[serde(serialize_with = "super::safe")]
    pub target: String,
    /// `union` kind: the tag key of a tagged union (raw spec text); `None`: untagged.
    pub tag: Option<String>,
}

/// A field of a generated struct (or of an error variant).
#[derive(Debug, Clone, Serialize)]
pub struct FieldDecl {
    /// Rust identifier.
    #[serde(serialize_with = "super::safe")]
    pub name: String,
    /// JSON key (raw spec text).
    pub wire: String,
    /// Doc text (raw spec text).
    pub doc: String,
    /// Rust type expression, `Option<..>` already applied when optional.
    #[serde(serialize_with = "super::safe")]
    pub ty: String,
    /// Whether it is an `Option` skipped when `None`.
    pub optional: bool,
    /// Whether it is a `Clearable` (optional and nullable) skipped when left out.
    pub clearable: bool,
    /// Whether the identifier differs from the JSON key (needs `serde(rename)`).
    pub rename: bool,
}

/// A variant of a generated enum.
#[derive(Debug, Clone, Serialize)]
pub struct VariantDecl {
    /// Rust identifier.
    #[serde(serialize_with = "super::safe")]
    pub name: String,
    /// The value on the wire (raw spec text): an enum's value, a tagged union's tag.
    pub wire: String,
    /// A union variant's doc text (raw spec text); empty for enum values.
    pub doc: String,
    /// A union variant's Rust type expression; empty for enum values.
    #[serde(serialize_with = "super::safe")]
    pub ty: String,
}

/// Collects the type declarations of a toolset and checks their names.
pub struct Types<'d> {
    /// Declarations, in the order they are emitted.
    pub decls: Vec<TypeDecl>,
    named: HashMap<String, String>,
    taken: BTreeMap<String, String>,
    /// The Rust enum declared for each inline enum so far, by its values and their
    /// descriptions: an enum written alike in several places is one type.
    inline_enums: HashMap<EnumKey, String>,
    diags: &'d mut Diagnostics,
}

/// What makes two inline enums the same type: their values, in order, and the values'
/// descriptions (the variants' docs).
type EnumKey = (Vec<String>, Vec<(String, String)>);

const OPTION: &str = "::core::option::Option";
const CLEARABLE: &str = "::toolspec_runtime::prelude::Clearable";

impl<'d> Types<'d> {
    /// An empty set reporting name collisions into `diags`.
    pub fn new(diags: &'d mut Diagnostics) -> Self {
        Types {
            decls: Vec::new(),
            named: HashMap::new(),
            taken: BTreeMap::new(),
            inline_enums: HashMap::new(),
            diags,
        }
    }

    /// Where problems go.
    pub fn diags(&mut self) -> &mut Diagnostics {
        self.diags
    }

    /// Claims the type name `name` for `what`; a second claim is a diagnostic at `span`.
    pub fn claim(&mut self, name: &str, what: &str, span: Span) -> String {
        if let Some(first) = self.taken.get(name) {
            self.diags.push(
                Diagnostic::error(
                    "rust-name-collision",
                    span,
                    format!("{what} becomes the Rust type `{name}`, already used by {first}"),
                )
                .label("same Rust name")
                .help("rename one of them so their Rust names differ"),
            );
        } else {
            self.taken.insert(name.to_string(), what.to_string());
        }
        name.to_string()
    }

    /// A fresh type name from `words` for a type the generator invents (numbered if taken).
    fn invent(&mut self, words: &str) -> String {
        let base = type_ident(words);
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains_key(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.taken
            .insert(name.clone(), format!("inline type {name}"));
        name
    }

    /// Registers a named type's Rust name (before any declaration refers to it).
    pub fn register_named(&mut self, model_name: &str, span: Span) {
        let name = type_ident(model_name);
        self.claim(&name, &format!("type `{model_name}`"), span);
        self.named.insert(model_name.to_string(), name);
    }

    /// Declares a named type's body.
    pub fn declare_named(&mut self, model_name: &str, ty: &Type) {
        let Some(name) = self.named.get(model_name).cloned() else {
            return;
        };
        let doc = ty.description.clone().unwrap_or_default();
        self.declare_body(name, doc, ty);
    }

    /// Declares a struct of `fields` under an already claimed `name`.
    pub fn declare_struct(&mut self, name: &str, doc: &str, fields: &[Field]) {
        let slot = self.decls.len();
        self.decls.push(decl(name, doc, "struct"));
        let fields = self.fields(name, fields);
        self.decls[slot].fields = fields;
    }

    fn declare_body(&mut self, name: String, doc: String, ty: &Type) {
        match &ty.kind {
            Kind::Object {
                fields,
                open: false,
                ..
            } => self.declare_struct(&name, &doc, fields),
            Kind::Union { variants, tag } => self.declare_union(&name, &doc, variants, tag),
            Kind::String(rules) if rules.enum_values.is_some() => {
                let values = rules.enum_values.as_deref().unwrap_or(&[]);
                let mut d = decl(&name, &doc, "enum");
                d.variants = described(variants(values), rules);
                self.decls.push(d);
            }
            _ => {
                let slot = self.decls.len();
                self.decls.push(decl(&name, &doc, "alias"));
                let unnamed = Type {
                    name: None,
                    ..ty.clone()
                };
                self.decls[slot].target = self.expr(&unnamed, &name);
            }
        }
    }

    /// Declares a union as an enum under an already claimed `name`: one variant per spec
    /// variant, each holding its value (serde tells them apart by JSON type, or by `tag`).
    fn declare_union(&mut self, name: &str, doc: &str, variants: &[Field], tag: &Option<String>) {
        let slot = self.decls.len();
        let mut d = decl(name, doc, "union");
        d.tag = tag.clone();
        self.decls.push(d);
        let names = self::variants(&variants.iter().map(|v| v.name.clone()).collect::<Vec<_>>());
        let mut out = Vec::new();
        for (v, mut named) in variants.iter().zip(names) {
            named.doc = v.description.clone();
            named.ty = self.expr(&v.ty, &format!("{name} {}", v.name));
            out.push(named);
        }
        self.decls[slot].variants = out;
    }

    /// The fields of a struct named `parent`; only the spec's own fields (implied ones are
    /// the runtime's business). Two fields with one Rust name are a diagnostic.
    pub fn fields(&mut self, parent: &str, fields: &[Field]) -> Vec<FieldDecl> {
        let mut seen: HashMap<String, &str> = HashMap::new();
        let mut out = Vec::new();
        for f in fields.iter().filter(|f| f.origin == Origin::Spec) {
            let name = ident(&f.name);
            if let Some(first) = seen.insert(name.clone(), &f.name) {
                self.diags.push(
                    Diagnostic::error(
                        "rust-name-collision",
                        f.span,
                        format!(
                            "fields `{first}` and `{}` of `{parent}` both become the Rust field `{name}`",
                            f.name
                        ),
                    )
                    .label("same Rust name")
                    .help("rename one of them so they differ in letters or digits"),
                );
            }
            let inner = self.expr(&f.ty, &format!("{parent} {}", f.name));
            let absent_possible = !(f.required || f.default.is_some());
            // Three states (left out, null, a value) for an optional nullable field; a
            // required nullable one is an `Option` always written, `None` as `null`.
            let clearable = absent_possible && f.nullable;
            let optional = absent_possible && !f.nullable;
            let ty = if clearable {
                format!("{CLEARABLE}<{inner}>")
            } else if optional || f.nullable {
                format!("{OPTION}<{inner}>")
            } else {
                inner
            };
            out.push(FieldDecl {
                rename: name.trim_start_matches("r#") != f.name,
                name,
                wire: f.name.clone(),
                doc: f.description.clone(),
                ty,
                optional,
                clearable,
            });
        }
        out
    }

    /// The Rust type expression of `ty`; `context` names inline types it needs.
    pub fn expr(&mut self, ty: &Type, context: &str) -> String {
        if let Some(name) = ty.name.as_ref().and_then(|n| self.named.get(n)) {
            return name.clone();
        }
        match &ty.kind {
            Kind::String(rules) => match &rules.enum_values {
                Some(values) => {
                    // The first place an enum is written names it; every other place that
                    // writes the same values gets its own name as an alias of that type, so
                    // the implementer never converts between copies and each place keeps
                    // the name it would have had alone.
                    let key = (values.clone(), rules.enum_descriptions.clone());
                    let name = self.invent(context);
                    if let Some(first) = self.inline_enums.get(&key).cloned() {
                        let mut d = decl(
                            &name,
                            &format!("The same enum as {first}, written alike here: one type."),
                            "alias",
                        );
                        d.target = first;
                        self.decls.push(d);
                        return name;
                    }
                    self.inline_enums.insert(key, name.clone());
                    let mut d = decl(&name, ty.description.as_deref().unwrap_or(""), "enum");
                    d.variants = described(variants(values), rules);
                    self.decls.push(d);
                    name
                }
                None => "::std::string::String".into(),
            },
            Kind::Integer {
                minimum,
                enum_values,
                ..
            } => {
                // The smallest value the validator lets through: an enum's least, else the
                // minimum.
                let least = match enum_values {
                    Some(values) => values.iter().min().copied(),
                    None => *minimum,
                };
                if least.is_some_and(|m| m >= 0) {
                    "u64".into()
                } else {
                    "i64".into()
                }
            }
            Kind::Number { .. } => "f64".into(),
            Kind::Content(Content::Image | Content::Audio) => {
                "::toolspec_runtime::content::Media".into()
            }
            Kind::Content(Content::ResourceLink) => {
                "::toolspec_runtime::content::ResourceLink".into()
            }
            Kind::Content(Content::Text) => "::std::string::String".into(),
            Kind::Boolean => "bool".into(),
            Kind::Array { items, .. } => {
                format!(
                    "::std::vec::Vec<{}>",
                    self.expr(items, &format!("{context} item"))
                )
            }
            Kind::Union { variants, tag } => {
                let name = self.invent(context);
                self.declare_union(
                    &name,
                    ty.description.as_deref().unwrap_or(""),
                    variants,
                    tag,
                );
                name
            }
            Kind::Map { values, .. } => format!(
                "::std::collections::BTreeMap<::std::string::String, {}>",
                self.expr(values, &format!("{context} value"))
            ),
            Kind::Object { open: true, .. } => {
                "::serde_json::Map<::std::string::String, ::serde_json::Value>".into()
            }
            Kind::Object { fields, .. } => {
                let name = self.invent(context);
                self.declare_struct(&name, ty.description.as_deref().unwrap_or(""), fields);
                name
            }
        }
    }
}

fn decl(name: &str, doc: &str, kind: &'static str) -> TypeDecl {
    TypeDecl {
        name: name.to_string(),
        doc: doc.to_string(),
        kind,
        fields: Vec::new(),
        variants: Vec::new(),
        target: String::new(),
        tag: None,
    }
}

/// `variants` with each value's description, where the spec gives one, as its doc.
fn described(
    mut variants: Vec<VariantDecl>,
    rules: &crate::model::StringRules,
) -> Vec<VariantDecl> {
    for v in &mut variants {
        if let Some((_, d)) = rules
            .enum_descriptions
            .iter()
            .find(|(value, _)| *value == v.wire)
        {
            v.doc = d.clone();
        }
    }
    variants
}

/// Variants for enum values: distinct identifiers, numbered when two values spell the same
/// (`"#` and `*/` have no letters at all); the wire value is kept by `serde(rename)`.
fn variants(values: &[String]) -> Vec<VariantDecl> {
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for value in values {
        let base = variant(value);
        let mut name = base.clone();
        let mut n = 2;
        while used.contains_key(&name) {
            name = format!("{}{n}", base.trim_end_matches('_'));
            n += 1;
        }
        used.insert(name.clone(), out.len());
        out.push(VariantDecl {
            name,
            wire: value.clone(),
            doc: String::new(),
            ty: String::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_enum_values_get_distinct_variants() {
        let values: Vec<String> = [
            "open",
            "\"#",
            "*/",
            "Open",
            "self",
            "日本",
            "+1",
            "-1",
            "reactions-+1",
            "utf-8",
            "in-progress",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let names: Vec<String> = variants(&values).into_iter().map(|v| v.name).collect();
        assert_eq!(
            names,
            [
                "Open",
                "Value",
                "Value2",
                "Open2",
                "Self_",
                "Value3",
                "Plus1",
                "Minus1",
                "ReactionsPlus1",
                "Utf8",
                "InProgress"
            ]
        );
    }
}
