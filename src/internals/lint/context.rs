//! What a rule's check receives: the model, and walks over its fields.

use crate::diagnostics::Span;
use crate::lint::rule::Finding;
use crate::model::{Field, Kind, Model, Origin, Tool, ToolSet, Type};

/// The input of every rule: every toolset linted together.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The resolved specs.
    pub model: &'a Model,
}

impl<'a> Ctx<'a> {
    /// A context over `model`.
    pub fn new(model: &'a Model) -> Self {
        Ctx { model }
    }

    /// Every toolset.
    pub fn toolsets(&self) -> impl Iterator<Item = &'a ToolSet> {
        self.model.toolsets.iter()
    }

    /// Every tool with its toolset.
    pub fn tools(&self) -> impl Iterator<Item = (&'a ToolSet, &'a Tool)> {
        self.model.tools()
    }
}

/// One place a type occurs inside a tool's parameters or outputs: a field, or the items of
/// an array field (`skus[]`).
#[derive(Debug, Clone, Copy)]
pub struct Slot<'a> {
    /// The field it belongs to (for items: the array field), whose span a finding uses.
    pub field: &'a Field,
    /// Dotted path from the top (`order.lines[].sku`).
    pub path: &'a str,
    /// The type at this place.
    pub ty: &'a Type,
    /// How many objects and arrays enclose it (0 for a top-level field).
    pub depth: usize,
    /// Whether this is an array's items rather than a field itself.
    pub is_items: bool,
    /// Whether this is one variant of a union (its `field` is the variant, whose name is a
    /// tag value or a variant name, not a field name). Only [`walk_variants`] visits these.
    pub is_variant: bool,
}

/// What a walk descends into besides fields and array items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Into {
    /// Fields and array items only.
    Fields,
    /// Also every variant of a union, and the fields of object variants.
    Variants,
}

/// Visits every field written in the spec and every nested field and array item below them,
/// parents before children. Implied fields (paging, idempotency...) are skipped: toolspec
/// writes those itself.
pub fn walk<'a>(fields: &'a [Field], visit: &mut dyn FnMut(&Slot<'_>)) {
    walk_in(fields, Into::Fields, visit);
}

/// As [`walk`], and also into every variant of a union (tagged or not): the variant itself
/// (a slot with `is_variant`, path `event(comment)`), then its fields
/// (`event(comment).comment_id`). For rules about what a result's objects carry, wherever
/// they sit; rules about a value's own constraints keep to [`walk`].
pub fn walk_variants<'a>(fields: &'a [Field], visit: &mut dyn FnMut(&Slot<'_>)) {
    walk_in(fields, Into::Variants, visit);
}

fn walk_in<'a>(fields: &'a [Field], into: Into, visit: &mut dyn FnMut(&Slot<'_>)) {
    for f in fields.iter().filter(|f| f.origin == Origin::Spec) {
        let at = Place {
            field: f,
            path: f.name.clone(),
            depth: 0,
            role: Role::Field,
        };
        walk_type(at, &f.ty, into, visit);
    }
}

/// Where a walk stands: [`Slot`] before the type is known, with an owned path.
struct Place<'a> {
    field: &'a Field,
    path: String,
    depth: usize,
    role: Role,
}

/// What a [`Place`] is to the type that holds it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Field,
    Items,
    Variant,
}

fn walk_type(at: Place<'_>, ty: &Type, into: Into, visit: &mut dyn FnMut(&Slot<'_>)) {
    visit(&Slot {
        field: at.field,
        path: &at.path,
        ty,
        depth: at.depth,
        is_items: at.role == Role::Items,
        is_variant: at.role == Role::Variant,
    });
    // The place one level below this one.
    let below = |field, path, role| Place {
        field,
        path,
        depth: at.depth + 1,
        role,
    };
    let path = &at.path;
    match &ty.kind {
        Kind::Object { fields, .. } => {
            for f in fields {
                let next = below(f, format!("{path}.{}", f.name), Role::Field);
                walk_type(next, &f.ty, into, visit);
            }
        }
        Kind::Array { items, .. } => {
            let next = below(at.field, format!("{path}[]"), Role::Items);
            walk_type(next, items, into, visit);
        }
        Kind::Union { variants, .. } if into == Into::Variants => {
            for v in variants {
                let next = below(v, format!("{path}({})", v.name), Role::Variant);
                walk_type(next, &v.ty, into, visit);
            }
        }
        _ => {}
    }
}

/// Where a constraint of `ty` is written: the named type's declaration when it comes from
/// one (so a problem in `TicketId` is reported once, where it can be fixed), else the field.
pub fn constraint_span(ts: &ToolSet, ty: &Type, field: &Field) -> (Span, Option<String>) {
    match ty.name.as_deref().and_then(|n| ts.named_type(n)) {
        Some(named) => (named.span, Some(named.name.clone())),
        None => (field.span, None),
    }
}

/// A finding about a constraint of the value at `slot` in `tool`, placed by
/// [`constraint_span`]: at the named type's declaration with the message `named(type_name)`
/// (one finding per type, however many tools use it), else at the field with the message
/// `inline()`, attached to `tool` so the tool's inline allowance can silence it.
pub fn constraint_finding(
    ts: &ToolSet,
    tool: &Tool,
    slot: &Slot<'_>,
    named: impl FnOnce(&str) -> String,
    inline: impl FnOnce() -> String,
) -> Finding {
    match constraint_span(ts, slot.ty, slot.field) {
        (span, Some(name)) => Finding::at(span, named(&name)),
        (span, None) => Finding::on(tool, span, inline()),
    }
}

/// The spec's own parameters of a tool (not the implied ones).
pub fn spec_params(tool: &Tool) -> Vec<&Field> {
    tool.spec_params().collect()
}
