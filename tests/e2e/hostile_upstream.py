"""A hostile (or compromised) upstream API on a real loopback socket, for the forwarding
tests: it logs every request it receives (request line, headers, body) and answers each with
whatever the test has scripted, including answers no honest API sends: redirects to another
origin, hundreds of megabytes announced or chunked, answers that break the documented types.

    with HostileUpstream() as api:
        api.answer = huge_answer(400 * MB)
        ...  # point the server's <SERVICE>_BASE_URL at api.url + "/api/v3"
        api.requests  # what reached it
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

MB = 1 << 20


@dataclass
class Request:
    """One request as it reached the socket."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]


Answer = Callable[[socket.socket, Request], None]


def json_answer(body: bytes, status: str = "200 OK") -> Answer:
    """A complete JSON answer with its Content-Length."""

    def answer(conn: socket.socket, _request: Request) -> None:
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        conn.sendall(head.encode() + body)

    return answer


def redirect_answer(location: str, status: str = "302 Found") -> Answer:
    """A redirect to `location` (another origin, say)."""

    def answer(conn: socket.socket, _request: Request) -> None:
        conn.sendall(
            f"HTTP/1.1 {status}\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )

    return answer


def huge_answer(size: int, chunked: bool = False) -> Answer:
    """`size` bytes of a JSON array of zeros, announced by Content-Length or sent in 1 MB
    chunks; sending stops when the reader hangs up. The bytes actually sent are counted in
    `sent` on the returned function."""
    chunk = b"[" + b"0," * (MB // 2 - 1) + b"0"

    def answer(conn: socket.socket, _request: Request) -> None:
        if chunked:
            head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        else:
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n"
        conn.sendall(head.encode())
        sent = 0
        piece = chunk
        try:
            while sent < size:
                data = piece[: size - sent]
                piece = b"," + b"0," * (MB // 2 - 1) + b"0"
                if chunked:
                    conn.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                else:
                    conn.sendall(data)
                sent += len(data)
                answer.sent = sent  # type: ignore[attr-defined]
            if chunked:
                conn.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the reader hung up: what a bounded reader does

    answer.sent = 0  # type: ignore[attr-defined]
    return answer


@dataclass
class HostileUpstream:
    """A loopback HTTP/1.1 server that logs and answers as scripted."""

    answer: Answer = field(default_factory=lambda: json_answer(b"{}"))
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> HostileUpstream:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop = True
        self._sock.close()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        return
                    data += more
                head, _, body = data.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _version = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                while len(body) < length:
                    more = conn.recv(65536)
                    if not more:
                        break
                    body += more
                request = Request(method, target, headers, body)
                with self._lock:
                    self.requests.append(request)
                self.answer(conn, request)
            except OSError:
                pass
