"""End-to-end: writes made at a service the server does not own, killed between that
service's change and the server's commit, then retried as each tool's description says.

Runs the binary named by REMOTE_FIXTURE (tests/remote-fixture: the tools of its chat.yaml,
records in a SQLite file) over streamable HTTP against `ChatApi`, a real HTTP service that
counts its changes. For each tool, the first call's change is made and its answer held; the
server is killed with SIGKILL before it hears it; a second server on the same file retries
the same call with the same idempotency_key once the dead call's lease lapsed:

- `chat_message_post` (effect remote_keyed): the retry forwards the same key, which the
  service dedupes: one message;
- `chat_reminder_create` (remote_lookup): the retry is told of the earlier attempt and finds
  the reminder by its reference: one reminder;
- `chat_page_send` (remote_unprotected): the retry pages again, and the description the
  agent read said it may.

    REMOTE_FIXTURE=target/debug/remote-fixture .venv/bin/pytest -q tests/e2e/test_remote_effects.py
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import anyio
import pytest
from chat_api import ChatApi
from mcp_client import ToolResult, connect_http, http_process, run

SERVER = os.environ.get("REMOTE_FIXTURE", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set REMOTE_FIXTURE to the remote-fixture server binary"
)

# Short, so the test waits the dead call's lease out in a second, not the default 30 s.
LEASE_MS = 1000


def crash_then_retry(tmp_path: Any, tool: str, args: dict[str, Any], path: str) -> tuple[ChatApi, ToolResult, str]:
    """Calls `tool`, kills the server once the service made the change (before the server
    hears of it), retries on a new server; returns the service, the retry's result and the
    tool's description as served."""
    db = str(tmp_path / "chat.db")
    with ChatApi() as api:
        server_args = ["--db", db, "--api", api.url, "--lease-ms", str(LEASE_MS)]
        api.hold_next(path)
        with http_process(SERVER, server_args) as (url, process):

            async def first() -> None:
                async def call(conn: Any) -> None:
                    try:
                        await conn.call(tool, args)
                    except Exception:
                        pass  # the server dies before it answers

                try:
                    async with connect_http(url) as conn:
                        async with anyio.create_task_group() as tg:
                            tg.start_soon(call, conn)
                            made = await anyio.to_thread.run_sync(api.made.wait, 30)
                            assert made, f"{tool}: the service never saw the change"
                            os.kill(process.pid, signal.SIGKILL)
                            process.wait()
                            tg.cancel_scope.cancel()
                except AssertionError:
                    raise
                except Exception:
                    pass  # the session ends with its server

            run(first)
            assert process.returncode == -signal.SIGKILL
        api.release()
        assert api.effects(path) == 1, "the killed call made its change once"
        # The dead call's lease must lapse before the key is free again.
        time.sleep(LEASE_MS / 1000 + 0.5)
        with http_process(SERVER, server_args) as (url, _process):

            async def retry() -> tuple[ToolResult, str]:
                async with connect_http(url) as conn:
                    listed = {t.name: t for t in await conn.list_tools()}
                    return await conn.call(tool, args), listed[tool].description or ""

            result, description = run(retry)
        return api, result, description


def test_a_forwarded_key_makes_the_retry_one_message(tmp_path: Any) -> None:
    args = {"channel": "#support", "text": "The deploy is done.", "idempotency_key": "post-1"}
    api, result, _ = crash_then_retry(tmp_path, "chat_message_post", args, "/messages")
    assert not result.is_error, result.structured
    assert api.effects("/messages") == 1
    # The same key reached the service on the first attempt and on the retry.
    assert len(api.keys_seen) == 2 and api.keys_seen[0] == api.keys_seen[1], api.keys_seen
    assert api.keys_seen[0].startswith("tsk_") and "post-1" not in api.keys_seen[0]
    assert result.structured["message_id"] == "M-1"
    assert result.structured["replayed"] is False


def test_a_lookup_finds_the_reminder_the_killed_call_made(tmp_path: Any) -> None:
    args = {
        "person": "@ada",
        "text": "Renew the certificate",
        "at": "2026-12-04T09:00:00Z",
        "idempotency_key": "rem-1",
    }
    api, result, _ = crash_then_retry(tmp_path, "chat_reminder_create", args, "/reminders")
    assert not result.is_error, result.structured
    assert api.effects("/reminders") == 1
    assert result.structured["reminder_id"] == "R-1"


def test_an_unprotected_retry_pages_twice_as_its_description_warned(tmp_path: Any) -> None:
    args = {"person": "@ada", "text": "Checkout is down", "idempotency_key": "page-1"}
    api, result, description = crash_then_retry(tmp_path, "chat_page_send", args, "/pages")
    assert not result.is_error, result.structured
    assert api.effects("/pages") == 2
    assert "a retry may make the change twice" in description, description


def test_the_protected_tools_promise_a_retry_never_makes_the_change_twice(tmp_path: Any) -> None:
    db = str(tmp_path / "chat.db")
    with ChatApi() as api, http_process(SERVER, ["--db", db, "--api", api.url]) as (url, _):

        async def listed() -> dict[str, Any]:
            async with connect_http(url) as conn:
                return {t.name: t for t in await conn.list_tools()}

        tools = run(listed)
    for name in ["chat_message_post", "chat_reminder_create"]:
        key = tools[name].input_schema["properties"]["idempotency_key"]["description"]
        assert "never repeats" in key, (name, key)
        assert "twice" not in (tools[name].description or ""), name
    # Not idempotent is MCP's default for the hint: left out.
    assert tools["chat_page_send"].annotations.idempotent_hint is None
    assert tools["chat_message_post"].annotations.idempotent_hint is True
