from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import Server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server without the demo game for the module: its tests build on each other's data."""
    server = Server(tmp_path_factory.mktemp("league") / "data", demo=False).start()
    yield server
    server.stop()
