"""The graphics library (API.md, OGraf; issue 27 part 2) against a real server process: a package
of our own example graphics (tests/fixtures/ograf-own/) uploads and lists; hostile packages are refused with `bad_ograf` naming the
file, and a refusal stores nothing; package files are served sandboxed; rundown items
`ograf:<id>` have their data checked against the manifest's schema, take/continue/out/F5 and
custom actions go through the desk (layer entries, the journal); a graphic in use is not
deleted (409)."""
from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.support import Server

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ograf-own"


def example_zip(*names: str) -> bytes:
    """Our example graphics `names` (tests/fixtures/ograf-own/), zipped as a user would (each in its folder)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in names:
            for p in sorted((FIXTURES / name).rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(FIXTURES).as_posix())
    return out.getvalue()


def zip_of(entries: dict[str, bytes | str], symlinks: tuple[str, ...] = ()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, data)
    return out.getvalue()


def manifest(gid: str = "t1", **extra: Any) -> str:
    return json.dumps({"$schema": "https://ograf.ebu.io/v1/specification/json-schemas/graphics/schema.json",
                       "id": gid, "name": "T", "main": "g.mjs", "supportsRealTime": True,
                       "supportsNonRealTime": False, **extra})


def upload(srv: Server, data: bytes, name: str = "pkg.zip") -> Any:
    return srv.http.post(srv.url + "/api/ograf", files={"file": (name, data)}, timeout=60)


def stored(srv: Server) -> list[str]:
    folder = srv.data / "ograf"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


GOOD = "export default class G extends HTMLElement {}"
BOMB = b"\0" * (20 * 1024 * 1024)  # 20 MB of zeros pack into ~20 KB

HOSTILE = [
    # (what, zip bytes, file named, words in the message)
    ("not a zip", b"GIF89a not a zip", None, "not a zip"),
    ("no manifest", zip_of({"g.mjs": GOOD}), None, "no *.ograf.json"),
    ("bad json", zip_of({"a.ograf.json": "{", "g.mjs": GOOD}), "a.ograf.json", "not valid JSON"),
    ("schema: no main", zip_of({"a.ograf.json": json.dumps({"id": "x", "name": "x"}), "g.mjs": GOOD}),
     "a.ograf.json", "OGraf v1 schema"),
    ("main missing", zip_of({"a.ograf.json": manifest(main="nope.mjs")}), "a.ograf.json", "not in the package"),
    ("main escapes", zip_of({"a.ograf.json": manifest(main="../../etc/passwd"), "g.mjs": GOOD}), "a.ograf.json", "out of the package"),
    ("main absolute", zip_of({"a.ograf.json": manifest(main="/etc/passwd"), "g.mjs": GOOD}), "a.ograf.json", "relative"),
    ("main URL", zip_of({"a.ograf.json": manifest(main="https://evil.example/g.mjs"), "g.mjs": GOOD}), "a.ograf.json", "relative"),
    ("path traversal", zip_of({"a.ograf.json": manifest(), "g.mjs": GOOD, "../evil.js": "x"}), "../evil.js", "out of the package"),
    ("absolute path", zip_of({"a.ograf.json": manifest(), "g.mjs": GOOD, "/tmp/evil.js": "x"}), "/tmp/evil.js", "absolute"),
    ("backslash path", zip_of({"a.ograf.json": manifest(), "g.mjs": GOOD, "..\\evil.js": "x"}), "..\\evil.js", "backslash"),
    ("symlink", zip_of({"a.ograf.json": manifest(), "g.mjs": GOOD, "lib": "/etc/passwd"}, symlinks=("lib",)), "lib", "symbolic link"),
    ("duplicate ids", zip_of({"a/a.ograf.json": manifest("same"), "a/g.mjs": GOOD,
                              "b/b.ograf.json": manifest("same"), "b/g.mjs": GOOD}), "b/b.ograf.json", "same"),
    ("our id", zip_of({"a.ograf.json": manifest("chgk-lower-third"), "g.mjs": GOOD}), "a.ograf.json", "chgk-"),
    ("bad data schema", zip_of({"a.ograf.json": manifest(schema={"type": "object", "properties": {"x": {"type": 5}}}),
                                "g.mjs": GOOD}), "a.ograf.json", "schema"),
    ("missing thumbnail", zip_of({"a.ograf.json": manifest(thumbnails=[{"file": "t.png"}]), "g.mjs": GOOD}),
     "a.ograf.json", "thumbnail"),
    ("zip bomb", zip_of({"a.ograf.json": manifest(), "g.mjs": GOOD, "pad.bin": BOMB}), "pad.bin", "zip bomb"),
]


def test_hostile_packages_are_refused_and_store_nothing(server: Server) -> None:
    before = stored(server)
    for what, data, file, words in HOSTILE:
        r = upload(server, data)
        assert r.status_code == 400, (what, r.status_code, r.text)
        err = r.json()["error"]
        assert err["code"] == "bad_ograf", (what, err)
        assert words.lower() in err["message"].lower(), (what, err)
        if file is not None:
            assert err["file"] == file, (what, err)
    assert server.api("GET", "/api/ograf")["graphics"] == []
    assert stored(server) == before
    big = upload(server, b"PK" + b"\0" * (51 * 1024 * 1024))
    assert big.status_code == 413, big.text
    unauth = server.http.__class__().post(server.url + "/api/ograf", files={"file": ("a.zip", example_zip("hello"))})
    assert unauth.status_code == 401
    assert server.api("GET", "/api/ograf")["graphics"] == [] and stored(server) == before


def test_upload_list_serve_items_and_delete(server: Server) -> None:
    r = upload(server, example_zip("hello", "name-strap", "scoreboard"))
    assert r.status_code == 201, r.text
    made = {g["id"]: g for g in r.json()["graphics"]}
    assert set(made) == {"own-hello", "own-name-strap", "own-scoreboard"}
    assert made["own-name-strap"]["version"] == "1" and made["own-name-strap"]["stepCount"] == 1
    assert [a["id"] for a in made["own-scoreboard"]["customActions"]] == ["point", "set-score"]
    listed = {g["id"]: g for g in server.api("GET", "/api/ograf")["graphics"]}
    assert set(listed) == set(made)
    # a thumbnail the manifest names is listed with its URL, served as the picture it is
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    thumbed = upload(server, zip_of({"pkg/t.ograf.json": manifest("thumbed", thumbnails=[
        {"file": "thumbs/a.png", "resolution": {"width": 320, "height": 180}}]), "pkg/g.mjs": GOOD, "pkg/thumbs/a.png": png}))
    assert thumbed.status_code == 201, thumbed.text
    (shown,) = [g for g in server.api("GET", "/api/ograf")["graphics"] if g["id"] == "thumbed"]
    thumb = server.http.get(server.url + shown["thumbnails"][0]["url"])
    assert shown["thumbnails"][0]["resolution"] == {"width": 320, "height": 180}
    assert thumb.status_code == 200 and thumb.headers["Content-Type"] == "image/png" and thumb.content == png
    again = upload(server, example_zip("hello"))
    assert again.status_code == 400 and "already" in again.json()["error"]["message"]

    # the files: public (overlays load them), sandboxed, never HTML on our origin
    frame = server.http.get(server.url + listed["own-name-strap"]["frame"])
    assert frame.status_code == 200
    csp = frame.headers["Content-Security-Policy"]
    assert "sandbox allow-scripts" in csp and "connect-src http" in csp and "default-src 'none'" in csp
    main = frame.text.split('data-main="')[1].split('"')[0]
    js = server.http.get(server.url + main)
    assert js.status_code == 200 and js.headers["Content-Type"].startswith("text/javascript")
    assert js.headers["Access-Control-Allow-Origin"] == "*" and "sandbox" in js.headers["Content-Security-Policy"]
    assert server.http.get(server.url + main.rsplit("/", 1)[0] + "/../../../chgk.sqlite3").status_code == 404

    # rundown items: data against the manifest's schema, at creation and edit
    rid = server.api("POST", "/api/rundowns", {"name": "OGraf"})["id"]
    bad = server.call("POST", f"/api/rundowns/{rid}/items",
                      {"graphic": "ograf:own-name-strap", "layer": "straps", "data": {"name": 5}})
    assert bad.status_code == 400 and "schema" in bad.json()["error"]["message"], bad.text
    unknown = server.call("POST", f"/api/rundowns/{rid}/items", {"graphic": "ograf:nope", "layer": "straps"})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_graphic"
    item = server.api("POST", f"/api/rundowns/{rid}/items",
                      {"graphic": "ograf:own-name-strap", "layer": "straps", "data": {"name": "Анна", "title": "Ведущая"}})
    bad_edit = server.call("PATCH", f"/api/rundowns/{rid}/items/{item['id']}", {"data": {"title": []}})
    assert bad_edit.status_code == 400, bad_edit.text
    test_item = server.api("POST", f"/api/rundowns/{rid}/items",
                           {"graphic": "ograf:own-scoreboard", "layer": "main", "data": {"home": "Знатоки"}})

    def act(body: dict, status: int = 200) -> dict:
        r = server.call("POST", f"/api/rundowns/{rid}/actions", body)
        assert r.status_code == status, r.text
        return r.json()

    view = act({"action": "take", "item": item["id"]})
    assert view["program"]["straps"]["item"] == item["id"]
    assert view["ograf"]["ograf:own-name-strap"]["customActions"][0]["id"] == "highlight"
    act({"action": "continue", "item": item["id"]}, 422)  # stepCount 1: no further step
    act({"action": "custom", "item": item["id"], "id": "nope"}, 400)
    act({"action": "custom", "item": item["id"], "id": "highlight"})
    act({"action": "take", "item": test_item["id"]})
    act({"action": "custom", "item": test_item["id"], "id": "set-score", "payload": {"home": "three", "away": 5}}, 400)
    act({"action": "custom", "item": test_item["id"], "id": "set-score", "payload": {"home": 3, "away": 5}})
    program = server.api("GET", f"/api/rundowns/{rid}")["program"]
    assert program["main"]["item"] == test_item["id"] and program["straps"]["item"] == item["id"]
    # the same path as every take: the graphics' journal has each action, with what went to air
    import sqlite3
    with sqlite3.connect(server.data / "chgk.sqlite3") as db:
        done = [json.loads(b)["action"] for (b,) in db.execute("SELECT body FROM journal WHERE kind='graphics' ORDER BY rowid")]
        air = json.loads(db.execute("SELECT value FROM settings WHERE key='graphics'").fetchone()[0])
    assert done[-4:] == ["rundown_take", "rundown_custom", "rundown_take", "rundown_custom"], done
    assert air["layers"]["main"]["actions"] == [{"id": "set-score", "payload": {"home": 3, "away": 5}}]
    assert air["layers"]["straps"]["actions"] == [{"id": "highlight", "payload": {}}]
    assert air["layers"]["straps"]["ograf"]["frame"].startswith("/ograf/frame/own-name-strap?v=")

    # steps from the manifest: stepCount 3 continues twice, then Space takes it out; -1 always continues
    steps = upload(server, zip_of({"s3/a.ograf.json": manifest("three", stepCount=3), "s3/g.mjs": GOOD,
                                   "s3/page.html": "<script>parent.document.cookie</script>",
                                   "dyn/b.ograf.json": manifest("dynamic", stepCount=-1), "dyn/g.mjs": GOOD}))
    assert steps.status_code == 201, steps.text
    three = server.api("POST", f"/api/rundowns/{rid}/items", {"graphic": "ograf:three", "layer": "cards"})["id"]
    dyn = server.api("POST", f"/api/rundowns/{rid}/items", {"graphic": "ograf:dynamic", "layer": "extra"})["id"]
    act({"action": "take", "item": three})
    assert act({"action": "go", "item": three})["program"]["cards"]["step"] == 1
    assert act({"action": "continue", "item": three})["program"]["cards"]["step"] == 2
    act({"action": "continue", "item": three}, 422)
    assert "cards" not in act({"action": "go", "item": three})["program"]
    act({"action": "take", "item": dyn})
    for n in range(1, 6):
        assert act({"action": "go", "item": dyn})["program"]["extra"]["step"] == n
    act({"action": "out", "item": dyn})
    # a package's HTML is never a page of our origin: served as text, sandboxed
    (three_listed,) = [g for g in server.api("GET", "/api/ograf")["graphics"] if g["id"] == "three"]
    frame_text = server.http.get(server.url + three_listed["frame"]).text
    page = server.http.get(server.url + frame_text.split('data-main="')[1].split('"')[0].replace("g.mjs", "page.html"))
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/plain")
    assert page.headers["Content-Security-Policy"].startswith("sandbox")

    in_use = server.call("DELETE", "/api/ograf/own-name-strap")
    assert in_use.status_code == 409 and in_use.json()["error"]["used_by"], in_use.text
    act({"action": "go", "item": item["id"]})  # Space on a one-step graphic: out
    assert "straps" not in server.api("GET", f"/api/rundowns/{rid}")["program"]
    assert server.call("DELETE", "/api/ograf/own-name-strap").status_code == 409  # still an item of the rundown
    server.api("DELETE", f"/api/rundowns/{rid}/items/{item['id']}")
    gone = server.call("DELETE", "/api/ograf/own-name-strap")
    assert gone.status_code == 200, gone.text
    assert "own-name-strap" not in {g["id"] for g in server.api("GET", "/api/ograf")["graphics"]}
    assert server.http.get(server.url + main).status_code == 200  # its package still holds the others
