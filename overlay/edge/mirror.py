"""An edge's copy of the public world, fed from Redis (overlay/relay.py writes it).

`Mirror` holds the latest public state per game, what is on air and the graphics, and keeps a
state only when its (epoch, rev) is not older than the one held. `Feed` is the task that keeps
it: subscribe first, then read the stored state (so nothing published in between is missed),
then apply messages in `seq` order; a gap in `seq`, another epoch, a heartbeat naming a newer
rev, or a silence longer than four heartbeats sends it back to the stored state. Pub/sub may drop
messages; the mirror is right again within one heartbeat regardless.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from ..relay import CHANNEL, GAMES, HEARTBEAT_S, LEAGUE, META, connect

log = logging.getLogger("chgk_overlay.edge")
SILENCE_S = 4 * HEARTBEAT_S
RETRY_S = 0.5


def _order(value: dict, counter: str) -> tuple[int, int]:
    return int(value.get("epoch") or 0), int(value.get(counter) or 0)


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
        # set by the edge app: send a state / the on-air change / the graphics to the clients
        self.on_state: Callable[[dict, bool], None] = lambda state, on_air: None
        self.on_air_changed: Callable[[dict | None], None] = lambda state: None
        self.on_graphics: Callable[[dict], None] = lambda payload: None
        self.on_league: Callable[[], None] = lambda: None

    def apply_state(self, state: Any) -> bool:
        if not isinstance(state, dict) or not isinstance(state.get("id"), str):
            return False
        held = self.games.get(state["id"])
        if held is not None and _order(state, "rev") < _order(held, "rev"):
            return False  # older than what we show
        self.games[state["id"]] = state
        self.on_state(state, state["id"] == self.on_air)
        return True

    def apply_meta(self, epoch: int, on_air: Any, graphics: Any) -> None:
        if on_air != self.on_air and (on_air is None or on_air in self.games):
            self.on_air = on_air
            self.on_air_changed(self.games.get(on_air) if on_air else None)
        if isinstance(graphics, dict) and ((epoch, int(graphics.get("seq") or 0))
                                           >= (self.graphics_epoch, int(self.graphics.get("seq") or 0))):
            changed = graphics.get("graphics") != self.graphics.get("graphics") or \
                graphics.get("hidden") != self.graphics.get("hidden")
            self.graphics, self.graphics_epoch = graphics, epoch
            if changed:
                self.on_graphics(graphics)

    def apply_league(self, epoch: int, text: str | None) -> None:
        if not text:
            return
        data = json.loads(text)
        # its own epoch: what Redis holds may still be a previous writer's, whatever the message says
        order = (int(data.get("epoch") or epoch), int(data.get("rev") or 0))
        if order > self.league_order:
            self.league, self.league_order = data, order
            self.on_league()

    def summary(self) -> list[dict]:
        return [{"id": g["id"], "rules": g.get("rules"), "title": g.get("title"), "status": g.get("status"),
                 "score": g.get("score"), "rev": g.get("rev"), "on_air": g["id"] == self.on_air}
                for g in self.games.values()]


class Feed:
    """Keeps a `Mirror` up to date from Redis; `run` never returns (a background task)."""

    def __init__(self, url: str, mirror: Mirror, say: Callable[[str], None]) -> None:
        self.url, self.mirror, self.say = url, mirror, say
        self.seq = 0
        self.resyncs = 0
        self.client: Any = None

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
                    self.say(f"Redis at {self.url} reachable again; state read")
                    down_since = 0.0
                self.listen(pubsub)
            except Exception as exc:  # noqa: BLE001 - Redis away: keep serving the last state, retry
                self.mirror.redis_up = False
                if not down_since:
                    down_since = time.monotonic()
                    what = "keeping the last state" if self.mirror.synced else "no state to serve yet"
                    self.say(f"cannot reach Redis at {self.url} ({exc}); {what}, retrying every {RETRY_S} s")
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
            if message is None:
                if now - heard > SILENCE_S:
                    # the writer is away (or our subscription is): serve what we have, look again
                    self.resync()
                    heard = now
                continue
            heard = now
            try:
                self.handle(json.loads(message["data"]))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("ignored a malformed message on %s: %s", CHANNEL, exc)

    def handle(self, msg: dict) -> None:
        epoch, seq = int(msg["epoch"]), int(msg["seq"])
        if epoch != self.mirror.epoch or seq != self.seq + 1:
            self.resync()  # a gap, or a new writer: the stored state is at least this new
            self.seq = seq  # messages after this one continue from it
            return
        self.seq = seq
        kind = msg.get("kind")
        if kind == "state":
            self.mirror.apply_state(msg.get("state"))
        elif kind == "meta":
            self.mirror.apply_meta(epoch, msg.get("on_air"), msg.get("graphics"))
        elif kind == "league":
            self.mirror.apply_league(epoch, self.client.get(LEAGUE))
        elif kind == "heartbeat":
            revs = msg.get("revs") or {}
            behind = [g for g, rev in revs.items()
                      if g not in self.mirror.games or _order(self.mirror.games[g], "rev") < (epoch, rev)]
            if behind:
                for text in self.client.hmget(GAMES, behind):
                    if text:
                        self.mirror.apply_state(json.loads(text))
            if msg.get("on_air") != self.mirror.on_air or \
                    (epoch, msg.get("graphics_seq") or 0) > (self.mirror.graphics_epoch, self.mirror.graphics.get("seq") or 0):
                self._read_meta(self.client.get(META))
            if (epoch, int(msg.get("league_rev") or 0)) > self.mirror.league_order:
                self.mirror.apply_league(epoch, self.client.get(LEAGUE))

    def resync(self) -> None:
        """Read everything stored. An empty Redis (restarted) changes nothing: the writer stores
        it all again on its next heartbeat, which tells us the revs."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(GAMES)
        pipe.get(META)
        pipe.get(LEAGUE)
        games, meta, league = pipe.execute()
        self.resyncs += 1
        if not meta:
            return
        data = json.loads(meta)
        self.mirror.epoch = int(data["epoch"])
        for text in games.values():
            self.mirror.apply_state(json.loads(text))
        self._read_meta(meta)
        self.mirror.apply_league(self.mirror.epoch, league)
        self.mirror.synced = True

    def _read_meta(self, text: str | None) -> None:
        if text:
            data = json.loads(text)
            self.mirror.apply_meta(int(data["epoch"]), data.get("on_air"), data.get("graphics"))
