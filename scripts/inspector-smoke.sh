#!/usr/bin/env bash
# Smoke test of an MCP server with the official MCP Inspector CLI, an independent client
# (npm package @modelcontextprotocol/inspector, pinned below).
#
#   scripts/inspector-smoke.sh SERVER_BINARY [SERVER_ARGS...]
#
# Without SERVER_BINARY, $TICKETS_SERVER is used; without SERVER_ARGS, the tickets example's
# `--db <temp file> --demo`. Checks, over stdio:
#   1. tools/list lists tickets_search, tickets_get, tickets_export, tickets_create, tickets_update_status
#      (in that order, the deprecated alias absent), every tool with all four hints;
#   2. tools/call tickets_get ticket_id=T-1001 returns the open ticket T-1001;
#   3. tools/call tickets_get ticket_id=T-9999 is an isError result with code not_found
#      (the Inspector exits 5 for an isError result; see the note at that step for the
#      Inspector's own client bug with isError results of tools that have an outputSchema).
# Needs node and npx (Node 22 is fetched from npm when the system's is older) and python3.
set -euo pipefail

INSPECTOR_VERSION=2.12.0

server=${1:-${TICKETS_SERVER:-}}
if [[ -z "$server" ]]; then
    echo "usage: $0 SERVER_BINARY [SERVER_ARGS...]   (or set TICKETS_SERVER)" >&2
    exit 2
fi
shift || true
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
if [[ $# -gt 0 ]]; then
    server_cmd=("$server" "$@")
else
    server_cmd=("$server" --db "$workdir/tickets.db" --demo)
fi

# The Inspector asks for Node >= 22.19. An older system node runs it under Node 22 from the
# npm registry (package `node`), whose bin directory npx puts first on PATH.
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
packages=(-p "@modelcontextprotocol/inspector@${INSPECTOR_VERSION}")
if (( node_major < 22 )); then
    echo "node $(node --version 2>/dev/null || echo missing) is older than 22.19: using node@22 from npm" >&2
    packages=(-p node@22 "${packages[@]}")
fi

# The server command goes after `--`, so its own flags (--db, --demo) are not read as the
# Inspector's. `--format json -q`: one JSON document on stdout, nothing else.
inspect() {
    npx -y "${packages[@]}" -- mcp-inspector --cli --format json -q \
        "$@" -- "${server_cmd[@]}"
}

echo "== tools/list" >&2
inspect --method tools/list > "$workdir/list.json"
python3 - "$workdir/list.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
listed = document.get("result", document)  # `--format json` wraps the result in {"result": ...}
tools = listed["tools"]
names = [t["name"] for t in tools]
expected = ["tickets_search", "tickets_get", "tickets_export", "tickets_create", "tickets_update_status"]
assert names == expected, f"tools/list gave {names}, expected {expected}"
# MCP's defaults for the hints are the cautious ones: a hint is stated where it differs,
# and a write always states destructiveHint.
defaults = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
for tool in tools:
    hints = tool.get("annotations", {})
    for hint, value in hints.items():
        assert isinstance(value, bool), f"{tool['name']}: {hint} is {value!r}"
        restated = value == defaults[hint] and not (hint == "destructiveHint" and not hints.get("readOnlyHint"))
        assert not restated, f"{tool['name']}: {hint} states its default in {hints}"
    if not hints.get("readOnlyHint"):
        assert isinstance(hints.get("destructiveHint"), bool), f"{tool['name']}: a write states destructiveHint"
    assert tool["inputSchema"]["type"] == "object", tool["name"]
    assert tool["outputSchema"]["type"] == "object", tool["name"]
print(f"ok: {len(tools)} tools, every hint that differs from MCP's default stated", file=sys.stderr)
PY

echo "== tools/call tickets_get ticket_id=T-1001" >&2
inspect --method tools/call --tool-name tickets_get --tool-arg ticket_id=T-1001 > "$workdir/get.json"
python3 - "$workdir/get.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
result = document.get("result", document)
assert not result.get("isError"), f"tickets_get failed: {result}"
ticket = result["structuredContent"]["ticket"]
assert ticket["ticket_id"] == "T-1001" and ticket["status"] == "open", ticket
text = json.loads(result["content"][0]["text"])
assert text == result["structuredContent"], "the text block repeats structuredContent"
print("ok: T-1001 is open", file=sys.stderr)
PY

echo "== tools/call tickets_get ticket_id=T-9999 (expect isError not_found)" >&2
status=0
inspect --method tools/call --tool-name tickets_get --tool-arg ticket_id=T-9999 \
    > "$workdir/missing.json" 2> "$workdir/missing.err" || status=$?
if [[ $status -eq 1 ]] && grep -q "must have required property 'ticket'" "$workdir/missing.json" "$workdir/missing.err"; then
    # TypeScript SDK v1 clients validate an isError result's structuredContent against the
    # tool's (success) outputSchema, against the spec and their own server side
    # (modelcontextprotocol/typescript-sdk#1943). The Inspector pinned here has that bug:
    # seeing it proves the server answered with an error envelope, not a ticket.
    echo "ok: T-9999 refused with an error envelope (the Inspector's client rejects it: typescript-sdk#1943)" >&2
elif [[ $status -ne 5 ]]; then
    echo "the Inspector exited $status; it exits 5 when a call returns isError" >&2
    cat "$workdir/missing.json" "$workdir/missing.err" >&2
    exit 1
else
    python3 - "$workdir/missing.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read().strip()
result = json.loads(text) if text else {}
result = result.get("result", result)
assert result.get("isError") is True, f"expected an isError result: {result}"
assert result["structuredContent"]["code"] == "not_found", result["structuredContent"]
print("ok: T-9999 is not_found", file=sys.stderr)
PY
fi

echo "inspector smoke: all checks passed" >&2
