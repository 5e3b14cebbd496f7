"""Rundowns: the prepared show (segments of items, each a graphic, its data, a layer and an out
mode) and operating it live. `model` is pure; `store` is its SQLite table; `desk` is the one path
every edit and take goes through; `csvio` reads and writes spreadsheets; `api` is HTTP."""
from __future__ import annotations

from .desk import ACTIONS, Rundowns, UnknownRundown

__all__ = ["ACTIONS", "Rundowns", "UnknownRundown"]
