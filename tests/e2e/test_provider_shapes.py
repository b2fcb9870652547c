"""Every provider tool list the generator writes, against the request types of the
providers' own Python SDKs (pinned in requirements.txt), as strictly as the APIs take
them: unknown keys refused at every depth, required keys present, literals and JSON types
exact.

Each directory holding a `tools.mcp.json` (generated/*, tests/corpus/generated/*,
tests/constructs/generated/*, any other outside target/) is checked file by file:
- tools.anthropic.json: an array of `anthropic.types.ToolUnionParam` (anthropic 2.17.0,
  non-beta: custom tools, `defer_loading`, the BM25 and regex tool search tools);
- tools.openai.json: an array of `openai.types.chat.ChatCompletionFunctionToolParam`
  (openai 3.63.0);
- tools.openai-responses.json: an array of `openai.types.responses.ToolParam` (functions,
  namespaces of functions, `tool_search`); required in every directory once one has it;
- tools.gemini.json: an array of `{"functionDeclarations": [...]}` (a Gemini Tool), each
  declaration a `google.genai.types.FunctionDeclaration` (google-genai 3.6.1) with a name;
- tools.mcp.json: `{"tools": [...]}`, each an `mcp.types.Tool` (mcp 2.3.0) in wire names.
The TypedDict walk and the pydantic settings are in provider_shapes.py; the last tests
show that it fails where the APIs would, naming the JSON path.
"""

from __future__ import annotations

import json
import os
import subprocess
import typing
from pathlib import Path
from typing import Any

import mcp.types
import pytest
from anthropic.types import ToolUnionParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import NamespaceToolParam, ToolParam, ToolSearchToolParam
from provider_shapes import check, check_model

ROOT = Path(__file__).resolve().parents[2]
SKIP = {"target", ".venv", "node_modules", ".git"}
PROVIDERS = ("anthropic", "openai", "openai-responses", "gemini", "mcp")


def tool_dirs() -> list[Path]:
    """Directories holding a tools.mcp.json, without walking build output."""
    found = []
    for here, subdirs, files in os.walk(ROOT):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP)
        if "tools.mcp.json" in files:
            found.append(Path(here))
    return found


DIRS = tool_dirs()
HAS_RESPONSES = [d for d in DIRS if (d / "tools.openai-responses.json").exists()]


def array_of(data: Any, per_entry) -> list[str]:
    if not isinstance(data, list):
        return [f": expected an array, got {type(data).__name__}"]
    return [p for i, entry in enumerate(data) for p in per_entry(entry, f"[{i}]")]


def gemini_tool(entry: Any, path: str) -> list[str]:
    # The file holds Gemini `Tool`s; the generator writes only function declarations.
    if not isinstance(entry, dict) or set(entry) != {"functionDeclarations"}:
        return [f"{path}: expected {{\"functionDeclarations\": [...]}}, got {json.dumps(entry)[:60]}"]
    declarations = entry["functionDeclarations"]
    if not isinstance(declarations, list):
        return [f"{path}.functionDeclarations: expected an array"]
    problems = []
    for i, declaration in enumerate(declarations):
        where = f"{path}.functionDeclarations[{i}]"
        # The REST API takes proto JSON, whose parsers accept snake_case names as well.
        problems += check_model(declaration, genai.FunctionDeclaration, where, by_name=True)
        # Optional in the SDK, required by the API.
        if isinstance(declaration, dict) and "name" not in declaration:
            problems.append(f"{where}.name: missing required key")
    return problems


def mcp_list(data: Any) -> list[str]:
    # The `tools/list` result as the server sends it, paging fields aside.
    if not isinstance(data, dict) or set(data) != {"tools"} or not isinstance(data["tools"], list):
        return [f": expected {{\"tools\": [...]}}, got {json.dumps(data)[:60]}"]
    return [p for i, tool in enumerate(data["tools"]) for p in check_model(tool, mcp.types.Tool, f"tools[{i}]")]


def problems_in(provider: str, data: Any) -> list[str]:
    """Every problem of a decoded tool list file of `provider`."""
    if provider == "anthropic":
        return array_of(data, lambda e, p: check(e, ToolUnionParam, p))
    if provider == "openai":
        return array_of(data, lambda e, p: check(e, ChatCompletionFunctionToolParam, p))
    if provider == "openai-responses":
        return array_of(data, lambda e, p: check(e, ToolParam, p))
    if provider == "gemini":
        return array_of(data, gemini_tool)
    return mcp_list(data)


def test_sdks_know_the_new_tool_shapes() -> None:
    # openai < 2.25.0 has neither; their absence would make every namespace "unknown".
    assert NamespaceToolParam in typing.get_args(ToolParam)
    assert ToolSearchToolParam in typing.get_args(ToolParam)
    assert len(DIRS) >= 3, f"found only {DIRS}"


@pytest.mark.parametrize(
    ("directory", "provider"),
    [(d, p) for d in DIRS for p in PROVIDERS],
    ids=[f"{d.relative_to(ROOT)}:{p}" for d in DIRS for p in PROVIDERS],
)
def test_tool_list_fits_the_sdk(directory: Path, provider: str) -> None:
    path = directory / f"tools.{provider}.json"
    if not path.exists():
        if provider == "openai-responses" and not HAS_RESPONSES:
            pytest.skip("no directory has tools.openai-responses.json yet")
        others = ", ".join(str(d.relative_to(ROOT)) for d in HAS_RESPONSES[:3])
        pytest.fail(f"{path.relative_to(ROOT)} is missing" + (f" (present in {others})" if others else ""))
    data = json.loads(path.read_text(encoding="utf-8"))
    problems = problems_in(provider, data)
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


CATALOG = ROOT / "tests" / "import" / "catalog" / "github.yaml"
TOOLSPEC = os.environ.get("TOOLSPEC_BIN", "")


@pytest.mark.skipif(not TOOLSPEC, reason="set TOOLSPEC_BIN to the toolspec binary")
def test_a_catalog_of_groups_makes_lists_each_sdk_takes(tmp_path: Path) -> None:
    """GitHub's pulls, issues and repos as one spec of three groups, generated now: the
    Anthropic list with `defer_loading` and the tool search tool, the Responses list of
    namespaces and `tool_search`, MCP's `_meta`, each fits its SDK's types."""
    done = subprocess.run(
        [TOOLSPEC, "generate", str(CATALOG), "--out", str(tmp_path), "--emit", "schemas"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    directory = tmp_path / "github"
    for provider in PROVIDERS:
        data = json.loads((directory / f"tools.{provider}.json").read_text(encoding="utf-8"))
        problems = problems_in(provider, data)
        assert not problems, f"{provider}:\n  " + "\n  ".join(problems[:20])
    anthropic = json.loads((directory / "tools.anthropic.json").read_text(encoding="utf-8"))
    assert anthropic[0]["type"] == "tool_search_tool_bm25_20251119"
    assert any(t.get("defer_loading") for t in anthropic)
    responses = json.loads((directory / "tools.openai-responses.json").read_text(encoding="utf-8"))
    assert [t["type"] for t in responses] == ["namespace", "namespace", "namespace", "tool_search"]


# The validator itself: what it must let through, and what it must refuse, by path.

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"],
          "additionalProperties": False}
ANTHROPIC_TOOL = {"name": "find", "description": "Find.", "input_schema": SCHEMA, "strict": True,
                  "input_examples": [{"q": "x"}]}
RESPONSES_FUNCTION = {"type": "function", "name": "find", "description": "Find.", "parameters": SCHEMA,
                      "strict": True}
NAMESPACE = {"type": "namespace", "name": "crm", "description": "CRM tools.",
             "tools": [{**RESPONSES_FUNCTION, "defer_loading": True}]}
GEMINI = [{"functionDeclarations": [{"name": "find", "description": "Find.",
                                     "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]}]
MCP = {"tools": [{"name": "find", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}}]}


def test_the_coming_shapes_fit() -> None:
    assert problems_in("anthropic", [
        {**ANTHROPIC_TOOL, "defer_loading": True},
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    ]) == []
    assert problems_in("openai-responses", [RESPONSES_FUNCTION, NAMESPACE, {"type": "tool_search"}]) == []
    assert problems_in("gemini", GEMINI) == []
    tool = {**MCP["tools"][0], "_meta": {"anthropic/alwaysLoad": True}}
    assert problems_in("mcp", {"tools": [tool]}) == []


@pytest.mark.parametrize(("provider", "data", "expected"), [
    ("anthropic", [ANTHROPIC_TOOL, {**ANTHROPIC_TOOL, "defer_load": True}], "[1].defer_load: unknown key"),
    ("openai", [{"type": "function", "function": {"name": "f", "parameters": SCHEMA, "strict": True, "x": 1}}],
     "[0].function.x: unknown key"),
    ("openai-responses", [{**NAMESPACE, "tools": [{**RESPONSES_FUNCTION, "deferred": True}]}],
     "[0].tools[0].deferred: unknown key"),
    ("gemini", [{"functionDeclarations": [{**GEMINI[0]["functionDeclarations"][0], "strict": True}]}],
     "[0].functionDeclarations[0].strict: unknown key"),
    ("mcp", {"tools": [{**MCP["tools"][0], "annotations": {"readOnly": True}}]},
     "tools[0].annotations.readOnly: unknown key"),
], ids=["anthropic", "openai", "openai-responses", "gemini", "mcp"])
def test_unknown_key_is_refused(provider: str, data: Any, expected: str) -> None:
    assert any(p.startswith(expected) for p in problems_in(provider, data)), problems_in(provider, data)


@pytest.mark.parametrize(("provider", "data", "expected"), [
    ("anthropic", [{"name": "find", "description": "Find."}], "[0].input_schema: missing required key"),
    ("openai", [{"type": "function", "function": {"description": "d", "parameters": SCHEMA}}],
     "[0].function.name: missing required key"),
    ("openai-responses", [{k: v for k, v in RESPONSES_FUNCTION.items() if k != "strict"}],
     "[0].strict: missing required key"),
    ("gemini", [{"functionDeclarations": [{"description": "Find."}]}],
     "[0].functionDeclarations[0].name: missing required key"),
    ("mcp", {"tools": [{"name": "find"}]}, "tools[0].inputSchema: Field required"),
], ids=["anthropic", "openai", "openai-responses", "gemini", "mcp"])
def test_missing_required_key_is_refused(provider: str, data: Any, expected: str) -> None:
    assert any(p.startswith(expected) for p in problems_in(provider, data)), problems_in(provider, data)


@pytest.mark.parametrize(("provider", "data", "expected"), [
    ("anthropic", [{"type": "tool_search_tool_bm25_20251120", "name": "tool_search_tool_bm25"}], "[0].type: "),
    ("anthropic", [{**ANTHROPIC_TOOL, "strict": "true"}], "[0].strict: expected boolean, got string"),
    ("openai", [{"type": "custom", "function": {"name": "f"}}], '[0].type: "custom" is not one of ["function"]'),
    ("openai-responses", [{**RESPONSES_FUNCTION, "type": "functions"}], '[0].type: "functions" is not one of'),
    ("gemini", [{"functionDeclarations": [{"name": "f", "parameters": {"type": "objectx"}}]}],
     '[0].functionDeclarations[0].parameters.type: "objectx" is not one of'),
    ("mcp", {"tools": [{**MCP["tools"][0], "annotations": {"readOnlyHint": "true"}}]},
     "tools[0].annotations.readOnlyHint: "),
], ids=["anthropic-search", "anthropic-strict", "openai", "openai-responses", "gemini", "mcp"])
def test_wrong_literal_or_type_is_refused(provider: str, data: Any, expected: str) -> None:
    assert any(p.startswith(expected) for p in problems_in(provider, data)), problems_in(provider, data)


def test_namespace_with_a_non_function_member_is_refused() -> None:
    for member in ({"type": "tool_search"}, {**NAMESPACE, "tools": []}):
        problems = problems_in("openai-responses", [RESPONSES_FUNCTION, {**NAMESPACE, "tools": [member]}])
        assert any(p.startswith(f'[1].tools[0].type: "{member["type"]}" is not one of') for p in problems), problems


def test_file_shapes_are_refused() -> None:
    assert problems_in("anthropic", {"tools": []}) == [": expected an array, got dict"]
    assert problems_in("mcp", [MCP["tools"][0]])[0].startswith(': expected {"tools": [...]}')
    assert problems_in("gemini", [GEMINI[0]["functionDeclarations"][0]])[0].startswith(
        '[0]: expected {"functionDeclarations": [...]}')
