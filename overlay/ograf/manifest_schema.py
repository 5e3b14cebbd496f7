"""Our JSON Schema of an OGraf v1 Graphic manifest (`*.ograf.json`), written here from the OGraf
v1 specification — not a copy of the EBU's schema files, which are not committed here and which
the server never needs to run (docs/OGRAF.md). It checks uploaded manifests (library.py) and our
exported ones (manifests.py).

It refuses at least everything the EBU's `graphics/schema.json` refuses — the tests hold it to
that by running both on the same manifests (tests/ograf/test_ebu_schema.py, with the EBU's files
read from ../shared/ograf at test time):
- the fields every renderer needs: `$schema` (the v1 URL), `id`, `name`, `main`,
  `supportsRealTime` and `supportsNonRealTime`;
- no property the specification does not name, at any level it closes (the manifest, `author`,
  each custom action, thumbnail and render requirement): a vendor's own go under `v_<name>`;
- the data `schema` and each action's `schema` are GDD objects: JSON Schemas whose every
  property says its `type`, with the GDD types' rules (`gddType: select` has `enum` and
  `gddOptions.labels`, a colour has its pattern, …);
- render requirements as constraints (`{min, max, exact, ideal}`), thumbnails with both sides.

Stricter than the EBU's in two places, on purpose: `id`, `name` and `main` are not empty, and
`stepCount` is a whole number (a renderer counts steps).

Offline: the only outside reference is the JSON Schema meta-schema, which ships with `jsonschema`.
"""
from __future__ import annotations

import json
from functools import cache
from typing import Any

# the `$schema` an OGraf v1 manifest declares (ours do; the EBU's examples do)
SCHEMA_URL = "https://ograf.ebu.io/v1/specification/json-schemas/graphics/schema.json"
ID = "urn:chgk-overlay:ograf:v1:graphic-manifest"
GDD = "#/$defs/gdd"  # a data schema with GDD types (below; inside the manifest's schema, so it stands alone)
JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"  # the meta-schema: a data schema is a JSON Schema

_TEXT = {"type": "string"}
_NAME = {"type": "string", "minLength": 1}
_VENDOR = {"^v_.*": {}}


def _closed(properties: dict[str, Any], required: tuple[str, ...] = (), **more: Any) -> dict[str, Any]:
    """An object with just these properties and vendor ones (`v_…`)."""
    out = {"type": "object", "properties": properties, "patternProperties": _VENDOR, "additionalProperties": False,
           **more}
    if required:
        out["required"] = list(required)
    return out


def _when(then: dict[str, Any], **equal: str) -> dict[str, Any]:
    """A rule that holds where each named property has the given value."""
    return {"if": {"properties": {k: {"const": v} for k, v in equal.items()}, "required": list(equal)},
            "then": then}


def _type(name: str) -> dict[str, Any]:
    return {"properties": {"type": {"const": name}}}


_NUMBER = {"type": "number"}
_CONSTRAINT = {  # MediaTrackConstraints-like: what a renderer must, or should ideally, have
    "number": _closed({"min": _NUMBER, "max": _NUMBER, "exact": _NUMBER, "ideal": _NUMBER}),
    "boolean": _closed({"exact": {"type": "boolean"}, "ideal": {"type": "boolean"}}),
}
_STRINGS = {"type": "array", "items": _TEXT}


def _select(kind: str, label_keys: str | None) -> dict[str, Any]:
    """`gddType: select` of a `type`: its `enum` of that type; number labels keyed by the number."""
    labels: dict[str, Any] = {"type": "object"}
    if label_keys:
        labels.update(propertyNames={"pattern": label_keys}, patternProperties={".": _TEXT})
        if kind == "integer":
            labels["additionalProperties"] = False
    return _when({"properties": {"enum": {"type": "array", "items": {"type": kind}},
                                 "gddOptions": {"type": "object", "properties": {"labels": labels}}},
                  "required": ["gddOptions", "enum"]}, gddType="select", type=kind)


def _colour(digits: int) -> dict[str, Any]:
    return {"properties": {"type": {"const": "string"}, "pattern": {"type": "string", "const": f"^#[0-9a-f]{{{digits}}}$"}},
            "required": ["pattern"]}


_FILE = {"properties": {"type": {"const": "string"},
                        "gddOptions": {"type": "object", "properties": {"extensions": _STRINGS}}}}
# What each GDD type asks of its schema (the GDD types of OGraf v1).
GDD_TYPES = [
    _when(_type("string"), gddType="single-line"),
    _when(_type("string"), gddType="multi-line"),
    _when(_FILE, gddType="file-path"),
    _when(_FILE, gddType="file-path/image-path"),
    _when({"properties": {"type": {"enum": ["string", "number", "integer"]},
                          "gddOptions": {"type": "object", "required": ["labels"]}},
           "required": ["gddOptions", "enum"]}, gddType="select"),
    _select("string", None),
    _select("integer", "^[0-9]+$"),
    _select("number", "^[0-9,.]+$"),
    _when(_colour(6), gddType="color-rrggbb"),
    _when(_colour(8), gddType="color-rrggbbaa"),
    _when(_type("number"), gddType="percentage"),
    _when(_type("integer"), gddType="duration-ms"),
]
# What each JSON type asks: a default of that type; an array's items and an object's properties
# are GDD objects themselves.
BASIC_TYPES = [
    *(_when({"properties": {"default": {"type": t}}}, type=t) for t in ("boolean", "string", "number", "integer")),
    _when({"properties": {"items": {"$ref": GDD}, "default": {"type": "array"}}, "required": ["items"]},
          type="array"),
    _when({"properties": {"properties": {"type": "object", "patternProperties": {".": {"$ref": GDD}},
                                         "additionalProperties": False},
                          "default": {"type": "object"}},
           "required": ["properties"]}, type="object"),
]
GDD_OBJECT: dict[str, Any] = {
    "title": "A GDD object: a JSON Schema whose every property has its type",
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string", "enum": ["boolean", "string", "number", "integer", "array", "object"]},
                   "gddType": _TEXT, "gddOptions": {"type": "object"}, "hidden": {"type": "boolean"},
                   "order": _NUMBER},
    "allOf": [{"$ref": JSON_SCHEMA}, *GDD_TYPES, *BASIC_TYPES],
}

_ENGINE = _closed({"type": _TEXT, "version": {"type": "object", "properties": {"min": _TEXT}, "required": ["min"]}},
                  ("type", "version"))
MANIFEST: dict[str, Any] = {
    "$schema": JSON_SCHEMA,
    "$id": ID,
    "title": "OGraf v1 Graphic manifest (chgk-overlay's check)",
    "$defs": {"gdd": GDD_OBJECT},
    **_closed({
        "$schema": {"type": "string", "const": SCHEMA_URL},
        "id": {**_NAME, "description": "The graphic's id: unique among a renderer's graphics."},
        "version": _TEXT,
        "name": _NAME,
        "description": _TEXT,
        "author": _closed({"name": _TEXT, "email": _TEXT, "url": _TEXT}, ("name",)),
        "main": {**_NAME, "description": "The Web Component's JavaScript module, relative to the manifest."},
        "supportsRealTime": {"type": "boolean"},
        "supportsNonRealTime": {"type": "boolean"},
        "stepCount": {"type": "integer", "minimum": -1,
                      "description": "How many steps playAction goes through (default 1; -1: no fixed count)."},
        "schema": {"type": "object", "$ref": GDD,
                   "description": "The data given to load/updateAction: a GDD object (JSON Schema with GDD types)."},
        "customActions": {"type": "array", "items": _closed(
            {"id": _TEXT, "name": _TEXT, "description": _TEXT,
             "schema": {"oneOf": [{"type": "object", "$ref": GDD}, {"type": "null"}]}}, ("id", "name"))},
        "renderRequirements": {"type": "array", "items": _closed({
            "resolution": {"type": "object", "properties": {"width": _CONSTRAINT["number"],
                                                            "height": _CONSTRAINT["number"]}},
            "frameRate": _CONSTRAINT["number"],
            "accessToPublicInternet": _CONSTRAINT["boolean"],
            "engine": {"type": "array", "items": _ENGINE}})},
        "thumbnails": {"type": "array", "items": _closed({
            "file": _TEXT,
            "resolution": {"type": "object", "required": ["width", "height"],
                           "properties": {"width": {"type": "integer", "minimum": 1},
                                          "height": {"type": "integer", "minimum": 1}}}}, ("file",))},
    }, ("$schema", "id", "name", "main", "supportsRealTime", "supportsNonRealTime")),
}


@cache
def registry() -> Any:
    """The schemas a manifest's check resolves, all offline: ours and the JSON Schema meta-schemas."""
    from jsonschema_specifications import REGISTRY as META
    from referencing import Resource

    return META.with_resource(ID, Resource.from_contents(MANIFEST))


@cache
def validator() -> Any:
    """A Draft 2020-12 validator of MANIFEST that resolves nothing from the network."""
    import jsonschema

    return jsonschema.Draft202012Validator(MANIFEST, registry=registry())


def errors(doc: Any) -> list[Any]:
    """The validation errors of a manifest, the most telling first ([] when it is valid)."""
    from jsonschema.exceptions import relevance

    return sorted(validator().iter_errors(doc), key=relevance, reverse=True)


def problems(doc: Any) -> list[str]:
    """What is wrong with a manifest, in words ([] when it is valid)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(manifest)'}: {e.message}" for e in errors(doc)]


def _path(err: Any) -> str:
    return "/".join(map(str, err.absolute_path))


def first_error(doc: Any) -> Any | None:
    """The error an operator should hear first (jsonschema's best match: the shallowest, and
    inside `oneOf`/`anyOf` the branch that came closest), or None when the manifest is valid."""
    from jsonschema.exceptions import best_match

    return best_match(validator().iter_errors(doc))


def reason(err: Any) -> dict[str, Any]:
    """A schema error as a refusal's params: the `reason` (catalog `refusal.ograf_schema_<kind>`),
    `path` (where in the manifest, `/`-joined; "" at its top) and what the words name."""
    kind, value, instance = err.validator, err.validator_value, err.instance
    path = _path(err)
    if kind == "required" and isinstance(instance, dict):
        missing = [k for k in value if k not in instance]
        return {"reason": "ograf_schema_required", "path": path, "field": ", ".join(missing)}
    if kind == "additionalProperties" and isinstance(instance, dict):
        named = set(err.schema.get("properties", {}))
        extra = sorted(k for k in instance if k not in named and not str(k).startswith("v_"))
        return {"reason": "ograf_schema_unknown", "path": path, "field": ", ".join(extra)[:200]}
    if kind == "type":
        return {"reason": "ograf_schema_type", "path": path,
                "expected": value if isinstance(value, str) else " | ".join(value)}
    if kind in ("const", "enum"):
        allowed = [value] if kind == "const" else value
        return {"reason": "ograf_schema_value", "path": path,
                "expected": " | ".join(json.dumps(v, ensure_ascii=False) for v in allowed)[:200]}
    if kind in ("minimum", "minLength", "minItems"):
        return {"reason": "ograf_schema_min", "path": path, "limit": value}
    return {"reason": "ograf_schema_other", "path": path, "why": err.message[:200]}
