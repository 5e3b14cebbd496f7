"""The table and the top (RULES.md §2): sectors numbered 1..N clockwise."""
from __future__ import annotations

from collections.abc import Sequence

KINDS = ("regular", "blitz", "superblitz", "sponsor")
MULTI_KINDS = ("blitz", "superblitz")  # three questions, 20 s each
QUESTIONS_PER_KIND = {"regular": 1, "sponsor": 1, "blitz": 3, "superblitz": 3}


def next_unplayed(played: Sequence[bool], landed: int) -> int | None:
    """The sector the round goes to: `landed` if unplayed, else the first unplayed clockwise."""
    n = len(played)
    for step in range(n):
        number = (landed - 1 + step) % n + 1
        if not played[number - 1]:
            return number
    return None
