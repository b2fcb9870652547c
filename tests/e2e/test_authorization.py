"""End-to-end: the tickets server over HTTP as an OAuth 2.1 resource server, with real parts.

A real authorization server (panva's oidc-provider, `authz.py`) issues JWT access tokens;
the official Python client's `ClientCredentialsOAuthProvider` discovers everything from the
server's `401` (Protected Resource Metadata, then the issuer's metadata) and gets its tokens
there. Raw HTTP checks the protocol details: the challenges, the metadata documents, and
hostile tokens, each refused with `401 invalid_token` without echoing the token, the server
serving a good token after every one. Then a key rotation at the issuer, two callers whose
idempotency keys, previews and cursors stay their own, each caller's rate limit (the one the
description states, kept on one server and across three PostgreSQL replicas), and the
default-deny start on a non-loopback address.

    TICKETS_SERVER=target/release/tickets-server .venv/bin/pytest -q tests/e2e/test_authorization.py

The authorization server needs node and `npm ci` in tests/e2e/authz (scripts/test does both).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from authz import (
    READ_TOOLS,
    WRITE_TOOLS,
    AuthorizationServer,
    authorization_server,
    b64url_json,
    decode_unverified,
    foreign_rsa_jwk,
    hmac_signed,
    secret_of,
    unsigned,
)
from mcp import Client, MCPError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import INTERNAL_ERROR
from mcp_client import Connection, _session, _wait_for_port, free_port, http_process, run

SERVER = os.environ.get("TICKETS_SERVER", "")

pytestmark = pytest.mark.skipif(
    not SERVER, reason="set TICKETS_SERVER to the tickets example server binary"
)

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PROTOCOL = "2025-11-25"
ALL_TOOLS = READ_TOOLS + WRITE_TOOLS


# --- the servers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Resource:
    """A running tickets server with `--auth-issuer`."""

    url: str
    """Its MCP endpoint, `http://127.0.0.1:PORT/mcp`: also its resource URI and audience."""
    issuer: str

    @property
    def origin(self) -> str:
        return self.url.removesuffix("/mcp")

    @property
    def prm_url(self) -> str:
        """Where RFC 9728 puts the metadata of a resource at `/mcp`."""
        return f"{self.origin}/.well-known/oauth-protected-resource/mcp"


@contextlib.contextmanager
def resource_server(issuer: str, *extra: str) -> Iterator[Resource]:
    with tempfile.TemporaryDirectory(prefix="authz-db-") as tmp:
        args = ["--db", os.path.join(tmp, "tickets.db"), "--demo", "--auth-issuer", issuer, *extra]
        with http_process(SERVER, args) as (url, _process):
            yield Resource(url=url, issuer=issuer)


@pytest.fixture(scope="module")
def authz() -> Iterator[AuthorizationServer]:
    # One authorization server for the module (its start is most of its cost), never
    # restarted here: the rotation test has its own.
    with authorization_server() as server:
        yield server


@pytest.fixture(scope="module")
def resource(authz: AuthorizationServer) -> Iterator[Resource]:
    with resource_server(authz.issuer) as server:
        yield server


@pytest.fixture(scope="module")
def reader_token(authz: AuthorizationServer, resource: Resource) -> str:
    return authz.token("reader", "tickets:read", resource.url)


# --- raw HTTP -------------------------------------------------------------------------------


def rpc(method: str, params: dict[str, Any] | None = None, id_: int | None = 1) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id_ is not None:
        message["id"] = id_
    return json.dumps(message)


INITIALIZE = rpc(
    "initialize",
    {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "authz-e2e", "version": "1"}},
    id_=0,
)


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def initialize(url: str, headers: dict[str, str] | None = None, params: dict[str, str] | None = None) -> httpx.Response:
    with httpx.Client(timeout=30) as client:
        return client.post(url, headers={**HEADERS, **(headers or {})}, params=params, content=INITIALIZE)


def answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response in a `200`, sent as JSON or as server-sent events."""
    assert response.status_code == 200, (response.status_code, response.headers, response.text)
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        return response.json()
    assert content_type.startswith("text/event-stream"), content_type
    for event in response.text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
        if data:
            message = json.loads(data)
            if "result" in message or "error" in message:
                return message
    raise AssertionError(f"no JSON-RPC response in the event stream: {response.text[:500]}")


class Session:
    """A raw session-protocol session: every request carries the token given to it."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=30)
        init = self.client.post(url, headers={**HEADERS, **bearer(token)}, content=INITIALIZE)
        answer(init)
        self.headers = {**HEADERS, "mcp-protocol-version": PROTOCOL}
        if "mcp-session-id" in init.headers:
            self.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        self.post(rpc("notifications/initialized", id_=None), token)
        self._id = 0

    def post(self, body: str, token: str | None) -> httpx.Response:
        headers = {**self.headers, **(bearer(token) if token is not None else {})}
        return self.client.post(self.url, headers=headers, content=body)

    def request(self, method: str, params: dict[str, Any] | None, token: str | None) -> httpx.Response:
        self._id += 1
        return self.post(rpc(method, params, self._id), token)

    def tool_names(self, token: str) -> list[str]:
        return [tool["name"] for tool in answer(self.request("tools/list", {}, token))["result"]["tools"]]

    def call(self, token: str, name: str, arguments: dict[str, Any]) -> httpx.Response:
        return self.request("tools/call", {"name": name, "arguments": arguments}, token)

    def close(self) -> None:
        self.client.close()


@contextlib.contextmanager
def session(url: str, token: str) -> Iterator[Session]:
    opened = Session(url, token)
    try:
        yield opened
    finally:
        opened.close()


def tool_result(response: httpx.Response) -> dict[str, Any]:
    """A `tools/call` answer's result (`structuredContent`, `isError`, ...)."""
    message = answer(response)
    assert "result" in message, message
    return message["result"]


CHALLENGE_PARAM = re.compile(r'([A-Za-z_]+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def challenge(response: httpx.Response) -> dict[str, str]:
    """The parameters of the response's one `WWW-Authenticate: Bearer ...` challenge."""
    values = response.headers.get_list("www-authenticate")
    assert len(values) == 1, f"expected one WWW-Authenticate header, got {values}"
    scheme, _, rest = values[0].partition(" ")
    assert scheme == "Bearer", values[0]
    return {name: quoted if quoted else bare for name, quoted, bare in CHALLENGE_PARAM.findall(rest)}


def assert_not_echoed(response: httpx.Response, token: str) -> None:
    """Neither the token nor any of its parts (the claims, the signature) is in the answer."""
    seen = response.text + "\n".join(f"{name}: {value}" for name, value in response.headers.items())
    for part in [token, *(p for p in token.split(".") if len(p) >= 16)]:
        assert part not in seen, f"the answer echoes the token: {seen[:800]}"


def assert_refused(response: httpx.Response, resource: Resource, token: str) -> None:
    """`401` with `WWW-Authenticate: Bearer error="invalid_token", resource_metadata=...`."""
    assert response.status_code == 401, (response.status_code, response.text[:500])
    params = challenge(response)
    assert params.get("error") == "invalid_token", params
    assert params.get("resource_metadata") == resource.prm_url, params
    assert_not_echoed(response, token)


def assert_serves(resource: Resource, token: str) -> None:
    """A good token is still answered: the server did not stop, stall or lock out."""
    init = answer(initialize(resource.url, bearer(token)))
    assert init["result"]["serverInfo"]["name"], init


# --- the SDK's OAuth client -----------------------------------------------------------------


class MemoryStorage:
    """The SDK's `TokenStorage`, kept in memory for one connection."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class Exchange:
    """One HTTP request the SDK made, and its answer."""

    method: str
    url: str
    status: int
    www_authenticate: str | None
    rpc_method: str | None
    """The JSON-RPC method of a POST to the MCP endpoint."""
    body: Any
    """The JSON answer of a token request or of a refused MCP request, else None."""


@contextlib.asynccontextmanager
async def connect_oauth(
    url: str, authz: AuthorizationServer, client_id: str, method: str = "client_secret_basic"
) -> AsyncIterator[tuple[Connection, list[Exchange]]]:
    """A session through the SDK's `ClientCredentialsOAuthProvider` as `client_id`, and the
    log of every HTTP exchange it made (discovery and token requests included)."""
    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id=client_id,
        client_secret=secret_of(client_id),
        token_endpoint_auth_method=method,  # type: ignore[arg-type]
        issuer=authz.issuer,
    )
    log: list[Exchange] = []

    async def record(response: httpx.Response) -> None:
        request = response.request
        target = str(request.url)
        rpc_method = None
        if request.method == "POST" and target == url:
            with contextlib.suppress(ValueError, AttributeError):
                rpc_method = json.loads(request.content).get("method")
        body = None
        # Read only bodies that end: the token answers and refusals, never an event stream.
        if target == authz.token_endpoint or (target == url and response.status_code >= 400):
            await response.aread()
            with contextlib.suppress(ValueError):
                body = response.json()
        log.append(
            Exchange(request.method, target, response.status_code, response.headers.get("www-authenticate"), rpc_method, body)
        )

    async with (
        httpx.AsyncClient(auth=provider, timeout=30, event_hooks={"response": [record]}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        _session(read, write) as conn,
    ):
        yield conn, log


def params_of(www_authenticate: str | None) -> dict[str, str]:
    assert www_authenticate and www_authenticate.startswith("Bearer "), www_authenticate
    return {name: quoted if quoted else bare for name, quoted, bare in CHALLENGE_PARAM.findall(www_authenticate[7:])}


def create_args(title: str, key: str | None = None) -> dict[str, Any]:
    return {"title": title, "customer_email": "oauth@example.com", "idempotency_key": key or unique("k")}


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


# --- the official client, end to end ---------------------------------------------------------


def test_a_reader_discovers_from_the_401_sees_and_calls_only_the_reads(authz: AuthorizationServer, resource: Resource) -> None:
    async def scenario() -> None:
        async with connect_oauth(resource.url, authz, "reader") as (conn, log):
            # Discovery, all from the 401: the challenge names the PRM, the PRM the issuer,
            # whose metadata gives the token endpoint.
            steps = [(e.method, e.url, e.status) for e in log[:5]]
            assert steps == [
                ("POST", resource.url, 401),
                ("GET", resource.prm_url, 200),
                ("GET", f"{authz.issuer}/.well-known/oauth-authorization-server", 200),
                ("POST", authz.token_endpoint, 200),
                ("POST", resource.url, 200),
            ], steps
            assert log[0].rpc_method == "initialize"
            assert params_of(log[0].www_authenticate).get("resource_metadata") == resource.prm_url
            header, claims = decode_unverified(log[3].body["access_token"])
            assert header["typ"] == "at+jwt" and claims["aud"] == resource.url, (header, claims)
            assert claims["scope"] == "tickets:read", "the issuer grants the reader no more"

            assert await conn.tool_names() == READ_TOOLS
            found = await conn.call_ok("tickets_search", {"query": "login"})
            assert found["total"] > 0
            ticket = await conn.call_ok("tickets_get", {"ticket_id": "T-1001"})
            assert ticket["ticket"]["ticket_id"] == "T-1001"

            # A write: 403 insufficient_scope naming tickets:write. The SDK steps up once
            # (asks the issuer again, which still grants only tickets:read), retries, gets
            # the same 403, and raises it as an MCPError.
            title = unique("reader may not create")
            before = len(log)
            with pytest.raises(MCPError) as refused:
                await conn.call("tickets_create", create_args(title))
            after = log[before:]
            calls = [e for e in after if e.rpc_method == "tools/call"]
            assert [e.status for e in calls] == [403, 403], after
            for e in calls:
                params = params_of(e.www_authenticate)
                assert params.get("error") == "insufficient_scope", params
                assert params.get("scope") == "tickets:write", params
                assert params.get("resource_metadata") == resource.prm_url, params
            step_up = [e for e in after if e.url == authz.token_endpoint]
            assert len(step_up) == 1 and step_up[0].status == 200, after
            assert step_up[0].body["scope"] == "tickets:read", step_up[0].body
            # What the SDK raises for a refused POST: the JSON-RPC error in the body if the
            # body is one, else its own stand-in.
            body = calls[-1].body
            if isinstance(body, dict) and "error" in body:
                assert refused.value.code == body["error"]["code"], (refused.value, body)
            else:
                assert refused.value.code == INTERNAL_ERROR, refused.value
                assert str(refused.value) == "Server returned an error response", refused.value

            # Refused before it ran, and the session goes on.
            assert (await conn.call_ok("tickets_search", {"query": title}))["total"] == 0
            with pytest.raises(MCPError):
                await conn.call("tickets_update_status", {"ticket_id": "T-1001", "status": "closed", "idempotency_key": unique("k")})
            still = await conn.call_ok("tickets_get", {"ticket_id": "T-1001"})
            assert still["ticket"]["status"] == ticket["ticket"]["status"], "the refused write changed nothing"

    run(scenario)


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_writer_sees_every_tool_and_creates_through_the_preview(
    authz: AuthorizationServer, resource: Resource, method: str
) -> None:
    async def scenario() -> None:
        async with connect_oauth(resource.url, authz, "writer", method) as (conn, log):
            token = next(e for e in log if e.url == authz.token_endpoint)
            assert set(token.body["scope"].split()) == {"tickets:read", "tickets:write"}, token.body
            assert await conn.tool_names() == ALL_TOOLS

            title = unique("created with a token")
            args = create_args(title)
            preview = await conn.call_ok("tickets_create", args)
            assert preview["applied"] is False
            preview_id = preview["preview"]["preview_id"]
            applied = await conn.call_ok("tickets_create", {**args, "preview_id": preview_id})
            assert applied["applied"] is True and applied["replayed"] is False
            ticket_id = applied["ticket"]["ticket_id"]
            got = await conn.call_ok("tickets_get", {"ticket_id": ticket_id})
            assert got["ticket"]["title"] == title

            changed = await conn.call_ok(
                "tickets_update_status", {"ticket_id": ticket_id, "status": "pending", "idempotency_key": unique("k")}
            )
            assert changed["ticket"]["status"] == "pending" and changed["previous_status"] == "open"
            assert not [e for e in log if e.status == 403], "a writer is never refused"

    run(scenario)


# --- the protocol, raw -----------------------------------------------------------------------


def test_no_token_gets_the_challenge_naming_the_metadata(resource: Resource) -> None:
    response = initialize(resource.url)
    assert response.status_code == 401, response.text
    params = challenge(response)
    assert params.get("resource_metadata") == resource.prm_url, params
    # Without credentials the challenge carries no error code (RFC 6750 §3.1); a `scope`
    # hint, if given, names only this server's scopes.
    assert "error" not in params, params
    assert set(params.get("scope", "tickets:read").split()) <= {"tickets:read", "tickets:write"}, params
    assert set(params) <= {"resource_metadata", "scope", "error_description"}, params


def test_the_metadata_is_served_at_both_well_known_locations(resource: Resource) -> None:
    with httpx.Client(timeout=30) as client:
        for url in [resource.prm_url, f"{resource.origin}/.well-known/oauth-protected-resource"]:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code, response.text)
            assert response.headers["content-type"].startswith("application/json"), response.headers
            document = response.json()
            assert document["resource"] == resource.url, document
            assert document["authorization_servers"] == [resource.issuer], document
            assert document["bearer_methods_supported"] == ["header"], document
            scopes = document["scopes_supported"]
            assert "tickets:read" in scopes and set(scopes) <= {"tickets:read", "tickets:write"}, document
            assert "offline_access" not in scopes


def test_a_token_in_the_query_string_is_refused(resource: Resource, reader_token: str) -> None:
    for name in ["access_token", "token"]:
        response = initialize(resource.url, params={name: reader_token})
        assert_refused(response, resource, reader_token)
    assert_serves(resource, reader_token)


def test_another_scheme_is_refused(resource: Resource, reader_token: str) -> None:
    basic = initialize(resource.url, {"authorization": "Basic " + "cmVhZGVyOnJlYWRlci1zZWNyZXQ="})
    assert_refused(basic, resource, "cmVhZGVyOnJlYWRlci1zZWNyZXQ=")
    # The token itself, under a scheme that is not Bearer.
    other = initialize(resource.url, {"authorization": f"DPoP {reader_token}"})
    assert_refused(other, resource, reader_token)
    assert_serves(resource, reader_token)


def test_tokens_of_the_other_asymmetric_algorithms_are_accepted(authz: AuthorizationServer, resource: Resource) -> None:
    for client_id, alg in [("reader-es256", "ES256"), ("reader-eddsa", "EdDSA")]:
        token = authz.token(client_id, "tickets:read", resource.url)
        assert decode_unverified(token)[0]["alg"] == alg
        with session(resource.url, token) as s:
            assert s.tool_names(token) == READ_TOOLS


def test_a_token_forged_with_the_issuers_key_and_right_claims_is_accepted(authz: AuthorizationServer, resource: Resource) -> None:
    # The control for the hostile tokens below: this process's forgeries are exactly what
    # the issuer signs, so each one that follows is refused for the one thing it changes.
    token = authz.forge(authz.claims(resource.url, scope="tickets:read tickets:write"))
    with session(resource.url, token) as s:
        assert s.tool_names(token) == ALL_TOOLS


class Listener:
    """A TCP port that counts connections: where a `jku` or `x5u` header points."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/keys.json"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = self.socket.accept()
                self.connections += 1
                connection.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    listening = Listener()
    yield listening
    listening.socket.close()


def hostile_tokens(authz: AuthorizationServer, resource: Resource, listener: Listener) -> dict[str, str]:
    """Every token the server must refuse, by what is wrong with it."""
    now = int(time.time())
    good = authz.claims(resource.url)
    rs_kid = authz.signing_jwk("RS256")["kid"]
    header = {"typ": "at+jwt", "kid": rs_kid}
    stranger = foreign_rsa_jwk(rs_kid)
    public_stranger = {k: stranger[k] for k in ("kty", "n", "e", "kid", "alg")}
    issuer_public = {k: v for k, v in authz.signing_jwk("RS256").items() if k in ("kty", "n", "e", "kid", "alg")}
    return {
        "garbage": "not-a-jwt-" + uuid.uuid4().hex,
        "garbage in three parts": f"{b64url_json({'alg': 'RS256'})}.{uuid.uuid4().hex}.{uuid.uuid4().hex}",
        "alg none": unsigned(good, header),
        "alg None": unsigned(good, header, alg="None"),
        "HS256 with the issuer's public key (SPKI PEM) as secret": hmac_signed(good, header, authz.public_pem()),
        "HS256 with the issuer's public key (PKCS#1 PEM) as secret": hmac_signed(good, header, authz.public_pem(pkcs1=True)),
        "another RSA key under the issuer's kid": authz.forge(good, jwk=stranger),
        "another RSA key under an unknown kid": authz.forge(good, jwk=stranger | {"kid": "unknown-" + uuid.uuid4().hex[:8]}),
        "a kid that is a path": authz.forge(good, jwk=stranger | {"kid": "../../jwks"}),
        "ES256 under the issuer's RSA kid": authz.forge(good, alg="ES256", header={"kid": rs_kid}),
        "wrong iss": authz.forge(authz.claims(resource.url, iss="http://127.0.0.1:1")),
        "iss with a trailing slash": authz.forge(authz.claims(resource.url, iss=authz.issuer + "/")),
        "wrong aud (another path)": authz.forge(authz.claims(resource.url, aud=f"{resource.origin}/other")),
        "wrong aud (another server)": authz.forge(authz.claims(resource.url, aud="http://127.0.0.1:1/mcp")),
        "expired": authz.forge(authz.claims(resource.url, iat=now - 900, exp=now - 600)),
        "not yet valid": authz.forge(authz.claims(resource.url, nbf=now + 600)),
        "no exp": authz.forge(authz.claims(resource.url, exp=None)),
        "no aud": authz.forge(authz.claims(resource.url, aud=None)),
        "a jku header": authz.forge(good, header={"jku": listener.url}),
        "an x5u header": authz.forge(good, header={"x5u": listener.url}),
        "a jwk header with the signing key": authz.forge(good, jwk=stranger | {"kid": None}, header={"jwk": public_stranger}),
        "a jwk header with the issuer's own key": authz.forge(good, header={"jwk": issuer_public}),
        "over 64 KB": authz.forge(authz.claims(resource.url, padding="x" * (66 * 1024))),
    }


HOSTILE = [
    "garbage",
    "garbage in three parts",
    "alg none",
    "alg None",
    "HS256 with the issuer's public key (SPKI PEM) as secret",
    "HS256 with the issuer's public key (PKCS#1 PEM) as secret",
    "another RSA key under the issuer's kid",
    "another RSA key under an unknown kid",
    "a kid that is a path",
    "ES256 under the issuer's RSA kid",
    "wrong iss",
    "iss with a trailing slash",
    "wrong aud (another path)",
    "wrong aud (another server)",
    "expired",
    "not yet valid",
    "no exp",
    "no aud",
    "a jku header",
    "an x5u header",
    "a jwk header with the signing key",
    "a jwk header with the issuer's own key",
    "over 64 KB",
]


@pytest.fixture(scope="module")
def hostile(authz: AuthorizationServer, resource: Resource, listener: Listener) -> dict[str, str]:
    tokens = hostile_tokens(authz, resource, listener)
    assert sorted(tokens) == sorted(HOSTILE), "HOSTILE names every case hostile_tokens builds"
    return tokens


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_token_is_refused_and_the_server_serves_on(
    resource: Resource, listener: Listener, hostile: dict[str, str], reader_token: str, case: str
) -> None:
    token = hostile[case]
    if case == "over 64 KB":
        assert len(token) > 64 * 1024
    refused = initialize(resource.url, bearer(token))
    assert_refused(refused, resource, token)
    assert listener.connections == 0, "a key URL named in a token header was fetched"
    assert_serves(resource, reader_token)


def test_a_session_needs_its_token_on_every_request(
    authz: AuthorizationServer, resource: Resource, reader_token: str
) -> None:
    with session(resource.url, reader_token) as s:
        missing = s.request("tools/list", {}, None)
        assert missing.status_code == 401, missing.text
        assert challenge(missing).get("resource_metadata") == resource.prm_url
        now = int(time.time())
        expired = authz.forge(authz.claims(resource.url, iat=now - 900, exp=now - 600))
        assert_refused(s.request("tools/list", {}, expired), resource, expired)
        # The session itself was not harmed: its own token is answered.
        assert s.tool_names(reader_token) == READ_TOOLS


def test_writes_and_their_alias_are_refused_with_insufficient_scope(resource: Resource, reader_token: str) -> None:
    with session(resource.url, reader_token) as s:
        names = s.tool_names(reader_token)
        assert names == READ_TOOLS, "neither the writes nor their deprecated alias are listed"
        calls = {
            "tickets_create": create_args(unique("raw refused")),
            "tickets_update_status": {"ticket_id": "T-1001", "status": "closed", "idempotency_key": unique("k")},
            "tickets_set_status": {"ticket_id": "T-1001", "status": "closed", "idempotency_key": unique("k")},
        }
        for name, arguments in calls.items():
            response = s.call(reader_token, name, arguments)
            assert response.status_code == 403, (name, response.status_code, response.text[:300])
            params = challenge(response)
            assert params.get("error") == "insufficient_scope", (name, params)
            assert params.get("scope") == "tickets:write", (name, params)
            assert params.get("resource_metadata") == resource.prm_url, (name, params)
            assert_not_echoed(response, reader_token)
        still = tool_result(s.call(reader_token, "tickets_get", {"ticket_id": "T-1001"}))
        assert still["structuredContent"]["ticket"]["status"] == "open", "the refused writes changed nothing"


def test_unknown_kids_do_not_each_fetch_the_keys(authz: AuthorizationServer, resource: Resource, reader_token: str) -> None:
    stranger = foreign_rsa_jwk("unused")
    before = authz.jwks_fetches()
    started = time.monotonic()
    for n in range(30):
        token = authz.forge(authz.claims(resource.url), jwk=stranger | {"kid": f"storm-{n}-{uuid.uuid4().hex[:6]}"})
        assert initialize(resource.url, bearer(token)).status_code == 401
    elapsed = time.monotonic() - started
    fetched = authz.jwks_fetches() - before
    # "At most one JWKS fetch per few seconds": 30 unknown kids in a burst cost a fetch or
    # two (one more when the burst straddles the end of a cooldown), never one each.
    assert fetched <= 2, f"{fetched} key fetches for 30 unknown kids in {elapsed:.1f}s"
    assert_serves(resource, reader_token)


# --- a key rotation at the issuer -------------------------------------------------------------


def test_a_rotated_in_key_is_followed_and_the_old_one_keeps_working() -> None:
    with authorization_server() as issuer, resource_server(issuer.issuer) as resource:
        old = issuer.token("reader", "tickets:read", resource.url)
        old_es = issuer.token("reader-es256", "tickets:read", resource.url)
        assert_serves(resource, old)
        assert_serves(resource, old_es)

        issuer.rotate()
        new = issuer.token("reader", "tickets:read", resource.url)
        assert decode_unverified(new)[0]["kid"] != decode_unverified(old)[0]["kid"]
        published = {key["kid"] for key in issuer.published_jwks()["keys"]}
        assert {decode_unverified(t)[0]["kid"] for t in (old, old_es, new)} <= published

        # The server learns the new kid by refetching the keys, at most once per its
        # cooldown: allow that long.
        deadline = time.monotonic() + 15
        while True:
            response = initialize(resource.url, bearer(new))
            if response.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert response.status_code == 200, (response.status_code, response.headers.get("www-authenticate"))
        assert_serves(resource, old)
        assert_serves(resource, old_es)
        new_es = issuer.token("reader-es256", "tickets:read", resource.url)
        assert_serves(resource, new_es)


# --- two callers: records are bound to who made them -----------------------------------------


def test_two_callers_keep_their_own_previews_keys_and_cursors(authz: AuthorizationServer, resource: Resource) -> None:
    async def scenario() -> None:
        async with (
            connect_oauth(resource.url, authz, "writer") as (first, _),
            connect_oauth(resource.url, authz, "writer2") as (second, _),
        ):
            # The same key and arguments: each caller's first call is its own fresh preview.
            args = create_args(unique("two callers"), key=unique("shared-key"))
            mine = await first.call_ok("tickets_create", args)
            theirs = await second.call_ok("tickets_create", args)
            assert mine["applied"] is False and theirs["applied"] is False, (mine, theirs)
            my_preview = mine["preview"]["preview_id"]
            their_preview = theirs["preview"]["preview_id"]
            assert my_preview != their_preview

            # Another caller's preview id is unknown to the second caller, and says nothing of
            # whose it is.
            stolen = await second.call_error("tickets_create", {**args, "preview_id": my_preview})
            assert stolen.code == "preview_not_found", stolen.structured
            told = json.dumps(stolen.structured) + " ".join(stolen.texts)
            for name in ["writer", "writer2"]:
                assert not re.search(rf"\b{name}\b", told), told

            # The owner's preview still applies; each gets a ticket of its own.
            applied = await first.call_ok("tickets_create", {**args, "preview_id": my_preview})
            assert applied["applied"] is True and applied["replayed"] is False
            other = await second.call_ok("tickets_create", {**args, "preview_id": their_preview})
            assert other["applied"] is True and other["replayed"] is False
            assert applied["ticket"]["ticket_id"] != other["ticket"]["ticket_id"]
            found = await first.call_ok("tickets_search", {"query": args["title"]})
            assert found["total"] == 2

            # A cursor is the caller's own.
            search = {"query": "login", "status": "open", "limit": 5}
            cursor = (await first.call_ok("tickets_search", search))["next_cursor"]
            refused = await second.call_error("tickets_search", {**search, "cursor": cursor})
            assert refused.code == "invalid_cursor", refused.structured
            page = await first.call_ok("tickets_search", {**search, "cursor": cursor})
            assert len(page["tickets"]) == 5, "the owner's cursor still pages"

    run(scenario)


POSTGRES_URL = os.environ.get("TOOLSPEC_POSTGRES_URL", "")


@pytest.mark.skipif(
    not POSTGRES_URL and os.environ.get("TOOLSPEC_REQUIRE_POSTGRES") != "1",
    reason="set TOOLSPEC_POSTGRES_URL (scripts/with-postgres does) for the replicas",
)
def test_two_callers_on_postgres_replicas_keep_their_own_records(authz: AuthorizationServer) -> None:
    assert POSTGRES_URL, "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set"
    # Two replicas behind one name: both are given the same audience, the URL a balancer
    # would serve, and each caller's records must be found (and refused) on either.
    audience = f"http://127.0.0.1:{free_port()}/mcp"
    args = ["--db", POSTGRES_URL, "--demo", "--auth-issuer", authz.issuer, "--auth-audience", audience]
    with http_process(SERVER, args) as (one, _), http_process(SERVER, args) as (two, _):
        mine = authz.token("writer", "tickets:read tickets:write", audience)
        theirs = authz.token("writer2", "tickets:read tickets:write", audience)
        with (
            session(one, mine) as me_on_one,
            session(two, mine) as me_on_two,
            session(two, theirs) as them_on_two,
            session(one, theirs) as them_on_one,
        ):

            def call(s: Session, token: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                return tool_result(s.call(token, name, arguments))

            create = create_args(unique("two callers, two replicas"), key=unique("shared-key"))
            my_preview = call(me_on_one, mine, "tickets_create", create)["structuredContent"]
            their_preview = call(them_on_two, theirs, "tickets_create", create)["structuredContent"]
            assert my_preview["applied"] is False and their_preview["applied"] is False
            my_id = my_preview["preview"]["preview_id"]
            their_id = their_preview["preview"]["preview_id"]
            assert my_id != their_id

            stolen = call(them_on_two, theirs, "tickets_create", {**create, "preview_id": my_id})
            assert stolen["isError"] is True and stolen["structuredContent"]["code"] == "preview_not_found", stolen
            assert not re.search(r"\bwriter2?\b", json.dumps(stolen)), stolen

            # Each applies its own preview on the other replica: the records are in the database.
            applied = call(me_on_two, mine, "tickets_create", {**create, "preview_id": my_id})["structuredContent"]
            other = call(them_on_one, theirs, "tickets_create", {**create, "preview_id": their_id})["structuredContent"]
            assert applied["applied"] is True and other["applied"] is True, (applied, other)
            assert applied["ticket"]["ticket_id"] != other["ticket"]["ticket_id"]

            search = {"query": "login", "status": "open", "limit": 5}
            cursor = call(me_on_one, mine, "tickets_search", search)["structuredContent"]["next_cursor"]
            refused = call(them_on_two, theirs, "tickets_search", {**search, "cursor": cursor})
            assert refused["isError"] is True and refused["structuredContent"]["code"] == "invalid_cursor", refused
            page = call(me_on_two, mine, "tickets_search", {**search, "cursor": cursor})
            assert page.get("isError") is not True and len(page["structuredContent"]["tickets"]) == 5, page


# --- rate limits: what the description says is what the server keeps ----------------------------

LIMIT_SENTENCE = re.compile(r"At most (\d+) calls? per (second|minute|hour|day) per caller")


def stated_limit(s: Session, token: str, tool: str) -> tuple[int, int]:
    """The limit `tool`'s description states, as (calls, seconds per window)."""
    listed = answer(s.request("tools/list", {}, token))["result"]["tools"]
    description = next(t["description"] for t in listed if t["name"] == tool)
    found = LIMIT_SENTENCE.search(description)
    assert found, f"{tool} states no rate limit: {description}"
    seconds = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}[found.group(2)]
    return int(found.group(1)), seconds


def test_a_caller_past_the_stated_limit_waits_as_told_and_another_caller_does_not(authz: AuthorizationServer) -> None:
    with resource_server(authz.issuer) as resource:
        alice = authz.token("reader", "tickets:read", resource.url)
        bob = authz.token("reader2", "tickets:read", resource.url)
        with session(resource.url, alice) as a, session(resource.url, bob) as b:
            calls, per = stated_limit(a, alice, "tickets_search")
            search = {"query": "login"}

            def call(s: Session, token: str, arguments: dict[str, Any]) -> dict[str, Any]:
                return tool_result(s.call(token, "tickets_search", arguments))

            # A call refused by validation runs nothing and counts nothing; nor does a list.
            refused = call(a, alice, {"query": ""})
            assert refused["isError"] is True and refused["structuredContent"]["code"] != "rate_limited", refused
            for n in range(calls):
                got = call(a, alice, search)
                assert got.get("isError") is not True, f"call {n + 1} of {calls}: {got}"
                if n == calls // 2:
                    assert "tickets_search" in a.tool_names(alice)
            past = call(a, alice, search)
            assert past["isError"] is True, past
            error = past["structuredContent"]
            assert error["code"] == "rate_limited" and error["retryable"] is True, error
            wait_ms = error["details"]["retry_after_ms"]
            assert 0 < wait_ms <= per * 1000, error
            assert error["message"].startswith("Nothing was done"), error
            assert f"at most {calls} calls per" in error["message"], error

            # Another caller has a limit of their own.
            other = call(b, bob, search)
            assert other.get("isError") is not True, other

            # Until the wait is over the caller is still refused; then the call goes through.
            assert call(a, alice, search)["structuredContent"]["code"] == "rate_limited"
            time.sleep(wait_ms / 1000 + 0.2)
            after = call(a, alice, search)
            assert after.get("isError") is not True, after
            print(f"refused after exactly {calls} calls, waited {wait_ms} ms as told, then served")


@pytest.mark.skipif(
    not POSTGRES_URL and os.environ.get("TOOLSPEC_REQUIRE_POSTGRES") != "1",
    reason="set TOOLSPEC_POSTGRES_URL (scripts/with-postgres does) for the replicas",
)
def test_three_replicas_on_postgres_keep_one_limit_for_32_concurrent_clients_of_one_caller(authz: AuthorizationServer) -> None:
    assert POSTGRES_URL, "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set"
    audience = f"http://127.0.0.1:{free_port()}/mcp"
    args = ["--db", POSTGRES_URL, "--demo", "--auth-issuer", authz.issuer, "--auth-audience", audience]
    # A caller of their own: the limit is counted in the database, per caller.
    token = authz.token("reader2", "tickets:read", audience)
    with (
        http_process(SERVER, args) as (one, _),
        http_process(SERVER, args) as (two, _),
        http_process(SERVER, args) as (three, _),
    ):
        urls = [one, two, three]
        with session(one, token) as first:
            calls, per = stated_limit(first, token, "tickets_search")
        marker = unique("replicas")
        rounds = max(2, (calls * 2) // 32 + 1)

        def client(n: int) -> list[str]:
            codes = []
            with session(urls[n % 3], token) as s:
                for _ in range(rounds):
                    result = tool_result(s.call(token, "tickets_search", {"query": marker}))
                    codes.append(result["structuredContent"]["code"] if result.get("isError") else "ok")
            return codes

        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
            answers = [code for codes in pool.map(client, range(32)) for code in codes]
        elapsed = time.monotonic() - started
        assert elapsed < per, f"the run took {elapsed:.1f} s, longer than one window"
        assert set(answers) <= {"ok", "rate_limited"}, sorted(set(answers))
        admitted = answers.count("ok")
        # One window, one caller, three replicas: exactly the stated number, no more, no fewer.
        assert admitted == calls, f"{admitted} admitted of {len(answers)}, limit {calls}"
        print(f"3 replicas, 32 clients, {len(answers)} calls in {elapsed:.1f} s: {admitted} admitted (limit {calls})")


# --- the stateless protocol with authorization ------------------------------------------------


def test_the_stateless_protocol_takes_the_same_tokens(authz: AuthorizationServer) -> None:
    with resource_server(authz.issuer, "--stateless") as resource:

        async def scenario() -> None:
            provider = ClientCredentialsOAuthProvider(
                server_url=resource.url,
                storage=MemoryStorage(),
                client_id="reader",
                client_secret=secret_of("reader"),
                issuer=authz.issuer,
            )
            async with (
                httpx.AsyncClient(auth=provider, timeout=30) as http,
                Client(streamable_http_client(resource.url, http_client=http), mode="2026-07-28", read_timeout_seconds=30) as client,
            ):
                listed = await client.list_tools()
                assert [tool.name for tool in listed.tools] == READ_TOOLS
                got = await client.call_tool("tickets_get", {"ticket_id": "T-1001"})
                assert not got.is_error and got.structured_content["ticket"]["ticket_id"] == "T-1001"

        run(scenario)
        assert initialize(resource.url).status_code == 401


# --- default deny -----------------------------------------------------------------------------


def test_a_non_loopback_address_without_authorization_refuses_to_start(tmp_path: Path) -> None:
    port = free_port()
    db = str(tmp_path / "t.db")
    refused = subprocess.Popen(
        [SERVER, "--db", db, "--demo", "--http", f"0.0.0.0:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = refused.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        refused.kill()
        refused.communicate()
        raise AssertionError("the server started on 0.0.0.0 without --auth-issuer or --no-auth") from None
    assert refused.returncode != 0, (refused.returncode, stderr)
    message = stderr + stdout
    assert "--auth-issuer" in message and "--no-auth" in message, message

    process = subprocess.Popen(
        [SERVER, "--db", db, "--demo", "--http", f"0.0.0.0:{port}", "--no-auth"],
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr,
        stderr=sys.stderr,
    )
    try:
        _wait_for_port(port, process, 60)
        assert process.poll() is None
        served = answer(initialize(f"http://127.0.0.1:{port}/mcp"))
        assert served["result"]["serverInfo"]["name"]
    finally:
        process.terminate()
        process.wait(timeout=10)

