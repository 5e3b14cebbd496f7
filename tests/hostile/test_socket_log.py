"""Malformed Socket.IO frames cost one log line, not a traceback each (issue 37: 2 000 of them
made 3 MB of log in a second). Against a real server process over a raw WebSocket."""
from __future__ import annotations

from pathlib import Path

import pytest
import requests
import websocket

from tests.support import Server, wait_for

pytestmark = pytest.mark.slow
FRAMES = ['42/overlay,["follow"', "4x", "42/overlay,[", '42/overlay,999999999999999999999["x"]', "42/overlay,1x"]


def test_malformed_frames_log_one_line_not_a_traceback_each(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", demo=False).start()
    try:
        before = srv.log_path.stat().st_size
        ws = websocket.create_connection(srv.url.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket",
                                         timeout=10)
        ws.recv()  # the Engine.IO open packet
        ws.send("40/overlay,")
        for i in range(2000):
            ws.send(FRAMES[i % len(FRAMES)])
        ws.send('42/overlay,7["follow",{}]')  # answered (ack 7) once every frame before it was read
        while not ws.recv().startswith("43/overlay,7"):
            pass
        ws.close()
        assert requests.get(srv.url + "/api/time", timeout=30).ok
        wait_for(lambda: "malformed Socket.IO packet" in srv.output(), timeout=30, what="the line about them")
        grown = srv.log_path.read_text(errors="replace")[before:]
        assert "Traceback" not in grown, grown[:2000]
        assert len(grown) < 4000 and grown.count("\n") < 10, grown[:2000]
    finally:
        srv.stop()
