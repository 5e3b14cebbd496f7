"""SIGKILL at random moments of a game played as fast as one client can: after the restart the
game is exactly where the last acknowledged command left it, no acknowledged command is lost,
and no screen ever sees the revision go backwards.

The driver (helpers.Driver) records every request before sending it and its answer once it
comes, so at the moment of the kill there is at most one request without an answer — the one
in flight. The server may have committed it (then the restart shows it) or not (then it is gone);
either is correct, anything else is not.
"""
from __future__ import annotations

import os
import random
import threading
import time

import pytest
import requests

from tests.faults.helpers import Driver, Sent, Watcher, steady, tv_spec, without_rev
from tests.support import Server

SEED = int(os.environ.get("CHGK_FAULT_SEED", "20260301"))


class Model:
    """What the acknowledged answers promise: a stack of operator states (a command pushes the
    state it answered with, an undo pops), and the last acknowledged graphics payload."""

    def __init__(self, initial: dict, graphics: dict) -> None:
        self.stack = [initial]
        self.graphics = graphics

    def learn(self, sent: list[Sent]) -> None:
        for item in sent:
            if item.status != 200:
                continue
            if item.kind == "command":
                self.stack.append(item.answer["state"])
            elif item.kind == "undo":
                self.stack.pop()
                # the answer to an undo is the state before the command it reverted
                assert without_rev(item.answer["state"]) == without_rev(self.stack[-1])
                self.stack[-1] = item.answer["state"]
            elif item.kind == "graphics":
                self.graphics = item.answer

    @property
    def top(self) -> dict:
        return self.stack[-1]


def check_game(srv: Server, game: str, model: Model, in_flight: Sent | None) -> str:
    """Compare the restarted server's game with the model; returns which case it was."""
    after = srv.state(game)
    promised = model.top
    if after["rev"] == promised["rev"]:
        assert steady(after) == steady(promised), "the restarted game differs from the last acknowledged state"
        return "last acknowledged"
    assert after["rev"] == promised["rev"] + 1, (
        f"rev {after['rev']} after the restart, but the last acknowledged rev was {promised['rev']}")
    assert in_flight is not None and in_flight.kind in ("command", "undo"), \
        "the game moved on without any command in flight"
    if in_flight.kind == "undo":
        # the unanswered undo was committed: the game is the one below the top of the stack
        assert without_rev(after) == without_rev(model.stack[-2])
        model.stack.pop()
        model.stack[-1] = after
        return "in-flight undo committed"
    # the unanswered command was committed; undoing it must give back the last acknowledged state
    r = srv.call("POST", f"/api/games/{game}/undo")
    assert r.status_code == 200, r.text
    assert without_rev(r.json()["state"]) == without_rev(promised)
    model.stack[-1] = r.json()["state"]
    return "in-flight command committed"


def check_graphics(srv: Server, model: Model, in_flight: Sent | None) -> None:
    now = srv.call("GET", "/api/graphics").json()
    promised = model.graphics
    if now["seq"] == promised["seq"]:
        assert (now["graphics"], now["hidden"]) == (promised["graphics"], promised["hidden"])
    else:
        assert now["seq"] == promised["seq"] + 1, (now["seq"], promised["seq"])
        assert in_flight is not None and in_flight.kind == "graphics"
        shown = now["graphics"].get("lower-third")
        if in_flight.body["action"] == "show":
            assert shown and shown["data"] == in_flight.body["data"]
        else:
            assert shown is None
    model.graphics = now


@pytest.mark.parametrize("mode,cycles", [("eventlet", 5), ("threading", 3)])
def test_sigkill_during_a_fast_game_loses_no_acknowledged_command(tmp_path, mode, cycles):
    rng = random.Random(f"{SEED}-{mode}")
    srv = Server(tmp_path / "data", mode=mode, demo=False).start()
    watcher = None
    try:
        game = srv.create(tv_spec())
        assert srv.call("PUT", "/api/on-air", {"game": game}).status_code == 200
        model = Model(srv.state(game), srv.call("GET", "/api/graphics").json())
        watcher = Watcher(srv.url, "/overlay")
        outcomes, commands = [], 0
        for cycle in range(cycles):
            driver = Driver(srv, game, rng)
            assert steady(driver.state) == steady(model.top)
            thread = driver.start()
            # let it get going: five answers in each cycle, however slow a loaded machine is
            deadline = time.monotonic() + 30
            while len(driver.acked()) < 5 and time.monotonic() < deadline and thread.is_alive():
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.5))
            srv.kill()
            thread.join(15)
            assert not thread.is_alive() and driver.error is None, driver.error
            commands += len(driver.acked())
            in_flight = driver.unanswered()
            model.learn(driver.sent)
            srv.start()
            outcomes.append(check_game(srv, game, model, in_flight))
            check_graphics(srv, model, in_flight)
            outcomes[-1] += f" (in flight: {in_flight.kind if in_flight else 'none'})"
            # The overlay watching all along reconnects by itself and shows the restarted game.
            final = srv.state(game)["rev"]
            watcher.wait(lambda w: w.reconnected(cycle + 1) and w.revs(game)[-1] == final, 30,
                         f"the overlay to reconnect and show rev {final} after kill {cycle + 1}")
        assert commands >= cycles * 5, f"only {commands} commands were acknowledged: the test did not load the server"
        assert any("in flight: none" not in o for o in outcomes), \
            f"no kill landed while a request was in flight: {outcomes}"
        revs = watcher.revs(game)
        assert revs == sorted(revs), f"an overlay saw the rev go backwards: {revs}"
    finally:
        if watcher:
            watcher.close()
        srv.stop()


def test_sigkill_while_games_are_created_and_put_on_air(tmp_path):
    """Creating games and switching the on-air game are recorded before they are answered too."""
    rng = random.Random(SEED)
    srv = Server(tmp_path / "data", demo=False).start()
    try:
        for cycle in range(3):
            created: list[str] = []
            on_air: list[str] = []
            in_flight: list[str] = []
            stop = threading.Event()

            def run() -> None:
                http = requests.Session()
                http.headers.update(srv.http.headers)
                try:
                    while not stop.is_set():
                        in_flight[:] = ["create"]
                        r = http.post(srv.url + "/api/games", json=tv_spec(f"Игра {len(created)}"), timeout=10)
                        assert r.status_code == 201, r.text
                        created.append(r.json()["id"])
                        in_flight[:] = ["on_air", created[-1]]
                        r = http.put(srv.url + "/api/on-air", json={"game": created[-1]}, timeout=10)
                        assert r.status_code == 200, r.text
                        on_air.append(created[-1])
                        in_flight[:] = []
                except requests.RequestException:
                    pass

            first = srv.call("GET", "/api/games").json()
            before = {g["id"] for g in first["games"]}
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            deadline = time.monotonic() + 30  # one game created first, however slow the machine
            while not created and time.monotonic() < deadline and thread.is_alive():
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.6))
            srv.kill()
            thread.join(15)
            srv.start()
            listing = srv.call("GET", "/api/games").json()
            now = {g["id"] for g in listing["games"]}
            assert created, "no game was created before the kill"
            assert set(created) <= now, "an acknowledged game is missing after the restart"
            extra = now - before - set(created)
            assert len(extra) <= (1 if in_flight[:1] == ["create"] else 0), extra
            for g in listing["games"]:
                assert g["rev"] == 0 and g["status"] == "playing"
            expected = {on_air[-1] if on_air else first["on_air"]}
            if in_flight[:1] == ["on_air"]:
                expected.add(in_flight[1])
            assert listing["on_air"] in expected, (listing["on_air"], on_air[-2:], in_flight)
            stop.set()
    finally:
        srv.stop()
