"""Every on-air graphic has an OGraf manifest valid against the vendored EBU schema, and the
schema check is real (a broken manifest is refused)."""
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
