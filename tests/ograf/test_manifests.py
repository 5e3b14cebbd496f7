"""Every on-air graphic has an OGraf manifest valid against our OGraf v1 manifest schema
(overlay/ograf/manifest_schema.py), and the schema check is real (a broken manifest is refused)."""
from __future__ import annotations

import pytest

from overlay.graphics.game import GRAPHICS
from overlay.ograf import manifests


@pytest.mark.parametrize("graphic", GRAPHICS)
def test_manifest_is_valid(graphic: str) -> None:
    doc = manifests.manifest(graphic)
    assert manifests.problems(doc) == []
    assert doc["id"] == f"chgk-{graphic}" and doc["main"] == f"ograf/chgk/{graphic}.mjs"
    assert doc["stepCount"] == (3 if graphic == "question" else 1)


def test_a_broken_manifest_is_refused() -> None:
    doc = manifests.manifest("lower-third")
    assert any("main" in p for p in manifests.problems({k: v for k, v in doc.items() if k != "main"}))
    assert manifests.problems({**doc, "schema": {"type": "object", "properties": {"x": {"type": 3}}}}) != []


def test_our_manifest_schema_is_a_json_schema() -> None:
    import jsonschema

    from overlay.ograf.manifest_schema import MANIFEST
    jsonschema.Draft202012Validator.check_schema(MANIFEST)


@pytest.mark.parametrize("change, where", [
    ({"$schema": None}, "$schema"),
    ({"id": ""}, "id"),
    ({"supportsRealTime": "yes"}, "supportsRealTime"),
    ({"stepCount": "3"}, "stepCount"),
    ({"stepCount": -2}, "stepCount"),
    ({"customActions": [{"name": "no id"}]}, "id"),
    ({"customActions": [{"id": "a", "name": "A", "schema": 5}]}, "customActions/0/schema"),
    ({"thumbnails": [{"resolution": {"width": 1}}]}, "file"),
    ({"author": {"url": "https://example.org"}}, "name"),
    ({"schema": "not a schema"}, "schema"),
])
def test_our_schema_refuses_what_a_renderer_could_not_use(change: dict, where: str) -> None:
    doc = manifests.manifest("question")
    doc = {k: v for k, v in {**doc, **change}.items() if v is not None}
    assert any(where in p for p in manifests.problems(doc)), manifests.problems(doc)


def test_vendor_properties_and_null_action_schemas_pass() -> None:
    doc = {"$schema": manifests.SCHEMA_URL, "id": "x", "name": "X", "main": "g.mjs", "supportsRealTime": True,
           "supportsNonRealTime": False, "v_note": {"any": ["thing"]},
           "customActions": [{"id": "highlight", "name": "Highlight", "schema": None}]}
    assert manifests.problems(doc) == []
