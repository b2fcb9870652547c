"""End to end: the same tasks against the whole tool list and the deferred one, with
`toolspec eval --list whole|deferred`, on the two providers that defer.

The spec is the Petstore draft of `toolspec import openapi` (tests/import/drafts/): three
groups from the document's three tags, `pet` loaded up front, `store` and `user` deferred.
Its server is the forward-fixture binary (FORWARD_FIXTURE), forwarding every call to
Stoplight Prism serving the Petstore document. The provider is scripted_provider.py, which
serves deferred tools as Anthropic and OpenAI do: the model sees only what is loaded, a
turn that searches gets the hosted search's blocks, and a call of a deferred tool no search
has loaded is refused, as a model could not have made it.

    TOOLSPEC_BIN=target/release/toolspec FORWARD_FIXTURE=target/debug/forward-fixture \\
        TOOLSPEC_PRISM_DIR=tests/e2e/prism .venv/bin/pytest -q tests/e2e/test_eval_deferred.py
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prism_mock import PRISM_DIR, Mock, prism
from scripted_provider import ScriptedProvider

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("FORWARD_FIXTURE", "")
TOOLSPEC = os.environ.get("TOOLSPEC_BIN", "")

pytestmark = pytest.mark.skipif(
    not SERVER or not TOOLSPEC or not PRISM_DIR,
    reason="set TOOLSPEC_BIN, FORWARD_FIXTURE and TOOLSPEC_PRISM_DIR (scripts/test does)",
)

SPEC = "tests/import/drafts/petstore.yaml"
KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai-responses": "OPENAI_API_KEY"}
WIRE = {"anthropic": "anthropic", "openai-responses": "responses"}

TASKS = """\
eval: 1
tasks:
  - id: pet-status
    prompt: Is pet 10 still for sale?
    tiers: [read_only]
    expect:
      calls: [{ tool: petstore_pet_get, arguments: { petId: 10 } }]
  - id: order-status
    prompt: Has order 10 shipped yet?
    tiers: [read_only]
    expect:
      calls: [{ tool: petstore_order_get, arguments: { orderId: 10 } }]
  - id: user-by-name
    prompt: What is the email address of the user theUser?
    tiers: [read_only]
    expect:
      calls: [{ tool: petstore_user_get_by_name, arguments: { username: theUser } }]
"""

# Each task's call, and the words a search for its tool would use (None: loaded up front).
CALLS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "Is pet 10 still for sale?": ("petstore_pet_get", {"petId": 10}, None),
    "Has order 10 shipped yet?": ("petstore_order_get", {"orderId": 10}, "order status"),
    "What is the email address of the user theUser?": ("petstore_user_get_by_name", {"username": "theUser"}, "user by name"),
}


def script(searches: bool) -> dict[str, Any]:
    """One run per task: the call (after a search for a deferred tool, when `searches`),
    then an answer."""
    out = {}
    for prompt, (tool, arguments, words) in CALLS.items():
        first: dict[str, Any] = {"calls": [{"name": tool, "arguments": arguments}]}
        if searches and words is not None:
            first["search"] = words
        out[prompt] = [[[first], [{"text": "Done: the API answered."}]]]
    return out


@pytest.fixture(scope="module")
def petstore() -> Iterator[Mock]:
    with prism("petstore3.yaml") as mock:
        yield mock


def evaluate(provider: str, provider_base: str, key: str, api: str, out: Path, *extra: str
             ) -> subprocess.CompletedProcess[str]:
    tasks = out.parent / "tasks.yaml"
    tasks.write_text(TASKS)
    env = {**os.environ, KEYS[provider]: key, "PETSTORE_BASE_URL": api, "PETSTORE_API_KEY": "e2e"}
    return subprocess.run(
        [TOOLSPEC, "eval", SPEC, "--tasks", str(tasks), "--no-derived", "--server", f"{SERVER} petstore",
         "--provider", provider, "--model", "scripted-1", "--base-url", provider_base, "--out", str(out),
         *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def sent_tools(scripted: ScriptedProvider) -> list[Any]:
    return [body["tools"] for _, body in scripted.requests]


@pytest.mark.parametrize("provider", ["anthropic", "openai-responses"])
def test_the_deferred_list_reaches_every_tool_through_searches_for_fewer_tokens(
        provider: str, petstore: Mock, tmp_path: Path) -> None:
    key = f"sk-test-{uuid.uuid4().hex}"
    wire = WIRE[provider]
    whole, deferred = tmp_path / "whole" / "run", tmp_path / "deferred" / "run"
    for d in (whole, deferred):
        d.parent.mkdir()

    with ScriptedProvider(script(searches=False), key) as scripted:
        done = evaluate(provider, scripted.base(wire), key, petstore.url, whole, "--list", "whole")
        assert scripted.violations == [], scripted.violations
        # Every tool loaded: no search tool, nothing deferred, no namespace.
        for tools in sent_tools(scripted):
            assert all(t.get("type") in (None, "custom", "function") for t in tools), tools
            assert not any(t.get("defer_loading") for t in tools)
    assert done.returncode == 0, done.stdout + done.stderr

    with ScriptedProvider(script(searches=True), key) as scripted:
        done = evaluate(provider, scripted.base(wire), key, petstore.url, deferred,
                        "--baseline", str(whole / "report.json"))
        assert scripted.violations == [], scripted.violations
        kinds = [t.get("type") for t in sent_tools(scripted)[0]]
        if provider == "anthropic":
            assert kinds[0] == "tool_search_tool_bm25_20251119", kinds
        else:
            assert kinds.count("namespace") == 3 and "tool_search" in kinds, kinds
    assert done.returncode == 0, done.stdout + done.stderr

    before = json.loads((whole / "report.json").read_text())
    after = json.loads((deferred / "report.json").read_text())
    assert (before["list"], after["list"]) == ("whole", "deferred")
    for report in (before, after):
        assert report["summary"]["passed"] == report["summary"]["runs"] == 3, report["summary"]
        # Every call reached the API through the server and came back answered.
        assert report["summary"]["errors"] == {}, report["summary"]
    assert (before["summary"]["searches"], after["summary"]["searches"]) == (0, 2)
    # The model reads less up front: the deferred groups' definitions wait for a search.
    assert after["list_tokens"] < before["list_tokens"], (after["list_tokens"], before["list_tokens"])
    assert "note: the baseline was sent the whole tool list, this run the deferred one" in done.stdout
    assert "tool searches 0 -> 2" in done.stdout, done.stdout
    assert f"tool list up front {before['list_tokens']} -> {after['list_tokens']} tokens" in done.stdout
    # The search's blocks went back to the provider as they came (the scripted provider
    # checks every turn sent back against what it said), and are in the transcript.
    transcript = (deferred / "transcripts" / "order-status.1.jsonl").read_text()
    assert '"searches":1' in transcript
    assert ("tool_search_tool_result" if provider == "anthropic" else "tool_search_output") in transcript


@pytest.mark.parametrize("provider", ["anthropic", "openai-responses"])
def test_a_deferred_tool_no_search_loaded_cannot_be_called(provider: str, petstore: Mock, tmp_path: Path) -> None:
    """The scripted provider holds a script to what a model could do: the deferred list
    without a search does not reach `petstore_order_get`; a search that finds other tools
    does not either."""
    key = f"sk-test-{uuid.uuid4().hex}"
    out = tmp_path / "run"
    bad = script(searches=False)
    bad["What is the email address of the user theUser?"][0][0][0]["search"] = "pet photo upload"
    with ScriptedProvider(bad, key) as scripted:
        done = evaluate(provider, scripted.base(WIRE[provider]), key, petstore.url, out)
        assert any("petstore_order_get, which is deferred and no tool search loaded it" in v
                   for v in scripted.violations), scripted.violations
        assert any("petstore_user_get_by_name, which is deferred" in v and "'pet photo upload'" in v
                   for v in scripted.violations), scripted.violations
    assert done.returncode == 1
    report = json.loads((out / "report.json").read_text())
    by_id = {t["id"]: t for t in report["tasks"]}
    assert by_id["pet-status"]["passed"] == 1
    assert by_id["order-status"]["passed"] == 0 and by_id["user-by-name"]["passed"] == 0
