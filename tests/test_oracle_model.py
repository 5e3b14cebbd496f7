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


# --- club and league graphics ----------------------------------------------------------------------

def club_state(**over: object) -> dict:
    teams = [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"Игрок {i}.{k}" for k in (1, 2)],
              "lost_round": False, "correct": 0, "central_correct": 0, "gain": 0} for i in range(1, 5)]
    base = state(rules="club", teams=teams, experts=None,
                 central={"team": None, "candidates": ["t1", "t2", "t3", "t4"], "seated": [], "left": None, "players": []},
                 best_player=None, winner=None)
    return {**base, **over}


def test_the_central_table_strap_names_the_seated_team_while_the_game_is_played() -> None:
    s = club_state(central={"team": "t2", "candidates": [], "seated": ["t2"], "left": None, "players": []})
    strap = om.page_model("central-table", s, {}, NOW)["central-table"]
    assert strap.visible and strap.texts["name"] == "Команда 2" and strap.seq["players"] == ["Игрок 2.1", "Игрок 2.2"]
    assert not om.page_model("central-table", club_state(), {}, NOW)["central-table"].visible  # nobody sits
    over = {**s, "status": "finished"}
    assert not om.page_model("central-table", over, {}, NOW)["central-table"].visible
    cued = {"graphics": {"central-table": {"data": {}, "shown_at": NOW - 10}}}
    assert om.page_model("central-table", over, cued, NOW)["central-table"].visible
    assert om.scoreboard(s, NOW).texts["team"] == "Команда 2" and om.scoreboard(club_state(), NOW).texts["team"] == ""


def test_the_club_tables_number_every_team_and_count_the_answers_once_in() -> None:
    r = a_round(central_team="t1", club_correct=None, reveal_at=NOW + 2000)
    tables = om.club_tables(club_state(round=r), {}, NOW)
    assert tables.seq["grid"] == ["1", "Команда 1", "2", "Команда 2", "3", "Команда 3", "4", "Команда 4"]
    assert tables.texts == {"sector": "", "count": om.t("answers_pending")}  # the top still turns
    answered = om.club_tables(club_state(round={**r, "club_correct": ["t2"]}), {}, NOW + 2000)
    assert answered.texts == {"sector": "Сектор 5", "count": om.t("answered_n_of", n=1, total=3)}
    assert om.club_tables(club_state(), {}, NOW).texts["count"] == ""
    assert not om.club_tables(state(), {}, NOW).visible  # a tv game


def test_the_draw_shows_the_candidates_then_the_team_drawn_for_the_pages_own_while() -> None:
    waiting = om.draw(club_state(), {}, NOW)
    assert waiting.texts == {"title": om.t("draw_title"), "reel": "?"} and len(waiting.seq["chips"]) == 4
    one = om.draw(club_state(central={"team": None, "candidates": ["t3"], "seated": [], "left": None}), {}, NOW)
    assert one.texts == {"title": om.t("draw_seated"), "reel": "Команда 3"} and one.seq == {"chips": []}
    # after a lost round the candidates wait for the club tables' answers
    lost = club_state(central={"team": None, "candidates": [], "seated": ["t1"], "left": "t1"},
                      round=a_round(phase="closed", club_correct=None))
    assert not om.draw(lost, {}, NOW).visible
    seated = club_state(central={"team": "t3", "candidates": [], "seated": ["t3"], "left": None})
    held = om.draw(seated, {}, NOW)
    assert held.may_be_empty and held.contains == ["Команда 3"]
    assert not om.draw(seated, {"draw": {"data": {}, "shown_at": NOW}}, NOW).may_be_empty  # cued: it must stay


def test_the_game_rating_orders_by_points_and_shares_places() -> None:
    teams = club_state()["teams"]
    for team, (correct, central) in zip(teams, [(1, 0), (2, 1), (1, 0), (0, 0)]):
        team.update(correct=correct, central_correct=central, gain=correct + central)
    rows = om.game_rating(club_state(teams=teams), {}, NOW).seq["list"]
    assert [rows[i:i + 5] for i in range(0, len(rows), 5)] == [
        ["1", "Команда 2", "2", "1", "3"], ["2–3", "Команда 1", "1", "0", "1"], ["2–3", "Команда 3", "1", "0", "1"],
        ["4", "Команда 4", "0", "0", "0"]]


def test_the_best_player_is_named_with_the_team_they_sat_with_and_the_score() -> None:
    s = club_state(status="finished", winner="experts", best_player="Игрок 3.2", score={"experts": 6, "viewers": 4},
                   central={"team": "t3", "candidates": [], "seated": ["t1", "t3"], "left": None})
    bp = om.best_player(s, {}, NOW)
    assert bp.texts == {"name": "Игрок 3.2", "team": "Команда 3", "score": f"{om.t('winner_experts')} · 6 : 4"}
    assert not om.best_player(club_state(), {}, NOW).visible


SEASON = {"season": {"id": "s1", "name": "Сезон 2026"},
          "rating": [{"place": "1", "player": "Анна", "points": 5, "games": 1},
                     {"place": "2", "player": "Борис", "points": 3, "games": 2}],
          "final_teams": {"club": ["Анна"], "central_table": ["Борис"], "provisional": True},
          "final": {"winner": None, "games": [{"final_team": "club", "team": "Клуб", "score": {"experts": 1, "viewers": 2},
                                              "status": "playing"}]},
          "awards": {"crystal_sphinx": None}}
SERIES = {"name": "Битва звёзд", "winner": None,
          "duels": [{"scope": "duel", "winner": None, "games": [
              {"team": "Кино", "score": {"experts": 3, "viewers": 1}, "status": "finished"},
              {"team": "Спорт", "score": {"experts": 0, "viewers": 1}, "status": "playing"}]}],
          "final": {"scope": "final", "winner": None, "games": [
              {"team": "Кино", "score": {"experts": 3, "viewers": 2}, "status": "finished"},
              {"team": "Спорт", "score": {"experts": 3, "viewers": 0}, "status": "finished"},
              {"team": "Театр", "score": {"experts": 5, "viewers": 0}, "status": "playing"}]}}


def cue(name: str, **data: object) -> dict:
    return {"graphics": {name: {"data": data, "shown_at": NOW - 10}}}


def test_the_league_boards_are_cues_over_the_public_league_data() -> None:
    league = {"seasons": SEASON, "series": SERIES}
    assert not om.page_model("season-rating", None, {}, NOW, league)["season-rating"].visible  # not cued
    assert not om.page_model("season-rating", None, cue("season-rating"), NOW, {})["season-rating"].visible  # no data
    rating = om.page_model("season-rating", None, cue("season-rating", top=1), NOW, league)["season-rating"]
    assert rating.seq["list"] == ["1", "Анна", "1 игра", "5"] and rating.texts["sub"] == "Сезон 2026"
    final = om.page_model("final-teams", None, cue("final-teams"), NOW, league)["final-teams"]
    assert final.texts["club-score"] == "1 : 2" and final.texts["central-score"] == ""
    assert final.texts["foot"] == om.t("league_provisional")
    # a Final game's line-up replaces the proposal once both are made (the page, once merged with it)
    both = {**SEASON, "final": {"winner": None, "games": [
        {"final_team": side, "team": side, "players": [f"{side} 1"], "score": {"experts": 0, "viewers": 0},
         "status": "playing"} for side in ("club", "central_table")]}}
    made = om.page_model("final-teams", None, cue("final-teams"), NOW, {"seasons": both})["final-teams"]
    assert made.seq["club"] == ["club 1"] and made.texts["foot"] == ""
    series = om.page_model("series", None, cue("series"), NOW, league)["series"]
    assert series.seq["duels"] == ["Кино", "3:1", "Спорт", "0:1"]
    # the final table: finished games by margin, then the games still playing
    assert series.seq["final"] == ["1", "Спорт", "3:0", "2", "Кино", "3:2", "3", "Театр", "5:0"]


def test_compare_reads_rows_in_order_and_names_split_around_separators() -> None:
    model = {"game-rating": om.Part(True, seq={"list": ["1", "Сова", "2", "Ёж"]}),
             "series": om.Part(True, texts={"winner": "Победитель: Кино"})}
    drawn = [Drawn("1", "game-rating", "list"), Drawn("Сова", "game-rating", "list"), Drawn("2", "game-rating", "list"),
             Drawn("Ёж", "game-rating", "list"), Drawn("Победитель:", "series", "winner"), Drawn("Кино", "series", "winner")]
    assert om.compare(model, drawn) == []
    swapped = [drawn[0], drawn[3], drawn[2], drawn[1], *drawn[4:]]
    assert any("game-rating/list" in f and "from item 1" in f for f in om.compare(model, swapped))


def test_a_timer_started_while_the_top_turns_waits_for_the_reveal() -> None:
    running = {"kind": "blitz", "duration_ms": 20000, "remaining_ms": 20000, "running": True, "ends_at": NOW + 20000}
    s = state(round=a_round(kind="blitz", phase="discussion", reveal_at=NOW + 3000), timer=running)
    assert not om.timer(s, NOW).visible and om.timer(s, NOW + 3000).texts["kind"] == om.t("timer_blitz")


def test_a_looping_roll_may_be_empty_only_between_two_passes() -> None:
    # window 872 px cut by 100 px above a ticker, roll 300 px, 100 px/s: a pass is 1 272 px = 12.72 s
    entry = {"data": {"names": ["Анна"], "speed": 100, "loop": True}, "shown_at": NOW}
    between = lambda ms: om.roll_between_passes(entry, NOW + ms, 872, 100, 300, slack_ms=0)  # noqa: E731
    assert between(0) and between(999)  # rising through the hidden 100 px under the cut edge
    assert not between(1100) and not between(6000) and not between(12_600)  # names in the window
    assert between(12_720) and between(12_720 + 500)  # the next pass starts below again
    # the look's own length widens the moment on both sides, never over the whole pass
    assert om.roll_between_passes(entry, NOW + 1300, 872, 100, 300, slack_ms=400)
    assert not om.roll_between_passes(entry, NOW + 6000, 872, 100, 300, slack_ms=600)
    assert not om.roll_between_passes({"data": {}, "shown_at": None}, NOW, 872, 100, 300)
