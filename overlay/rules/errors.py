"""Typed refusals. A refused input changes nothing; the code names the rule or the field."""
from __future__ import annotations


class InputError(Exception):
    """The input itself is malformed (HTTP 400): unknown command, wrong field type, bad spec."""

    status = 400

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RuleError(InputError):
    """The input is well-formed but the rules forbid it now (HTTP 422)."""

    status = 422
