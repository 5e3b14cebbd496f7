"""Hypothesis drives whole games through the session (rules + log + undo) and checks the
invariants of RULES.md after every step."""
from __future__ import annotations

import copy
import random

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from overlay.rules import InputError, club, new_game, replay
from overlay.rules.game import MOVES
from overlay.core.session import Sessions
from overlay.core.store import Store

PLAYERS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]
QUESTION = {"text": "Вопрос", "answer": "Ответ", "author": {"name": "Автор", "city": "Город"},
            "prize": {"amount": 100, "currency": "UAH"}}
TV_SPEC = {"rules": "tv", "target": 6,
           "experts": {"name": "Команда", "players": PLAYERS, "captain": "Анна"},
           "timers": {"minute": 3000, "blitz": 2000, "extra_minute": 3000, "club_help": 2000},
           "sectors": [{"number": 3, "kind": "blitz", "questions": [QUESTION] * 3},
                       {"number": 8, "kind": "superblitz", "questions": [QUESTION] * 3},
                       {"number": 1, "questions": [QUESTION]}]}
CLUB_SPEC = {"rules": "club", "game_day": "day-1", "target": 6,
             "timers": {"minute": 3000},
             "teams": [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"p{i}a", f"p{i}b", f"p{i}c"]}
                       for i in range(1, 6)]}

team_ids = st.sampled_from(["t1", "t2", "t3", "t4", "t5", "t9"])
commands = st.one_of(
    st.builds(lambda n: {"type": "spin", "landed": n}, st.integers(0, 14)),
    st.just({"type": "spin"}),
    st.sampled_from([{"type": t} for t in (
        "start_timer", "pause_timer", "resume_timer", "early_answer", "extra_minute",
        "club_help", "request_decisive_round")]),
    st.builds(lambda c: {"type": "judge", "correct": c}, st.booleans()),
    st.builds(lambda p: {"type": "choose_player", "player": p}, st.sampled_from(PLAYERS + ["p1a", "Никто"])),
    st.builds(lambda g, ps: {"type": "decide_decisive_round", "granted": g, "players": ps},
              st.booleans(), st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4, unique=True)),
    st.builds(lambda ids: {"type": "club_answers", "correct": ids}, st.lists(team_ids, max_size=4)),
    st.builds(lambda t: {"type": "seat_team", "team": t}, team_ids),
    st.just({"type": "seat_team"}),
    st.builds(lambda p: {"type": "best_player", "player": p}, st.sampled_from(["p1a", "p2b", "Анна"])),
)


class GameMachine(RuleBasedStateMachine):
    @initialize(spec=st.sampled_from([TV_SPEC, CLUB_SPEC]), seed=st.integers(0, 2**16))
    def start(self, spec, seed):
        self.now = 1_000_000
        self.store = Store(":memory:")
        self.sessions = Sessions(self.store, clock=lambda: self.now, rng=random.Random(seed))
        self.live = self.sessions.create(copy.deepcopy(spec))
        self.history: list = []  # the state before each accepted command
        self.rev = 0

    def _unchanged(self, before, log_len, rev):
        assert self.live.game == before
        assert len(self.store.log(self.live.id)) == log_len
        assert self.live.rev == rev

    @rule(body=commands)
    def command(self, body):
        before, log_len, rev = copy.deepcopy(self.live.game), len(self.store.log(self.live.id)), self.live.rev
        finished = before.status == "finished"
        try:
            self.sessions.execute(self.live.id, body)
        except InputError:
            self._unchanged(before, log_len, rev)
            return
        assert not finished or body["type"] in ("best_player", "club_answers"), "accepted after the end"
        if body["type"] == "seat_team":
            seated = self.live.game.central_team
            assert seated in club.candidates(before), "an ineligible team was seated"
            assert seated != before.left_team
        event(f"{self.live.game.rules}: accepted {body['type']}")
        if self.live.game.status == "finished":
            event(f"{self.live.game.rules}: game over")
        assert self.live.rev == rev + 1
        self.history.append(before)

    @rule(data=st.data())
    def command_fitting_the_phase(self, data):
        """Mostly commands the MOVES table allows in this phase, so games reach their end."""
        g = self.live.game
        fitting = lambda b: g.rules in MOVES[b["type"]].rules and g.phase in MOVES[b["type"]].phases
        self.command(data.draw(commands.filter(fitting)))

    @rule(correct=st.booleans(), early=st.booleans())
    def a_whole_round(self, correct, early):
        """The usual flow, so that games reach their end: seat, spin, minute, verdict(s)."""
        g = self.live.game
        if g.status == "finished" or g.in_round or g.decisive["requested"]:
            return
        if g.rules == "club" and g.central_team is None:
            if g.round is not None and g.round.club_correct is None:
                self.command({"type": "club_answers", "correct": []})
            self.command({"type": "seat_team"})
        self.command({"type": "spin"})
        rnd = self.live.game.round
        if rnd.kind == "superblitz":
            self.command({"type": "choose_player", "player": (club.central_players(self.live.game) or PLAYERS)[0]})
        for _ in range(rnd.questions):  # bounded: a refused step must not spin forever
            if not self.live.game.in_round:
                break
            self.command({"type": "early_answer"} if early and rnd.kind != "blitz" else {"type": "start_timer"})
            self.command({"type": "judge", "correct": correct})

    @rule(ms=st.integers(0, 4000))
    def time_passes(self, ms):
        self.now += ms
        self.sessions.tick()

    @precondition(lambda self: self.history)
    @rule()
    def undo(self):
        rev = self.live.rev
        self.sessions.undo(self.live.id)
        assert self.live.game == self.history.pop(), "undo must restore the previous state exactly"
        assert self.live.rev == rev + 1

    @invariant()
    def rev_only_grows(self):
        assert self.live.rev >= self.rev
        self.rev = self.live.rev

    @invariant()
    def scores_never_pass_the_target(self):
        g = self.live.game
        assert 0 <= g.score["experts"] <= g.target and 0 <= g.score["viewers"] <= g.target
        assert (g.status == "finished") == (g.winner is not None)

    @invariant()
    def each_sector_played_at_most_once(self):
        closed = [e for _, _, e in self.live.log if e["type"] == "round_closed"]
        played = [s for s in self.live.game.sectors if s.played]
        assert len(closed) == len(played)

    @invariant()
    def replaying_the_log_rebuilds_the_state(self):
        rebuilt = replay(new_game(self.live.id, self.live.spec), self.store.events(self.live.id))
        assert rebuilt == self.live.game

    @invariant()
    def central_table_holds_an_eligible_team(self):
        g = self.live.game
        if g.rules == "club":
            assert g.central_team is None or g.team(g.central_team) is not None
            assert g.central_team != g.left_team or g.central_team is None


GameMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=80, deadline=None)
TestGame = GameMachine.TestCase


def test_a_failing_listener_neither_loses_the_change_nor_starves_the_others():
    store = Store(":memory:")
    sessions = Sessions(store, clock=lambda: 1_000, rng=random.Random(1))
    heard = []

    def broken(change):
        raise RuntimeError("a dead screen")

    sessions.subscribe(broken)
    sessions.subscribe(heard.append)
    live = sessions.create({"rules": "tv"})
    sessions.execute(live.id, {"type": "spin", "landed": 2})
    assert live.rev == 1 and [c.kind for c in heard] == ["create", "command"]
    assert store.log(live.id)[0]["event"]["type"] == "spun"
