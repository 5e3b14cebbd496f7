"""Game changes → named cue events and the template context (overlay/osc/events.py),
driven through a real Sessions so the recorded events are the real ones."""
from overlay.osc.events import cue_events, state_context

from .conftest import demo_spec


def record(sessions):
    changes = []
    sessions.subscribe(changes.append)
    return changes


def names(change):
    return [(e.name, e.fields) for e in cue_events(change)]


def test_a_single_question_round(sessions, clock):
    changes = record(sessions)
    game = sessions.create(demo_spec(minute=20_000)).id
    sessions.set_on_air(game)
    sessions.execute(game, {"type": "spin", "landed": 3})
    sessions.execute(game, {"type": "start_timer"})
    sessions.execute(game, {"type": "judge", "correct": False})
    create, on_air, spin, timer, judge = changes
    assert cue_events(create) == []
    assert names(on_air) == [("on_air", {"game": game, "title": "Демонстрационная игра"}),
                             ("score", {"experts": 0, "viewers": 0})]
    assert names(spin) == [("spin", {"landed": 3, "sector": 3, "kind": "regular", "drawn": 0})]
    assert names(timer) == [("timer_started", {"kind": "minute", "duration_s": 20})]
    assert names(judge) == [
        ("incorrect", {"sector": 3, "question": 1, "questions": 1}),
        ("prize_won", {"sector": 3, "amount": 1000, "currency": "UAH", "author": "Мария Лисовская", "city": "Киев"}),
        ("score", {"experts": 0, "viewers": 1}),
        ("round_closed", {"sector": 3, "result": "viewers"}),
    ]
    sessions.undo(game)
    assert names(changes[-1]) == [("undo", {"undone": "incorrect"}), ("score", {"experts": 0, "viewers": 0})]


def test_a_drawn_spin_and_a_blitz(sessions):
    changes = record(sessions)
    game = sessions.create(demo_spec()).id
    sessions.execute(game, {"type": "spin", "landed": 5})
    sessions.execute(game, {"type": "start_timer"})
    sessions.execute(game, {"type": "judge", "correct": True})
    assert names(changes[-3])[0][1]["kind"] == "blitz"
    assert names(changes[-2]) == [("timer_started", {"kind": "blitz", "duration_s": 20})]
    assert names(changes[-1]) == [("correct", {"sector": 5, "question": 1, "questions": 3}),
                                  ("next_question", {"sector": 5, "question": 2, "questions": 3})]
    drawn = sessions.create(demo_spec()).id
    sessions.execute(drawn, {"type": "spin"})
    spin = names(changes[-1])[0][1]
    assert spin["drawn"] == 1 and 1 <= spin["landed"] <= 13


def test_ten_seconds_and_time_up_come_from_the_clock(sessions, clock):
    changes = record(sessions)
    game = sessions.create(demo_spec(minute=15_000)).id
    sessions.execute(game, {"type": "spin", "landed": 1})
    sessions.execute(game, {"type": "start_timer"})
    clock.now += 5_500
    sessions.tick()
    assert names(changes[-1]) == [("ten_seconds", {"kind": "minute"})]
    clock.now += 10_000
    sessions.tick()
    assert changes[-1].kind == "time_up"
    assert names(changes[-1]) == [("time_up", {"kind": "minute"})]


def test_graphics_and_a_verdict_that_ends_the_game(sessions, graphics):
    changes = record(sessions)
    graphics.apply({"action": "show", "graphic": "lower-third", "data": {"title": "Анна"}})
    graphics.apply({"action": "hide", "graphic": "lower-third"})
    assert names(changes[-2]) == [("graphic_shown", {"graphic": "lower-third", "title": "Анна"})]
    assert names(changes[-1]) == [("graphic_hidden", {"graphic": "lower-third"})]
    spec = demo_spec()
    spec["target"] = 1
    game = sessions.create(spec).id
    sessions.execute(game, {"type": "spin", "landed": 1})
    sessions.execute(game, {"type": "start_timer"})
    sessions.execute(game, {"type": "judge", "correct": True})
    assert [n for n, _ in names(changes[-1])] == ["correct", "score", "round_closed", "game_over"]
    assert names(changes[-1])[-1] == ("game_over", {"winner": "experts"})


def test_state_context(sessions, clock):
    assert state_context(None, 0)["round"]["sector"] == 0
    game = sessions.create(demo_spec(blitz=20_000)).id
    sessions.execute(game, {"type": "spin", "landed": 5})
    sessions.execute(game, {"type": "start_timer"})
    clock.now += 4_200
    ctx = state_context(sessions.get(game).game, clock.now)
    assert ctx["round"] == {"sector": 5, "landed": 5, "kind": "blitz", "phase": "discussion", "question": 1,
                            "questions": 3, "player": ""}
    assert ctx["timer"] == {"kind": "blitz", "running": True, "remaining_s": 16, "duration_s": 20}
    assert ctx["score"] == {"experts": 0, "viewers": 0} and ctx["game"]["title"] == "Демонстрационная игра"
