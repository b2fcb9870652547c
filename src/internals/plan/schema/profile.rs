//! The dialects of JSON Schema the outputs are written in, and which rule keywords each one
//! keeps.
//!
//! A fact is said once per output: as a keyword where that output's reader keeps the keyword,
//! in words in the property's description where it drops it. [`Profile::keeps`] is the one
//! table that decides which; the builder writes a keyword only where it returns true and
//! the words ([`super::words`]) only where it returns false, so no fact is written twice and
//! none is lost.
//!
//! | rule | Standard | OpenAI strict | Anthropic strict | Gemini |
//! |---|---|---|---|---|
//! | `enum` of strings | yes | yes | yes | yes |
//! | `enum` of integers | yes | yes | yes | no |
//! | `minLength`, `maxLength` | yes | no | no | yes |
//! | `pattern` | yes | yes | no | yes |
//! | `format` | every one | not `uri` | every one | `date-time` only |
//! | `minimum`, `maximum` | yes | yes | no | yes |
//! | `minItems` | yes | yes | 0 or 1 only | yes |
//! | `maxItems` | yes | yes | no | yes |
//! | `default` | yes | no | no | yes |
//! | `maxProperties`, `propertyNames` | yes | no | no | no |
//!
//! Sources: the providers' own documentation of OpenAI structured outputs, Anthropic strict
//! tool use and Gemini function declarations, as of 2026.

use crate::spec::format::Format;

/// Which dialect of JSON Schema to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// What MCP `tools/list`, Anthropic's non-strict `input_schema` and the per-tool files
    /// carry: optional means absent from `required`; every rule is a keyword.
    Standard,
    /// OpenAI's `strict: true` subset: every property is listed in `required`, optional ones
    /// accept `null` (which the runtime reads as "omitted"), and the keywords it does not
    /// support are replaced by words in the description.
    OpenAiStrict,
    /// Anthropic's `strict: true` (grammar-constrained) subset: the standard structure, with
    /// bounds, lengths, patterns and most item counts in words.
    AnthropicStrict,
    /// Gemini's function declarations (an OpenAPI 3.0 subset): one `type` per schema,
    /// `nullable: true` instead of a `null` branch, `anyOf` alone in its schema, no
    /// `additionalProperties`.
    Gemini,
}

/// A rule a schema can state as a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `enum` of strings.
    Enum,
    /// `enum` of whole numbers (Gemini's subset takes string enums only).
    IntegerEnum,
    /// `minLength` and `maxLength`.
    Length,
    /// `pattern`.
    Pattern,
    /// `format` with this format.
    Format(Format),
    /// `minimum` and `maximum`.
    Bounds,
    /// `minItems` with this count.
    MinItems(u64),
    /// `maxItems`.
    MaxItems,
    /// `default`.
    Default,
    /// A map's `maxProperties` and `propertyNames`.
    MapKeys,
}

impl Profile {
    /// Whether schemas of this profile state `rule` as a keyword (otherwise its words go
    /// into the description).
    pub fn keeps(self, rule: Rule) -> bool {
        use Profile::*;
        match (self, rule) {
            (Gemini, Rule::IntegerEnum) => false,
            (_, Rule::Enum | Rule::IntegerEnum) | (Standard, _) => true,
            (OpenAiStrict, Rule::Format(f)) => f != Format::Uri,
            (OpenAiStrict, Rule::Length | Rule::Default | Rule::MapKeys) => false,
            (OpenAiStrict, _) => true,
            (AnthropicStrict, Rule::Format(_)) => true,
            (AnthropicStrict, Rule::MinItems(n)) => n <= 1,
            (AnthropicStrict, _) => false,
            (Gemini, Rule::Format(f)) => f == Format::DateTime,
            (Gemini, Rule::MapKeys) => false,
            (Gemini, _) => true,
        }
    }

    /// Whether optional properties are listed in `required` and take `null` for "left out"
    /// (OpenAI strict), instead of being absent from `required`.
    pub fn requires_every_property(self) -> bool {
        self == Profile::OpenAiStrict
    }

    /// Whether input objects say `additionalProperties: false` (Gemini's subset has no such
    /// keyword; its objects take only the properties they list).
    pub fn closes_objects(self) -> bool {
        self != Profile::Gemini
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_in_the_module_doc_is_the_one_applied() {
        use Profile::*;
        assert!(Standard.keeps(Rule::Length) && Standard.keeps(Rule::MapKeys));
        assert!(!OpenAiStrict.keeps(Rule::Length) && OpenAiStrict.keeps(Rule::Pattern));
        assert!(!OpenAiStrict.keeps(Rule::Format(Format::Uri)));
        assert!(AnthropicStrict.keeps(Rule::Format(Format::Uri)));
        assert!(
            AnthropicStrict.keeps(Rule::MinItems(1)) && !AnthropicStrict.keeps(Rule::MinItems(2))
        );
        assert!(!AnthropicStrict.keeps(Rule::Bounds) && !AnthropicStrict.keeps(Rule::Pattern));
        assert!(
            Gemini.keeps(Rule::Format(Format::DateTime))
                && !Gemini.keeps(Rule::Format(Format::Email))
        );
        assert!(Gemini.keeps(Rule::Default) && !Gemini.keeps(Rule::MapKeys));
        assert!(Gemini.keeps(Rule::Enum) && !Gemini.keeps(Rule::IntegerEnum));
        assert!(OpenAiStrict.keeps(Rule::IntegerEnum) && AnthropicStrict.keeps(Rule::IntegerEnum));
    }
}
