"""The club game (RULES.md §5): the Central Table seat, candidates, club tables, rating."""
import pytest

from overlay.rules import InputError, club

from .helpers import Play

TEAMS = [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"Игрок {i}{c}" for c in "абвгде"]} for i in range(1, 6)]


def club_game(**kw) -> Play:
    return Play(rules="club", game_day="2026-03-01-sun", teams=TEAMS, **kw)


def lose(p: Play, club_correct=()) -> None:
    """The Central Table team answers wrongly; the club tables in `club_correct` write it right."""
    n = next(s.number for s in p.game.sectors if not s.played)
    p.do("spin", landed=n)
    p.do("start_timer")
    p.do("judge", correct=False)
    p.do("club_answers", correct=list(club_correct))


def win(p: Play, club_correct=()) -> None:
    n = next(s.number for s in p.game.sectors if not s.played)
    p.do("spin", landed=n)
    p.do("start_timer")
    p.do("judge", correct=True)
    p.do("club_answers", correct=list(club_correct))


def test_club_game_has_no_sponsor_sector():
    assert {s.kind for s in club_game().game.sectors} == {"regular"}


def test_no_round_with_the_central_table_empty():
    p = club_game()
    assert p.refused("spin") == "central_table_empty"


def test_first_team_by_operator_or_draw_among_all():
    p = club_game()
    assert club.candidates(p.game) == ["t1", "t2", "t3", "t4", "t5"]
    p.draws = ["t4"]
    events = p.do("seat_team")
    assert events == [{"type": "team_seated", "team": "t4", "drawn": True,
                       "candidates": ["t1", "t2", "t3", "t4", "t5"]}]
    assert p.game.central_team == "t4" and p.game.seated == ["t4"]
    assert p.refused("seat_team", team="t1") == "seat_taken"


def test_correct_answer_keeps_the_team_and_counts_twice():
    p = club_game()
    p.do("seat_team", team="t1")
    win(p, ["t2", "t3"])
    assert p.game.central_team == "t1" and p.score == (1, 0)
    t1, t2, t4 = p.game.team("t1"), p.game.team("t2"), p.game.team("t4")
    assert (t1.correct, t1.central_correct) == (1, 1)
    assert (t2.correct, t2.central_correct) == (1, 0) and t4.correct == 0


def test_lost_round_seats_one_of_those_who_answered_correctly():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, ["t3", "t5"])
    assert p.game.central_team is None and p.game.team("t1").lost_round
    assert club.candidates(p.game) == ["t3", "t5"]
    assert p.refused("seat_team", team="t2") == "not_a_candidate"
    assert p.refused("seat_team", team="t1") == "not_a_candidate"
    p.draws = ["t5"]
    assert p.do("seat_team")[0]["team"] == "t5"


def test_a_single_candidate_sits_without_a_draw():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, ["t2"])
    assert p.do("seat_team")[0] == {"type": "team_seated", "team": "t2", "drawn": False, "candidates": ["t2"]}


def test_nobody_answered_correctly_all_eligible_are_candidates():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, [])
    assert club.candidates(p.game) == ["t2", "t3", "t4", "t5"]


def test_team_that_lost_before_is_not_a_candidate_even_if_it_answered():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, ["t2"])
    p.do("seat_team", team="t2")
    lose(p, ["t1", "t3"])
    assert club.candidates(p.game) == ["t3"]


def test_seat_needs_the_club_answers_after_a_lost_round():
    p = club_game()
    p.do("seat_team", team="t1")
    p.do("spin", landed=1)
    p.do("start_timer")
    p.do("judge", correct=False)
    assert club.candidates(p.game) == []  # unknown until the club tables' answers are in
    assert p.refused("seat_team") == "club_answers_missing"


def test_experts_on_five_reopen_the_seat_but_not_for_the_team_that_just_left():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, ["t2"])
    p.do("seat_team", team="t2")
    for _ in range(5):
        win(p)
    assert p.score == (5, 1)
    lose(p, ["t1"])
    assert club.candidates(p.game) == ["t1"]  # lost before, but the experts have 5 points
    assert p.refused("seat_team", team="t2") == "not_a_candidate"


def test_every_team_lost_reopens_the_seat():
    p = Play(rules="club", game_day="d", teams=TEAMS[:2])
    p.do("seat_team", team="t1")
    lose(p)
    p.do("seat_team", team="t2")
    lose(p)
    assert all(t.lost_round for t in p.game.teams)
    assert club.candidates(p.game) == ["t1"]


def test_lost_rounds_carried_from_earlier_games_of_the_game_day():
    p = club_game(lost_before=["t1", "t2"])
    assert club.candidates(p.game) == ["t3", "t4", "t5"]


def test_central_table_team_never_writes():
    p = club_game()
    p.do("seat_team", team="t1")
    p.do("spin", landed=1)
    assert p.refused("club_answers", correct=["t1", "t2"]) == "central_table_answers_aloud"
    with pytest.raises(InputError):
        p.do("club_answers", correct=["t9"])


def test_club_answers_correction_replaces_the_earlier_list():
    p = club_game()
    p.do("seat_team", team="t1")
    p.do("spin", landed=1)
    p.do("club_answers", correct=["t2", "t3"])
    p.do("club_answers", correct=["t3"])
    assert p.game.team("t2").correct == 0 and p.game.team("t3").correct == 1


def test_club_answers_before_any_spin_refused():
    p = club_game()
    assert p.refused("club_answers", correct=["t2"]) == "no_round"


def test_best_player_after_the_experts_win_from_those_who_sat():
    p = club_game()
    p.do("seat_team", team="t1")
    lose(p, ["t2"])
    p.do("seat_team", team="t2")
    assert p.refused("best_player", player="Игрок 2а") == "best_player_unavailable"
    for _ in range(5):
        win(p)
    p.do("spin", landed=next(s.number for s in p.game.sectors if not s.played))
    p.do("start_timer")
    p.do("judge", correct=True)
    assert p.game.winner == "experts"
    p.do("club_answers", correct=["t3"])  # the last question's written answers still count
    assert p.refused("best_player", player="Игрок 3а") == "not_at_central_table"
    p.do("best_player", player="Игрок 1б")  # sat at the Central Table earlier in this game
    assert p.game.best_player == "Игрок 1б"
    assert p.refused("seat_team") == "game_over"


def test_nobody_is_named_when_viewers_win():
    p = Play(rules="club", game_day="d", teams=TEAMS[:2], target=1)
    p.do("seat_team", team="t1")
    lose(p)
    assert p.game.winner == "viewers"
    assert p.refused("best_player", player="Игрок 1а") == "best_player_unavailable"


def test_rating_gain_is_correct_plus_central_correct():
    p = club_game()
    p.do("seat_team", team="t1")
    win(p, ["t2"])
    win(p, ["t2", "t3"])
    t1 = p.game.team("t1")
    assert t1.correct + t1.central_correct == 4
    assert p.game.team("t2").correct == 2 and p.game.team("t3").correct == 1
