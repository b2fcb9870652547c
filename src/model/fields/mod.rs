//! Resolving fields and types: named types, examples, defaults. The sanity of constraints
//! (bounds in order, keys that apply to the type) is checked in [`constraints`], enums in
//! [`enums`].

mod constraints;
mod cover;
mod enums;
mod requires;
mod unions;

pub use cover::Cover;

use crate::diagnostics::{
    Diagnostic, Diagnostics, FileId, Severity, Span, did_you_mean, synonym_of,
};
use crate::model::values::{check_value, compose_example};
use crate::model::{Content, Field, Kind, NamedType, Origin, Type};
use crate::spec::format as raw;
use crate::spec::spanned::{Pos, Sp, SpMap};
use heck::ToUpperCamelCase;
use serde_json::Value;
use std::collections::HashMap;

/// Built-in type names a field's `type` may use besides named types.
pub use crate::spec::format::BUILTIN_TYPES;

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
    /// What the examples written above each field say of it.
    cover: Cover,
    /// Whether the fields being resolved are a tool's top-level outputs, where alone a
    /// union may be `selected_by` a parameter (cleared while resolving what they hold).
    pub top_output: bool,
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
            cover: Cover::default(),
            top_output: false,
            diags,
        }
    }

    /// Lets the examples written above a field (a named type's, an object's, a tool's
    /// result) count for it: a field they give a valid value needs no `example:` of its own,
    /// and takes that value as its example.
    pub fn with_cover(mut self, cover: Cover) -> Self {
        self.cover = cover;
        self
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
        let errors_before = self.type_errors();
        let mut ty = self.resolve_type(def, Place::NamedType, decl.pos);
        self.in_progress.pop();
        // The type's own example reaches every field that uses it without one (and from
        // there agents, docs and test data), so it is held to the type's rules like a
        // field's; a type that is itself wrong is reported once, as such.
        if let Some(e) = &def.example
            && self.type_errors() == errors_before
        {
            self.check_against("invalid-example", "example", name, &e.value, &ty, e.pos);
        }
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
        if let Some(why) = wire_name_problem(&name.value) {
            self.diags.push(
                Diagnostic::error("invalid-name", span, format!("`{}` is not a usable field name", name.value.escape_debug()))
                    .label(why)
                    .help("a field name is its JSON key on the wire: any 1 to 64 characters but control characters, `.`, `/` and backticks, not `*` alone, without surrounding spaces (`+1`, `@type` and `foo-bar` are fine)"),
            );
        }
        if let Some(by) = f.selected_by.as_ref().filter(|_| !self.top_output) {
            self.diags.push(
                Diagnostic::error(
                    "invalid-selection",
                    self.span(by.pos),
                    "`selected_by` applies to a union among a tool's outputs",
                )
                .label("nothing here follows a parameter")
                .help("write `selected_by: <enum parameter>` on a top-level `output` field whose type is a tagged union"),
            );
        }
        let top_output = std::mem::take(&mut self.top_output);
        let errors_before = self.type_errors();
        let ty = self.resolve_type(f, place, name.pos);
        self.top_output = top_output;
        // A type that is itself wrong (unknown, contradictory bounds, an empty enum) would make
        // every check of the default and example against it a second report of one mistake.
        let type_ok = self.type_errors() == errors_before;
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
        let nullable = f.nullable.as_ref().is_some_and(|n| n.value);
        let default = f.default.as_ref().map(|d| {
            if type_ok {
                self.check_nullable_against(
                    "invalid-default",
                    "default",
                    &name.value,
                    &d.value,
                    &ty,
                    d.pos,
                    nullable,
                );
            }
            d.value.clone()
        });
        let example = match &f.example {
            Some(e) => {
                if type_ok {
                    self.check_nullable_against(
                        "invalid-example",
                        "example",
                        &name.value,
                        &e.value,
                        &ty,
                        e.pos,
                        nullable,
                    );
                }
                e.value.clone()
            }
            None => {
                // A default is a realistic value too: it serves as the example. So does the
                // value an example written above the field gives it (its object's, its
                // type's, its tool's result), if that value is one the field accepts.
                let needs_one =
                    is_scalar(&ty) && !is_reference && place != Place::NamedType && !has_default;
                let covered = needs_one
                    .then(|| {
                        self.cover
                            .values(f)
                            .iter()
                            .find(|v| type_ok && check_value(v, &ty, &name.value).is_empty())
                    })
                    .flatten()
                    .cloned();
                if needs_one && covered.is_none() {
                    self.diags.push(missing_example(&name.value, span, place));
                }
                covered.or_else(|| default.clone()).unwrap_or_else(|| {
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
            projected: false,
            nullable,
            origin: Origin::Spec,
        }
    }

    /// The errors so far that make a type wrong: all but a missing example, which says
    /// nothing against the type, and is often the consequence of an enclosing example that
    /// is itself wrong (and must be checked to say so).
    fn type_errors(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == Severity::Error && d.code != "missing-example")
            .count()
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
        self.check_nullable_against(code, what, field, value, ty, pos, false);
    }

    /// As [`Self::check_against`], where `null` is a value of the field when `nullable`.
    #[allow(clippy::too_many_arguments)]
    fn check_nullable_against(
        &mut self,
        code: &str,
        what: &str,
        field: &str,
        value: &Value,
        ty: &Type,
        pos: Pos,
        nullable: bool,
    ) {
        if nullable && value.is_null() {
            return;
        }
        for (path, problem) in check_value(value, ty, field) {
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at {path}")
            };
            self.diags.push(
                Diagnostic::error(
                    code,
                    self.span(pos),
                    format!("the {what} of `{field}` breaks its own rules{at}: {problem}"),
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
            "integer" => self.integer_kind(f),
            "number" => {
                self.order(&f.minimum, &f.maximum, "minimum", "maximum");
                Kind::Number {
                    minimum: f.minimum.as_ref().map(|m| m.value),
                    maximum: f.maximum.as_ref().map(|m| m.value),
                }
            }
            "boolean" => Kind::Boolean,
            "array" => {
                self.order(&f.min_items, &f.max_items, "min_items", "max_items");
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
            "map" => {
                let values = match &f.values {
                    Some(values) => self.resolve_type(values, Place::Items, values.ty.pos),
                    None => {
                        self.diags.push(
                            Diagnostic::error("map-without-values", self.span(f.ty.pos), "a map needs `values`")
                                .label("values of what type?")
                                .help("add `values: {type: string, max_length: 500}`; for any JSON at all, write `type: object` without `fields`"),
                        );
                        Type::string()
                    }
                };
                Kind::Map {
                    values: Box::new(values),
                    keys: self.key_rules(f.keys.as_ref().map(|k| &k.value)),
                    max_entries: f.max_entries.as_ref().map(|m| m.value),
                }
            }
            "union" => self.union(f, place),
            "image" => Kind::Content(Content::Image),
            "audio" => Kind::Content(Content::Audio),
            "text" => Kind::Content(Content::Text),
            "resource_link" => Kind::Content(Content::ResourceLink),
            "object" => {
                let open = f.fields.is_none();
                let fields = self.fields(f.fields.as_ref(), Place::Output.min_for(place));
                let requires = self.requirements(f.requires.as_deref(), &fields);
                Kind::Object {
                    fields,
                    open,
                    requires,
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
                let suggestion = synonym_of(other, known.iter().copied())
                    .or_else(|| did_you_mean(other, known.iter().copied()));
                d = match (format, suggestion) {
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
    !matches!(
        ty.kind,
        Kind::Array { .. }
            | Kind::Object { .. }
            | Kind::Map { .. }
            | Kind::Union { .. }
            | Kind::Content(Content::Image | Content::Audio | Content::ResourceLink)
    )
}

/// The error for a scalar field without an example, with what its example is for: a
/// parameter's is a value an agent could pass, an output's is what the docs show.
fn missing_example(name: &str, span: Span, place: Place) -> Diagnostic {
    let help = if place == Place::Param {
        "add `example:` with a value an agent could pass; it is shown in the parameter's \
         description"
    } else {
        "add `example:` with a value the tool could return: the docs show it beside the field \
         and complete each example's result with it; or write one example for the whole \
         object (its type's `example:`, or a `result` in the tool's `examples`), which counts \
         for every field inside it"
    };
    Diagnostic::error("missing-example", span, format!("`{name}` has no example"))
        .label("add a realistic value")
        .help(help)
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

/// The example of the named type `ty`: its own, or, for a list type without one
/// (`Recurrence: {type: array, items: {..., example: 'RRULE:...'}}`), one item's.
fn example_of_named(ty: &Type, raw_types: &[(Sp<String>, raw::Field)]) -> Option<Value> {
    let name = ty.name.as_deref()?;
    let (_, def) = raw_types.iter().find(|(n, _)| n.value == name)?;
    if let Some(e) = &def.example {
        return Some(e.value.clone());
    }
    item_example(def, ty, raw_types)
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

/// What makes `s` unusable as a field's JSON key, or `None` when it is usable.
///
/// A field's name is its key on the wire, so a port keeps `+1`, `@type` or `foo-bar`; the
/// Rust name is derived from it (`plus_1`, `r#type`, `foo_bar`) and the key kept by
/// `serde(rename)`. Refused are what no output can carry safely or what the format's own
/// paths would misread: control and invisible characters, `.` and `/` (the separators of
/// `paging.items` and of detailed-only paths), a bare `*` (every item of a list in those
/// paths), a backtick (it would end the code span the docs show the name in), surrounding
/// spaces, and more than 64 characters.
pub fn wire_name_problem(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        Some("empty")
    } else if s.chars().count() > 64 {
        Some("over 64 characters")
    } else if s.chars().any(|c| c.is_control() || is_invisible(c)) {
        Some("holds a control or invisible character")
    } else if s.contains(['.', '/']) {
        Some("`.` and `/` separate path parts")
    } else if s.contains('`') {
        Some("holds a backtick")
    } else if s == "*" {
        Some("`*` stands for every item in paths")
    } else if s.trim() != s {
        Some("starts or ends with a space")
    } else {
        None
    }
}

/// Invisible formatting characters and the bidirectional controls (rustc denies those in
/// comments, `text_direction_codepoint_in_comment`): a name or a doc must not hide text.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061C}' | '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Whether `s` is a parameter name every provider takes as a property key: Anthropic
/// refuses input schema keys outside `^[a-zA-Z0-9_.-]{1,64}$` (and `.` is a path separator
/// here), so parameters keep to letters, digits, `_` and `-`.
pub fn is_portable_param_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Identifiers of letters, digits and `_`, at most 64 characters (tags, tool names).
pub fn is_field_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s.len() <= 64
}
