"""Hypothesis against the HTTP surface of one real server: every route the app has (read from
its URL map, so a route added later is fuzzed too), with random methods, path values, query
strings, headers and bodies — random JSON, JSON of the right shape with wrong values, bytes,
deep nesting, huge numbers, unicode. The server must never crash, never answer 500, answer
/api errors in the API's error shape, and change nothing when it refuses.
"""
from __future__ import annotations

import re
import tempfile
from typing import Any
from urllib.parse import quote

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overlay.graphics.game import GRAPHICS
from overlay.rules.commands import VOCABULARY
from tests.faults.helpers import csrf_of, login
from tests.hostile.common import (AUTH, NASTY, Seeded, alive, before_input, deep_json, dumps, json_values,
                                  screens_still_connect, snapshot, unchanged)


def app_routes() -> list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
    """(rule, endpoint, methods, argument names) of every route, from the app itself."""
    from overlay.web.app import create_app
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATA": tmp, "PASSWORD": "x", "TOKEN": "y", "ASYNC_MODE": "threading"})
        out = [(r.rule, r.endpoint, tuple(sorted(r.methods - {"HEAD", "OPTIONS"})), tuple(r.arguments))
               for r in app.url_map.iter_rules()]
        app.extensions["chgk"].store.close()
    return sorted(out)


ROUTES = app_routes()
# Logging in and out is the security tests' business: a fuzzed login would trip the throttle.
FUZZED = [r for r in ROUTES if r[1] not in ("control.login", "control.logout")]
CHANGING = [r for r in FUZZED if set(r[2]) & {"POST", "PUT", "PATCH", "DELETE"}]
KEYS = ["type", "landed", "correct", "player", "granted", "players", "team", "expected_rev", "game", "action",
        "graphic", "data", "title", "subtitle", "duration_ms", "text", "rules", "target", "experts", "teams",
        "game_day", "sectors", "timers", "name", "duels", "final", "fees", "qualifying_days", "day", "sunday",
        "reason", "member", "members", "status", "date", "adult", "rating_id", "receipt", "amount", "absent",
        "points", "kind", "crystal_sphinx", "games", "scope", "winner", "toml", "event", "fields", "scene",
        "csrf", "password", "next", "delete", "players", "fee_individual", "duels"]


@pytest.fixture(scope="module")
def panel(seeded: Seeded) -> tuple[requests.Session, str]:
    """A logged-in panel (cookie) and its CSRF token: the way forms and the panel's fetches come."""
    http = login(seeded.url)
    return http, csrf_of(http.get(seeded.url + "/control/", timeout=10).text)


# strategies ---------------------------------------------------------------------------------------

def command_bodies() -> st.SearchStrategy[dict]:
    fields = sorted({f.name for spec in VOCABULARY.values() for f in spec} | {"expected_rev", "game"})
    return st.fixed_dictionaries(
        {"type": st.one_of(st.sampled_from(sorted(VOCABULARY)), st.sampled_from(NASTY), json_values)},
        optional={f: json_values for f in fields})


def graphics_bodies() -> st.SearchStrategy[dict]:
    data = st.one_of(json_values, st.fixed_dictionaries({}, optional={
        "title": json_values, "subtitle": json_values, "text": json_values,
        "duration_ms": st.one_of(st.integers(-10, 10**7), json_values)}))
    return st.fixed_dictionaries({}, optional={
        "action": st.one_of(st.sampled_from(["show", "hide", "clear"]), json_values),
        "graphic": st.one_of(st.sampled_from(GRAPHICS), json_values), "data": data, "extra": json_values})


def spec_bodies() -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({}, optional={
        "rules": st.one_of(st.sampled_from(["tv", "club"]), json_values), "title": json_values,
        "target": json_values, "experts": json_values, "teams": json_values, "game_day": json_values,
        "sectors": st.one_of(json_values, st.lists(st.fixed_dictionaries(
            {"number": json_values, "kind": st.sampled_from(["regular", "blitz", "superblitz", "sponsor", "x"])},
            optional={"questions": json_values}), max_size=3)),
        "timers": st.one_of(json_values, st.dictionaries(st.sampled_from(["minute", "blitz", "x"]), json_values))})


TOML = st.one_of(
    st.text(max_size=200),
    st.sampled_from(['[listen]\naddress = "127.0.0.1:²"\n', '[listen]\nallow = ["x"]\n', "a = " + "[" * 3000,
                     "a = " + "[" * 3000 + "]" * 3000, "a = " + "{b = " * 2000 + "1" + "}" * 2000,
                     '[targets.x]\nhost = "h"\nport = 99999999999999999999\n',
                     '[[cues.score]]\ntarget = "nope"\naddress = "/a/{x"\n', "\x00", "[targets]\nx = 1\n"]))


def bodies(endpoint: str) -> st.SearchStrategy[tuple[str, Any]]:
    """(kind, payload): kind json → payload is the text to send, bytes → raw, form → dict."""
    shaped = {"api.command": command_bodies(), "api.post_graphics": graphics_bodies(),
              "api.create_game": spec_bodies(),
              "api.put_on_air": st.fixed_dictionaries({}, optional={"game": json_values})}.get(
        endpoint, st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6))
    shaped_json = st.tuples(st.just("json"), shaped.map(dumps))
    options = [
        st.just(("none", None)),
        st.tuples(st.just("json"), json_values.map(dumps)),
        shaped_json, shaped_json, shaped_json,
        st.tuples(st.just("json"), st.tuples(st.one_of(st.integers(50, 5000), st.sampled_from([600, 1000, 3000])),
                                             st.sampled_from(["list", "dict"])).map(lambda d: deep_json(*d))),
        st.tuples(st.just("json"), st.sampled_from(['{"type": "spin", "landed": 1' + "0" * 5000 + "}",
                                                    '{"a": "' + "я" * 100_000 + '"}', "NaN", "-Infinity",
                                                    '{"type": "spin", "type": "judge"}', "\ufeff{}", "{", "]"])),
        st.tuples(st.just("bytes"), st.binary(max_size=600)),
        st.tuples(st.just("form"), st.dictionaries(st.sampled_from(KEYS), st.one_of(st.text(max_size=40),
                                                                                    st.sampled_from(NASTY)),
                                                   max_size=6)),
    ]
    if endpoint == "osc.put_config":
        options.append(st.tuples(st.just("bytes"), TOML.map(lambda t: t.encode("utf-8", "surrogatepass"))))
    return st.one_of(*options)


def path_value(ids: list[str], converter_path: bool) -> st.SearchStrategy[str]:
    real = st.sampled_from(ids or ["x"])
    raw = st.one_of(real, real, real, st.sampled_from(NASTY), st.text(min_size=1, max_size=40))
    if converter_path:
        return raw.map(lambda v: quote(v, safe="/"))
    quoted = raw.map(lambda v: quote(v, safe=""))
    return st.one_of(quoted, quoted, quoted, quoted, st.sampled_from(["..", "%2e%2e", "..%2f..", "%00"]))


CONTENT_TYPES = [None, "application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=xyz", "application/json; charset=koi8-r",
                 "application/json; charset=nonexistent", "application/x-toml", "image/png", "*/*"]


@settings(max_examples=260, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                   HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_http_surface_survives_hostile_requests(seeded: Seeded, panel: tuple[requests.Session, str], data):
    routes = st.sampled_from(FUZZED)
    changing = st.sampled_from(CHANGING)
    rule, endpoint, methods, args = data.draw(st.one_of(changing, changing, routes), label="route")
    if data.draw(st.integers(0, 9), label="odd method?") == 0:
        method = data.draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND",
                                            "TRACE", "BREW"]), label="method")
    else:
        method = data.draw(st.sampled_from(methods or ("GET",)), label="method")
    path = rule
    for arg in args:
        converter = re.search(rf"<(?:(\w+):)?{arg}>", rule)
        value = data.draw(path_value(seeded.ids.get(arg, []), converter is not None and converter.group(1) == "path"),
                          label=arg)
        path = re.sub(rf"<(?:\w+:)?{arg}>", lambda _: value, path)
    query = data.draw(st.dictionaries(st.sampled_from(["top", "lang", "filename", "game", "theme", "sound", "n"]),
                                      st.one_of(st.sampled_from(NASTY), st.text(max_size=20)), max_size=3), label="query")
    kind, payload = data.draw(bodies(endpoint), label="body")
    who = data.draw(st.sampled_from(["bearer", "bearer", "cookie", "anonymous"]), label="who")
    headers: dict[str, str] = {}
    content_type = data.draw(st.sampled_from(CONTENT_TYPES), label="content-type")
    if content_type:
        headers["Content-Type"] = content_type
    headers.update(data.draw(st.dictionaries(
        st.sampled_from(["Accept", "Origin", "X-Forwarded-For", "Cookie", "Accept-Language", "Range", "If-None-Match",
                         "X-CSRF-Token", "Accept-Encoding"]),
        st.one_of(st.sampled_from(NASTY), st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                                  max_size=40)).map(lambda v: v.encode("latin-1", "replace")
                                                                    .decode("latin-1").strip()),
        max_size=2), label="headers"))
    http: Any = requests
    if who == "bearer":
        headers.update(AUTH)
    elif who == "cookie":
        http, csrf = panel
        headers["X-CSRF-Token"] = csrf
        if kind == "form":
            payload = {**payload, "csrf": csrf}

    before = before_input(seeded)
    body: Any = None
    if kind == "json":
        body = payload.encode("utf-8", "surrogatepass")
    elif kind == "bytes":
        body = payload
    elif kind == "form":
        body = {k: v.encode("utf-8", "surrogatepass") for k, v in payload.items()}
    r = http.request(method, seeded.url + path, params=query, data=body, headers=headers, timeout=30,
                     allow_redirects=False)

    note = f"{method} {path} {query} {who} {kind} {str(payload)[:200]!r}"
    assert r.status_code < 500, f"{note} -> {r.status_code} {r.text[:400]}"
    if path.startswith("/api/") and r.status_code >= 400 and method != "HEAD":
        error = r.json()["error"]
        assert isinstance(error["code"], str) and isinstance(error["message"], str), note
    if r.status_code >= 400 or method in ("GET", "HEAD", "OPTIONS"):
        assert unchanged(seeded, before), f"{note} -> {r.status_code} changed something"
    if endpoint == "api.post_graphics" and r.status_code == 200:
        screens_still_connect(seeded.url)
    alive(seeded.srv)


def test_screens_connect_after_the_fuzzing(seeded: Seeded):
    screens_still_connect(seeded.url)
    alive(seeded.srv)


# found by the fuzzing above, kept as plain regressions with the smallest inputs ------------------------

JSON_ROUTES = [r for r in ROUTES if r[0].startswith("/api/") and set(r[2]) & {"POST", "PUT", "PATCH"}]


def fill_path(rule: str, seeded: Seeded) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: quote((seeded.ids.get(m.group(1)) or ["x"])[0], safe=""), rule)


@pytest.mark.parametrize("depth,kind", [(50_000, "list"), (3_000, "dict")])
def test_deeply_nested_json_is_refused_on_every_route_that_takes_json(seeded: Seeded, depth: int, kind: str):
    body = deep_json(depth, kind).encode()
    before = snapshot(seeded)
    failures = []
    for rule, endpoint, methods, _ in JSON_ROUTES:
        for method in set(methods) & {"POST", "PUT", "PATCH"}:
            r = requests.request(method, seeded.url + fill_path(rule, seeded), data=body, timeout=30,
                                 headers={**AUTH, "Content-Type": "application/json"})
            if r.status_code >= 500:
                failures.append(f"{method} {rule}: {r.status_code}")
    assert failures == [], "deep JSON answered with a server error"
    assert snapshot(seeded) == before
    alive(seeded.srv)


@pytest.mark.parametrize("path", [
    "/api/public/seasons/{sid}?top=²", "/api/public/seasons/{sid}?top=١٠", "/api/members/²", "/api/members/٣",
    "/api/registrations/²/withdraw", "/control/admin/seasons/{sid}/rating?top=²",
])
def test_unicode_digits_in_ids_and_queries_are_not_a_500(seeded: Seeded, path: str):
    """`'²'.isdigit()` is True but `int('²')` raises: text that passes isdigit is not a number."""
    url = seeded.url + path.format(sid=seeded.ids["sid"][0])
    method = "POST" if path.endswith("withdraw") else "GET"
    before = snapshot(seeded)
    r = requests.request(method, url, json={"reason": "проверка"}, headers=AUTH, timeout=10)
    assert r.status_code < 500, f"{method} {path}: {r.status_code} {r.text[:300]}"
    assert snapshot(seeded) == before


def test_osc_config_with_a_bad_port_or_deep_nesting_is_a_400(seeded: Seeded):
    before = snapshot(seeded)
    problems = []
    for text in ('[listen]\naddress = "127.0.0.1:²"\n', "a = " + "[" * 3000 + "]" * 3000,
                 "a = " + "{b = " * 2000 + "1" + "}" * 2000):
        r = requests.put(seeded.url + "/api/osc/config", data=text.encode(), headers=AUTH, timeout=10)
        if r.status_code != 400:
            problems.append(f"{text[:40]!r}: {r.status_code}")
    assert problems == []
    assert snapshot(seeded) == before
