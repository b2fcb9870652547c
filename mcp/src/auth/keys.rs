//! The issuer's signing keys: found through its metadata (RFC 8414, or OpenID discovery),
//! fetched from its `jwks_uri`, cached, and fetched again when a token names a key the cache
//! does not have (a rotation), at most once per cooldown however many tokens ask.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};

/// The largest metadata or key set document read, in bytes: a key set is a few kilobytes.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// One verification key, with the one algorithm it may be used with (RFC 8725 §3.1).
pub(super) struct Key {
    pub(super) algorithm: Algorithm,
    pub(super) key: DecodingKey,
}

/// What a lookup of a token's key found.
pub(super) enum Lookup {
    Found(Arc<Key>),
    /// The issuer publishes no such key (after a fetch, or within the cooldown of one).
    Unknown,
    /// The issuer's keys could not be fetched at all (nothing cached).
    Unavailable,
}

#[derive(Default)]
struct Cached {
    /// Keys by `kid`; a key published without one is kept under "".
    keys: HashMap<String, Arc<Key>>,
    fetched_at: Option<Instant>,
}

/// The issuer's keys, as last fetched.
pub(super) struct KeySource {
    issuer: String,
    http: reqwest::Client,
    cooldown: Duration,
    max_age: Duration,
    cached: RwLock<Cached>,
    /// Held while fetching, so one fetch runs at a time; records when the last one started.
    fetching: Mutex<Option<Instant>>,
    jwks_uri: Mutex<Option<String>>,
}

impl KeySource {
    pub(super) fn new(issuer: String, cooldown: Duration, max_age: Duration) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .connect_timeout(Duration::from_secs(3))
            // A metadata URL that redirects elsewhere is not the issuer's.
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .build()
            .unwrap_or_default();
        Self {
            issuer,
            http,
            cooldown,
            max_age,
            cached: RwLock::new(Cached::default()),
            fetching: Mutex::new(None),
            jwks_uri: Mutex::new(None),
        }
    }

    /// The key `kid` names (`None`: the token names none, which only a set of one key
    /// answers).
    pub(super) async fn find(&self, kid: Option<&str>) -> Lookup {
        {
            let cached = self.cached.read().await;
            let fresh = cached
                .fetched_at
                .is_some_and(|at| at.elapsed() < self.max_age);
            if let Some(key) = pick(&cached.keys, kid)
                && fresh
            {
                return Lookup::Found(key);
            }
        }
        // Unknown kid, or keys too old: fetch, unless a fetch started within the cooldown.
        let mut fetching = self.fetching.lock().await;
        let recent = fetching.is_some_and(|at| at.elapsed() < self.cooldown);
        if !recent {
            *fetching = Some(Instant::now());
            match self.fetch().await {
                Ok(keys) => {
                    let mut cached = self.cached.write().await;
                    cached.keys = keys;
                    cached.fetched_at = Some(Instant::now());
                }
                Err(why) => {
                    toolspec_core::for_adapters::log_incident(&format!(
                        "fetching the signing keys of {}: {why}",
                        self.issuer
                    ));
                    let cached = self.cached.read().await;
                    if cached.fetched_at.is_none() {
                        return Lookup::Unavailable;
                    }
                }
            }
        }
        drop(fetching);
        let cached = self.cached.read().await;
        match pick(&cached.keys, kid) {
            Some(key) => Lookup::Found(key),
            None if cached.fetched_at.is_none() => Lookup::Unavailable,
            None => Lookup::Unknown,
        }
    }

    /// Fetches the key set (finding `jwks_uri` first, once).
    async fn fetch(&self) -> Result<HashMap<String, Arc<Key>>, String> {
        let uri = {
            let mut known = self.jwks_uri.lock().await;
            match known.as_ref() {
                Some(uri) => uri.clone(),
                None => {
                    let uri = self.discover().await?;
                    *known = Some(uri.clone());
                    uri
                }
            }
        };
        let set = self.get_json(&uri).await?;
        let keys = set
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{uri} is not a JWK set (no `keys` array)"))?;
        Ok(keys
            .iter()
            .filter_map(|k| {
                let jwk: Jwk = serde_json::from_value(k.clone()).ok()?;
                let key = verification_key(&jwk)?;
                Some((jwk.common.key_id.unwrap_or_default(), Arc::new(key)))
            })
            .collect())
    }

    /// The issuer's `jwks_uri`, from the first metadata document found at the places
    /// RFC 8414 §3 and OpenID Discovery §4 give, whose `issuer` is exactly ours.
    async fn discover(&self) -> Result<String, String> {
        let mut tried = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json(&url).await {
                Ok(doc) => {
                    if doc.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                        tried.push(format!("{url}: its `issuer` is not {}", self.issuer));
                        continue;
                    }
                    return doc
                        .get("jwks_uri")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| format!("{url} names no `jwks_uri`"));
                }
                Err(why) => tried.push(why),
            }
        }
        Err(format!(
            "no authorization server metadata for {} ({})",
            self.issuer,
            tried.join("; ")
        ))
    }

    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let mut response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: HTTP {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("{url}: {e}"))? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("{url}: over {MAX_DOCUMENT_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON ({e})"))
    }
}

/// The key `kid` names; without a kid, the only key of a set of one.
fn pick(keys: &HashMap<String, Arc<Key>>, kid: Option<&str>) -> Option<Arc<Key>> {
    match kid {
        Some(kid) => keys.get(kid).cloned(),
        None if keys.len() == 1 => keys.values().next().cloned(),
        None => None,
    }
}

/// The URLs of the issuer's metadata, in the order MCP clients try them: for an issuer with
/// a path `/t1`, `/.well-known/oauth-authorization-server/t1`,
/// `/.well-known/openid-configuration/t1`, `/t1/.well-known/openid-configuration`.
pub(super) fn metadata_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = split_origin(issuer);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// `https://host:port` and the rest (the path, starting with `/`, or empty).
pub(super) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

/// The key `jwk` verifies with and its one algorithm; `None` for a key that is not for
/// signatures, is symmetric (never: an HMAC key made from published material is the key
/// confusion attack), or of a kind this server does not take.
fn verification_key(jwk: &Jwk) -> Option<Key> {
    use jsonwebtoken::jwk::{KeyAlgorithm, PublicKeyUse};
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    let stated = jwk.common.key_algorithm;
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => match stated {
            None | Some(KeyAlgorithm::RS256) => Algorithm::RS256,
            Some(KeyAlgorithm::RS384) => Algorithm::RS384,
            Some(KeyAlgorithm::RS512) => Algorithm::RS512,
            Some(KeyAlgorithm::PS256) => Algorithm::PS256,
            Some(KeyAlgorithm::PS384) => Algorithm::PS384,
            Some(KeyAlgorithm::PS512) => Algorithm::PS512,
            Some(_) => return None,
        },
        AlgorithmParameters::EllipticCurve(ec) => match (&ec.curve, stated) {
            (EllipticCurve::P256, None | Some(KeyAlgorithm::ES256)) => Algorithm::ES256,
            (EllipticCurve::P384, None | Some(KeyAlgorithm::ES384)) => Algorithm::ES384,
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(okp) => match (&okp.curve, stated) {
            (EllipticCurve::Ed25519, None | Some(KeyAlgorithm::EdDSA)) => Algorithm::EdDSA,
            _ => return None,
        },
        // Symmetric keys, and kinds this server does not know.
        _ => return None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key { algorithm, key })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_up_where_clients_look() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("http://127.0.0.1:9000/t1"),
            [
                "http://127.0.0.1:9000/.well-known/oauth-authorization-server/t1",
                "http://127.0.0.1:9000/.well-known/openid-configuration/t1",
                "http://127.0.0.1:9000/t1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn symmetric_and_encryption_keys_never_verify() {
        let oct: Jwk = serde_json::from_value(serde_json::json!(
            {"kty": "oct", "k": "c2VjcmV0", "kid": "h"}
        ))
        .unwrap();
        assert!(verification_key(&oct).is_none());
        let rsa = serde_json::json!({
            "kty": "RSA", "kid": "r", "use": "enc", "e": "AQAB",
            "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw"
        });
        let rsa: Jwk = serde_json::from_value(rsa).unwrap();
        assert!(verification_key(&rsa).is_none());
    }
}
