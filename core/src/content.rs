//! Results that are not JSON: images, audio, links to resources, and text, which an MCP host
//! shows as content blocks rather than reading them out of the structured result.
//!
//! A tool's output field of spec type `image` or `audio` is a [`Media`] in Rust; `text` is
//! a `String`; `resource_link` is a [`ResourceLink`]. The generated [`Serve`] lists these
//! fields ([`Serve::content`]), and after the result is shaped the glue takes them out of
//! the structured result into [`CallOutput::content`] (a resource link is copied: it is
//! small, and a client that reads only structured content still finds it). The output
//! schema leaves the moved fields out, so the structured result stays valid against it,
//! and base64 pixels never sit in the JSON the model reads.
//!
//! [`Serve`]: crate::engine::glue::Serve
//! [`Serve::content`]: crate::engine::glue::Serve::content
//! [`CallOutput::content`]: crate::engine::CallOutput::content

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where the glue leaves the content blocks it took out of a result, for
/// [`crate::engine::CallOutput::new`] to collect: a key no output field can have.
pub const CONTENT_KEY: &str = "\u{0}content";

/// How an output field reaches the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// An image or audio clip: moved to its own content block.
    Media,
    /// A link to a resource: copied to a content block, kept in the structured result.
    Link,
    /// Text read as text (a file's contents): moved to its own text block.
    Text,
}

/// An image or an audio clip, as MCP's image and audio content blocks carry them:
/// `{"type": "image", "data": <base64>, "mimeType": "image/png"}`.
///
/// ```
/// use toolspec_runtime::content::Media;
/// let png = Media::image(&[0x89, b'P', b'N', b'G'], "image/png");
/// assert_eq!(png.data, "iVBORw==");
/// assert_eq!(serde_json::to_value(&png).unwrap()["type"], "image");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Media {
    /// `image` or `audio`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
    /// The media type (`image/png`, `audio/wav`).
    #[serde(rename = "mimeType")]
    pub mime_type: String,
}

impl Media {
    /// An image of these bytes.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self {
            kind: "image".into(),
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An audio clip of these bytes.
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self {
            kind: "audio".into(),
            data: base64(bytes),
            mime_type: mime_type.into(),
        }
    }
}

/// A link to a resource the client can read (`resources/read`) or open, as MCP's
/// `resource_link` content block: `{"type": "resource_link", "uri", "name", ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// Always `resource_link`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where the resource is.
    pub uri: String,
    /// Its name, for people.
    pub name: String,
    /// Its media type, if known.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// What it is, if said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl ResourceLink {
    /// A link to `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            kind: "resource_link".into(),
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
        }
    }
}

/// Takes the content fields `fields` out of (or, for links, copies them from) the
/// top-level `result` into its [`CONTENT_KEY`] list, in the order listed. Fields that are
/// absent or `null` add nothing.
pub fn extract(result: &mut Value, fields: &[(&str, ContentKind)]) {
    let Value::Object(map) = result else {
        return;
    };
    let mut blocks = Vec::new();
    for (name, kind) in fields {
        let value = match kind {
            ContentKind::Link => map.get(*name).cloned(),
            ContentKind::Media | ContentKind::Text => map.remove(*name),
        };
        match (kind, value) {
            (_, None | Some(Value::Null)) => {}
            (ContentKind::Text, Some(Value::String(text))) => {
                blocks.push(block_text(text));
            }
            (_, Some(v)) => blocks.push(v),
        }
    }
    if !blocks.is_empty() {
        map.insert(CONTENT_KEY.to_owned(), Value::Array(blocks));
    }
}

fn block_text(text: String) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::from("text"));
    m.insert("text".into(), Value::from(text));
    Value::Object(m)
}

/// Standard base64 with padding (RFC 4648 section 4).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(chunk.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        let digits = chunk.len() + 1;
        for i in 0..4 {
            if i < digits {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded, "{plain}");
        }
    }

    #[test]
    fn media_and_text_move_links_are_copied() {
        let mut result = json!({
            "title": "Home",
            "screenshot": Media::image(b"png", "image/png"),
            "page": ResourceLink::new("file:///a.html", "a.html"),
            "body": "<html>",
            "none": null
        });
        extract(
            &mut result,
            &[
                ("screenshot", ContentKind::Media),
                ("page", ContentKind::Link),
                ("body", ContentKind::Text),
                ("none", ContentKind::Media),
            ],
        );
        let blocks = result[CONTENT_KEY].as_array().expect("blocks").clone();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0]["type"], "image");
        assert_eq!(blocks[1]["type"], "resource_link");
        assert_eq!(blocks[2], json!({"type": "text", "text": "<html>"}));
        assert!(result.get("screenshot").is_none() && result.get("body").is_none());
        assert_eq!(result["page"]["uri"], "file:///a.html");
    }
}
