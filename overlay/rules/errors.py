"""Typed refusals. A refused input changes nothing; the code names the rule or the field.

A refusal is said to the operator from its `code` and `params` through the catalogs
(`err.<code>` the title; `refusal.<params.reason>` or `refusal.<code>` the detail, with the
params filled in): `message` is the developer's English, for the API's callers and the log."""
from __future__ import annotations

from typing import Any


class InputError(Exception):
    """The input itself is malformed (HTTP 400): unknown command, wrong field type, bad spec."""

    status = 400

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message  # English, for the API's programmers
        # what the message names (a player, a date, a field, the rule's `reason`), for pages that
        # say it in the operator's language from a catalog (control/refusals.py, static/control/common.js)
        self.values = params
        if params or not hasattr(self, "params"):  # a subclass may have set its own (overlay/schema)
            self.params = {k: v for k, v in params.items() if v is not None}

    def as_json(self) -> dict[str, Any]:
        """The API's error shape: {code, message, key?, params?}."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if getattr(self, "key", None):  # a graphic's data (overlay/schema): its catalog key
            out["key"] = self.key
        if self.params:
            out["params"] = self.params
        return out


class RuleError(InputError):
    """The input is well-formed but the rules forbid it now (HTTP 422)."""

    status = 422
