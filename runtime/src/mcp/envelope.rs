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
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// What the envelope of one message says.
pub(super) enum Envelope {
    /// Fit to hand to rmcp. `request_id` is the id of a request (not of a notification or
    /// a response), as JSON text: `1` and `"1"` are different ids.
    Fine { request_id: Option<String> },
    /// The text is not JSON; the message has serde_json's reason (with its position).
    NotJson(String),
    /// A `tools/call` whose params are not an object with a string `name` and an object
    /// `arguments` (if any).
    BadCallParams { id: Value, message: String },
}

/// Reads the envelope of `bytes`.
pub(super) fn read(bytes: &[u8]) -> Envelope {
    #[derive(Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<String>,
        #[allow(dead_code)]
        params: Option<IgnoredAny>,
    }
    let head: Head = match serde_json::from_slice(bytes) {
        Ok(head) => head,
        Err(e) if e.is_syntax() || e.is_eof() => return Envelope::NotJson(e.to_string()),
        // JSON, but not an object of this shape: rmcp says what is wrong with it.
        Err(_) => return Envelope::Fine { request_id: None },
    };
    let request_id = head
        .id
        .as_ref()
        .filter(|id| head.method.is_some() && !id.is_null())
        .map(Value::to_string);
    if head.method.as_deref() == Some("tools/call")
        && let Some(id) = head.id
        && let Err(e) = serde_json::from_slice::<CallEnvelope>(bytes)
    {
        return Envelope::BadCallParams {
            id,
            message: format!(
                "Invalid params: tools/call takes params {{\"name\": the tool's name, \
                 \"arguments\": an object}}; {}.",
                crate::problem::echo(&e.to_string())
            ),
        };
    }
    Envelope::Fine { request_id }
}

#[derive(Deserialize)]
struct CallEnvelope {
    #[allow(dead_code)]
    params: CallParams,
}

#[derive(Deserialize)]
struct CallParams {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    arguments: Option<AnObject>,
}

/// Any JSON object, skipped without being built.
struct AnObject;

impl<'de> Deserialize<'de> for AnObject {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = AnObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of arguments")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnObject, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnObject)
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
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
            Envelope::Fine { request_id } => request_id,
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
}
