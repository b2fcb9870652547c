"""A small real chat service over HTTP, for the remote-effect tests: it makes changes, counts
them, and can hold its answer to one change so a test can kill the server that asked for it
between the change and the server's commit.

- `POST /messages` `{channel, text}`: posts a message. Honours `Idempotency-Key`: the same key
  again gets the first answer and posts nothing. `GET /messages?channel=C`: its messages,
  newest first.
- `POST /reminders` `{person, text, at, reference}`: creates a reminder; `GET
  /reminders?reference=R` finds the one stored with that reference (404 when none).
- `POST /pages` `{person, text}`: pages a person. No key, no reference: every request pages.

    with ChatApi() as api:
        api.hold_next("/pages")          # the next page is made, then its answer waits
        ...                              # call the tool; api.made.wait(); kill the server
        api.effects("/pages")            # how many pages were made
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


class ChatApi:
    """The service, on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[str, list[dict[str, Any]]] = {"/messages": [], "/reminders": [], "/pages": []}
        self._by_key: dict[str, dict[str, Any]] = {}
        self.keys_seen: list[str] = []
        """Every `Idempotency-Key` sent to `/messages`, in order, retries included."""
        self._hold: str | None = None
        self.made = threading.Event()
        """Set when a held change has been made (its answer not yet sent)."""
        self._release = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: Any) -> None:  # quiet
                pass

            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the caller died waiting: nothing to answer

            def do_GET(self) -> None:
                url = urlparse(self.path)
                if url.path == "/messages":
                    channel = parse_qs(url.query).get("channel", [""])[0]
                    with api._lock:
                        posted = [m for m in api._made["/messages"] if m["channel"] == channel]
                    latest = [{"id": m["id"], "text": m["text"]} for m in reversed(posted)]
                    return self._answer(200, {"messages": latest})
                if url.path != "/reminders":
                    return self._answer(404, {"error": "no such path"})
                reference = parse_qs(url.query).get("reference", [""])[0]
                with api._lock:
                    found = [r for r in api._made["/reminders"] if r["reference"] == reference]
                if not found:
                    return self._answer(404, {"error": "no reminder with that reference"})
                self._answer(200, {"id": found[0]["id"], "at": found[0]["at"]})

            def do_POST(self) -> None:
                path = urlparse(self.path).path
                if path not in api._made:
                    return self._answer(404, {"error": "no such path"})
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                key = self.headers.get("Idempotency-Key") if path == "/messages" else None
                with api._lock:
                    if key is not None:
                        api.keys_seen.append(key)
                    if key is not None and key in api._by_key:
                        answer = api._by_key[key]
                        return self._answer(200, answer)
                    made = api._made[path]
                    prefix = {"/messages": "M", "/reminders": "R", "/pages": "P"}[path]
                    record = dict(body, id=f"{prefix}-{len(made) + 1}")
                    made.append(record)
                    answer = {"id": record["id"]}
                    if path == "/messages":
                        answer["channel"] = body["channel"]
                    if path == "/reminders":
                        answer["at"] = body["at"]
                    if key is not None:
                        api._by_key[key] = answer
                    hold = api._hold == path
                    if hold:
                        api._hold = None
                if hold:
                    # The change is made; the answer waits, so the caller can be killed
                    # before it hears of it.
                    api.made.set()
                    api._release.wait(timeout=60)
                self._answer(201, answer)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ChatApi:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def hold_next(self, path: str) -> None:
        """The next change to `path` is made, then its answer waits until `release()`."""
        with self._lock:
            self._hold = path
            self.made.clear()
            self._release.clear()

    def release(self) -> None:
        self._release.set()

    def effects(self, path: str) -> int:
        """How many changes were made at `path`."""
        with self._lock:
            return len(self._made[path])
