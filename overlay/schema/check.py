"""A small validator for the declared data (the subset of JSON Schema types.py writes): each
refusal is a `DataError` — code `bad_field`, a catalog key (`data.want_list`, …) and its
parameters (field, expected bounds, the list row), said by the desk in the operator's language;
`message` is the English detail for logs and scripts. It also cleans: the old shapes the doors
took (a ticker item `{"text"}`, a credits name as a plain text) become the declared ones, a
list's texts lose their outer spaces, a colour is lower-cased, server-written fields are dropped."""
from __future__ import annotations

import re
from typing import Any

from ..rules import InputError
from . import declared
from .types import COLOUR_RE, TIME_RE, kind_of

ENGLISH = {
    "data.unknown_field": "'{field}' is not a field of this graphic; its fields: {fields}.",
    "data.required": "'{field}' is required.",
    "data.want_text": "'{field}' must be a text of at most {max} characters.",
    "data.want_text_min": "'{field}' must be a text of {min} to {max} characters.",
    "data.want_number": "'{field}' must be a whole number from {min} to {max}.",
    "data.want_duration": "'{field}' must be a duration from {min} to {max} (milliseconds, or e.g. 8 s, 1:30).",
    "data.want_boolean": "'{field}' must be true or false.",
    "data.want_list": "'{field}' must be a list of {min} to {max} texts of at most {item_max} characters.",
    "data.want_rows": "'{field}' must be a list of {min} to {max} rows.",
    "data.want_media": "'{field}' must name a picture: a media id from the library (\"m3\") or a URL.",
    "data.want_colour": "'{field}' must be a colour as #rrggbb.",
    "data.want_choice": "'{field}' must be one of {options}.",
    "data.want_time": "'{field}' must be a time of day as HH:MM, e.g. 19:30.",
    "data.one_of": "Give one of {fields}.",
    "data.at_most_one": "Give at most one of {fields}.",
}


class DataError(InputError):
    """A field of a graphic's data is wrong (400 `bad_field`): `key` and `params` say which and how."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key, self.params = key, params
        where = f"Row {params['row']} of '{params['field']}': " if params.get("row") else ""
        super().__init__("bad_field", where + ENGLISH[key].format(**params))


def fields_of(graphic: str) -> dict[str, dict]:
    return declared.FIELDS.get(graphic, {}) | {"duration_ms": declared.DURATION}


def validate(graphic: str, data: Any) -> dict:
    """The clean data, or DataError for the first wrong field."""
    if not isinstance(data, dict):
        raise InputError("bad_field", "'data' must be an object.")
    props = fields_of(graphic)
    for key in data:
        if key not in props:
            writable = [k for k, p in props.items() if not p.get("readOnly")]
            raise DataError("data.unknown_field", field=key, fields=", ".join(writable) or "—")
    out: dict[str, Any] = {}
    for key, v in data.items():  # in the data's own order: an export keeps its columns
        if props[key].get("readOnly") or v is None:  # server-written, or null: left out
            continue
        out[key] = value(props[key], v, key)
    for key in declared.REQUIRED.get(graphic, ()):
        if key not in out:
            raise DataError("data.required", field=key)
    for rule, names in declared.TOGETHER.get(graphic, ()):
        given = [n for n in names if out.get(n) not in (None, False, "")]
        if rule == "one_of" and not given:
            raise DataError("data.one_of", fields=", ".join(names))
        if rule == "at_most_one" and len(given) > 1:
            raise DataError("data.at_most_one", fields=", ".join(given))
    return out


def value(prop: dict, v: Any, field: str, row: int | None = None) -> Any:
    """One field's clean value (`row`: its 1-based place in a list, for the message)."""
    kind = kind_of(prop)
    at = {"row": row} if row else {}
    if kind in ("text", "media"):
        lo, hi = prop.get("minLength", 0), prop.get("maxLength", 10_000)
        if not isinstance(v, str) or not lo <= len(v) <= hi or (lo and not v.strip()):
            if kind == "media":
                raise DataError("data.want_media", field=field, **at)
            raise DataError("data.want_text_min" if lo else "data.want_text", field=field, min=lo, max=hi, **at)
        return v
    if kind in ("number", "duration"):
        if isinstance(v, bool) or not isinstance(v, int) or not prop["minimum"] <= v <= prop["maximum"]:
            if kind == "duration":
                from .cells import format_duration
                raise DataError("data.want_duration", field=field, min=format_duration(prop["minimum"]),
                                max=format_duration(prop["maximum"]), **at)
            raise DataError("data.want_number", field=field, min=prop["minimum"], max=prop["maximum"], **at)
        return v
    if kind == "boolean":
        if not isinstance(v, bool):
            raise DataError("data.want_boolean", field=field, **at)
        return v
    if kind == "choice":
        if v not in prop["enum"]:
            raise DataError("data.want_choice", field=field, options=", ".join(prop["enum"]), **at)
        return v
    if kind == "colour":
        if not isinstance(v, str) or not re.fullmatch(COLOUR_RE, v.lower()):
            raise DataError("data.want_colour", field=field, **at)
        return v.lower()
    if kind == "time":
        if not isinstance(v, str) or not re.fullmatch(TIME_RE, v):
            raise DataError("data.want_time", field=field, **at)
        return v
    if kind == "list":
        return _list(prop, v, field)
    return _rows(prop, v, field)


def _list(prop: dict, v: Any, field: str) -> list[str]:
    item = prop["items"]
    if not isinstance(v, list) or not prop["minItems"] <= len(v) <= prop["maxItems"]:
        raise DataError("data.want_list", field=field, min=prop["minItems"], max=prop["maxItems"],
                        item_max=item["maxLength"])
    legacy = declared.LEGACY_ROW_KEY.get(field)
    out = []
    for i, entry in enumerate(v, 1):
        if legacy and isinstance(entry, dict) and set(entry) == {legacy}:
            entry = entry[legacy]
        text = entry.strip() if isinstance(entry, str) else entry
        if not isinstance(text, str) or not 1 <= len(text) <= item["maxLength"]:
            raise DataError("data.want_text_min", field=field, min=1, max=item["maxLength"], row=i)
        out.append(text)
    return out


def _rows(prop: dict, v: Any, field: str) -> list[dict]:
    item = prop["items"]
    if not isinstance(v, list) or not prop["minItems"] <= len(v) <= prop["maxItems"]:
        raise DataError("data.want_rows", field=field, min=prop["minItems"], max=prop["maxItems"])
    legacy = declared.LEGACY_NAME_ROW.get(field)
    out = []
    for i, row in enumerate(v, 1):
        if legacy and isinstance(row, str):
            row = {legacy: row}
        if not isinstance(row, dict):
            raise DataError("data.want_rows", field=field, min=prop["minItems"], max=prop["maxItems"], row=i)
        for key in row:
            if key not in item["properties"]:
                raise DataError("data.unknown_field", field=f"{field}.{key}",
                                fields=", ".join(item["properties"]), row=i)
        clean = {}
        for key, col in item["properties"].items():
            if key in row and row[key] is not None:
                cell = row[key].strip() if isinstance(row[key], str) else row[key]
                clean[key] = value(col, cell, f"{field}.{key}", i)
            elif key in item["required"]:
                raise DataError("data.required", field=f"{field}.{key}", row=i)
        out.append(clean)
    return out
