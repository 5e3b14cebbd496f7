"""A held overlay websocket under eventlet: none of the server's green threads for one opened
directly (overlay/broadcast/lean.py), one for one upgraded from long-polling (held.py), pings by
the server's timers, and engineio's promises kept — pings answered keep a client, a silent one is
closed, packets queued before the websocket was up arrive first and in order.

Against a real server with a one-second ping; raw websocket clients speak Engine.IO 4 themselves,
so what each receives is exactly what the server wrote."""
from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest
import socketio
import websocket

from tests.support import Server, wait_for

PING = {"CHGK_OVERLAY_PING_INTERVAL": "1", "CHGK_OVERLAY_PING_TIMEOUT": "1"}
GREENLETS = Path(__file__).parent / "greenlets"  # a sitecustomize that counts the server's green threads


class Overlay:
    """A raw Engine.IO websocket client on `/overlay` that answers pings from its own thread (when
    `answer` is set) and counts them."""

    def __init__(self, srv: Server) -> None:
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{srv.port}/socket.io/?EIO=4&transport=websocket",
                                              timeout=20)
        self.open = json.loads(self.ws.recv()[1:])  # "0{...}": Engine.IO's OPEN comes first
        self.ws.send("40/overlay,")
        self.frames: list[str] = []
        self.pings = 0
        self.answer = threading.Event()
        self.answer.set()
        self.closed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                msg = self.ws.recv()
                if not msg:
                    break
                if msg == "2":
                    self.pings += 1
                    if self.answer.is_set():
                        self.ws.send("3")
                else:
                    self.frames.append(msg)
        except (websocket.WebSocketException, OSError):
            pass
        finally:
            self.closed.set()

    def states(self) -> list[int]:
        return [json.loads(f[f.index("["):])[1]["rev"] for f in self.frames
                if f.startswith('42/overlay,["state"') and '"rev"' in f]

    def close(self) -> None:
        self.ws.close()


@pytest.fixture
def srv(tmp_path: Path):
    env = {**PING, "PYTHONPATH": str(GREENLETS), "CHGK_TEST_GREENLETS": str(tmp_path / "greenlets")}
    s = Server(tmp_path / "data", env=env).start()
    yield s
    s.stop()


def greenlets(srv: Server, tmp_path: Path) -> int:
    out = tmp_path / "greenlets"
    out.unlink(missing_ok=True)
    srv.proc.send_signal(signal.SIGUSR1)
    wait_for(out.exists, timeout=10, what="the server's count of green threads")
    return int(out.read_text())


def test_answered_pings_keep_a_client_and_a_silent_one_is_closed(srv: Server):
    overlay = Overlay(srv)
    assert overlay.open["pingInterval"] == 1000 and overlay.open["pingTimeout"] == 1000
    # five pings answered: five intervals, longer than an interval and its timeout together
    wait_for(lambda: overlay.pings >= 5, timeout=30, what="five pings")
    assert not overlay.closed.is_set()
    assert overlay.states(), "the overlay got the state on joining"
    overlay.answer.clear()
    pings = overlay.pings
    wait_for(overlay.closed.is_set, timeout=30, what="the server closing a client that stopped answering")
    assert overlay.pings <= pings + 1, "pings went on while the client was silent"  # no PONG, no next PING


def test_direct_websockets_cost_no_green_thread_upgraded_ones_one_and_all_get_every_state(srv: Server, tmp_path: Path):
    first = Overlay(srv)  # the server's own tasks (the pinger starts with the first client)
    wait_for(lambda: first.pings >= 1, timeout=30, what="the first client's ping")
    before = greenlets(srv, tmp_path)
    many = [Overlay(srv) for _ in range(30)]  # websockets opened directly: lean.py
    upgraded = []
    try:
        # every client joined and has answered two pings: no thread waits for any of them
        wait_for(lambda: all(o.pings >= 2 and o.states() for o in many), timeout=60, what="30 clients pinged twice")
        direct = greenlets(srv, tmp_path) - before
        assert direct <= 3, f"{direct} green threads for 30 direct websockets (lean.py: none)"
        for _ in range(10):  # long-polling first, as a browser page: held.py, one thread each
            c = socketio.Client(reconnection=False)
            c.connect(srv.url, namespaces=["/overlay"], transports=["polling", "websocket"], wait_timeout=10)
            upgraded.append(c)
        wait_for(lambda: all(c.transport() == "websocket" for c in upgraded), timeout=30, what="the upgrades")
        held = greenlets(srv, tmp_path) - before - direct
        # one reads each websocket, one waits on the idle keep-alive connection its long-polls used
        # (engineio's handler: three for each websocket, so 40)
        assert held <= 2 * 10 + 3, f"{held} green threads for 10 upgraded websockets"
        game = srv.api("GET", "/api/games")["games"][0]["id"]
        for landed in (1, 2, 3):  # three spins, each undone but the last
            srv.play(game, "spin", landed=landed)
            if landed < 3:
                assert srv.call("POST", f"/api/games/{game}/undo", {}).status_code == 200
        last = srv.state(game)["rev"]
        wait_for(lambda: all(o.states() and o.states()[-1] >= last for o in many), timeout=30, what="the last state")
        for o in many:
            revs = o.states()
            assert revs == sorted(revs) and len(revs) == len(set(revs)), revs
    finally:
        for c in upgraded:
            c.disconnect()
        for o in many + [first]:
            o.close()


def test_a_frame_that_is_not_engineio_closes_that_connection_without_a_traceback(srv: Server):
    bad, good = Overlay(srv), Overlay(srv)
    wait_for(lambda: bad.states() and good.states(), timeout=30, what="both joined")
    bad.ws.send("x")  # not an Engine.IO packet type
    wait_for(bad.closed.is_set, timeout=30, what="the server closing the connection that sent it")
    assert "Traceback" not in srv.output() and "Unknown receive error" not in srv.output()
    wait_for(lambda: good.pings >= 2, timeout=30, what="the other client's pings")  # it lives on
    assert not good.closed.is_set()
    good.close()
