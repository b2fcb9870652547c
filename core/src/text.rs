//! Text from callers, made safe to show: to a person approving a change ([`for_person`]) and
//! in the messages a model reads (`echo`). A leaf: the errors, the problems and the engine
//! all say callers' text through it.

/// The most characters of a caller's text (a value, an unknown key) a message echoes; longer
/// text is cut, and control and bidirectional-override characters are written `\u{..}`.
pub const ECHO_CHARS: usize = 64;

/// Whether `c` could change how the text around it is displayed: control characters
/// (line breaks included, so a value cannot fake a line of its own) and the
/// bidirectional marks, embeddings, overrides and isolates.
fn disguises(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` made safe to show a person: control characters (line breaks included) and the
/// bidirectional marks, embeddings, overrides and isolates written as `\u{..}`, cut to `max`
/// characters.
pub fn for_person(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if disguises(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A caller's text as a message may echo it: cut to [`ECHO_CHARS`], with control and
/// bidirectional-override characters written `\u{..}` (see [`for_person`]).
pub(crate) fn echo(text: &str) -> String {
    for_person(text, ECHO_CHARS)
}
