"""Hostile SVG against a real server: what a browser would have to draw is bounded (a `<use>`
bomb), and CSS is judged as a browser reads it (escapes decoded, comments dropped, a `<style>`
holding only text). Each is refused with `400 bad_media` in words an operator can act on, and
stores nothing; a normal logo with a `<use>` or two is still taken (overlay/media/svgsafe.py)."""
from __future__ import annotations

import pytest

from tests.support import Server

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def use_bomb(levels: int = 9, fan: int = 10) -> bytes:
    """The issue's file: nine levels, each using the level below ten times — a billion squares
    drawn from 2.4 kB."""
    defs = ['<path id="a0" d="M0 0h1v1z"/>']
    for i in range(1, levels + 1):
        defs.append(f'<g id="a{i}">' + "".join(f'<use xlink:href="#a{i - 1}"/>' for _ in range(fan)) + "</g>")
    return f'<svg {NS} width="10" height="10"><defs>{"".join(defs)}</defs><use xlink:href="#a{levels}"/></svg>'.encode()


def svg(body: str) -> bytes:
    return f'<svg {NS} width="100" height="50">{body}</svg>'.encode()


OUT = "http://evil.example/x"
HOSTILE = [
    # (what, bytes, words in the refusal)
    ("use bomb", use_bomb(), "<use> copies"),
    ("use loop", svg('<g id="a"><use href="#a"/></g>'), "uses itself"),
    ("nesting", svg("<g>" * 60 + "</g>" * 60), "48 deep"),
    ("markers on every vertex", svg('<defs><marker id="m">' + '<circle r="1"/>' * 400 + '</marker></defs>'
                                    '<path marker-mid="url(#m)" d="M0 0' + " L1 1" * 200 + '"/>'), "<use> copies"),
    ("path data", svg('<defs><path id="p" d="M0 0' + " L1 1" * 250_000 + '"/></defs>' + '<use href="#p"/>' * 10), "path data"),
    ("escaped url( in <style>", svg(f"<style>rect{{fill:\\75 rl({OUT})}}</style>"), "outside file"),
    ("escaped @import", svg(f'<style>@\\69mport "{OUT}.css";</style>'), "@import"),
    ("image-set()", svg(f'<style>rect{{fill:image-set("{OUT}.png" 1x)}}</style>'), "image-set()"),
    ("-webkit-image-set()", svg(f'<rect style="fill:-webkit-image-set(\'{OUT}.png\' 1x)"/>'), "image-set()"),
    ("text after <tspan/> in <style>", svg(f'<style>rect{{}}<tspan/>@import "{OUT}.css";</style>'), "CSS text only"),
    ("URL( in capitals", svg(f'<rect style="fill:URL({OUT})"/>'), "outside file"),
    ("url( split by a comment", svg(f'<rect style="fill:u/**/rl({OUT})"/>'), "outside file"),
    ("escaped url( in an attribute", svg(f'<rect fill="\\000075rl({OUT})"/>'), "outside file"),
    ("escaped image-set in an attribute", svg(f'<rect fill="\\69 mage-set(\'{OUT}\' 1x)"/>'), "image-set()"),
    # filters that take a browser seconds to paint (issue 37)
    ("huge feGaussianBlur", svg('<filter id="f"><feGaussianBlur stdDeviation="100000"/></filter>'
                                '<rect filter="url(#f)" width="100" height="50"/>'), "seconds to paint"),
    ("huge feMorphology", svg('<filter id="f"><feMorphology operator="dilate" radius="300"/></filter>'
                              '<rect filter="url(#f)" width="100" height="50"/>'), "seconds to paint"),
    ("feMorphology enlarged by a transform", svg('<filter id="f"><feMorphology radius="1"/></filter>'
                                                 '<g transform="scale(300)"><rect filter="url(#f)" width="1" height="1"/></g>'),
     "seconds to paint"),
    ("feMorphology in a tiny viewBox", f'<svg {NS} width="1920" height="1080" viewBox="0 0 1 1"><filter id="f">'
                                       '<feMorphology radius="0.5"/></filter><rect filter="url(#f)" width="1" height="1"/>'
                                       '</svg>'.encode(), "seconds to paint"),
    ("huge filter region", svg('<filter id="f" x="-5000%" width="10000%"><feGaussianBlur stdDeviation="1"/></filter>'
                               '<rect filter="url(#f)" width="100" height="50"/>'), "seconds to paint"),
    ("huge CSS blur()", svg('<rect width="100" height="50" style="filter: blur(100000px)"/>'), "seconds to paint"),
]

LOGO = svg('<defs><linearGradient id="g"><stop offset="0" stop-color="#fc0"/><stop offset="1" stop-color="#f60"/>'
           '</linearGradient><symbol id="star"><path d="M5 0L6 4L10 4L7 6L8 10L5 7L2 10L3 6L0 4L4 4z"/></symbol></defs>'
           '<style>.a{fill:url(#g)} @media (max-width: 10px){.a{opacity:.5}}</style>'
           '<rect class="a" width="100" height="50" style="stroke:url( \'#g\' )"/>'
           '<use href="#star" x="10" y="10"/><use xlink:href="#star" x="30" y="10" transform="rotate(5)"/>'
           '<text x="50" y="40" font-family="\'PT Sans\', sans-serif">Клуб</text>')


@pytest.fixture(scope="module")
def srv(shared_server: Server) -> Server:
    return shared_server


def upload(srv: Server, data: bytes):
    return srv.http.post(srv.url + "/api/media", files={"file": ("logo.svg", data)}, timeout=60)


@pytest.mark.parametrize("what,data,words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_svg_is_refused_with_the_reason(srv: Server, what: str, data: bytes, words: str):
    before = srv.api("GET", "/api/media")["media"]
    r = upload(srv, data)
    assert r.status_code == 400, (what, r.status_code, r.text[:300])
    err = r.json()["error"]
    assert err["code"] == "bad_media" and words in err["message"], err
    assert srv.api("GET", "/api/media")["media"] == before


def test_a_normal_logo_with_uses_is_taken_and_served_whole(srv: Server):
    r = upload(srv, LOGO)
    assert r.status_code == 201, r.text
    rec = r.json()
    assert (rec["width"], rec["height"]) == (100, 50)
    body = srv.http.get(srv.url + rec["url"], timeout=10).text
    assert body.count("<use") == 2 and "url(#g)" in body and "Клуб" in body and "@media" in body


def test_a_logo_with_a_drop_shadow_and_a_glow_is_taken(srv: Server):
    """The filter bounds (issue 37) leave what logos use: a drop shadow, a blur, a thin outline."""
    shadow = svg('<filter id="s" x="-20%" y="-20%" width="140%" height="140%"><feDropShadow dx="1" dy="1" stdDeviation="2"/>'
                 '</filter><filter id="o"><feMorphology operator="dilate" radius="1"/><feGaussianBlur stdDeviation="1.5"/>'
                 '</filter><rect filter="url(#s)" width="80" height="30"/><text filter="url(#o)" x="5" y="40"'
                 ' style="filter: drop-shadow(1px 1px 2px #000)">Клуб</text>')
    r = upload(srv, shadow)
    assert r.status_code == 201, r.text
    body = srv.http.get(srv.url + r.json()["url"], timeout=10).text
    assert "feDropShadow" in body and "feMorphology" in body
