//! Resolving fields and types: named types, constraints and their sanity, examples, defaults.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span, did_you_mean};
use crate::model::values::{check_value, compose_example};
use crate::model::{Field, Kind, NamedType, Origin, StringRules, Type};
use crate::spec::format as raw;
use crate::spec::spanned::{Pos, Sp, SpMap};
use heck::ToUpperCamelCase;
use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;

/// Built-in type names a field's `type` may use besides named types.
pub const BUILTIN_TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

/// Where a field sits, which decides what it must and may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A tool parameter.
    Param,
    /// An output, preview or error-detail field.
    Output,
    /// An array's `items`.
    Items,
    /// A named type's definition.
    NamedType,
}

/// Resolves the fields of one spec file, with its named types.
pub struct FieldResolver<'a> {
    file: FileId,
    raw_types: &'a [(Sp<String>, raw::Field)],
    resolved: HashMap<String, Type>,
    in_progress: Vec<String>,
    /// Problems found.
    pub diags: &'a mut Diagnostics,
}

impl<'a> FieldResolver<'a> {
    /// A resolver over a spec's `types`.
    pub fn new(
        file: FileId,
        types: Option<&'a SpMap<raw::Field>>,
        diags: &'a mut Diagnostics,
    ) -> Self {
        FieldResolver {
            file,
            raw_types: types.map(|t| t.0.as_slice()).unwrap_or(&[]),
            resolved: HashMap::new(),
            in_progress: Vec::new(),
            diags,
        }
    }

    /// A span in this file.
    pub fn span(&self, pos: Pos) -> Span {
        Span {
            file: self.file,
            pos,
        }
    }

    /// Resolves every named type, in written order.
    pub fn named_types(&mut self) -> Vec<NamedType> {
        let raw_types = self.raw_types;
        let mut out = Vec::new();
        for (name, def) in raw_types {
            if !is_type_name(&name.value) {
                self.diags.push(
                    Diagnostic::error(
                        "invalid-name",
                        self.span(name.pos),
                        format!("type name `{}` is not PascalCase", name.value),
                    )
                    .label("not a type name")
                    .help(format!(
                        "name types in PascalCase, like `{}`",
                        pascal_suggestion(&name.value)
                    )),
                );
            }
            if BUILTIN_TYPES.contains(&name.value.as_str()) {
                continue;
            }
            if let Some(ty) = self.named(&name.value, name.pos) {
                out.push(NamedType {
                    name: name.value.clone(),
                    span: self.span(name.pos),
                    ty,
                });
            }
            let _ = def;
        }
        out
    }

    /// The resolved named type `name`, resolving it on first use. Reports cycles.
    fn named(&mut self, name: &str, used_at: Pos) -> Option<Type> {
        if let Some(t) = self.resolved.get(name) {
            return Some(t.clone());
        }
        let raw_types = self.raw_types;
        let (decl, def) = raw_types.iter().find(|(n, _)| n.value == name)?;
        if self.in_progress.iter().any(|n| n == name) {
            let chain = self.in_progress.join(" -> ");
            self.diags.push(
                Diagnostic::error("recursive-type", self.span(used_at), format!("type `{name}` contains itself ({chain} -> {name})"))
                    .label("refers back to a type being defined")
                    .help("schemas are inlined for clients that cannot follow $ref, so types cannot be recursive; use an id field that refers to the other object instead"),
            );
            return None;
        }
        self.in_progress.push(name.to_string());
        let mut ty = self.resolve_type(def, Place::NamedType, decl.pos);
        self.in_progress.pop();
        ty.name = Some(name.to_string());
        ty.description = def.description.as_ref().map(|d| d.value.clone());
        self.resolved.insert(name.to_string(), ty.clone());
        Some(ty)
    }

    /// Resolves a map of fields.
    pub fn fields(&mut self, map: Option<&SpMap<raw::Field>>, place: Place) -> Vec<Field> {
        let Some(map) = map else { return Vec::new() };
        map.iter()
            .map(|(name, f)| self.field(name, f, place))
            .collect()
    }

    /// Resolves one field.
    pub fn field(&mut self, name: &Sp<String>, f: &raw::Field, place: Place) -> Field {
        let span = self.span(name.pos);
        if !is_field_name(&name.value) {
            self.diags.push(
                Diagnostic::error("invalid-name", span, format!("`{}` is not a valid field name", name.value))
                    .label("not an identifier")
                    .help("use letters, digits and `_`, starting with a letter (snake_case: `customer_email`)"),
            );
        }
        let errors_before = self.diags.error_count();
        let ty = self.resolve_type(f, place, name.pos);
        // A type that is itself wrong (unknown, contradictory bounds, an empty enum) would make
        // every check of the default and example against it a second report of one mistake.
        let type_ok = self.diags.error_count() == errors_before;
        // A reference to a named type takes its example from the type; if the reference is
        // broken, that is reported once, as such, and not again as a missing example.
        let is_reference = !BUILTIN_TYPES.contains(&f.ty.value.as_str());
        let description = match &f.description {
            Some(d) if !d.value.trim().is_empty() => d.value.clone(),
            _ => {
                if matches!(place, Place::Param | Place::Output) && ty.description.is_none() {
                    self.diags.push(
                        Diagnostic::error(
                            "missing-description",
                            span,
                            format!("`{}` has no description", name.value),
                        )
                        .label("say what this value means")
                        .help("add `description:`; agents choose values from it"),
                    );
                }
                ty.description.clone().unwrap_or_default()
            }
        };
        let has_default = f.default.is_some();
        if let (Some(req), true) = (&f.required, has_default)
            && req.value
        {
            self.diags.push(
                Diagnostic::error(
                    "required-with-default",
                    self.span(req.pos),
                    format!("`{}` is required but has a default", name.value),
                )
                .label("a default is only used when the value is left out")
                .help(
                    "remove `required: true` (a default makes it optional), or remove the default",
                ),
            );
        }
        let required = f.required.as_ref().map_or(!has_default, |r| r.value);
        if let Some(d) = &f.detailed_only
            && d.value
            && place == Place::Param
        {
            self.diags.push(
                Diagnostic::error(
                    "not-applicable",
                    self.span(d.pos),
                    "`detailed_only` applies to output fields, not parameters",
                )
                .label("parameters are always accepted")
                .help("remove `detailed_only` here; mark output fields with it instead"),
            );
        }
        let default = f.default.as_ref().map(|d| {
            if type_ok {
                self.check_against(
                    "invalid-default",
                    "default",
                    &name.value,
                    &d.value,
                    &ty,
                    d.pos,
                );
            }
            d.value.clone()
        });
        let example = match &f.example {
            Some(e) => {
                if type_ok {
                    self.check_against(
                        "invalid-example",
                        "example",
                        &name.value,
                        &e.value,
                        &ty,
                        e.pos,
                    );
                }
                e.value.clone()
            }
            None => {
                if is_scalar(&ty) && !is_reference && place != Place::NamedType {
                    self.diags.push(
                        Diagnostic::error("missing-example", span, format!("`{}` has no example", name.value))
                            .label("add a realistic value")
                            .help("add `example:` with a value an agent could pass; it is shown in the description"),
                    );
                }
                default.clone().unwrap_or_else(|| {
                    example_of_named(&ty, self.raw_types)
                        .or_else(|| item_example(f, &ty, self.raw_types))
                        .unwrap_or_else(|| compose_example(&ty))
                })
            }
        };
        Field {
            name: name.value.clone(),
            span,
            description,
            ty,
            required,
            default,
            example,
            detailed_only: f.detailed_only.as_ref().is_some_and(|d| d.value),
            origin: Origin::Spec,
        }
    }

    fn check_against(
        &mut self,
        code: &str,
        what: &str,
        field: &str,
        value: &Value,
        ty: &Type,
        pos: Pos,
    ) {
        for (path, problem) in check_value(value, ty, "") {
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at {path}")
            };
            self.diags.push(
                Diagnostic::error(
                    code,
                    self.span(pos),
                    format!("the {what} of `{field}` breaks the field's own rules{at}: {problem}"),
                )
                .label(format!("invalid {what}"))
                .help(format!(
                    "change the {what} to a value the field accepts, or relax the constraint"
                )),
            );
        }
    }

    /// Resolves a field's type and checks its constraints make sense for it.
    fn resolve_type(&mut self, f: &raw::Field, place: Place, at: Pos) -> Type {
        let name = f.ty.value.as_str();
        let kind = match name {
            "string" => Kind::String(self.string_rules(f)),
            "integer" => {
                let minimum = self.integer_bound(&f.minimum, "minimum");
                let maximum = self.integer_bound(&f.maximum, "maximum");
                self.order(&f.minimum, &f.maximum, "minimum", "maximum");
                Kind::Integer { minimum, maximum }
            }
            "number" => {
                self.order(&f.minimum, &f.maximum, "minimum", "maximum");
                Kind::Number {
                    minimum: f.minimum.as_ref().map(|m| m.value),
                    maximum: f.maximum.as_ref().map(|m| m.value),
                }
            }
            "boolean" => Kind::Boolean,
            "array" => {
                self.order_u(&f.min_items, &f.max_items, "min_items", "max_items");
                let items = match &f.items {
                    Some(items) => self.resolve_type(items, Place::Items, items.ty.pos),
                    None => {
                        self.diags.push(
                            Diagnostic::error("array-without-items", self.span(f.ty.pos), "an array needs `items`")
                                .label("items of what type?")
                                .help("add `items: {type: string, example: ...}` (clients reject arrays without items)"),
                        );
                        Type::string()
                    }
                };
                Kind::Array {
                    items: Box::new(items),
                    min_items: f.min_items.as_ref().map(|m| m.value),
                    max_items: f.max_items.as_ref().map(|m| m.value),
                }
            }
            "object" => {
                let open = f.fields.is_none();
                Kind::Object {
                    fields: self.fields(f.fields.as_ref(), Place::Output.min_for(place)),
                    open,
                }
            }
            other => {
                if self.raw_types.iter().any(|(n, _)| n.value == other) {
                    self.not_on_named(f);
                    return self.named(other, at).unwrap_or_else(Type::string);
                }
                let known: Vec<&str> = BUILTIN_TYPES
                    .iter()
                    .copied()
                    .chain(self.raw_types.iter().map(|(n, _)| n.value.as_str()))
                    .collect();
                let mut d = Diagnostic::error(
                    "unknown-type",
                    self.span(f.ty.pos),
                    format!("unknown type `{other}`"),
                )
                .label("not a built-in or named type");
                // `type: date` or `type: email` means a string with that format.
                let format = serde_json::from_value::<raw::Format>(Value::from(other)).ok();
                d = match (format, did_you_mean(other, known.iter().copied())) {
                    (Some(_), _) => d.help(format!(
                        "`{other}` is a string format: write `type: string` and `format: {other}`"
                    )),
                    (None, Some(s)) => d.help(format!("did you mean `{s}`?")),
                    (None, None) => d.help(format!(
                        "use one of {}, or declare `{other}` under `types:`",
                        known.join(", ")
                    )),
                };
                self.diags.push(d);
                return Type::string();
            }
        };
        self.not_applicable(f, &kind);
        Type::of(kind)
    }

    fn string_rules(&mut self, f: &raw::Field) -> StringRules {
        self.order_u(&f.min_length, &f.max_length, "min_length", "max_length");
        if let Some(p) = &f.pattern
            && let Err(e) = Regex::new(&p.value)
        {
            let message = e.to_string();
            let last = message.lines().last().unwrap_or("invalid").trim();
            let reason = last.strip_prefix("error: ").unwrap_or(last).to_string();
            self.diags.push(
                Diagnostic::error("invalid-pattern", self.span(p.pos), format!("`{}` is not a valid regular expression: {reason}", p.value))
                    .label("invalid regex")
                    .help("fix the pattern; in YAML, quote it with single quotes so backslashes stay as written"),
            );
        }
        let enum_values = f.enum_values.as_ref().map(|vals| {
            if vals.value.is_empty() {
                self.diags.push(
                    Diagnostic::error("empty-enum", self.span(vals.pos), "`enum` has no values")
                        .label("no value could ever be valid")
                        .help("list the allowed values, or remove `enum`"),
                );
            }
            let mut seen: HashMap<String, &str> = HashMap::new();
            for v in &vals.value {
                let ident = v.value.to_upper_camel_case();
                if let Some(prev) = seen.insert(ident.clone(), &v.value) {
                    let msg = if prev == v.value {
                        format!("enum value `{}` is listed twice", v.value)
                    } else {
                        format!(
                            "enum values `{prev}` and `{}` both become `{ident}` in generated code",
                            v.value
                        )
                    };
                    self.diags.push(
                        Diagnostic::error("duplicate-enum-value", self.span(v.pos), msg)
                            .label("collides with an earlier value")
                            .help("make every value distinct in letters and digits"),
                    );
                }
            }
            vals.value.iter().map(|v| v.value.clone()).collect()
        });
        StringRules {
            enum_values,
            min_length: f.min_length.as_ref().map(|m| m.value),
            max_length: f.max_length.as_ref().map(|m| m.value),
            pattern: f.pattern.as_ref().map(|p| p.value.clone()),
            format: f.format.as_ref().map(|x| x.value),
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

    fn order(&mut self, lo: &Option<Sp<f64>>, hi: &Option<Sp<f64>>, lo_key: &str, hi_key: &str) {
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

    fn order_u(&mut self, lo: &Option<Sp<u64>>, hi: &Option<Sp<u64>>, lo_key: &str, hi_key: &str) {
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
    fn not_applicable(&mut self, f: &raw::Field, kind: &Kind) {
        let is = |k: &str| match kind {
            Kind::String(_) => k == "string",
            Kind::Integer { .. } | Kind::Number { .. } => k == "number",
            Kind::Array { .. } => k == "array",
            Kind::Object { .. } => k == "object",
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
        note(f.enum_values.as_ref().map(|v| v.pos), "enum", "string");
        note(f.min_length.as_ref().map(|v| v.pos), "min_length", "string");
        note(f.max_length.as_ref().map(|v| v.pos), "max_length", "string");
        note(f.pattern.as_ref().map(|v| v.pos), "pattern", "string");
        note(f.format.as_ref().map(|v| v.pos), "format", "string");
        note(f.minimum.as_ref().map(|v| v.pos), "minimum", "number");
        note(f.maximum.as_ref().map(|v| v.pos), "maximum", "number");
        note(f.min_items.as_ref().map(|v| v.pos), "min_items", "array");
        note(f.max_items.as_ref().map(|v| v.pos), "max_items", "array");
        note(f.items.as_ref().map(|v| v.ty.pos), "items", "array");
        note(
            f.fields
                .as_ref()
                .and_then(|v| v.0.first())
                .map(|(k, _)| k.pos),
            "fields",
            "object",
        );
        for (key, pos, for_kind) in wrong {
            let kind_word = if for_kind == "number" {
                "integer or number"
            } else {
                for_kind
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
    fn not_on_named(&mut self, f: &raw::Field) {
        let keys = [
            ("enum", f.enum_values.as_ref().map(|v| v.pos)),
            ("minimum", f.minimum.as_ref().map(|v| v.pos)),
            ("maximum", f.maximum.as_ref().map(|v| v.pos)),
            ("min_length", f.min_length.as_ref().map(|v| v.pos)),
            ("max_length", f.max_length.as_ref().map(|v| v.pos)),
            ("pattern", f.pattern.as_ref().map(|v| v.pos)),
            ("format", f.format.as_ref().map(|v| v.pos)),
            ("items", f.items.as_ref().map(|v| v.ty.pos)),
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

impl Place {
    /// Fields nested in an object take the strictness of where the object sits: a nested
    /// parameter object needs descriptions like a parameter.
    fn min_for(self, outer: Place) -> Place {
        match outer {
            Place::Param => Place::Param,
            Place::Items | Place::NamedType => Place::Output,
            Place::Output => self,
        }
    }
}

fn is_scalar(ty: &Type) -> bool {
    !matches!(ty.kind, Kind::Array { .. } | Kind::Object { .. })
}

/// `[item]` for an array whose items carry an example (written, or their named type's).
fn item_example(
    f: &raw::Field,
    ty: &Type,
    raw_types: &[(Sp<String>, raw::Field)],
) -> Option<Value> {
    let (Kind::Array { items: item_ty, .. }, Some(items)) = (&ty.kind, &f.items) else {
        return None;
    };
    items
        .example
        .as_ref()
        .map(|e| e.value.clone())
        .or_else(|| example_of_named(item_ty, raw_types))
        .map(|v| Value::Array(vec![v]))
}

fn example_of_named(ty: &Type, raw_types: &[(Sp<String>, raw::Field)]) -> Option<Value> {
    let name = ty.name.as_deref()?;
    raw_types
        .iter()
        .find(|(n, _)| n.value == name)
        .and_then(|(_, f)| f.example.as_ref().map(|e| e.value.clone()))
}

/// `PascalCase` type names.
pub fn is_type_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
        && s.len() <= 64
}

fn pascal_suggestion(s: &str) -> String {
    let p = s.to_upper_camel_case();
    if p.is_empty() { "Ticket".into() } else { p }
}

/// Field names: identifiers of letters, digits and `_`, at most 64 characters.
pub fn is_field_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s.len() <= 64
}
