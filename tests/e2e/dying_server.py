"""An MCP server over stdio that lists the tickets tools and dies on the first call.

`toolspec eval` must report the run that met it as failed, with the reason, and go on with
the others: `python dying_server.py TOOLS_MCP_JSON`.
"""

from __future__ import annotations

import json
import os
import sys

tools = json.load(open(sys.argv[1]))["tools"]
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "dying", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        print("dying on purpose at the first call", file=sys.stderr, flush=True)
        os._exit(3)
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
