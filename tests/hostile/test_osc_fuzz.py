"""Hypothesis against the OSC inbound port of one real server (real UDP on loopback): random
datagrams, messages with real and made-up addresses, wrong and unknown type tags, argument
counts that do not match the tags, bundles (nested, truncated, lying about their sizes) and
pattern characters. The server counts every datagram it handled (`/api/osc/status`), so each
example waits until its datagram was processed, then checks: nothing changes unless the server
reports the message as accepted; the server lives; screens still connect.
"""
from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Iterator

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overlay.osc.routes import ROUTES
from tests.hostile.common import (AUTH, NASTY, Seeded, alive, before_input, screens_still_connect,
                                  seeded_server, unchanged)
from tests.support import free_port


def pad(b: bytes) -> bytes:
    return b + b"\0" * (4 - len(b) % 4)


def osc_string(s: str | bytes) -> bytes:
    return pad(s.encode("utf-8", "surrogatepass") if isinstance(s, str) else s)


def encode_arg(tag: str, value) -> bytes:
    if tag == "i":
        return struct.pack(">i", value)
    if tag == "h":
        return struct.pack(">q", value)
    if tag == "f":
        return struct.pack(">f", value)
    if tag == "d":
        return struct.pack(">d", value)
    if tag == "s":
        return osc_string(value)
    if tag == "b":
        return struct.pack(">i", len(value)) + pad(value) if len(value) % 4 else struct.pack(">i", len(value)) + value
    return b""


ARG = st.one_of(
    st.tuples(st.just("i"), st.integers(-(2**31), 2**31 - 1)),
    st.tuples(st.just("i"), st.sampled_from([0, 1, 2, 3, 7, 13, 14, -1])),
    st.tuples(st.just("h"), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just("f"), st.floats(width=32)),
    st.tuples(st.just("d"), st.floats()),
    st.tuples(st.just("s"), st.one_of(st.text(max_size=40), st.sampled_from(NASTY + ["Анна", "t1", "t2", "{}", "{\"title\": 1}"]))),
    st.tuples(st.just("b"), st.binary(max_size=40)),
    st.tuples(st.sampled_from(list("TFNI[]")), st.none()),
)

ADDRESS = st.one_of(st.sampled_from(sorted(ROUTES)), st.sampled_from(sorted(ROUTES)),
                    st.sampled_from(["/chgk/*", "/chgk/spin?", "/chgk/[a-z]", "/chgk/{spin,undo}", "/chgk/",
                                     "/", "", "chgk/spin", "/chgk/graphics/x/show", "/chgk/state/score",
                                     "/chgk/spin/", "/CHGK/SPIN", "/chgk/graphics/lower-third/show/extra"]),
                    st.text(max_size=60).map(lambda t: "/chgk/" + t))


@st.composite
def messages(draw) -> bytes:
    address = draw(ADDRESS)
    args = draw(st.lists(ARG, max_size=5))
    tags = "".join(t for t, _ in args)
    mode = draw(st.sampled_from(["right", "right", "right", "odd tags", "no tags", "truncated", "extra bytes"]))
    if mode == "odd tags":
        tags = draw(st.text(alphabet="ifsbhdtTFNIcrm[]xyz?", max_size=6))
    body = b"".join(encode_arg(t, v) for t, v in args)
    if mode == "no tags":
        return osc_string(address) + body
    dgram = osc_string(address) + osc_string("," + tags) + body
    if mode == "truncated" and len(dgram) > 4:
        return dgram[:draw(st.integers(1, len(dgram) - 1))]
    if mode == "extra bytes":
        return dgram + draw(st.binary(min_size=1, max_size=16))
    return dgram


@st.composite
def bundles(draw, depth: int = 0) -> bytes:
    parts = []
    for _ in range(draw(st.integers(0, 3))):
        element = draw(bundles(depth + 1)) if depth < 2 and draw(st.booleans()) else draw(messages())
        size = len(element)
        if draw(st.integers(0, 5)) == 0:
            size = draw(st.integers(-5, 70_000))  # a size that lies
        parts.append(struct.pack(">i", size) + element)
    timetag = draw(st.sampled_from([b"\0\0\0\0\0\0\0\1", b"\xff" * 8, b"\0" * 8]))
    return b"#bundle\0" + timetag + b"".join(parts)


DATAGRAMS = st.one_of(messages(), messages(), messages(), bundles(), st.binary(max_size=300),
                      st.sampled_from([b"#bundle\0" + b"\0\0\0\0\0\0\0\1" + b"\0\0\x01\0" * 3,
                                       b"#bundle\0" * 2000, b"/" * 5000 + b"\0\0\0\0", b"\0" * 64,
                                       osc_string("/chgk/ping") + osc_string("," + "s" * 3000)]))


@pytest.fixture(scope="module")
def osc_port() -> int:
    return free_port(socket.SOCK_DGRAM)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, osc_port: int) -> Iterator[Seeded]:
    """The seeded server, listening for OSC."""
    with seeded_server(tmp_path_factory.mktemp("oscfuzz"), "--osc-listen", f"127.0.0.1:{osc_port}") as s:
        yield s


@pytest.fixture(scope="module")
def sender() -> Iterator[socket.socket]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    yield s
    s.close()


def counters(seeded: Seeded) -> dict:
    return seeded.http.get(seeded.url + "/api/osc/status", timeout=10).json()["listen"]["counters"]


def send_and_wait(seeded: Seeded, sender: socket.socket, port: int, dgram: bytes) -> tuple[dict, dict]:
    before = counters(seeded)
    sender.sendto(dgram, ("127.0.0.1", port))
    deadline = time.monotonic() + 10
    while True:
        after = counters(seeded)
        if after["datagrams"] > before["datagrams"]:
            return before, after
        assert time.monotonic() < deadline, f"the server never handled the datagram {dgram[:80]!r}"
        time.sleep(0.005)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(dgram=DATAGRAMS)
def test_osc_datagrams_never_crash_and_only_accepted_ones_change_anything(seeded, sender, osc_port, dgram):
    if len(dgram) > 65_000:
        dgram = dgram[:65_000]
    state = before_input(seeded)  # (a press within 200 ms of the last one is a repeat: ignored, must change nothing)
    before, after = send_and_wait(seeded, sender, osc_port, dgram)
    if after["accepted"] == before["accepted"]:
        assert unchanged(seeded, state), f"a datagram that was not accepted changed something: {dgram[:200]!r}"
    status = seeded.http.get(seeded.url + "/api/osc/status", timeout=10).json()["listen"]
    assert "internal_error" not in status["reasons"], status["last_errors"][:3]
    alive(seeded.srv)


def test_a_graphic_nested_deep_over_osc_does_not_cut_the_screens_off(seeded, sender, osc_port):
    """`/chgk/graphics/<name>/show` takes one JSON object: one nested a few hundred levels deep
    fits in a datagram. Whatever the server does with it, overlays must still connect."""
    data = json.dumps({"title": "x", "rows": json.loads("[" * 600 + "]" * 600)})
    dgram = osc_string("/chgk/graphics/lower-third/show") + osc_string(",s") + osc_string(data)
    try:
        time.sleep(0.21)
        send_and_wait(seeded, sender, osc_port, dgram)
        screens_still_connect(seeded.url)
    finally:
        requests.post(seeded.url + "/api/graphics", json={"action": "clear", "graphic": "lower-third"},
                      headers=AUTH, timeout=10)
    alive(seeded.srv)


def test_screens_connect_after_the_osc_fuzzing(seeded):
    screens_still_connect(seeded.url)
    alive(seeded.srv)
