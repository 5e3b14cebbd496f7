"""Themes: the shipped ones and custom ones from `<data>/themes`, served at `/themes/<name>.css`
by a real server, with no way out of the themes folders."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser

from overlay.web.app import create_app
from tests.support import ROOT, Server, raw_get, static_url

NIGHT_CSS = (":root {\n  --c-accent: #7fd1ff;\n  --c-text: #eaf6ff;\n}\n"
             ".overlay .owl { background: url(night.svg) center / contain no-repeat; -webkit-mask: none; mask: none; }\n")
NIGHT_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>\n'


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("themes") / "data"
    (data / "themes").mkdir(parents=True)
    (data / "themes" / "night.css").write_text(NIGHT_CSS, encoding="utf-8")
    (data / "themes" / "night.svg").write_text(NIGHT_SVG, encoding="utf-8")
    (data / "themes" / "sun_2.css").write_text(":root { --c-accent: #ffb000; }\n", encoding="utf-8")
    (data / "themes" / "sun_2.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)
    (data / "themes" / "Upper.css").write_text(":root {}\n", encoding="utf-8")  # not a valid name: never served
    (data / "themes" / "notes.txt").write_text("not a theme\n", encoding="utf-8")
    (data / "themes" / "ночь.css").write_text(":root {}\n", encoding="utf-8")  # not a valid name either
    server = Server(data).start()
    yield server
    server.stop()


def test_custom_theme_and_logo_are_served(srv: Server):
    css = requests.get(f"{srv.url}/themes/night.css", timeout=5)
    assert css.status_code == 200 and css.text == NIGHT_CSS
    assert css.headers["Content-Type"].startswith("text/css") and css.headers["Cache-Control"] == "no-cache"
    svg = requests.get(f"{srv.url}/themes/night.svg", timeout=5)
    assert svg.status_code == 200 and svg.text == NIGHT_SVG and svg.headers["Content-Type"].startswith("image/svg+xml")
    assert "default-src 'none'" in svg.headers["Content-Security-Policy"]
    assert svg.headers["X-Content-Type-Options"] == "nosniff"
    png = requests.get(f"{srv.url}/themes/sun_2.png", timeout=5)
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG")


def test_shipped_themes_are_served_at_the_same_place(srv: Server):
    for name in ("classic", "light"):
        r = requests.get(f"{srv.url}/themes/{name}.css", timeout=5)
        assert r.status_code == 200
        assert r.text == (ROOT / "static" / "themes" / f"{name}.css").read_text(encoding="utf-8")
    assert requests.get(f"{srv.url}/themes/classic.svg", timeout=5).status_code == 404  # no shipped logos


def test_a_theme_added_while_running_and_one_replacing_a_shipped_theme(srv: Server):
    themes = srv.data / "themes"
    (themes / "fresh.css").write_text(":root { --c-accent: #0f0; }\n", encoding="utf-8")
    assert requests.get(f"{srv.url}/themes/fresh.css", timeout=5).text == ":root { --c-accent: #0f0; }\n"
    (themes / "light.css").write_text(":root { --c-accent: #123456; }\n", encoding="utf-8")
    try:
        assert requests.get(f"{srv.url}/themes/light.css", timeout=5).text == ":root { --c-accent: #123456; }\n"
        listed = {t["name"]: t for t in requests.get(f"{srv.url}/api/themes", timeout=5).json()["themes"]}
        assert listed["light"]["source"] == "custom" and listed["light"]["css"] == "/themes/light.css"
    finally:
        (themes / "light.css").unlink()
        (themes / "fresh.css").unlink()
    assert requests.get(f"{srv.url}/themes/fresh.css", timeout=5).status_code == 404


def test_api_lists_every_theme(srv: Server):
    r = requests.get(f"{srv.url}/api/themes", timeout=5)  # public, like the overlays that use them
    assert r.status_code == 200
    themes = r.json()["themes"]
    assert [t["name"] for t in themes] == ["classic", "light", "night", "sun_2"]
    by = {t["name"]: t for t in themes}
    assert by["classic"] == {"name": "classic", "source": "shipped", "css": static_url("themes/classic.css"), "logo": None}
    assert by["night"] == {"name": "night", "source": "custom", "css": "/themes/night.css", "logo": "/themes/night.svg"}
    assert by["sun_2"]["logo"] == "/themes/sun_2.png"


@pytest.mark.parametrize("path", [
    "/themes/../secret_key", "/themes/..%2Fsecret_key", "/themes/..%2fsecret_key.css", "/themes/%2e%2e%2fsecret_key.css",
    "/themes/..%2F..%2Fchgk.sqlite3.css", "/themes/night%2F..%2F..%2Fsecret_key.css", "/themes/%2E%2E.css",
    "/themes/.css", "/themes/Upper.css", "/themes/NIGHT.css", "/themes/night.CSS", "/themes/night.txt",
    "/themes/notes.txt", "/themes/night", "/themes/night.css.css", "/themes/night.css%00.png",
    "/themes/" + "a" * 41 + ".css", "/themes/%D0%BD%D0%BE%D1%87%D1%8C.css",
    "/themes/night.js", "/themes/secret_key.css", "/themes/operator_password.css", "/themes/",
    "/themes/%5c..%5csecret_key.css", "/themes/..\\secret_key.css",
])
def test_nothing_outside_the_themes_folders(srv: Server, path: str):
    secret = (srv.data / "secret_key").read_bytes().strip()
    status, body = raw_get(srv, path, follow=0)
    assert status in (400, 404), (path, status)
    assert secret not in body


def test_template_helpers_for_the_overlays(tmp_path: Path):
    """What base.html can call: theme_exists / theme_url / theme_logo_url."""
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "night.css").write_text(NIGHT_CSS, encoding="utf-8")
    (tmp_path / "themes" / "night.svg").write_text(NIGHT_SVG, encoding="utf-8")
    app = create_app({"DATA": str(tmp_path), "ASYNC_MODE": "threading", "PASSWORD": "x"})
    with app.test_request_context("/overlays/scoreboard"):
        env = app.jinja_env
        render = lambda src, **kw: env.from_string(src).render(**kw)  # noqa: E731
        assert render("{{ theme_url('night') }}") == "/themes/night.css"
        assert render("{{ theme_url('light') }}") == static_url("themes/light.css")
        for unknown in ("nope", "../secret_key", "NIGHT", "", None, 5):
            assert render("{{ theme_url(t) }}", t=unknown) == static_url("themes/classic.css")
            assert render("{{ theme_exists(t) }}", t=unknown) == "False"
        assert render("{{ theme_exists('night') }} {{ theme_exists('classic') }}") == "True True"
        assert render("{{ theme_logo_url('night') }} {{ theme_logo_url('classic') }}") == "/themes/night.svg None"


@pytest.mark.browser
def test_the_documented_recipe_restyles_an_overlay_in_chromium(srv: Server, chromium: Browser):
    """docs/THEMES.md's theme file, linked where base.html links themes (before base.css):
    its colours and its logo reach the on-air graphic."""
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    loaded: list[tuple[str, int]] = []
    page.on("response", lambda r: loaded.append((r.url, r.status)))
    page.goto(f"{srv.url}/overlays/scoreboard", wait_until="load")
    page.evaluate("""() => new Promise((done) => {
        const shipped = document.querySelector('link[href*="/themes/"]');
        const link = document.createElement("link");
        link.rel = "stylesheet"; link.href = "/themes/night.css"; link.onload = done;
        shipped.after(link);  // the same place in the cascade as the shipped theme
    })""")
    style = page.evaluate("""() => {
        const owl = document.querySelector(".owl");
        const s = getComputedStyle(owl);
        return {accent: getComputedStyle(document.documentElement).getPropertyValue("--c-accent").trim(),
                image: s.backgroundImage, mask: s.maskImage || s.webkitMaskImage};
    }""")
    assert style["accent"] == "#7fd1ff"
    assert style["image"].endswith('/themes/night.svg")') and style["mask"] == "none"
    page.wait_for_function("() => performance.getEntriesByName(new URL('/themes/night.svg', location).href).length > 0")
    assert (f"{srv.url}/themes/night.svg", 200) in loaded
