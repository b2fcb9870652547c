"""End-to-end: what the release tickets server records about its calls, read back from its
Prometheus endpoint.

The official Python client drives the server (searches in both formats, a truncated page,
an empty one, a deprecated alias, a replay, a declined preview, an applied one, an error),
and the test asserts that every counter and every histogram count moved by exactly what
those calls should have added, and nothing else moved: on stdio with `--metrics ADDR`, and
on HTTP at `/metrics` beside `/mcp`.
"""

from __future__ import annotations

import os
import re
import tempfile
import urllib.request
import uuid
from collections import Counter
from typing import Any

import mcp_types as types
import pytest
from mcp_client import connect_http, connect_stdio, free_port, http_server, run

SERVER = os.environ.get("TICKETS_SERVER", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set TICKETS_SERVER to the tickets example server binary"
)

SAMPLE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus text page, by name and labels."""
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample: {line!r}"
        name, labels, value = m.groups()
        samples[(name, frozenset(LABEL.findall(labels or "")))] = float(value)
    return samples


def moved(before: dict, after: dict) -> Counter:
    """What each counter and histogram count gained (buckets and sums of durations and
    tokens aside: their values are not known in advance)."""
    gained: Counter = Counter()
    for key, value in after.items():
        name = key[0]
        if name.endswith("_bucket") or (name.endswith("_sum") and name != "tool_page_items_sum"):
            continue
        delta = value - before.get(key, 0.0)
        if delta:
            gained[key] = delta
    return gained


def series(name: str, **labels: str) -> tuple[str, frozenset[tuple[str, str]]]:
    return (name, frozenset(labels.items()))


def calls(tool: str, result: str = "ok", called_as: str | None = None):
    return series("tool_calls_total", tool=tool, called_as=called_as or tool, result=result)


class Person:
    """Plays the person the host asks: accepts or declines, as set."""

    def __init__(self) -> None:
        self.action = "accept"

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        if self.action == "accept":
            return types.ElicitResult(action="accept", content={})
        return types.ElicitResult(action=self.action)


def test_every_metric_moves_by_exactly_what_the_calls_did(tmp_path: Any) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    person = Person()
    word = "zq" + uuid.uuid4().hex[:6]
    stderr = tempfile.TemporaryFile(mode="w+")

    async def scenario() -> None:
        args = ["--db", str(tmp_path / "t.db"), "--demo", "--metrics", f"127.0.0.1:{port}"]
        async with connect_stdio(SERVER, args, elicitation_callback=person, errlog=stderr) as conn:
            # Setup: 40 tickets whose titles are wide (3 bytes a character), so that a page
            # of them is over the 4000-token budget even in concise form.
            for i in range(40):
                title = f"{word} {i} " + "\u2713" * 100
                done = await conn.call_ok(
                    "tickets_create",
                    {"title": title, "customer_email": "m@example.com", "idempotency_key": uuid.uuid4().hex},
                )
                assert done["applied"] is True
            before = scrape(url)

            # 1. A concise page cut by the budget.
            page = await conn.call_ok("tickets_search", {"query": word, "limit": 50})
            assert page["truncated"]["cuts"], page.get("truncated")
            kept = len(page["tickets"])
            # 2. A detailed search that finds nothing.
            empty = await conn.call_ok(
                "tickets_search", {"query": "nothingmatches" + word, "response_format": "detailed"}
            )
            assert empty["tickets"] == []
            # 3. The deprecated alias, twice (one warning), and the tool's own name once.
            ticket = page["tickets"][0]["ticket_id"]
            for status in ["pending", "open"]:
                await conn.call_ok(
                    "tickets_set_status",
                    {"ticket_id": ticket, "status": status, "idempotency_key": uuid.uuid4().hex},
                )
            # 4. A keyed write, then its retry: a replay.
            keyed = {"ticket_id": ticket, "status": "closed", "idempotency_key": uuid.uuid4().hex}
            first = await conn.call_ok("tickets_update_status", keyed)
            again = await conn.call_ok("tickets_update_status", keyed)
            assert first["replayed"] is False and again["replayed"] is True
            # 5. A change the person declines, then one they accept.
            person.action = "decline"
            refused = await conn.call_error(
                "tickets_create", {"title": f"{word} declined", "customer_email": "m@example.com", "idempotency_key": uuid.uuid4().hex}
            )
            assert refused.code == "approval_declined"
            person.action = "accept"
            await conn.call_ok(
                "tickets_create", {"title": f"{word} accepted", "customer_email": "m@example.com", "idempotency_key": uuid.uuid4().hex}
            )
            # 6. An error of the spec's catalog.
            missing = await conn.call_error("tickets_get", {"ticket_id": "T-999999"})
            assert missing.code == "not_found"
            after = scrape(url)

        expected = Counter(
            {
                calls("tickets_search"): 2,
                series("tool_truncations_total", tool="tickets_search"): 1,
                series("tool_search_empty_total", tool="tickets_search"): 1,
                series("tool_page_items_count", tool="tickets_search"): 2,
                series("tool_page_items_sum", tool="tickets_search"): kept,
                series("tool_call_duration_seconds_count", tool="tickets_search", format="concise"): 1,
                series("tool_call_duration_seconds_count", tool="tickets_search", format="detailed"): 1,
                series("tool_response_tokens_count", tool="tickets_search", format="concise"): 1,
                series("tool_response_tokens_count", tool="tickets_search", format="detailed"): 1,
                calls("tickets_update_status", called_as="tickets_set_status"): 2,
                calls("tickets_update_status"): 2,
                series("tool_idempotent_replays_total", tool="tickets_update_status"): 1,
                series("tool_retries_total", tool="tickets_update_status"): 1,
                series("tool_call_duration_seconds_count", tool="tickets_update_status", format="detailed"): 4,
                series("tool_response_tokens_count", tool="tickets_update_status", format="detailed"): 4,
                calls("tickets_create", result="approval_declined"): 1,
                calls("tickets_create"): 1,
                series("tool_previews_total", tool="tickets_create", outcome="declined"): 1,
                series("tool_previews_total", tool="tickets_create", outcome="applied"): 1,
                series("tool_call_duration_seconds_count", tool="tickets_create", format="detailed"): 2,
                series("tool_response_tokens_count", tool="tickets_create", format="detailed"): 1,
                calls("tickets_get", result="not_found"): 1,
                series("tool_call_duration_seconds_count", tool="tickets_get", format="detailed"): 1,
            }
        )
        assert moved(before, after) == expected
        # Labels carry names and codes, never an argument's value.
        assert not any(word in value for _, labels in after for _, value in labels)
        stderr.seek(0)
        warnings = [line for line in stderr if "tool name tickets_set_status is deprecated" in line]
        assert len(warnings) == 1, warnings
        assert "tickets_update_status" in warnings[0]

    run(scenario)


def test_over_http_metrics_are_served_beside_mcp(tmp_path: Any) -> None:
    with http_server(SERVER, ["--db", str(tmp_path / "t.db"), "--demo"]) as url:
        metrics = url.removesuffix("/mcp") + "/metrics"
        before = scrape(metrics)

        async def scenario() -> None:
            async with connect_http(url) as conn:
                await conn.call_ok("tickets_get", {"ticket_id": "T-1001"})

        run(scenario)
        gained = moved(before, scrape(metrics))
        assert gained[calls("tickets_get")] == 1
        assert gained[series("tool_call_duration_seconds_count", tool="tickets_get", format="detailed")] == 1
