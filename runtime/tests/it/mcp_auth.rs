//! Authorization over HTTP, at the protocol's level: challenges, metadata, hostile tokens,
//! scopes, and the issuer's key set fetched as rarely as it may be.
//!
//! The issuer here is only what the resource server reads of one: its metadata document and
//! its key set, served on loopback, with a count of the key set's fetches. Tokens are signed
//! with Ed25519 keys made for the test. (The end-to-end tests in `tests/e2e` put a real
//! authorization server, panva's oidc-provider, in front of the tickets server.)

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use toolspec_runtime::mcp::auth::Authorization;
use toolspec_runtime::mcp::{Access, HttpGuard, HttpServer, McpServer};

use crate::issuer::*;
use crate::mcp_common::Notes;

/// The served notes toolset behind `issuer`, with a short cooldown so a test can wait it out.
async fn protected(issuer: &Issuer) -> (HttpServer, String) {
    let server = McpServer::new(Arc::new(Notes), "notes", "1")
        .unwrap()
        .with_call_logger(None);
    // The port is known only once bound: bind a probe first, then the server on it.
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let resource = format!("http://{addr}/mcp");
    let auth = Authorization::new(issuer.url.as_str(), resource.as_str())
        .unwrap()
        .with_refetch_cooldown(Duration::from_millis(300));
    let guard = HttpGuard {
        access: Access::Bearer(auth),
        ..HttpGuard::default()
    };
    let http = HttpServer::bind_guarded(server, addr, Default::default(), guard)
        .await
        .unwrap();
    (http, resource)
}

struct Answer {
    status: u16,
    challenge: String,
    body: String,
}

async fn post(url: &str, bearer: Option<&str>, body: &Value) -> Answer {
    let client = reqwest::Client::new();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(token) = bearer {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    answer(request.send().await.unwrap()).await
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    Answer {
        status,
        challenge,
        body: response.text().await.unwrap(),
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
}

#[tokio::test]
async fn a_request_without_a_token_is_challenged_and_the_metadata_says_where_to_get_one() {
    let issuer = issuer().await;
    issuer.published.lock().await.push(signing_key("k1").jwk);
    let (http, resource) = protected(&issuer).await;
    let refused = post(&http.url(), None, &initialize()).await;
    assert_eq!(refused.status, 401, "{}", refused.body);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        http.local_addr()
    );
    assert!(
        refused
            .challenge
            .contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{}",
        refused.challenge
    );
    assert!(
        !refused.challenge.contains("error="),
        "{}",
        refused.challenge
    );
    for url in [
        metadata_url.clone(),
        format!(
            "http://{}/.well-known/oauth-protected-resource",
            http.local_addr()
        ),
    ] {
        let doc: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
        assert_eq!(doc["resource"], resource.as_str());
        assert_eq!(doc["authorization_servers"], json!([issuer.url]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert!(doc["scopes_supported"].is_array(), "{doc}");
    }
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn hostile_tokens_are_refused_without_being_repeated() {
    let issuer = issuer().await;
    let key = signing_key("k1");
    issuer.published.lock().await.push(key.jwk.clone());
    let (http, resource) = protected(&issuer).await;
    let good = good_claims(&issuer.url, &resource, "notes:read notes:write");
    let with = |changes: Value| {
        let mut claims = good.clone();
        for (k, v) in changes.as_object().unwrap() {
            if v.is_null() {
                claims.as_object_mut().unwrap().remove(k);
            } else {
                claims[k] = v.clone();
            }
        }
        claims
    };
    let stranger = signing_key("k1");
    let mut untyped = at_header(&key);
    untyped.typ = Some("JWT".into());
    let mut pointing = at_header(&key);
    pointing.jku = Some(format!("{}/jwks", issuer.url));
    let mut path_kid = at_header(&key);
    path_kid.kid = Some("../../jwks".into());
    let none_alg = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"at+jwt","kid":"k1"}"#),
        URL_SAFE_NO_PAD.encode(good.to_string())
    );
    let hmac_with_public = {
        let mut header = Header::new(Algorithm::HS256);
        header.typ = Some("at+jwt".into());
        header.kid = Some("k1".into());
        let public = key.jwk["x"].as_str().unwrap().to_owned();
        jsonwebtoken::encode(
            &header,
            &good,
            &EncodingKey::from_secret(public.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    let huge = token(
        &key,
        at_header(&key),
        with(json!({"pad": "x".repeat(65_536)})),
    );
    let cases = [
        ("garbage", "not-a-token".to_owned()),
        ("alg none", none_alg),
        ("HS256 with the public key", hmac_with_public),
        (
            "another key",
            token(&stranger, at_header(&stranger), good.clone()),
        ),
        ("typ JWT", token(&key, untyped, good.clone())),
        ("jku header", token(&key, pointing, good.clone())),
        ("a path for a kid", token(&key, path_kid, good.clone())),
        (
            "wrong iss",
            token(
                &key,
                at_header(&key),
                with(json!({"iss": "http://127.0.0.1:1"})),
            ),
        ),
        (
            "wrong aud",
            token(
                &key,
                at_header(&key),
                with(json!({"aud": "http://other/mcp"})),
            ),
        ),
        (
            "expired",
            token(&key, at_header(&key), with(json!({"exp": now() - 3600}))),
        ),
        (
            "not yet valid",
            token(&key, at_header(&key), with(json!({"nbf": now() + 3600}))),
        ),
        (
            "no exp",
            token(&key, at_header(&key), with(json!({"exp": null}))),
        ),
        (
            "no aud",
            token(&key, at_header(&key), with(json!({"aud": null}))),
        ),
        ("64 KiB", huge),
    ];
    for (what, bad) in &cases {
        let refused = post(&http.url(), Some(bad), &initialize()).await;
        assert_eq!(refused.status, 401, "{what}: {}", refused.body);
        assert!(
            refused.challenge.contains("error=\"invalid_token\""),
            "{what}: {}",
            refused.challenge
        );
        let signature = bad.rsplit('.').next().unwrap_or(bad);
        for said in [&refused.challenge, &refused.body] {
            assert!(
                signature.len() < 8 || !said.contains(signature),
                "{what}: the refusal repeats the token: {said}"
            );
        }
    }
    // Another scheme, and a token in the URL.
    let basic = reqwest::Client::new()
        .post(http.url())
        .header("authorization", "Basic YTpi")
        .header("content-type", "application/json")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer(basic).await.status, 401);
    let good_token = token(&key, at_header(&key), good.clone());
    // RFC 6750's `access_token`, and the `token` some clients use.
    for param in ["access_token", "token"] {
        let in_query = reqwest::Client::new()
            .post(format!("{}?{param}={good_token}", http.url()))
            .header("content-type", "application/json")
            .body(initialize().to_string())
            .send()
            .await
            .unwrap();
        let in_query = answer(in_query).await;
        assert_eq!(in_query.status, 401, "{param}");
        assert!(in_query.challenge.contains("invalid_token"), "{param}");
    }
    // And the server still serves a good token.
    let served = post(&http.url(), Some(&good_token), &initialize()).await;
    assert_eq!(served.status, 200, "{}", served.body);
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_caller_sees_and_calls_only_what_its_scopes_allow() {
    let issuer = issuer().await;
    let key = signing_key("k1");
    issuer.published.lock().await.push(key.jwk.clone());
    let (http, resource) = protected(&issuer).await;
    let reader = token(
        &key,
        at_header(&key),
        good_claims(&issuer.url, &resource, "notes:read"),
    );
    // The stateless protocol: every request stands alone, with its token.
    let call = |name: &str| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": name, "arguments": {"note_id": "N-1"}}})
    };
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let url = http.url();
    let init = reqwest::Client::new()
        .post(&url)
        .header("authorization", format!("Bearer {reader}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    let session = init
        .headers()
        .get("mcp-session-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let in_session = |body: Value, bearer: Option<String>| {
        let (url, session) = (url.clone(), session.clone());
        async move {
            let mut request = reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25")
                .body(body.to_string());
            if let Some(token) = bearer {
                request = request.header("authorization", format!("Bearer {token}"));
            }
            answer(request.send().await.unwrap()).await
        }
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        in_session(initialized, Some(reader.clone())).await.status,
        202
    );
    let listed = in_session(list.clone(), Some(reader.clone())).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(listed.body.contains("\"notes_get\""), "{}", listed.body);
    assert!(!listed.body.contains("notes_delete"), "{}", listed.body);
    assert!(
        listed.body.contains("private"),
        "a per-caller list: {}",
        listed.body
    );

    let read = in_session(call("notes_get"), Some(reader.clone())).await;
    assert_eq!(read.status, 200, "{}", read.body);
    for write in ["notes_delete"] {
        let refused = in_session(call(write), Some(reader.clone())).await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(
            refused.challenge.contains("error=\"insufficient_scope\"")
                && refused.challenge.contains("scope=\"notes:write\""),
            "{}",
            refused.challenge
        );
    }
    // A later request of the session without its token is challenged again.
    let without = in_session(call("notes_get"), None).await;
    assert_eq!(without.status, 401);
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn unknown_key_ids_cost_one_fetch_per_cooldown_and_a_rotation_is_followed() {
    let issuer = issuer().await;
    let old = signing_key("old");
    issuer.published.lock().await.push(old.jwk.clone());
    let (http, resource) = protected(&issuer).await;
    let claims = good_claims(&issuer.url, &resource, "notes:read");
    let first = post(
        &http.url(),
        Some(&token(&old, at_header(&old), claims.clone())),
        &initialize(),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let before = issuer.fetches.load(Ordering::SeqCst);
    // Forty tokens naming keys that do not exist, at once.
    let mut all = tokio::task::JoinSet::new();
    for i in 0..40 {
        let stranger = signing_key(&format!("made-up-{i}"));
        let bad = token(&stranger, at_header(&stranger), claims.clone());
        let url = http.url();
        all.spawn(async move { post(&url, Some(&bad), &initialize()).await.status });
    }
    for status in all.join_all().await {
        assert_eq!(status, 401);
    }
    let during = issuer.fetches.load(Ordering::SeqCst) - before;
    assert!(during <= 1, "{during} fetches for 40 unknown key ids");

    // The issuer rotates: a new key signs, the old one is still published.
    let new = signing_key("new");
    issuer.published.lock().await.insert(0, new.jwk.clone());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let rotated = post(
        &http.url(),
        Some(&token(&new, at_header(&new), claims.clone())),
        &initialize(),
    )
    .await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let still = post(
        &http.url(),
        Some(&token(&old, at_header(&old), claims)),
        &initialize(),
    )
    .await;
    assert_eq!(still.status, 200, "{}", still.body);
    http.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_server_without_authorization_serves_only_loopback_unless_told() {
    let server = || {
        McpServer::new(Arc::new(Notes), "notes", "1")
            .unwrap()
            .with_call_logger(None)
    };
    let refused = HttpServer::bind_guarded(
        server(),
        "0.0.0.0:0",
        Default::default(),
        HttpGuard::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(
        refused.to_string().contains("without authorization"),
        "{refused}"
    );
    let open = HttpGuard {
        access: Access::Open,
        ..HttpGuard::default()
    };
    let http = HttpServer::bind_guarded(server(), "0.0.0.0:0", Default::default(), open)
        .await
        .unwrap();
    http.shutdown().await.unwrap();
    let local = HttpServer::bind(server(), "127.0.0.1:0").await.unwrap();
    local.shutdown().await.unwrap();
}
