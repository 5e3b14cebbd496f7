from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support import Server

# Timing belongs in bench/, not in tests: on a loaded 2-core machine a deadline only adds flakes.
settings.register_profile("chgk", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("chgk")


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
