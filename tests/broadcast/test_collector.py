"""overlay/broadcast/collector.py: full garbage collections only at quiet moments."""
from __future__ import annotations

import gc
import weakref

import pytest

from overlay.broadcast.collector import NEVER, Collector


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def restore_gc():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def make(busy: bool = False) -> tuple[Collector, Clock, list[bool]]:
    clock, flag = Clock(), [busy]
    return Collector(lambda: flag[0], quiet=2, every=30, at_most=300, clock=clock), clock, flag


def test_start_freezes_what_exists_and_turns_automatic_full_collections_off(restore_gc):
    young, middle, _ = gc.get_threshold()
    Collector(lambda: False).start()
    assert gc.get_freeze_count() > 1000
    assert gc.get_threshold() == (young, middle, NEVER)


def test_collects_once_quiet_after_the_period():
    c, clock, _ = make()
    clock.now += 29
    assert not c.due()  # too soon after the last one
    clock.now += 1
    assert c.due()
    c.changed()
    clock.now += 1.9
    assert not c.due()  # something just went to the screens
    clock.now += 0.1
    assert c.due()
    c.tick()
    assert c.full_collections == 1 and not c.due()


def test_a_running_timer_defers_it_until_the_latest_moment():
    c, clock, busy = make(busy=True)
    clock.now += 299
    assert not c.due()
    busy[0] = False
    assert c.due()
    busy[0] = True
    clock.now += 1  # 300 s: collected whatever happens, so garbage cannot grow without bound
    assert c.due()


def test_changes_that_never_stop_cannot_defer_it_forever():
    c, clock, _ = make()
    for _ in range(299):
        clock.now += 1
        c.changed()
        assert not c.due()
    clock.now += 1
    c.changed()
    assert c.due()


def test_a_collection_frees_cycles_left_for_it(restore_gc):
    c, clock, _ = make()
    c.start()
    gc.disable()  # nothing but our tick may collect during this test
    try:
        class Node:
            pass

        a, b = Node(), Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        assert ref() is not None  # a cycle: reference counting alone never frees it
        clock.now += 31
        c.tick()
        assert ref() is None
    finally:
        gc.enable()
