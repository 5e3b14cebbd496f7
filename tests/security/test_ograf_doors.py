"""The graphics library's last doors (issue 37), against a real server process: a regular
expression in an uploaded manifest's schema cannot stall the server (RE2, never Python's
backtracking `re`), and a pattern RE2 cannot run is refused at upload in words; package paths,
graphic ids and the frame document's addresses hold (the "info" findings)."""
from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import pytest
import requests

from tests.support import Server, static_url
from tests.web.test_ograf_library import GOOD, manifest, stored, upload, zip_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    srv = Server(tmp_path_factory.mktemp("doors") / "data", demo=False)
    srv.start()
    yield srv
    srv.stop()


EVIL = "^(a+)+$"  # Python's re: 2^n steps for n 'a's and a 'b'; 28 of them held the loop for 11 s


def test_a_schema_pattern_cannot_stall_the_server(server: Server) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": EVIL}},
              "patternProperties": {EVIL: {"type": "string"}}, "unevaluatedProperties": False}
    r = upload(server, zip_of({"redos.ograf.json": manifest("redos", schema=schema, customActions=[
        {"id": "say", "name": "Say", "schema": {"type": "object", "properties": {"w": {"type": "string", "pattern": EVIL}}}}]),
        "g.mjs": GOOD}))
    assert r.status_code == 201, r.text
    rid = server.api("POST", "/api/rundowns", {"name": "ReDoS"})["id"]
    slow = "a" * 28 + "b"
    answers: list[tuple[int, float]] = []

    def attack() -> None:
        for data in ({"name": slow}, {slow: "x"}, {"name": slow, slow: "x"}):
            t0 = time.monotonic()
            resp = requests.post(server.url + f"/api/rundowns/{rid}/items", json={
                "graphic": "ograf:redos", "layer": "straps", "data": data}, timeout=120,
                headers={"Authorization": f"Bearer {server.token}"})
            answers.append((resp.status_code, time.monotonic() - t0))

    worker = threading.Thread(target=attack)
    worker.start()
    clock: list[float] = []
    while worker.is_alive() or len(clock) < 20:  # the clock is asked all along the attack, and at least 20 times
        t0 = time.monotonic()
        assert requests.get(server.url + "/api/time", timeout=120).ok
        clock.append(time.monotonic() - t0)
    worker.join()
    # matched in linear time: the clock never waits on them, each is refused at once
    assert statistics.median(clock) < 0.05, (clock, answers)
    assert [a[0] for a in answers] == [400, 400, 400], answers
    assert max(a[1] for a in answers) < 5, answers
    # a good value still passes the same pattern
    ok = server.call("POST", f"/api/rundowns/{rid}/items", {"graphic": "ograf:redos", "layer": "straps",
                                                           "data": {"name": "aaaa"}})
    assert ok.status_code == 201, ok.text


@pytest.mark.parametrize("pattern, where", [
    (r"^(a)\1$", "data"), ("^(?=a)a$", "data"), ("(?<=a)b", "action"), ("a{1001}", "data"), ("(", "data")])
def test_a_pattern_re2_cannot_run_is_refused_at_upload(server: Server, pattern: str, where: str) -> None:
    before = stored(server)
    bad = {"type": "object", "properties": {"t": {"type": "string", "pattern": pattern}}}
    extra = {"schema": bad} if where == "data" else {"customActions": [{"id": "a", "name": "A", "schema": bad}]}
    r = upload(server, zip_of({"p.ograf.json": manifest("pat", **extra), "g.mjs": GOOD}))
    if pattern == "(":  # not even a regular expression: the JSON Schema check says so first
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_ograf", r.text
        return
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_ograf" and err["file"] == "p.ograf.json", err
    assert pattern in err["message"] and "RE2" in err["message"], err
    # said in the operator's language from the catalogs (refusal.ograf_pattern)
    assert err["params"] == {"reason": "ograf_pattern", "where": "p.ograf.json", "pattern": pattern}, err
    assert stored(server) == before
    assert server.call("GET", "/api/ograf/pat").status_code == 404


def test_the_frame_document_does_not_take_its_addresses_from_the_host_header(server: Server) -> None:
    """`/ograf/frame/<id>` named whatever `Host` a request carried in its CSP and script URL; a
    host nothing vouches for is now written nowhere (the policy says 'self', the script is
    relative), this machine's address keeps the package-only policy."""
    assert upload(server, zip_of({"h.ograf.json": manifest("hosted"), "g.mjs": GOOD})).status_code == 201
    forged = requests.get(server.url + "/ograf/frame/hosted", headers={"Host": "evil.example"}, timeout=10)
    assert forged.status_code == 200
    assert "evil.example" not in forged.headers["Content-Security-Policy"] + forged.text, forged.headers
    assert "script-src 'self'" in forged.headers["Content-Security-Policy"]
    assert f'<script src="{static_url("ograf/frame.js")}">' in forged.text
    ours = requests.get(server.url + "/ograf/frame/hosted", timeout=10)
    assert f"script-src {server.url}{static_url('ograf/frame.js')} {server.url}/ograf/pkg/" in ours.headers["Content-Security-Policy"]


@pytest.mark.parametrize("files, named, words", [
    ({"a.ograf.json": manifest("ff"), "g.mjs": GOOD, "lib": "x", "lib/b.js": "y"}, "lib", "both a file and a folder"),
    ({"a.ograf.json": manifest("long"), "g.mjs": GOOD, "x" * 300 + "/b.js": "y"}, "x" * 200, "longer than 200 bytes"),
    ({"a.ograf.json": manifest("lf"), "g.mjs": GOOD, "evil\nname.js": "y"}, "evil\nname.js", "control character"),
    ({"a.ograf.json": manifest("cr"), "g.mjs": GOOD, "dir\r/x.js": "y"}, "dir\r/x.js", "control character"),
    ({"a.ograf.json": manifest("CHGK-scoreboard"), "g.mjs": GOOD}, "a.ograf.json", "this server's own graphics"),
    ({"a.ograf.json": manifest("Chgk-Timer"), "g.mjs": GOOD}, "a.ograf.json", "this server's own graphics"),
])
def test_package_paths_and_ids_are_refused_in_words(server: Server, files: dict, named: str, words: str) -> None:
    """Were 507 `storage_unavailable` (a file and a folder of one name; a 300-character name) or
    taken (`\\n`, `\\r` in a path; `CHGK-` ids past the reserved-prefix check): now 400 `bad_ograf`
    naming the file, and nothing stored."""
    before = stored(server)
    r = upload(server, zip_of(files))
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_ograf" and err["file"].startswith(named) and words in err["message"], err
    assert stored(server) == before
