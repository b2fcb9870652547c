"""End-to-end: servers made by `toolspec import openapi` from real OpenAPI documents, as
imported, forwarding every call to a real mock of the same API.

Runs the binary named by FORWARD_FIXTURE (tests/forward-fixture: the golden drafts of
tests/import/drafts/ compiled with their generated `<Service>Api`) against Stoplight Prism
(npm `@stoplight/prism-cli`, installed in TOOLSPEC_PRISM_DIR by scripts/test), which serves
each API from its document in tests/import/documents/ and answers a request with the
documented example of the status its `Prefer: code=N` header asks for. Through the official
Python `mcp` client:

- a read (`svix_application_get`), also over streamable HTTP;
- a paged read (`github_pulls_list_files`): page numbers on the wire (which query
  parameters carry them is core/src/upstream/'s unit test), `next_page` in the result;
- a write with a preview (`svix_application_create`): previewed, then applied with the
  preview's id, its idempotency key forwarded;
- the API's 404 as `not_found` and its 429 as `rate_limited` (retryable), with the API's
  words, never a success; and an API that cannot be reached, said as such.

    FORWARD_FIXTURE=target/debug/forward-fixture TOOLSPEC_PRISM_DIR=tests/e2e/prism \\
        .venv/bin/pytest -q tests/e2e/test_forwarding.py
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_client import connect_http, connect_stdio, free_port, http_server, run
from prism_mock import PRISM_DIR, Mock, prism

SERVER = os.environ.get("FORWARD_FIXTURE", "")

pytestmark = pytest.mark.skipif(
    not SERVER or not PRISM_DIR,
    reason="set FORWARD_FIXTURE to the forward-fixture binary and TOOLSPEC_PRISM_DIR to tests/e2e/prism",
)


@pytest.fixture(scope="module")
def svix_mock() -> Iterator[Mock]:
    with prism("svix.json") as mock:
        yield mock


@pytest.fixture(scope="module")
def svix(svix_mock: Mock) -> str:
    return svix_mock.url


@pytest.fixture(scope="module")
def github() -> Iterator[Mock]:
    with prism("github.json") as mock:
        yield mock


def env(service: str, base: str, **extra: str) -> dict[str, str]:
    """The server's environment: the API's address, a credential, extra headers."""
    out = dict(os.environ)
    out[f"{service}_BASE_URL"] = base
    out[f"{service}_API_KEY"] = "testsk_e2e"
    for k, v in extra.items():
        out[f"{service}_{k}"] = v
    return out


def test_a_read_returns_the_apis_answer(svix: str) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["svix"], env=env("SVIX", svix)) as conn:
            app = await conn.call_ok("svix_application_get", {"app_id": "app_1srOrx2ZWZBpBUvZwXKQmoEYga2"})
            # Prism answers with the document's example of an application.
            assert app["id"] == "app_1srOrx2ZWZBpBUvZwXKQmoEYga2"
            assert app["name"] == "My first application"

    run(scenario)


def test_a_read_over_http(svix: str) -> None:
    os.environ["SVIX_BASE_URL"] = svix
    os.environ["SVIX_API_KEY"] = "testsk_e2e"
    try:
        with http_server(SERVER, ["svix"]) as url:

            async def scenario() -> None:
                async with connect_http(url) as conn:
                    app = await conn.call_ok("svix_application_get", {"app_id": "app_1"})
                    assert app["name"] == "My first application"

            run(scenario)
    finally:
        del os.environ["SVIX_BASE_URL"]
        del os.environ["SVIX_API_KEY"]


def test_a_paged_read_asks_the_api_for_the_page(github: Mock) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["github"], env=env("GITHUB", github.url)) as conn:
            args = {"owner": "octo-org", "repo": "hello-world", "pull_number": 42, "per_page": 1}
            first = await conn.call_ok("github_pulls_list_files", args)
            assert [f["filename"] for f in first["items"]] == ["file1.txt"]
            # The API says neither a total nor whether more follow: a full page may have more.
            assert first["next_page"] == 2
            second = await conn.call_ok("github_pulls_list_files", {**args, "page": first["next_page"]})
            assert len(second["items"]) == 1

    run(scenario)


def test_a_write_is_previewed_then_applied(svix: str) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["svix"], env=env("SVIX", svix)) as conn:
            args: dict[str, Any] = {"name": "Billing events", "idempotency_key": "e2e-create-1"}
            previewed = await conn.call("svix_application_create", args)
            assert not previewed.is_error, previewed.texts
            body = previewed.structured
            assert body["applied"] is False
            # The preview is the request the call will send, sent nowhere yet.
            assert body["preview"]["request"].startswith("POST /api/v1/app"), body
            assert '"name":"Billing events"' in body["preview"]["request"]
            applied = await conn.call_ok("svix_application_create", {**args, "preview_id": body["preview"]["preview_id"]})
            assert applied["applied"] is True
            assert applied["name"] == "My first application"  # Prism's example of the answer

    run(scenario)


def test_the_apis_404_is_not_found(svix: str) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["svix"], env=env("SVIX", svix, HEADERS="Prefer: code=404")) as conn:
            result = await conn.call_error("svix_application_get", {"app_id": "app_missing"})
            assert result.code == "not_found"
            assert result.structured["retryable"] is False
            # The API's own words ride along, bounded.
            assert result.structured["details"]["reason"] == "string"

    run(scenario)


def test_the_apis_429_is_rate_limited_and_retryable(svix: str) -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["svix"], env=env("SVIX", svix, HEADERS="Prefer: code=429")) as conn:
            result = await conn.call_error("svix_application_get", {"app_id": "app_1"})
            assert result.code == "rate_limited"
            assert result.structured["retryable"] is True

    run(scenario)


def test_an_api_that_cannot_be_reached_is_said_so() -> None:
    async def scenario() -> None:
        # Nothing listens on this port.
        dead = f"http://127.0.0.1:{free_port()}"
        async with connect_stdio(SERVER, ["svix"], env=env("SVIX", dead)) as conn:
            result = await conn.call_error("svix_application_get", {"app_id": "app_1"})
            assert result.code == "internal_error"
            assert "could not be reached" in result.structured["message"]
            assert result.structured["retryable"] is True

    run(scenario)
