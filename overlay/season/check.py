"""Input checks for the league's API. Every refusal is a 400 that names the field and says
what to send; checks run before anything is written, so a refusal changes nothing."""
from __future__ import annotations

import datetime as dt
from typing import Any

from ..rules.errors import InputError, RuleError

MAX_NAME = 200
MAX_REASON = 1000


class NotFound(InputError):
    status = 404


def bad(where: str, what: str, rule: str = "invalid", **values: Any) -> InputError:
    """A field refused; `rule` names the check (the pages say it from the catalog's
    `league.err.field.<rule>`, with `values`)."""
    return InputError("bad_field", f"{where}: {what}", field=where, rule=rule, **values)


def obj(value: Any, allowed: set[str], required: set[str] = frozenset()) -> dict:
    """A JSON object with only `allowed` fields and every `required` one."""
    if not isinstance(value, dict):
        raise InputError("bad_json", "Send a JSON object.")
    extra = sorted(set(value) - allowed)
    if extra:
        raise bad(extra[0], f"unknown field (known: {', '.join(sorted(allowed))})", "unknown")
    missing = sorted(k for k in required if value.get(k) is None)
    if "reason" in missing:
        reason(None)
    if missing:
        raise bad(missing[0], "is required", "required")
    return value


def text(value: Any, where: str, *, limit: int = MAX_NAME, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise bad(where, "must be a non-empty text", "text")
    value = " ".join(value.split())
    if len(value) > limit:
        raise bad(where, f"is longer than {limit} characters", "long", limit=limit)
    return value


def reason(value: Any, *, required: bool = True) -> str | None:
    """Why the administration did this: kept with the action, shown wherever it counts."""
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError("reason_required", "reason: say why (a non-empty text); the action is recorded with it.")
    if len(value) > MAX_REASON:
        raise bad("reason", f"is longer than {MAX_REASON} characters", "long", limit=MAX_REASON)
    return value.strip()


def whole(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise bad(where, f"must be a whole number from {lo} to {hi}", "whole", lo=lo, hi=hi)
    return value


def flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise bad(where, "must be true or false", "flag")
    return value


def amount(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 10_000_000:
        raise bad(where, "must be a number from 0 to 10000000", "amount", hi=10_000_000)
    return float(value)


def date(value: Any, where: str) -> dt.date:
    if not isinstance(value, str):
        raise bad(where, "must be a date YYYY-MM-DD", "date", value="")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise bad(where, f"{value!r} is not a date YYYY-MM-DD", "date", value=value) from None


def member_id(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise bad(where, "must be a member id (a whole number ≥ 1)", "member_id")
    return value


def ids(value: Any, where: str, *, lo: int, hi: int) -> list[int]:
    if not isinstance(value, list) or not lo <= len(value) <= hi:
        raise bad(where, f"must be a list of {lo} to {hi} member ids", "ids", lo=lo, hi=hi, n=len(value) if isinstance(value, list) else 0)
    out = [member_id(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if len(set(out)) != len(out):
        raise bad(where, "lists a member twice", "twice")
    return out


def game_ids(value: Any, where: str, *, lo: int, hi: int) -> list[str]:
    if not isinstance(value, list) or not lo <= len(value) <= hi:
        raise bad(where, f"must be a list of {lo} to {hi} game ids", "game_ids", lo=lo, hi=hi)
    return [text(v, f"{where}[{i}]", limit=40) for i, v in enumerate(value)]  # type: ignore[misc]


def rule(code: str, message: str, **values: Any) -> RuleError:
    """A refusal by the rules; the pages say it from the catalogs (`league.err.<code>` with the
    `values` it names: names and dates, not ids); `message` is the API's English text."""
    return RuleError(code, message, **values)
