//! Static shape tables describing a tool's arguments, and the validator over them.
//!
//! Generated code describes each tool's input as `static` data, with no allocation:
//!
//! ```
//! use toolspec_runtime::validate::{Field, Format, ObjectShape, Pattern, Shape, StringShape};
//!
//! static SKU: Pattern = Pattern::new("^[A-Z]{3}-[0-9]+$");
//! static ITEM: ObjectShape = ObjectShape::new(&[
//!     Field::required("sku", Shape::String(StringShape::new().pattern(&SKU))),
//!     Field::optional("quantity", Shape::integer(Some(1), Some(99))).default_json("1"),
//! ]);
//! static ITEMS: toolspec_runtime::validate::ArrayShape =
//!     toolspec_runtime::validate::ArrayShape::new(Shape::Object(&ITEM)).items(1, 50);
//! static INPUT: ObjectShape = ObjectShape::new(&[
//!     Field::required("email", Shape::String(StringShape::new().format(Format::Email))),
//!     Field::optional("status", Shape::String(StringShape::new().one_of(&["open", "closed"])))
//!         .default_json("\"open\""),
//!     Field::required("items", Shape::Array(&ITEMS)),
//! ]);
//!
//! let call = serde_json::json!({"email": "a@example.com", "items": [{"sku": "ABC-1"}]});
//! let ready = toolspec_runtime::validate::prepare(&INPUT, r#"{"email":"a@example.com","items":[{"sku":"ABC-1"}]}"#, call)?;
//! assert_eq!(ready["status"], "open");            // default filled
//! assert_eq!(ready["items"][0]["quantity"], 1);   // nested default filled
//! # Ok::<(), toolspec_runtime::ToolError>(())
//! ```
//!
//! Rules the validator follows, the same as the generated JSON Schemas say:
//! - every problem of a call is reported at once, each with a JSON Pointer path;
//! - objects refuse unknown keys (`additionalProperties: false`), listing the allowed ones;
//! - `null` for an **optional** field means absent (OpenAI strict mode makes every field
//!   required and sends `null` for the ones the model leaves out); `null` for a required field
//!   is a `missing_argument`; a field marked [`Field::nullable`] is the exception: its `null`
//!   is a value (clear it, or "none"), kept and fingerprinted apart from absent;
//! - a map ([`MapShape`]) checks each key and each value, and counts its entries;
//! - string lengths count Unicode scalar values (chars), as JSON Schema does;
//! - integers accept `3` and `3.0` but refuse `1.5`; an integer enum
//!   ([`Shape::integer_one_of`]) takes only its values, and refuses any other with
//!   `invalid_enum`, as a string enum does.

mod check;
mod cleared;
mod defaults;
mod formats;

pub use check::{accepts, validate, validate_value};
pub use cleared::{CLEARED_KEY, record_cleared};
pub use defaults::{normalize, prepare, prepare_fast};
pub use formats::Format;

use std::sync::OnceLock;

use regex::Regex;

/// The shape of one value.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A string with optional enum, length, pattern and format constraints.
    String(StringShape),
    /// A whole number within optional inclusive bounds, or one of a closed set.
    Integer {
        /// Smallest allowed value.
        minimum: Option<i64>,
        /// Largest allowed value.
        maximum: Option<i64>,
        /// Allowed values (an enum); empty means any.
        allowed: &'static [i64],
    },
    /// Any JSON number within optional inclusive bounds.
    Number {
        /// Smallest allowed value.
        minimum: Option<f64>,
        /// Largest allowed value.
        maximum: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// A list.
    Array(&'static ArrayShape),
    /// An object with known fields and no others.
    Object(&'static ObjectShape),
    /// An object whose keys are data (`{"plan": "pro", "region": "eu"}`): every key follows
    /// one string rule and every value one shape.
    Map(&'static MapShape),
    /// One of several shapes ([`UnionShape`]): told apart by JSON type, or by a tag key.
    Union(&'static UnionShape),
    /// Anything at all (free-form JSON); never produces a problem.
    Any,
}

impl Shape {
    /// An integer shape (const, for static tables).
    pub const fn integer(minimum: Option<i64>, maximum: Option<i64>) -> Self {
        Shape::Integer {
            minimum,
            maximum,
            allowed: &[],
        }
    }

    /// An integer shape that takes only the values `allowed` (an integer enum), which lie
    /// within the bounds (const, for static tables).
    pub const fn integer_one_of(
        minimum: Option<i64>,
        maximum: Option<i64>,
        allowed: &'static [i64],
    ) -> Self {
        Shape::Integer {
            minimum,
            maximum,
            allowed,
        }
    }

    /// A number shape (const, for static tables).
    pub const fn number(minimum: Option<f64>, maximum: Option<f64>) -> Self {
        Shape::Number { minimum, maximum }
    }

    /// The JSON type name this shape expects, as used in `details.expected`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Shape::String(_) => "string",
            Shape::Integer { .. } => "integer",
            Shape::Number { .. } => "number",
            Shape::Boolean => "boolean",
            Shape::Array(_) => "array",
            Shape::Object(_) | Shape::Map(_) => "object",
            Shape::Union(u) => u.expected,
            Shape::Any => "any JSON value",
        }
    }
}

/// Constraints on a string. Build with the const builder methods.
#[derive(Debug, Clone, Copy, Default)]
pub struct StringShape {
    /// Allowed values; empty means any.
    pub allowed: &'static [&'static str],
    /// Minimum length in chars.
    pub min_length: Option<u64>,
    /// Maximum length in chars.
    pub max_length: Option<u64>,
    /// A regular expression the string must contain a match of.
    pub pattern: Option<&'static Pattern>,
    /// A well-known format the string must be in.
    pub format: Option<Format>,
}

impl StringShape {
    /// An unconstrained string.
    pub const fn new() -> Self {
        Self {
            allowed: &[],
            min_length: None,
            max_length: None,
            pattern: None,
            format: None,
        }
    }
    /// Only these values are allowed (an enum).
    pub const fn one_of(mut self, allowed: &'static [&'static str]) -> Self {
        self.allowed = allowed;
        self
    }
    /// Length bounds in chars (`None` = unbounded on that side).
    pub const fn length(mut self, min: Option<u64>, max: Option<u64>) -> Self {
        self.min_length = min;
        self.max_length = max;
        self
    }
    /// Must contain a match of `pattern` (a `static` [`Pattern`]).
    pub const fn pattern(mut self, pattern: &'static Pattern) -> Self {
        self.pattern = Some(pattern);
        self
    }
    /// Must be in `format`.
    pub const fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }
}

/// Constraints on a list.
#[derive(Debug, Clone, Copy)]
pub struct ArrayShape {
    /// Shape of every item.
    pub items: Shape,
    /// Fewest items allowed.
    pub min_items: Option<u64>,
    /// Most items allowed.
    pub max_items: Option<u64>,
}

impl ArrayShape {
    /// A list of `items` of any length.
    pub const fn new(items: Shape) -> Self {
        Self {
            items,
            min_items: None,
            max_items: None,
        }
    }
    /// Between `min` and `max` items, inclusive.
    pub const fn items(mut self, min: u64, max: u64) -> Self {
        self.min_items = Some(min);
        self.max_items = Some(max);
        self
    }
    /// Item-count bounds, each optional.
    pub const fn bounds(mut self, min: Option<u64>, max: Option<u64>) -> Self {
        self.min_items = min;
        self.max_items = max;
        self
    }
}

/// A value that is one of several variants.
///
/// Untagged, the variants have distinct JSON types (a date string, or a range object) and
/// a value takes the variant of its type. Tagged, every variant is an object and the value's
/// `tag` key names its variant (`{"kind": "range", "from": ...}`); the tag is not one of
/// the variant object's fields.
#[derive(Debug, Clone, Copy)]
pub struct UnionShape {
    /// The variants: each one's name (the tag value, when tagged) and shape.
    pub variants: &'static [(&'static str, Shape)],
    /// The key naming the variant, for a tagged union.
    pub tag: Option<&'static str>,
    /// What a value must be, in words, for messages (`string or object`).
    pub expected: &'static str,
}

impl UnionShape {
    /// A union of `variants` told apart by JSON type; `expected` says what they are.
    pub const fn new(variants: &'static [(&'static str, Shape)], expected: &'static str) -> Self {
        Self {
            variants,
            tag: None,
            expected,
        }
    }
    /// Tells the variants apart by the key `tag`, whose value is a variant's name.
    pub const fn tagged(mut self, tag: &'static str) -> Self {
        self.tag = Some(tag);
        self
    }

    /// The variant `value` belongs to: by its tag, or by its JSON type. `None` when it
    /// belongs to none (no variant of its type, no tag, or an unknown tag).
    pub fn variant_of(&self, value: &serde_json::Value) -> Option<&'static (&'static str, Shape)> {
        match self.tag {
            Some(tag) => {
                let name = value.get(tag)?.as_str()?;
                self.variants.iter().find(|(n, _)| *n == name)
            }
            None => self.variants.iter().find(|(_, s)| s.takes_type_of(value)),
        }
    }
}

impl Shape {
    /// Whether `value` has the JSON type this shape takes (its rules aside): how an untagged
    /// union picks a variant. A whole number fits both an integer and a number shape.
    pub fn takes_type_of(&self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, value) {
            (Shape::String(_), Value::String(_)) => true,
            (Shape::Integer { .. }, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            (Shape::Number { .. }, Value::Number(_)) => true,
            (Shape::Boolean, Value::Bool(_)) => true,
            (Shape::Array(_), Value::Array(_)) => true,
            (Shape::Object(_) | Shape::Map(_), Value::Object(_)) => true,
            (Shape::Union(u), v) => u.variant_of(v).is_some(),
            (Shape::Any, _) => true,
            _ => false,
        }
    }
}

/// An object used as a map: keys chosen by the caller, each held to `keys`, each value to
/// `values`, at most `max_entries` of them. A free-form object (written without fields) is
/// a map of anything: it still has to be an object.
#[derive(Debug, Clone, Copy)]
pub struct MapShape {
    /// Rules every key follows (length, pattern).
    pub keys: StringShape,
    /// Shape of every value.
    pub values: Shape,
    /// Most entries allowed.
    pub max_entries: Option<u64>,
}

impl MapShape {
    /// A map of `values` with any keys and any number of entries.
    pub const fn new(values: Shape) -> Self {
        Self {
            keys: StringShape::new(),
            values,
            max_entries: None,
        }
    }
    /// Every key must follow `keys`.
    pub const fn keys(mut self, keys: StringShape) -> Self {
        self.keys = keys;
        self
    }
    /// At most `max` entries (`None` = any number).
    pub const fn max_entries(mut self, max: Option<u64>) -> Self {
        self.max_entries = max;
        self
    }
}

/// An object: its fields, in the order docs and messages list them. Other keys are refused.
#[derive(Debug, Clone, Copy)]
pub struct ObjectShape {
    /// The fields the object may have.
    pub fields: &'static [Field],
    /// Whether a [nullable](Field::nullable) field sits anywhere inside (set by
    /// [`ObjectShape::with_nullable`]): only then does [`record_cleared`] walk a call.
    pub nullable_inside: bool,
    /// Rules over which fields are passed together (exactly one of, ...), checked after
    /// the fields themselves.
    pub conditions: &'static [Condition],
}

/// A rule over which fields of an object are passed together. A field counts as passed
/// when it is present and not `null` (a [nullable](Field::nullable) field's `null` counts:
/// it says something).
#[derive(Debug, Clone, Copy)]
pub enum Condition {
    /// Exactly one of these (`date` or `range`, not both, not neither).
    ExactlyOne(&'static [&'static str]),
    /// At least one of these (an update that changes something).
    AtLeastOne(&'static [&'static str]),
    /// All of these or none (`start` and `end` of a window).
    AllOrNone(&'static [&'static str]),
    /// `field` only together with every one of `needs` (`thread_ts` needs `channel`).
    Requires {
        /// The field that needs others.
        field: &'static str,
        /// The fields it needs.
        needs: &'static [&'static str],
    },
    /// Rules that hold for some values of the enum field `field` (`when: { subject_type:
    /// LINE }`): while it holds one of `values`, every one of `needs` must be passed; while
    /// it holds any other, none of `allows` may be. A `field` left out holds its default:
    /// `by_default` says whether that default is one of `values` (with no default, a field
    /// left out holds none of them).
    When {
        /// The enum field the rule looks at (`method`).
        field: &'static str,
        /// The values of `field` the rule is about (`[get_review_comments]`).
        values: &'static [&'static str],
        /// Whether `field` left out counts as holding one of `values` (its default does).
        by_default: bool,
        /// Fields required while `field` holds one of `values`.
        needs: &'static [&'static str],
        /// Fields taken only while `field` holds one of `values`, refused otherwise.
        allows: &'static [&'static str],
    },
}

impl ObjectShape {
    /// An object with exactly these fields allowed.
    pub const fn new(fields: &'static [Field]) -> Self {
        Self {
            fields,
            nullable_inside: false,
            conditions: &[],
        }
    }

    /// Adds rules over which fields are passed together.
    pub const fn conditions(mut self, conditions: &'static [Condition]) -> Self {
        self.conditions = conditions;
        self
    }

    /// Marks a tool's input as holding a nullable field at some depth, so its `null`s are
    /// told apart from absent values in fingerprints (see [`record_cleared`]).
    pub const fn with_nullable(mut self) -> Self {
        self.nullable_inside = true;
        self
    }

    /// The field called `name`, if any.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// One named field of an object.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Key in the JSON object.
    pub name: &'static str,
    /// Whether the call must include it.
    pub required: bool,
    /// Shape of its value.
    pub shape: Shape,
    /// Default as JSON text (`"20"`, `"\"open\""`), filled in by [`normalize`] when the
    /// field is absent. Only meaningful for optional fields.
    pub default: Option<&'static str>,
    /// Whether `null` is a value of its own (`"milestone": null` clears the milestone)
    /// rather than "absent": kept by [`normalize`], told apart by the fingerprint.
    pub nullable: bool,
}

impl Field {
    /// A required field.
    pub const fn required(name: &'static str, shape: Shape) -> Self {
        Self {
            name,
            required: true,
            shape,
            default: None,
            nullable: false,
        }
    }
    /// An optional field.
    pub const fn optional(name: &'static str, shape: Shape) -> Self {
        Self {
            name,
            required: false,
            shape,
            default: None,
            nullable: false,
        }
    }
    /// Sets the default, as JSON text.
    pub const fn default_json(mut self, json: &'static str) -> Self {
        self.default = Some(json);
        self
    }
    /// Makes `null` a value of its own: on an optional field, `null` clears and absent
    /// keeps; on a required one, `null` must be sent to say "none".
    pub const fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }
}

/// A regular expression kept as text and compiled on first use, so it can sit in a `static`.
///
/// Semantics are those of JSON Schema `pattern`: the string is valid when the expression
/// matches **somewhere** in it (a search, not a full match); write `^...$` to anchor it.
/// Syntax is the `regex` crate's (close to ECMA-262 for the common subset: classes,
/// quantifiers, anchors, groups; no look-around or backreferences). The generator should call
/// [`Pattern::check`] on every spec pattern so a bad one fails at generation, not at run time.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern from its source text (not compiled until first used).
    pub const fn new(source: &'static str) -> Self {
        Self {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// The pattern's source text, as shown in messages and schemas.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// Compiles `source` and reports a syntax error, for generators and tests.
    pub fn check(source: &str) -> Result<(), String> {
        Regex::new(source).map(|_| ()).map_err(|e| e.to_string())
    }

    /// Whether `text` contains a match. A pattern that does not compile matches everything
    /// (the generator refuses such patterns; at run time the call is not blamed for it).
    pub fn is_match(&self, text: &str) -> bool {
        match self.compiled.get_or_init(|| Regex::new(self.source).ok()) {
            Some(re) => re.is_match(text),
            None => true,
        }
    }
}
