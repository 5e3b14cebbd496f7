"""RULES.md §4: better score = larger margin; a win beats a loss; ties to the later game."""
from functools import reduce

import pytest
from hypothesis import given
from hypothesis import strategies as st

from overlay.rules.errors import InputError, RuleError
from overlay.rules.standings import GameResult, better, margin, ranking, sort_key, won


def res(gid, experts, viewers, played_at, team=None, finished=True):
    return GameResult(gid, team or f"team-{gid}", experts, viewers, played_at, finished)


def test_margin_is_experts_minus_viewers():
    assert margin(res("a", 6, 1, 1)) == 5
    assert margin(res("b", 3, 6, 1)) == -3


def test_six_one_beats_six_three():
    a, b = res("a", 6, 1, 1), res("b", 6, 3, 2)
    assert better(a, b) is a
    assert better(b, a) is a


def test_five_six_beats_three_six():
    a, b = res("a", 5, 6, 2), res("b", 3, 6, 1)
    assert better(a, b) is a
    assert better(b, a) is a


def test_narrowest_win_beats_narrowest_loss():
    win, loss = res("w", 6, 5, 1), res("l", 5, 6, 2)
    assert better(win, loss) is win
    assert better(loss, win) is win


def test_decisive_round_scores_compare_like_any_other():
    assert better(res("a", 6, 0, 1), res("b", 6, 1, 2)).game_id == "a"
    assert better(res("a", 0, 6, 2), res("b", 1, 6, 1)).game_id == "b"


@pytest.mark.parametrize("first,second", [((6, 2), (6, 2)), ((4, 6), (4, 6))])
def test_equal_margin_goes_to_the_later_game(first, second):
    early, late = res("early", *first, 1), res("late", *second, 7)
    assert better(early, late) is late
    assert better(late, early) is late


def test_same_game_is_its_own_better():
    a = res("a", 6, 2, 1)
    assert better(a, a) is a


def test_same_margin_same_order_cannot_be_decided():
    with pytest.raises(RuleError) as e:
        better(res("a", 6, 2, 3), res("b", 6, 2, 3))
    assert e.value.code == "standings.undecided_tie"


def test_finished_game_must_have_a_winner():
    with pytest.raises(InputError):
        res("a", 3, 3, 1)
    assert not won(res("a", 3, 3, 1, finished=False))  # a running game may stand level


def test_negative_score_refused():
    with pytest.raises(InputError):
        res("a", -1, 6, 1)


def test_ranking_best_first():
    games = [res("a", 3, 6, 1), res("b", 6, 3, 2), res("c", 6, 1, 3), res("d", 6, 3, 4)]
    assert [g.game_id for g in ranking(games)] == ["c", "d", "b", "a"]


def test_ranking_refuses_undecidable_tie():
    with pytest.raises(RuleError):
        ranking([res("a", 6, 2, 3), res("b", 6, 2, 3), res("c", 6, 0, 1)])


# --- properties --------------------------------------------------------------------------------

wins = st.tuples(st.just(6), st.integers(0, 5))
losses = st.tuples(st.integers(0, 5), st.just(6))
scores = st.one_of(wins, losses)


@st.composite
def results(draw, n=3):
    orders = draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n, unique=True))
    return [res(f"g{i}", *draw(scores), orders[i]) for i in range(n)]


@given(results())
def test_better_is_a_total_order_consistent_with_margin(rs):
    a, b, c = rs
    assert better(a, b) in (a, b)
    assert better(a, b) is better(b, a)
    if margin(a) != margin(b):
        assert better(a, b) is (a if margin(a) > margin(b) else b)
    else:
        assert better(a, b) is (a if a.played_at > b.played_at else b)
    if better(a, b) is a and better(b, c) is b:
        assert better(a, c) is a


@given(wins, losses, st.integers(), st.integers())
def test_any_win_beats_any_loss(w, l, tw, tl):
    if tw == tl:
        tl += 1
    win, loss = res("w", *w, tw), res("l", *l, tl)
    assert won(win) and not won(loss)
    assert better(win, loss) is win and better(loss, win) is win


@given(results(n=6))
def test_ranking_head_is_the_fold_of_better(rs):
    ranked = ranking(rs)
    assert ranked[0] is reduce(better, rs)
    assert [sort_key(r) for r in ranked] == sorted(map(sort_key, rs), reverse=True)
