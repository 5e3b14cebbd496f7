"""A picture on air cannot be deleted, whichever layer shows it (API.md, Media: `409` with
`used_by`). Two rundown layers can show the same graphic (a bug in two corners): the graphic's
own entry in `shown` holds only the latest, so the check must look at every layer too."""
from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from tests.support import Server


def picture(srv: Server, color: str) -> dict:
    out = io.BytesIO()
    Image.new("RGB", (40, 40), color).save(out, "PNG")
    r = srv.http.post(srv.url + "/api/media", files={"file": (f"{color}.png", out.getvalue())}, timeout=60)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("inuse") / "data", demo=False).start()
    yield srv
    srv.stop()


def take(srv: Server, rundown: str, item: str) -> None:
    srv.api("POST", f"/api/rundowns/{rundown}/actions", {"action": "take", "item": item})


def test_a_picture_on_either_of_two_layers_is_not_deleted(srv: Server):
    first, second, other = picture(srv, "red"), picture(srv, "green"), picture(srv, "blue")
    doc = srv.api("POST", "/api/rundowns", {"name": "Два угла"})
    left = srv.api("POST", f"/api/rundowns/{doc['id']}/items",
                   {"label": "Слева", "graphic": "bug", "layer": "bug-left", "data": {"media": first["id"], "corner": "top-left"}})
    right = srv.api("POST", f"/api/rundowns/{doc['id']}/items",
                    {"label": "Справа", "graphic": "bug", "layer": "bug-right", "data": {"media": second["id"]}})
    take(srv, doc["id"], left["id"])
    take(srv, doc["id"], right["id"])
    # the items are edited after the take: only the layers on air still name the pictures
    for item in (left, right):
        srv.api("PATCH", f"/api/rundowns/{doc['id']}/items/{item['id']}", {"data": {"media": other["id"]}})
    layers = srv.api("GET", "/api/graphics")["layers"]
    assert layers["bug-left"]["data"]["media"] == first["id"] and layers["bug-right"]["data"]["media"] == second["id"]
    for rec, layer in ((first, "bug-left"), (second, "bug-right")):
        r = srv.http.delete(srv.url + f"/api/media/{rec['id']}", timeout=10)
        assert r.status_code == 409, (layer, r.status_code, r.text)
        assert any(layer in use for use in r.json()["used_by"]), r.json()["used_by"]
        assert srv.http.get(srv.url + rec["url"], timeout=10).status_code == 200
    srv.api("POST", f"/api/rundowns/{doc['id']}/actions", {"action": "all_out"})
    assert srv.http.delete(srv.url + f"/api/media/{first['id']}", timeout=10).status_code == 200


def test_a_persons_photo_is_not_deleted(srv: Server):
    photo = picture(srv, "yellow")
    people = f"name,title,photo\r\nИван Петров,ведущий,{photo['id']}\r\n"
    r = srv.http.post(srv.url + "/api/people/import", data=people.encode(), headers={"Content-Type": "text/csv"}, timeout=10)
    assert r.status_code == 200, r.text
    r = srv.http.delete(srv.url + f"/api/media/{photo['id']}", timeout=10)
    assert r.status_code == 409, r.text
    assert any("Иван Петров" in use for use in r.json()["used_by"]), r.json()["used_by"]
