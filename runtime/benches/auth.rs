//! What authorization costs per call: one `tools/call` of a read tool over streamable HTTP on
//! loopback (a kept-alive connection, one session), without authorization (the baseline) and
//! with a Bearer access token validated on every request (an EdDSA and an ES256 key).
//! Medians of many calls, measured in one run, printed as ratios against the baseline:
//!
//! ```text
//! cargo bench -p toolspec-runtime --features auth --bench auth
//! ```

#[path = "../tests/it/issuer.rs"]
mod issuer;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::*;
use toolspec_runtime::mcp::auth::Authorization;
use toolspec_runtime::mcp::{Access, HttpGuard, HttpServer, McpServer};
use toolspec_runtime::validate::{Field, ObjectShape, Shape, StringShape};

const CALLS: usize = 2_000;

static INPUT: ObjectShape = ObjectShape::new(&[Field::required(
    "id",
    Shape::String(StringShape::new().length(Some(1), Some(20))),
)]);

static DEFS: [ToolDefinition; 1] = [ToolDefinition {
    name: "bench_get",
    title: "Get",
    description: "Returns one record.",
    input_schema: r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#,
    output_schema: r#"{"type":"object"}"#,
    listed_output_schema: r#"{"type":"object"}"#,
    annotations: Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
    deprecated_aliases: &[],
    scopes: &["bench:read"],
    input: &INPUT,
    example_call: r#"{"id":"a"}"#,
    group: None,
}];

/// A read whose method does a little real work: it validates and answers a small record.
struct Bench;

impl Toolset for Bench {
    fn definitions(&self) -> &'static [ToolDefinition] {
        &DEFS
    }

    fn call<'a>(
        &'a self,
        _name: &'a str,
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
        Box::pin(async move {
            let args = DEFS[0].prepare(arguments)?;
            Ok(CallOutput::new(
                json!({"id": args["id"], "title": "a record"}),
            ))
        })
    }
}

async fn serve(access: Access) -> HttpServer {
    let server = McpServer::new(Arc::new(Bench), "bench", "1")
        .unwrap()
        .with_call_logger(None);
    let guard = HttpGuard {
        access,
        ..HttpGuard::default()
    };
    let addr = format!(
        "127.0.0.1:{}",
        PORT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    HttpServer::bind_guarded(server, addr, Default::default(), guard)
        .await
        .expect("bind")
}

/// Ports for the servers, known before they start (the audience names one).
static PORT: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(38_471);

/// The median time of one `tools/call` on `http`'s session, with `token` if any.
async fn median_call(http: &HttpServer, token: Option<&str>) -> Duration {
    let client = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut request = client
            .post(http.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}}),
        None,
    )
    .await
    .expect("initialize");
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    init.text().await.unwrap();
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(session.clone()),
    )
    .await
    .unwrap();
    let call = |i: usize| {
        json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
               "params": {"name": "bench_get", "arguments": {"id": "a"}}})
    };
    for i in 0..CALLS / 10 {
        let answer = post(call(i), Some(session.clone())).await.unwrap();
        assert_eq!(answer.status(), 200);
        answer.text().await.unwrap();
    }
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let start = Instant::now();
        let answer = post(call(i), Some(session.clone())).await.unwrap();
        let text = answer.text().await.unwrap();
        times.push(start.elapsed());
        std::hint::black_box(text);
    }
    times.sort();
    times[CALLS / 2]
}

fn es256_key(kid: &str) -> issuer::SigningKey {
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
    // An uncompressed point: 0x04, then x and y.
    let point = pair.public_key().as_ref();
    issuer::SigningKey {
        kid: kid.to_owned(),
        encoding: jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
                    "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                    "y": URL_SAFE_NO_PAD.encode(&point[33..65])}),
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let issuer = issuer::issuer().await;
        let ed = issuer::signing_key("ed");
        let es = es256_key("es");
        issuer
            .published
            .lock()
            .await
            .extend([ed.jwk.clone(), es.jwk.clone()]);

        let open = serve(Access::Local).await;
        let baseline = median_call(&open, None).await;
        open.shutdown().await.unwrap();

        let mut rows = Vec::new();
        for (name, key, alg) in [
            ("EdDSA", &ed, jsonwebtoken::Algorithm::EdDSA),
            ("ES256", &es, jsonwebtoken::Algorithm::ES256),
        ] {
            let port = PORT.load(std::sync::atomic::Ordering::SeqCst);
            let resource = format!("http://127.0.0.1:{port}/mcp");
            let auth = Authorization::new(issuer.url.as_str(), resource.as_str()).unwrap();
            let http = serve(Access::Bearer(auth)).await;
            let mut header = issuer::at_header(key);
            header.alg = alg;
            let token = issuer::token(
                key,
                header,
                issuer::good_claims(&issuer.url, &resource, "bench:read"),
            );
            rows.push((name, median_call(&http, Some(&token)).await));
            http.shutdown().await.unwrap();
        }
        println!("median of {CALLS} tools/call requests each, over HTTP on loopback");
        println!("{:<28} {:>10} {:>7}", "", "median", "ratio");
        println!(
            "{:<28} {:>8.1}µs {:>6.2}x",
            "no authorization",
            micros(baseline),
            1.0
        );
        for (name, time) in rows {
            println!(
                "{:<28} {:>8.1}µs {:>6.2}x",
                format!("Bearer token, {name}"),
                micros(time),
                time.as_secs_f64() / baseline.as_secs_f64()
            );
        }
    });
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
