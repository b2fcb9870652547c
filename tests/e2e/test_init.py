"""End-to-end: `toolspec init` as a newcomer uses it, for each store.

For memory, SQLite and PostgreSQL: the release `toolspec init` (TOOLSPEC_BIN) makes a crate
in a temporary directory; `cargo test` builds it and runs its gauntlet, `cargo build` builds
the server `cargo run` would start; then the official Python `mcp` client drives that server
over stdio and over streamable HTTP: the tool list, a paged search across two pages, the
reversible write and its undo, and the irreversible write through its preview.

The toolspec crates come from their packages when TOOLSPEC_PACKAGES names the directory
scripts/package fills (scripts/test does): the crates are made as a user makes them, with
version dependencies, and a `[patch.crates-io]` table in their `.cargo/config.toml` takes the
toolspec crates from the unpacked `.crate` files, as crates.io would serve them. The
`toolspec` command is installed from its package the same way and checks the example specs;
with TOOLSPEC_INSTALL_TARGET it builds in that target directory's release profile (scripts/test
gives the workspace's, whose release build holds the command's dependencies).
Without TOOLSPEC_PACKAGES the crates point at this checkout (`--toolspec-path`).

The made crates build into one persistent CARGO_TARGET_DIR (TOOLSPEC_INIT_TARGET, default
target/init-e2e) with the workspace's Cargo.lock, so the three share their dependencies and a
warm CI rebuilds only the made crates. PostgreSQL comes from TOOLSPEC_POSTGRES_URL
(scripts/with-postgres); with TOOLSPEC_REQUIRE_POSTGRES=1 (scripts/test) its absence fails.

    scripts/package && TOOLSPEC_PACKAGES=target/package TOOLSPEC_BIN=target/release/toolspec \\
        TOOLSPEC_REQUIRE_POSTGRES=1 scripts/with-postgres .venv/bin/pytest -q tests/e2e/test_init.py
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_client import Connection, connect_http, connect_stdio, http_server, run

ROOT = Path(__file__).resolve().parents[2]
TOOLSPEC = os.environ.get("TOOLSPEC_BIN", "")
POSTGRES_URL = os.environ.get("TOOLSPEC_POSTGRES_URL", "")
REQUIRE_POSTGRES = os.environ.get("TOOLSPEC_REQUIRE_POSTGRES") == "1"
TARGET = Path(os.environ.get("TOOLSPEC_INIT_TARGET", ROOT / "target" / "init-e2e"))
PACKAGES = os.environ.get("TOOLSPEC_PACKAGES", "")
# Where the command installed from its package is built (see that test).
INSTALL_TARGET = os.environ.get("TOOLSPEC_INSTALL_TARGET", "")
# Building a made crate cold compiles the runtime and its dependencies.
BUILD_TIMEOUT_S = 1800

pytestmark = pytest.mark.skipif(
    not TOOLSPEC and not REQUIRE_POSTGRES,
    reason="set TOOLSPEC_BIN to the release toolspec binary",
)

_schemas = itertools.count()


@dataclass(frozen=True)
class Made:
    """A crate made by `toolspec init` and built: its store and its server binary."""

    store: str
    server: str
    tmp: Path

    @property
    def service(self) -> str:
        return f"shop_{self.store}"

    def args(self) -> list[str]:
        """The server's arguments: a fresh store each time it starts."""
        n = next(_schemas)
        if self.store == "sqlite":
            return ["--db", str(self.tmp / f"shop-{n}.db")]
        if self.store == "postgres":
            return ["--db", POSTGRES_URL, "--schema", f"init_e2e_{os.getpid()}_{n}"]
        return []


def cargo(args: list[str], cwd: Path) -> None:
    """Runs cargo in the made crate, into the shared target directory; fails the test with
    cargo's output when it fails."""
    # No debug info: what is tested is that the crate builds, passes and serves; debug info
    # for the runtime and its dependencies was most of the build's disk and link time.
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET), CARGO_PROFILE_DEV_DEBUG="false")
    if POSTGRES_URL:
        env.setdefault("DATABASE_URL", POSTGRES_URL)
    started = time.monotonic()
    # At the lowest priority: scripts/test runs other end-to-end files beside these
    # builds, and the timing those tests observe must stay their servers'.
    done = subprocess.run(
        ["nice", "-n", "19", "cargo", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    took = time.monotonic() - started
    print(f"cargo {' '.join(args)} in {cwd.name}: {took:.0f}s")
    assert done.returncode == 0, f"cargo {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    if args[0] == "test":
        # The gauntlet ran: one test binary with its checks (the others have none).
        ran = [int(n) for n in re.findall(r"test result: ok\. (\d+) passed", done.stdout)]
        assert max(ran, default=0) >= 50, done.stdout


@pytest.fixture(scope="module", params=["memory", "sqlite", "postgres"])
def made(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Made]:
    store = request.param
    if not TOOLSPEC:
        pytest.fail("TOOLSPEC_BIN is not set: scripts/test sets it to target/release/toolspec")
    if shutil.which("cargo") is None:
        pytest.fail("cargo is not on PATH")
    if store == "postgres" and not POSTGRES_URL:
        if REQUIRE_POSTGRES:
            pytest.fail("TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set")
        pytest.skip("set TOOLSPEC_POSTGRES_URL (scripts/with-postgres) for the PostgreSQL crate")
    tmp = tmp_path_factory.mktemp(f"init-{store}")
    name = f"shop-{store}"  # one name per store: their binaries share the target directory
    source = [] if PACKAGES else ["--toolspec-path", str(ROOT)]
    out = subprocess.run(
        [TOOLSPEC, "init", name, "--store", store, *source], cwd=tmp, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert f"cd {name} && cargo test && cargo run" in out.stdout, out.stdout
    crate = tmp / name
    if PACKAGES:
        # As a user gets it: versions, no path into a checkout; the packages stand in for
        # crates.io.
        manifest = (crate / "Cargo.toml").read_text()
        assert "path =" not in manifest and 'toolspec = { version = "0.1" }' in manifest, manifest
        take_packages(crate)
    # The workspace's versions of every dependency: already downloaded, already built in a
    # warm target directory, and the same the runtime is tested with.
    shutil.copy(ROOT / "Cargo.lock", crate / "Cargo.lock")
    cargo(["test"], crate)
    cargo(["build"], crate)
    server = TARGET / "debug" / name
    assert server.is_file(), f"no server binary at {server}"
    yield Made(store, str(server), tmp)


def take_packages(directory: Path) -> None:
    """Cargo run in `directory` takes the toolspec crates from their packages."""
    patch = Path(PACKAGES).resolve() / "patch.toml"
    assert patch.is_file(), f"no {patch}: run scripts/package"
    (directory / ".cargo").mkdir(exist_ok=True)
    shutil.copy(patch, directory / ".cargo" / "config.toml")


def test_the_command_installs_from_its_package_and_checks_the_example_specs(tmp_path: Path) -> None:
    if not PACKAGES:
        pytest.skip("set TOOLSPEC_PACKAGES to the directory scripts/package fills")
    unpacked = sorted((Path(PACKAGES).resolve() / "unpacked").glob("toolspec-cli-*"))
    assert unpacked, "scripts/package left no toolspec-cli package"
    # `cargo install --path` reads no `.cargo/config.toml` of the directory it runs in: the
    # patch table goes on the command line. `--locked`: the package's own Cargo.lock, as a
    # user's `cargo install --locked` takes it.
    patch = Path(PACKAGES).resolve() / "patch.toml"
    args = ["install", "--locked", "--config", str(patch), "--path", str(unpacked[-1]),
            "--root", str(tmp_path / "root")]
    if INSTALL_TARGET:
        # A release build beside the one that already holds the command's dependencies
        # (scripts/build-release builds the command alone, so they resolve as they do here):
        # only the toolspec crates compile.
        args += ["--target-dir", INSTALL_TARGET]
    else:
        # A debug build into the made crates' target directory: what is checked is that the
        # package builds and works, not how fast.
        args += ["--debug"]
    cargo(args, tmp_path)
    toolspec = tmp_path / "root" / "bin" / "toolspec"
    specs = sorted(str(p) for p in (ROOT / "specs").glob("*.yaml"))
    done = subprocess.run([str(toolspec), "check", *specs], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"ok: {len(specs)} specs, "), done.stdout


async def walk_the_tools(conn: Connection, service: str) -> None:
    """What a newcomer tries first, each tier once."""
    names = sorted(await conn.tool_names())
    assert names == sorted(f"{service}_{t}" for t in ["search_items", "update_quantity", "remove_item"])

    # A paged read: three mugs, two per page.
    search = f"{service}_search_items"
    first = await conn.call_ok(search, {"query": "mug", "limit": 2})
    assert first["total"] == 3
    assert [i["item_id"] for i in first["items"]] == ["I-1", "I-3"]
    assert first.get("next_cursor"), first
    second = await conn.call_ok(search, {"query": "mug", "limit": 2, "cursor": first["next_cursor"]})
    assert [i["item_id"] for i in second["items"]] == ["I-4"]
    assert "next_cursor" not in second, second

    async def quantity(item_id: str) -> int:
        found = await conn.call_ok(search, {"query": "blue mug"})
        return next(i["quantity"] for i in found["items"] if i["item_id"] == item_id)

    # The reversible write, and its undo, which restores the real prior state.
    changed = await conn.call_ok(
        f"{service}_update_quantity", {"item_id": "I-1", "quantity": 20, "idempotency_key": "k-e2e-1"}
    )
    assert changed["previous_quantity"] == 12 and changed["item"]["quantity"] == 20
    assert await quantity("I-1") == 20
    undo = changed["undo"]
    assert undo["tool"] == f"{service}_update_quantity" and undo["arguments"]["quantity"] == 12
    undone = await conn.call_ok(undo["tool"], undo["arguments"])
    assert undone["previous_quantity"] == 20
    assert await quantity("I-1") == 12

    # The irreversible write: a call without preview_id only previews; nothing changes
    # until the preview is applied.
    remove = f"{service}_remove_item"
    args = {"item_id": "I-3", "idempotency_key": "k-e2e-remove"}
    preview = await conn.call_ok(remove, args)
    assert preview["applied"] is False
    assert preview["preview"]["name"] == "red mug", preview
    assert (await conn.call_ok(search, {"query": "mug"}))["total"] == 3
    done = await conn.call_ok(remove, {**args, "preview_id": preview["preview"]["preview_id"]})
    assert done["applied"] is True and done["item"]["item_id"] == "I-3", done
    assert (await conn.call_ok(search, {"query": "mug"}))["total"] == 2
    # A preview is applied once: the same id again changes nothing more.
    again = await conn.call(remove, {**args, "idempotency_key": "k-e2e-remove-2", "preview_id": preview["preview"]["preview_id"]})
    assert again.is_error, again.structured
    assert (await conn.call_ok(search, {"query": "mug"}))["total"] == 2


def test_the_made_server_over_stdio(made: Made) -> None:
    async def scenario() -> None:
        async with connect_stdio(made.server, made.args(), cwd=str(made.tmp)) as conn:
            assert conn.server_name == f"shop-{made.store}"
            await walk_the_tools(conn, made.service)

    run(scenario)


def test_the_made_server_over_http(made: Made) -> None:
    with http_server(made.server, made.args()) as url:

        async def scenario() -> None:
            async with connect_http(url) as conn:
                await walk_the_tools(conn, made.service)

        run(scenario)
