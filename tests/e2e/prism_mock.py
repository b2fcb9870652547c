"""Stoplight Prism (npm `@stoplight/prism-cli`, installed in TOOLSPEC_PRISM_DIR by
scripts/test), serving an API from its OpenAPI document in tests/import/documents/: a real
mock for the servers `toolspec import openapi` makes to forward to."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mcp_client import _wait_for_port, free_port, stop

PRISM_DIR = os.environ.get("TOOLSPEC_PRISM_DIR", "")
DOCUMENTS = Path(__file__).resolve().parents[1] / "import" / "documents"


@dataclass
class Mock:
    """A running Prism: its base URL, and its log (every request's path and answer)."""

    url: str
    log: Path


@contextlib.contextmanager
def prism(document: str) -> Iterator[Mock]:
    """Prism serving `document` on a free port."""
    port = free_port()
    binary = str(Path(PRISM_DIR) / "node_modules" / ".bin" / "prism")
    log_dir = tempfile.mkdtemp(prefix="prism-")
    log = Path(log_dir) / "prism.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [binary, "mock", "-h", "127.0.0.1", "-p", str(port), str(DOCUMENTS / document)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=sys.stderr,
        )
    try:
        # GitHub's 13 MB document takes Prism a while to read.
        _wait_for_port(port, process, 180.0)
        yield Mock(f"http://127.0.0.1:{port}", log)
    finally:
        stop(process)
