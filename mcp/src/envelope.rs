//! A JSON-RPC message's envelope, read before rmcp sees the message: its id, and whether a
//! `tools/call` has params of the right shape, without building the message's tree.
//!
//! rmcp answers text that is not JSON with 415 and plain text over HTTP (and not at all over
//! stdio), and a `tools/call` whose params are not `{name, arguments?}` with -32601 "method
//! not found", which sends a client looking for the wrong mistake. Both transports check the
//! envelope first and answer as JSON-RPC asks: -32700 for a parse error, -32602 for invalid
//! params.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// What the envelope of one message says.
pub(super) enum Envelope {
    /// Fit to hand to rmcp. `request_id` is the id of a request (not of a notification or
    /// a response), as JSON text: `1` and `"1"` are different ids.
    Fine {
        request_id: Option<String>,
        /// The tool a `tools/call` names (when its name is a string of at most
        /// [`MAX_NAME_BYTES`] bytes): what the HTTP transport checks the caller's scopes for.
        #[cfg_attr(not(feature = "auth"), allow(dead_code))]
        tool: Option<String>,
    },
    /// The text is not JSON; the message has serde_json's reason (with its position).
    NotJson(String),
    /// A `tools/call` whose params are not an object with a string `name` and an object
    /// `arguments` (if any).
    BadCallParams { id: Value, message: String },
}

/// A JSON-RPC error response to request `id` (`null` when it could not be read), as text:
/// what both transports answer with when they refuse a message themselves.
pub(super) fn error_response(id: Option<&Value>, code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
}

/// Reads the envelope of `bytes`, in one pass that builds nothing but the id.
pub(super) fn read(bytes: &[u8]) -> Envelope {
    #[derive(Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<String>,
        params: Option<Params>,
    }
    let head: Head = match serde_json::from_slice(bytes) {
        Ok(head) => head,
        Err(e) if e.is_syntax() || e.is_eof() => return Envelope::NotJson(e.to_string()),
        // JSON, but not an object of this shape: rmcp says what is wrong with it.
        Err(_) => {
            return Envelope::Fine {
                request_id: None,
                tool: None,
            };
        }
    };
    let is_call = head.method.as_deref() == Some("tools/call");
    let tool = match &head.params {
        Some(params) if is_call => params.tool.clone(),
        _ => None,
    };
    if is_call
        && let Some(id) = head.id.clone()
        && let Some(wrong) = head
            .params
            .map_or(Some("missing"), Params::wrong_for_a_call)
    {
        return Envelope::BadCallParams {
            id,
            message: format!(
                "Invalid params: tools/call takes params {{\"name\": the tool's name, \
                 \"arguments\": an object}}; these params are {wrong}."
            ),
        };
    }
    let request_id = head
        .id
        .filter(|id| head.method.is_some() && !id.is_null())
        .map(|id| id.to_string());
    Envelope::Fine { request_id, tool }
}

/// The longest tool name read from a call: MCP names are at most 128 characters.
const MAX_NAME_BYTES: usize = 256;

/// The shape of a message's params, as far as a `tools/call` needs it.
#[derive(Default)]
struct Params {
    object: bool,
    name: Option<Kind>,
    /// The name, when it is a string of at most [`MAX_NAME_BYTES`] bytes.
    tool: Option<String>,
    arguments: Option<Kind>,
}

impl Params {
    /// What is wrong with these params for a `tools/call`, if anything.
    fn wrong_for_a_call(self) -> Option<&'static str> {
        match (self.object, self.name, self.arguments) {
            (false, ..) => Some("not an object"),
            (true, None, _) => Some("without a name"),
            (true, Some(k), _) if k != Kind::String => Some("with a name that is not a string"),
            (true, _, Some(k)) if k != Kind::Object && k != Kind::Null => {
                Some("with arguments that are not an object")
            }
            _ => None,
        }
    }
}

/// The kind of a JSON value, read without building it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Object,
    Null,
    Other,
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind::String)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Kind::Object)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Kind::Other)
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind::Other)
    }
}

/// A call's `name`: its kind, and the text when it is a string short enough to be a name.
struct Name(Kind, Option<String>);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Name, E> {
                Ok(Name(
                    Kind::String,
                    (s.len() <= MAX_NAME_BYTES).then(|| s.to_owned()),
                ))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Name, A::Error> {
                KindVisitor.visit_map(map).map(|k| Name(k, None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Name, A::Error> {
                KindVisitor.visit_seq(seq).map(|k| Name(k, None))
            }
            fn visit_unit<E>(self) -> Result<Name, E> {
                Ok(Name(Kind::Null, None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Name, E> {
                Ok(Name(Kind::Other, None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Name, E> {
                Ok(Name(Kind::Other, None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Name, E> {
                Ok(Name(Kind::Other, None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Name, E> {
                Ok(Name(Kind::Other, None))
            }
        }
        deserializer.deserialize_any(NameVisitor)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
                let mut params = Params {
                    object: true,
                    ..Params::default()
                };
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        "name" => {
                            let Name(kind, name) = map.next_value::<Name>()?;
                            params.name = Some(kind);
                            params.tool = name;
                        }
                        "arguments" => params.arguments = Some(map.next_value::<Kind>()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(params)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Params, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Params::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_unit<E>(self) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Params, E> {
                Ok(Params::default())
            }
        }
        deserializer.deserialize_any(ParamsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad_params(text: &str) -> Option<String> {
        match read(text.as_bytes()) {
            Envelope::BadCallParams { message, .. } => Some(message),
            _ => None,
        }
    }

    #[test]
    fn a_call_needs_a_name_and_object_arguments() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":[1]}}}"#;
        assert!(bad_params(ok).is_none());
        let no_args = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#;
        assert!(bad_params(no_args).is_none());
        for bad in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[1]}}"#,
        ] {
            let message = bad_params(bad).unwrap_or_else(|| panic!("{bad} passed"));
            assert!(
                message.starts_with("Invalid params: tools/call takes"),
                "{message}"
            );
        }
    }

    #[test]
    fn ids_are_read_from_requests_only() {
        let id = |text: &str| match read(text.as_bytes()) {
            Envelope::Fine { request_id, .. } => request_id,
            _ => panic!("{text}"),
        };
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#).as_deref(),
            Some("\"7\"")
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#), None);
        assert!(matches!(read(b"{not json"), Envelope::NotJson(_)));
    }

    #[test]
    fn a_call_names_its_tool() {
        let tool = |text: &str| match read(text.as_bytes()) {
            Envelope::Fine { tool, .. } => tool,
            _ => panic!("{text}"),
        };
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"x"},"name":"tickets_create"}}"#;
        assert_eq!(tool(call).as_deref(), Some("tickets_create"));
        let list =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"tickets_create"}}"#;
        assert_eq!(tool(list), None);
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{}"}}}}"#,
            "a".repeat(300)
        );
        assert_eq!(tool(&long), None);
    }
}
