"""The TV rules (RULES.md §2–§3), one behaviour per test."""
import pytest

from overlay.rules import InputError, RuleError

from overlay.rules import apply_all, new_game, parse_spec
from overlay.rules.tv import SPIN_MS
from overlay.core.views import operator_view, public_view

from .helpers import Play

BLITZ = [{"text": f"Блиц {i}", "answer": f"Ответ {i}", "author": {"name": "Автор", "city": "Киев"},
          "prize": {"amount": 500, "currency": "UAH"}} for i in range(3)]


def q(text="Вопрос", answer="Ответ", amount=1000):
    return [{"text": text, "answer": answer, "author": {"name": "Иван Петров", "city": "Харьков"},
             "prize": {"amount": amount, "currency": "UAH"}}]


def blitz_game(kind="blitz"):
    return Play(experts={"name": "К", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"], "captain": "Анна"},
                sectors=[{"number": 4, "kind": kind, "questions": BLITZ}, {"number": 1, "questions": q()}])


# the table ------------------------------------------------------------------------------------

def test_default_table_has_13_sectors_with_sponsor_last():
    p = Play()
    assert [s.number for s in p.game.sectors] == list(range(1, 14))
    assert p.game.sectors[12].kind == "sponsor"
    assert {s.kind for s in p.game.sectors[:12]} == {"regular"}


def test_spin_to_entered_sector():
    p = Play()
    assert p.do("spin", landed=7) == [{"type": "spun", "landed": 7, "sector": 7, "drawn": False,
                                       "spun_at": 1_000_000, "reveal_at": 1_000_000 + SPIN_MS["turn"]}]
    assert p.game.round.phase == "reading"


def test_spin_drawn_by_server_records_the_outcome():
    p = Play()
    p.draws = [9]
    assert p.do("spin") == [{"type": "spun", "landed": 9, "sector": 9, "drawn": True,
                             "spun_at": 1_000_000, "reveal_at": 1_000_000 + SPIN_MS["turn"]}]


def test_spin_on_played_sector_goes_clockwise():
    p = Play()
    p.round(7, True)
    p.round(8, True)
    events = p.do("spin", landed=7)
    assert events[0]["landed"] == 7 and events[0]["sector"] == 9


def test_reveal_waits_for_the_walk_over_played_sectors():
    p = Play()
    p.round(7, True)
    p.round(8, True)
    p.wait(5000)
    spun = p.do("spin", landed=7)[0]          # stops on 7, walks over 8 to 9: two steps
    assert spun["spun_at"] == p.now
    assert spun["reveal_at"] == p.now + SPIN_MS["turn"] + SPIN_MS["rest"] + 2 * SPIN_MS["step"]
    assert p.game.round.reveal_at == spun["reveal_at"]


def test_reveal_walk_wraps_past_the_last_sector():
    p = Play()
    p.round(13, True)
    spun = p.do("spin", landed=13)[0]         # 13 played: on to 1, one step clockwise
    assert spun["sector"] == 1
    assert spun["reveal_at"] == p.now + SPIN_MS["turn"] + SPIN_MS["rest"] + SPIN_MS["step"]


def test_reveal_at_is_recorded_so_replay_gives_the_same_moment():
    p = Play()
    p.round(2, False)
    events = p.do("spin", landed=2)
    replayed = apply_all(new_game("g1", parse_spec({"rules": "tv"})), p.log)
    assert replayed.round.reveal_at == events[0]["reveal_at"] == p.game.round.reveal_at


def test_views_carry_reveal_at_and_the_spin_timings():
    p = Play()
    p.do("spin", landed=3)
    for view in (public_view(p.game, 1, p.now), operator_view(p.game, 1, p.now)):
        r = view["round"]
        assert (r["spun_at"], r["reveal_at"]) == (p.now, p.now + SPIN_MS["turn"])
        assert r["spin"] == SPIN_MS


def test_an_old_recorded_spin_without_reveal_at_reads_as_revealed():
    game = apply_all(new_game("g1", parse_spec({"rules": "tv"})),
                     [{"type": "spun", "landed": 4, "sector": 4, "drawn": False}])
    r = public_view(game, 1, 0)["round"]
    assert (r["sector"], r["reveal_at"], r["spin"]) == (4, None, None)


def test_spin_out_of_range_is_bad_input():
    p = Play()
    with pytest.raises(InputError) as info:
        p.do("spin", landed=14)
    assert info.value.status == 400


def test_spin_during_round_refused():
    p = Play()
    p.do("spin", landed=1)
    assert p.refused("spin", landed=2) == "round_in_progress"


def test_every_sector_played_refuses_spin():
    p = Play(target=20, sector_count=3, rules="tv")
    for n in (1, 2, 3):
        p.round(n, n % 2 == 0)
    assert p.refused("spin") == "table_exhausted"


# the round ------------------------------------------------------------------------------------

def test_minute_runs_then_answer_phase():
    p = Play()
    p.do("spin", landed=1)
    (started,) = p.do("start_timer")
    assert started["duration_ms"] == 60_000 and started["ends_at"] == p.now + 60_000
    assert p.game.phase == "discussion"
    p.time_up()
    assert p.game.phase == "answer" and p.game.timer.remaining_ms == 0


def test_timers_come_from_the_spec():
    p = Play(timers={"minute": 5_000})
    p.do("spin", landed=1)
    assert p.do("start_timer")[0]["duration_ms"] == 5_000


def test_the_tops_timings_come_from_the_spec_and_the_arrow_stops_by_them():
    p = Play(spin={"turn": 800, "step": 100})
    p.do("spin", landed=1)
    p.do("start_timer")
    p.do("judge", correct=True)
    # landed on the played sector 1: it rests, then walks one sector to 2
    (spun,) = p.do("spin", landed=1)
    assert spun["sector"] == 2 and spun["reveal_at"] == p.now + 800 + SPIN_MS["rest"] + 100
    # the table graphic turns by the game's own numbers, which stop the arrow at reveal_at
    assert public_view(p.game, 1, p.now)["round"]["spin"] == {"turn": 800, "rest": SPIN_MS["rest"], "step": 100}
    assert parse_spec({"rules": "tv"})["spin"] == SPIN_MS


@pytest.mark.parametrize(("spin", "field"), [
    ({"turn": 499}, "spin.turn"), ({"turn": 20_001}, "spin.turn"), ({"rest": -1}, "spin.rest"),
    ({"step": 49}, "spin.step"), ({"step": "fast"}, "spin.step"), ({"turns": 800}, "spin"), ([800], "spin"),
])
def test_the_tops_timings_are_refused_outside_their_bounds(spin, field):
    with pytest.raises(InputError) as info:
        parse_spec({"rules": "tv", "spin": spin})
    assert info.value.values["field"] == field


def test_a_game_stored_before_the_tops_timings_spins_by_the_default():
    spec = parse_spec({"rules": "tv"})
    del spec["spin"]
    game = new_game("g1", spec)
    assert game.spin == SPIN_MS


def test_time_up_refused_before_time():
    p = Play()
    p.do("spin", landed=1)
    p.do("start_timer")
    from overlay.rules import Ctx, decide
    from overlay.rules.commands import Command
    with pytest.raises(RuleError):
        decide(p.game, Command("time_up"), Ctx(p.now + 59_999, p.draw))


def test_pause_and_resume_keep_remaining_time():
    p = Play()
    p.do("spin", landed=1)
    p.do("start_timer")
    p.wait(15_000)
    p.do("pause_timer")
    assert not p.game.timer.running and p.game.timer.remaining_ms == 45_000
    p.wait(100_000)
    assert p.refused("pause_timer") == "timer_not_running"
    p.do("resume_timer")
    assert p.game.timer.ends_at == p.now + 45_000
    assert p.refused("resume_timer") == "timer_not_paused"


def test_correct_verdict_scores_for_experts_and_closes_sector():
    p = Play(sectors=[{"number": 2, "questions": q()}])
    p.round(2, True)
    assert p.score == (1, 0)
    assert p.game.sector(2).played and p.game.sector(2).result == "experts"
    assert p.game.round.phase == "closed" and p.game.prizes == []


def test_incorrect_verdict_gives_viewers_a_point_and_the_author_the_prize():
    p = Play(sectors=[{"number": 2, "questions": q(amount=1500)}])
    p.round(2, False)
    assert p.score == (0, 1)
    assert p.game.prizes == [{"sector": 2, "author": {"name": "Иван Петров", "city": "Харьков", "photo": None},
                              "amount": 1500, "currency": "UAH"}]


def test_paper_envelope_loss_records_no_prize():
    p = Play()
    p.round(3, False)
    assert p.score == (0, 1) and p.game.prizes == []


def test_verdict_during_the_minute_stops_the_timer():
    p = Play()
    p.do("spin", landed=1)
    p.do("start_timer")
    p.do("judge", correct=True)
    assert p.game.timer is None and p.score == (1, 0)


def test_judge_needs_the_question_read_and_a_round():
    p = Play()
    assert p.refused("judge", correct=True) == "no_round"
    p.do("spin", landed=1)
    assert p.refused("judge", correct=True) == "wrong_phase"


def test_game_ends_at_target_and_then_refuses_everything():
    p = Play(target=2)
    p.round(1, True)
    p.round(2, True)
    assert p.game.status == "finished" and p.game.winner == "experts"
    for kind, fields in [("spin", {}), ("request_decisive_round", {})]:
        assert p.refused(kind, **fields) == "game_over"


def test_viewers_can_win():
    p = Play(target=2)
    p.round(1, False)
    p.round(2, False)
    assert p.game.winner == "viewers" and p.score == (0, 2)


# blitz and superblitz ----------------------------------------------------------------------------

def test_blitz_three_correct_answers_win_the_sector():
    p = blitz_game()
    p.do("spin", landed=4)
    assert p.game.round.questions == 3
    for i in range(3):
        assert p.game.round.question == i
        assert p.do("start_timer")[0]["duration_ms"] == 20_000
        p.time_up()
        events = p.do("judge", correct=True)
    assert events[-1] == {"type": "round_closed", "result": "experts"}
    assert p.score == (1, 0) and p.game.round.results == ["correct"] * 3


def test_blitz_first_wrong_answer_ends_the_sector():
    p = blitz_game()
    p.do("spin", landed=4)
    p.do("start_timer")
    p.do("judge", correct=True)
    p.do("start_timer")
    p.do("judge", correct=False)
    assert p.score == (0, 1) and p.game.round.phase == "closed"
    assert p.game.round.results == ["correct", "incorrect"]
    assert p.game.prizes[0]["amount"] == 500 and len(p.game.prizes) == 1


def test_blitz_correct_answer_moves_to_next_question_reading():
    p = blitz_game()
    p.do("spin", landed=4)
    p.do("start_timer")
    events = p.do("judge", correct=True)
    assert events[-1] == {"type": "next_question", "question": 1}
    assert p.game.phase == "reading" and p.game.timer is None


def test_superblitz_needs_a_named_player_before_the_first_question():
    p = blitz_game("superblitz")
    p.do("spin", landed=4)
    assert p.refused("start_timer") == "player_not_chosen"
    assert p.refused("choose_player", player="Незнакомец") == "unknown_player"
    p.do("choose_player", player="Борис")
    assert p.game.round.player == "Борис"
    p.do("start_timer")
    assert p.refused("choose_player", player="Вера") == "wrong_phase"
    p.do("judge", correct=True)
    assert p.game.phase == "reading"
    assert p.refused("choose_player", player="Вера") == "player_choice_closed"


def test_choose_player_only_in_superblitz():
    p = blitz_game()
    p.do("spin", landed=4)
    assert p.refused("choose_player", player="Анна") == "not_superblitz"


def test_no_early_answer_in_blitz():
    p = blitz_game()
    p.do("spin", landed=4)
    assert p.refused("early_answer") == "early_answer_unavailable"


# early answer and extra minute -------------------------------------------------------------------

def test_correct_early_answer_banks_an_extra_minute():
    p = Play()
    p.do("spin", landed=1)
    p.do("early_answer")
    assert p.game.phase == "answer" and p.game.round.early
    p.do("judge", correct=True)
    assert p.game.extra_minutes == 1 and p.score == (1, 0)


def test_wrong_early_answer_banks_nothing():
    p = Play()
    p.do("spin", landed=1)
    p.do("early_answer")
    p.do("judge", correct=False)
    assert p.game.extra_minutes == 0


def test_early_answer_only_before_the_minute():
    p = Play()
    p.do("spin", landed=1)
    p.do("start_timer")
    assert p.refused("early_answer") == "wrong_phase"


def _banked() -> Play:
    p = Play()
    p.do("spin", landed=1)
    p.do("early_answer")
    p.do("judge", correct=True)
    return p


def test_extra_minute_after_the_minute_starts_sixty_seconds_more():
    p = _banked()
    p.do("spin", landed=2)
    p.do("start_timer")
    p.time_up()
    p.do("extra_minute")
    assert p.game.phase == "discussion" and p.game.timer.kind == "extra_minute"
    assert p.game.timer.ends_at == p.now + 60_000 and p.game.extra_minutes == 0
    p.time_up()
    assert p.game.phase == "answer"


def test_extra_minute_during_the_minute_extends_it():
    p = _banked()
    p.do("spin", landed=2)
    p.do("start_timer")
    ends = p.game.timer.ends_at
    p.do("extra_minute")
    assert p.game.timer.ends_at == ends + 60_000 and p.game.timer.duration_ms == 120_000


def test_extra_minute_once_per_question_and_only_when_banked():
    p = Play()
    p.do("spin", landed=1)
    p.do("start_timer")
    assert p.refused("extra_minute") == "extra_minute_unavailable"
    p2 = _banked()
    p2.game.extra_minutes = 2
    p2.do("spin", landed=2)
    p2.do("start_timer")
    p2.do("extra_minute")
    assert p2.refused("extra_minute") == "extra_minute_unavailable"


# club help -----------------------------------------------------------------------------------------

def test_club_help_only_when_behind_and_after_the_minute():
    p = Play()
    p.round(1, False)
    p.do("spin", landed=2)
    assert p.refused("club_help") == "wrong_phase"
    p.do("start_timer")
    assert p.refused("club_help") == "wrong_phase"
    p.time_up()
    p.do("club_help")
    assert p.game.phase == "club_help" and p.game.timer.duration_ms == 20_000
    p.time_up()
    assert p.game.phase == "answer"
    p.do("judge", correct=True)
    assert p.score == (1, 1)


def test_club_help_refused_when_not_behind():
    p = Play()
    p.do("spin", landed=2)
    p.do("start_timer")
    p.time_up()
    assert p.refused("club_help") == "club_help_unavailable"


def test_club_help_once_per_game():
    p = Play()
    p.round(1, False)
    p.round(2, False)
    p.do("spin", landed=3)
    p.do("start_timer")
    p.time_up()
    p.do("club_help")
    p.time_up()
    p.do("judge", correct=False)
    p.do("spin", landed=4)
    p.do("start_timer")
    p.time_up()
    assert p.refused("club_help") == "club_help_unavailable"


# decisive round -------------------------------------------------------------------------------

def five_points() -> Play:
    p = Play(experts={"name": "К", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"], "captain": "Анна"})
    for n in range(1, 6):
        p.round(n, True)
    return p


def test_decisive_round_needs_exactly_five():
    p = Play()
    assert p.refused("request_decisive_round") == "decisive_round_unavailable"


def test_decisive_round_granted_resets_score_and_wins_six():
    p = five_points()
    p.round(6, False)
    p.do("request_decisive_round")
    assert p.refused("spin") == "decisive_round_pending"
    assert p.refused("decide_decisive_round", granted=True, players=["Анна", "Борис"]) == "decisive_players"
    p.do("decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    assert p.score == (0, 0) and p.game.decisive["active"]
    p.round(7, True)
    assert p.score == (6, 0) and p.game.winner == "experts"


def test_decisive_round_lost_is_six_to_viewers():
    p = five_points()
    p.do("request_decisive_round")
    p.do("decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    p.round(7, False)
    assert p.score == (0, 6) and p.game.winner == "viewers"


def test_decisive_round_refused_play_goes_on():
    p = five_points()
    p.do("request_decisive_round")
    p.do("decide_decisive_round", granted=False)
    assert p.score == (5, 0) and not p.game.decisive["active"]
    p.do("spin", landed=8)
    assert p.game.round.sector == 8


def test_no_extra_minute_or_club_help_in_decisive_round():
    p = five_points()
    p.game.extra_minutes = 1
    p.do("request_decisive_round")
    p.do("decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    p.do("spin", landed=7)
    p.do("start_timer")
    p.time_up()
    assert p.refused("extra_minute") == "extra_minute_unavailable"
    assert p.refused("club_help") == "club_help_unavailable"


def test_decide_without_request_refused():
    p = five_points()
    assert p.refused("decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"]) == "no_decisive_request"


# rule sets -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["early_answer", "extra_minute", "club_help", "request_decisive_round"])
def test_tv_options_refused_in_club_game(kind):
    p = Play(rules="club", game_day="d1", teams=[{"id": "a", "name": "A", "players": ["x"]},
                                                  {"id": "b", "name": "B", "players": ["y"]}])
    p.do("seat_team", team="a")
    p.do("spin", landed=1)
    assert p.refused(kind) == "tv_only"


def test_club_commands_refused_in_tv_game():
    p = Play()
    assert p.refused("seat_team", team="a") == "club_only"


def test_allowed_moves_name_the_rule_that_forbids_each_command():
    from overlay.rules.game import allowed_moves
    p = Play()
    moves = allowed_moves(p.game, p.now)
    assert moves["spin"] == {"ok": True}
    assert moves["judge"]["code"] == "no_round" and moves["seat_team"]["code"] == "club_only"
    p.do("spin", landed=1)
    moves = allowed_moves(p.game, p.now)
    assert moves["start_timer"]["ok"] and moves["early_answer"]["ok"] and not moves["spin"]["ok"]
    assert moves["extra_minute"]["code"] == "wrong_phase"
    assert p.game.round.phase == "reading" and p.game.timer is None  # asking changed nothing
