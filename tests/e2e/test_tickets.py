"""End-to-end: the tickets example server, driven by the official Python MCP client.

Runs the binary named by the environment variable TICKETS_SERVER (built from
specs/tickets.yaml) as `$TICKETS_SERVER --db PATH --demo` over stdio, and with
`--http 127.0.0.1:PORT` over streamable HTTP (endpoint /mcp). Skipped when the variable
is not set.

    python3 -m venv .venv && .venv/bin/pip install -r tests/e2e/requirements.txt
    TICKETS_SERVER=target/debug/tickets-server .venv/bin/pytest -q tests/e2e

Demo data (`--demo`): tickets T-1000..T-1022 titled "login loop case 0".."login loop case 22",
status `open` except every third (i % 3 == 0) `closed`: 15 open tickets match "login".
The client checks every successful structuredContent against the tool's outputSchema, so
each passing call also proves the server returns what it declares.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_client import Connection, MCPError, connect_http, connect_stdio, http_server, run

SERVER = os.environ.get("TICKETS_SERVER", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set TICKETS_SERVER to the tickets example server binary"
)

TOOLS = ["tickets_search", "tickets_get", "tickets_export", "tickets_create", "tickets_update_status"]
SEARCH_ARGS = ["query", "status", "limit", "cursor", "response_format"]
STATUSES = ["open", "pending", "closed"]


@pytest.fixture
def db(tmp_path: Any) -> str:
    return str(tmp_path / "tickets.db")


def stdio(db: str):
    return connect_stdio(SERVER, ["--db", db, "--demo"])


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


async def search_total(conn: Connection, query: str) -> int:
    return (await conn.call_ok("tickets_search", {"query": query}))["total"]


# --- tools/list ---------------------------------------------------------------------------


def test_lists_the_five_tools_in_spec_order_with_every_hint(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            tools = await conn.list_tools()
            assert [t.name for t in tools] == TOOLS, "spec order; the alias is not listed"
            for tool in tools:
                a = tool.annotations
                assert a is not None, tool.name
                # A hint is stated where it differs from MCP's cautious default; a write
                # always states destructiveHint, a read neither it nor idempotentHint.
                if a.read_only_hint:
                    assert a.destructive_hint is None and a.idempotent_hint is None, tool.name
                else:
                    assert a.destructive_hint is not None, f"{tool.name}: {a}"
                assert a.read_only_hint is not False, f"{tool.name}: states the default"
                assert a.open_world_hint is not True, f"{tool.name}: states the default"
                assert tool.input_schema["type"] == "object"
                assert tool.output_schema and tool.output_schema["type"] == "object"
                assert tool.title and tool.description
            by_name = {t.name: t for t in tools}
            assert by_name["tickets_search"].annotations.read_only_hint is True
            assert by_name["tickets_get"].annotations.read_only_hint is True
            # Left out: not read-only and open world, MCP's defaults.
            assert by_name["tickets_create"].annotations.read_only_hint is None
            assert by_name["tickets_create"].annotations.open_world_hint is None
            assert by_name["tickets_create"].annotations.destructive_hint is True
            assert by_name["tickets_update_status"].annotations.read_only_hint is None
            assert by_name["tickets_update_status"].annotations.destructive_hint is False

    run(scenario)


# --- validation: refused with what to do instead -------------------------------------------


def test_a_cryptic_argument_is_refused_naming_the_allowed_ones(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            err = await conn.call_error("tickets_search", {"q": "login"})
            assert "unknown_argument" in err.error_codes(), err.structured
            message = err.structured["message"]
            for name in SEARCH_ARGS:
                assert name in message, f"{name!r} not named in: {message}"
            assert err.texts[0] == message, "the message is also the first text block"

    run(scenario)


def test_a_misspelled_status_is_refused_listing_the_valid_ones(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            err = await conn.call_error("tickets_search", {"query": "login", "status": "opened"})
            assert err.code == "invalid_enum", err.structured
            assert err.structured["retryable"] is False
            assert err.structured["details"]["allowed"] == STATUSES
            assert "open, pending, closed" in err.structured["message"]

    run(scenario)


def test_an_unknown_tool_is_a_protocol_error(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            with pytest.raises(MCPError) as caught:
                await conn.call("tickets_delete", {"ticket_id": "T-1001"})
            assert caught.value.code == -32602

    run(scenario)


# --- paging ---------------------------------------------------------------------------------


def test_paging_visits_every_open_login_ticket_exactly_once(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            args = {"query": "login", "status": "open", "limit": 5}
            first = await conn.call_ok("tickets_search", args)
            assert first["total"] == 15
            assert len(first["tickets"]) == 5
            assert first.get("next_cursor"), "a first page of 5 out of 15 has a next cursor"

            ids: list[str] = [t["ticket_id"] for t in first["tickets"]]
            pages, page = 1, first
            while page.get("next_cursor"):
                page = await conn.call_ok("tickets_search", {**args, "cursor": page["next_cursor"]})
                pages += 1
                ids += [t["ticket_id"] for t in page["tickets"]]
                assert all(t["status"] == "open" for t in page["tickets"])
                assert pages <= 10, "paging does not end"
            assert pages == 3
            assert len(ids) == 15 and len(set(ids)) == 15, ids
            assert "next_cursor" not in page, "the last page omits next_cursor (never null)"

    run(scenario)


def test_a_forged_cursor_is_refused(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            args = {"query": "login", "status": "open", "limit": 5}
            cursor = (await conn.call_ok("tickets_search", args))["next_cursor"]
            middle = len(cursor) // 2
            flipped = "A" if cursor[middle] != "A" else "B"
            tampered = cursor[:middle] + flipped + cursor[middle + 1 :]
            for forged in [tampered, "forged-cursor"]:
                err = await conn.call_error("tickets_search", {**args, "cursor": forged})
                assert err.code == "invalid_cursor", (forged, err.structured)
            # A real cursor is tied to its query: another query may not use it.
            err = await conn.call_error(
                "tickets_search", {"query": "login", "status": "closed", "limit": 5, "cursor": cursor}
            )
            assert err.code == "invalid_cursor", err.structured

    run(scenario)


# --- irreversible writes: preview, apply once, replay ---------------------------------------


def test_create_previews_then_applies_once_and_replays(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            title = unique("e2e printer on fire")
            args = {"title": title, "customer_email": "a@example.com", "idempotency_key": unique("k")}

            preview = await conn.call_ok("tickets_create", args)
            assert preview["applied"] is False
            preview_id = preview["preview"]["preview_id"]
            assert preview_id.startswith("pv_")
            assert await search_total(conn, title) == 0, "a preview stores nothing"

            applied = await conn.call_ok("tickets_create", {**args, "preview_id": preview_id})
            assert applied["applied"] is True
            assert applied["replayed"] is False
            ticket = applied["ticket"]
            assert ticket["title"] == title
            assert await search_total(conn, title) == 1

            again = await conn.call_ok("tickets_create", {**args, "preview_id": preview_id})
            assert again["replayed"] is True
            assert again["ticket"]["ticket_id"] == ticket["ticket_id"]
            assert await search_total(conn, title) == 1, "a replay creates nothing"

            other = await conn.call_error("tickets_create", {**args, "title": unique("another")})
            assert other.code == "idempotency_key_reused", other.structured

    run(scenario)


def test_sixteen_concurrent_applies_with_one_key_make_one_ticket(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            title = unique("e2e concurrent")
            args = {"title": title, "customer_email": "c@example.com", "idempotency_key": unique("k")}
            preview_id = (await conn.call_ok("tickets_create", args))["preview"]["preview_id"]
            apply = {**args, "preview_id": preview_id}
            results: list[Any] = []

            async def one() -> None:
                results.append(await conn.call("tickets_create", apply))

            async with anyio.create_task_group() as tg:
                for _ in range(16):
                    tg.start_soon(one)

            assert len(results) == 16
            oks = [r.structured for r in results if not r.is_error]
            errors = {r.code for r in results if r.is_error}
            assert errors <= {"idempotency_in_progress"}, errors
            assert oks, "at least one apply succeeds"
            assert len({r["ticket"]["ticket_id"] for r in oks}) == 1
            assert sum(1 for r in oks if r["replayed"] is False) <= 1
            assert await search_total(conn, title) == 1

    run(scenario)


# --- reversible writes: undo ----------------------------------------------------------------


def test_update_status_returns_an_undo_that_restores_the_old_status(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            before = (await conn.call_ok("tickets_get", {"ticket_id": "T-1001"}))["ticket"]
            assert before["status"] == "open"

            changed = await conn.call_ok(
                "tickets_update_status",
                {"ticket_id": "T-1001", "status": "closed", "idempotency_key": unique("k")},
            )
            assert changed["ticket"]["status"] == "closed"
            assert changed["previous_status"] == "open"
            undo = changed["undo"]
            assert undo["tool"] == "tickets_update_status"
            assert undo["arguments"]["status"] == "open"
            got = (await conn.call_ok("tickets_get", {"ticket_id": "T-1001"}))["ticket"]
            assert got["status"] == "closed"

            await conn.call_ok(undo["tool"], undo["arguments"])
            got = (await conn.call_ok("tickets_get", {"ticket_id": "T-1001"}))["ticket"]
            assert got["status"] == "open"

    run(scenario)


def test_the_deprecated_alias_works_and_names_the_tool_to_use(db: str) -> None:
    async def scenario() -> None:
        async with stdio(db) as conn:
            result = await conn.call(
                "tickets_set_status",
                {"ticket_id": "T-1002", "status": "pending", "idempotency_key": unique("k")},
            )
            assert not result.is_error, result.structured
            assert result.structured["ticket"]["status"] == "pending"
            assert any("tickets_update_status" in t for t in result.texts[1:]), result.texts
            assert "note" not in result.structured, "structuredContent keeps to the schema"

    run(scenario)


# --- durability -----------------------------------------------------------------------------


def test_a_restart_on_the_same_db_keeps_the_tickets_and_the_replay(db: str) -> None:
    title = unique("e2e survives restart")
    args = {"title": title, "customer_email": "r@example.com", "idempotency_key": unique("k")}
    first: dict[str, Any] = {}

    async def before_restart() -> None:
        async with stdio(db) as conn:
            preview_id = (await conn.call_ok("tickets_create", args))["preview"]["preview_id"]
            first["apply"] = {**args, "preview_id": preview_id}
            first["result"] = await conn.call_ok("tickets_create", first["apply"])

    async def after_restart() -> None:
        async with stdio(db) as conn:
            ticket_id = first["result"]["ticket"]["ticket_id"]
            got = await conn.call_ok("tickets_get", {"ticket_id": ticket_id})
            assert got["ticket"]["title"] == title
            replay = await conn.call_ok("tickets_create", first["apply"])
            assert replay["replayed"] is True
            assert replay["ticket"]["ticket_id"] == ticket_id
            assert await search_total(conn, title) == 1

    run(before_restart)
    run(after_restart)


# --- streamable HTTP ------------------------------------------------------------------------


def test_over_streamable_http_list_and_call(db: str) -> None:
    with http_server(SERVER, ["--db", db, "--demo"]) as url:

        async def scenario() -> None:
            async with connect_http(url) as conn:
                assert await conn.tool_names() == TOOLS
                got = await conn.call_ok("tickets_get", {"ticket_id": "T-1001"})
                assert got["ticket"]["ticket_id"] == "T-1001"
                assert got["ticket"]["status"] == "open"
                err = await conn.call_error("tickets_get", {"ticket_id": "T-9999"})
                assert err.code == "not_found"

        run(scenario)


# --- time limits --------------------------------------------------------------------------


def test_a_creation_past_its_time_limit_is_stopped_and_changes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "slow.db")
    title = unique("e2e too slow")
    args = {"title": title, "customer_email": "t@example.com", "idempotency_key": unique("k")}

    async def slowed() -> str:
        # Every creation of this server takes 12 s; the spec stops it at 10 s.
        async with connect_stdio(SERVER, ["--db", db, "--demo", "--slow-writes", "12000"]) as conn:
            listed = {t.name: t for t in await conn.list_tools()}
            said = re.search(r"stopped after (\d+)s", listed["tickets_create"].description or "")
            assert said, listed["tickets_create"].description
            limit_s = int(said.group(1))
            preview = (await conn.call_ok("tickets_create", args))["preview"]["preview_id"]
            started = time.monotonic()
            stopped = await conn.call("tickets_create", {**args, "preview_id": preview})
            took = time.monotonic() - started
            assert stopped.is_error and stopped.code == "timeout", stopped.structured
            assert stopped.structured["retryable"] is True
            assert stopped.structured["details"]["changed"] == "no"
            assert "nothing was changed" in stopped.structured["message"]
            assert limit_s <= took < limit_s + 1.5, f"stopped after {took:.1f} s, limit {limit_s} s"
            assert await search_total(conn, title) == 0, "nothing of the stopped creation stayed"
            return preview

    preview = run(slowed)

    async def retried() -> None:
        # The key is free and the preview unused: the same apply, on a server that is not
        # slowed, makes the ticket once.
        async with stdio(db) as conn:
            done = await conn.call_ok("tickets_create", {**args, "preview_id": preview})
            assert done["applied"] is True and done["replayed"] is False, done
            assert await search_total(conn, title) == 1

    run(retried)
