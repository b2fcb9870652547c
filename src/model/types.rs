//! Fields and their types, resolved.

use crate::diagnostics::Span;
use crate::spec::format::Format;
use serde_json::Value;

/// A parameter, output field, error detail or preview field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its name, a valid identifier.
    pub name: String,
    /// Where it was written (for implied fields: the setting that implied it).
    pub span: Span,
    /// What it means, for the agent.
    pub description: String,
    /// Its type with constraints, named types resolved.
    pub ty: Type,
    /// Whether it must be passed (for outputs: whether it is always present).
    pub required: bool,
    /// Value used when left out.
    pub default: Option<Value>,
    /// A realistic value (composed from fields and items where not written).
    pub example: Value,
    /// Present only in detailed responses.
    pub detailed_only: bool,
    /// Left out of results whose call does not ask for it: a field of the objects a tool's
    /// `projection` projects that is not in its `always`.
    pub projected: bool,
    /// Whether `null` is a value of its own: clears an optional parameter, says "none" for
    /// a required one or an output field.
    pub nullable: bool,
    /// Whether the spec wrote it or a setting implied it.
    pub origin: Origin,
}

/// Where a field comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Written in the spec.
    Spec,
    /// `limit`, `cursor`, `total`, `next_cursor` from `paging`.
    Paging,
    /// `response_format` from `response_format`.
    ResponseFormat,
    /// The field list parameter (`fields`) from `projection`.
    Projection,
    /// `idempotency_key` and `replayed` from `idempotency`.
    Idempotency,
    /// `preview_id`, `applied` and `preview` from `preview`.
    Preview,
    /// `undo` from `undo`.
    Undo,
    /// `truncated`, which any result over its token budget carries.
    Budget,
}

/// A resolved type.
#[derive(Debug, Clone, PartialEq)]
pub struct Type {
    /// The named type it came from, if any (`Ticket`): Rust code makes a named struct or
    /// enum of it; schemas inline it.
    pub name: Option<String>,
    /// The named type's own description, if any.
    pub description: Option<String>,
    /// What values it holds.
    pub kind: Kind,
}

/// What values a type holds, with its constraints.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A string.
    String(StringRules),
    /// A whole number.
    Integer {
        /// Inclusive minimum.
        minimum: Option<i64>,
        /// Inclusive maximum.
        maximum: Option<i64>,
        /// The closed set of allowed values (an integer enum), each within the bounds.
        enum_values: Option<Vec<i64>>,
        /// What some of the values mean: (value, description), in the values' order.
        enum_descriptions: Vec<(i64, String)>,
    },
    /// A number.
    Number {
        /// Inclusive minimum.
        minimum: Option<f64>,
        /// Inclusive maximum.
        maximum: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// A list.
    Array {
        /// Type of each item.
        items: Box<Type>,
        /// Fewest items.
        min_items: Option<u64>,
        /// Most items.
        max_items: Option<u64>,
    },
    /// An object whose keys are data: each key follows `keys`, each value is a `values`.
    Map {
        /// Type of every value.
        values: Box<Type>,
        /// Rules of every key (only lengths and pattern apply).
        keys: StringRules,
        /// Most entries.
        max_entries: Option<u64>,
    },
    /// One of several variants, told apart by JSON type or, with `tag`, by the tag key.
    Union {
        /// The variants, as fields: the name (the tag value when tagged), description,
        /// type and example of each.
        variants: Vec<Field>,
        /// The key naming the variant, for a tagged union (every variant an object).
        tag: Option<String>,
    },
    /// A top-level output that reaches the client as a content block, not as JSON for the
    /// model to read: an image, audio, text, or a link to a resource.
    Content(Content),
    /// An object with known fields (`fields` empty and `open` true: free-form).
    Object {
        /// Its fields, in order.
        fields: Vec<Field>,
        /// Whether it takes any keys (an object written without `fields`).
        open: bool,
        /// Rules over which of its fields are passed together.
        requires: Vec<crate::model::Requirement>,
    },
}

/// What a content output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// An image (`type: image`), base64 with its media type.
    Image,
    /// An audio clip (`type: audio`), base64 with its media type.
    Audio,
    /// Text read as text (`type: text`): a file's contents, a generated document.
    Text,
    /// A link to a resource the client can open (`type: resource_link`).
    ResourceLink,
}

impl Content {
    /// The spec's type name (`image`).
    pub fn as_str(self) -> &'static str {
        match self {
            Content::Image => "image",
            Content::Audio => "audio",
            Content::Text => "text",
            Content::ResourceLink => "resource_link",
        }
    }

    /// Whether the field leaves the structured result for its own block (a resource link
    /// stays in both).
    pub fn moves(self) -> bool {
        !matches!(self, Content::ResourceLink)
    }
}

/// Constraints of a string.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StringRules {
    /// The closed set of allowed values.
    pub enum_values: Option<Vec<String>>,
    /// What some of the values mean: (value, description), in the values' order.
    pub enum_descriptions: Vec<(String, String)>,
    /// Fewest characters.
    pub min_length: Option<u64>,
    /// Most characters.
    pub max_length: Option<u64>,
    /// Regular expression it must match (searched).
    pub pattern: Option<String>,
    /// Well-known format.
    pub format: Option<Format>,
}

impl Kind {
    /// A whole number within optional bounds, without an enum.
    pub fn integer(minimum: Option<i64>, maximum: Option<i64>) -> Kind {
        Kind::Integer {
            minimum,
            maximum,
            enum_values: None,
            enum_descriptions: Vec::new(),
        }
    }
}

impl Type {
    /// An unnamed type.
    pub fn of(kind: Kind) -> Type {
        Type {
            name: None,
            description: None,
            kind,
        }
    }

    /// A plain string.
    pub fn string() -> Type {
        Type::of(Kind::String(StringRules::default()))
    }

    /// The JSON Schema type keyword of this type.
    pub fn json_type(&self) -> &'static str {
        match &self.kind {
            Kind::Union { variants, tag } => {
                if tag.is_some() || variants.iter().all(|v| v.ty.json_type() == "object") {
                    "object"
                } else {
                    "union"
                }
            }
            Kind::String(_) => "string",
            Kind::Integer { .. } => "integer",
            Kind::Number { .. } => "number",
            Kind::Boolean => "boolean",
            Kind::Array { .. } => "array",
            Kind::Object { .. } | Kind::Map { .. } => "object",
            Kind::Content(Content::Text) => "string",
            Kind::Content(_) => "object",
        }
    }

    /// The JSON types a value of this type may have, in words (`string or object`): one
    /// type, or a union's variants' types in order, each once.
    pub fn json_type_words(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        self.collect_json_types(&mut words);
        words.join(" or ")
    }

    fn collect_json_types(&self, words: &mut Vec<String>) {
        match &self.kind {
            Kind::Union {
                variants,
                tag: None,
            } => {
                for v in variants {
                    v.ty.collect_json_types(words);
                }
            }
            _ => {
                let word = self.json_type().to_string();
                if !words.contains(&word) {
                    words.push(word);
                }
            }
        }
    }

    /// The description of the enum value `value` (an integer's written as JSON writes it,
    /// `5`), if the spec gives one.
    pub fn enum_description(&self, value: &str) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => s
                .enum_descriptions
                .iter()
                .find(|(v, _)| v == value)
                .map(|(_, d)| d.as_str()),
            Kind::Integer {
                enum_descriptions, ..
            } => enum_descriptions
                .iter()
                .find(|(v, _)| v.to_string() == value)
                .map(|(_, d)| d.as_str()),
            _ => None,
        }
    }

    /// The allowed values, if the type is a closed set of strings (an integer enum's are
    /// on [`Kind::Integer`]).
    pub fn enum_values(&self) -> Option<&[String]> {
        match &self.kind {
            Kind::String(s) => s.enum_values.as_deref(),
            _ => None,
        }
    }

    /// The types directly inside this one: a list's items, a map's values, an object's
    /// fields, a union's variants.
    pub fn children(&self) -> Vec<&Type> {
        match &self.kind {
            Kind::Array { items, .. } => vec![items],
            Kind::Map { values, .. } => vec![values],
            Kind::Object { fields, .. } => fields.iter().map(|f| &f.ty).collect(),
            Kind::Union { variants, .. } => variants.iter().map(|v| &v.ty).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether this type, or any type nested in it at any depth, is one `pred` picks.
    pub fn any(&self, pred: &dyn Fn(&Type) -> bool) -> bool {
        pred(self) || self.children().into_iter().any(|c| c.any(pred))
    }

    /// How deep objects and arrays nest inside this type (a scalar is 0).
    pub fn depth(&self) -> usize {
        match &self.kind {
            Kind::Array { items, .. } => 1 + items.depth(),
            Kind::Map { values, .. } => 1 + values.depth(),
            Kind::Union { variants, .. } => {
                variants.iter().map(|v| v.ty.depth()).max().unwrap_or(0)
            }
            Kind::Object { fields, .. } => {
                1 + fields.iter().map(|f| f.ty.depth()).max().unwrap_or(0)
            }
            _ => 0,
        }
    }
}

impl Format {
    /// The name used in JSON Schema's `format` keyword and in the spec.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
        }
    }
}

impl crate::spec::format::Tier {
    /// The name as written in specs (`read_only`).
    pub fn as_str(self) -> &'static str {
        match self {
            crate::spec::format::Tier::ReadOnly => "read_only",
            crate::spec::format::Tier::Reversible => "reversible",
            crate::spec::format::Tier::Irreversible => "irreversible",
        }
    }
}

impl crate::spec::format::Verbosity {
    /// The name as written in specs and passed by agents (`concise`).
    pub fn as_str(self) -> &'static str {
        match self {
            crate::spec::format::Verbosity::Concise => "concise",
            crate::spec::format::Verbosity::Detailed => "detailed",
        }
    }
}

/// A named type from the spec's `types`.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedType {
    /// PascalCase name.
    pub name: String,
    /// Where it was declared.
    pub span: Span,
    /// Its resolved type (with `name` set to itself).
    pub ty: Type,
}
