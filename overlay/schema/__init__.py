"""Graphic data has a schema, and every door uses it.

Each graphic's data is declared once (declared.py) with our field types (types.py: text, number,
duration, boolean, list of texts, list of rows, media id, colour, choice, time of day) written as
JSON Schema with EBU OGraf's Graphics Data Definition types (`gddType`), so a GDD form builder —
and the OGraf export — reads the same declaration the server checks. `POST /api/graphics`, OSC,
the rundown's items (API and CSV import) and the desk's editor all validate with `validate_data`;
the CSV cells are read and written by cells.py.
"""
from __future__ import annotations

import copy
from typing import Any

from . import declared
from .check import ENGLISH, DataError, fields_of, validate
from .types import KINDS, kind_of

GDD_SCHEMA = "https://superflytv.github.io/GraphicsDataDefinition/gdd-meta-schema/v1/schema.json"

__all__ = ["DataError", "ENGLISH", "KINDS", "graphic_schema", "validate_data", "kind_of", "fields_of", "editor_schemas"]


def graphic_schema(graphic: str) -> dict:
    """The JSON Schema (draft 2020-12, GDD types) of a graphic's `data`; KeyError: no such graphic."""
    if graphic not in declared.FIELDS:
        raise KeyError(graphic)
    props = copy.deepcopy(fields_of(graphic))
    schema: dict[str, Any] = {"$schema": GDD_SCHEMA, "title": declared.TITLES.get(graphic, graphic),
                              "type": "object", "properties": props, "additionalProperties": False}
    required = list(declared.REQUIRED.get(graphic, ()))
    if required:
        schema["required"] = required
    return schema


def validate_data(graphic: str, data: Any) -> dict:
    """`data` checked against the graphic's schema and cleaned; DataError (400 `bad_field`, with a
    catalog `key` and `params`) for the first wrong field. An unknown graphic has no fields."""
    return validate(graphic, data)


def editor_schemas() -> dict[str, dict]:
    """Every graphic's schema, for the desk's item editor (each field's `kind` added)."""
    out = {}
    for g in declared.FIELDS:
        s = graphic_schema(g)
        for prop in s["properties"].values():
            prop["kind"] = kind_of(prop)
        out[g] = s
    return out
