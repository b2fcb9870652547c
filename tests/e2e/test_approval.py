"""End-to-end: irreversible calls approved by the person, through the host (MCP elicitation).

The official Python client is given an elicitation callback that plays the person: it
accepts, declines or cancels. The tickets server must then apply `tickets_create` only on
accept, never on decline or cancel whatever the model sends next (including a preview id it
got elsewhere), and keep the preview flow for a client without the capability. Both on the
2025-11-25 session protocol (stdio, `elicitation/create`) and on the stateless 2026-07-28
protocol (streamable HTTP, an input-required result the client answers and retries).
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp_client import Connection, connect_stdio, http_server, run

SERVER = os.environ.get("TICKETS_SERVER", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set TICKETS_SERVER to the tickets example server binary"
)


@pytest.fixture
def db(tmp_path: Any) -> str:
    return str(tmp_path / "tickets.db")


class Person:
    """An elicitation callback that answers `action` and keeps what it was shown."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params.message)
        if self.action == "accept":
            return types.ElicitResult(action="accept", content={})
        return types.ElicitResult(action=self.action)


def create_args(title: str) -> dict[str, Any]:
    return {"title": title, "customer_email": "p@example.com", "idempotency_key": uuid.uuid4().hex}


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


async def total(conn: Connection, title: str) -> int:
    return (await conn.call_ok("tickets_search", {"query": title}))["total"]


# --- 2025-11-25 sessions: elicitation/create ----------------------------------------------


def test_session_accept_applies_once_in_one_call(db: str) -> None:
    async def scenario() -> None:
        person = Person("accept")
        async with connect_stdio(SERVER, ["--db", db], elicitation_callback=person) as conn:
            title = unique("approved \u202e printer")
            args = create_args(title)
            done = await conn.call_ok("tickets_create", args)
            assert done["applied"] is True and done["replayed"] is False, done
            assert len(person.asked) == 1
            shown = person.asked[0]
            assert "\u202e" not in shown and "\\u{202e}" in shown, shown
            assert "p@example.com" in shown and "Nothing changes unless you approve" in shown
            assert await total(conn, title.split()[0]) >= 1
            # The retry with the same key replays; the person is not asked again.
            again = await conn.call_ok("tickets_create", args)
            assert again["replayed"] is True
            assert again["ticket"]["ticket_id"] == done["ticket"]["ticket_id"]
            assert len(person.asked) == 1

    run(scenario)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_session_decline_or_cancel_applies_nothing_whatever_the_model_sends(db: str, action: str) -> None:
    async def scenario() -> None:
        title = unique(f"{action}d ticket")
        args = create_args(title)
        # A preview id the model obtained from a client without the capability.
        async with connect_stdio(SERVER, ["--db", db]) as plain:
            preview = await plain.call_ok("tickets_create", args)
            assert preview["applied"] is False
            held_id = preview["preview"]["preview_id"]
        person = Person(action)
        async with connect_stdio(SERVER, ["--db", db], elicitation_callback=person) as conn:
            first = await conn.call_error("tickets_create", args)
            assert first.code == "approval_declined", first.structured
            assert first.structured["retryable"] is False
            # The model presents the id it holds: the person is asked, says no again.
            second = await conn.call_error("tickets_create", {**args, "preview_id": held_id})
            assert second.code == "approval_declined", second.structured
            assert await total(conn, title) == 0
        # And the refused preview is closed for the client without the capability too.
        async with connect_stdio(SERVER, ["--db", db]) as plain:
            third = await plain.call_error("tickets_create", {**args, "preview_id": held_id})
            assert third.code == "approval_declined", third.structured
            assert await total(plain, title) == 0

    run(scenario)


def test_a_client_without_elicitation_gets_the_preview_flow(db: str) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["--db", db]) as conn:
            title = unique("preview flow")
            args = create_args(title)
            preview = await conn.call_ok("tickets_create", args)
            assert preview["applied"] is False
            assert await total(conn, title) == 0
            done = await conn.call_ok(
                "tickets_create", {**args, "preview_id": preview["preview"]["preview_id"]}
            )
            assert done["applied"] is True
            assert await total(conn, title) == 1

    run(scenario)


# --- 2026-07-28, stateless: the input-required result ---------------------------------------


async def modern_call(url: str, person: Person | None, name: str, args: dict[str, Any]) -> Any:
    extra = {"elicitation_callback": person} if person else {}
    async with Client(url, mode="2026-07-28", read_timeout_seconds=30, **extra) as client:
        return await client.call_tool(name, args)


def test_stateless_accept_applies_and_decline_or_cancel_applies_nothing(db: str) -> None:
    with http_server(SERVER, ["--db", db]) as url:

        async def scenario() -> None:
            person = Person("accept")
            title = unique("stateless approved")
            done = await modern_call(url, person, "tickets_create", create_args(title))
            assert not done.is_error, done
            assert done.structured_content["applied"] is True
            assert len(person.asked) == 1 and "Nothing changes unless you approve" in person.asked[0]

            for action in ["decline", "cancel"]:
                person = Person(action)
                title = unique(f"stateless {action}")
                refused = await modern_call(url, person, "tickets_create", create_args(title))
                assert refused.is_error
                assert refused.structured_content["code"] == "approval_declined"
                found = await modern_call(url, None, "tickets_search", {"query": title})
                assert found.structured_content["total"] == 0

            # Without the capability, 2026-07-28 clients get the preview flow.
            plain = await modern_call(url, None, "tickets_create", create_args(unique("stateless plain")))
            assert plain.structured_content["applied"] is False

        run(scenario)
