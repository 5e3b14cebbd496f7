"""The bridge in one process (overlay/osc/bridge.py): a real Sessions, the sender on threads,
python-osc receivers on loopback. Mapping rules the server tests do not reach."""
import time

import pytest

from overlay.osc import OscBridge
from overlay.osc.config import ConfigError
from overlay.osc.feedback import DROP_AFTER_ERRORS
from overlay.osc.runtime import thread_runtime

from tests.support import wait_for

from .conftest import demo_spec
from .peers import HOST, Collector, free_port, message


@pytest.fixture
def receivers():
    made = [Collector(), Collector()]
    yield made
    for r in made:
        r.close()


@pytest.fixture
def bridge(sessions, graphics, tmp_path):
    osc = OscBridge(sessions, graphics, tmp_path)
    sessions.subscribe(osc.on_change)
    osc.start(thread_runtime())
    return osc


def on_air(sessions):
    game = sessions.create(demo_spec()).id
    sessions.set_on_air(game)
    return game


def test_when_filters_disabled_targets_delays_and_a_bad_value(sessions, bridge, receivers):
    a, b = receivers
    with pytest.raises(ConfigError, match=r"\{vars.nothing\}"):  # refused at load, not at send
        bridge.replace(f'[targets.a]\nhost="{HOST}"\nport={a.port}\n[[cues.spin]]\ntarget="a"\naddress="/x/{{vars.nothing}}"')
    bridge.replace(f"""
[targets.a]
host = "{HOST}"
port = {a.port}
[targets.b]
host = "{HOST}"
port = {b.port}
enabled = false

[[cues.timer_started]]
target = "a"
when = {{ kind = "blitz" }}
address = "/blitz"
[[cues.timer_started]]
target = "a"
when = {{ kind = "minute" }}
address = "/minute"
[[cues.spin]]
target = "a"
address = "/late"
delay_ms = 250
[[cues.spin]]
target = "a"
address = "/bad"
args = [{{ int = "{{kind}}" }}]
[[cues.spin]]
target = "a"
address = "/early/{{sector}}"
[[cues.spin]]
target = "b"
address = "/never"
""")
    game = on_air(sessions)
    sessions.execute(game, {"type": "spin", "landed": 5})
    sessions.execute(game, {"type": "start_timer"})
    a.wait("/late", timeout=3)
    assert [c.address for c in a.seen()] == ["/early/5", "/blitz", "/late"]
    assert b.seen() == []

    def counted() -> dict | None:  # the sender counts a cue just after its datagram leaves
        targets = {t["name"]: t for t in bridge.status()["targets"]}
        return targets if targets["a"]["sent"] + targets["a"]["errors"] >= 4 else None
    status = wait_for(counted, timeout=5, what="the sender to count the last cue")
    assert status["a"]["errors"] == 1 and "'regular'" not in status["a"]["last_error"]
    assert "'blitz' is not a whole number" in status["a"]["last_error"]
    assert status["a"]["sent"] == 3 and status["b"]["sent"] == 0


def test_only_the_on_air_game_sends_cues(sessions, bridge, receivers):
    a, _ = receivers
    bridge.replace(f'[targets.a]\nhost="{HOST}"\nport={a.port}\npresets=["generic"]')
    on_air(sessions)
    other = sessions.create(demo_spec()).id
    a.wait("/chgk/event/on_air")
    sessions.execute(other, {"type": "spin", "landed": 2})
    time.sleep(0.3)
    assert not a.seen("/chgk/event/spin")


def test_fire_sends_one_event_with_sample_fields(sessions, bridge, receivers):
    a, _ = receivers
    bridge.replace(f'[targets.a]\nhost="{HOST}"\nport={a.port}\npresets=["generic"]')
    sent = bridge.fire("team_seated", {"team": "t3"})
    assert sent == [{"target": "a", "address": "/chgk/event/team_seated", "args": ["t3", "", 0], "delay_ms": 0}]
    assert a.wait("/chgk/event/team_seated").args == ["t3", "", 0]


def test_a_surface_that_keeps_refusing_is_dropped(sessions, bridge):
    game = on_air(sessions)
    dead = free_port()
    bridge.inbound.handle(message("/chgk/subscribe", ("i", dead)), (HOST, 40000))
    assert [s.port for s in bridge.surfaces.all()] == [dead]
    deadline = time.monotonic() + 10
    while bridge.surfaces.all() and time.monotonic() < deadline:
        sessions.execute(game, {"type": "spin"})  # each change sends the surface its state
        sessions.undo(game)
        time.sleep(0.05)
    assert bridge.surfaces.all() == []
    assert DROP_AFTER_ERRORS > 1


def test_a_bad_file_at_start_leaves_the_generic_targets_working(sessions, graphics, tmp_path, receivers):
    a, _ = receivers
    (tmp_path / "osc.toml").write_text("[[cues.nope]]\n", encoding="utf-8")
    osc = OscBridge(sessions, graphics, tmp_path, targets=[f"{HOST}:{a.port}"])
    sessions.subscribe(osc.on_change)
    osc.start(thread_runtime())
    assert osc.status()["config"]["error"].startswith("cues.nope: unknown event")
    on_air(sessions)
    a.wait("/chgk/score", [0, 0])
