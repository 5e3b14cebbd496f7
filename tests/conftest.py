from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from tests.support import CHROMIUM, CHROMIUM_ARGS, Server

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Timing belongs in bench/, not in tests: on a loaded 2-core machine a deadline only adds flakes.
settings.register_profile("chgk", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI must not land or fail a change by luck: under CI=true every property runs the same examples
# for the same code. Locally the search keeps exploring; a falsifying example it finds becomes an
# @example beside its property. Settings objects built in test modules inherit the loaded profile
# (this file is imported first), so the per-test max_examples keep their values.
settings.register_profile("ci", parent=settings.get_profile("chgk"), derandomize=True, database=None,
                          print_blob=True)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "chgk")


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


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """The system Chromium, one per test module: the machine has two cores."""
    from playwright.sync_api import sync_playwright  # only the modules that use a browser pay for it

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
