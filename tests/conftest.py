from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from tests.support import Server, release_worker_playwright, worker_chromium

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


# The longest modules (by the time their tests took in a full run, session 19; longest first),
# started first: `-n 4 --dist loadscope` hands out whole modules in collection order, and a long one
# picked up last leaves the other workers idle at the end of the run. A hint only: a module not
# named keeps its place after these.
LONGEST_FIRST = (
    "tests/browser/test_chromium103.py", "tests/post/test_render.py", "tests/browser/test_ograf_export.py",
    "tests/browser/test_overlays.py", "tests/browser/test_panel_hands.py", "tests/browser/test_panel_fit.py",
    "tests/browser/test_drawn_truth.py", "tests/browser/test_club_overlays.py", "tests/i18n/test_pseudo_locale.py",
    "tests/hostile/test_socket_fuzz.py", "tests/hostile/test_osc_fuzz.py", "tests/browser/test_panel.py",
    "tests/browser/test_drawn_truth_club.py", "tests/deploy/test_proxy.py", "tests/browser/test_rtl_names.py",
    "tests/companion/test_module.py", "tests/browser/test_score_roll.py", "tests/browser/test_show_graphics.py",
    "tests/browser/test_reveal.py", "tests/browser/test_rundown.py", "tests/browser/test_ograf_render.py",
    "tests/broadcast/test_fanout.py", "tests/hostile/test_http_fuzz.py", "tests/browser/test_live_qr.py",
    "tests/ograf/test_ebu_schema.py", "tests/obs/test_real_obs.py", "tests/security/test_preview.py",
    "tests/faults/test_sigkill.py", "tests/media/test_media_api.py", "tests/season/test_refusals_browser.py",
)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Under xdist, before the workers start: compile the test modules once, into their bytecode
    cache. With PYTHONDONTWRITEBYTECODE set (as on this machine and CI's) every worker rewrote
    and compiled every test module's asserts itself: ~10 of a worker's ~15 CPU-s of collection,
    four times over. Two processes, each half the files, write the cache; the workers read it
    (reading is allowed under that variable). A failure here only costs the time it saved."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    files = sorted({p for arg in config.args for p in _test_files(Path(arg.split("::")[0]))})
    if len(files) < 8:
        return
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    halves = [files[0::2], files[1::2]]
    procs = [subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                               "-p", "no:cacheprovider", *map(str, half)], cwd=config.rootpath, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for half in halves]
    for proc in procs:
        proc.wait()


def _test_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(path.rglob("test_*.py")) if path.is_dir() else []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    root = Path(__file__).resolve().parent.parent
    def key(item: pytest.Item) -> int:
        try:
            return rank.get(item.path.resolve().relative_to(root).as_posix(), len(rank))
        except ValueError:
            return len(rank)
    items.sort(key=key)  # stable: every module keeps its tests' order, the others their order


@pytest.fixture(scope="module", autouse=True)
def no_client_left_reconnecting(request: pytest.FixtureRequest) -> Iterator[None]:
    """A python-socketio client that reconnects by itself keeps trying for the rest of the run
    if it is closed with disconnect() while it is reconnecting (its server killed or restarted):
    threads, sockets and CPU taken from every later test. End any such client with its module,
    and say which module left it. A warning, not a failure: the library's own shutdown() can
    race a reconnection that is completing, and that must not fail a run by chance."""
    yield
    if "socketio" not in sys.modules:
        return
    from socketio import base_client
    left = list(base_client.reconnecting_clients)
    for client in left:
        client.shutdown()
    if left:
        warnings.warn(f"{request.module.__name__} left {len(left)} socket client(s) reconnecting; "
                      "close them with shutdown()", stacklevel=1)


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


@pytest.fixture(scope="session", autouse=True)
def _worker_browser_closed() -> Iterator[None]:
    yield
    release_worker_playwright()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """The system Chromium, this process's (tests/support.py _Worker); what a module opens in it
    (its contexts, and with them its pages) is closed with the module, as closing a browser of its
    own did."""
    browser = worker_chromium()
    before = set(browser.contexts)
    yield browser
    for context in browser.contexts:
        if context not in before:
            context.close()
