//! The fingerprint of a call: which query a cursor belongs to, whether a retried idempotency
//! key carries the same arguments, whether an apply matches its preview.
//!
//! It is SHA-256 (lowercase hex) of the canonical JSON of the arguments without the control
//! parameters ([`CONTROL_PARAMS`]): keys sorted by code point at every depth, no whitespace,
//! and object members whose value is `null` dropped (null means absent, see
//! [`crate::validate`]). Fingerprint the arguments *after* [`crate::validate::prepare`], so a
//! default spelled out and a default left out give the same fingerprint.
//!
//! Numbers keep their JSON spelling (`1` and `1.0` differ); generated code fingerprints
//! values that went through one deserializer, so in practice they are spelled alike.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Argument names that steer *how* a call is served, not *what* it asks for, and so never
/// take part in a fingerprint. They are also the reserved argument names of every tool.
pub const CONTROL_PARAMS: &[&str] = &[
    "cursor",
    "limit",
    "response_format",
    "idempotency_key",
    "preview_id",
];

/// SHA-256 hex of the canonical arguments without [`CONTROL_PARAMS`].
///
/// ```
/// use serde_json::json;
/// use toolspec_runtime::fingerprint::fingerprint;
/// let a = fingerprint(&json!({"status": "open", "query": "x", "cursor": "abc", "limit": 5}));
/// let b = fingerprint(&json!({"query": "x", "status": "open"}));
/// assert_eq!(a, b);
/// assert_ne!(a, fingerprint(&json!({"query": "y", "status": "open"})));
/// ```
pub fn fingerprint(arguments: &Value) -> String {
    let mut text = String::new();
    match arguments {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .iter()
                .filter(|(k, v)| !CONTROL_PARAMS.contains(&k.as_str()) && !v.is_null())
                .map(|(k, _)| k)
                .collect();
            keys.sort();
            text.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                write_string(&mut text, k);
                text.push(':');
                if let Some(v) = map.get(k.as_str()) {
                    write_canonical(&mut text, v);
                }
            }
            text.push('}');
        }
        other => write_canonical(&mut text, other),
    }
    crate::random::hex(&Sha256::digest(text.as_bytes()))
}

/// Canonical JSON of any value: sorted keys, no whitespace, `null` members dropped.
///
/// Written by hand rather than relying on `serde_json::Map` ordering, because a workspace
/// that enables serde_json's `preserve_order` feature makes maps keep insertion order.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, value);
    out
}

fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> =
                map.iter().filter(|(_, v)| !v.is_null()).collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_canonical(out, v);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, v);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push_str(&Value::String(s.to_owned()).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_sorts_nested_keys_and_drops_nulls() {
        let v = json!({"b": {"z": 1, "a": [ {"y": null, "x": "é"} ]}, "a": true});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":true,"b":{"a":[{"x":"é"}],"z":1}}"#
        );
    }

    #[test]
    fn control_params_and_nulls_do_not_change_the_fingerprint() {
        let base = fingerprint(&json!({"q": "x"}));
        assert_eq!(base.len(), 64);
        let with = json!({"q": "x", "status": null, "cursor": "c", "limit": 3,
            "response_format": "concise", "idempotency_key": "k", "preview_id": "pv_1"});
        assert_eq!(base, fingerprint(&with));
        // Control names nested deeper are data, not control parameters.
        assert_ne!(
            base,
            fingerprint(&json!({"q": "x", "filter": {"limit": 3}}))
        );
    }
}
