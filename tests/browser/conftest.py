"""Shared by the browser tests: real server processes (`tests.support.Server`, threading mode)
on free ports with their own data folders, and browser contexts. The system Chromium itself
(`chromium`, one per module) comes from tests/conftest.py.

Fixtures: `panel_server` (one demo server per module), `server_factory` (servers a test may
kill and restart on the same port and data; all stopped at the end of the test), `context`
(a panel-sized Russian browser context), `tablet_context` (a touch tablet), `tab` (a 1920×1080
overlay page that records its errors).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.helpers import WAIT_MS, Tab
from tests.support import Server

# expect() retries until its condition holds: give a loaded machine the same bound as wait_js
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="module")
def panel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("panel") / "data", mode="threading").start()
    yield srv
    srv.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    made: list[Server] = []

    def make(**kwargs: Any) -> Server:
        data = kwargs.pop("data", None) or tmp_path / f"data{len(made)}"
        srv = Server(data, **{"mode": "threading", **kwargs})
        made.append(srv)
        return srv

    yield make
    for srv in made:
        srv.stop()


@pytest.fixture
def context(chromium: Browser) -> Iterator[BrowserContext]:
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    yield ctx
    ctx.close()


@pytest.fixture
def tablet_context(chromium: Browser) -> Iterator[BrowserContext]:
    """A touch tablet held upright."""
    ctx = chromium.new_context(viewport={"width": 820, "height": 1180}, has_touch=True, is_mobile=True)
    yield ctx
    ctx.close()


@pytest.fixture
def tab(chromium: Browser) -> Iterator[Tab]:
    t = Tab(chromium)
    yield t
    t.close()


@pytest.fixture
def overlay(chromium: Browser) -> Iterator[Tab]:
    """A tab whose page must end the test without a script error."""
    t = Tab(chromium)
    yield t
    assert t.errors == []
    t.close()
