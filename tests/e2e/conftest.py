"""How the end-to-end tests share two workers (`pytest -n 2 --dist loadgroup`, as
scripts/test runs them): `test_init.py`, which compiles three crates, on one; every other
file, one after another, on the other. Those files share one PostgreSQL database and must
not run at the same time as each other; the crates `test_init.py` builds are compiled at the
lowest CPU priority (`nice`), so the timing the other tests observe stays their servers'.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = "init" if item.path.name == "test_init.py" else "servers"
        item.add_marker(pytest.mark.xdist_group(group))
