//! Opaque, versioned, tamper-evident page cursors.
//!
//! A cursor carries the offset of the next page and is bound to the tool and to the query
//! that made it (its [`crate::fingerprint`]), under an HMAC-SHA256 with the server's
//! [`CursorKey`]. The agent cannot read, edit or forge it, and a cursor from one query
//! cannot be replayed against another: both are refused with `invalid_cursor`, saying to
//! drop `cursor` or pass the exact `next_cursor` of the previous page.
//!
//! Layout of an offset cursor, version 1 (33 bytes, URL-safe base64 without padding, 44
//! characters): `version (1) | offset (8, big endian) | tool tag (4) | query tag (4) | MAC (16)`.
//! The tags are the first bytes of SHA-256 of the tool name and of the fingerprint; they only
//! let the error say *why* a cursor is refused. The MAC, truncated to 128 bits, covers the
//! version, the offset, the full tool name and the full fingerprint.
//!
//! A keyset cursor (version 2, for `paging: {keyset: [...]}`) carries the *position* after
//! which the next page starts, the sort key of the last item returned (a JSON array of its
//! key fields' values), so that a walk neither skips nor repeats items while others insert
//! or delete: `version (1) | offset (8) | tool tag (4) | query tag (4) | position length (2) |
//! position (compact JSON, at most [`MAX_POSITION`] bytes) | MAC (16)`, the MAC covering the
//! position too. The offset is only the count of items before the page, for `total`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::error::ToolError;

/// The offset cursor format version this runtime writes and accepts.
pub const CURSOR_VERSION: u8 = 1;

/// The keyset cursor format version this runtime writes and accepts.
pub const KEYSET_CURSOR_VERSION: u8 = 2;

/// The longest position a keyset cursor carries, in bytes of compact JSON: with the rest of
/// the cursor it stays within the 512 characters the `cursor` parameter takes.
pub const MAX_POSITION: usize = 320;

const LEN: usize = 1 + 8 + 4 + 4 + 16;
const KEYSET_FIXED: usize = 1 + 8 + 4 + 4 + 2 + 16;

/// The secret that signs cursors.
///
/// [`CursorKey::random`] makes a per-process key: cursors then stop working when the process
/// restarts (the agent is told to start from the first page). A server that restarts or
/// runs several replicas should load a persisted secret with [`CursorKey::from_bytes`]
/// (32 random bytes from its secret store).
#[derive(Clone)]
pub struct CursorKey {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

impl CursorKey {
    /// A key from secret bytes (any length; use at least 32 random bytes).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self {
            bytes: bytes.to_vec(),
        }
    }

    /// A fresh random 32-byte key for this process only. Fails only if the OS random
    /// source does.
    pub fn random() -> std::io::Result<Self> {
        let mut bytes = vec![0u8; 32];
        crate::random::fill(&mut bytes)?;
        Ok(Self { bytes })
    }

    /// The cursor for the page starting at `offset` of the query `fingerprint` of `tool`.
    pub fn encode(&self, tool: &str, fingerprint: &str, offset: u64) -> String {
        self.encode_version(CURSOR_VERSION, tool, fingerprint, offset)
    }

    fn encode_version(&self, version: u8, tool: &str, fingerprint: &str, offset: u64) -> String {
        let mut raw = Vec::with_capacity(LEN);
        raw.push(version);
        raw.extend_from_slice(&offset.to_be_bytes());
        raw.extend_from_slice(&tag(tool));
        raw.extend_from_slice(&tag(fingerprint));
        let mac = self.mac(version, offset, &[tool.as_bytes(), fingerprint.as_bytes()]);
        raw.extend_from_slice(&mac);
        URL_SAFE_NO_PAD.encode(raw)
    }

    /// The offset a cursor points at, if it was made by this key for this very `tool` and
    /// query `fingerprint` in this cursor version. Every other cursor is an
    /// `invalid_cursor` error whose `details.reason` is `malformed`, `version`,
    /// `other_tool`, `other_query` or `tampered`.
    pub fn decode(&self, tool: &str, fingerprint: &str, cursor: &str) -> Result<u64, ToolError> {
        let raw = raw_of(cursor, CURSOR_VERSION)?;
        if raw.len() != LEN {
            return Err(malformed());
        }
        let offset = offset_of(&raw);
        check_tags(&raw, tool, fingerprint)?;
        let expected = self.mac(raw[0], offset, &[tool.as_bytes(), fingerprint.as_bytes()]);
        check_mac(&expected, &raw[17..])?;
        Ok(offset)
    }

    /// The keyset cursor for the page after `position` (the sort key of the last item
    /// returned), `offset` items into the query `fingerprint` of `tool`. An error when the
    /// position is over [`MAX_POSITION`] bytes: its key fields are too long to page by.
    pub fn encode_after(
        &self,
        tool: &str,
        fingerprint: &str,
        offset: u64,
        position: &[serde_json::Value],
    ) -> Result<String, ToolError> {
        let pos = serde_json::to_vec(position).map_err(ToolError::internal)?;
        if pos.len() > MAX_POSITION {
            return Err(ToolError::internal(format!(
                "{tool}: the sort key of the last item is {} bytes, over the {MAX_POSITION} a cursor carries",
                pos.len()
            )));
        }
        let mut raw = Vec::with_capacity(KEYSET_FIXED + pos.len());
        raw.push(KEYSET_CURSOR_VERSION);
        raw.extend_from_slice(&offset.to_be_bytes());
        raw.extend_from_slice(&tag(tool));
        raw.extend_from_slice(&tag(fingerprint));
        raw.extend_from_slice(&(pos.len() as u16).to_be_bytes());
        raw.extend_from_slice(&pos);
        raw.extend_from_slice(&self.mac(
            KEYSET_CURSOR_VERSION,
            offset,
            &[tool.as_bytes(), fingerprint.as_bytes(), &pos],
        ));
        Ok(URL_SAFE_NO_PAD.encode(raw))
    }

    /// The offset and position a keyset cursor carries, if this key made it for this very
    /// `tool` and query `fingerprint`; every other cursor (an offset cursor included) is
    /// refused as [`CursorKey::decode`] refuses.
    pub fn decode_after(
        &self,
        tool: &str,
        fingerprint: &str,
        cursor: &str,
    ) -> Result<(u64, Vec<serde_json::Value>), ToolError> {
        let raw = raw_of(cursor, KEYSET_CURSOR_VERSION)?;
        if raw.len() < KEYSET_FIXED {
            return Err(malformed());
        }
        let pos_len = usize::from(u16::from_be_bytes([raw[17], raw[18]]));
        if raw.len() != KEYSET_FIXED + pos_len || pos_len > MAX_POSITION {
            return Err(malformed());
        }
        let offset = offset_of(&raw);
        check_tags(&raw, tool, fingerprint)?;
        let pos = &raw[19..19 + pos_len];
        check_mac(
            &self.mac(
                KEYSET_CURSOR_VERSION,
                offset,
                &[tool.as_bytes(), fingerprint.as_bytes(), pos],
            ),
            &raw[19 + pos_len..],
        )?;
        // Signed by this key, so it is the JSON this server wrote.
        let position = serde_json::from_slice(pos).map_err(|_| malformed())?;
        Ok((offset, position))
    }

    /// The MAC of a cursor: HMAC-SHA256 over the version, the offset and each of `parts`
    /// (the tool, the fingerprint and, in a keyset cursor, the position), length-prefixed so
    /// that ("ab", "c") and ("a", "bc") sign differently; truncated to 128 bits.
    fn mac(&self, version: u8, offset: u64, parts: &[&[u8]]) -> [u8; 16] {
        let mut out = [0u8; 16];
        // HMAC takes keys of any length, so this never fails; the fallback keeps it panic-free.
        let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.bytes) else {
            return out;
        };
        mac.update(&[version]);
        mac.update(&offset.to_be_bytes());
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        let full = mac.finalize().into_bytes();
        out.copy_from_slice(&full[..16]);
        out
    }
}

/// The offset both versions carry in bytes 1..9.
fn offset_of(raw: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&raw[1..9]);
    u64::from_be_bytes(bytes)
}

/// Whether the tags of `raw` (bytes 9..17 in both versions) name `tool` and `fingerprint`:
/// they let the refusal say why, before the MAC is checked.
fn check_tags(raw: &[u8], tool: &str, fingerprint: &str) -> Result<(), ToolError> {
    if raw[9..13] != tag(tool) {
        return Err(ToolError::invalid_cursor(
            "other_tool",
            &format!("This cursor was issued by another tool, not {tool}."),
        ));
    }
    if raw[13..17] != tag(fingerprint) {
        return Err(ToolError::invalid_cursor(
            "other_query",
            "This cursor was issued for a different query: the arguments other than \
             `cursor`, `limit` and `response_format` must stay the same between pages.",
        ));
    }
    Ok(())
}

/// A cursor's bytes, if it is base64 of a cursor of `version`.
fn raw_of(cursor: &str, version: u8) -> Result<Vec<u8>, ToolError> {
    // Shorter than the shortest cursor of any version: not one at all.
    let raw = match URL_SAFE_NO_PAD.decode(cursor.trim()) {
        Ok(raw) if raw.len() >= LEN => raw,
        _ => return Err(malformed()),
    };
    if raw[0] != version {
        // Another release, or this tool's paging changed between offset and keyset.
        return Err(ToolError::invalid_cursor(
            "version",
            "This cursor comes from another version of the server.",
        ));
    }
    Ok(raw)
}

fn malformed() -> ToolError {
    ToolError::invalid_cursor("malformed", "This cursor is not one this server issued.")
}

/// Constant-time compare, so the MAC cannot be found byte by byte.
fn check_mac(expected: &[u8; 16], found: &[u8]) -> Result<(), ToolError> {
    let diff = expected
        .iter()
        .zip(found)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 || found.len() != expected.len() {
        return Err(ToolError::invalid_cursor(
            "tampered",
            "This cursor was changed after it was issued or was signed by another server key.",
        ));
    }
    Ok(())
}

fn tag(text: &str) -> [u8; 4] {
    let hash = Sha256::digest(text.as_bytes());
    [hash[0], hash[1], hash[2], hash[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_version_is_refused_even_with_a_valid_mac() {
        let key = CursorKey::from_bytes(b"k");
        let v2 = key.encode_version(2, "t", "fp", 10);
        let err = key.decode("t", "fp", &v2).unwrap_err();
        assert_eq!(err.details["reason"], "version");
        assert_eq!(
            key.decode("t", "fp", &key.encode("t", "fp", 10)).ok(),
            Some(10)
        );
        assert_eq!(key.encode("t", "fp", 10).len(), 44);
    }

    #[test]
    fn keyset_cursors_carry_their_position_and_refuse_every_change() {
        use serde_json::json;
        let key = CursorKey::from_bytes(b"k");
        let pos = [json!("T-1004"), json!(7)];
        let c = key.encode_after("t", "fp", 5, &pos).unwrap();
        assert_eq!(key.decode_after("t", "fp", &c).unwrap(), (5, pos.to_vec()));
        let reason = |r: Result<(u64, Vec<serde_json::Value>), ToolError>| {
            r.unwrap_err().details["reason"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(reason(key.decode_after("u", "fp", &c)), "other_tool");
        assert_eq!(reason(key.decode_after("t", "gp", &c)), "other_query");
        assert_eq!(
            reason(CursorKey::from_bytes(b"j").decode_after("t", "fp", &c)),
            "tampered"
        );
        // Every byte flipped is refused.
        let raw = URL_SAFE_NO_PAD.decode(&c).unwrap();
        for i in 0..raw.len() {
            let mut bad = raw.clone();
            bad[i] ^= 1;
            assert!(
                key.decode_after("t", "fp", &URL_SAFE_NO_PAD.encode(bad))
                    .is_err(),
                "byte {i}"
            );
        }
        // An offset cursor is not a keyset one, and the other way round.
        assert_eq!(
            reason(key.decode_after("t", "fp", &key.encode("t", "fp", 5))),
            "version"
        );
        assert_eq!(
            key.decode("t", "fp", &c).unwrap_err().details["reason"],
            "version"
        );
        // A position too long for a cursor is an error, not a cursor the server refuses later.
        let long = [json!("x".repeat(MAX_POSITION))];
        assert!(key.encode_after("t", "fp", 5, &long).is_err());
        let fits = [json!("x".repeat(MAX_POSITION - 4))];
        assert!(key.encode_after("t", "fp", 5, &fits).unwrap().len() <= 512);
    }
}
