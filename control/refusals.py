"""A refusal of the league service in the operator's words (issue 25, item 4).

The service's `InputError` carries an English message for the API's programmers, a `code` and the
`values` it names (a player, a date, a field). The admin pages say it from the catalog instead:
`league.err.<code>` (`.<variant>` when the service names one), a refused field
`league.err.field.<rule>` with the field's label `league.field.<name>`. A code with no words in the
catalog still gets a sentence in the operator's language (`league.err.status_<400|404|422>`), never
the English one; tests/season/test_refusal_words.py checks that every code the league raises has
its own words.
"""
from __future__ import annotations

import re
from typing import Any

from overlay.i18n.web import Translator
from overlay.rules import InputError

_INDEX = re.compile(r"\[(\d+)\]")


def field_label(t: Translator, where: str) -> str:
    """`members[2]` → «Игроки, № 3»; an unknown field → «поле»."""
    base = _INDEX.sub("", where)
    label = t(f"field.{base}")
    if label == t.prefix + f"field.{base}":
        label = t("field.other")
    index = _INDEX.search(where)
    return t("field.nth", field=label, n=int(index.group(1)) + 1) if index else label


def scope_name(t: Translator, scope: Any) -> str:
    """A series' scope (`duel:2`, `final`) as the series page names it."""
    if isinstance(scope, str) and scope.startswith("duel:") and scope[5:].isdigit():
        return t("series.duel_n", n=int(scope[5:]))
    return t("series.final") if scope == "final" else str(scope)


def _words(t: Translator, values: dict[str, Any]) -> dict[str, Any]:
    """The values a sentence names, themselves in the operator's words."""
    out = dict(values)
    for name in ("status", "to"):
        if name in out:
            out[name] = t(f"status.{out[name]}")
    if "scope" in out:
        out["scope"] = scope_name(t, out["scope"])
    if "field" in out:
        out["field"] = field_label(t, str(out["field"]))
    if isinstance(out.get("cause"), InputError):
        out["cause"] = explain(t, out["cause"])
    return out


def key_of(exc: InputError) -> str:
    """The catalog key (without `league.`) that says this refusal."""
    values = exc.values
    if exc.code == "bad_field":
        return f"err.field.{values.get('rule', 'invalid')}"
    key, variant = f"err.{exc.code}", values.get("variant")
    return f"{key}.{variant}" if variant else key


def explain(t: Translator, exc: InputError) -> str:
    key = key_of(exc)
    text = t(key, **_words(t, exc.values))
    if text.startswith(t.prefix + "err."):  # no words for this code yet: say what kind of refusal it is
        return t(f"err.status_{exc.status if exc.status in (404, 422) else 400}")
    return text
