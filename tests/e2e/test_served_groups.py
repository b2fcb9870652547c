"""End-to-end: a server that serves part of a catalog, as an operator starts it.

Runs the forward-fixture binary (FORWARD_FIXTURE) on the Petstore draft of
`toolspec import openapi`, whose three tags became three groups (`pet`, loaded up front,
`store` and `user`), through the official Python `mcp` client over stdio:

- `--groups store,user` lists exactly those groups' tools, the same on every connection;
  the variable `PETSTORE_GROUPS` does the same, and a flag wins over it;
- `--read-only` lists no tool that changes anything, and `--groups` with it their
  intersection;
- a call to a tool the server does not serve is refused, naming the group that holds it (or
  saying the server is read-only), and never reaches the API;
- the tools of the group loaded up front carry `_meta["anthropic/alwaysLoad"]`;
- an unknown group stops the server at startup with the groups it has.

No call reaches an API: the base URL is a closed port, so a call that was forwarded would
fail with `unavailable`, not with the refusal these tests expect.

    FORWARD_FIXTURE=target/debug/forward-fixture .venv/bin/pytest -q tests/e2e/test_served_groups.py
"""

from __future__ import annotations

import os
import subprocess

import pytest
from mcp_client import MCPError, connect_stdio, free_port, run

SERVER = os.environ.get("FORWARD_FIXTURE", "")

pytestmark = pytest.mark.skipif(not SERVER, reason="set FORWARD_FIXTURE to the forward-fixture binary")

TOOLS = {
    "pet": [
        "petstore_pet_update",
        "petstore_pet_add",
        "petstore_pets_find_by_status",
        "petstore_pets_find_by_tags",
        "petstore_pet_get",
        "petstore_pet_update_with_form",
        "petstore_pet_delete",
    ],
    "store": [
        "petstore_inventory_get",
        "petstore_order_place",
        "petstore_order_get",
        "petstore_order_delete",
    ],
    "user": [
        "petstore_user_create",
        "petstore_users_create_with_list_input",
        "petstore_user_login",
        "petstore_user_logout",
        "petstore_user_get_by_name",
        "petstore_user_update",
        "petstore_user_delete",
    ],
}


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("PETSTORE_")}
    # Nothing listens there: a forwarded call could only fail as unreachable.
    out["PETSTORE_BASE_URL"] = f"http://127.0.0.1:{free_port()}"
    out.update(extra)
    return out


async def listed(args: list[str], **extra: str) -> dict[str, dict]:
    async with connect_stdio(SERVER, ["petstore", *args], env=env(**extra)) as conn:
        return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in await conn.list_tools()}


def test_the_whole_catalog_is_served_by_default_and_the_up_front_group_is_kept_loaded() -> None:
    tools = run(lambda: listed([]))
    assert sorted(tools) == sorted(sum(TOOLS.values(), []))
    for name, tool in tools.items():
        always = tool.get("_meta", {}).get("anthropic/alwaysLoad")
        assert always is (True if name in TOOLS["pet"] else None), (name, tool.get("_meta"))


def test_groups_list_exactly_their_tools_on_every_connection() -> None:
    async def scenario() -> None:
        first = await listed(["--groups", "store,user"])
        again = await listed(["--groups=store,user"])
        assert list(first) == TOOLS["store"] + TOOLS["user"]
        assert first == again

    run(scenario)


def test_the_variable_chooses_the_groups_and_a_flag_wins_over_it() -> None:
    async def scenario() -> None:
        assert list(await listed([], PETSTORE_GROUPS="user")) == TOOLS["user"]
        assert list(await listed(["--groups", "store"], PETSTORE_GROUPS="user")) == TOOLS["store"]

    run(scenario)


def test_read_only_lists_no_write_and_with_groups_their_reads() -> None:
    async def scenario() -> None:
        tools = await listed(["--read-only"])
        assert tools, "reads are served"
        assert all(t["annotations"]["readOnlyHint"] is True for t in tools.values()), tools
        assert "petstore_pet_add" not in tools and "petstore_pet_get" in tools
        reads = await listed(["--read-only"], PETSTORE_GROUPS="store")
        assert list(reads) == ["petstore_inventory_get", "petstore_order_get"]
        assert list(await listed([], PETSTORE_READ_ONLY="1", PETSTORE_GROUPS="store")) == list(reads)

    run(scenario)


def test_a_tool_of_another_group_is_refused_with_the_group_that_holds_it() -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["petstore", "--groups", "store"], env=env()) as conn:
            with pytest.raises(MCPError) as refused:
                await conn.call("petstore_pet_get", {"pet_id": 1})
            message = str(refused.value)
            assert "'petstore_pet_get' is in group 'pet'" in message, message
            assert "it serves store" in message, message
            data = refused.value.error.data
            assert data["code"] == "unknown_tool" and data["retryable"] is False, data
            assert data["details"]["group"] == "pet", data
            assert data["details"]["allowed"] == TOOLS["store"], data

    run(scenario)


def test_a_write_on_a_read_only_server_is_refused_as_such() -> None:
    async def scenario() -> None:
        async with connect_stdio(SERVER, ["petstore", "--read-only"], env=env()) as conn:
            with pytest.raises(MCPError) as refused:
                await conn.call("petstore_order_delete", {"order_id": 1})
            message = str(refused.value)
            assert "changes data, and this server is read-only" in message, message
            assert refused.value.error.data["details"]["read_only_server"] is True

    run(scenario)


def test_an_unknown_group_stops_the_server_at_startup_with_its_groups() -> None:
    done = subprocess.run(
        [SERVER, "petstore", "--groups", "pets"],
        env=env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done
    assert "no group `pets`; this toolset's groups: pet, store, user" in done.stderr, done.stderr
    assert done.stdout == ""
