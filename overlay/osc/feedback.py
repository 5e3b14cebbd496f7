"""Feedback to control surfaces: `/chgk/state/...` values, so TouchOSC labels or Companion
show the score and the timer. Surfaces subscribe with `/chgk/subscribe [port]`.

`state_messages` and `timer_messages` are pure; `Surfaces` keeps who subscribed.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from ..rules.state import Game
from .events import state_context

MAX_SURFACES = 32
DROP_AFTER_ERRORS = 10  # refusals before a surface (app closed) is forgotten; it subscribes again

Message = tuple[str, list[tuple[str, Any]]]


def _clock_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def timer_messages(game: Game | None, now: int) -> list[Message]:
    timer = state_context(game, now)["timer"]
    return [("/chgk/state/timer", [("int", timer["remaining_s"])]),
            ("/chgk/state/timer/text", [("string", _clock_text(timer["remaining_s"]))]),
            ("/chgk/state/timer/running", [("int", int(timer["running"]))]),
            ("/chgk/state/timer/kind", [("string", timer["kind"])])]


def state_messages(game: Game | None, rev: int, now: int) -> list[Message]:
    """Every feedback value of the on-air game (all of them each time: UDP may lose one)."""
    ctx = state_context(game, now)
    score, rnd, g = ctx["score"], ctx["round"], ctx["game"]
    return [
        ("/chgk/state/score", [("int", score["experts"]), ("int", score["viewers"])]),
        ("/chgk/state/score/experts", [("int", score["experts"])]),
        ("/chgk/state/score/viewers", [("int", score["viewers"])]),
        ("/chgk/state/score/text", [("string", f"{score['experts']}:{score['viewers']}")]),
        ("/chgk/state/sector", [("int", rnd["sector"])]),
        ("/chgk/state/question", [("int", rnd["question"]), ("int", rnd["questions"])]),
        ("/chgk/state/phase", [("string", rnd["phase"])]),
        *timer_messages(game, now),
        ("/chgk/state/status", [("string", g["status"])]),
        ("/chgk/state/winner", [("string", g["winner"])]),
        ("/chgk/state/title", [("string", g["title"])]),
        ("/chgk/state/rev", [("int", rev)]),
    ]


def rundown_messages(values: dict[str, Any], gone: set[str] | frozenset = frozenset()) -> list[Message]:
    """The current rundown's values (`Rundowns.variables`): its current and next item, what is on
    each layer (`gone`: layers just emptied, sent as ""), the auto-out time left."""
    layers = values.get("layers", {})
    return [
        ("/chgk/state/rundown/current", [("string", values.get("current", ""))]),
        ("/chgk/state/rundown/next", [("string", values.get("next", ""))]),
        ("/chgk/state/rundown/on_air", [("string", values.get("on_air", ""))]),
        ("/chgk/state/rundown/remaining", [("int", int(values.get("remaining_s", 0)))]),
        ("/chgk/state/rundown/locked", [("int", int(values.get("locked", 0)))]),
        *((f"/chgk/state/rundown/layer/{layer}", [("string", label)]) for layer, label in sorted(layers.items())),
        *((f"/chgk/state/rundown/layer/{layer}", [("string", "")]) for layer in sorted(gone - set(layers))),
    ]


@dataclass
class Surface:
    host: str
    port: int
    since: int

    @property
    def name(self) -> str:
        return f"surface {self.host}:{self.port}"


class Surfaces:
    def __init__(self) -> None:
        self.items: dict[tuple[str, int], Surface] = {}
        self.lock = threading.Lock()

    def add(self, host: str, port: int) -> Surface:
        with self.lock:
            key = (host, port)
            if key not in self.items and len(self.items) >= MAX_SURFACES:
                oldest = min(self.items.values(), key=lambda s: s.since)
                del self.items[(oldest.host, oldest.port)]
            surface = self.items.setdefault(key, Surface(host, port, time.time_ns() // 1_000_000))
            return surface

    def remove(self, host: str, port: int) -> bool:
        with self.lock:
            return self.items.pop((host, port), None) is not None

    def all(self) -> list[Surface]:
        with self.lock:
            return list(self.items.values())
