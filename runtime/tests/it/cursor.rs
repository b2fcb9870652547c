//! Cursors: opaque, bound to tool and query, refused when edited, foreign or garbage.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;
use toolspec_runtime::cursor::CursorKey;
use toolspec_runtime::fingerprint::fingerprint;

fn key() -> CursorKey {
    CursorKey::from_bytes(&[7u8; 32])
}

fn reason(r: Result<u64, toolspec_runtime::ToolError>) -> String {
    let e = r.expect_err("cursor should be refused");
    assert_eq!(e.code, "invalid_cursor");
    assert!(!e.retryable);
    assert!(e.message.contains("Drop `cursor`"), "{}", e.message);
    e.details["reason"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn round_trips_and_ignores_paging_controls() {
    let k = key();
    let fp = fingerprint(&json!({"query": "refund", "limit": 10}));
    let c = k.encode("tickets_search", &fp, 40);
    assert!(
        c.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    // The next page may change limit, response_format and of course cursor.
    let fp_next = fingerprint(
        &json!({"query": "refund", "limit": 50, "cursor": c, "response_format": "detailed"}),
    );
    assert_eq!(k.decode("tickets_search", &fp_next, &c).ok(), Some(40));
}

#[test]
fn every_flipped_byte_is_refused() {
    let k = key();
    let c = k.encode("tickets_search", "fp", 1234);
    let raw = URL_SAFE_NO_PAD.decode(&c).expect("base64");
    for i in 0..raw.len() {
        let mut edited = raw.clone();
        edited[i] ^= 0x01;
        let r = reason(k.decode("tickets_search", "fp", &URL_SAFE_NO_PAD.encode(&edited)));
        let expected = match i {
            0 => "version",
            9..=12 => "other_tool",
            13..=16 => "other_query",
            _ => "tampered",
        };
        assert_eq!(r, expected, "byte {i}");
    }
}

#[test]
fn forged_offset_with_recomputed_tags_is_refused() {
    let k = key();
    let c = k.encode("t", "fp", 10);
    let mut raw = URL_SAFE_NO_PAD.decode(&c).expect("base64");
    raw[1..9].copy_from_slice(&999u64.to_be_bytes());
    assert_eq!(
        reason(k.decode("t", "fp", &URL_SAFE_NO_PAD.encode(&raw))),
        "tampered"
    );
}

#[test]
fn other_query_other_tool_other_key_and_garbage_are_refused() {
    let k = key();
    let fp_a = fingerprint(&json!({"query": "a"}));
    let fp_b = fingerprint(&json!({"query": "b"}));
    let c = k.encode("tickets_search", &fp_a, 20);
    assert_eq!(reason(k.decode("tickets_search", &fp_b, &c)), "other_query");
    assert_eq!(reason(k.decode("orders_search", &fp_a, &c)), "other_tool");
    let other_key = CursorKey::from_bytes(&[8u8; 32]);
    assert_eq!(
        reason(other_key.decode("tickets_search", &fp_a, &c)),
        "tampered"
    );
    for garbage in [
        "",
        "abc",
        "!!!!",
        "eyJvZmZzZXQiOjEwfQ",
        &format!("{c}AA"),
        "é",
    ] {
        assert_eq!(
            reason(k.decode("tickets_search", &fp_a, garbage)),
            "malformed",
            "{garbage:?}"
        );
    }
    // Garbage of the right length is still refused (here: version byte 0).
    assert_eq!(
        reason(k.decode("tickets_search", &fp_a, &"A".repeat(44))),
        "version"
    );
    assert_eq!(
        reason(k.decode("tickets_search", &fp_a, &format!("AQ{}", "A".repeat(42)))),
        "other_tool"
    );
}

#[test]
fn other_version_is_refused() {
    let k = key();
    let c = k.encode("t", "fp", 5);
    let mut raw = URL_SAFE_NO_PAD.decode(&c).expect("base64");
    raw[0] = 2;
    let e = k
        .decode("t", "fp", &URL_SAFE_NO_PAD.encode(&raw))
        .expect_err("refused");
    assert_eq!(e.details["reason"], "version");
    assert!(
        e.message
            .starts_with("This cursor comes from another version of the server.")
    );
}

#[test]
fn random_keys_differ() {
    let a = CursorKey::random().expect("random");
    let b = CursorKey::random().expect("random");
    let c = a.encode("t", "fp", 1);
    assert_eq!(a.decode("t", "fp", &c).ok(), Some(1));
    assert!(b.decode("t", "fp", &c).is_err());
    assert_eq!(format!("{a:?}"), "CursorKey(..)");
}
