//! Validating one JWT access token (RFC 9068 §4, with RFC 8725's pitfalls closed).

use jsonwebtoken::{Validation, decode, decode_header};
use serde::Deserialize;
use serde_json::Value;

use super::keys::{KeySource, Lookup};
use toolspec_core::caller::Caller;

/// The largest token read, in bytes: real access tokens are one or two kilobytes; anything
/// much larger is refused before any decoding (base64 and JSON of attacker input are work).
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The longest subject or client id taken: they are kept in records and logs.
const MAX_ID_CHARS: usize = 255;

/// Why a token was refused. The words are for the client (`error_description`); none of
/// them repeats anything of the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The token is not valid for this server: 401 `invalid_token`.
    Invalid(&'static str),
    /// The issuer's keys could not be fetched: 503, the token may well be good.
    KeysUnavailable,
}

/// What the server checks a token against.
pub(super) struct Expect<'a> {
    pub(super) issuer: &'a str,
    pub(super) audience: &'a str,
    pub(super) leeway_s: u64,
}

#[derive(Deserialize)]
struct Claims {
    exp: u64,
    sub: Option<String>,
    client_id: Option<String>,
    scope: Option<Value>,
    scp: Option<Value>,
}

/// The caller `token` names, if it is a JWT access token from the issuer for this server,
/// and when it expires (`exp`, Unix seconds).
pub(super) async fn validate(
    token: &str,
    expect: &Expect<'_>,
    keys: &KeySource,
) -> Result<(Caller, u64), Refusal> {
    use Refusal::Invalid;
    if token.len() > MAX_TOKEN_BYTES {
        return Err(Invalid("the access token is too large"));
    }
    if token.bytes().filter(|b| *b == b'.').count() != 2 {
        return Err(Invalid("the access token is not a signed JWT"));
    }
    let header =
        decode_header(token).map_err(|_| Invalid("the access token's header is not valid"))?;
    // Keys the token itself points at are the attacker's choice: never fetched, never used.
    if header.jku.is_some()
        || header.jwk.is_some()
        || header.x5u.is_some()
        || header.x5c.is_some()
        || header.crit.is_some()
    {
        return Err(Invalid(
            "the access token's header names its own key or critical extensions",
        ));
    }
    // RFC 9068 §2.1: explicit typing, so an ID token or another JWT cannot pass as access.
    match header
        .typ
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("at+jwt" | "application/at+jwt") => {}
        _ => return Err(Invalid("the token is not a JWT access token (typ at+jwt)")),
    }
    let kid = header.kid.as_deref();
    if kid.is_some_and(|kid| !plain_key_id(kid)) {
        return Err(Invalid("the access token's key id is not a plain key id"));
    }
    let key = match keys.find(kid).await {
        Lookup::Found(key) => key,
        Lookup::Unknown => {
            return Err(Invalid(
                "the access token is not signed by a key of the issuer",
            ));
        }
        Lookup::Unavailable => return Err(Refusal::KeysUnavailable),
    };
    // The key decides the algorithm; a token claiming another one is refused.
    if header.alg != key.algorithm {
        return Err(Invalid(
            "the access token is not signed with its key's algorithm",
        ));
    }
    let mut validation = Validation::new(key.algorithm);
    validation.leeway = expect.leeway_s;
    validation.validate_nbf = true;
    validation.set_issuer(&[expect.issuer]);
    validation.set_audience(&[expect.audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let data = decode::<Claims>(token, &key.key, &validation).map_err(|e| {
        use jsonwebtoken::errors::ErrorKind;
        Invalid(match e.kind() {
            ErrorKind::ExpiredSignature => "the access token has expired",
            ErrorKind::ImmatureSignature => "the access token is not valid yet",
            ErrorKind::InvalidIssuer => "the access token is from another issuer",
            ErrorKind::InvalidAudience => "the access token was not issued for this server",
            ErrorKind::MissingRequiredClaim(_) => {
                "the access token lacks a required claim (exp, iss, aud, sub)"
            }
            ErrorKind::InvalidSignature => "the access token's signature does not verify",
            _ => "the access token is not valid",
        })
    })?;
    let claims = data.claims;
    let subject = claims
        .sub
        .filter(|s| !s.is_empty() && s.chars().count() <= MAX_ID_CHARS)
        .ok_or(Invalid("the access token's subject is empty or too long"))?;
    let mut caller = Caller::new(expect.issuer, subject)
        .with_scopes(scopes(claims.scope.as_ref().or(claims.scp.as_ref())));
    if let Some(client) = claims
        .client_id
        .filter(|c| !c.is_empty() && c.chars().count() <= MAX_ID_CHARS)
    {
        caller = caller.with_client_id(client);
    }
    Ok((caller, claims.exp))
}

/// The scopes of a `scope` claim (space-separated, RFC 9068 §2.2.3) or an `scp` array.
fn scopes(claim: Option<&Value>) -> Vec<String> {
    match claim {
        Some(Value::String(s)) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// A key id fit to look up: short, of URL-safe characters (never a path or a query).
fn plain_key_id(kid: &str) -> bool {
    (1..=128).contains(&kid.len())
        && kid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'=' | b'+'))
        && !kid.contains("..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ids_are_plain() {
        assert!(plain_key_id("r1"));
        assert!(plain_key_id("kQ9-x_Yz.2"));
        assert!(!plain_key_id(""));
        assert!(!plain_key_id("../../etc/passwd"));
        assert!(!plain_key_id("/etc/passwd"));
        assert!(!plain_key_id("a b"));
        assert!(!plain_key_id("k?x=1"));
        assert!(!plain_key_id(&"k".repeat(129)));
    }

    #[test]
    fn scopes_come_from_either_claim() {
        let s = serde_json::json!("tickets:read  tickets:write");
        assert_eq!(scopes(Some(&s)), ["tickets:read", "tickets:write"]);
        let a = serde_json::json!(["a", 1, "b"]);
        assert_eq!(scopes(Some(&a)), ["a", "b"]);
        assert!(scopes(None).is_empty());
    }
}
