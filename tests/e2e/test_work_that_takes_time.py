"""Work that takes time, through the release binary and the official Python client, over
stdio and streamable HTTP: progress notifications from the slow export, a cancelled call
that stops within a second and leaves nothing behind, a call past its time limit, and tasks
(MCP's tasks extension) polled to completion on another replica sharing PostgreSQL, and
cancelled from another replica.

The server's `--slow-exports MS` and `--slow-writes MS` make its export and creations slow
enough to watch; its call log on stderr (`mcp tools/call NAME id=N 1234.5ms error=CODE`) says
when a call's method stopped.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp_client import CALL_TIMEOUT_S, Connection, connect_http, connect_stdio, http_process, run
from tasks_client import Tasks, TaskHandle, cancel_task, get_task, poll

SERVER = os.environ.get("TICKETS_SERVER", "")
POSTGRES_URL = os.environ.get("TOOLSPEC_POSTGRES_URL", "")

pytestmark = pytest.mark.skipif(not SERVER, reason="set TICKETS_SERVER to the tickets example server binary")

# The demo desk's tickets: an export reports one step per ticket.
DEMO_TICKETS = 23


@contextlib.asynccontextmanager
async def connection(transport: str, args: list[str], log: Path) -> AsyncIterator[Connection]:
    """A client on a fresh server with `args`, over `transport`; the server's stderr in `log`."""
    with open(log, "ab") as errlog:
        if transport == "stdio":
            async with connect_stdio(SERVER, args, errlog=errlog) as conn:
                yield conn
        else:
            with http_process(SERVER, args, log=errlog) as (url, _):
                async with connect_http(url) as conn:
                    yield conn


async def logged_ms(log: Path, tool: str, code: str) -> float:
    """How long the server says the call of `tool` that ended with `code` ran, in ms. Waits
    on the event loop: the client's own messages (its cancel) go out meanwhile."""
    deadline = time.monotonic() + 5
    pattern = re.compile(rf"mcp tools/call {tool} id=\S+ ([0-9.]+)ms {re.escape(code)}")
    while time.monotonic() < deadline:
        found = pattern.findall(log.read_text(errors="replace"))
        if found:
            return float(found[-1])
        await anyio.sleep(0.05)
    raise AssertionError(f"no `{tool} ... {code}` line in the server's log:\n{log.read_text()}")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_slow_export_reports_progress_as_it_goes(transport: str, tmp_path: Path) -> None:
    args = ["--db", str(tmp_path / "t.db"), "--demo", "--slow-exports", "60"]
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def scenario() -> None:
        async with connection(transport, args, tmp_path / "server.log") as conn:
            with anyio.fail_after(CALL_TIMEOUT_S):
                raw = await conn.session.call_tool("tickets_export", {}, progress_callback=on_progress)
            assert not raw.is_error, raw
            assert raw.structured_content["exported"] == DEMO_TICKETS

    run(scenario)
    # 23 steps over about 1.4 s: thinned out to a few, each further on, the last the end.
    assert 2 <= len(heard) < DEMO_TICKETS, heard
    assert [p for p, _, _ in heard] == sorted({p for p, _, _ in heard}), "progress only moves on"
    assert heard[-1][:2] == (DEMO_TICKETS, DEMO_TICKETS), heard
    assert heard[-1][2] == f"{DEMO_TICKETS} of {DEMO_TICKETS} tickets exported"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cancelled_creation_stops_within_a_second_and_leaves_nothing(transport: str, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    db = str(tmp_path / "t.db")
    title = f"e2e cancelled {uuid.uuid4().hex[:8]}"
    create = {"title": title, "customer_email": "c@example.com", "idempotency_key": uuid.uuid4().hex}

    async def scenario() -> None:
        # Every creation takes 4 s; the client gives up on this one after 1 s.
        async with connection(transport, ["--db", db, "--demo", "--slow-writes", "4000"], log) as conn:
            preview = (await conn.call_ok("tickets_create", create))["preview"]["preview_id"]
            apply = {**create, "preview_id": preview}
            with anyio.move_on_after(1.0) as waited:
                await conn.session.call_tool("tickets_create", apply)
            assert waited.cancelled_caught, "the slowed creation answered before it was cancelled"
            ran_ms = await logged_ms(log, "tickets_create", "error=cancelled")
            assert ran_ms < 2000, f"the cancelled creation ran {ran_ms:.0f} ms: more than a second past its cancel"
            found = await conn.call_ok("tickets_search", {"query": title})
            assert found["total"] == 0, "nothing of the cancelled creation stayed"
            # Its key and preview were given back: the same apply makes the ticket once.
            done = await conn.call_ok("tickets_create", apply)
            assert done["applied"] is True and done["replayed"] is False, done
            assert (await conn.call_ok("tickets_search", {"query": title}))["total"] == 1

    run(scenario)


def test_a_creation_past_its_time_limit_over_http_is_stopped_and_changes_nothing(tmp_path: Path) -> None:
    # The creation's 10 s limit, over HTTP (over stdio: test_tickets); every creation of
    # this server takes 12 s.
    log = tmp_path / "server.log"
    create = {"title": f"e2e slow {uuid.uuid4().hex[:8]}", "customer_email": "s@example.com", "idempotency_key": uuid.uuid4().hex}

    async def scenario() -> None:
        args = ["--db", str(tmp_path / "t.db"), "--demo", "--slow-writes", "12000"]
        async with connection("http", args, log) as conn:
            preview = (await conn.call_ok("tickets_create", create))["preview"]["preview_id"]
            stopped = await conn.call("tickets_create", {**create, "preview_id": preview})
            assert stopped.is_error and stopped.code == "timeout", stopped.structured
            assert stopped.structured["details"]["changed"] == "no"
            found = await conn.call_ok("tickets_search", {"query": create["title"]})
            assert found["total"] == 0, "nothing of the stopped creation stayed"

    run(scenario)


def modern(target: Any) -> Client:
    """A 2026-07-28 client that speaks the tasks extension."""
    return Client(target, mode="2026-07-28", extensions=[Tasks()])


def test_over_stdio_a_task_is_polled_to_its_result(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=SERVER, args=["--db", str(tmp_path / "t.db"), "--demo", "--slow-exports", "50"]
    )

    async def scenario() -> None:
        async with modern(params) as client:
            handle = await client.session.call_tool("tickets_export", {"status": "open"}, allow_claimed=True)
            assert isinstance(handle, TaskHandle), handle
            assert handle.status == "working" and handle.ttl_ms == 3_600_000, handle
            result = await client.call_tool("tickets_export", {"status": "open"})
            assert not result.is_error and result.structured_content["exported"] > 0, result
            done = await poll(client.session, handle.task_id)
            assert done["status"] == "completed", done
            assert done["result"]["structuredContent"] == result.structured_content

    run(scenario)


def test_an_older_client_gets_the_ordinary_call(tmp_path: Path) -> None:
    async def scenario() -> None:
        # The 2025-11-25 session of connect_stdio declares no extension.
        async with connect_stdio(SERVER, ["--db", str(tmp_path / "t.db"), "--demo"]) as conn:
            assert (await conn.call_ok("tickets_export", {}))["exported"] == DEMO_TICKETS

    run(scenario)


@pytest.mark.skipif(
    not POSTGRES_URL and os.environ.get("TOOLSPEC_REQUIRE_POSTGRES") != "1",
    reason="set TOOLSPEC_POSTGRES_URL (scripts/with-postgres does) for the replicas",
)
def test_tasks_on_postgres_replicas_are_polled_and_cancelled_on_another_replica(tmp_path: Path) -> None:
    assert POSTGRES_URL, "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set"
    log = tmp_path / "server.log"
    # Each ticket takes 150 ms to export: a whole export about 3.5 s.
    args = ["--db", POSTGRES_URL, "--demo", "--slow-exports", "150"]

    async def scenario() -> None:
        with open(log, "ab") as errlog, http_process(SERVER, args, log=errlog) as (one, _), http_process(
            SERVER, args, log=errlog
        ) as (two, _), http_process(SERVER, args, log=errlog) as (doomed, doomed_process):
            async with modern(one) as on_one, modern(two) as on_two:
                # Started on one, polled to completion on two.
                handle = await on_one.session.call_tool("tickets_export", {}, allow_claimed=True)
                assert isinstance(handle, TaskHandle), handle
                seen = await get_task(on_two.session, handle.task_id)
                assert seen["status"] == "working", seen
                done = await poll(on_two.session, handle.task_id)
                assert done["status"] == "completed", done
                assert done["result"]["structuredContent"]["exported"] >= DEMO_TICKETS

                # Another run: started on one, cancelled from two, stopped on one.
                handle = await on_one.session.call_tool("tickets_export", {}, allow_claimed=True)
                await anyio.sleep(0.5)
                await cancel_task(on_two.session, handle.task_id)
                ended = await get_task(on_one.session, handle.task_id)
                assert ended["status"] == "cancelled", ended
                # The replica running it hears of the cancel at its next beat and stops the
                # export, long before the 3.5 s it would take.
                ran_ms = await logged_ms(log, "tickets_export", "error=cancelled")
                assert ran_ms < 3000, f"the cancelled export ran {ran_ms:.0f} ms"
                await anyio.sleep(1.5)
                still = await get_task(on_two.session, handle.task_id)
                assert still["status"] == "cancelled", "a cancelled task stays cancelled"

            # A third run: the replica running the task is killed outright; the others read
            # it as failed, saying it changed nothing, once its beats have stopped for 5 s.
            async with modern(doomed) as on_doomed, modern(two) as on_two:
                handle = await on_doomed.session.call_tool("tickets_export", {}, allow_claimed=True)
                await anyio.sleep(0.5)
                doomed_process.kill()
                killed = time.monotonic()
                lost = await poll(on_two.session, handle.task_id, timeout_s=15)
                took = time.monotonic() - killed
                assert lost["status"] == "failed", lost
                assert "it changed nothing" in lost["statusMessage"], lost
                assert lost["error"]["data"]["code"] == "task_lost", lost
                print(f"a task whose replica was killed read as failed {took:.1f} s after the SIGKILL")
                assert took < 7, f"read as failed {took:.1f} s after the kill"

    run(scenario)
