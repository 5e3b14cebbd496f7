"""Typed refusals. A refused input changes nothing; the code names the rule or the field."""
from __future__ import annotations

from typing import Any


class InputError(Exception):
    """The input itself is malformed (HTTP 400): unknown command, wrong field type, bad spec."""

    status = 400

    def __init__(self, code: str, message: str, **values: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message  # English, for the API's programmers
        # what the message names (a player, a date, a field), for pages that say it in the
        # operator's language from a catalog (control/refusals.py)
        self.values = values


class RuleError(InputError):
    """The input is well-formed but the rules forbid it now (HTTP 422)."""

    status = 422
