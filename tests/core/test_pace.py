"""The clock task's pace (overlay/core/clock.Pace): a tick while something is timed; otherwise a
long wait that a committed change ends at once. The long waits here are 30 s: a wake that went
missing would make a test take them and fail its bound, never pass by luck."""
from __future__ import annotations

import threading
import time

from overlay.core.clock import Pace

LONG = 30.0


def pace(armed: object) -> tuple[Pace, list[float]]:
    slept: list[float] = []
    check = armed if callable(armed) else (lambda: armed)
    return Pace(check, threading.Event(), slept.append, period=0.02, idle=LONG), slept


def test_while_something_is_timed_the_clock_ticks():
    p, slept = pace(True)
    p.changed()  # a change does not turn a tick into a long wait, or skip it
    p.wait()
    p.wait()
    assert slept == [0.02, 0.02]


def test_a_failing_look_at_what_is_timed_keeps_the_tick():
    def broken() -> bool:
        raise RuntimeError("a bug")

    p, slept = pace(broken)
    p.wait()
    assert slept == [0.02]


def test_idle_a_change_made_before_the_wait_ends_it_at_once_and_only_that_wait():
    p, slept = pace(False)
    p.changed()
    started = time.monotonic()
    p.wait()
    assert time.monotonic() - started < LONG / 2 and slept == []
    assert not p.event.is_set()  # the next wait is a long one again, unless something changes


def test_idle_a_change_during_the_wait_ends_it():
    p, _ = pace(False)
    done = threading.Event()

    def clock_task() -> None:
        p.wait()
        done.set()

    threading.Thread(target=clock_task, daemon=True).start()
    assert not done.wait(0.2)  # idle: it waits
    p.changed()  # a minute started, a graphic taken: committed, then told
    assert done.wait(LONG / 2)


def test_idle_without_a_change_it_waits_its_idle_time():
    slept: list[float] = []
    p = Pace(lambda: False, threading.Event(), slept.append, period=0.02, idle=0.3)
    started = time.monotonic()
    p.wait()
    assert time.monotonic() - started >= 0.3 and slept == []
