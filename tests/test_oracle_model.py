"""The drawn-truth oracle's model (tests/browser/oracle_model.py) on its own: what must be on air
for a public state, and the comparison with drawn texts. Pure Python, no browser, no server."""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from tests.browser import oracle_model as om

NOW = 1_700_000_000_000


@dataclass(frozen=True)
class Drawn:
    text: str
    part: str
    ref: str = ""
    shown: bool = True
    covered_by: str = ""


def state(**over: object) -> dict:
    base = {"id": "g1", "rules": "tv", "rev": 5, "status": "playing", "score": {"experts": 2, "viewers": 3},
            "extra_minutes": 0, "club_help": {"available": False, "used": False}, "decisive": {"active": False},
            "experts": {"name": "Команда Иванова"},
            "sectors": [{"number": n, "kind": "regular", "played": n < 3, "result": "viewers" if n < 3 else None}
                        for n in range(1, 14)],
            "round": None, "timer": None}
    return {**base, **over}


def a_round(**over: object) -> dict:
    base = {"sector": 5, "landed": 5, "kind": "regular", "phase": "reading", "question": 0, "questions": 1,
            "results": [], "early": False, "text": "Что в чёрном ящике?", "answer": None,
            "author": {"name": "Ирина", "city": "Харьков"}, "prize": {"amount": 1000, "currency": "UAH"}}
    return {**base, **over}


def test_the_catalog_gives_the_words_on_air() -> None:
    assert om.t("sector_n", n=7) == "Сектор 7"
    assert om.t("kind_superblitz") == "Суперблиц"


@given(st.integers(0, 3_600_000))
def test_a_drawn_countdown_reads_back_as_the_top_of_its_step(ms: int) -> None:
    back = om.parse_remaining(om.format_remaining(ms))
    assert back is not None and 0 <= back - ms < 1000


def test_the_card_waits_for_the_top_when_the_state_says_when_it_stops() -> None:
    s = state(round=a_round(reveal_at=NOW + 3000))
    assert not om.question(s, NOW).visible and not om.blitz(state(round=a_round(kind="blitz", reveal_at=NOW + 1)), NOW).visible
    assert om.table(s, NOW).texts == {"cap-sector": "", "cap-kind": ""}
    assert om.question(s, NOW + 3000).visible
    assert om.question(state(round=a_round()), NOW).visible  # no reveal_at: revealed already (old games)


def test_the_card_shows_the_public_fields_and_a_rundown_step_holds_some_back() -> None:
    judged = state(round=a_round(phase="closed", results=["incorrect"], answer="Ответ"))
    card = om.question(judged, NOW)
    assert card.texts["sector"] == "Сектор 5" and card.texts["answer"] == "Ответ"
    assert card.texts["verdict"] == om.t("verdict_incorrect") and "1 000" in card.contains
    held = om.question(judged, NOW, step="card")
    assert held.texts["text"] == held.texts["answer"] == held.texts["verdict"] == ""


def test_the_scoreboard_shows_the_score_and_only_the_badges_that_apply() -> None:
    sb = om.scoreboard(state(extra_minutes=2), NOW)
    assert sb.texts == {"experts": "2", "viewers": "3"}
    assert f"{om.t('extra_minute_badge')} ×2" in sb.contains and om.t("decisive_badge") in sb.absent
    assert not om.scoreboard(None, NOW).visible


def test_the_timer_shows_while_it_runs_and_not_for_an_early_answer_that_never_started_it() -> None:
    running = {"kind": "minute", "duration_ms": 60000, "remaining_ms": 60000, "running": True, "ends_at": NOW + 42000}
    tm = om.timer(state(round=a_round(phase="discussion"), timer=running), NOW)
    assert tm.visible and tm.countdown == (42000, True) and tm.texts["up"] == ""
    early = {**running, "running": False, "ends_at": None}
    assert not om.timer(state(round=a_round(phase="answer", early=True), timer=early), NOW).visible
    up = {**running, "running": False, "remaining_ms": 0, "ends_at": None}
    assert om.timer(state(round=a_round(phase="discussion"), timer=up), NOW).texts["up"] == om.t("time_up")


def test_at_the_end_full_shows_only_the_result() -> None:
    model = om.page_model("full", state(status="finished", winner="viewers"), {}, NOW)
    assert [k for k, p in model.items() if p.visible] == ["result"]


def test_hidden_graphics_leave_the_air_whatever_the_state() -> None:
    assert not om.page_model("scoreboard", state(), {"hidden": ["scoreboard"]}, NOW)["scoreboard"].visible
    full = om.page_model("full", state(), {"hidden": ["full"]}, NOW)
    assert not any(p.visible for p in full.values())


def test_the_show_output_draws_a_part_only_while_its_graphic_is_on_a_layer() -> None:
    gfx = {"layers": {"back": {"graphic": "slate", "data": {"kind": "soon"}, "shown_at": NOW - 10},
                      "top": {"graphic": "ticker", "data": {"items": ["Новость"]}, "shown_at": NOW - 10}}}
    model = om.page_model("show", state(round=a_round()), gfx, NOW)
    assert {k for k, p in model.items() if p.visible} == {"slate", "ticker"}
    assert model["slate"].texts["title"] == om.t("slate_soon") and model["ticker"].one_of["track"] == {"Новость"}
    assert model["slate"].level < model["scoreboard"].level < model["lower-third"].level < model["ticker"].level


def test_an_expired_strap_is_off_air() -> None:
    gfx = {"graphics": {"lower-third": {"data": {"title": "Анна", "duration_ms": 1000}, "shown_at": NOW - 2000}}}
    assert not om.page_model("lower-third", None, gfx, NOW)["lower-third"].visible


def test_compare_finds_a_wrong_digit_a_stacked_one_and_text_on_a_hidden_part() -> None:
    model = {"scoreboard": om.Part(True, texts={"experts": "2", "viewers": "2"}), "timer": om.Part(False)}
    drawn = [Drawn("2", "scoreboard", "experts"), Drawn("2", "scoreboard", "viewers"), Drawn("3", "scoreboard", "viewers"),
             Drawn("0:42", "timer", "digits")]
    found = om.compare(model, drawn)
    assert any("scoreboard/viewers: draws «23»" in f for f in found)
    assert any(f.startswith("timer: must be off air") for f in found)
    assert om.compare(model, drawn[:2]) == []


def test_compare_tells_a_lower_layer_on_top_from_a_higher_one() -> None:
    model = {"ticker": om.Part(True, texts={"label": "Новости"}, level=3), "slate": om.Part(True, level=0),
             "lower-third": om.Part(True, texts={"title": "Анна"}, level=2)}
    under_slate = [Drawn("Новости", "ticker", "label", shown=False, covered_by="slate div.sl-backdrop"),
                   Drawn("Анна", "lower-third", "title")]
    assert any("a layer that must be below it" in f for f in om.compare(model, under_slate))
    # a strap under the ticker: as the order says, not a mismatch
    under_ticker = [Drawn("Новости", "ticker", "label"),
                    Drawn("Анна", "lower-third", "title", shown=False, covered_by="ticker div.tk-bar")]
    assert om.compare(model, under_ticker) == []


def test_compare_reads_a_running_countdown_with_slack_and_a_stopped_one_exactly() -> None:
    running = {"timer": om.Part(True, countdown=(42_000, True))}
    assert om.compare(running, [Drawn("0:43", "timer", "digits")]) == []
    assert om.compare(running, [Drawn("0:45", "timer", "digits")])
    stopped = {"timer": om.Part(True, countdown=(42_000, False))}
    assert om.compare(stopped, [Drawn("0:42", "timer", "digits")]) == []
    assert om.compare(stopped, [Drawn("0:43", "timer", "digits")])


def test_a_judged_blitz_mark_needs_no_number_and_a_passed_roll_no_text() -> None:
    blitz = om.blitz(state(round=a_round(kind="blitz", questions=3, question=1, results=["correct"])), NOW)
    assert blitz.contains == ["2", "3"]
    gfx = {"layers": {"back": {"graphic": "credits", "data": {"names": ["Анна"]}, "shown_at": NOW - 60_000}}}
    model = om.page_model("show", None, gfx, NOW)
    assert model["credits"].visible and om.compare(model, []) == []
    looping = {"layers": {"back": {"graphic": "credits", "data": {"names": ["Анна"], "loop": True}, "shown_at": NOW}}}
    assert om.compare(om.page_model("show", None, looping, NOW), []) == ["credits: must be on air, draws nothing"]
