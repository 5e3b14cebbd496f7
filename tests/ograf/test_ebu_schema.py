"""Our OGraf manifests held to the EBU's own `graphics/schema.json` (read from ../shared/ograf at
test time, tests/ograf/ebu.py): every export is valid by it, every manifest the graphics library
takes is valid by it, and whatever it refuses the library refuses too — at the place the EBU's
schema names, with the reason in the operator's words."""
from __future__ import annotations

import copy
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from overlay.graphics.game import GRAPHICS
from overlay.i18n import Catalogs
from overlay.ograf import manifests
from overlay.ograf.library import OgrafRefused, read_manifests
from tests.ograf import ebu
from tests.support import Server

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VALID = {"$schema": manifests.SCHEMA_URL, "id": "t1", "name": "T", "main": "g.mjs", "supportsRealTime": True,
         "supportsNonRealTime": False}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    ebu.require()
    srv = Server(tmp_path_factory.mktemp("ograf-ebu") / "data", mode="threading").start()
    yield srv
    srv.stop()


def _manifests_in(raw: bytes) -> dict[str, dict]:
    z = zipfile.ZipFile(io.BytesIO(raw))
    return {n: json.loads(z.read(n)) for n in z.namelist() if n.endswith(".ograf.json")}


def test_every_export_is_valid_by_the_ebus_schema(server: Server) -> None:
    everything = _manifests_in(server.call("GET", "/ograf/export.zip").content)
    assert len(everything) == len(GRAPHICS)
    for graphic in GRAPHICS:
        one = _manifests_in(server.call("GET", f"/ograf/export/chgk-{graphic}.zip").content)
        assert list(one.values()) == [everything[f"chgk-{graphic}/chgk-{graphic}.ograf.json"]]
    for name, doc in everything.items():
        assert [e.message for e in ebu.manifest_errors(doc)] == [], name


def test_the_library_takes_only_what_the_ebus_schema_takes() -> None:
    """Every manifest our fixtures upload (the library takes them all) is valid by the EBU's schema."""
    found = sorted(FIXTURES.glob("ograf-*/**/*.ograf.json"))
    assert len(found) >= 6
    for path in found:
        doc = json.loads(path.read_text(encoding="utf-8"))
        files = {"pkg/" + path.name: path.read_bytes(), "pkg/" + doc["main"]: b"export default class {}"}
        files.update({"pkg/" + t["file"]: b"" for t in doc.get("thumbnails", [])})
        assert read_manifests(files)[0][1] == doc
        assert [e.message for e in ebu.manifest_errors(doc)] == [], path


def _refusal(doc: Any) -> OgrafRefused | None:
    files = {"pkg/g.ograf.json": json.dumps(doc).encode(), "pkg/g.mjs": b"export default class {}"}
    try:
        read_manifests(files)
    except OgrafRefused as exc:
        return exc
    return None


def _agree(doc: Any) -> None:
    """Where the EBU's schema refuses, the library refuses at a place the EBU's schema names."""
    errors = ebu.manifest_errors(doc)
    if not errors:
        return
    refused = _refusal(doc)
    assert refused is not None, f"the EBU's schema refuses ({errors[0].message}) and the library took {doc}"
    assert refused.code == "bad_ograf" and refused.params.get("reason", "").startswith("ograf_schema_"), refused.message
    assert refused.params["path"] in ebu.paths_of(errors), (refused.params, sorted(ebu.paths_of(errors)))


GDD_STRING = {"type": "string", "gddType": "single-line"}
REFUSED_BY_THE_EBU = {  # a change to a valid manifest → the place the EBU's schema names
    "an unknown top-level field": ({"colour": "red"}, ""),
    "a wrong $schema": ({"$schema": "https://example.org/other.json"}, "$schema"),
    "no main": ({"main": None}, ""),
    "supportsNonRealTime as text": ({"supportsNonRealTime": "no"}, "supportsNonRealTime"),
    "stepCount below -1": ({"stepCount": -2}, "stepCount"),
    "an author without a name": ({"author": {"url": "https://example.org"}}, "author"),
    "an author's unknown field": ({"author": {"name": "A", "phone": "1"}}, "author"),
    "an action without a name": ({"customActions": [{"id": "a"}]}, "customActions/0"),
    "an action's unknown field": ({"customActions": [{"id": "a", "name": "A", "icon": "x"}]}, "customActions/0"),
    "an action schema without a type": ({"customActions": [{"id": "a", "name": "A", "schema": {}}]},
                                        "customActions/0/schema"),
    "a thumbnail with one side": ({"thumbnails": [{"file": "t.png", "resolution": {"width": 10}}]},
                                  "thumbnails/0/resolution"),
    "a thumbnail of width 0": ({"thumbnails": [{"file": "t.png", "resolution": {"width": 0, "height": 1}}]},
                               "thumbnails/0/resolution/width"),
    "a render requirement's unknown field": ({"renderRequirements": [{"gpu": True}]}, "renderRequirements/0"),
    "a frame rate as a number": ({"renderRequirements": [{"frameRate": 50}]}, "renderRequirements/0/frameRate"),
    "an engine without a version": ({"renderRequirements": [{"engine": [{"type": "CEF"}]}]},
                                    "renderRequirements/0/engine/0"),
    "a data schema without a type": ({"schema": {"properties": {}}}, "schema"),
    "a data property without a type": ({"schema": {"type": "object", "properties": {"name": {"title": "N"}}}},
                                       "schema/properties/name"),
    "an object without properties": ({"schema": {"type": "object"}}, "schema"),
    "an array without items": ({"schema": {"type": "object", "properties": {"a": {"type": "array"}}}},
                               "schema/properties/a"),
    "a single-line number": ({"schema": {"type": "object", "properties": {"n": {"type": "number",
                                                                                  "gddType": "single-line"}}}},
                             "schema/properties/n/type"),
    "a select without labels": ({"schema": {"type": "object", "properties": {"s": {
        "type": "string", "gddType": "select", "enum": ["a"], "gddOptions": {}}}}}, "schema/properties/s/gddOptions"),
    "a colour without its pattern": ({"schema": {"type": "object", "properties": {"c": {
        "type": "string", "gddType": "color-rrggbb"}}}}, "schema/properties/c"),
    "a default of the wrong type": ({"schema": {"type": "object", "properties": {"b": {
        "type": "boolean", "default": "yes"}}}}, "schema/properties/b/default"),
}


@pytest.mark.parametrize("name", REFUSED_BY_THE_EBU)
def test_what_the_ebus_schema_refuses_the_library_refuses_where_it_says(name: str) -> None:
    change, where = REFUSED_BY_THE_EBU[name]
    doc = {k: v for k, v in {**VALID, **change}.items() if v is not None}
    assert ebu.manifest_errors(doc), f"{name}: the EBU's schema takes it"
    assert where in ebu.paths_of(ebu.manifest_errors(doc))
    _agree(doc)


def test_what_the_ebus_schema_takes_the_library_takes() -> None:
    """Vendor fields at every level that allows them, null action schemas, every GDD type."""
    doc = {**VALID, "v_note": {"any": 1}, "author": {"name": "A", "v_team": "x"},
           "customActions": [{"id": "a", "name": "A", "schema": None, "v_x": 1}],
           "thumbnails": [{"file": "g.mjs", "resolution": {"width": 1, "height": 1}, "v_y": 2}],
           "renderRequirements": [{"frameRate": {"min": 25}, "accessToPublicInternet": {"exact": False},
                                   "engine": [{"type": "CEF", "version": {"min": "103"}}]}],
           "schema": {"type": "object", "properties": {
               "t": GDD_STRING, "m": {"type": "string", "gddType": "multi-line"},
               "p": {"type": "string", "gddType": "file-path/image-path", "gddOptions": {"extensions": ["png"]}},
               "s": {"type": "integer", "gddType": "select", "enum": [1, 2], "gddOptions": {"labels": {"1": "One"}}},
               "c": {"type": "string", "gddType": "color-rrggbbaa", "pattern": "^#[0-9a-f]{8}$"},
               "d": {"type": "integer", "gddType": "duration-ms", "default": 500},
               "l": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}}}}}
    assert ebu.manifest_errors(doc) == []
    assert _refusal(doc) is None


# Hypothesis: a valid manifest (ours, or a fixture's) with one change anywhere in it — a value
# replaced, a field removed, a field added — is refused by the library wherever the EBU's is.
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
    ["", "x", "string", "object", "select", "single-line", "color-rrggbb", "^#[0-9a-f]{6}$", "v_x"]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(
        st.sampled_from(["type", "name", "id", "file", "min", "properties", "items", "gddType", "v_a", "other"]),
        inner, max_size=2), max_leaves=4)
BASES = [manifests.manifest("question"), manifests.manifest("lower-third"), manifests.manifest("scoreboard"),
         *(json.loads(p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.glob("ograf-own/*/*.ograf.json")))]


def _places(node: Any, at: tuple = ()) -> Iterator[tuple]:
    yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _places(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _places(v, (*at, i))


@st.composite
def mutants(draw: Any) -> dict:
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    place = draw(st.sampled_from(list(_places(doc))))
    parent = doc
    for step in place[:-1]:
        parent = parent[step]
    how = draw(st.sampled_from(["replace", "remove", "add"]))
    if not place or how == "add":
        target = parent[place[-1]] if place else doc
        if isinstance(target, dict):
            target[draw(st.sampled_from(["extra", "v_extra", "type", "schema", "gddType", "resolution"]))] = \
                draw(JSON_VALUES)
        return doc
    if how == "remove" and isinstance(parent, dict):
        del parent[place[-1]]
    else:
        parent[place[-1]] = draw(JSON_VALUES)
    return doc


@settings(max_examples=300, deadline=None)
@given(mutants())
def test_a_changed_manifest_is_refused_wherever_the_ebus_schema_refuses_it(doc: dict) -> None:
    ebu.require()
    _agree(doc)


def test_an_upload_the_ebus_schema_refuses_is_refused_in_the_operators_words(server: Server) -> None:
    """The API's refusal names the file, the place and the reason; the catalogs say it in ru, uk
    and en; nothing is stored."""
    from tests.web.test_ograf_library import stored, upload, zip_of
    doc = {**VALID, "customActions": [{"id": "glow", "name": "Glow", "colour": "red"}]}
    assert ebu.manifest_errors(doc)
    r = upload(server, zip_of({"glow/glow.ograf.json": json.dumps(doc), "glow/g.mjs": "export default class {}"}))
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert (error["code"], error["file"]) == ("bad_ograf", "glow/glow.ograf.json")
    assert error["params"] == {"reason": "ograf_schema_unknown", "path": "customActions/0", "field": "colour",
                               "where": "glow/glow.ograf.json → customActions/0"}
    assert error["params"]["path"] in ebu.paths_of(ebu.manifest_errors(doc))
    books = Catalogs()
    words = {lang: books.text(lang, "refusal.ograf_schema_unknown", **error["params"]) for lang in ("ru", "uk", "en")}
    assert words["ru"] == ("glow/glow.ograf.json → customActions/0: поля «colour» нет в схеме OGraf v1 — "
                           "свои поля называйте с «v_»")
    assert "«colour»" in words["uk"] and "«colour» is not in the OGraf v1 schema" in words["en"]
    assert stored(server) == [] and server.api("GET", "/api/ograf")["graphics"] == []
