//! What a resource server reads of an authorization server: its metadata document and its
//! key set, served on loopback, with a count of the key set's fetches; and tokens signed
//! with keys made on the spot. Shared by the authorization tests and the `auth` benchmark.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::sync::Mutex;

/// One signing key of the issuer: its id, the private half, the public JWK.
pub struct SigningKey {
    pub kid: String,
    pub encoding: EncodingKey,
    pub jwk: Value,
}

pub fn signing_key(kid: &str) -> SigningKey {
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    let x = URL_SAFE_NO_PAD.encode(pair.public_key().as_ref());
    SigningKey {
        kid: kid.to_owned(),
        encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "use": "sig", "alg": "EdDSA"}),
    }
}

/// The issuer's published documents, and how often its key set was fetched.
pub struct Issuer {
    pub url: String,
    pub published: Arc<Mutex<Vec<Value>>>,
    pub fetches: Arc<AtomicUsize>,
}

pub async fn issuer() -> Issuer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let published: Arc<Mutex<Vec<Value>>> = Arc::default();
    let fetches = Arc::new(AtomicUsize::new(0));
    let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")});
    let (keys, count) = (published.clone(), fetches.clone());
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || async move { axum::Json(metadata) }),
        )
        .route(
            "/jwks",
            axum::routing::get(move || async move {
                count.fetch_add(1, Ordering::SeqCst);
                axum::Json(json!({"keys": *keys.lock().await}))
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Issuer {
        url,
        published,
        fetches,
    }
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token signed by `key` with `claims` over the good ones.
pub fn token(key: &SigningKey, header: Header, claims: Value) -> String {
    jsonwebtoken::encode(&header, &claims, &key.encoding).unwrap()
}

pub fn at_header(key: &SigningKey) -> Header {
    let mut header = Header::new(Algorithm::EdDSA);
    header.typ = Some("at+jwt".into());
    header.kid = Some(key.kid.clone());
    header
}

pub fn good_claims(issuer: &str, resource: &str, scope: &str) -> Value {
    json!({
        "iss": issuer, "aud": resource, "sub": "alice", "client_id": "cli",
        "scope": scope, "iat": now(), "exp": now() + 600, "jti": "j1"
    })
}
