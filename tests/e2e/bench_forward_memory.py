"""Peak memory of a forwarding server under concurrent large answers: a load script, not a
test. For each forward-fixture binary given (say, this checkout's and an earlier build's, as
a baseline measured in the same run), a fresh server answers CALLS concurrent calls of
`petstore_pets_find_by_status`, each forwarded to a loopback upstream that sends SIZE MB of
valid pets; the server's VmHWM is printed, with the ratio to the first binary's.

    .venv/bin/python tests/e2e/bench_forward_memory.py --calls 1,8 --size 15 \\
        target/release/forward-fixture /path/to/baseline/forward-fixture
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_hostile_upstream as hostile  # noqa: E402
from hostile_upstream import MB, HostileUpstream, json_answer  # noqa: E402
from mcp_client import connect_http, run  # noqa: E402


def peak(binary: str, calls: int, size_mb: int) -> float:
    hostile.SERVER = binary
    body = hostile.pets(size_mb * MB)
    cap = str(max(64, 2 * size_mb) * MB)
    with (
        HostileUpstream(answer=json_answer(body)) as api,
        hostile.forwarder("petstore", api.url + "/api/v3", MAX_ANSWER_BYTES=cap) as (url, pid),
    ):

        async def one() -> None:
            async with connect_http(url) as conn:
                result = await conn.call("petstore_pets_find_by_status", {"status": "sold"})
                assert not result.is_error, result.structured

        async def scenario() -> None:
            async with anyio.create_task_group() as group:
                for _ in range(calls):
                    group.start_soon(one)

        run(scenario)
        return hostile.peak_mb(pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--calls", default="1,8", help="concurrent calls, comma-separated")
    parser.add_argument("--size", type=int, default=15, help="MB of each answer")
    args = parser.parse_args()
    for calls in [int(c) for c in args.calls.split(",")]:
        base = None
        for binary in args.binaries:
            mb = peak(binary, calls, args.size)
            base = base or mb
            print(f"{calls:>3} x {args.size} MB  {mb:7.0f} MB peak  {mb / base:5.2f}x  {binary}")


if __name__ == "__main__":
    main()
