"""Static files at versioned addresses (overlay/web/assets.py). Every page — each overlay, the show
output, the audience page, the panel's pages — names its stylesheets, modules, fonts and sounds
under `/static/v/<version>/`, which answers them as immutable; what those name by relative
addresses (a stylesheet's fonts) keeps the prefix. The version is the static tree's content: a
release that changes one byte, or a file's name, has another, and a file edited while the server
runs is not cached under the old one. The plain address and an old version's still answer,
revalidated. (Traversal at both addresses: tests/security/test_files.py.)"""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests
from flask import Flask

from overlay.graphics.game import GRAPHICS
from overlay.web import assets
from overlay.web.app import resource_dir
from overlay.web.assets import snapshot, tree_version
from tests.support import TOKEN, Server

PAGES = [f"/overlays/{g}" for g in (*GRAPHICS, "show")] + ["/", "/live", "/control/", "/control/rundown",
                                                             "/control/graphics", "/control/admin/"]
STATIC_REF = re.compile(r"""/static/[^"'\s)<>]*""")
IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    srv = Server(tmp_path_factory.mktemp("assets") / "data").start()
    yield srv
    srv.stop()


def get(server: Server, path: str) -> requests.Response:
    return requests.get(server.url + path, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)


def test_every_page_names_its_static_files_at_one_version_and_they_are_immutable(server: Server) -> None:
    refs: set[str] = set()
    versions: set[str] = set()
    for page in PAGES:
        r = get(server, page)
        assert r.status_code == 200, page
        found = STATIC_REF.findall(r.text)
        if page != "/":  # the index links pages only
            assert found, page
        for ref in found:
            m = re.match(r"/static/v/(\w+)/", ref)
            assert m, f"{page} names {ref} without a version"
            versions.add(m.group(1))
            refs.add(ref)
    assert len(versions) == 1 and re.fullmatch(r"[0-9a-f]{12}", versions.pop())
    # each answers as immutable, and so do the files the stylesheets name by relative addresses
    files = {ref for ref in refs if not ref.endswith("/")}  # the sounds' folder is a prefix, not a file
    stylesheets = [ref for ref in files if ref.endswith(".css")]
    for css in stylesheets:
        for rel in re.findall(r"url\(\s*['\"]?([^'\")]+)", get(server, css).text):
            if not rel.startswith(("data:", "/", "#")):
                files.add(urljoin(css, rel))
    assert any(f.endswith(".woff2") for f in files)  # the fonts came through fonts.css
    for ref in sorted(files):
        r = get(server, ref)
        assert r.status_code == 200, ref
        assert r.headers["Cache-Control"] == IMMUTABLE, ref


def test_the_plain_address_and_an_old_version_answer_revalidated(server: Server) -> None:
    page = get(server, "/overlays/scoreboard").text
    current = re.search(r"/static/v/\w+/lib/client\.js", page).group(0)
    body = get(server, current).content
    for path in ("/static/lib/client.js", "/static/v/0123456789ab/lib/client.js"):
        r = get(server, path)
        assert r.status_code == 200 and r.content == body, path
        assert "immutable" not in r.headers["Cache-Control"] and "no-cache" in r.headers["Cache-Control"], path


def test_the_version_is_the_trees_content(tmp_path: Path) -> None:
    a = tmp_path / "a"
    shutil.copytree(resource_dir("static") / "lib", a)
    b = tmp_path / "b"
    shutil.copytree(a, b)
    same = tree_version(a)
    assert tree_version(b) == same  # another folder, the same files
    client = b / "client.js"
    client.write_bytes(client.read_bytes() + b" ")
    snapshot.cache_clear()
    one_byte = tree_version(b)
    assert one_byte != same
    (b / "client.js").rename(b / "client2.js")
    snapshot.cache_clear()
    assert tree_version(b) not in (same, one_byte)  # a name is content too


def test_a_file_edited_while_the_server_runs_is_not_cached_under_the_old_version(tmp_path: Path) -> None:
    """Its bytes are not the version's: immutable for them would keep them for a year, and a later
    tree with the old bytes again (a branch switched back) would share the version's name."""
    folder = tmp_path / "static"
    folder.mkdir()
    (folder / "a.js").write_text("export const a = 1;\n")
    app = Flask("assets-test", static_folder=None)
    version = assets.install(app, folder)
    web = app.test_client()
    r = web.get(f"/static/v/{version}/a.js")
    assert r.status_code == 200 and r.headers["Cache-Control"] == IMMUTABLE
    (folder / "a.js").write_text("export const a = 2;\n")  # same size, new bytes
    r = web.get(f"/static/v/{version}/a.js")
    assert r.status_code == 200 and r.data == b"export const a = 2;\n"
    assert "immutable" not in r.headers["Cache-Control"] and "no-cache" in r.headers["Cache-Control"]
    (folder / "b.js").write_text("export const b = 1;\n")  # a file new since the start
    r = web.get(f"/static/v/{version}/b.js")
    assert r.status_code == 200 and "no-cache" in r.headers["Cache-Control"]
