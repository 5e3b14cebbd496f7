"""An edge's copy of the public world, fed from Redis (overlay/broadcast/relay.py writes it).

`Mirror` holds the latest public state per game, what is on air and the graphics, and keeps a
state only when its (epoch, rev) is not older than the one held. `Feed` is the task that keeps
it: subscribe first, then read the stored state (so nothing published in between is missed),
then apply messages in `seq` order; a gap in `seq`, another epoch, a heartbeat naming a newer
rev, or a silence longer than four heartbeats sends it back to the stored state. Pub/sub may drop
messages; the mirror is right again within one heartbeat regardless.

Nothing from Redis is believed unless the writer signed it (relay.Signer) and its counters are
integers in range (`count`): anything else is dropped, counted and logged, and changes nothing —
not the mirror, not the message order — so the next signed state from the writer is taken as if
the forgery had never been there.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from ..broadcast.relay import CHANNEL, GAMES, HEARTBEAT_S, LEAGUE, MAX_COUNT, META, Signer, connect, redact

log = logging.getLogger("chgk_overlay.edge")
SILENCE_S = 4 * HEARTBEAT_S
RETRY_S = 0.5
DROP_LOGS_PER_S = 10  # a flood of forgeries is counted in full but logs at most this many lines a second


def count(value: Any) -> int:
    """An epoch, seq or rev: a JSON integer in [0, MAX_COUNT]. A float (`1e400` is infinity), a
    string, `true`, a negative or a huge number is out of range."""
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise ValueError(f"out of range: {str(value)[:40]!r}")
    return value


def _order(value: dict, counter: str) -> tuple[int, int]:
    return count(value.get("epoch")), count(value.get(counter))


def check_state(state: Any) -> tuple[int, int]:
    """A game's public state as the writer makes it: an id, an epoch and a rev in range."""
    if not isinstance(state, dict) or not isinstance(state.get("id"), str):
        raise ValueError("a state without an id")
    return _order(state, "rev")


def check_meta(on_air: Any, graphics: Any) -> int:
    """What is on air (a game id or None) and the graphics payload; its `seq`."""
    if not (on_air is None or isinstance(on_air, str)) or not isinstance(graphics, dict):
        raise ValueError("on_air or graphics of the wrong type")
    return count(graphics.get("seq"))


class Mirror:
    def __init__(self) -> None:
        self.epoch = 0
        self.games: dict[str, dict] = {}
        self.on_air: str | None = None
        self.graphics: dict = {"seq": 0, "graphics": {}, "hidden": [], "server_now": 0}
        self.graphics_epoch = 0
        self.league: dict | None = None  # the public league views (relay.league_views)
        self.league_order = (0, 0)       # (epoch, league rev) of `league`
        self.synced = False      # has read the writer's state at least once
        self.redis_up = False
        self.dropped = 0         # values from Redis not believed: unsigned, badly signed, out of range
        # set by the edge app: send a state / the on-air change / the graphics to the clients
        self.on_state: Callable[[dict, bool], None] = lambda state, on_air: None
        self.on_air_changed: Callable[[dict | None], None] = lambda state: None
        self.on_graphics: Callable[[dict], None] = lambda payload: None
        self.on_league: Callable[[], None] = lambda: None

    def apply_state(self, state: Any) -> bool:
        """Keep `state` unless older than the one held; ValueError when it is no state at all."""
        order = check_state(state)
        held = self.games.get(state["id"])
        if held is not None and order < _order(held, "rev"):
            return False  # older than what we show
        self.games[state["id"]] = state
        self.on_state(state, state["id"] == self.on_air)
        return True

    def apply_meta(self, epoch: int, on_air: Any, graphics: Any) -> None:
        seq = check_meta(on_air, graphics)
        if on_air != self.on_air and (on_air is None or on_air in self.games):
            self.on_air = on_air
            self.on_air_changed(self.games.get(on_air) if on_air else None)
        if (epoch, seq) >= (self.graphics_epoch, self.graphics["seq"]):
            changed = graphics.get("graphics") != self.graphics.get("graphics") or \
                graphics.get("hidden") != self.graphics.get("hidden")
            self.graphics, self.graphics_epoch = graphics, epoch
            if changed:
                self.on_graphics(graphics)

    def apply_league(self, data: dict) -> None:
        # its own epoch: what Redis holds may still be a previous writer's, whatever the message says
        order = (count(data.get("epoch")), count(data.get("rev")))
        if order > self.league_order:
            self.league, self.league_order = data, order
            self.on_league()

    def summary(self) -> list[dict]:
        return [{"id": g["id"], "rules": g.get("rules"), "title": g.get("title"), "status": g.get("status"),
                 "score": g.get("score"), "rev": g.get("rev"), "on_air": g["id"] == self.on_air}
                for g in self.games.values()]


class Feed:
    """Keeps a `Mirror` up to date from Redis; `run` never returns (a background task)."""

    def __init__(self, url: str, mirror: Mirror, say: Callable[[str], None], key: str) -> None:
        self.url, self.mirror, self.say = url, mirror, say
        self.shown_url = redact(url)
        self.signer = Signer(key)
        self.seq = 0
        self.resyncs = 0
        self.client: Any = None
        self.drop_window = (0.0, 0)  # (second it started, lines logged in it)

    def run(self) -> None:
        down_since = 0.0
        while True:
            pubsub = None
            try:
                self.client = connect(self.url)
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)  # first: whatever is published after this reaches us
                self.resync()
                self.mirror.redis_up = True
                if down_since:
                    self.say(f"Redis at {self.shown_url} reachable again; state read")
                    down_since = 0.0
                self.listen(pubsub)
            except Exception as exc:  # noqa: BLE001 - Redis away: keep serving the last state, retry
                self.mirror.redis_up = False
                if not down_since:
                    down_since = time.monotonic()
                    what = "keeping the last state" if self.mirror.synced else "no state to serve yet"
                    self.say(f"cannot reach Redis at {self.shown_url} ({exc}); {what}, retrying every {RETRY_S} s")
                time.sleep(RETRY_S)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001
                        pass

    def listen(self, pubsub: Any) -> None:
        heard = time.monotonic()
        while True:
            message = pubsub.get_message(timeout=HEARTBEAT_S)
            now = time.monotonic()
            msg = None if message is None else self.open(CHANNEL, message["data"])
            if msg is None:  # silence, or a forgery: neither is the writer speaking
                if now - heard > SILENCE_S:
                    # the writer is away (or our subscription is): serve what we have, look again
                    self.resync()
                    heard = now
                continue
            heard = now
            try:
                self.handle(msg)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                self.drop(CHANNEL, exc)

    def open(self, where: str, value: Any) -> dict | None:
        """The JSON object the writer signed under `where`, or None (dropped and logged)."""
        try:
            data = json.loads(self.signer.verify(where, value))
        except (ValueError, RecursionError) as exc:
            self.drop(where, exc)
            return None
        if not isinstance(data, dict):
            self.drop(where, ValueError("not a JSON object"))
            return None
        return data

    def drop(self, where: str, why: BaseException) -> None:
        self.mirror.dropped += 1
        now = time.monotonic()
        start, logged = self.drop_window
        if now - start >= 1.0:
            start, logged = now, 0
        if logged < DROP_LOGS_PER_S:
            log.warning("dropped a value from Redis %s: %s (%d dropped in all); the writer's next signed "
                        "state replaces it", where, why, self.mirror.dropped)
            logged += 1
        self.drop_window = (start, logged)

    def take_state(self, where: str, value: Any) -> None:
        """A stored game state, if signed and well formed."""
        state = self.open(where, value)
        if state is not None:
            try:
                self.mirror.apply_state(state)
            except (ValueError, TypeError) as exc:
                self.drop(where, exc)

    def handle(self, msg: dict) -> None:
        """One signed message; ValueError/KeyError/TypeError for one out of range (nothing changed)."""
        epoch, seq = count(msg["epoch"]), count(msg["seq"])
        kind = msg.get("kind")
        # checked whole before the order moves on: a bad message changes nothing
        if kind == "state":
            check_state(msg.get("state"))
        elif kind == "meta":
            check_meta(msg.get("on_air"), msg.get("graphics"))
        elif kind == "heartbeat":
            revs = {g: count(r) for g, r in msg["revs"].items()}
            graphics_seq, league_rev = count(msg["graphics_seq"]), count(msg.get("league_rev", 0))
        if epoch != self.mirror.epoch or seq != self.seq + 1:
            self.resync()  # a gap, or a new writer: the stored state is at least this new
            self.seq = seq  # messages after this one continue from it
            return
        self.seq = seq
        if kind == "state":
            self.mirror.apply_state(msg.get("state"))
        elif kind == "meta":
            self.mirror.apply_meta(epoch, msg.get("on_air"), msg.get("graphics"))
        elif kind == "league":
            self._read_league()
        elif kind == "heartbeat":
            behind = [g for g, rev in revs.items()
                      if g not in self.mirror.games or _order(self.mirror.games[g], "rev") < (epoch, rev)]
            if behind:
                for text in self.client.hmget(GAMES, behind):
                    if text:
                        self.take_state(GAMES, text)
            if msg.get("on_air") != self.mirror.on_air or \
                    (epoch, graphics_seq) > (self.mirror.graphics_epoch, self.mirror.graphics["seq"]):
                self._read_meta(self.client.get(META))
            if (epoch, league_rev) > self.mirror.league_order:
                self._read_league()

    def resync(self) -> None:
        """Read everything stored, each value checked on its own. An empty Redis (restarted), or
        a stored `meta` that is not the writer's, leaves the mirror as it is: the writer stores
        it again on its next heartbeat, which tells us the revs."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(GAMES)
        pipe.get(META)
        pipe.get(LEAGUE)
        games, meta, league = pipe.execute()
        self.resyncs += 1
        for text in games.values():
            self.take_state(GAMES, text)
        data = self.open(META, meta) if meta else None
        if data is None:
            return
        try:
            epoch = count(data.get("epoch"))
            self.mirror.apply_meta(epoch, data.get("on_air"), data.get("graphics"))
        except (ValueError, TypeError) as exc:
            self.drop(META, exc)
            return
        self.mirror.epoch = epoch
        if league:
            self._take_league(league)
        self.mirror.synced = True

    def _read_meta(self, text: str | None) -> None:
        data = self.open(META, text) if text else None
        if data is not None:
            try:
                self.mirror.apply_meta(count(data.get("epoch")), data.get("on_air"), data.get("graphics"))
            except (ValueError, TypeError) as exc:
                self.drop(META, exc)

    def _read_league(self) -> None:
        text = self.client.get(LEAGUE)
        if text:
            self._take_league(text)

    def _take_league(self, text: str) -> None:
        data = self.open(LEAGUE, text)
        if data is not None:
            try:
                self.mirror.apply_league(data)
            except (ValueError, TypeError) as exc:
                self.drop(LEAGUE, exc)
