"""Shared fixtures: a real Sessions on a temporary SQLite file with a clock the test moves."""
from __future__ import annotations

import copy
import random

import pytest

from overlay.demo import DEMO_SPEC
from overlay.graphics.game import Graphics
from overlay.core.session import Sessions
from overlay.core.store import Store


class Clock:
    def __init__(self, now: int = 1_700_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def demo_spec(**timers: int) -> dict:
    spec = copy.deepcopy(DEMO_SPEC)
    if timers:
        spec["timers"] = timers
    return spec


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sessions(tmp_path, clock) -> Sessions:
    return Sessions(Store(tmp_path / "game.sqlite3", "OFF"), clock=clock, rng=random.Random(7))


@pytest.fixture
def graphics(sessions) -> Graphics:
    return Graphics(sessions)
