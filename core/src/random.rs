//! Unguessable random bytes from the operating system, for preview ids, incident ids and
//! per-process cursor keys.

/// Fills `buf` from the OS random source.
///
/// Fails only when the OS refuses (practically never on Linux, macOS or Windows); callers turn
/// that into an `internal_error` rather than falling back to a guessable value.
pub(crate) fn fill(buf: &mut [u8]) -> Result<(), std::io::Error> {
    getrandom::fill(buf).map_err(|e| std::io::Error::other(e.to_string()))
}

/// `prefix` followed by `bytes` random bytes in lowercase hex.
pub(crate) fn token(prefix: &str, bytes: usize) -> Result<String, std::io::Error> {
    let mut buf = vec![0u8; bytes];
    fill(&mut buf)?;
    Ok(format!("{prefix}{}", hex(&buf)))
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}
