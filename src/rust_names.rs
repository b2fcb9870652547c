//! How a spec's name becomes a Rust identifier: the one spelling that the resolver checks
//! for collisions and the emitters write, whatever the name holds (keywords, signs, any
//! Unicode). ASCII in the case rustc expects, so no default lint flags it.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

/// Keywords that can be written as raw identifiers (`r#type`).
const RAW_OK: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers: they get a trailing underscore.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Latin letters with diacritics and their ASCII spelling, so `naïve café` names `NaiveCafe`.
const FOLDS: &[(&str, &str)] = &[
    ("àáâãäåāăą", "a"),
    ("ÀÁÂÃÄÅĀĂĄ", "A"),
    ("çćĉċč", "c"),
    ("ÇĆĈĊČ", "C"),
    ("ďđð", "d"),
    ("ĎĐÐ", "D"),
    ("èéêëēĕėęě", "e"),
    ("ÈÉÊËĒĔĖĘĚ", "E"),
    ("ĝğġģ", "g"),
    ("ĜĞĠĢ", "G"),
    ("ĥħ", "h"),
    ("ĤĦ", "H"),
    ("ìíîïĩīĭįı", "i"),
    ("ÌÍÎÏĨĪĬĮİ", "I"),
    ("ķ", "k"),
    ("Ķ", "K"),
    ("ĺļľŀł", "l"),
    ("ĹĻĽĿŁ", "L"),
    ("ñńņň", "n"),
    ("ÑŃŅŇ", "N"),
    ("òóôõöøōŏő", "o"),
    ("ÒÓÔÕÖØŌŎŐ", "O"),
    ("ŕŗř", "r"),
    ("ŔŖŘ", "R"),
    ("śŝşš", "s"),
    ("ŚŜŞŠ", "S"),
    ("ţťŧ", "t"),
    ("ŢŤŦ", "T"),
    ("ùúûüũūŭůűų", "u"),
    ("ÙÚÛÜŨŪŬŮŰŲ", "U"),
    ("ýÿŷ", "y"),
    ("ÝŸŶ", "Y"),
    ("źżž", "z"),
    ("ŹŻŽ", "Z"),
    ("ß", "ss"),
    ("æ", "ae"),
    ("Æ", "Ae"),
    ("œ", "oe"),
    ("Œ", "Oe"),
    ("þ", "th"),
    ("Þ", "Th"),
];

/// ASCII words of `text`: letters and digits kept (Latin diacritics folded), everything
/// else a word break, so heck sees `café-au lait` as `cafe`, `au`, `lait`. Other non-ASCII
/// letters are left out because rustc lints non-ASCII identifiers (`uncommon_codepoints`,
/// confusables) by default.
fn ascii_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if let Some((_, ascii)) = FOLDS.iter().find(|(from, _)| from.contains(c)) {
            out.push_str(ascii);
        } else {
            out.push(' ');
        }
    }
    out
}

/// Makes a cased word list a Rust identifier: `fallback` when nothing is left, a leading
/// letter when it starts with a digit, keywords escaped.
fn finish(mut name: String, fallback: &str, digit_prefix: &str) -> String {
    if name.is_empty() {
        name = fallback.to_string();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("{digit_prefix}{name}");
    }
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if RAW_OK.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// A snake_case identifier for a field, method or function (`customerEmail` →
/// `customer_email`, `type` → `r#type`, `self` → `self_`, `_` → `value`, `+1` → `plus_1`,
/// `-1` → `minus_1`, `@type` → `r#type`, `foo-bar` → `foo_bar`).
/// The wire name is kept separately (serde `rename`), so this may change the spelling.
pub fn ident(text: &str) -> String {
    finish(
        ascii_words(&spell_signs(text)).to_snake_case(),
        "value",
        "n",
    )
}

/// An UpperCamelCase identifier for a type or trait (`ticket_status` → `TicketStatus`,
/// `Self` → `Self_`, `HTTP` → `Http`).
pub fn type_ident(text: &str) -> String {
    finish(
        ascii_words(&spell_signs(text)).to_upper_camel_case(),
        "Type",
        "T",
    )
}

/// An enum variant for the value `text` (`in_progress` → `InProgress`, `"#` → `Value`,
/// `1st` → `V1st`, `+1` → `Plus1`, `-1` → `Minus1`, `reactions-+1` → `ReactionsPlus1`).
/// A sign is spelled out, so values that differ only in it get variants that say so; a
/// `-` between letters or digits stays a separator (`in-progress` → `InProgress`).
pub fn variant(text: &str) -> String {
    finish(
        ascii_words(&spell_signs(text)).to_upper_camel_case(),
        "Value",
        "V",
    )
}

/// `text` with its signs spelled out as words (`+1` → ` plus 1`, `-1` → ` minus 1`), so
/// names that differ only in a sign (GitHub's `+1` and `-1` reactions) stay apart; a `-`
/// between letters or digits stays a separator (`in-progress`).
fn spell_signs(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut spelled = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let before_alnum = i > 0 && chars[i - 1].is_alphanumeric();
        let after_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        match c {
            '+' => spelled.push_str(" plus "),
            '-' if !before_alnum && after_digit => spelled.push_str(" minus "),
            other => spelled.push(other),
        }
    }
    spelled
}

/// A SCREAMING_SNAKE_CASE identifier for a `static` (`tickets_search` → `TICKETS_SEARCH`).
pub fn const_ident(text: &str) -> String {
    finish(
        ascii_words(&spell_signs(text)).to_shouty_snake_case(),
        "VALUE",
        "N",
    )
}
