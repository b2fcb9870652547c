//! Opaque, versioned, tamper-evident page cursors.
//!
//! A cursor carries the offset of the next page and is bound to the tool and to the query
//! that made it (its [`crate::fingerprint`]), under an HMAC-SHA256 with the server's
//! [`CursorKey`]. The agent cannot read, edit or forge it, and a cursor from one query
//! cannot be replayed against another: both are refused with `invalid_cursor`, saying to
//! drop `cursor` or pass the exact `next_cursor` of the previous page.
//!
//! Layout (33 bytes, URL-safe base64 without padding, 44 characters):
//! `version (1) | offset (8, big endian) | tool tag (4) | query tag (4) | MAC (16)`.
//! The tags are the first bytes of SHA-256 of the tool name and of the fingerprint; they only
//! let the error say *why* a cursor is refused. The MAC, truncated to 128 bits, covers the
//! version, the offset, the full tool name and the full fingerprint.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::error::ToolError;

/// The cursor format version this runtime writes and accepts.
pub const CURSOR_VERSION: u8 = 1;

const LEN: usize = 1 + 8 + 4 + 4 + 16;

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
        let mac = self.mac(version, tool, fingerprint, offset);
        raw.extend_from_slice(&mac);
        URL_SAFE_NO_PAD.encode(raw)
    }

    /// The offset a cursor points at, if it was made by this key for this very `tool` and
    /// query `fingerprint` in this cursor version. Every other cursor is an
    /// `invalid_cursor` error whose `details.reason` is `malformed`, `version`,
    /// `other_tool`, `other_query` or `tampered`.
    pub fn decode(&self, tool: &str, fingerprint: &str, cursor: &str) -> Result<u64, ToolError> {
        let raw = match URL_SAFE_NO_PAD.decode(cursor.trim()) {
            Ok(raw) if raw.len() == LEN => raw,
            _ => {
                return Err(ToolError::invalid_cursor(
                    "malformed",
                    "This cursor is not one this server issued.",
                ));
            }
        };
        if raw[0] != CURSOR_VERSION {
            return Err(ToolError::invalid_cursor(
                "version",
                "This cursor comes from another version of the server.",
            ));
        }
        let mut offset_bytes = [0u8; 8];
        offset_bytes.copy_from_slice(&raw[1..9]);
        let offset = u64::from_be_bytes(offset_bytes);
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
        let expected = self.mac(raw[0], tool, fingerprint, offset);
        // Constant-time compare, so the MAC cannot be found byte by byte.
        let diff = expected
            .iter()
            .zip(&raw[17..])
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if diff != 0 {
            return Err(ToolError::invalid_cursor(
                "tampered",
                "This cursor was changed after it was issued or was signed by another server key.",
            ));
        }
        Ok(offset)
    }

    fn mac(&self, version: u8, tool: &str, fingerprint: &str, offset: u64) -> [u8; 16] {
        let mut out = [0u8; 16];
        // HMAC takes keys of any length, so this never fails; the fallback keeps it panic-free.
        let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.bytes) else {
            return out;
        };
        mac.update(&[version]);
        mac.update(&offset.to_be_bytes());
        // Length-prefixed so ("ab","c") and ("a","bc") sign differently.
        for part in [tool, fingerprint] {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part.as_bytes());
        }
        let full = mac.finalize().into_bytes();
        out.copy_from_slice(&full[..16]);
        out
    }
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
}
