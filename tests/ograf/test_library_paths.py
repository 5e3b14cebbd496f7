"""The graphics library's path rules (overlay/ograf/library.py), as properties: whatever a zip
member is called, a name the library takes stays inside the package folder, and a manifest's
reference (its `main`, a thumbnail) never leads out of the package."""
from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, strategies as st

from overlay.ograf.library import OgrafRefused, _clean_path, _inside

PARTS = st.sampled_from(["..", ".", "", "a", "b.js", "lib", "C:", "/", "\\", "..\\x", "~", "%2e%2e", "\x00", " "])
NAMES = st.lists(PARTS, min_size=1, max_size=6).map("/".join) | st.text(max_size=40)


@given(NAMES)
def test_a_taken_member_name_stays_in_the_package(name: str) -> None:
    try:
        clean = _clean_path(name)
    except OgrafRefused:
        return
    root = Path("/pkg")
    target = (root / clean).resolve()
    assert root in target.parents, (name, clean)
    assert ".." not in PurePosixPath(clean).parts and not clean.startswith("/")


@given(st.lists(st.sampled_from(["a", "lib", "x"]), max_size=3).map("/".join), NAMES)
def test_a_manifest_reference_stays_in_the_package(base: str, ref: str) -> None:
    try:
        path = _inside(base, ref, "m.ograf.json")
    except OgrafRefused:
        return
    assert ".." not in path.split("/") and not path.startswith("/"), (base, ref, path)
    assert not PurePosixPath(path).is_absolute()


@pytest.mark.parametrize("ref", ["../x.js", "/etc/passwd", "https://evil.example/a.mjs", "file:///etc/passwd",
                                 "C:\\\\x", "data:text/javascript,1", "//evil.example/a.mjs"])
def test_references_out_of_the_package_are_refused(ref: str) -> None:
    with pytest.raises(OgrafRefused):
        _inside("", ref, "m.ograf.json")
