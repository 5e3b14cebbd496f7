"""The server's clock: one place that says what time it is (ms since the epoch).

The rules never read it (they are given `now`); the session, the libraries and the transports do.
"""
from __future__ import annotations

import time
from typing import Any, Callable


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Pace:
    """How long the server's clock task waits between two looks at the games and graphics: a
    tick (`period`) while something is timed (`armed()`: a minute running, a graphic that will go
    out by itself), else up to `idle` — cut short by `changed()`, which every committed change
    calls, so that a minute started or a graphic taken is looked at within a tick all the same.
    An idle server then wakes about once a second instead of 50 times."""

    def __init__(self, armed: Callable[[], bool], event: Any, sleep: Callable[[float], Any],
                 period: float, idle: float) -> None:
        self.armed, self.event, self.sleep = armed, event, sleep  # event: the async mode's Event
        self.period, self.idle = period, idle

    def changed(self) -> None:
        self.event.set()

    def wait(self) -> None:
        try:
            busy = self.armed()
        except Exception:  # noqa: BLE001 - never stop the clock: look again within a tick
            busy = True
        if busy:
            self.sleep(self.period)
        else:
            self.event.wait(self.idle)
            self.event.clear()  # a change after the wait is seen by the look that follows it
