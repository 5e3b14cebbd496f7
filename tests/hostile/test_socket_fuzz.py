"""Hypothesis against the Socket.IO namespaces of one real server: `/control` (with the operator
token) and the public `/overlay` get random event names and payloads — command and graphics
bodies with wrong values, random JSON, unicode, nesting — and raw, malformed Socket.IO frames
straight over a WebSocket. Every event with a handler answers (an ack: the result or an
error); a refused event changes nothing; the server never dies and screens still connect.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import socketio
import websocket
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overlay.graphics.game import GRAPHICS
from overlay.rules.commands import VOCABULARY
from tests.hostile.common import (NASTY, Seeded, alive, before_input, json_values, screens_still_connect, snapshot,
                                  unchanged)
from tests.support import TOKEN

# events that have a handler and answer with an acknowledgement, per namespace
ACKED = {"/control": ["command", "undo", "graphics", "follow"], "/overlay": ["follow", "time"]}
UNACKED = {"/control": ["hello", "time", "state", "connect", "disconnect", "message"],
           "/overlay": ["command", "undo", "graphics", "hello", "state", "message", "connect"]}


class Clients:
    def __init__(self, url: str) -> None:
        self.url = url
        self.sio = {ns: self._connect(ns) for ns in ("/control", "/overlay")}

    def _connect(self, ns: str) -> socketio.Client:
        client = socketio.Client(reconnection=False)
        client.connect(self.url, namespaces=[ns], transports=["websocket"], wait_timeout=5,
                       auth={"token": TOKEN} if ns == "/control" else None)
        return client

    def get(self, ns: str) -> socketio.Client:
        """The namespace's client, connected again if the server closed it."""
        client = self.sio[ns]
        if not client.connected or ns not in client.namespaces:
            try:
                client.disconnect()
            except Exception:  # noqa: BLE001  (already gone)
                pass
            client = self.sio[ns] = self._connect(ns)
        return client

    def close(self) -> None:
        for client in self.sio.values():
            client.disconnect()


@pytest.fixture(scope="module")
def clients(seeded: Seeded) -> Iterator[Clients]:
    c = Clients(seeded.url)
    yield c
    c.close()


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def payloads(ids: dict) -> st.SearchStrategy[Any]:
    game = st.one_of(st.sampled_from(ids["game_id"]), json_values)
    fields = sorted({f.name for spec in VOCABULARY.values() for f in spec} | {"expected_rev"})
    command = st.fixed_dictionaries({"type": st.one_of(st.sampled_from(sorted(VOCABULARY)), json_values)},
                                    optional={**{f: json_values for f in fields}, "game": game})
    graphics = st.fixed_dictionaries({}, optional={
        "action": st.one_of(st.sampled_from(["show", "hide", "clear"]), json_values),
        "graphic": st.one_of(st.sampled_from(GRAPHICS), json_values),
        "data": st.one_of(json_values, st.dictionaries(st.sampled_from(["title", "subtitle", "duration_ms"]),
                                                       json_values))})
    return st.one_of(st.none(), json_values, command, graphics, st.fixed_dictionaries({"game": game}),
                     st.integers(1, 300).map(nested), st.sampled_from(NASTY))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_socket_events_never_crash_and_refusals_change_nothing(seeded: Seeded, clients: Clients, data):
    ns = data.draw(st.sampled_from(["/control", "/control", "/overlay"]), label="namespace")
    acked = data.draw(st.booleans(), label="acked event?")
    payload = data.draw(payloads(seeded.ids), label="payload")
    before = before_input(seeded)
    client = clients.get(ns)
    if acked:
        event = data.draw(st.sampled_from(ACKED[ns]), label="event")
        try:
            answer = client.call(event, payload, namespace=ns, timeout=10)
        except socketio.exceptions.TimeoutError:
            raise AssertionError(f"{ns} {event} {str(payload)[:200]!r}: no acknowledgement (the handler failed)")
        assert isinstance(answer, dict), (ns, event, answer)
        refused = "error" in answer
        if refused:
            assert isinstance(answer["error"].get("code"), str) and isinstance(answer["error"].get("message"), str)
            assert 400 <= answer.get("status", 0) < 500, answer
        if refused or ns == "/overlay" or event == "follow":
            assert unchanged(seeded, before), f"{ns} {event} {str(payload)[:200]!r} changed something"
    else:
        event = data.draw(st.one_of(st.sampled_from(UNACKED[ns]), st.text(min_size=1, max_size=30)), label="event")
        try:
            client.emit(event, payload, namespace=ns)
        except (socketio.exceptions.BadNamespaceError, ValueError, TypeError):
            return  # the client library refused to send it (reserved names): nothing reached the server
        time.sleep(0.05)
        assert unchanged(seeded, before), f"{ns} {event!r} {str(payload)[:200]!r} changed something"
    alive(seeded.srv)


RAW_FRAMES = st.one_of(
    st.sampled_from(["42/control,[\"command\"", "42/control,[\"command\",{\"type\":\"spin\"}", "4", "42", "43/control,0[]",
                     "42/control,999999999999999999999[\"undo\",{\"game\":\"nope\"}]", "42/overlay,[\"follow\",{\"game\":[1,2]}]",
                     "40/nope,", "41/control,", "451-/control,[\"command\",{\"_placeholder\":true,\"num\":9}]",
                     "42/control,[" + "[" * 5000 + "]" * 5000 + "]", "2probe", "6", "1", "0{}", "42/control,\"x\"",
                     "42/control,[\"command\"," + json.dumps({"type": "judge", "correct": "yes"}) + "]"]),
    st.text(max_size=200).map(lambda t: "42/control," + t),
    st.text(max_size=200).map(lambda t: "4" + t),
    st.binary(max_size=200),
)


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(frames=st.lists(RAW_FRAMES, min_size=1, max_size=5))
def test_malformed_socketio_frames_do_not_hurt_the_server(seeded: Seeded, frames: list[Any]):
    """A raw WebSocket, authenticated on /control with the token, then garbage frames."""
    before = before_input(seeded)
    ws = websocket.create_connection(seeded.url.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket",
                                     timeout=5)
    try:
        ws.recv()  # engine.io open packet
        ws.send('40/control,' + json.dumps({"token": TOKEN}))
        for frame in frames:
            try:
                if isinstance(frame, bytes):
                    ws.send_binary(frame)
                else:
                    ws.send(frame)
            except (websocket.WebSocketException, OSError):
                break  # the server closed this connection: its right
        time.sleep(0.05)
    finally:
        ws.close()
    # a command with a wrong field is refused and an unfinished packet is dropped: nothing changes
    assert unchanged(seeded, before)
    alive(seeded.srv)


def test_screens_connect_after_the_socket_fuzzing(seeded: Seeded):
    screens_still_connect(seeded.url)
    alive(seeded.srv)


@pytest.mark.parametrize("ns,event", [(ns, e) for ns, events in ACKED.items() for e in events])
def test_every_handled_event_answers_even_without_a_payload(seeded: Seeded, clients: Clients, ns: str, event: str):
    """The smallest case the fuzzing finds: an event sent with no data (or with two values)
    still gets its acknowledgement — the panel would otherwise wait for it until its timeout."""
    client = clients.get(ns)
    for args in (None, ({"game": "nope"}, "extra")):
        before = snapshot(seeded)
        try:
            answer = client.call(event, args, namespace=ns, timeout=5)
        except socketio.exceptions.TimeoutError:
            raise AssertionError(f"{ns} {event} with {args!r}: no acknowledgement") from None
        assert isinstance(answer, dict), answer
        if "error" in answer:  # (`undo` without data undoes on the on-air game: that one may change)
            assert snapshot(seeded) == before
