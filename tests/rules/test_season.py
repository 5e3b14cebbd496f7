"""The club league season (RULES.md §5 rating, §6; seed 004)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from overlay.rules.errors import InputError, RuleError
from overlay.rules.season import (
    INVITE_EXTRA, MAX_CLAIMS, MIN_TEAM, TEAM_SIZE, AdminChoice, Basis, BestPlayerNamed, Pending,
    Player, RatingAdjustment, RatingRow, Stage, TeamGameRecord, TeamRegistration, best_players,
    final_outcome, form_teams, individual_rating, propose_final_teams)
from overlay.rules.standings import GameResult, better

Q, F = Stage.QUALIFYING, Stage.FINAL


def P(name, mid=None):
    return Player(name, mid)


def rec(game, day, team, lineup, correct, central, stage=Q, holding="sun"):
    return TeamGameRecord(game, day, holding, stage, team, tuple(lineup), correct, central)


# --- players -----------------------------------------------------------------------------------

def test_player_identity_by_member_id_else_name():
    assert P("Иванов", 7) == P("Иванов Иван", 7)
    assert P("Иванов", 7) != P("Иванов", 8)
    assert P("Анна  Петрова") == P(" анна петрова ")
    assert P("Анна", 3) != P("Анна")
    assert len({P("Анна"), P("АННА")}) == 1
    with pytest.raises(InputError):
        P("  ")


# --- individual rating -------------------------------------------------------------------------

ann, boris, vera, gleb = P("Анна", 1), P("Борис", 2), P("Вера", 3), P("Глеб")


def test_central_table_answer_is_worth_two():
    # 5 correct, 3 of them at the Central Table: 5 + 3 = 8 for every player of the line-up
    rows = individual_rating([rec("g1", 1, "Сфинкс", [ann, boris], 5, 3),
                              rec("g1", 1, "Сова", [vera], 4, 0)])
    assert [(r.player, r.points, r.games) for r in rows] == [(ann, 8, 1), (boris, 8, 1), (vera, 4, 1)]
    assert [r.place for r in rows] == [1, 1, 3]


def test_rating_sums_qualifying_games_only_and_tracks_progression():
    records = [
        rec("g1", 1, "X", [ann, gleb], 4, 1),
        rec("g2", 1, "Y", [ann], 2, 0, holding="wed"),
        rec("g3", 3, "X", [ann, boris], 6, 6),
        rec("fin", 6, "Клуб", [ann, boris], 10, 5, stage=F),
    ]
    rows = {r.player.key: r for r in individual_rating(records, game_days=5)}
    assert rows[ann.key].points == 5 + 2 + 12 and rows[ann.key].games == 3
    assert rows[ann.key].progression == (7, 7, 19, 19, 19)
    assert rows[boris.key].progression == (0, 0, 12, 12, 12)
    assert rows[P("глеб").key].points == 5  # identified by name


def test_rating_adjustment_is_counted_and_shown():
    rows = individual_rating([rec("g1", 1, "X", [ann], 3, 0)],
                             adjustments=[RatingAdjustment(ann, 2, 2, "answer accepted on appeal")])
    assert rows[0].points == 5 and rows[0].adjustment == 2 and rows[0].progression == (3, 5)
    with pytest.raises(InputError):
        RatingAdjustment(ann, 2, 2, "")


@pytest.mark.parametrize("records", [
    [rec("g1", 1, "X", [ann], 3, 0), rec("g1", 1, "Y", [ann], 2, 0)],   # one player, two teams
    [rec("g1", 1, "X", [ann], 3, 0), rec("g1", 2, "Y", [boris], 2, 0)],  # one game, two days
    [rec("g1", 1, "X", [ann], 3, 0), rec("g1", 1, "X", [boris], 2, 0)],  # a team twice
])
def test_inconsistent_records_refused(records):
    with pytest.raises(InputError):
        individual_rating(records)


def test_record_counts_checked():
    with pytest.raises(InputError):
        rec("g1", 1, "X", [ann], 2, 3)
    with pytest.raises(InputError):
        rec("g1", 1, "X", [ann, P("АННА", 1)], 2, 1)
    with pytest.raises(InputError):
        individual_rating([rec("g1", 6, "X", [ann], 2, 1)], game_days=5)


# --- best players ------------------------------------------------------------------------------

def test_best_players_collected_in_order_of_first_naming():
    named = [BestPlayerNamed("g3", 2, Q, boris), BestPlayerNamed("g1", 1, Q, ann),
             BestPlayerNamed("g2", 1, Q, P("Борис", 2)), BestPlayerNamed("fin", 6, F, vera)]
    rows = best_players(named)
    assert [(r.player, r.times, r.games) for r in rows] == [(ann, 1, ("g1",)), (boris, 2, ("g2", "g3"))]
    with pytest.raises(InputError):
        best_players([BestPlayerNamed("g1", 1, Q, ann), BestPlayerNamed("g1", 1, Q, boris)])


# --- final teams -------------------------------------------------------------------------------

def league(n):
    """n rated players p0..p(n-1) with strictly decreasing points."""
    players = [P(f"p{i}", i) for i in range(n)]
    rating = tuple(RatingRow(p, 100 - i, 3, i + 1, (100 - i,)) for i, p in enumerate(players))
    return players, rating


def keys(members):
    return [m.player.key for m in members]


def test_six_best_players_form_the_central_table_and_the_club_is_the_next_six():
    ps, rating = league(20)
    best = [ps[1], ps[3], ps[5], ps[7], ps[9], ps[11]]
    t = propose_final_teams(rating, best)
    assert keys(t.central_table) == [p.key for p in best]
    assert {m.rule for m in t.central_table} == {Basis.BEST_PLAYER}
    assert keys(t.club) == [p.key for p in (ps[0], ps[2], ps[4], ps[6], ps[8], ps[10])]
    assert {m.rule for m in t.club} == {Basis.RATING}
    assert t.free_places == 0 and t.invite == () and t.pending == ()


def test_fewer_best_players_proposes_a_fill_and_asks_the_administration():
    ps, rating = league(20)
    t = propose_final_teams(rating, [ps[4], ps[5], ps[6], ps[7]])
    assert [(m.player, m.rule) for m in t.central_table][4:] == [
        (ps[0], Basis.PROPOSED_FILL), (ps[1], Basis.PROPOSED_FILL)]
    assert t.pending == (Pending.CENTRAL_FILL,)
    assert keys(t.club) == [p.key for p in ps[2:4] + ps[8:12]]


def test_administration_fill_is_used():
    ps, rating = league(20)
    fill = AdminChoice((ps[15], P("Гость клуба")), "the administration's choice")
    t = propose_final_teams(rating, ps[4:8], central_fill=fill)
    assert [m.rule for m in t.central_table][4:] == [Basis.ADMIN_FILL] * 2
    assert t.pending == ()
    assert keys(t.club) == [p.key for p in ps[0:4] + ps[8:10]]
    with pytest.raises(RuleError):  # three is one too many
        propose_final_teams(rating, ps[4:8], central_fill=AdminChoice(tuple(ps[15:18]), "x"))
    with pytest.raises(RuleError):  # a fill is not a pick
        propose_final_teams(rating, ps[0:6], central_fill=AdminChoice((ps[15],), "x"))


def test_more_than_six_best_without_pick_proposes_six_highest_rated():
    ps, rating = league(20)
    best = [ps[9], ps[8], ps[7], ps[6], ps[5], ps[4], ps[3], ps[2]]
    t = propose_final_teams(rating, best)
    assert keys(t.central_table) == [p.key for p in ps[2:8]]
    assert {m.rule for m in t.central_table} == {Basis.PROPOSED_PICK}
    assert Pending.CENTRAL_PICK in t.pending
    with pytest.raises(RuleError):  # claims follow the pick
        propose_final_teams(rating, best, club_claims=AdminChoice((ps[9],), "claims"))


def test_extra_best_players_claim_club_places():
    ps, rating = league(20)
    best = ps[5:14]  # nine best players
    pick = AdminChoice(tuple(ps[8:14]), "the administration's six")
    claims = AdminChoice((ps[7], ps[5]), "both claimed a place")
    t = propose_final_teams(rating, best, central_pick=pick, club_claims=claims)
    assert {m.rule for m in t.central_table} == {Basis.ADMIN_PICK}
    assert [(m.player, m.rule) for m in t.club] == [
        (ps[7], Basis.CLAIM), (ps[5], Basis.CLAIM),
        (ps[0], Basis.RATING), (ps[1], Basis.RATING), (ps[2], Basis.RATING), (ps[3], Basis.RATING)]


def test_claims_limited_to_three_extra_best_players():
    ps, rating = league(20)
    pick = AdminChoice(tuple(ps[0:6]), "pick")
    with pytest.raises(RuleError):
        propose_final_teams(rating, ps[0:10], central_pick=pick,
                            club_claims=AdminChoice(tuple(ps[6:10]), "four claims"))
    with pytest.raises(RuleError):  # not an extra best player
        propose_final_teams(rating, ps[0:10], central_pick=pick,
                            club_claims=AdminChoice((ps[12],), "not a best player"))
    with pytest.raises(RuleError):  # a pick must come from the best players
        propose_final_teams(rating, ps[0:10], central_pick=AdminChoice(tuple(ps[4:10]) + (ps[12],), "x"))


def test_decline_frees_a_place_and_invites_two_more_than_free():
    ps, rating = league(20)
    best = ps[0:6]
    declined = AdminChoice((ps[7], ps[9]), "refused by phone")
    t = propose_final_teams(rating, best, declined=declined)
    assert keys(t.club) == [p.key for p in (ps[6], ps[8], ps[10], ps[11])]
    assert t.free_places == 2
    assert [p.key for p in t.invite] == [p.key for p in ps[12:16]]
    assert len(t.invite) == t.free_places + INVITE_EXTRA
    assert t.declined == declined.players


def test_declined_best_player_leaves_a_central_table_place_to_fill():
    ps, rating = league(20)
    t = propose_final_teams(rating, ps[0:6], declined=AdminChoice((ps[2],), "abroad"))
    assert [m.rule for m in t.central_table] == [Basis.BEST_PLAYER] * 5 + [Basis.PROPOSED_FILL]
    assert ps[2].key not in keys(t.central_table) + keys(t.club)
    assert t.pending == (Pending.CENTRAL_FILL,)


def test_invite_list_shrinks_when_the_league_is_small():
    ps, rating = league(13)
    t = propose_final_teams(rating, ps[0:6], declined=AdminChoice((ps[6],), "ill"))
    assert t.free_places == 1 and [p.key for p in t.invite] == [ps[12].key]


def test_rating_tie_at_the_club_cut_is_left_to_the_administration():
    ps, _ = league(14)
    points = [100] * 6 + [50, 40, 30, 30, 20, 10, 10, 5]
    rating = tuple(RatingRow(p, pts, 1, 0, (pts,)) for p, pts in zip(ps, points))
    t = propose_final_teams(rating, ps[0:6])  # club: 50 40 30 30 20 10 | 10 5
    assert Pending.RATING_TIE_CLUB in t.pending
    t = propose_final_teams(rating, ps[0:6], declined=AdminChoice((ps[6],), "x"))
    assert Pending.RATING_TIE_INVITE not in t.pending  # invite 10, 5: everyone left


def test_the_administration_breaks_the_tie_at_the_club_cut():
    ps, _ = league(14)
    points = [100] * 6 + [50, 40, 30, 30, 20, 10, 10, 5]
    rating = tuple(RatingRow(p, pts, 1, 0, (pts,)) for p, pts in zip(ps, points))
    t = propose_final_teams(rating, ps[0:6], club_tie=AdminChoice((ps[12],), "draw"))
    assert keys(t.club) == [p.key for p in ps[6:11]] + [ps[12].key]
    assert t.club[-1].rule is Basis.TIE_DECISION and Pending.RATING_TIE_CLUB not in t.pending
    # the tied player left out heads the invite list when a place is declined
    t = propose_final_teams(rating, ps[0:6], club_tie=AdminChoice((ps[12],), "draw"),
                            declined=AdminChoice((ps[6],), "ill"))
    assert [p.key for p in t.invite] == [ps[11].key, ps[13].key]
    with pytest.raises(RuleError) as e:
        propose_final_teams(rating, ps[0:6], club_tie=AdminChoice((ps[11], ps[12]), "draw"))
    assert e.value.code == "season.club_tie_count" and e.value.values["n"] == 1
    with pytest.raises(RuleError) as e:
        propose_final_teams(rating, ps[0:6], club_tie=AdminChoice((ps[13],), "draw"))
    assert e.value.code == "season.club_tie_not_tied"
    ps, rating = league(20)
    with pytest.raises(RuleError) as e:
        propose_final_teams(rating, ps[0:6], club_tie=AdminChoice((ps[12],), "draw"))
    assert e.value.code == "season.club_tie_none"


# --- final teams: properties -------------------------------------------------------------------

@st.composite
def final_inputs(draw):
    n = draw(st.integers(0, 30))
    ps = [P(f"p{i}", i) for i in range(n)]
    pts = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    rating = tuple(RatingRow(p, x, 1, 0, (x,)) for p, x in zip(ps, pts))
    best = draw(st.permutations(ps).map(lambda xs: xs[:draw(st.integers(0, min(12, n)))]))
    declined = draw(st.lists(st.sampled_from(ps), unique=True, max_size=4)) if ps else []
    out = {p.key for p in declined}
    available = [p for p in best if p.key not in out]
    pick = fill = claims = None
    if len(available) > TEAM_SIZE and draw(st.booleans()):
        chosen = draw(st.permutations(available))[:TEAM_SIZE]
        pick = AdminChoice(tuple(chosen), "pick")
        extras = [p for p in available if p not in chosen]
        claims = AdminChoice(tuple(draw(st.permutations(extras))[:draw(st.integers(0, MAX_CLAIMS))]),
                             "claims")
    need = TEAM_SIZE - len(available)
    others = [p for p in ps if p not in best and p.key not in out]
    if 0 < need <= len(others) and draw(st.booleans()):
        fill = AdminChoice(tuple(draw(st.permutations(others))[:need]), "fill")
    return rating, best, pick, fill, claims, (AdminChoice(tuple(declined), "declined") if declined else None)


@given(final_inputs())
def test_final_teams_invariants(inp):
    rating, best, pick, fill, claims, declined = inp
    t = propose_final_teams(rating, best, central_pick=pick, central_fill=fill,
                            club_claims=claims, declined=declined)
    ct, club = keys(t.central_table), keys(t.club)
    assert len(ct) <= TEAM_SIZE and len(club) <= TEAM_SIZE
    assert len(set(ct)) == len(ct) and len(set(club)) == len(club)
    assert not set(ct) & set(club)
    assert sum(m.rule is Basis.CLAIM for m in t.club) <= MAX_CLAIMS
    out = {p.key for p in t.declined}
    assert not out & (set(ct) | set(club) | {p.key for p in t.invite})
    assert not {p.key for p in t.invite} & (set(ct) | set(club))
    best_keys = {p.key for p in best}
    for m in t.central_table:
        assert (m.player.key in best_keys) == (m.rule not in (Basis.ADMIN_FILL, Basis.PROPOSED_FILL))
    assert t.free_places == TEAM_SIZE - len(club)
    rated_left = [r for r in rating if r.player.key not in set(ct) | set(club) | out]
    if t.free_places:
        assert len(t.invite) == min(t.free_places + INVITE_EXTRA, len(rated_left))
    else:
        assert t.invite == ()
    # no player left out of the Club team by rating outranks one taken by rating
    taken = [m.points for m in t.club if m.rule is Basis.RATING]
    if taken and rated_left:
        assert min(taken) >= max(r.points for r in rated_left)


@given(st.integers(18, 30), st.integers(1, 4))  # 6 + 6 + (4 + 2) players suffice
def test_invite_size_is_free_places_plus_two_when_enough_players(n, k):
    ps, rating = league(n)
    t = propose_final_teams(rating, ps[0:6], declined=AdminChoice(tuple(ps[6:6 + k]), "declined"))
    assert t.free_places == k
    assert len(t.invite) == k + INVITE_EXTRA
    assert [p.key for p in t.invite] == [p.key for p in ps[12:12 + k + INVITE_EXTRA]]


# --- team formation ----------------------------------------------------------------------------

def people(prefix, n):
    return [P(f"{prefix}{i}") for i in range(n)]


def test_preformed_team_filled_from_earliest_individuals_and_rest_balanced():
    team = TeamRegistration("Ростральные колонны", tuple(people("r", 6)), absent=tuple(people("r", 2)))
    solo = people("i", 12)
    f = form_teams([team], solo)
    first = f.teams[0]
    assert first.name == "Ростральные колонны" and first.preformed
    assert first.fillers == tuple(solo[:2])
    assert first.players == tuple(people("r", 6)[2:]) + tuple(solo[:2])
    assert [len(t.players) for t in f.teams[1:]] == [5, 5]
    assert [t.players for t in f.teams[1:]] == [tuple(solo[2:7]), tuple(solo[7:12])]
    assert f.unplaced == () and f.short == ()


@pytest.mark.parametrize("n,sizes,left", [
    (0, [], 0), (3, [], 3), (4, [4], 0), (6, [6], 0), (7, [6], 1), (8, [4, 4], 0),
    (12, [6, 6], 0), (13, [5, 4, 4], 0), (19, [5, 5, 5, 4], 0),
])
def test_individuals_form_balanced_teams(n, sizes, left):
    solo = people("i", n)
    f = form_teams([], solo)
    assert [len(t.players) for t in f.teams] == sizes
    assert f.unplaced == tuple(solo[n - left:])


def test_preformed_team_left_short_when_no_individuals():
    team = TeamRegistration("Сова", tuple(people("s", 6)), absent=tuple(people("s", 3)))
    f = form_teams([team], [P("x")])
    assert len(f.teams[0].players) == 4 and f.short == ()
    f = form_teams([team], [])
    assert f.short == ("Сова",)


def test_registration_errors():
    with pytest.raises(InputError):
        TeamRegistration("A", tuple(people("a", 7)))
    with pytest.raises(InputError):
        TeamRegistration("A", tuple(people("a", 6)), absent=(P("b"),))
    with pytest.raises(InputError):
        form_teams([TeamRegistration("A", tuple(people("a", 6)))], [P("a0")])
    with pytest.raises(InputError):
        form_teams([TeamRegistration("A", (P("x"),)), TeamRegistration("B", (P("x"),))], [])


@st.composite
def registrations(draw):
    n_teams = draw(st.integers(0, 4))
    teams = []
    for t in range(n_teams):
        roster = people(f"t{t}_", draw(st.integers(1, TEAM_SIZE)))
        absent = [p for p in roster if draw(st.integers(0, 3)) == 0]
        teams.append(TeamRegistration(f"T{t}", tuple(roster), tuple(absent)))
    return teams, people("i", draw(st.integers(0, 40)))


@given(registrations())
def test_formation_places_every_placeable_individual_once(reg):
    teams, solo = reg
    f = form_teams(teams, solo)
    placed = [p for t in f.teams for p in t.players]
    assert len(placed) == len(set(placed))
    assert not set(placed) & set(f.unplaced)
    assert set(placed) | set(f.unplaced) == set(solo) | {p for t in teams for p in t.present}
    for team, out in zip(teams, f.teams):
        assert out.name == team.name and out.players[:len(team.present)] == team.present
        assert len(out.players) <= TEAM_SIZE
        assert (len(out.players) < MIN_TEAM) == (team.name in f.short)
    for out in f.teams[len(teams):]:
        assert not out.preformed and MIN_TEAM <= len(out.players) <= TEAM_SIZE
    sizes = [len(t.players) for t in f.teams[len(teams):]]
    assert not sizes or max(sizes) - min(sizes) <= 1
    if f.unplaced:  # only a remainder of fewer than four that no team has room for
        assert len(f.unplaced) < MIN_TEAM
        assert all(len(t.players) == TEAM_SIZE for t in f.teams)
    assert form_teams(teams, solo) == f  # deterministic


# --- the Final ---------------------------------------------------------------------------------

def fin(team, e, v, at, finished=True):
    return GameResult(f"final-{team}", team, e, v, at, finished)


def test_final_better_score_wins():
    assert final_outcome(fin("club", 6, 1, 1), fin("ct", 6, 3, 2)) == "club"
    assert final_outcome(fin("club", 6, 3, 1), fin("ct", 6, 1, 2)) == "central_table"
    assert final_outcome(fin("club", 5, 6, 1), fin("ct", 3, 6, 2)) == "club"
    assert final_outcome(fin("club", 6, 4, 1), fin("ct", 2, 6, 2)) == "club"


def test_final_equal_scores_go_to_the_second_team():
    assert final_outcome(fin("club", 6, 2, 1), fin("ct", 6, 2, 2)) == "central_table"
    assert final_outcome(fin("club", 4, 6, 1), fin("ct", 4, 6, 2)) == "central_table"


def test_final_undecided_until_both_games_finished():
    assert final_outcome(None, None) is None
    assert final_outcome(fin("club", 6, 2, 1), None) is None
    assert final_outcome(fin("club", 6, 2, 1), fin("ct", 5, 2, 2, finished=False)) is None


score = st.one_of(st.tuples(st.just(6), st.integers(0, 5)), st.tuples(st.integers(0, 5), st.just(6)))


@given(score, score)
def test_final_agrees_with_the_later_game_tie_break(c, t):
    club, ct = fin("club", *c, 1), fin("ct", *t, 2)
    expected = "club" if better(club, ct) is club else "central_table"
    assert final_outcome(club, ct) == expected
