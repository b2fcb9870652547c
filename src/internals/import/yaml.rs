//! A small YAML writer for drafts: block mappings and sequences, short leaf mappings in flow
//! style (as hand-written specs are), and comments beside the lines they are about.
//!
//! Drafts are read and edited by people, so a comment must sit next to the key it explains
//! (`# guessed: ...`); no serde YAML writer keeps comments, hence this one. Every string is
//! written plain only when YAML cannot read it as anything else, otherwise double-quoted
//! with JSON's escapes (valid YAML), so no text in an OpenAPI document can change the
//! structure of the draft.

use serde_json::Value;

/// A YAML node with its comments.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A scalar or a flow value, written as JSON would be (strings made YAML-safe).
    Scalar(Value),
    /// A mapping, in insertion order.
    Map(Vec<Entry>),
    /// A sequence.
    Seq(Vec<Node>),
}

/// A key of a mapping, its value and the comment lines written above it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Node,
    /// Comment lines (without `#`) written above the key.
    pub comments: Vec<String>,
}

impl Node {
    /// An empty mapping.
    pub fn map() -> Self {
        Node::Map(Vec::new())
    }

    /// A string scalar.
    pub fn str(s: impl Into<String>) -> Self {
        Node::Scalar(Value::String(s.into()))
    }

    /// Adds `key: value` to a mapping (replacing an earlier value of the same key).
    pub fn set(&mut self, key: impl Into<String>, value: Node) -> &mut Self {
        self.set_commented(key, value, Vec::new())
    }

    /// Adds `key: value` with comment lines above it.
    pub fn set_commented(
        &mut self,
        key: impl Into<String>,
        value: Node,
        comments: Vec<String>,
    ) -> &mut Self {
        let key = key.into();
        if let Node::Map(entries) = self {
            match entries.iter_mut().find(|e| e.key == key) {
                Some(e) => {
                    e.value = value;
                    e.comments.extend(comments);
                }
                None => entries.push(Entry {
                    key,
                    value,
                    comments,
                }),
            }
        }
        self
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.value),
            _ => None,
        }
    }

    /// The value of `key` in a mapping, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match self {
            Node::Map(entries) => entries
                .iter_mut()
                .find(|e| e.key == key)
                .map(|e| &mut e.value),
            _ => None,
        }
    }

    /// Removes `key` from a mapping, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        match self {
            Node::Map(entries) => {
                let i = entries.iter().position(|e| e.key == key)?;
                Some(entries.remove(i).value)
            }
            _ => None,
        }
    }

    /// Whether a mapping has no entries.
    pub fn is_empty_map(&self) -> bool {
        matches!(self, Node::Map(e) if e.is_empty())
    }

    /// The node as plain JSON (comments dropped), to test what the draft says.
    pub fn to_json(&self) -> Value {
        match self {
            Node::Scalar(v) => v.clone(),
            Node::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Node::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

impl From<Value> for Node {
    fn from(v: Value) -> Self {
        Node::Scalar(v)
    }
}

/// Lines longer than this are not written in flow style.
const FLOW_WIDTH: usize = 100;

/// Writes a document: `top` must be a mapping.
pub fn write(top: &Node) -> String {
    let mut out = String::new();
    write_map_body(top, 0, &mut out);
    out
}

fn write_map_body(node: &Node, indent: usize, out: &mut String) {
    let Node::Map(entries) = node else { return };
    let pad = " ".repeat(indent);
    for e in entries {
        for c in &e.comments {
            out.push_str(&pad);
            out.push('#');
            if !c.is_empty() {
                out.push(' ');
                out.push_str(&one_line(c));
            }
            out.push('\n');
        }
        out.push_str(&pad);
        out.push_str(&key(&e.key));
        out.push(':');
        write_value(&e.value, indent, pad.len() + e.key.len() + 2, out);
    }
}

/// Writes a value after `key:`; `used` is how much of the line the key took.
fn write_value(value: &Node, indent: usize, used: usize, out: &mut String) {
    if let Some(flow) = flow(value).filter(|f| used + 1 + f.len() <= FLOW_WIDTH) {
        out.push(' ');
        out.push_str(&flow);
        out.push('\n');
        return;
    }
    match value {
        Node::Map(_) => {
            out.push('\n');
            write_map_body(value, indent + 2, out);
        }
        Node::Seq(items) => {
            out.push('\n');
            write_seq_body(items, indent + 2, out);
        }
        // A scalar too long for one line: still one line; YAML has no limit.
        Node::Scalar(v) => {
            out.push(' ');
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
}

fn write_seq_body(items: &[Node], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for item in items {
        out.push_str(&pad);
        out.push_str("- ");
        match item {
            Node::Map(entries)
                if !entries.is_empty()
                    && flow(item).is_none_or(|f| indent + 2 + f.len() > FLOW_WIDTH) =>
            {
                // The first key goes on the dash's line, the rest under it.
                let mut body = String::new();
                write_map_body(item, indent + 2, &mut body);
                out.push_str(body.trim_start());
            }
            _ => match flow(item) {
                Some(f) => {
                    out.push_str(&f);
                    out.push('\n');
                }
                None => {
                    // A sequence of sequences too long for one line.
                    out.push('\n');
                    if let Node::Seq(inner) = item {
                        write_seq_body(inner, indent + 2, out);
                    }
                }
            },
        }
    }
}

/// The flow form of a node whose entries carry no comments and nest at most one level.
fn flow(node: &Node) -> Option<String> {
    match node {
        Node::Scalar(v) => Some(scalar(v)),
        Node::Seq(items) => {
            let parts: Option<Vec<String>> = items.iter().map(flow_leaf).collect();
            Some(format!("[{}]", parts?.join(", ")))
        }
        Node::Map(entries) => {
            if entries.is_empty() {
                return Some("{}".into());
            }
            let mut parts = Vec::new();
            for e in entries {
                if !e.comments.is_empty() {
                    return None;
                }
                parts.push(format!("{}: {}", key(&e.key), flow_leaf(&e.value)?));
            }
            Some(format!("{{ {} }}", parts.join(", ")))
        }
    }
}

/// A scalar, or a sequence of scalars, in flow form.
fn flow_leaf(node: &Node) -> Option<String> {
    match node {
        Node::Scalar(v) => Some(scalar(v)),
        Node::Seq(items) if items.iter().all(|i| matches!(i, Node::Scalar(_))) => flow(node),
        Node::Map(e) if e.is_empty() => Some("{}".into()),
        _ => None,
    }
}

fn key(k: &str) -> String {
    if plain_safe(k) {
        k.to_string()
    } else {
        quoted(k)
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) if plain_safe(s) => s.clone(),
        Value::String(s) => quoted(s),
        // JSON is YAML's flow subset: arrays and objects of plain data read back the same.
        other => other.to_string(),
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Whether a string reads back as the same string when written plain, in a mapping value,
/// a key or a flow collection: words, digits and a little punctuation, not a number, a
/// boolean or null in any YAML version.
fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !first.is_ascii_alphabetic() && first != '_' && first != '/' {
        return false;
    }
    if s.ends_with(' ') || s.contains("  ") {
        return false;
    }
    let reserved = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf",
    ];
    if reserved.contains(&s.to_ascii_lowercase().as_str()) {
        return false;
    }
    s.chars().all(|c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ' ' | '(' | ')' | '\'')
    }) && !s.contains(" '")
}

/// A comment on one line: line breaks become spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(node: &Node) -> Value {
        let text = write(node);
        serde_saphyr::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn any_text_reads_back_as_written() {
        let hostile = [
            "yes",
            "No",
            "null",
            "~",
            "1.5",
            "0x10",
            "- a",
            "a: b",
            "a #b",
            "#x",
            "'q'",
            "\"q\"",
            "{x}",
            "[x]",
            "&a",
            "*a",
            "!tag",
            "%x",
            "@x",
            "`x",
            "a\nb",
            "tab\there",
            " lead",
            "trail ",
            "",
            "é",
            "1e3",
            ".inf",
            "<<",
            "?",
            "|",
            ">",
            "a'b",
            "it's ok",
        ];
        let mut top = Node::map();
        for (i, s) in hostile.iter().enumerate() {
            top.set(format!("k{i}"), Node::str(*s));
            top.set(*s, Node::str("v"));
        }
        let back = round_trip(&top);
        for (i, s) in hostile.iter().enumerate() {
            assert_eq!(back[format!("k{i}")], json!(s), "value {s:?}");
            assert_eq!(back[*s], json!("v"), "key {s:?}");
        }
    }

    #[test]
    fn nests_and_comments() {
        let mut field = Node::map();
        field.set("type", Node::str("string"));
        field.set("enum", Node::Seq(vec![Node::str("a"), Node::str("true")]));
        let mut params = Node::map();
        params.set_commented(
            "status",
            field,
            vec!["guessed: a person should look".into()],
        );
        let mut tool = Node::map();
        tool.set("name", Node::str("pets_list"));
        tool.set("params", params);
        let mut top = Node::map();
        top.set("tools", Node::Seq(vec![tool]));
        let text = write(&top);
        assert!(text.contains("# guessed: a person should look\n"), "{text}");
        assert_eq!(
            round_trip(&top),
            json!({"tools": [{"name": "pets_list", "params": {"status": {"type": "string", "enum": ["a", "true"]}}}]})
        );
    }
}
