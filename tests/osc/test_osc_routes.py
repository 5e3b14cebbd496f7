"""The inbound routing table (overlay/osc/routes.py): address + arguments → action."""
import pytest

from overlay.graphics.game import GRAPHICS
from overlay.osc.routes import ROUTES, Action, Ignore, Refuse, route
from overlay.rules.commands import VOCABULARY


def test_every_command_and_graphic_has_an_address():
    for command in VOCABULARY:
        assert f"/chgk/{command}" in ROUTES
    for name in GRAPHICS:
        assert {f"/chgk/graphics/{name}/show", f"/chgk/graphics/{name}/hide"} <= set(ROUTES)
    for extra in ("landed", "correct", "incorrect", "undo", "ping", "subscribe", "unsubscribe"):
        assert f"/chgk/{extra}" in ROUTES


@pytest.mark.parametrize("address,args,body", [
    ("/chgk/spin", [], {"type": "spin"}),
    ("/chgk/spin", [1], {"type": "spin"}),
    ("/chgk/spin", [1.0], {"type": "spin"}),
    ("/chgk/spin", [True], {"type": "spin"}),
    ("/chgk/landed", [5], {"type": "spin", "landed": 5}),
    ("/chgk/landed", [13.0], {"type": "spin", "landed": 13}),
    ("/chgk/correct", [], {"type": "judge", "correct": True}),
    ("/chgk/incorrect", [1.0], {"type": "judge", "correct": False}),
    ("/chgk/judge", [False], {"type": "judge", "correct": False}),
    ("/chgk/judge", [1], {"type": "judge", "correct": True}),
    ("/chgk/start_timer", [], {"type": "start_timer"}),
    ("/chgk/choose_player", ["Борис"], {"type": "choose_player", "player": "Борис"}),
    ("/chgk/decide_decisive_round", [True, "Анна", "Борис", "Вера"],
     {"type": "decide_decisive_round", "granted": True, "players": ["Анна", "Борис", "Вера"]}),
    ("/chgk/decide_decisive_round", [0], {"type": "decide_decisive_round", "granted": False}),
    ("/chgk/club_answers", ["t1", "t4"], {"type": "club_answers", "correct": ["t1", "t4"]}),
    ("/chgk/club_answers", [], {"type": "club_answers", "correct": []}),
    ("/chgk/seat_team", ["t3"], {"type": "seat_team", "team": "t3"}),
    ("/chgk/seat_team", [], {"type": "seat_team"}),
    ("/chgk/best_player", ["Дина"], {"type": "best_player", "player": "Дина"}),
])
def test_commands(address, args, body):
    assert route(address, args) == Action("command", body)


@pytest.mark.parametrize("address", ["/chgk/spin", "/chgk/landed", "/chgk/correct", "/chgk/incorrect", "/chgk/undo",
                                     "/chgk/start_timer", "/chgk/seat_team", "/chgk/graphics/timer/show",
                                     "/chgk/graphics/timer/hide"])
@pytest.mark.parametrize("release", [0, 0.0, False])
def test_a_lone_zero_on_a_button_is_a_release(address, release):
    assert route(address, [release]) == Ignore("release")


def test_judge_is_not_a_button_its_zero_means_incorrect():
    assert route("/chgk/judge", [0]) == Action("command", {"type": "judge", "correct": False})


@pytest.mark.parametrize("address,args,code", [
    ("/chgk/landed", ["5"], "bad_argument"),
    ("/chgk/landed", [2.5], "bad_argument"),
    ("/chgk/landed", [], "bad_argument"),
    ("/chgk/landed", [3, 4], "bad_argument"),
    ("/chgk/spin", ["x"], "bad_argument"),
    ("/chgk/judge", [], "bad_argument"),
    ("/chgk/judge", ["yes"], "bad_argument"),
    ("/chgk/judge", [2], "bad_argument"),
    ("/chgk/choose_player", [], "bad_argument"),
    ("/chgk/choose_player", [7], "bad_argument"),
    ("/chgk/choose_player", ["Анна", "Борис"], "bad_argument"),
    ("/chgk/club_answers", ["t1", 2], "bad_argument"),
    ("/chgk/subscribe", [70000], "bad_argument"),
    ("/chgk/nothing", [], "unknown_address"),
    ("/chgk/state/score", [1, 2], "unknown_address"),
    ("/chgk/event/spin", [], "unknown_address"),
    ("/chgk/graphics/nope/show", [], "unknown_address"),
    ("chgk/spin", [], "unknown_address"),
])
def test_refusals(address, args, code):
    outcome = route(address, args)
    assert isinstance(outcome, Refuse) and outcome.code == code and outcome.message


@pytest.mark.parametrize("char", list("*?[]{}"))
def test_patterns_are_refused(char):
    assert route(f"/chgk/sp{char}n", []).code == "pattern_refused"


def test_graphics_show_data():
    assert route("/chgk/graphics/lower-third/show", ["Анна Иванова", "капитан", 8000]) == Action(
        "graphics", {"action": "show", "graphic": "lower-third",
                     "data": {"title": "Анна Иванова", "subtitle": "капитан", "duration_ms": 8000}})
    assert route("/chgk/graphics/lower-third/show", ['{"title": "x", "subtitle": "y"}']).body["data"] == {
        "title": "x", "subtitle": "y"}
    assert route("/chgk/graphics/lower-third/show", ["{nope"]).code == "bad_argument"
    assert route("/chgk/graphics/result/hide", []) == Action("graphics", {"action": "hide", "graphic": "result", "data": {}})


def test_ping_and_subscribe_are_not_debounced():
    assert route("/chgk/ping", [1, "x"]) == Action("ping", {"args": [1, "x"]}, debounce=False)
    assert route("/chgk/subscribe", []) == Action("subscribe", {}, debounce=False)
    assert route("/chgk/subscribe", [9000.0]) == Action("subscribe", {"port": 9000}, debounce=False)
