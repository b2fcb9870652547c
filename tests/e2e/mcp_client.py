"""Drive an MCP server as a black box with the official Python SDK (`mcp` on PyPI).

The SDK is an independent client: it checks that every successful `structuredContent`
conforms to the tool's `outputSchema` (and raises otherwise), so a test that goes through it
also proves the server's results match what it declares.

Two ways in, both async context managers yielding a `Connection`:

    async with connect_stdio(server_cmd, ["--db", path, "--demo"]) as conn:
        tools = await conn.list_tools()
        result = await conn.call("tickets_get", {"ticket_id": "T-1001"})
        assert not result.is_error and result.structured["ticket"]["status"] == "open"

    with http_server(server_cmd, ["--db", path, "--demo"]) as url:   # runs --http 127.0.0.1:PORT
        async with connect_http(url) as conn:
            ...

Plain synchronous tests run a coroutine with `run(...)`; no pytest plugin is needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

T = TypeVar("T")

# Generous: the first call may wait on a cold debug binary opening its database.
CALL_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ToolResult:
    """One `tools/call` result, reduced to what tests assert on."""

    is_error: bool
    """`isError`: the call failed in a way meant for the model."""
    structured: Any
    """`structuredContent`: the output (or, on error, `{code, message, retryable, details}`)."""
    texts: list[str]
    """The text content blocks, in order."""
    meta: dict[str, Any] | None
    """The result's `_meta`, if any."""
    raw: types.CallToolResult
    """The SDK's own object, for anything else."""

    @property
    def code(self) -> str | None:
        """The error code of an error result, else None."""
        if self.is_error and isinstance(self.structured, dict):
            return self.structured.get("code")
        return None

    def error_codes(self) -> set[str]:
        """The error's code and the codes of every problem it lists (`details.problems`):
        a call with several argument problems is `invalid_arguments` with one problem each."""
        if not self.is_error or not isinstance(self.structured, dict):
            return set()
        codes = {self.structured.get("code")}
        problems = self.structured.get("details", {}).get("problems", [])
        codes.update(p.get("code") for p in problems if isinstance(p, dict))
        codes.discard(None)
        return codes


class Connection:
    """An initialized client session with small, typed helpers."""

    def __init__(self, session: ClientSession, init: types.InitializeResult) -> None:
        self.session = session
        self.init = init

    @property
    def server_name(self) -> str:
        return self.init.server_info.name

    async def list_tools(self) -> list[types.Tool]:
        """Every tool, following `nextCursor` until the last page."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with anyio.fail_after(CALL_TIMEOUT_S):
                page = await self.session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def tool_names(self) -> list[str]:
        return [t.name for t in await self.list_tools()]

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Calls a tool. An `isError` result is returned, not raised; a JSON-RPC error
        (an unknown tool, a malformed request) raises `mcp.MCPError`."""
        with anyio.fail_after(CALL_TIMEOUT_S):
            raw = await self.session.call_tool(name, arguments or {})
        texts = [block.text for block in raw.content if isinstance(block, types.TextContent)]
        return ToolResult(
            is_error=bool(raw.is_error),
            structured=raw.structured_content,
            texts=texts,
            meta=raw.meta,
            raw=raw,
        )

    async def call_ok(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Calls a tool that must succeed and returns its structured result."""
        result = await self.call(name, arguments)
        if result.is_error:
            raise AssertionError(f"{name}({json.dumps(arguments)}) failed: {result.structured}")
        return result.structured

    async def call_error(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Calls a tool that must fail with an `isError` result and returns that result."""
        result = await self.call(name, arguments)
        if not result.is_error:
            raise AssertionError(f"{name}({json.dumps(arguments)}) succeeded: {result.structured}")
        return result


@contextlib.asynccontextmanager
async def _session(read: Any, write: Any, elicitation_callback: Any = None) -> AsyncIterator[Connection]:
    extra = {"elicitation_callback": elicitation_callback} if elicitation_callback else {}
    async with ClientSession(read, write, **extra) as session:
        with anyio.fail_after(CALL_TIMEOUT_S):
            init = await session.initialize()
        yield Connection(session, init)


@contextlib.asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    elicitation_callback: Any = None,
    errlog: Any = None,
) -> AsyncIterator[Connection]:
    """Starts `command args...` as a stdio MCP server and yields an initialized connection
    (the 2025-11-25 session protocol). With `elicitation_callback`, the client declares the
    elicitation capability and answers the server's `elicitation/create` requests with it.
    The server's stderr (its call log) goes to this process's stderr, so pytest shows it on
    failure; `errlog` (an open file) takes it instead. The server is stopped when the block
    ends."""
    params = StdioServerParameters(command=command, args=list(args), env=env, cwd=cwd)
    async with (
        stdio_client(params, errlog=errlog or sys.stderr) as (read, write),
        _session(read, write, elicitation_callback) as conn,
    ):
        yield conn


@contextlib.asynccontextmanager
async def connect_http(url: str) -> AsyncIterator[Connection]:
    """Connects to a streamable HTTP MCP endpoint (`http://host:port/mcp`)."""
    async with streamable_http_client(url) as (read, write), _session(read, write) as conn:
        yield conn


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP server exited with {process.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on 127.0.0.1:{port} within {timeout_s}s")


@contextlib.contextmanager
def http_server(
    command: str,
    args: Sequence[str] = (),
    port: int | None = None,
    ready_timeout_s: float = 60.0,
) -> Iterator[str]:
    """Runs `command args... --http 127.0.0.1:PORT` and yields the endpoint URL
    `http://127.0.0.1:PORT/mcp` once the port accepts connections; stops the server after."""
    with http_process(command, args, port, ready_timeout_s) as (url, _process):
        yield url


@contextlib.contextmanager
def http_process(
    command: str,
    args: Sequence[str] = (),
    port: int | None = None,
    ready_timeout_s: float = 60.0,
    log: Any = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`http_server`, yielding the process too, for a test that kills it (SIGKILL) itself;
    a process still running at the end is stopped. Its output goes to `log` (an open
    file), else to this process's stderr."""
    port = port or free_port()
    process = subprocess.Popen(
        [command, *args, "--http", f"127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=log or sys.stderr,
        stderr=log or sys.stderr,
        env=dict(os.environ),
    )
    try:
        _wait_for_port(port, process, ready_timeout_s)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        stop(process)


def stop(process: subprocess.Popen[Any]) -> None:
    """Asks `process` to stop (SIGTERM), and kills it when it has not within 10 seconds."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    """Runs an async scenario from a synchronous test."""
    return anyio.run(scenario)


__all__ = [
    "CALL_TIMEOUT_S",
    "Connection",
    "MCPError",
    "ToolResult",
    "connect_http",
    "connect_stdio",
    "free_port",
    "http_process",
    "http_server",
    "run",
]
