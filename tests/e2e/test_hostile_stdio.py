"""End-to-end: lines over stdio that are not messages the server can take, against the
release tickets server. Each gets a JSON-RPC error, in order, and the server goes on: a
16 MiB line and a 10,000-deep one (which rmcp's own transport drops without a word), text
that is not JSON, a request whose params are not an object. A notification, even a
malformed one, is never answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any

import pytest

SERVER = os.environ.get("TICKETS_SERVER", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set TICKETS_SERVER to the tickets example server binary"
)

MB = 1 << 20


def test_every_line_that_is_not_a_message_gets_an_error_and_the_server_goes_on() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [SERVER, "--db", os.path.join(tmp, "t.db"), "--demo"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        assert proc.stdin and proc.stdout

        def send(line: str | bytes) -> None:
            data = line.encode() if isinstance(line, str) else line
            proc.stdin.write(data + b"\n")
            proc.stdin.flush()

        def answer() -> dict[str, Any]:
            line = proc.stdout.readline()
            assert line, "the server closed standard output"
            assert len(line) < 64 * 1024, len(line)
            return json.loads(line)

        def call(id_: int, name: str, arguments: Any) -> str:
            return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                               "params": {"name": name, "arguments": arguments}})

        try:
            send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "hostile-stdio", "version": "1"}}}))
            assert answer()["id"] == 0
            send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

            send(call(1, "tickets_search", {"query": "x" * (16 * MB)}))
            too_long = answer()
            assert too_long["id"] is None and too_long["error"]["code"] == -32600, too_long
            assert "at most 1048576 bytes" in too_long["error"]["message"], too_long

            send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tickets_get","arguments":{"x":'
                 + "[" * 10_000 + "]" * 10_000 + "}}}")
            deep = answer()
            assert deep["error"]["code"] == -32600, deep
            assert "at most 64 levels" in deep["error"]["message"], deep

            send("{not json")
            garbage = answer()
            assert garbage["id"] is None and garbage["error"]["code"] == -32700, garbage

            send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":7}')
            bad_params = answer()
            assert bad_params["id"] == 4 and bad_params["error"]["code"] == -32602, bad_params
            assert "tools/call takes params" in bad_params["error"]["message"], bad_params

            # Not answered: a malformed notification, and a blank line.
            send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}')
            send("")

            send(call(5, "tickets_get", {"ticket_id": "T-1001"}))
            normal = answer()
            assert normal["id"] == 5, normal
            assert normal["result"]["structuredContent"]["ticket"]["ticket_id"] == "T-1001"

            with open(f"/proc/{proc.pid}/status") as f:
                peak_kb = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
            assert peak_kb < 100 * 1024, f"the 16 MiB line was held: peak RSS {peak_kb} kB"
        finally:
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
