"""Our JSON Schema of an OGraf v1 Graphic manifest (`*.ograf.json`), written here from what this
project reads and writes — not a copy of the EBU's schema files, which may not be committed here
(docs/OGRAF.md). It checks uploaded manifests (library.py) and our exported ones (manifests.py).

What it holds a manifest to:
- the fields every renderer needs: `$schema`, `id`, `name`, `main` (the Web Component's module),
  `supportsRealTime` and `supportsNonRealTime`;
- the types of the optional fields we read: `description`, `version`, `author`, `stepCount`
  (a whole number of steps; -1: as many as the controller asks), `schema` (the data's JSON
  Schema, draft 2020-12, with GDD keywords such as `gddType` — checked against the JSON Schema
  meta-schema), `customActions` (`{id, name, description?, schema}`: `schema` a JSON Schema or
  null), `thumbnails`, `renderRequirements`;
- vendor properties (`v_<anything>`) are free, as are properties this schema does not name (a
  newer revision of v1 may add some: they are let through, unchecked).

Offline: the only reference is the JSON Schema meta-schema, which ships with `jsonschema`.
"""
from __future__ import annotations

from functools import cache
from typing import Any

# the `$schema` an OGraf v1 manifest declares (ours do; the EBU's examples do)
SCHEMA_URL = "https://ograf.ebu.io/v1/specification/json-schemas/graphics/schema.json"
ID = "urn:chgk-overlay:ograf:v1:graphic-manifest"
JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"  # the meta-schema: a data schema is a JSON Schema

_TEXT = {"type": "string"}
_NAME = {"type": "string", "minLength": 1}
_WHOLE = {"type": "integer", "minimum": 0}
# a wanted value: at least / at most / ideally (render requirements)
_RANGE = {"type": "object", "properties": {"min": {"type": "number"}, "max": {"type": "number"},
                                           "ideal": {"type": "number"}}}

MANIFEST: dict[str, Any] = {
    "$schema": JSON_SCHEMA,
    "$id": ID,
    "title": "OGraf v1 Graphic manifest (chgk-overlay's check)",
    "type": "object",
    "required": ["$schema", "id", "name", "main", "supportsRealTime", "supportsNonRealTime"],
    "properties": {
        "$schema": {"type": "string", "minLength": 1},
        "id": {**_NAME, "description": "The graphic's id: unique among a renderer's graphics."},
        "version": _TEXT,
        "name": _NAME,
        "description": _TEXT,
        "author": {"type": "object", "required": ["name"],
                   "properties": {"name": _TEXT, "email": _TEXT, "url": _TEXT}},
        "main": {**_NAME, "description": "The Web Component's JavaScript module, relative to the manifest."},
        "supportsRealTime": {"type": "boolean"},
        "supportsNonRealTime": {"type": "boolean"},
        "stepCount": {"type": "integer", "minimum": -1,
                      "description": "How many steps playAction goes through (default 1; -1: no fixed count)."},
        "schema": {"$ref": JSON_SCHEMA, "description": "The data given to load/updateAction: a JSON Schema "
                                                       "(GDD types)."},
        "customActions": {"type": "array", "items": {
            "type": "object", "required": ["id", "name"],
            "properties": {"id": _NAME, "name": _NAME, "description": _TEXT,
                           "schema": {"anyOf": [{"type": "null"}, {"$ref": JSON_SCHEMA}]}}}},
        "thumbnails": {"type": "array", "items": {
            "type": "object", "required": ["file"],
            "properties": {"file": _NAME, "resolution": {
                "type": "object", "properties": {"width": _WHOLE, "height": _WHOLE}}}}},
        "renderRequirements": {"type": "array", "items": {
            "type": "object",
            "properties": {"resolution": {"type": "object", "properties": {"width": _RANGE, "height": _RANGE}},
                           "frameRate": _RANGE,
                           "accessToPublicInternet": {"type": "boolean"}}}},
    },
    "patternProperties": {"^v_": {}},
}


@cache
def validator() -> Any:
    """A Draft 2020-12 validator of MANIFEST that resolves nothing from the network."""
    import jsonschema
    from jsonschema_specifications import REGISTRY as META  # the JSON Schema meta-schemas
    from referencing import Resource

    registry = META.with_resource(ID, Resource.from_contents(MANIFEST))
    return jsonschema.Draft202012Validator(MANIFEST, registry=registry)


def errors(doc: Any) -> list[Any]:
    """The validation errors of a manifest, the first by position first ([] when it is valid)."""
    return sorted(validator().iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])


def problems(doc: Any) -> list[str]:
    """What is wrong with a manifest, in words ([] when it is valid)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(manifest)'}: {e.message}" for e in errors(doc)]
