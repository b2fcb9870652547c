//! The MCP adapter over streamable HTTP on a real socket (127.0.0.1, a free port), driven by
//! rmcp's streamable HTTP client: the same tools and results as over stdio, at `/mcp`.
#![cfg(feature = "mcp")]

use crate::mcp_common;

use std::sync::{Arc, Mutex};

use mcp_common::{server, within};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use toolspec_runtime::mcp::{HTTP_PATH, HttpServer};

#[tokio::test]
async fn list_and_call_over_streamable_http_then_shut_down() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    assert_ne!(addr.port(), 0, "port 0 is replaced by the bound port");
    assert_eq!(http.url(), format!("http://{addr}{HTTP_PATH}"));
    assert_eq!(HTTP_PATH, "/mcp");

    let client = within(().serve(StreamableHttpClientTransport::from_uri(http.url())))
        .await
        .expect("initialize over HTTP");
    let identity = client.peer_info().unwrap().server_info.clone().unwrap();
    assert_eq!(identity.name, "notes-test");

    let tools = within(client.list_tools(None)).await.unwrap().tools;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["notes_get", "notes_delete"]);

    let args = json!({"note_id": "N-3"});
    let params = CallToolRequestParams::new("notes_fetch")
        .with_arguments(args.as_object().cloned().unwrap());
    let result = within(client.call_tool(params)).await.unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"note_id": "N-3", "text": "text of N-3"}))
    );
    assert_eq!(result.content.len(), 2, "result JSON, then the alias note");

    let params = CallToolRequestParams::new("notes_delete")
        .with_arguments(args.as_object().cloned().unwrap());
    let failed = within(client.call_tool(params)).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(failed.structured_content.unwrap()["code"], "locked");

    let unknown = within(client.call_tool(CallToolRequestParams::new("notes_burn"))).await;
    let Err(ServiceError::McpError(error)) = unknown else {
        panic!("expected a JSON-RPC error, got {unknown:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);

    assert_eq!(log.lock().unwrap().len(), 3, "one log line per call");
    let _ = within(client.cancel()).await;
    within(http.shutdown()).await.expect("a clean shutdown");
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "nothing listens after shutdown"
    );
}

/// A server whose guard gives clients 300 ms for headers and for the body.
async fn impatient() -> HttpServer {
    let log = Arc::new(Mutex::new(Vec::new()));
    let guard = toolspec_runtime::mcp::HttpGuard {
        header_read_timeout: std::time::Duration::from_millis(300),
        body_read_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    HttpServer::bind_guarded(server(&log), "127.0.0.1:0", Default::default(), guard)
        .await
        .unwrap()
}

/// Everything the server sends on `stream` until it closes the connection.
async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    within(stream.read_to_end(&mut got))
        .await
        .expect("the server closes the connection");
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test]
async fn a_client_slow_to_send_its_headers_is_disconnected() {
    use tokio::io::AsyncWriteExt;
    let http = impatient().await;
    let mut slow = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    // The headers never end: the server gives up on the connection.
    let answer = until_closed(&mut slow).await;
    assert!(answer.is_empty() || answer.contains(" 408 "), "{answer}");
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn a_client_slow_to_send_its_body_gets_408() {
    use tokio::io::AsyncWriteExt;
    let http = impatient().await;
    let mut slow = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    slow.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
    )
    .await
    .unwrap();
    let answer = until_closed(&mut slow).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 0.3 s"), "{answer}");
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn a_request_nested_too_deep_is_refused_before_it_is_parsed() {
    use tokio::io::AsyncWriteExt;
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"notes_get","arguments":{{"x":{}{}}}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(http.local_addr())
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("at most 64 levels"), "{answer}");
    assert!(log.lock().unwrap().is_empty(), "no tool ran");
    within(http.shutdown()).await.expect("a clean shutdown");
}

/// Sends one raw HTTP/1.1 POST to `/mcp` with `headers` and `body` (connection closed after)
/// and returns everything the server answered.
async fn post(addr: std::net::SocketAddr, headers: &[(&str, &str)], body: &str) -> String {
    use tokio::io::AsyncWriteExt;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    until_closed(&mut stream).await
}

/// Opens a 2025-11-25 session with raw requests and returns its id.
async fn raw_session(addr: std::net::SocketAddr) -> String {
    let init = post(
        addr,
        &[],
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
    )
    .await;
    let session = init
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("no session id in {init}"));
    let session = session.trim().to_owned();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let ready = post(
        addr,
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert!(ready.starts_with("HTTP/1.1 202"), "{ready}");
    session
}

fn get_call(id: u32, note_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"notes_get","arguments":{{"note_id":"{note_id}"}}}}}}"#
    )
}

/// `calls` concurrent `notes_get` calls of `note_id` through one rmcp client (one session),
/// each answered with its note.
async fn concurrent_calls(http: &HttpServer, note_id: &str, calls: usize) {
    let client = within(().serve(StreamableHttpClientTransport::from_uri(http.url())))
        .await
        .expect("initialize over HTTP");
    let args = json!({ "note_id": note_id });
    let mut all = tokio::task::JoinSet::new();
    for _ in 0..calls {
        let (peer, args) = (client.peer().clone(), args.as_object().cloned().unwrap());
        all.spawn(async move {
            peer.call_tool(CallToolRequestParams::new("notes_get").with_arguments(args))
                .await
        });
    }
    for result in within(all.join_all()).await {
        assert_eq!(
            result.unwrap().structured_content.unwrap()["note_id"],
            note_id
        );
    }
    let _ = within(client.cancel()).await;
}

#[tokio::test]
async fn calls_of_one_session_run_concurrently() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    // Each call waits until six are in flight: all six run at once.
    concurrent_calls(&http, "hold-all-6", 6).await;
    assert_eq!(mcp_common::most_held("all"), 6);
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn a_session_runs_at_most_its_bound_of_calls_at_once() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let guard = toolspec_runtime::mcp::HttpGuard {
        max_calls_per_session: 2,
        ..Default::default()
    };
    let http = HttpServer::bind_guarded(server(&log), "127.0.0.1:0", Default::default(), guard)
        .await
        .unwrap();
    // Each call waits for a second one; the other four wait for a place, and every call is
    // answered.
    concurrent_calls(&http, "hold-two-2", 6).await;
    assert_eq!(mcp_common::most_held("two"), 2);
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn a_request_id_in_use_in_the_session_is_refused_and_the_first_call_is_answered() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    let session = raw_session(addr).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // The first call of id 7 waits for a second call of its tag.
    let first = tokio::spawn({
        let headers = headers.map(|(k, v)| (k, v.to_owned()));
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            post(addr, &headers, &get_call(7, "hold-dup-2")).await
        }
    });
    while mcp_common::most_held("dup") == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let again = within(post(addr, &headers, &get_call(7, "N-1"))).await;
    assert!(again.starts_with("HTTP/1.1 400"), "{again}");
    assert!(again.contains("Request id 7 is already used"), "{again}");
    let second = within(post(addr, &headers, &get_call(8, "hold-dup-2"))).await;
    assert!(
        second.contains(r#""id":8"#) && second.contains("text of hold-dup-2"),
        "{second}"
    );
    let first = within(first).await.unwrap();
    assert!(
        first.contains(r#""id":7"#) && first.contains("text of hold-dup-2"),
        "{first}"
    );
    // Once answered, the id is free again.
    let reused = within(post(addr, &headers, &get_call(7, "N-1"))).await;
    assert!(reused.contains("text of N-1"), "{reused}");
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn large_requests_wait_for_a_place_and_small_ones_do_not() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let guard = toolspec_runtime::mcp::HttpGuard {
        large_body_bytes: 256,
        large_bodies_at_once: 1,
        ..Default::default()
    };
    let http = HttpServer::bind_guarded(server(&log), "127.0.0.1:0", Default::default(), guard)
        .await
        .unwrap();
    let addr = http.local_addr();
    let session = raw_session(addr).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // Padding makes these calls large; each stays in flight for 300 ms.
    let padded = |id: u32| {
        get_call(id, "hold-big-0").replace(
            r#""method""#,
            &format!(r#""pad":"{}","method""#, "x".repeat(400)),
        )
    };
    let large: Vec<_> = (1..=2)
        .map(|id| {
            let (headers, body) = (headers.map(|(k, v)| (k, v.to_owned())), padded(id));
            tokio::spawn(async move {
                let headers: Vec<(&str, &str)> =
                    headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                post(addr, &headers, &body).await
            })
        })
        .collect();
    while mcp_common::most_held("big") == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // A small call goes through while a large one holds the only place.
    let small = within(post(addr, &headers, &get_call(9, "N-2"))).await;
    assert!(small.contains("text of N-2"), "{small}");
    for answer in large {
        let answer = within(answer).await.unwrap();
        assert!(answer.contains("text of hold-big-0"), "{answer}");
    }
    assert_eq!(
        mcp_common::most_held("big"),
        1,
        "large requests ran one at a time"
    );
    within(http.shutdown()).await.expect("a clean shutdown");
}

/// Ending a session (a DELETE with its id) answers 204: the session is closed when the
/// answer is sent, and the official Python client takes 202 for a failure.
#[tokio::test]
async fn ending_a_session_answers_204_and_the_session_is_gone() {
    use tokio::io::AsyncWriteExt;
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    let session = raw_session(addr).await;
    let request = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nmcp-session-id: {session}\r\n\
         mcp-protocol-version: 2025-11-25\r\nConnection: close\r\n\r\n"
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let closed = within(until_closed(&mut stream)).await;
    assert!(closed.starts_with("HTTP/1.1 204"), "{closed}");
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let after = within(post(addr, &headers, &get_call(9, "N-1"))).await;
    assert!(
        after.starts_with("HTTP/1.1 404"),
        "the ended session takes no call: {after}"
    );
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn text_that_is_not_json_and_bad_call_params_get_json_rpc_errors() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let http = HttpServer::bind(server(&log), "127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    let garbage = within(post(addr, &[], "{not json")).await;
    assert!(garbage.starts_with("HTTP/1.1 400"), "{garbage}");
    assert!(garbage.contains(r#""code":-32700"#), "{garbage}");
    let session = raw_session(addr).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    for params in [
        "7",
        r#"{"arguments":{}}"#,
        r#"{"name":"notes_get","arguments":[1]}"#,
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#);
        let answer = within(post(addr, &headers, &body)).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.contains(r#""id":3"#) && answer.contains(r#""code":-32602"#),
            "{answer}"
        );
        assert!(answer.contains("tools/call takes params"), "{answer}");
    }
    assert!(log.lock().unwrap().is_empty(), "no tool ran");
    within(http.shutdown()).await.expect("a clean shutdown");
}

/// [`mcp_common::Notes`] with small request limits, as a spec's `defaults.limits` makes a
/// generated toolset's.
struct SmallRequests;

impl toolspec_runtime::engine::Toolset for SmallRequests {
    fn definitions(&self) -> &'static [toolspec_runtime::engine::ToolDefinition] {
        mcp_common::Notes.definitions()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: serde_json::Value,
        ctx: &'a toolspec_runtime::engine::CallContext,
    ) -> toolspec_runtime::engine::BoxFuture<
        'a,
        Result<toolspec_runtime::engine::CallOutput, toolspec_runtime::ToolError>,
    > {
        mcp_common::Notes.call(name, arguments, ctx)
    }

    fn limits(&self) -> toolspec_runtime::engine::Limits {
        toolspec_runtime::engine::Limits {
            max_request_bytes: 4096,
            max_depth: 8,
        }
    }
}

#[tokio::test]
async fn the_toolsets_own_limits_are_what_the_server_enforces() {
    let server = toolspec_runtime::mcp::McpServer::new(Arc::new(SmallRequests), "small", "1")
        .unwrap()
        .with_call_logger(None);
    let http = HttpServer::bind(server, "127.0.0.1:0").await.unwrap();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(5000)
    );
    let answer = within(post(http.local_addr(), &[], &big)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("at most 4096 bytes"), "{answer}");
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(9),
        "]".repeat(9)
    );
    let answer = within(post(http.local_addr(), &[], &deep)).await;
    assert!(
        answer.starts_with("HTTP/1.1 400") && answer.contains("at most 8 levels"),
        "{answer}"
    );
    within(http.shutdown()).await.expect("a clean shutdown");
}

#[tokio::test]
async fn connections_over_the_bound_wait_until_one_closes() {
    use tokio::io::AsyncWriteExt;
    let log = Arc::new(Mutex::new(Vec::new()));
    let guard = toolspec_runtime::mcp::HttpGuard {
        max_connections: 1,
        ..Default::default()
    };
    let http = HttpServer::bind_guarded(server(&log), "127.0.0.1:0", Default::default(), guard)
        .await
        .unwrap();
    let addr = http.local_addr();
    // The first connection takes the only place and sends nothing yet.
    let mut first = tokio::net::TcpStream::connect(addr).await.unwrap();
    let second = tokio::spawn(post(addr, &[], "{not json"));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        !second.is_finished(),
        "the second connection waits for a place"
    );
    first.shutdown().await.unwrap();
    drop(first);
    let answer = within(second).await.unwrap();
    assert!(
        answer.contains(r#""code":-32700"#),
        "served once the first closed: {answer}"
    );
    within(http.shutdown()).await.expect("a clean shutdown");
}
