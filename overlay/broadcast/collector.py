"""Full garbage collections at quiet moments, never in the middle of a broadcast.

CPython's full collection walks every object it tracks, and nothing else runs meanwhile: on a
2-core VM that is ~25 ms for the idle server and 55–60 ms with 500 overlays connected — several
frames in which no command is answered and no overlay hears anything (docs/PERFORMANCE.md).
So the objects that live as long as the server (modules, the app, the replayed games) are frozen
out of collection at startup, automatic full collections are off, and the clock task runs one
when nothing has changed for `quiet` seconds and no timer runs — at most every `every` seconds,
and at the latest after `at_most` seconds whatever happens. The young generations, which hold
almost all of a command's garbage and take ~1 ms, are collected automatically as before.
"""
from __future__ import annotations

import gc
import time
from typing import Callable

NEVER = 1 << 30  # a third-generation threshold that automatic collection never reaches


class Collector:
    def __init__(self, busy: Callable[[], bool], *, quiet: float = 2.0, every: float = 30.0,
                 at_most: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.busy = busy  # True while something is on that a pause would show (a running timer)
        self.quiet, self.every, self.at_most = quiet, every, at_most
        self.clock = clock
        self.last_change = self.last_full = clock()
        self.full_collections = 0

    def start(self) -> None:
        gc.collect()
        gc.freeze()  # startup's objects stay for the server's life: never walk them again
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)

    def changed(self) -> None:
        """Something went out to the screens: the next quiet moment starts now."""
        self.last_change = self.clock()

    def due(self) -> bool:
        now = self.clock()
        since = now - self.last_full
        if since >= self.at_most:
            return True
        return since >= self.every and now - self.last_change >= self.quiet and not self.busy()

    def tick(self) -> None:
        """Called by the clock task: collect everything if now is a quiet moment."""
        if self.due():
            gc.collect()
            self.last_full = self.clock()
            self.full_collections += 1
