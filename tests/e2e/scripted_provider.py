"""A scripted model provider for `toolspec eval`: speaks the four wires, plays recorded model
behaviour, and checks every request as strictly as the provider would.

    with ScriptedProvider(script, key="sk-test") as provider:
        provider.base("anthropic")        # the --base-url for that wire
        ...
        provider.violations               # every request the real API would have refused

A script maps a task's prompt to its runs; a run is a list of turns; a turn is a list of
attempts, each an error to answer (`{"status": 429, "retry_after": "0"}`, `{"status": 529}`,
`{"status": 200, "raw": "not json"}`) or the model's turn:

    {"text": "...", "calls": [{"name": "tickets_search", "arguments": {...}}],
     "usage": {"input": 900, "output": 40} | None,     # None: the answer carries no usage
     "after": "invalid_enum"}                          # the results it reads must hold this code

On the Chat wire a turn may also say `"object_arguments": true` and `"no_ids": true`, as
Ollama and llama.cpp answer.

Deferred tools (Anthropic's `defer_loading` beside a tool search tool; OpenAI Responses'
deferred functions and namespaces beside `tool_search`) are served as the providers do: the
model sees only what is loaded, and a turn that says `"search": "words"` runs the hosted
search on them (BM25 over each tool's name, description and arguments; a regex for
Anthropic's regex variant) and answers with the search's blocks before the calls
(`server_tool_use` and `tool_search_tool_result`; `tool_search_call` and
`tool_search_output`, the whole best namespace). A call of a tool that is deferred and not
loaded, by this turn's search or an earlier one in the history, is refused: the model could
not have made it. Requests are strict where the providers are: unknown top-level
fields, a tool list the API would refuse, a tool call left unanswered, an answer to a call
never made, a history that is not what the model said, a wrong key: each is a 400 (401 for
the key) with the provider's error shape, and is kept in `violations`.
"""

from __future__ import annotations

import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

ALLOWED = {
    "anthropic": {"model", "max_tokens", "system", "tools", "messages", "tool_choice",
                  "temperature", "metadata", "stop_sequences", "stream", "thinking", "top_k",
                  "top_p", "service_tier"},
    "responses": {"model", "input", "instructions", "tools", "store", "parallel_tool_calls",
                  "tool_choice", "temperature", "max_output_tokens", "previous_response_id",
                  "reasoning", "text", "metadata", "include", "truncation", "user"},
    "chat": {"model", "messages", "tools", "tool_choice", "temperature", "max_tokens",
             "max_completion_tokens", "parallel_tool_calls", "stream", "n", "seed", "user",
             "response_format", "top_p", "stop"},
    "gemini": {"contents", "tools", "toolConfig", "systemInstruction", "generationConfig",
               "safetySettings", "cachedContent"},
}


class Refused(Exception):
    """A request the real API would refuse."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ScriptedProvider:
    def __init__(self, script: dict[str, list[list[list[dict[str, Any]]]]], key: str) -> None:
        self.script = script
        self.key = key
        self.violations: list[str] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        # Per prompt: the run being played, and per (prompt, run, turn) the attempts made.
        self._run: dict[str, int] = {}
        self._attempt: dict[tuple[str, int, int], int] = {}
        # What the model said, per (prompt, run, turn), to check the history sent back.
        self._said: dict[tuple[str, int, int], Any] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def base(self, wire: str) -> str:
        root = f"http://127.0.0.1:{self._server.server_address[1]}"
        return {"anthropic": root, "gemini": root + "/v1beta"}.get(wire, root + "/v1")

    # -- the HTTP side --------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                wire = wire_of(self.path)
                try:
                    if wire is None:
                        raise Refused(f"no such endpoint: {self.path}", 404)
                    provider._check_headers(wire, self.headers)
                    try:
                        body = json.loads(raw)
                    except ValueError as e:
                        raise Refused(f"the body is not JSON: {e}") from e
                    with provider._lock:
                        provider.requests.append((wire, body))
                        status, headers, answer = provider._answer(wire, self.path, body)
                except Refused as e:
                    with provider._lock:
                        provider.violations.append(f"{wire}: {e}")
                    status, headers, answer = e.status, {}, error_body(wire, e.status, str(e))
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _check_headers(self, wire: str, headers: Any) -> None:
        if headers.get("content-type", "").split(";")[0] != "application/json":
            raise Refused("content-type must be application/json")
        if wire == "anthropic":
            if headers.get("x-api-key") != self.key:
                raise Refused("invalid x-api-key", 401)
            if not headers.get("anthropic-version"):
                raise Refused("anthropic-version: header is required")
        elif wire == "gemini":
            if headers.get("x-goog-api-key") != self.key:
                raise Refused("API key not valid", 401)
        elif headers.get("authorization") != f"Bearer {self.key}":
            raise Refused("Incorrect API key provided", 401)

    # -- the model side -------------------------------------------------------------------

    def _answer(self, wire: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        unknown = set(body) - ALLOWED[wire]
        if unknown:
            raise Refused(f"unknown fields: {sorted(unknown)}")
        check_tools(wire, body.get("tools"))
        prompt, history = CONVERSATION[wire](body)
        runs = self.script.get(prompt)
        if runs is None:
            raise Refused(f"no script for the prompt {prompt!r}")
        turn = sum(1 for m in history if m["role"] == "model")
        if turn == 0 and self._attempt.get((prompt, self._run.get(prompt, 0), 0), 0) >= len(
            runs[self._run.get(prompt, 0)][0]
        ):
            self._run[prompt] = self._run.get(prompt, 0) + 1
        run = self._run.setdefault(prompt, 0)
        if run >= len(runs):
            raise Refused(f"the script of {prompt!r} has {len(runs)} runs, and a run {run + 1} began")
        # The history must be exactly what the model said, each call answered once.
        said = [m for m in history if m["role"] == "model"]
        for i, m in enumerate(said):
            if m["said"] != self._said.get((prompt, run, i)):
                raise Refused(f"turn {i + 1} sent back is not what the model said: {m['said']!r}")
        if turn >= len(runs[run]):
            raise Refused(f"the script of {prompt!r} run {run + 1} has {len(runs[run])} turns; turn {turn + 1} was asked")
        attempts = runs[run][turn]
        n = self._attempt.get((prompt, run, turn), 0)
        if n >= len(attempts):
            raise Refused(f"turn {turn + 1} of {prompt!r} was asked again after its answer")
        self._attempt[(prompt, run, turn)] = n + 1
        step = attempts[n]
        if "after" in step:
            results = history[-1].get("results", []) if history else []
            codes = [r for r in results if step["after"] in r]
            if not codes:
                raise Refused(f"turn {turn + 1} expected a result with {step['after']!r}, got {results!r}")
        if step.get("status", 200) != 200:
            headers = {}
            if "retry_after" in step:
                headers["retry-after"] = step["retry_after"]
            return step["status"], headers, error_body(wire, step["status"], step.get("message", "scripted"))
        if "raw" in step:
            return 200, {}, step["raw"].encode()
        answer, said_back = MAKE[wire](step, turn, body)
        self._said[(prompt, run, turn)] = said_back
        return 200, {}, answer


def wire_of(path: str) -> str | None:
    if path == "/v1/messages":
        return "anthropic"
    if path == "/v1/responses":
        return "responses"
    if path == "/v1/chat/completions":
        return "chat"
    if re.fullmatch(r"/v1beta/models/[^/:]+:generateContent", path):
        return "gemini"
    return None


def error_body(wire: str, status: int, message: str) -> dict[str, Any]:
    if wire == "anthropic":
        kind = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}.get(
            status, "invalid_request_error" if status < 500 else "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}
    if wire == "gemini":
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


ANTHROPIC_SEARCH = re.compile(r"^tool_search_tool_(regex|bm25)(_20251119)?$")
RESERVED_NAMESPACES = {"web", "browser", "python", "computer"}


def check_tools(wire: str, tools: Any) -> None:
    if not isinstance(tools, list) or not tools:
        raise Refused("tools must be a non-empty array")
    names = []
    for t in tools:
        if wire == "anthropic":
            if ANTHROPIC_SEARCH.match(str(t.get("type", ""))):
                if set(t) - {"type", "name", "allowed_callers", "cache_control", "defer_loading", "strict"}:
                    raise Refused(f"tools: unknown fields {sorted(set(t))}")
                if t.get("name") != "tool_search_tool_" + ANTHROPIC_SEARCH.match(t["type"]).group(1):
                    raise Refused(f"tools: a {t['type']} tool is named {t.get('name')!r}")
                if t.get("defer_loading"):
                    raise Refused("tools: the tool search tool cannot be deferred")
                names.append(t["name"])
                continue
            if set(t) - {"type", "name", "description", "input_schema", "cache_control", "strict",
                         "input_examples", "defer_loading"} or t.get("type", "custom") != "custom":
                raise Refused(f"tools: unknown fields {sorted(set(t))}")
            if t.get("input_schema", {}).get("type") != "object":
                raise Refused("tools.input_schema: type must be object")
            if t.get("defer_loading") and "cache_control" in t:
                raise Refused("tools: cannot have both defer_loading=true and cache_control")
            names.append(t.get("name", ""))
        elif wire == "responses":
            if t.get("type") == "tool_search":
                if set(t) - {"type", "execution", "description", "parameters"}:
                    raise Refused(f"tools: unknown fields {sorted(set(t))}")
                continue
            if t.get("type") == "namespace":
                if set(t) - {"type", "name", "description", "tools"}:
                    raise Refused(f"tools: unknown fields {sorted(set(t))}")
                if not t.get("name") or not t.get("description") or not t.get("tools"):
                    raise Refused("tools: a namespace needs a name, a description and at least one tool")
                if t["name"] in RESERVED_NAMESPACES:
                    raise Refused(f"tools: the namespace name {t['name']!r} is reserved")
                members = t["tools"]
            else:
                members = [t]
            for f in members:
                if f.get("type") != "function" or "function" in f or "parameters" not in f:
                    raise Refused("tools: a function tool is {type, name, parameters, strict} at the top level")
                names.append(f.get("name", ""))
        elif wire == "chat":
            f = t.get("function") or {}
            if t.get("type") != "function" or "parameters" not in f:
                raise Refused("tools: a function tool is {type: function, function: {name, parameters}}")
            names.append(f.get("name", ""))
        else:
            for d in t.get("functionDeclarations", []):
                names.append(d.get("name", ""))
    for n in names:
        if not NAME.match(n):
            raise Refused(f"tools: name {n!r} does not match {NAME.pattern}")
    if len(set(names)) != len(names):
        raise Refused("tools: names must be unique")
    if wire == "anthropic" and all(t.get("defer_loading") for t in tools):
        raise Refused("At least one tool must have defer_loading=false. All tools cannot be deferred.")


# -- reading each wire's conversation: (the first prompt, [turns]) -------------------------
# A turn is {"role": "model", "said": ...} or {"role": "user", "results": [text...]}.


def anthropic_conversation(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    messages = body.get("messages")
    if not isinstance(body.get("max_tokens"), int) or not body.get("model"):
        raise Refused("model and max_tokens are required")
    if not messages or messages[0].get("role") != "user":
        raise Refused("messages: the first message must use the user role")
    history: list[dict[str, Any]] = []
    pending: list[str] = []
    for i, m in enumerate(messages):
        if i and m["role"] == messages[i - 1]["role"]:
            raise Refused("messages: roles must alternate between user and assistant")
        content = m["content"]
        if m["role"] == "assistant":
            for name in anthropic_references([m]):
                if name not in anthropic_tool_names(body.get("tools") or []):
                    raise Refused(f"Tool reference '{name}' not found in available tools")
            pending = [b["id"] for b in content if b.get("type") == "tool_use"]
            history.append({"role": "model", "said": content})
            continue
        if i == 0:
            continue
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        ids = [b.get("tool_use_id") for b in results]
        if sorted(ids) != sorted(pending):
            raise Refused(
                f"messages.{i}: tool_use ids were found without tool_result blocks immediately after: {pending}, got {ids}")
        if blocks[: len(results)] != results:
            raise Refused(f"messages.{i}: tool_result blocks must come first")
        for b in results:
            if not isinstance(b.get("content"), (str, list)):
                raise Refused(f"messages.{i}: tool_result content must be text or blocks")
        pending = []
        history.append({"role": "user", "results": [json.dumps(b) for b in results]})
    if pending:
        raise Refused("the last assistant turn's tool_use blocks are unanswered")
    first = messages[0]["content"]
    return (first if isinstance(first, str) else first[0]["text"]), history


def responses_conversation(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    items = body.get("input")
    if not isinstance(items, list) or not items:
        raise Refused("input must be a non-empty array")
    history: list[dict[str, Any]] = []
    calls: list[str] = []
    results: list[str] = []
    for item in items[1:]:
        kind = item.get("type")
        if kind == "function_call_output":
            if item.get("call_id") not in calls:
                raise Refused(f"No tool call found for function call output with call_id {item.get('call_id')}")
            if not isinstance(item.get("output"), str):
                raise Refused("function_call_output.output must be a string")
            calls.remove(item["call_id"])
            results.append(json.dumps(item))
            continue
        if results:
            history.append({"role": "user", "results": results})
            results = []
        if kind == "function_call":
            space = namespace_of(body.get("tools") or [], item.get("name"))
            if space is not None and item.get("namespace") != space:
                raise Refused(
                    f"Missing namespace for function_call '{item.get('name')}'. It does not exist in the default namespace.")
            calls.append(item["call_id"])
        if history and history[-1]["role"] == "model":
            history[-1]["said"].append(item)
        else:
            history.append({"role": "model", "said": [item]})
    if calls:
        raise Refused(f"No tool output found for function call {calls[0]}")
    if results:
        history.append({"role": "user", "results": results})
    return items[0]["content"], history


def chat_conversation(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    messages = body.get("messages") or []
    if messages and messages[0].get("role") == "system":
        messages = messages[1:]
    if not messages or messages[0].get("role") != "user":
        raise Refused("messages: the conversation must start with a user message")
    history: list[dict[str, Any]] = []
    pending: list[str] = []
    for i, m in enumerate(messages[1:], 1):
        if m["role"] == "assistant":
            if pending:
                raise Refused(f"messages.{i}: tool_call_ids did not have response messages: {pending}")
            for c in m.get("tool_calls") or []:
                if not c.get("id") or c.get("type") != "function" or not isinstance(c["function"].get("arguments"), str):
                    raise Refused(f"messages.{i}.tool_calls: each needs an id, type function and string arguments")
                pending.append(c["id"])
            history.append({"role": "model", "said": said_in_chat(m)})
        elif m["role"] == "tool":
            if m.get("tool_call_id") not in pending:
                raise Refused(f"messages.{i}: messages with role 'tool' must be a response to a preceding message with 'tool_calls'")
            pending.remove(m["tool_call_id"])
            if history[-1]["role"] != "user":
                history.append({"role": "user", "results": []})
            history[-1]["results"].append(m["content"])
        else:
            raise Refused(f"messages.{i}: unexpected role {m['role']}")
    if pending:
        raise Refused(f"tool_call_ids did not have response messages: {pending}")
    return messages[0]["content"], history


def gemini_conversation(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    contents = body.get("contents") or []
    if not contents or contents[0].get("role") != "user":
        raise Refused("contents: the first content must be the user's")
    history: list[dict[str, Any]] = []
    pending: list[str] = []
    for i, c in enumerate(contents[1:], 1):
        parts = c.get("parts") or []
        if c.get("role") == "model":
            if pending:
                raise Refused(f"contents.{i}: function calls were not answered: {pending}")
            pending = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
            history.append({"role": "model", "said": c})
        elif c.get("role") == "user":
            names = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
            if sorted(names) != sorted(pending):
                raise Refused(
                    f"contents.{i}: the number of function response parts must equal the number of function call parts: {pending} vs {names}")
            for p in parts:
                if "response" not in p.get("functionResponse", {"response": 1}) or not isinstance(
                        p["functionResponse"]["response"], dict):
                    raise Refused(f"contents.{i}: functionResponse.response must be an object")
            pending = []
            history.append({"role": "user", "results": [json.dumps(p) for p in parts]})
        else:
            raise Refused(f"contents.{i}: role must be user or model")
    if pending:
        raise Refused(f"function calls were not answered: {pending}")
    return contents[0]["parts"][0]["text"], history


CONVERSATION = {
    "anthropic": anthropic_conversation,
    "responses": responses_conversation,
    "chat": chat_conversation,
    "gemini": gemini_conversation,
}


# -- writing each wire's answer: (the body, what the model said as it will come back) -----


def anthropic_answer(step: dict[str, Any], turn: int, body: dict[str, Any]) -> tuple[Any, Any]:
    content: list[dict[str, Any]] = []
    if step.get("text"):
        content.append({"type": "text", "text": step["text"]})
    tools = body["tools"]
    custom = [t for t in tools if "input_schema" in t]
    loaded = {t["name"] for t in custom if not t.get("defer_loading")} | anthropic_references(body["messages"])
    found: list[str] = []
    if "search" in step:
        search = next((t for t in tools if ANTHROPIC_SEARCH.match(str(t.get("type", "")))), None)
        if search is None:
            raise Refused("the script searches, but the request has no tool search tool")
        deferred = [t for t in custom if t.get("defer_loading")]
        if search["name"].endswith("regex"):
            pattern = re.compile(step["search"])
            found = [t["name"] for t in deferred if pattern.search(search_text(t, "input_schema"))][:5]
            query = {"pattern": step["search"]}
        else:
            found = bm25(step["search"], [(t["name"], search_text(t, "input_schema")) for t in deferred])[:5]
            query = {"query": step["search"]}
        content.append({"type": "server_tool_use", "id": f"srvtoolu_{turn}", "name": search["name"], "input": query})
        content.append({"type": "tool_search_tool_result", "tool_use_id": f"srvtoolu_{turn}",
                        "content": {"type": "tool_search_tool_search_result",
                                    "tool_references": [{"type": "tool_reference", "tool_name": n} for n in found]}})
        loaded |= set(found)
    for c in step.get("calls", []):
        callable_or_refuse(c["name"], {t["name"] for t in custom}, loaded, step.get("search"), found)
    for i, c in enumerate(step.get("calls", [])):
        content.append({"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": c["name"], "input": c["arguments"]})
    answer: dict[str, Any] = {
        "id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "scripted",
        "content": content, "stop_reason": "tool_use" if step.get("calls") else "end_turn",
        "stop_sequence": None,
    }
    if step.get("usage") is not None:
        answer["usage"] = {"input_tokens": step["usage"]["input"], "output_tokens": step["usage"]["output"]}
    return answer, content


def responses_answer(step: dict[str, Any], turn: int, body: dict[str, Any]) -> tuple[Any, Any]:
    output: list[dict[str, Any]] = []
    if step.get("text"):
        output.append({"type": "message", "id": f"msg_{turn}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": step["text"], "annotations": []}]})
    tools = body["tools"]
    functions = {f["name"]: f for f in responses_functions(tools)}
    loaded = {n for n, f in functions.items() if not f.get("defer_loading")} | responses_loaded(body["input"])
    found: list[str] = []
    if "search" in step:
        if not any(t.get("type") == "tool_search" for t in tools):
            raise Refused("the script searches, but the request has no tool_search tool")
        # What a search can load: each namespace with a deferred function (whole), and each
        # deferred function at the top level.
        candidates = [t for t in tools if t.get("type") == "namespace" and any(f.get("defer_loading") for f in t["tools"])]
        candidates += [t for t in tools if t.get("type") == "function" and t.get("defer_loading")]
        docs = [(str(i), search_text(t, "parameters") + " " + " ".join(search_text(f, "parameters") for f in t.get("tools", [])))
                for i, t in enumerate(candidates)]
        best = [candidates[int(i)] for i in bm25(step["search"], docs)[:1]]
        found = [f["name"] for t in best for f in t.get("tools", [t])]
        output.append({"type": "tool_search_call", "id": f"tsc_{turn}", "call_id": None, "execution": "server",
                       "status": "completed", "arguments": {"query": step["search"]}})
        output.append({"type": "tool_search_output", "id": f"tso_{turn}", "call_id": None, "execution": "server",
                       "status": "completed", "tools": best})
        loaded |= set(found)
    for c in step.get("calls", []):
        callable_or_refuse(c["name"], set(functions), loaded, step.get("search"), found)
    for i, c in enumerate(step.get("calls", [])):
        item = {"type": "function_call", "id": f"fc_{turn}_{i}", "call_id": f"call_{turn}_{i}",
                "name": c["name"], "arguments": json.dumps(c["arguments"]), "status": "completed"}
        space = namespace_of(tools, c["name"])
        if space is not None:
            item["namespace"] = space
        output.append(item)
    answer: dict[str, Any] = {"id": f"resp_{turn}", "object": "response", "status": "completed",
                              "model": "scripted", "output": output}
    if step.get("usage") is not None:
        u = step["usage"]
        answer["usage"] = {"input_tokens": u["input"], "output_tokens": u["output"], "total_tokens": u["input"] + u["output"]}
    return answer, output


def chat_answer(step: dict[str, Any], turn: int, body: dict[str, Any]) -> tuple[Any, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.get("text") or None}
    calls = []
    back = []
    for i, c in enumerate(step.get("calls", [])):
        args = c["arguments"] if step.get("object_arguments") else json.dumps(c["arguments"])
        call: dict[str, Any] = {"function": {"name": c["name"], "arguments": args}}
        if not step.get("no_ids"):
            call.update({"id": f"call_{turn}_{i}", "type": "function"})
        calls.append(call)
        back.append({"id": call.get("id", "?"), "name": c["name"], "arguments": c["arguments"]})
    if calls:
        message["tool_calls"] = calls
    answer: dict[str, Any] = {
        "id": f"chatcmpl-{turn}", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
    }
    if step.get("usage") is not None:
        u = step["usage"]
        answer["usage"] = {"prompt_tokens": u["input"], "completion_tokens": u["output"], "total_tokens": u["input"] + u["output"]}
    # What must come back: the same calls (ids may be made up when none were sent).
    return answer, {"content": step.get("text") or None, "calls": back}


def gemini_answer(step: dict[str, Any], turn: int, body: dict[str, Any]) -> tuple[Any, Any]:
    parts: list[dict[str, Any]] = []
    if step.get("text"):
        parts.append({"text": step["text"]})
    for i, c in enumerate(step.get("calls", [])):
        parts.append({"functionCall": {"name": c["name"], "args": c["arguments"]}, "thoughtSignature": f"sig-{turn}-{i}"})
    content = {"role": "model", "parts": parts}
    answer: dict[str, Any] = {"candidates": [{"content": content, "finishReason": "STOP", "index": 0}]}
    if step.get("usage") is not None:
        u = step["usage"]
        answer["usageMetadata"] = {"promptTokenCount": u["input"], "candidatesTokenCount": u["output"],
                                   "totalTokenCount": u["input"] + u["output"]}
    return answer, content


MAKE = {
    "anthropic": anthropic_answer,
    "responses": responses_answer,
    "chat": chat_answer,
    "gemini": gemini_answer,
}


def said_in_chat(m: dict[str, Any]) -> dict[str, Any]:
    """A chat assistant message as `chat_answer` records what the model said."""
    calls = [{"id": c["id"] if not c["id"].startswith("toolspec-call-") else "?", "name": c["function"]["name"],
              "arguments": json.loads(c["function"]["arguments"])} for c in m.get("tool_calls") or []]
    return {"content": m.get("content"), "calls": calls}


# -- deferred tools and the hosted tool searches --------------------------------------------


def anthropic_tool_names(tools: list[dict[str, Any]]) -> set[str]:
    return {t["name"] for t in tools if "input_schema" in t}


def anthropic_references(messages: list[dict[str, Any]]) -> set[str]:
    """The tools loaded by the searches of a conversation: the `tool_reference` blocks of the
    hosted search's results, and those a client's own search tool returned in a tool_result."""
    names: set[str] = set()
    for m in messages:
        for b in m["content"] if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_search_tool_result":
                refs = (b.get("content") or {}).get("tool_references") or []
            elif b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                refs = b["content"]
            else:
                continue
            names |= {r["tool_name"] for r in refs if r.get("type") == "tool_reference"}
    return names


def responses_functions(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every function of a Responses tool list, at the top level or in a namespace."""
    out = []
    for t in tools:
        if t.get("type") == "function":
            out.append(t)
        elif t.get("type") == "namespace":
            out.extend(t["tools"])
    return out


def namespace_of(tools: list[dict[str, Any]], name: Any) -> str | None:
    for t in tools:
        if t.get("type") == "namespace" and any(f.get("name") == name for f in t["tools"]):
            return t["name"]
    return None


def responses_loaded(items: list[dict[str, Any]]) -> set[str]:
    """The functions the `tool_search_output` items of a conversation loaded."""
    names: set[str] = set()
    for item in items:
        if item.get("type") == "tool_search_output":
            names |= {f["name"] for f in responses_functions(item.get("tools") or [])}
    return names


def callable_or_refuse(name: str, known: set[str], loaded: set[str], query: str | None, found: list[str]) -> None:
    """A model only calls a tool it was given and can see: not one deferred and never loaded."""
    if name not in known:
        raise Refused(f"the script calls {name}, which is not in tools")
    if name not in loaded:
        searched = f"; this turn's search for {query!r} found {found}" if query is not None else ""
        raise Refused(f"the script calls {name}, which is deferred and no tool search loaded it{searched}")


def search_text(tool: dict[str, Any], schema_key: str) -> str:
    """What a tool search reads of a tool: its name, description, and arguments' names and
    descriptions."""
    words = [tool.get("name", "").replace("_", " "), tool.get("description", "")]
    for arg, spec in ((tool.get(schema_key) or {}).get("properties") or {}).items():
        words += [arg.replace("_", " "), spec.get("description", "") if isinstance(spec, dict) else ""]
    return " ".join(words)


def bm25(query: str, docs: list[tuple[str, str]], k1: float = 1.2, b: float = 0.75) -> list[str]:
    """The keys of `docs` that share a word with `query`, best first (Okapi BM25)."""
    tokenize = lambda s: re.findall(r"[a-z0-9]+", s.lower())  # noqa: E731
    terms = [tokenize(text) for _, text in docs]
    if not docs:
        return []
    average = sum(map(len, terms)) / len(terms) or 1.0
    scores = []
    for (key, _), words in zip(docs, terms):
        score = 0.0
        for q in set(tokenize(query)):
            having = sum(1 for t in terms if q in t)
            tf = words.count(q)
            if not tf:
                continue
            idf = math.log(1 + (len(docs) - having + 0.5) / (having + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(words) / average))
        if score > 0:
            scores.append((score, key))
    return [key for _, key in sorted(scores, key=lambda s: -s[0])]
