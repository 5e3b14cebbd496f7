"""Live games: the one path every change takes — check, record, then tell the listeners.

`Sessions.execute` is called by HTTP, Socket.IO and OSC alike. A change is committed to SQLite
before any listener hears of it; a refused command leaves state, log and screens untouched.
"""
from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..rules import Ctx, Game, InputError, RuleError, apply_all, decide, new_game, parse_command, parse_spec, replay
from ..rules.commands import Command, parse_expected_rev
from .store import Store
from .views import operator_view, public_view

TEN_SECONDS = 10_000
CLOCK_REVS_KEPT = 16  # a press is never more than a few time-ups behind
log = logging.getLogger("chgk_overlay.session")


class UnknownGame(InputError):
    status = 404


class StaleRev(InputError):
    status = 409


@dataclass
class Change:
    """What listeners (sockets, OSC) hear after a change has been recorded."""

    kind: str  # command | undo | time_up | create | on_air | moment | graphics
    game_id: str | None
    rev: int
    events: list[dict]
    before: Game | None = None
    after: Game | None = None
    command: dict | None = None
    source: str = ""


@dataclass
class Live:
    """One game in memory: its spec, its current state and its log (batch, auto, event)."""

    id: str
    spec: dict
    game: Game
    rev: int
    log: list[tuple[int, bool, dict]] = field(default_factory=list)
    warned: bool = False  # "10 seconds left" already announced for the running timer
    # revs the clock made (time-ups): a press based on the rev just before one is not stale
    clock_revs: set[int] = field(default_factory=set)
    warnings: list[dict] = field(default_factory=list)  # said when the game was made (not stored)

    def public(self, now: int, retired: bool = False) -> dict:
        return public_view(self.game, self.rev, now, retired)

    def operator(self, now: int) -> dict:
        return operator_view(self.game, self.rev, now)

    def rebuild(self) -> None:
        self.game = replay(new_game(self.id, self.spec), (e for _, _, e in self.log))


Listener = Callable[[Change], None]
# Looks at a checked spec before the game is made and may complete it (the league stores each
# player's member id); returns warnings for the operator ({"code": ..., values}), raises to refuse.
Preparer = Callable[[dict], list[dict]]


class Sessions:
    def __init__(self, store: Store, clock: Callable[[], int], rng: random.Random | None = None) -> None:
        self.store = store
        self.clock = clock
        self.rng = rng or random.SystemRandom()
        self.lock = threading.RLock()
        self.games: dict[str, Live] = {}
        self.listeners: list[Listener] = []
        self.early_listeners: list[Listener] = []  # told before the commit's fsync (subscribe)
        self.preparers: list[Preparer] = []
        self.media_url: Callable[[Any], str | None] = lambda value: None  # set by the app (overlay.media.library)
        self._load()
        # read on every broadcast and answer: kept here, written through by set_on_air
        self._on_air: str | None = store.get_setting("on_air")
        # new on every start: with `rev`, orders public states across writer restarts, even when
        # a data folder was replaced and revs start again (edges, static/lib/client.js)
        self.epoch: int = clock()

    # reading --------------------------------------------------------------------------------

    def _load(self) -> None:
        for game_id, spec, rev, _ in self.store.games():
            live = Live(game_id, spec, new_game(game_id, spec), rev)
            for row in self.store.log(game_id):
                live.log.append((row["batch"], row["auto"], row["event"]))
            live.clock_revs = {j["rev"] for j in self.store.journal(game_id, CLOCK_REVS_KEPT)
                               if j["kind"] == "time_up" and j["rev"] is not None}
            live.rebuild()
            self.games[game_id] = live

    def get(self, game_id: Any) -> Live:
        live = self.games.get(game_id) if isinstance(game_id, str) else None
        if live is None:
            raise UnknownGame("unknown_game", f"There is no game {game_id!r}. GET /api/games lists the games.")
        return live

    @property
    def on_air(self) -> str | None:
        return self._on_air if self._on_air in self.games else None

    def public(self, live: Live, now: int) -> dict:
        """The public view. A finished game that is no longer on air shows no question text or
        answer: the next holding of the game day plays the same questions (RULES.md §6)."""
        view = self.with_photos(live.public(now, retired=live.game.status == "finished" and live.id != self.on_air))
        view["epoch"] = self.epoch
        return view

    def with_photos(self, view: dict) -> dict:
        """The round author's `photo`, when it names a picture of the media library, as its URL."""
        author = (view.get("round") or {}).get("author")
        if author and author.get("photo"):
            author["photo"] = self.media_url(author["photo"]) or author["photo"]
        return view

    def durable(self) -> None:
        """Returns once every change in memory is on the disk: a command's fsync (which lets other
        green threads run under eventlet) is waited for. Whatever an operator or a control surface
        acts on is read after this; the overlays are not (they acknowledge nothing)."""
        self.store.sync()

    def summary(self) -> list[dict]:
        self.durable()
        return [{"id": g.id, "rules": g.game.rules, "title": g.game.title, "status": g.game.status,
                 "score": dict(g.game.score), "rev": g.rev, "on_air": g.id == self.on_air}
                for g in self.games.values()]

    # changing -------------------------------------------------------------------------------

    def subscribe(self, listener: Listener, early: bool = False) -> None:
        """`early`: told between a game command's commit and its fsync — only a listener that
        acknowledges nothing to anyone who acts on it (the overlays' broadcast): a power cut in
        that moment loses what it was told."""
        (self.early_listeners if early else self.listeners).append(listener)

    def _notify(self, change: Change) -> None:
        """The change is already committed: a listener that fails (a dead socket, a bad cue) is
        logged and must not undo the answer to the caller or starve the other listeners. The
        early ones first, then the commit is made durable, then the rest and the caller's answer."""
        try:
            for listener in list(self.early_listeners):
                self._tell(listener, change)
        finally:
            self.store.sync()
        for listener in list(self.listeners):
            self._tell(listener, change)

    @staticmethod
    def _tell(listener: Listener, change: Change) -> None:
        try:
            listener(change)
        except Exception:
            log.exception("listener failed on a %s change of %s", change.kind, change.game_id)

    def create(self, body: Any, source: str = "api") -> Live:
        spec = parse_spec(body)
        with self.lock:
            if spec["rules"] == "club" and "lost_before" not in body:
                spec["lost_before"] = self._lost_on_game_day(spec)
            warnings = [w for prepare in self.preparers for w in prepare(spec)]
            game_id = self.store.create_game(spec, self.clock())
            live = Live(game_id, spec, new_game(game_id, spec), 0, warnings=warnings)
            self.games[game_id] = live
            self._notify(Change("create", game_id, 0, [], None, live.game, source=source))
            return live

    def _lost_on_game_day(self, spec: dict) -> list[str]:
        """Club eligibility lasts a whole game day: carry over who has lost a round already."""
        ids = {t["id"] for t in spec["teams"]}
        return sorted({t.id for g in self.games.values() if g.game.rules == "club"
                       and g.game.game_day == spec["game_day"] for t in g.game.teams
                       if t.lost_round and t.id in ids})

    def set_on_air(self, game_id: Any, source: str = "api") -> None:
        with self.lock:
            live = self.get(game_id)
            self.store.set_setting("on_air", live.id, at=self.clock(), journal_kind="on_air")
            self._on_air = live.id
            self._notify(Change("on_air", live.id, live.rev, [], None, live.game, source=source))

    def execute(self, game_id: Any, body: Any, source: str = "api") -> Live:
        """Apply one command from the vocabulary of API.md to a game."""
        with self.lock:
            live = self.get(game_id)
            command = parse_command(body)
            self._check_rev(live, body)
            return self._record(live, command, body, source)

    def _check_rev(self, live: Live, body: Any) -> None:
        """`expected_rev` stops a press made against a change the operator has not seen: a
        command or undo from anyone. The clock's own changes (a time-up) do not count — a verdict
        at the gong was meant for this round whether or not the time-up reached the panel first."""
        expected = parse_expected_rev(body)
        if expected is not None and expected != live.rev and not _only_clock_since(live, expected):
            raise StaleRev("stale_rev", f"The game has changed since you looked (rev {live.rev}, "
                                        f"you expected {expected}); nothing was done. Look again and retry.")

    def _record(self, live: Live, command: Command, body: Any, source: str, *, auto: bool = False) -> Live:
        now = self.clock()
        events = decide(live.game, command, Ctx(now, self.rng.choice))
        after = apply_all(live.game, events)
        rev = live.rev + 1
        kind = "time_up" if auto else "command"
        record = {"type": command.type, **command.fields, "source": source}
        # durable in _notify, once the overlays have their frames: nothing is acknowledged before
        self.store.append(live.id, events, at=now, auto=auto, rev=rev, journal_kind=kind, journal_body=record,
                          deferred=True)
        batch = (live.log[-1][0] + 1) if live.log else 1
        live.log += [(batch, auto, e) for e in events]
        before, live.game, live.rev = live.game, after, rev
        if auto:
            live.clock_revs.add(rev)
            if len(live.clock_revs) > CLOCK_REVS_KEPT:
                live.clock_revs.discard(min(live.clock_revs))
        self._notify(Change(kind, live.id, rev, events, before, after, record, source))
        return live

    def undo(self, game_id: Any, body: Any = None, source: str = "api") -> Live:
        """Revert the last command, together with any time-up recorded after it."""
        with self.lock:
            live = self.get(game_id)
            self._check_rev(live, body or {})
            batch = _last_command_batch(live)
            if batch is None:
                raise RuleError("nothing_to_undo", "There is nothing to undo in this game.")
            keep = len(live.log) - _tail(live, batch)
            dropped = [e for _, _, e in live.log[keep:]]
            rev = live.rev + 1
            now = self.clock()
            self.store.drop_from(live.id, batch, at=now, rev=rev, deferred=True,
                                 journal_body={"dropped": [e["type"] for e in dropped], "source": source})
            before = live.game
            del live.log[keep:]
            live.rebuild()
            live.rev = rev
            live.warned = False
            self._notify(Change("undo", live.id, rev, dropped, before, live.game, None, source))
            return live

    def undo_preview(self, live: Live) -> dict | None:
        """What undo would revert now: the last command's first event, for the panel's button."""
        batch = _last_command_batch(live)
        if batch is None:
            return None
        events = [e for b, _, e in live.log[-_tail(live, batch):]]
        return {"events": [e["type"] for e in events], "first": events[0]}

    def tick(self) -> None:
        """Called by the server's clock task: record time-ups, announce "10 seconds left"."""
        with self.lock:
            now = self.clock()
            for live in self.games.values():
                timer = live.game.timer
                if timer is None or not timer.running:
                    live.warned = live.warned and timer is not None and timer.remaining_ms <= TEN_SECONDS
                    continue
                left = timer.ends_at - now
                if left <= 0:
                    self._record(live, Command("time_up"), {"type": "time_up"}, "clock", auto=True)
                    continue
                if left > TEN_SECONDS:
                    live.warned = False
                elif not live.warned and timer.duration_ms > TEN_SECONDS:
                    live.warned = True
                    self._notify(Change("moment", live.id, live.rev,
                                        [{"type": "ten_seconds", "kind": timer.kind, "ends_at": timer.ends_at}],
                                        live.game, live.game, source="clock"))


def _only_clock_since(live: Live, expected: int) -> bool:
    """Every change after rev `expected` up to now was made by the clock."""
    return expected < live.rev and all(r in live.clock_revs for r in range(expected + 1, live.rev + 1))


def _last_command_batch(live: Live) -> int | None:
    """The batch of the last command (time-ups after it are 'auto'): walked from the end, so the
    cost is that of the last command's events, not of the whole log."""
    return next((b for b, auto, _ in reversed(live.log) if not auto), None)


def _tail(live: Live, batch: int) -> int:
    """How many rows at the end of the log belong to `batch` or later."""
    n = 0
    for b, _, _ in reversed(live.log):
        if b < batch:
            break
        n += 1
    return n
