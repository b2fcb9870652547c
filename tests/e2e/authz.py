"""A real OAuth 2.1 authorization server for the end-to-end tests, and tokens from it.

The server is panva's `oidc-provider` (npm), configured by `authz/server.mjs` and installed
by `npm ci` in `authz/` (scripts/test does it; `TOOLSPEC_AUTHZ_DIR` names another install).
It runs under the `node` on PATH:

    with authorization_server() as authz:          # listens on 127.0.0.1:<free port>
        authz.issuer                                # "http://127.0.0.1:PORT", no trailing slash
        token = authz.token("reader", "tickets:read", "http://127.0.0.1:8080/mcp")
        authz.rotate()                              # restart, same port, new keys sign

Its clients (secrets are `<id>-secret`, client_secret_basic or client_secret_post):
`reader`, `reader2` (tickets:read), `writer`, `writer2` (tickets:read tickets:write), and
`reader-es256` / `reader-eddsa` (tickets:read, tokens signed ES256 / EdDSA). A client asking
for more than it may have gets what it may have; asking only for what it may not have is
`invalid_scope`.

For hostile tokens this process holds the issuer's private keys (it wrote the JWKS file):
`forge(claims, ...)` signs anything with them, or with a key the issuer never published.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm
from mcp_client import free_port
from mcp_client import stop as stop_process

AUTHZ_DIR = Path(os.environ.get("TOOLSPEC_AUTHZ_DIR") or Path(__file__).parent / "authz")

SCOPES = ("tickets:read", "tickets:write")
READ_TOOLS = ["tickets_search", "tickets_get", "tickets_export"]
WRITE_TOOLS = ["tickets_create", "tickets_update_status"]

READY_TIMEOUT_S = 30.0


def secret_of(client_id: str) -> str:
    return f"{client_id}-secret"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(value: Any) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def decode_unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A JWT's header and claims, not verified (for asserting what the issuer put in)."""
    header, payload, _signature = token.split(".")
    return _json_segment(header), _json_segment(payload)


def _json_segment(segment: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def _private_key(jwk: dict[str, Any]) -> Any:
    text = json.dumps(jwk)
    algorithm = {"RSA": RSAAlgorithm, "EC": ECAlgorithm, "OKP": OKPAlgorithm}[jwk["kty"]]
    return algorithm.from_jwk(text)


class AuthorizationServer:
    """One `authz/server.mjs` process on a fixed port; `rotate()` restarts it there."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        _check_installed()
        self.port = port or free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.token_endpoint = f"{self.issuer}/token"
        self.jwks_path = workdir / "jwks.json"
        self._workdir = workdir
        self._process: subprocess.Popen[str] | None = None
        self._generation = 0
        _write_keys(self.jwks_path, prefix="gen0")

    # --- the process ------------------------------------------------------------------------

    def start(self) -> None:
        process = subprocess.Popen(
            ["node", str(AUTHZ_DIR / "server.mjs"), "--port", str(self.port), "--jwks", str(self.jwks_path)],
            cwd=AUTHZ_DIR,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=sys.stderr,
            text=True,
        )
        self._process = process
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(READY_TIMEOUT_S)
        if not line or line[0].strip() != f"ready {self.issuer}":
            self.stop()
            raise RuntimeError(
                f"the authorization server did not say `ready {self.issuer}` within {READY_TIMEOUT_S}s "
                f"(said {line[0].strip() if line else 'nothing'!r}, exit {process.poll()})"
            )
        # Nothing more is read from stdout; keep the pipe drained so the server never blocks.
        threading.Thread(target=process.stdout.read, daemon=True).start()  # type: ignore[union-attr]

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        stop_process(process)

    def rotate(self) -> None:
        """A key rotation at the issuer: new keys (one per algorithm) go first and sign from
        now on, the old ones stay published; the server restarts on the same port."""
        self._generation += 1
        rotated = self._workdir / f"jwks-{self._generation}.json"
        _write_keys(rotated, prefix=f"gen{self._generation}", keep=self.jwks_path)
        self.stop()
        rotated.replace(self.jwks_path)
        self.start()

    # --- keys -------------------------------------------------------------------------------

    def private_jwks(self) -> list[dict[str, Any]]:
        return json.loads(self.jwks_path.read_text())["keys"]

    def signing_jwk(self, alg: str = "RS256") -> dict[str, Any]:
        """The private JWK the issuer signs `alg` tokens with now (the first of that alg)."""
        return next(k for k in self.private_jwks() if k["alg"] == alg)

    def published_jwks(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.issuer}/jwks", timeout=10) as response:
            return json.load(response)

    def jwks_fetches(self) -> int:
        """How many times the keys were fetched from this server process (since its start)."""
        with urllib.request.urlopen(f"{self.issuer}/_test/jwks-fetches", timeout=10) as response:
            return json.load(response)["count"]

    def public_pem(self, alg: str = "RS256", pkcs1: bool = False) -> bytes:
        """The issuer's current public key for `alg` as PEM: the HMAC secret of a key-confusion forgery."""
        public = _private_key(self.signing_jwk(alg)).public_key()
        form = serialization.PublicFormat.PKCS1 if pkcs1 else serialization.PublicFormat.SubjectPublicKeyInfo
        return public.public_bytes(serialization.Encoding.PEM, form)

    # --- tokens -----------------------------------------------------------------------------

    def token_response(
        self, client_id: str, scope: str | None, resource: str, method: str = "client_secret_basic"
    ) -> tuple[int, dict[str, Any]]:
        """A client_credentials token request; the status and the JSON answer, errors included."""
        form = {"grant_type": "client_credentials", "resource": resource}
        if scope is not None:
            form["scope"] = scope
        headers = {"content-type": "application/x-www-form-urlencoded"}
        if method == "client_secret_basic":
            credentials = f"{client_id}:{secret_of(client_id)}".encode()
            headers["authorization"] = "Basic " + base64.b64encode(credentials).decode()
        else:
            form |= {"client_id": client_id, "client_secret": secret_of(client_id)}
        request = urllib.request.Request(
            self.token_endpoint, data=urllib.parse.urlencode(form).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as refused:
            return refused.code, json.load(refused)

    def token(self, client_id: str, scope: str | None, resource: str) -> str:
        """A raw access token the issuer grants `client_id` for `resource`."""
        status, body = self.token_response(client_id, scope, resource)
        if status != 200:
            raise AssertionError(f"token request for {client_id} ({scope}) refused: {status} {body}")
        return body["access_token"]

    def claims(self, resource: str, scope: str = "tickets:read", client_id: str = "forger", **extra: Any) -> dict[str, Any]:
        """The claims of a valid RFC 9068 access token for `resource`; `extra` overrides
        (a value of None drops the claim)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": client_id,
            "aud": resource,
            "client_id": client_id,
            "scope": scope,
            "iat": now,
            "exp": now + 300,
            "jti": uuid.uuid4().hex,
        }
        claims.update(extra)
        return {name: value for name, value in claims.items() if value is not None}

    def forge(
        self,
        claims: dict[str, Any],
        alg: str = "RS256",
        jwk: dict[str, Any] | None = None,
        header: dict[str, Any] | None = None,
    ) -> str:
        """A JWT with `claims`, signed by the issuer's current `alg` key unless `jwk` (a private
        JWK) is given; `header` adds or overrides header fields (`kid` defaults to the key's)."""
        jwk = jwk or self.signing_jwk(alg)
        headers = {"typ": "at+jwt", "kid": jwk.get("kid")} | (header or {})
        headers = {name: value for name, value in headers.items() if value is not None}
        return jwt.encode(claims, _private_key(jwk), algorithm=alg, headers=headers)


def unsigned(claims: dict[str, Any], header: dict[str, Any], alg: str = "none") -> str:
    """An unsigned JWT (`alg: none`, or another spelling of it): header and claims, empty signature."""
    return f"{b64url_json({'alg': alg, **header})}.{b64url_json(claims)}."


def hmac_signed(claims: dict[str, Any], header: dict[str, Any], secret: bytes) -> str:
    """An HS256 JWT with `secret` as the key: with a public key as the secret, the forgery of
    key-confusion attacks (PyJWT itself refuses to make one, hence done by hand)."""
    signing_input = f"{b64url_json({'alg': 'HS256', **header})}.{b64url_json(claims)}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(signature)}"


def foreign_rsa_jwk(kid: str) -> dict[str, Any]:
    """A private RS256 JWK the issuer never published."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return json.loads(RSAAlgorithm.to_jwk(key)) | {"kid": kid, "alg": "RS256", "use": "sig"}


@contextlib.contextmanager
def authorization_server() -> Iterator[AuthorizationServer]:
    """A started authorization server on a free port, stopped (and its keys deleted) after."""
    with tempfile.TemporaryDirectory(prefix="authz-") as tmp:
        server = AuthorizationServer(Path(tmp))
        server.start()
        try:
            yield server
        finally:
            server.stop()


def _write_keys(path: Path, prefix: str, keep: Path | None = None) -> None:
    command = ["node", str(AUTHZ_DIR / "keys.mjs"), str(path), "--prefix", prefix]
    if keep is not None:
        command += ["--keep", str(keep)]
    subprocess.run(command, check=True, cwd=AUTHZ_DIR)


def _check_installed() -> None:
    if not (AUTHZ_DIR / "node_modules" / "oidc-provider").is_dir():
        raise RuntimeError(
            f"oidc-provider is not installed in {AUTHZ_DIR}: run `npm ci` there (scripts/test does)"
        )
