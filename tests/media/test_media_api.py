"""The media library (API.md, Media) against a real server process: what it takes, what it
refuses (and that a refusal stores nothing), how it serves, and what a re-upload and a delete do."""
from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from tests.support import Server


def png(color: str = "red", size: tuple[int, int] = (64, 32), fmt: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims `width` × `height` pixels: signature, IHDR and a tiny IDAT (cheap to make,
    a bomb to decode)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")


def upload(srv: Server, data: bytes, name: str = "logo.png", method: str = "POST", path: str = "/api/media"):
    return srv.http.request(method, srv.url + path, files={"file": (name, data)}, timeout=30)


def files(srv: Server) -> list[str]:
    folder = srv.data / "media"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def listing(srv: Server) -> list[dict]:
    return srv.api("GET", "/api/media")["media"]


SVG_OK = ('<?xml version="1.0"?>\n<!-- made in an editor -->\n'
          '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
          'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="120" height="60" inkscape:version="1.3">'
          '<defs><linearGradient id="g"><stop offset="0" stop-color="#fc0"/></linearGradient></defs>'
          '<metadata><foo/></metadata>'
          '<rect width="120" height="60" fill="url(#g)"/><use xlink:href="#g"/><text x="4" y="40">Клуб</text></svg>').encode()

HOSTILE = [
    # (what, bytes, name, status, code, words in the message)
    ("gif", b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "logo.gif", 415, "unsupported_media_type", "GIF"),
    ("renamed exe", b"MZ\x90\x00\x03" + b"\0" * 200, "logo.png", 415, "unsupported_media_type", "Windows program"),
    ("pdf", b"%PDF-1.7\n" + b"x" * 100, "logo.png", 415, "unsupported_media_type", "PDF"),
    ("text", b"hello, world", "logo.jpg", 415, "unsupported_media_type", "PNG, JPEG, WebP and SVG"),
    ("empty", b"", "logo.png", 400, "bad_media", "empty"),
    ("svg script", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "a.svg", 400, "bad_media", "script"),
    ("svg onload", b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>', "a.svg", 400, "bad_media", "event handler"),
    ("svg foreignObject", b'<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>', "a.svg", 400, "bad_media", "foreignObject"),
    ("svg external href", b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="http://evil.example/x.svg#a"/></svg>', "a.svg", 400, "bad_media", "outside file"),
    ("svg javascript href", b'<svg xmlns="http://www.w3.org/2000/svg"><use href="javascript:alert(1)"/></svg>', "a.svg", 400, "bad_media", "outside file"),
    ("svg image", b'<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,AAAA"/></svg>', "a.svg", 400, "bad_media", "<image>"),
    ("svg css import", b'<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(http://evil.example/a.css);</style></svg>', "a.svg", 400, "bad_media", "@import"),
    ("svg style url", b'<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill: url(http://evil.example/p)"/></svg>', "a.svg", 400, "bad_media", "outside file"),
    ("svg entities", b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                     b'<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>', "a.svg", 400, "bad_media", "DTD"),
    ("svg xhtml", b'<svg xmlns="http://www.w3.org/2000/svg"><html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script></svg>', "a.svg", 400, "bad_media", "script"),
    ("not svg xml", b'<?xml version="1.0"?><svg><rect/></svg>', "a.svg", 400, "bad_media", "SVG namespace"),
    ("30000x30000 png", png_header(30_000, 30_000), "big.png", 400, "bad_media", "30000 × 30000"),
    ("truncated png", png()[:60], "logo.png", 400, "bad_media", "cut short"),
    ("11 MB", b"\x89PNG\r\n\x1a\n" + b"\0" * (11 * 1024 * 1024), "huge.png", 413, "too_large", "10 MB"),
]


@pytest.fixture(scope="module")
def srv(shared_server: Server) -> Server:
    return shared_server


def test_upload_png_jpeg_webp_svg_and_list(srv: Server):
    made = []
    for name, data, mime in (("logo.png", png("red"), "image/png"), ("photo.jpg", png("green", fmt="JPEG"), "image/jpeg"),
                             ("bg.webp", png("blue", fmt="WEBP"), "image/webp"), ("club.svg", SVG_OK, "image/svg+xml")):
        r = upload(srv, data, name)
        assert r.status_code == 201, r.text
        rec = r.json()
        assert rec["type"] == mime and rec["name"] == name and rec["id"].startswith("m")
        assert (rec["width"], rec["height"]) == ((120, 60) if name.endswith("svg") else (64, 32))
        # the server chooses the name: the content hash, nothing of the uploaded name
        assert name.rsplit(".", 1)[0] not in rec["url"]
        made.append(rec)
    ids = [m["id"] for m in listing(srv)]
    assert all(m["id"] in ids for m in made)
    thumb = srv.http.get(srv.url + made[0]["thumb"])
    assert thumb.status_code == 200 and thumb.headers["Content-Type"] == "image/webp"
    assert Image.open(io.BytesIO(thumb.content)).size == (64, 32)  # never enlarged


def test_served_media_carry_nosniff_and_a_sandboxing_csp(srv: Server):
    rec = upload(srv, png("purple")).json()
    for url in (rec["url"], rec["thumb"]):
        r = srv.http.get(srv.url + url)
        assert r.status_code == 200
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "sandbox" in csp
        assert "immutable" in r.headers["Cache-Control"]
    assert srv.http.get(srv.url + "/media/../chgk.sqlite3").status_code == 404
    assert srv.http.get(srv.url + "/media/" + "0" * 32 + ".png").status_code == 404


def test_a_raster_is_served_as_uploaded(srv: Server):
    """What docs/SECURITY.md says (issue 37 found it saying "rebuilt"): a PNG, JPEG or WebP is
    decoded in full to be judged, then served byte for byte as uploaded, as an image with
    nosniff and a sandboxing CSP."""
    for fmt, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp")):
        data = png("blue", (40, 20), fmt)
        r = upload(srv, data, f"x.{fmt.lower()}")
        assert r.status_code == 201, r.text
        served = srv.http.get(srv.url + r.json()["url"], timeout=10)
        assert served.content == data and served.headers["Content-Type"] == mime
        assert served.headers["X-Content-Type-Options"] == "nosniff" and "sandbox" in served.headers["Content-Security-Policy"]


def test_svg_is_served_rebuilt_without_comments_or_editor_leftovers(srv: Server):
    rec = upload(srv, SVG_OK, "club.svg").json()
    r = srv.http.get(srv.url + rec["url"])
    assert r.headers["Content-Type"].startswith("image/svg+xml")
    body = r.content.decode()
    assert "made in an editor" not in body and "inkscape" not in body and "metadata" not in body
    assert "Клуб" in body and 'url(#g)' in body


@pytest.mark.parametrize("what,data,name,status,code,words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_refused_uploads_say_why_and_store_nothing(srv: Server, what, data, name, status, code, words):
    before, on_disk = listing(srv), files(srv)
    r = upload(srv, data, name)
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and words in err["message"], err
    assert listing(srv) == before
    assert files(srv) == on_disk
    # a refused re-upload leaves the picture it was meant to replace as it was
    target = before[0] if before else upload(srv, png("olive")).json()
    r = upload(srv, data, name, method="PUT", path=f"/api/media/{target['id']}")
    assert r.status_code == status
    assert srv.api("GET", f"/api/media/{target['id']}")["url"] == target["url"]


def test_upload_needs_a_file_field_and_credentials(srv: Server):
    r = srv.http.post(srv.url + "/api/media", data={"x": "1"})
    assert r.status_code == 400 and "'file'" in r.json()["error"]["message"]
    import requests
    r = requests.post(srv.url + "/api/media", files={"file": ("a.png", png())}, timeout=10)
    assert r.status_code == 401
    assert srv.http.delete(srv.url + "/api/media/m999999").status_code == 404


def test_a_re_upload_keeps_the_id_and_changes_the_url(srv: Server):
    first = upload(srv, png("yellow")).json()
    same = upload(srv, png("yellow"), "copy.png").json()
    assert same["url"] == first["url"] and same["id"] != first["id"]  # same content, same file
    r = upload(srv, png("black"), method="PUT", path=f"/api/media/{first['id']}")
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] == first["id"] and new["url"] != first["url"]
    assert srv.http.get(srv.url + new["url"]).status_code == 200
    # the old file stays while another record (the copy) has the same content
    assert srv.http.get(srv.url + first["url"]).status_code == 200
    srv.api("DELETE", f"/api/media/{same['id']}")
    assert srv.http.get(srv.url + first["url"]).status_code == 404


def test_delete_is_refused_with_used_by_while_a_graphic_on_air_shows_it(srv: Server):
    rec = upload(srv, png("orange")).json()
    srv.api("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                      "data": {"title": "Спонсор", "style": "photo", "photo": rec["id"]}})
    shown = srv.api("GET", "/api/graphics")["graphics"]["lower-third"]
    assert shown["media"] == {rec["id"]: rec["url"]}  # the payload carries the resolved URL
    r = srv.http.delete(srv.url + f"/api/media/{rec['id']}")
    assert r.status_code == 409
    assert r.json()["used_by"] == ["графика «lower-third» в эфире"]
    assert rec["id"] in [m["id"] for m in listing(srv)]
    srv.api("POST", "/api/graphics", {"action": "hide", "graphic": "lower-third"})
    srv.api("DELETE", f"/api/media/{rec['id']}")
    assert rec["id"] not in [m["id"] for m in listing(srv)]
    assert rec["url"].rsplit("/", 1)[1] not in files(srv)


def test_an_author_photo_may_name_a_picture(srv: Server):
    rec = upload(srv, png("teal")).json()
    q = {"text": "Вопрос", "answer": "Ответ", "author": {"name": "Иван Петров", "photo": rec["id"]}}
    game = srv.create({"rules": "tv", "title": "Фото", "sectors": [{"number": 1, "kind": "regular", "questions": [q]}]})
    srv.play(game, "spin", landed=1)
    public = srv.api("GET", f"/api/games/{game}/public")
    assert public["round"]["author"]["photo"] == rec["url"]
    assert srv.state(game)["round"]["author"]["photo"] == rec["url"]  # the panel's view too
    r = srv.http.delete(srv.url + f"/api/media/{rec['id']}")
    assert r.status_code == 409 and any("Фото" in u and "Иван Петров" in u for u in r.json()["used_by"])
    new = upload(srv, png("navy"), method="PUT", path=f"/api/media/{rec['id']}").json()
    assert srv.api("GET", f"/api/games/{game}/public")["round"]["author"]["photo"] == new["url"]


def test_registered_users_of_a_picture_block_its_delete(tmp_path: Path):
    """`register_media_user` is the hook other modules (the rundown) name their uses through."""
    from overlay.media import library as media
    from overlay.web.app import create_app

    app = create_app({"DATA": str(tmp_path), "ASYNC_MODE": "threading", "PASSWORD": "x", "TOKEN": "t" * 16})
    client = app.test_client()
    auth = {"Authorization": "Bearer " + "t" * 16}
    rec = client.post("/api/media", data={"file": (io.BytesIO(png()), "a.png")}, headers=auth).get_json()
    fn = lambda m: ["рундаун «Шоу», пункт «Спонсор»"] if m == rec["id"] else []  # noqa: E731
    media.register_media_user(fn)
    try:
        r = client.delete(f"/api/media/{rec['id']}", headers=auth)
        assert r.status_code == 409 and r.get_json()["used_by"] == ["рундаун «Шоу», пункт «Спонсор»"]
    finally:
        media._users.remove(fn)
    assert client.delete(f"/api/media/{rec['id']}", headers=auth).status_code == 200
    # what operators did to the library is in the journal, like every other change
    done = [(j["kind"], j["body"]["action"]) for j in app.extensions["chgk"].store.journal()]
    assert done[:2] == [("media", "delete"), ("media", "add")]


def test_nothing_half_written_on_a_full_disk(tmp_path: Path):
    """The media folder on a 1 MB RAM filesystem: a 2 MB picture runs out of space for real
    (ENOSPC); the answer says so, and no file, temp file or record is left."""
    import os
    from overlay.web.app import create_app
    from tests.faults.helpers import tmpfs

    noise = io.BytesIO()
    Image.frombytes("RGB", (900, 800), os.urandom(900 * 800 * 3)).save(noise, "PNG")
    with tmpfs(tmp_path / "media", "1m"):
        app = create_app({"DATA": str(tmp_path), "ASYNC_MODE": "threading", "PASSWORD": "x", "TOKEN": "t" * 16})
        client = app.test_client()
        auth = {"Authorization": "Bearer " + "t" * 16}
        r = client.post("/api/media", data={"file": (io.BytesIO(noise.getvalue()), "a.png")}, headers=auth)
        assert r.status_code == 507, r.get_data(as_text=True)
        assert "disk is full" in r.get_json()["error"]["message"]
        assert list((tmp_path / "media").iterdir()) == []
        assert client.get("/api/media", headers=auth).get_json()["media"] == []
        r = client.post("/api/media", data={"file": (io.BytesIO(png()), "small.png")}, headers=auth)
        assert r.status_code == 201  # the library works again once there is room


def test_the_library_survives_a_crash_and_sweeps_what_a_crash_left(server: Server):
    rec = upload(server, png("maroon")).json()
    folder = server.data / "media"
    (folder / ".upload-abc.tmp").write_bytes(b"half a picture")   # killed mid-write
    (folder / ("f" * 32 + ".png")).write_bytes(png("lime"))      # killed after the rename, before the commit
    server.kill()
    server.start()
    assert [m["id"] for m in listing(server)] == [rec["id"]]
    assert server.http.get(server.url + rec["url"]).status_code == 200
    assert files(server) == sorted([rec["url"].rsplit("/", 1)[1], rec["thumb"].rsplit("/", 1)[1]])
