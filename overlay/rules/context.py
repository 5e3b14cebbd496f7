"""What the rules may know of the world: kept apart so the move handlers (tv, club) and the
table that dispatches to them (game) all import it without importing each other."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ctx:
    """What the rules may know of the world: the time, and a way to draw at random."""

    now: int
    draw: Callable[[Sequence[Any]], Any]
