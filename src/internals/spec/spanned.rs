//! Values that remember where in the YAML they came from.

use schemars::{JsonSchema, SchemaGenerator};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

pub use crate::diagnostics::Pos;

impl Pos {
    pub(crate) fn from_location(loc: &serde_saphyr::Location) -> Pos {
        let span = loc.span();
        Pos {
            line: u32::try_from(loc.line()).unwrap_or(u32::MAX),
            column: u32::try_from(loc.column()).unwrap_or(u32::MAX),
            // Without byte information, 0 would point at the start of the file; the sentinel
            // makes diagnostics fall back to the line and column, which are always right.
            offset: span
                .byte_offset()
                .and_then(|o| usize::try_from(o).ok())
                .unwrap_or(usize::MAX),
            len: span
                .byte_len()
                .and_then(|l| usize::try_from(l).ok())
                .unwrap_or(0),
        }
    }

    /// Whether the parser knew where this node was.
    pub fn is_known(&self) -> bool {
        self.line > 0
    }

    /// Where `needle` first occurs inside this node's source text, to point at part of a
    /// scalar (one `{placeholder}` of a message) rather than all of it. `None` when the node's
    /// bytes are unknown or do not contain it as written (an escape in a quoted string).
    pub fn find_within(&self, text: &str, needle: &str) -> Option<Pos> {
        let end = self.offset.checked_add(self.len)?;
        let at = text.get(self.offset..end)?.find(needle)?;
        let offset = self.offset + at;
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Some(Pos {
            line: u32::try_from(before.matches('\n').count() + 1).unwrap_or(u32::MAX),
            column: u32::try_from(before[line_start..].chars().count() + 1).unwrap_or(u32::MAX),
            offset,
            len: needle.len(),
        })
    }
}

/// A value together with the position of the YAML node it was read from.
///
/// Its JSON Schema is the schema of `T`: positions are invisible in the format.
#[derive(Debug, Clone, PartialEq)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub pos: Pos,
}

impl<T> Sp<T> {
    /// Wraps a value with a position.
    pub fn new(value: T, pos: Pos) -> Self {
        Sp { value, pos }
    }
}

impl<T> std::ops::Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Sp<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<T>::deserialize(d)?;
        Ok(Sp {
            pos: Pos::from_location(&s.referenced),
            value: s.value,
        })
    }
}

impl<T: JsonSchema> JsonSchema for Sp<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// A YAML mapping read in written order, with the position of every key.
///
/// Order matters: parameters appear in schemas, docs and code in the order the author chose.
#[derive(Debug, Clone, PartialEq)]
pub struct SpMap<V>(pub Vec<(Sp<String>, V)>);

impl<V> Default for SpMap<V> {
    fn default() -> Self {
        SpMap(Vec::new())
    }
}

impl<V> SpMap<V> {
    /// Entries in written order.
    pub fn iter(&self) -> impl Iterator<Item = &(Sp<String>, V)> {
        self.0.iter()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SpMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = SpMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(SpMap(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Sp<String>>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(SpMap(entries))
            }
        }
        d.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

impl<V: JsonSchema> JsonSchema for SpMap<V> {
    fn schema_name() -> Cow<'static, str> {
        format!("Map_of_{}", V::schema_name()).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        let values = generator.subschema_for::<V>();
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": values,
        })
    }
    fn inline_schema() -> bool {
        true
    }
}
