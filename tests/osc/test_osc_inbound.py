"""Inbound datagrams → commands on the on-air game (overlay/osc/inbound.py), with a real
Sessions and Graphics; the debounce clock is the test's."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pythonosc.osc_bundle_builder import IMMEDIATELY, OscBundleBuilder
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

from overlay.osc.inbound import Inbound, allowed, parse_allow

from .conftest import demo_spec

LOCAL = ("127.0.0.1", 50000)


def msg(address, *args):
    builder = OscMessageBuilder(address)
    for a in args:
        builder.add_arg(a)
    return builder.build()


def dgram(address, *args):
    return msg(address, *args).dgram


class Mono:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def mono():
    return Mono()


@pytest.fixture
def game(sessions):
    game_id = sessions.create(demo_spec()).id
    sessions.set_on_air(game_id)
    return game_id


@pytest.fixture
def inbound(sessions, graphics, mono):
    box = Inbound(sessions, graphics, ["127.0.0.1", "::1"], clock=mono)
    box.replies, box.subscriptions = [], []
    box.reply = lambda data, to: box.replies.append((OscMessage(data), to))
    box.on_subscribe = lambda host, port, on: box.subscriptions.append((host, port, on))
    return box


def rev(sessions, game):
    return sessions.get(game).rev


def test_commands_reach_the_on_air_game(sessions, inbound, game, mono):
    inbound.handle(dgram("/chgk/landed", 3), LOCAL)
    mono.t += 1
    inbound.handle(dgram("/chgk/start_timer", 1.0), LOCAL)
    mono.t += 1
    inbound.handle(dgram("/chgk/incorrect"), LOCAL)
    g = sessions.get(game).game
    assert g.score == {"experts": 0, "viewers": 1} and g.round.sector == 3 and g.phase == "closed"
    assert inbound.counters["accepted"] == 3 and inbound.counters["refused"] == 0
    journal = sessions.store.journal(game)
    assert {row["body"].get("source") for row in journal if row["kind"] == "command"} == {"osc"}
    mono.t += 1
    inbound.handle(dgram("/chgk/undo"), LOCAL)
    assert sessions.get(game).game.score == {"experts": 0, "viewers": 0}


def test_a_bundle_is_taken_in_order(sessions, inbound, game):
    bundle = OscBundleBuilder(IMMEDIATELY)
    bundle.add_content(msg("/chgk/landed", 5))
    bundle.add_content(msg("/chgk/start_timer"))
    inbound.handle(bundle.build().dgram, LOCAL)
    g = sessions.get(game).game
    assert (g.round.sector, g.phase, g.timer.kind) == (5, "discussion", "blitz")


def test_releases_and_repeats_do_nothing(sessions, inbound, game, mono):
    inbound.handle(dgram("/chgk/spin", 0), LOCAL)
    inbound.handle(dgram("/chgk/spin", 0.0), LOCAL)
    inbound.handle(dgram("/chgk/spin", False), LOCAL)
    assert rev(sessions, game) == 0 and inbound.reasons["release"] == 3
    inbound.handle(dgram("/chgk/landed", 2), LOCAL)
    after_spin = rev(sessions, game)
    mono.t += 0.15
    inbound.handle(dgram("/chgk/landed", 9), LOCAL)  # within 200 ms of the last press: a repeat
    assert rev(sessions, game) == after_spin and sessions.get(game).game.round.sector == 2
    assert inbound.reasons["repeat"] == 1
    mono.t += 0.1
    inbound.handle(dgram("/chgk/start_timer"), LOCAL)  # another address is not a repeat
    assert sessions.get(game).game.phase == "discussion"
    assert inbound.counters["ignored"] == 4


def test_refusals_change_nothing_and_are_counted(sessions, inbound, game, mono):
    for data in (dgram("/chgk/correct"),             # no round yet: the rules refuse
                 dgram("/chgk/landed", "5"),         # wrong type
                 dgram("/chgk/landed", 99),          # sector out of range: the rules' own check
                 dgram("/chgk/whatever", 1),         # unknown address
                 dgram("/chgk/s*"),                  # pattern
                 b"/chgk/spin\x00\x00,z\x00\x00",       # an unknown type tag: not a bare press
                 b"\x00\x01\x02 not osc at all",     # malformed
                 b"#bundle\x00\x00\x00",             # truncated bundle
                 dgram("/chgk/" + "x" * 5000)):      # an address no surface sends
        mono.t += 1
        inbound.handle(data, LOCAL)
    assert rev(sessions, game) == 0
    assert inbound.counters["refused"] == 9 and inbound.counters["accepted"] == 0
    assert {"no_round", "bad_argument", "bad_field", "unknown_address", "pattern_refused", "malformed"} <= set(
        inbound.reasons)
    assert inbound.view()["last_errors"][0]["code"] == "malformed"


def test_senders_off_the_allow_list_are_refused(sessions, graphics, game):
    strict = Inbound(sessions, graphics, ["192.168.10.0/24"])
    strict.handle(dgram("/chgk/spin"), LOCAL)
    assert rev(sessions, game) == 0 and strict.reasons["sender_not_allowed"] == 1
    strict.handle(dgram("/chgk/spin"), ("192.168.10.7", 9000))
    assert rev(sessions, game) == 1


def test_allow_list_matching():
    nets = parse_allow(["127.0.0.1", "::1", "10.1.0.0/16"])
    assert allowed("127.0.0.1", nets) and allowed("::1", nets) and allowed("::ffff:127.0.0.1", nets)
    assert allowed("10.1.200.3", nets) and not allowed("10.2.0.1", nets) and not allowed("nonsense", nets)


def test_no_game_on_air(sessions, inbound):
    inbound.handle(dgram("/chgk/spin"), LOCAL)
    assert inbound.reasons["no_game_on_air"] == 1


def test_ping_subscribe_and_graphics(inbound, graphics, game):
    inbound.handle(dgram("/chgk/ping", 7, "x"), LOCAL)
    (pong, to), = inbound.replies
    assert (pong.address, pong.params, to) == ("/chgk/pong", [7, "x"], LOCAL)
    inbound.handle(dgram("/chgk/subscribe", 9100), LOCAL)
    inbound.handle(dgram("/chgk/unsubscribe"), LOCAL)
    assert inbound.subscriptions == [("127.0.0.1", 9100, True), ("127.0.0.1", 50000, False)]
    inbound.handle(dgram("/chgk/graphics/lower-third/show", "Анна", "капитан"), LOCAL)
    assert graphics.shown["lower-third"]["data"] == {"title": "Анна", "subtitle": "капитан"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=200),
                      st.builds(lambda tail: b"/chgk/spin\x00\x00" + tail, st.binary(max_size=40)),
                      st.builds(lambda tail: b"#bundle\x00" + tail, st.binary(max_size=60))))
def test_any_bytes_never_raise(sessions, graphics, game, data):
    before = rev(sessions, game)
    box = Inbound(sessions, graphics, ["127.0.0.1"])
    box.handle(data, LOCAL)  # must not raise, whatever arrives
    assert box.counters["datagrams"] == 1
    assert box.counters["refused"] + box.counters["ignored"] + box.counters["accepted"] >= 1
    if not box.counters["accepted"]:
        assert rev(sessions, game) == before


def test_a_ping_echoes_a_double_too_large_for_a_float32():
    """Found by the OSC fuzzing: a `d` argument beyond float32 made building the pong fail."""
    from pythonosc.osc_message import OscMessage

    from overlay.osc.inbound import _typed
    from overlay.osc.template import build
    pong = OscMessage(build("/chgk/pong", _typed([1e300, -1e39, 1.5, 7, "эхо"])))
    assert pong.params == [1e300, -1e39, 1.5, 7, "эхо"]


def test_osc_shows_are_checked_by_the_graphics_schema(inbound, graphics, game):
    """OSC takes a graphic through the same door as POST /api/graphics: its data is checked
    against the graphic's schema (overlay/schema), a wrong field refused by name, nothing shown."""
    inbound.handle(dgram("/chgk/graphics/ticker/show", '{"items": [" Новость ", {"text": "Вторая"}], "speed": 90}'), LOCAL)
    assert graphics.shown["ticker"]["data"] == {"items": ["Новость", "Вторая"], "speed": 90}
    inbound.handle(dgram("/chgk/graphics/slate/show", '{"kind": "break", "countdown_ms": "5 min"}'), LOCAL)
    inbound.handle(dgram("/chgk/graphics/scoreboard/show", "Счёт"), LOCAL)
    assert inbound.reasons["bad_field"] == 2 and "slate" not in graphics.shown and "scoreboard" not in graphics.shown
    assert [e["message"] for e in inbound.last_errors] == [
        "'countdown_ms' must be a duration from 0:01 to 24:00:00 (milliseconds, or e.g. 8 s, 1:30).",
        "'title' is not a field of this graphic; its fields: duration_ms."]


def test_a_datagram_is_counted_once_it_is_handled(sessions, graphics, game, inbound):
    """The status's `datagrams` says what has been handled: whoever reads the count (while a
    command's fsync lets others run) sees the datagram's outcome counted with it."""
    seen: list[dict] = []
    sessions.subscribe(lambda change: seen.append(dict(inbound.counters)))
    inbound.handle(dgram("/chgk/spin", 3), LOCAL)
    assert seen and seen[0].get("datagrams", 0) == 0, "counted before it was handled"
    assert inbound.counters["datagrams"] == 1 and inbound.counters["accepted"] == 1
