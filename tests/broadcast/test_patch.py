"""`state_patch` (overlay/broadcast/patch.py): an overlay that connects with `auth: {"patches": 1}`
gets what changed instead of the whole state; applied in order, the patches give exactly the
states a whole-state client gets, at every rev. A client that holds another state (a lost
message, the on-air game changed) recovers the whole state with `resync`; a client that did not
ask keeps getting the whole `state` (API.md's contract).

Against a real server over real sockets (eventlet, or CHGK_TEST_ASYNC_MODE).
"""
from __future__ import annotations

import json
import queue
import time
from typing import Any

import socketio

from overlay.broadcast.patch import apply, diff, patch
from tests.broadcast.test_fanout import cycle
from tests.faults.helpers import tv_spec
from tests.support import Server, handle_in_order


class Client:
    """A python-socketio /overlay client that keeps the state it holds and every state it reached,
    by rev; with `patches`, built from `state_patch`es as static/lib/client.js builds it."""

    def __init__(self, srv: Server, patches: bool, drop: set[int] | None = None) -> None:
        self.state: dict | None = None
        self.by_rev: dict[int, dict] = {}
        self.patches: list[dict] = []
        self.wholes = 0
        self.resyncs = 0
        self.drop = drop or set()  # revs of patches this client loses on purpose
        self.resyncing = False
        self.got: queue.Queue = queue.Queue()
        self.sio = handle_in_order(socketio.Client(reconnection=False))  # a patch after the state it patches
        self.sio.on("state", self._whole, namespace="/overlay")
        self.sio.on("state_patch", self._patch, namespace="/overlay")
        self.sio.connect(srv.url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=5,
                         auth={"patches": 1} if patches else None)

    def _hold(self, state: dict | None) -> None:
        self.state = state
        if state is not None:
            self.by_rev[state["rev"]] = state

    def _whole(self, state: dict | None) -> None:
        self.wholes += 1
        self.resyncing = False
        self._hold(state)

    def _patch(self, p: dict) -> None:
        self.patches.append(p)
        if p["rev"] in self.drop or self.resyncing:
            return
        s = self.state
        if s is None or (s["id"], s.get("epoch"), s["rev"]) != (p["id"], p["epoch"], p["base"]):
            self.resyncing = True
            self.resyncs += 1
            self.sio.emit("resync", namespace="/overlay")
            return
        self._hold(apply(s, p))

    def wait_rev(self, rev: int, game: str = "g1", timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.state
            if s is not None and s["id"] == game and s["rev"] >= rev:
                return
            time.sleep(0.01)
        raise AssertionError(f"stuck at {self.state and (self.state['id'], self.state['rev'])} waiting for {game} {rev}")

    def close(self) -> None:
        self.sio.disconnect()


def timeless(state: dict | None) -> dict | None:
    """A state without what is stamped when it is built (`server_now`, a running timer's
    `remaining_ms`): a resync is answered with the whole state as of its own moment, which may come
    after the last broadcast at the same rev."""
    if state is None:
        return None
    out = {k: v for k, v in state.items() if k != "server_now"}
    if isinstance(out.get("timer"), dict):
        out["timer"] = {k: v for k, v in out["timer"].items() if k != "server_now"
                        and not (k == "remaining_ms" and out["timer"].get("running"))}
    return out


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def test_diff_and_apply_give_the_new_state_and_leave_the_old_one_alone():
    old = {"id": "g1", "rev": 3, "round": None, "score": {"experts": 1, "viewers": 2},
           "timer": {"running": True, "left": {"ms": 5, "x": [1]}}, "gone": 1}
    new = {"id": "g1", "rev": 4, "round": {"sector": 5}, "score": {"experts": 1, "viewers": 3},
           "timer": {"running": True, "left": {"ms": 4, "x": [1]}}, "added": [1, 2]}
    frozen = json.dumps(old, sort_keys=True)
    p = patch(old, new)
    assert p["base"] == 3 and p["rev"] == 4
    assert sorted(map(str, p["ops"])) == sorted(map(str, [
        [["rev"], 4], [["round"], {"sector": 5}], [["score", "viewers"], 3], [["timer", "left", "ms"], 4],
        [["added"], [1, 2]], [["gone"]]]))
    assert apply(old, p) == new
    assert json.dumps(old, sort_keys=True) == frozen, "applying a patch changed the state it applied to"
    assert diff(new, new) == []


def test_patches_give_every_whole_state_in_order_and_are_smaller(server: Server):
    cycle(server, 0)  # a first broadcast: the room has a state to patch from
    cycle(server, 1)
    whole = Client(server, patches=False)
    patched = Client(server, patches=True)
    last = 0
    for i in range(2, 42):  # spin, start_timer, undo, undo …
        last = cycle(server, i)
    whole.wait_rev(last)
    patched.wait_rev(last)
    assert patched.wholes == 1 and patched.resyncs == 0, "only the connect's state came whole"
    assert not whole.patches, "a client that did not ask got patches"
    assert [p["rev"] for p in patched.patches] == list(range(last - 39, last + 1))
    for rev in range(last - 39, last + 1):
        assert patched.by_rev[rev] == whole.by_rev[rev], f"rev {rev}: the patched state differs from the whole one"
    ratio = sum(map(size, patched.patches)) / sum(size(whole.by_rev[p["rev"]]) for p in patched.patches)
    assert ratio < 0.5, f"patches are {ratio:.0%} of the whole states"
    whole.close()
    patched.close()


def test_a_lost_patch_is_recovered_with_the_whole_state(server: Server):
    cycle(server, 0)
    first = cycle(server, 1)
    whole = Client(server, patches=False)
    lossy = Client(server, patches=True, drop={first + 3})  # loses the third patch
    last = 0
    for i in range(2, 14):
        last = cycle(server, i)
    whole.wait_rev(last)
    lossy.wait_rev(last)
    assert lossy.resyncs == 1 and lossy.wholes == 2, "one resync, answered with the whole state"
    assert timeless(lossy.state) == timeless(whole.state)
    assert lossy.state["rev"] == whole.state["rev"] == last
    assert first + 3 not in lossy.by_rev or timeless(lossy.by_rev[first + 3]) == timeless(whole.by_rev[first + 3])
    whole.close()
    lossy.close()


def test_a_new_game_on_air_comes_whole_then_as_patches(server: Server):
    cycle(server, 0)
    cycle(server, 1)
    other = server.create(tv_spec("Вторая игра"))
    whole = Client(server, patches=False)
    patched = Client(server, patches=True)
    server.api("PUT", "/api/on-air", {"game": other})
    rev = 0
    for landed in (5, 6):
        r = server.command(other, type="spin", landed=landed)
        assert r.status_code == 200, r.text
        rev = r.json()["state"]["rev"]
        r = server.call("POST", f"/api/games/{other}/undo", {})
        assert r.status_code == 200, r.text
        rev = r.json()["state"]["rev"]
    whole.wait_rev(rev, game=other)
    patched.wait_rev(rev, game=other)
    assert patched.resyncs == 0, "the room's change of game came whole, not as a patch to resync"
    assert patched.state == whole.state
    assert patched.patches and patched.patches[-1]["id"] == other
    whole.close()
    patched.close()
