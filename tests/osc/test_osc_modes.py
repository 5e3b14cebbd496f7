"""OSC under the server's other async modes: the same background tasks, queues and sockets."""
import pytest

from .peers import Collector, Server, Surface, message

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("mode", ["threading", "gevent"])
def test_osc_in_and_out(mode, tmp_path):
    cues = Collector()
    server = Server(tmp_path, [cues.port], mode=mode)
    surface = Surface(server.osc_port)
    try:
        surface.send(message("/chgk/ping", ("s", mode)))
        assert surface.recv().params == [mode]
        surface.send(message("/chgk/landed", ("i", 7)))
        cues.wait("/chgk/event/spin", [7, 7, "regular", 0])
        surface.send(message("/chgk/subscribe"))
        surface.recv(want=lambda m: m.address == "/chgk/state/sector" and m.params == [7])
        surface.send(b"garbage")
        surface.send(message("/chgk/ping"))
        assert surface.recv(want=lambda m: m.address == "/chgk/pong").params == []
        assert server.get("/api/osc/status")["listen"]["counters"]["refused"] == 1
    finally:
        surface.close()
        server.close()
        cues.close()
