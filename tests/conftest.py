from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A real server process (eventlet, the default mode) with the demo game on air."""
    srv = Server(tmp_path / "data", mode=os.environ.get("CHGK_TEST_ASYNC_MODE", "eventlet")).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for a module whose tests each create their own games."""
    srv = Server(tmp_path_factory.mktemp("srv") / "data",
                 mode=os.environ.get("CHGK_TEST_ASYNC_MODE", "eventlet")).start()
    yield srv
    srv.stop()
