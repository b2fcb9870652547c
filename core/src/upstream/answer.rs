//! The API's answer, bounded as it is read and parsed once, straight into the tool's output
//! type.
//!
//! An upstream decides how much it sends; the server decides how much it reads. An answer
//! whose `Content-Length` is over the cap is refused before a byte of it is read, and a
//! chunked one is cut off at the cap. An answer over [`LARGE_ANSWER`] bytes takes one of the
//! API's few places for large answers while it is read and parsed (see
//! [`Api::with_large_answers_at_once`](super::Api::with_large_answers_at_once)), so a burst
//! of them costs a few answers' memory, not one per call. The bytes are then parsed once,
//! into the output type, with no `Value` in between; what a page needs besides (a total,
//! whether more follow, how many items came) is read by a second pass that keeps nothing.

use std::sync::Arc;

use serde::Deserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::Route;

/// An answer over this many bytes is a large one: it is read only in one of the places for
/// large answers.
pub const LARGE_ANSWER: usize = 1 << 20;
/// The most of an error answer read: its message is all the server uses, cut short anyway.
const MAX_ERROR_ANSWER: usize = 64 << 10;

/// Why an answer was not read whole.
#[derive(Debug)]
pub(super) enum Unread {
    /// Over the cap (announced, or reached while reading).
    TooLarge,
    /// The connection failed or timed out while reading.
    Transport(reqwest::Error),
}

/// The body of `response`, refused past `cap` bytes. A large answer waits for a place in
/// `large`, and the place is returned with the bytes, to be held while they are parsed.
pub(super) async fn read(
    mut response: reqwest::Response,
    cap: usize,
    large: &Arc<Semaphore>,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Unread> {
    let announced = response.content_length().map(|n| n as usize);
    if announced.is_some_and(|n| n > cap) {
        return Err(Unread::TooLarge);
    }
    let mut place = None;
    if announced.is_some_and(|n| n > LARGE_ANSWER) {
        hold(&mut place, large).await;
    }
    let mut bytes = Vec::with_capacity(announced.unwrap_or(0).min(LARGE_ANSWER));
    while let Some(chunk) = response.chunk().await.map_err(Unread::Transport)? {
        if bytes.len() + chunk.len() > cap {
            return Err(Unread::TooLarge);
        }
        if bytes.len() + chunk.len() > LARGE_ANSWER {
            hold(&mut place, large).await;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, place))
}

/// The first [`MAX_ERROR_ANSWER`] bytes of an error answer (at most `cap`): only its
/// message is used, so the rest is never read, and a failed read keeps what came.
pub(super) async fn read_prefix(mut response: reqwest::Response, cap: usize) -> Vec<u8> {
    let cap = cap.min(MAX_ERROR_ANSWER);
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = cap - bytes.len();
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if bytes.len() == cap {
            break;
        }
    }
    bytes
}

/// Waits for a place among the large answers, unless `place` holds one already.
async fn hold(place: &mut Option<OwnedSemaphorePermit>, large: &Arc<Semaphore>) {
    if place.is_none() {
        // The semaphore is never closed; a closed one would only mean no waiting.
        *place = Arc::clone(large).acquire_owned().await.ok();
    }
}

/// `bytes` parsed as `O`: the answer's keys are the output's fields, or, with the route's
/// `response`, the whole answer is that one field. An empty answer is `null`. The error is
/// the place in the output where the answer broke its type, and serde's words.
pub(super) fn parse<O: DeserializeOwned>(
    route: &Route,
    bytes: &[u8],
) -> Result<O, (String, String)> {
    let empty = bytes.iter().all(u8::is_ascii_whitespace);
    let failed = |e: serde_path_to_error::Error<serde_json::Error>| {
        (e.path().to_string(), e.into_inner().to_string())
    };
    match (route.response, empty) {
        (Some(field), true) => serde_path_to_error::deserialize(OneField {
            name: field,
            value: serde_json::Value::Null,
        })
        .map_err(failed),
        (None, true) => serde_path_to_error::deserialize(serde_json::json!({})).map_err(failed),
        (Some(field), false) => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            let out = serde_path_to_error::deserialize(OneField {
                name: field,
                value: &mut de,
            })
            .map_err(failed)?;
            de.end().map_err(|e| (String::new(), e.to_string()))?;
            Ok(out)
        }
        (None, false) => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            let out = serde_path_to_error::deserialize(&mut de).map_err(failed)?;
            de.end().map_err(|e| (String::new(), e.to_string()))?;
            Ok(out)
        }
    }
}

/// A deserializer of an object with one field, `name`, whose value `value` deserializes:
/// the whole answer read as one field of the output, without building the object.
struct OneField<D> {
    name: &'static str,
    value: D,
}

impl<'de, D: Deserializer<'de, Error = serde_json::Error>> Deserializer<'de> for OneField<D> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(OneEntry {
            name: Some(self.name),
            value: Some(self.value),
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct OneEntry<D> {
    name: Option<&'static str>,
    value: Option<D>,
}

impl<'de, D: Deserializer<'de, Error = serde_json::Error>> MapAccess<'de> for OneEntry<D> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.name.take() {
            Some(name) => seed
                .deserialize(de::value::BorrowedStrDeserializer::new(name))
                .map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("a value asked for twice")),
        }
    }
}

/// What a page needs to know of an answer beyond its output.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct PageFacts {
    /// The answer's total, under the route's `total` name.
    pub total: Option<u64>,
    /// Its `has_more`.
    pub has_more: Option<bool>,
    /// Its `done`.
    pub done: Option<bool>,
    /// How many items came: the whole answer's length with a `response` field, else the
    /// length of the array under the route's `items`.
    pub items: Option<usize>,
}

/// The page facts of `bytes`, read without keeping the answer.
pub(super) fn page_facts(route: &Route, bytes: &[u8]) -> PageFacts {
    let mut facts = PageFacts::default();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let scan = Scan {
        route,
        facts: &mut facts,
    };
    // An answer that does not parse already failed `parse`; its facts are none.
    let _ = de.deserialize_any(scan);
    facts
}

struct Scan<'a> {
    route: &'a Route,
    facts: &'a mut PageFacts,
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Any other answer has no page facts: the visitor's error is ignored.
        f.write_str("an object or an array")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.route.response.is_some() {
            let mut n = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            self.facts.items = Some(n);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let route = self.route;
        let is = |key: &str, part: &str| route.paging(part) == Some(key);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if is(&key, "total") {
                self.facts.total = map.next_value::<serde_json::Value>()?.as_u64();
            } else if is(&key, "has_more") {
                self.facts.has_more = map.next_value::<serde_json::Value>()?.as_bool();
            } else if is(&key, "done") {
                self.facts.done = map.next_value::<serde_json::Value>()?.as_bool();
            } else if route.response.is_none() && route.items == Some(key.as_ref()) {
                // A list of zero-sized items: counted, never allocated.
                self.facts.items = map
                    .next_value::<Option<Vec<IgnoredAny>>>()?
                    .map(|v| v.len());
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::Part;

    static LIST: Route = Route {
        tool: "demo_items_list",
        method: "GET",
        path: &[Part::Lit("/items")],
        query: &[],
        headers: &[],
        body: &[],
        body_param: None,
        response: None,
        paging: &[("total", "total_count"), ("has_more", "more")],
        items: Some("items"),
        idempotency_header: None,
        statuses: &[],
        write: false,
    };
    static WHOLE: Route = Route {
        response: Some("items"),
        ..LIST
    };

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Out {
        items: Vec<Item>,
    }
    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Item {
        id: u64,
    }

    #[test]
    fn an_answer_parses_straight_into_the_output_as_its_keys_or_one_field() {
        let out: Out = parse(&LIST, br#"{"items": [{"id": 1}], "total_count": 9}"#).expect("ok");
        assert_eq!(out.items, vec![Item { id: 1 }]);
        let out: Out = parse(&WHOLE, br#"[{"id": 1}, {"id": 2}]"#).expect("ok");
        assert_eq!(out.items.len(), 2);
        // Where it breaks is named.
        let (path, why) = parse::<Out>(&WHOLE, br#"[{"id": 1}, {"id": "x"}]"#).expect_err("bad");
        assert_eq!(path, "items[1].id");
        assert!(why.contains("invalid type"), "{why}");
        // Trailing bytes after the answer are not ignored.
        assert!(parse::<Out>(&WHOLE, br#"[] []"#).is_err());
        // An empty answer is null: an empty object, or a null field.
        #[derive(Debug, serde::Deserialize)]
        struct Nothing {}
        assert!(parse::<Nothing>(&LIST, b"  ").is_ok());
        #[derive(Debug, serde::Deserialize)]
        struct Maybe {
            #[allow(dead_code)]
            items: Option<Vec<Item>>,
        }
        assert!(parse::<Maybe>(&WHOLE, b"").is_ok());
    }

    #[test]
    fn page_facts_are_read_without_keeping_the_answer() {
        let facts = page_facts(
            &LIST,
            br#"{"items": [{"id": 1}, {"id": 2}], "total_count": 9, "more": true, "x": {"y": []}}"#,
        );
        assert_eq!(
            facts,
            PageFacts {
                total: Some(9),
                has_more: Some(true),
                done: None,
                items: Some(2)
            }
        );
        let facts = page_facts(&WHOLE, br#"[1, 2, 3]"#);
        assert_eq!(facts.items, Some(3));
        assert_eq!(page_facts(&LIST, b"not json"), PageFacts::default());
    }
}
