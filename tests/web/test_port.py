"""A port is one server's. A second chgk-overlay started on the port another one listens on (an
operator starting the server twice) exits saying the port is in use, in every async mode. Under
eventlet it used to share the port (SO_REUSEPORT, eventlet's default), and the kernel handed it
half the new connections: overlays and panels split between two servers, each with its own state."""
from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.support import TOKEN, PortTaken, Server


@pytest.mark.parametrize("mode", ["eventlet", "gevent", "threading"])
def test_a_second_server_on_a_taken_port_exits_instead_of_sharing_it(tmp_path: Path, mode: str) -> None:
    first = Server(tmp_path / "first", mode=mode).start()
    try:
        second = Server(tmp_path / "second", mode=mode, demo=False, port=first.port)
        second.log_path = tmp_path / "second.log"  # its own words, not the first's log
        with pytest.raises(PortTaken):  # a port the test gave is not moved
            second.start(timeout=60)
        assert second.proc.returncode == 1
        said = second.output()
        assert "Address already in use" in said and str(first.port) in said, said
        # every new connection still reaches the first server, the one with the demo game
        for _ in range(20):
            r = requests.get(f"{first.url}/api/games/g1", timeout=10,
                             headers={"Authorization": f"Bearer {TOKEN}", "Connection": "close"})
            assert r.status_code == 200, r.text
    finally:
        first.stop()
