#!/usr/bin/env python3
"""Latency of `tickets_get` on one kept-alive HTTP connection (2025-11-25 session protocol).

    scripts/keepalive-latency.py target/release/tickets-server [CALLS]

Starts the server with --demo on a scratch database, opens one MCP session over one
kept-alive connection, makes CALLS calls (default 300) one after another and prints the
p50, p90 and p99 latency. Uses httpx2, which the e2e venv has (.venv/bin/python).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time

import httpx2 as httpx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "e2e"))
from mcp_client import http_server  # noqa: E402

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def rpc(client: httpx.Client, url: str, body: dict, session: str | None) -> httpx.Response:
    headers = dict(HEADERS)
    if session:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-11-25"
    return client.post(url, content=json.dumps(body), headers=headers)


def main() -> None:
    server, calls = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300
    with tempfile.TemporaryDirectory() as tmp, http_server(
        server, ["--db", os.path.join(tmp, "t.db"), "--demo"]
    ) as url:
        with httpx.Client(http1=True, timeout=30) as client:
            init = rpc(client, url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "latency", "version": "1"}}}, None)
            session = init.headers["mcp-session-id"]
            rpc(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            times = []
            for i in range(calls):
                body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                        "params": {"name": "tickets_get", "arguments": {"ticket_id": "T-1001"}}}
                start = time.perf_counter()
                r = rpc(client, url, body, session)
                r.read()
                times.append((time.perf_counter() - start) * 1000)
                assert "T-1001" in r.text, r.text
    q = statistics.quantiles(times, n=100)
    print(f"{calls} calls on one kept-alive connection: p50 {q[49]:.2f} ms, p90 {q[89]:.2f} ms, p99 {q[98]:.2f} ms")


if __name__ == "__main__":
    main()
