"""The «Star Wars» series: duels, the final series, operator overrides (RULES.md §4)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from overlay.rules.errors import InputError, RuleError
from overlay.rules.series import FINAL, Basis, Decision, Override, duel_scope, series_outcome
from overlay.rules.standings import GameResult, margin


def g(gid, team, experts, viewers, played_at, finished=True):
    return GameResult(gid, team, experts, viewers, played_at, finished)


def test_duel_winner_advances_and_final_best_score_wins():
    duels = [
        (g("1", "Актёры", 6, 3, 1), g("2", "Спортсмены", 6, 1, 2)),
        (g("3", "Политики", 4, 6, 3), g("4", "Музыканты", 2, 6, 4)),
    ]
    final = [g("5", "Спортсмены", 6, 4, 5), g("6", "Политики", 6, 2, 6)]
    out = series_outcome(duels, final)
    assert out.advancing == ("Спортсмены", "Политики")
    assert out.winner == "Политики"
    assert out.decided_by[duel_scope(1)].basis is Basis.MARGIN
    assert out.decided_by[FINAL].basis is Basis.MARGIN


def test_loser_with_smaller_defeat_advances():
    out = series_outcome([(g("1", "A", 5, 6, 1), g("2", "B", 3, 6, 2))], [])
    assert out.advancing == ("A",)
    assert out.winner is None


def test_duel_tie_goes_to_the_later_game():
    out = series_outcome([(g("1", "A", 6, 2, 10), g("2", "B", 6, 2, 3))], [])
    assert out.advancing == ("A",)
    assert out.decided_by["duel:1"].basis is Basis.LATER_GAME


def test_final_tie_goes_to_the_team_that_won_later():
    final = [g("5", "A", 6, 2, 5), g("6", "B", 6, 2, 6), g("7", "C", 6, 3, 7)]
    out = series_outcome([], final)
    assert out.winner == "B"
    assert out.decided_by[FINAL].basis is Basis.LATER_GAME


def test_unfinished_duel_has_no_advancing_team():
    duels = [(g("1", "A", 6, 2, 1), g("2", "B", 3, 1, 2, finished=False)),
             (g("3", "C", 6, 0, 3), g("4", "D", 1, 6, 4))]
    out = series_outcome(duels, [])
    assert out.advancing == ("C",)
    assert out.decided_by["duel:1"] == Decision("duel:1", None, Basis.PENDING)


def test_winner_waits_for_every_final_game():
    final = [g("5", "A", 6, 0, 5), g("6", "B", 0, 0, 6, finished=False)]
    assert series_outcome([], final).winner is None
    assert series_outcome([], []).winner is None


def test_override_decides_a_duel_and_is_recorded():
    duels = [(g("1", "A", 6, 2, 1), g("2", "B", 6, 2, 2))]
    o = Override("duel:1", "A", "B's game restarted after a technical fault")
    out = series_outcome(duels, [], [o])
    assert out.advancing == ("A",)
    d = out.decided_by["duel:1"]
    assert d.basis is Basis.OVERRIDE and d.reason == o.reason


def test_override_waits_until_the_scope_is_played():
    final = [g("5", "A", 6, 1, 5), g("6", "B", 2, 2, 6, finished=False)]
    o = Override(FINAL, "B", "jury decision")
    assert series_outcome([], final, [o]).winner is None
    final[1] = g("6", "B", 6, 2, 6)
    assert series_outcome([], final, [o]).winner == "B"


def test_undecidable_tie_needs_the_operator():
    duels = [(g("1", "A", 6, 2, 4), g("2", "B", 6, 2, 4))]
    with pytest.raises(RuleError):
        series_outcome(duels, [])
    out = series_outcome(duels, [], [Override("duel:1", "B", "drawn by the top")])
    assert out.advancing == ("B",)


@pytest.mark.parametrize("override,code", [
    (Override("duel:9", "A", "x"), "series.override_scope"),
    (Override("duel:1", "Z", "x"), "series.override_winner"),
    (Override("duel:1", "A", "  "), "series.override_reason"),
])
def test_bad_override_refused(override, code):
    with pytest.raises(InputError) as e:
        series_outcome([(g("1", "A", 6, 2, 1), g("2", "B", 6, 3, 2))], [], [override])
    assert e.value.code == code


def test_two_overrides_for_one_scope_refused():
    duels = [(g("1", "A", 6, 2, 1), g("2", "B", 6, 3, 2))]
    with pytest.raises(InputError):
        series_outcome(duels, [], [Override("duel:1", "A", "x"), Override("duel:1", "B", "y")])


def test_malformed_series_refused():
    with pytest.raises(InputError):  # a team in two duels
        series_outcome([(g("1", "A", 6, 2, 1), g("2", "B", 6, 3, 2)),
                        (g("3", "A", 6, 2, 3), g("4", "C", 6, 3, 4))], [])
    with pytest.raises(InputError):  # one game in two places
        series_outcome([(g("1", "A", 6, 2, 1), g("2", "B", 6, 3, 2))], [g("1", "A", 6, 2, 1)])
    with pytest.raises(InputError):  # a duel of three
        series_outcome([(g("1", "A", 6, 2, 1), g("2", "B", 6, 3, 2), g("3", "C", 6, 3, 3))], [])


# --- properties --------------------------------------------------------------------------------

score = st.one_of(st.tuples(st.just(6), st.integers(0, 5)), st.tuples(st.integers(0, 5), st.just(6)))


@st.composite
def series(draw):
    n_duels = draw(st.integers(0, 4))
    n_final = draw(st.integers(0, 4))
    orders = draw(st.lists(st.integers(0, 10_000), min_size=2 * n_duels + n_final,
                           max_size=2 * n_duels + n_final, unique=True))
    games = []
    for i, at in enumerate(orders):
        finished = draw(st.booleans()) or draw(st.booleans())  # mostly finished
        e, v = draw(score) if finished else (draw(st.integers(0, 5)), draw(st.integers(0, 5)))
        games.append(g(f"g{i}", f"T{i}", e, v, at, finished))
    duels = [(games[2 * i], games[2 * i + 1]) for i in range(n_duels)]
    final = games[2 * n_duels:]
    overrides = []
    scopes = [(duel_scope(i + 1), list(d)) for i, d in enumerate(duels)] + [(FINAL, final)]
    for scope, gs in scopes:
        if gs and draw(st.booleans()):
            overrides.append(Override(scope, draw(st.sampled_from(gs)).team, "operator"))
    return duels, final, overrides


@given(series())
def test_series_winner_is_a_team_of_the_final(s):
    duels, final, overrides = s
    out = series_outcome(duels, final, overrides)
    assert out.winner is None or out.winner in {x.team for x in final}
    all_done = bool(final) and all(x.finished for x in final)
    assert (out.winner is not None) == all_done


@given(series())
def test_each_decided_duel_advances_one_of_its_teams(s):
    duels, final, overrides = s
    out = series_outcome(duels, final, overrides)
    overridden = {o.scope for o in overrides}
    expected = []
    for i, (a, b) in enumerate(duels, start=1):
        d = out.decided_by[duel_scope(i)]
        if not (a.finished and b.finished):
            assert d.winner is None
            continue
        assert d.winner in (a.team, b.team)
        expected.append(d.winner)
        if duel_scope(i) not in overridden:
            win, lose = (a, b) if d.winner == a.team else (b, a)
            assert margin(win) >= margin(lose)
    assert list(out.advancing) == expected
