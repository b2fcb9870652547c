//! The MCP adapter over streamable HTTP on a real socket (127.0.0.1, a free port), driven by
//! rmcp's streamable HTTP client: the same tools and results as over stdio, at `/mcp`.
#![cfg(feature = "mcp")]

mod mcp_common;

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
