//! A YAML document as a tree of nodes that each know their position.
//!
//! The loader first reads a spec into this tree, so that the shape check can walk all of it
//! and report every misplaced or misspelled key at once, instead of serde's first error.

use crate::spec::spanned::Pos;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// One YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`, `~` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A whole number.
    Int(i128),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<PNode>),
    /// A mapping, keys in written order.
    Map(Vec<(String, Pos, PNode)>),
}

/// A node and its position.
#[derive(Debug, Clone, PartialEq)]
pub struct PNode {
    /// The node.
    pub node: Node,
    /// Where it starts.
    pub pos: Pos,
}

impl Node {
    /// How the node's kind is called in messages ("a mapping", "a string").
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "nothing (null)",
            Node::Bool(_) => "a boolean",
            Node::Int(_) => "an integer",
            Node::Float(_) => "a number",
            Node::Str(_) => "a string",
            Node::Seq(_) => "a list",
            Node::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for PNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Node>::deserialize(d)?;
        Ok(PNode {
            pos: Pos::from_location(&spanned.referenced),
            node: spanned.value,
        })
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
        Ok(i128::try_from(v).map_or(Node::Float(v as f64), Node::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<PNode>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<PNode>()? {
            let value: PNode = map.next_value()?;
            let name = match key.node {
                Node::Str(s) => s,
                Node::Int(i) => i.to_string(),
                Node::Bool(b) => b.to_string(),
                Node::Float(f) => f.to_string(),
                Node::Null => "null".to_string(),
                // A list or mapping as a key: keep a marker that no key in the format matches,
                // so the shape check reports it as an unknown key at its position.
                Node::Seq(_) | Node::Map(_) => "<complex key>".to_string(),
            };
            entries.push((name, key.pos, value));
        }
        Ok(Node::Map(entries))
    }
}
