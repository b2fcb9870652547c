//! Unions (`type: union`): a value that is one of several named variants, told apart by
//! JSON type or, with `tag`, by a key naming the variant. What makes a union readable by
//! every validator and client is checked here: at least two variants, and a value that can
//! only ever belong to one of them.

use super::{FieldResolver, Place, is_field_name};
use crate::diagnostics::Diagnostic;
use crate::model::{Field, Kind};
use crate::spec::format as raw;

impl FieldResolver<'_> {
    /// The kind of a `type: union` field, its variants resolved and checked apart.
    pub(super) fn union(&mut self, f: &raw::Field, place: Place) -> Kind {
        let at = self.span(f.ty.pos);
        let variants: Vec<Field> = self.fields(f.variants.as_ref(), Place::Items.min_for(place));
        let tag = f.tag.as_ref().map(|t| t.value.clone());
        if variants.len() < 2 {
            self.diags.push(
                Diagnostic::error(
                    "union-without-variants",
                    at,
                    "a union needs at least two `variants`",
                )
                .label("one of what?")
                .help(
                    "add `variants:` with a name and a type for each kind of value \
                     (`date: {type: string, format: date}`, `range: {type: DateRange}`)",
                ),
            );
        }
        match (&tag, &f.tag) {
            (Some(tag), Some(raw_tag)) => {
                if !is_field_name(tag) {
                    self.diags.push(
                        Diagnostic::error(
                            "invalid-name",
                            self.span(raw_tag.pos),
                            format!("`{tag}` is not a valid tag key"),
                        )
                        .label("not an identifier")
                        .help("name the tag like a field, `kind` or `type`"),
                    );
                }
                for v in &variants {
                    match &v.ty.kind {
                        Kind::Object {
                            fields, open: false, ..
                        } => {
                            if fields.iter().any(|x| &x.name == tag) {
                                self.diags.push(
                                    Diagnostic::error(
                                        "union-tag-collision",
                                        v.span,
                                        format!("variant `{}` has a field `{tag}`, the union's tag", v.name),
                                    )
                                    .label("the tag key names the variant")
                                    .help(format!("rename the field, or pick another `tag`; the tag is added for you, holding `{}`", v.name)),
                                );
                            }
                        }
                        _ => self.diags.push(
                            Diagnostic::error(
                                "union-variant-not-object",
                                v.span,
                                format!("variant `{}` of a tagged union is not an object with fields", v.name),
                            )
                            .label(format!("a `{}` has no key to hold the tag", v.ty.json_type()))
                            .help("make every variant an object with `fields`, or remove `tag` and give the variants different JSON types"),
                        ),
                    }
                }
            }
            _ => {
                // Untagged: a value's JSON type picks its variant, so no two may share one.
                for (i, v) in variants.iter().enumerate() {
                    let family = family(v.ty.json_type());
                    if let Some(first) = variants[..i]
                        .iter()
                        .find(|w| family_overlaps(family, &w.ty.json_type_words()))
                    {
                        self.diags.push(
                            Diagnostic::error(
                                "union-variants-overlap",
                                v.span,
                                format!(
                                    "variants `{}` and `{}` both take {}, so a value could not say which it is",
                                    first.name,
                                    v.name,
                                    article(family)
                                ),
                            )
                            .label("same JSON type as an earlier variant")
                            .help("give each variant its own JSON type, or make every variant an object and add `tag: kind` to tell them apart"),
                        );
                    }
                }
            }
        }
        Kind::Union { variants, tag }
    }
}

/// Integers and numbers are one family to a JSON value, as are objects and maps.
fn family(json_type: &str) -> &str {
    match json_type {
        "integer" => "number",
        other => other,
    }
}

fn family_overlaps(family: &str, words: &str) -> bool {
    words.split(" or ").any(|w| self::family(w) == family)
}

fn article(family: &str) -> String {
    match family {
        "array" | "object" | "integer" => format!("an {family}"),
        "boolean" => "a boolean".into(),
        other => format!("a {other}"),
    }
}
