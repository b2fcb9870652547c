"""The client side of MCP's tasks extension (`io.modelcontextprotocol/tasks`), written on the
official Python SDK's extension points (`ClientExtension`, `ResultClaim`), which carry no
tasks client of their own.

    async with Client(params_or_url, mode="2026-07-28", extensions=[Tasks()]) as client:
        result = await client.call_tool("tickets_export", {})      # polled to the end
        handle = await client.session.call_tool("tickets_export", {}, allow_claimed=True)
        state = await get_task(client.session, handle.task_id)     # any replica answers
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

import anyio
from mcp import types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import ConfigDict, Field, TypeAdapter

import mcp_types

TASKS = "io.modelcontextprotocol/tasks"


class TaskHandle(mcp_types.Result):
    """A `tools/call` answered with a task (`resultType: "task"`)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class _TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


# Over streamable HTTP a 2026-07-28 request names its target in `Mcp-Name`: for the tasks
# methods, the task's id.
class _GetTask(types.Request[_TaskParams, Literal["tasks/get"]]):
    name_param: ClassVar[str | None] = "taskId"
    method: Literal["tasks/get"] = "tasks/get"


class _CancelTask(types.Request[_TaskParams, Literal["tasks/cancel"]]):
    name_param: ClassVar[str | None] = "taskId"
    method: Literal["tasks/cancel"] = "tasks/cancel"


_ANY = TypeAdapter(dict[str, Any])


async def get_task(session: Any, task_id: str) -> dict[str, Any]:
    """`tasks/get`: the task as the server reports it, as JSON."""
    return await session.send_request(_GetTask(params=_TaskParams(taskId=task_id)), _ANY)


async def cancel_task(session: Any, task_id: str) -> dict[str, Any]:
    """`tasks/cancel`."""
    return await session.send_request(_CancelTask(params=_TaskParams(taskId=task_id)), _ANY)


async def poll(session: Any, task_id: str, timeout_s: float = 60.0) -> dict[str, Any]:
    """Polls `tasks/get` at the interval the server asks until the task ends; its last state."""
    with anyio.fail_after(timeout_s):
        while True:
            state = await get_task(session, task_id)
            if state["status"] != "working":
                return state
            await anyio.sleep(state.get("pollIntervalMs", 1000) / 1000)


async def _resolve(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    state = await poll(ctx.session, handle.task_id)
    if state["status"] != "completed":
        raise RuntimeError(f"task {handle.task_id} ended {state['status']}: {json.dumps(state)}")
    return types.CallToolResult.model_validate(state["result"])


class Tasks(ClientExtension):
    """Declares the extension and resolves task handles by polling them to the end."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=_resolve)]
