"""Named cue events: what a game change means to the studio, derived from the recorded events.

Pure: `cue_events(change)` turns one `Change` into `CueEvent`s; `state_context(game, now)` is
what templates may read besides the event's own fields. EVENTS is the catalogue — it drives
the generic namespace, config validation and the docs' table.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..rules.state import Game
from ..core.session import Change


@dataclass(frozen=True)
class EventSpec:
    name: str
    fields: tuple[tuple[str, str], ...]  # (name, OSC type) — the generic namespace's argument order
    summary: str


def _spec(name: str, summary: str, *fields: str) -> EventSpec:
    return EventSpec(name, tuple(tuple(f.split(":")) for f in fields), summary)  # type: ignore[misc]


EVENTS: dict[str, EventSpec] = {s.name: s for s in (
    _spec("spin", "the top stopped: where it landed, the sector played (next unplayed), its kind, "
                  "drawn 1 when the server drew", "landed:int", "sector:int", "kind:string", "drawn:int"),
    _spec("timer_started", "the minute (kind minute) or a blitz question's 20 s (kind blitz) started",
          "kind:string", "duration_s:int"),
    _spec("timer_paused", "the running timer was paused", "kind:string", "remaining_s:int"),
    _spec("timer_resumed", "the paused timer runs again", "kind:string", "remaining_s:int"),
    _spec("ten_seconds", "10 seconds left on the running timer", "kind:string"),
    _spec("time_up", "the timer ran out", "kind:string"),
    _spec("early_answer", "the experts answer before the minute"),
    _spec("extra_minute", "an extra minute: mode start (after the minute) or extend (added to it)",
          "mode:string", "duration_s:int"),
    _spec("extra_minute_banked", "a correct early answer banked an extra minute"),
    _spec("club_help", "the club helps: its timer started", "duration_s:int"),
    _spec("correct", "verdict: correct (question counts from 1)", "sector:int", "question:int", "questions:int"),
    _spec("incorrect", "verdict: incorrect", "sector:int", "question:int", "questions:int"),
    _spec("next_question", "blitz/superblitz: question N of the sector is next", "sector:int", "question:int",
          "questions:int"),
    _spec("round_closed", "the round is over; result experts or viewers", "sector:int", "result:string"),
    _spec("score", "the score changed (also on undo and when another game goes on air)",
          "experts:int", "viewers:int"),
    _spec("prize_won", "the viewers won: the question's author and prize", "sector:int", "amount:int",
          "currency:string", "author:string", "city:string"),
    _spec("game_over", "the game is over; winner experts or viewers", "winner:string"),
    _spec("decisive_requested", "the experts ask for the decisive round"),
    _spec("decisive_granted", "the host granted the decisive round (players: comma-separated)", "players:string"),
    _spec("decisive_refused", "the host refused the decisive round"),
    _spec("player_chosen", "superblitz: the captain named the player", "player:string"),
    _spec("club_answers", "club: the teams that wrote a correct answer (ids, space-separated)",
          "count:int", "teams:string"),
    _spec("team_seated", "club: a team sat at the Central Table; drawn 1 when the server drew",
          "team:string", "name:string", "drawn:int"),
    _spec("team_left", "club: the team lost its round and leaves the Central Table", "team:string", "name:string"),
    _spec("best_player", "club: the best player of the game", "player:string"),
    _spec("undo", "the last command was undone (undone: the cue event it had caused first)", "undone:string"),
    _spec("on_air", "another game went on air", "game:string", "title:string"),
    _spec("graphic_shown", "a graphic was taken to air", "graphic:string", "title:string"),
    _spec("graphic_hidden", "a graphic was taken off air", "graphic:string"),
    # rundown
    _spec("rundown_take", "a rundown item went to air on its layer (also on continue and update)",
          "label:string", "layer:string", "item:string", "graphic:string"),
    _spec("rundown_out", "a rundown item was taken off its layer", "label:string", "layer:string", "item:string"),
    _spec("rundown_done", "an auto-out rundown item finished by itself (its time ran out)",
          "label:string", "layer:string", "item:string"),
    _spec("rundown_state", "the current rundown changed (focus, program, lock) or its auto-out second ticked: "
                           "focused and next item, what is on air, seconds left",
          "current:string", "next:string", "on_air:string", "remaining_s:int", "locked:int"),
)}


@dataclass(frozen=True)
class CueEvent:
    name: str
    fields: dict[str, Any] = field(default_factory=dict)


def _seconds(ms: int | None) -> int:
    return math.ceil(max(0, ms or 0) / 1000)


def _round_fields(g: Game, question: int) -> dict[str, Any]:
    rnd = g.round
    return {"sector": rnd.sector if rnd else 0, "question": question + 1, "questions": rnd.questions if rnd else 0}


def _team_name(g: Game, team_id: str) -> str:
    team = g.team(team_id)
    return team.name if team else team_id


# Recorded event type → cue events. `before`/`after` are the states around the whole change.
Mapper = Callable[[dict, Game, Game], list[CueEvent]]
_MAP: dict[str, Mapper] = {
    "spun": lambda e, b, a: [CueEvent("spin", {"landed": e["landed"], "sector": e["sector"],
                                               "kind": a.sector(e["sector"]).kind, "drawn": int(bool(e["drawn"]))})],
    "timer_started": lambda e, b, a: [CueEvent("timer_started", {"kind": e["kind"],
                                                                 "duration_s": _seconds(e["duration_ms"])})],
    "timer_paused": lambda e, b, a: [CueEvent("timer_paused", {"kind": b.timer.kind if b.timer else "",
                                                               "remaining_s": _seconds(e["remaining_ms"])})],
    "timer_resumed": lambda e, b, a: [CueEvent("timer_resumed", {
        "kind": b.timer.kind if b.timer else "", "remaining_s": _seconds(b.timer.remaining_ms if b.timer else 0)})],
    "time_up": lambda e, b, a: [CueEvent("time_up", {"kind": e["kind"]})],
    "early_answer": lambda e, b, a: [CueEvent("early_answer")],
    "extra_minute": lambda e, b, a: [CueEvent("extra_minute", {"mode": e["mode"],
                                                               "duration_s": _seconds(e["duration_ms"])})],
    "extra_minute_banked": lambda e, b, a: [CueEvent("extra_minute_banked")],
    "club_help": lambda e, b, a: [CueEvent("club_help", {"duration_s": _seconds(e["duration_ms"])})],
    "judged": lambda e, b, a: [CueEvent("correct" if e["correct"] else "incorrect", _round_fields(a, e["question"]))],
    "next_question": lambda e, b, a: [CueEvent("next_question", _round_fields(a, e["question"]))],
    "point": lambda e, b, a: [],          # the score cue follows from the change as a whole
    "score_set": lambda e, b, a: [],
    "round_closed": lambda e, b, a: [CueEvent("round_closed", {"sector": a.round.sector if a.round else 0,
                                                               "result": e["result"]})],
    "prize_won": lambda e, b, a: [CueEvent("prize_won", {
        "sector": e["sector"], "amount": e.get("amount") or 0, "currency": e.get("currency") or "",
        "author": (e.get("author") or {}).get("name", ""), "city": (e.get("author") or {}).get("city", "")})],
    "game_over": lambda e, b, a: [CueEvent("game_over", {"winner": e["winner"]})],
    "decisive_requested": lambda e, b, a: [CueEvent("decisive_requested")],
    "decisive_decided": lambda e, b, a: [CueEvent("decisive_granted", {"players": ", ".join(e["players"])})
                                         if e["granted"] else CueEvent("decisive_refused")],
    "player_chosen": lambda e, b, a: [CueEvent("player_chosen", {"player": e["player"]})],
    "club_answers": lambda e, b, a: [CueEvent("club_answers", {"count": len(e["correct"]),
                                                               "teams": " ".join(e["correct"])})],
    "team_seated": lambda e, b, a: [CueEvent("team_seated", {"team": e["team"], "name": _team_name(a, e["team"]),
                                                             "drawn": int(bool(e["drawn"]))})],
    "team_left": lambda e, b, a: [CueEvent("team_left", {"team": e["team"], "name": _team_name(a, e["team"])})],
    "best_player": lambda e, b, a: [CueEvent("best_player", {"player": e["player"]})],
}
RECORDED_TYPES = frozenset(_MAP)


def _cue_name(e: dict) -> str:
    """The cue event a recorded event stands for (for undo's `undone`)."""
    special = {"spun": "spin", "judged": "correct" if e.get("correct") else "incorrect",
               "decisive_decided": "decisive_granted" if e.get("granted") else "decisive_refused",
               "point": "score", "score_set": "score"}
    return special.get(e["type"], e["type"])


def _score(g: Game | None) -> CueEvent:
    score = g.score if g else {"experts": 0, "viewers": 0}
    return CueEvent("score", {"experts": score["experts"], "viewers": score["viewers"]})


_LAYER_CUES = {"layer_taken": "rundown_take", "layer_out": "rundown_out", "layer_done": "rundown_done"}


def _graphics_cues(e: dict) -> list[CueEvent]:
    title = str((e.get("data") or {}).get("title", ""))
    shown = e["type"] in ("graphic_shown", "layer_taken")
    out = [CueEvent("graphic_shown", {"graphic": e["graphic"], "title": title}) if shown
           else CueEvent("graphic_hidden", {"graphic": e["graphic"]})]
    if e["type"] in _LAYER_CUES:
        fields = {"label": str(e.get("label") or ""), "layer": str(e.get("layer") or ""), "item": str(e.get("item") or "")}
        if shown:
            fields["graphic"] = str(e["graphic"])
        out.append(CueEvent(_LAYER_CUES[e["type"]], fields))
    return out


def cue_events(change: Change) -> list[CueEvent]:
    """The named events one change means, in the order they happened."""
    if change.kind == "graphics":
        return [c for e in change.events for c in _graphics_cues(e)]
    if change.kind == "moment":
        return [CueEvent("ten_seconds", {"kind": e.get("kind", "")}) for e in change.events if e["type"] == "ten_seconds"]
    if change.kind == "on_air":
        title = change.after.title if change.after else ""
        return [CueEvent("on_air", {"game": change.game_id or "", "title": title}), _score(change.after)]
    before, after = change.before, change.after
    if before is None or after is None:
        return []
    if change.kind == "undo":
        out = [CueEvent("undo", {"undone": _cue_name(change.events[0]) if change.events else ""})]
    elif change.kind in ("command", "time_up"):
        out = []
        for e in change.events:
            out += _MAP.get(e["type"], lambda *_: [])(e, before, after)
            if e["type"] in ("point", "score_set") and all(c.name != "score" for c in out):
                out.append(_score(after))
    else:
        return []
    if before.score != after.score and all(c.name != "score" for c in out):
        out.append(_score(after))
    return out


def state_context(game: Game | None, now: int) -> dict[str, Any]:
    """What templates may read besides the event: `{score.experts}`, `{round.sector}`, ...
    Every key is always present (0 or "" when it does not apply), so a mapping never breaks."""
    rnd = game.round if game else None
    timer = game.timer if game else None
    remaining = 0
    if timer:
        remaining = max(0, timer.ends_at - now) if timer.running and timer.ends_at else timer.remaining_ms
    return {
        "score": dict(game.score) if game else {"experts": 0, "viewers": 0},
        "game": {"id": game.id if game else "", "title": game.title if game else "",
                 "rules": game.rules if game else "", "status": game.status if game else "",
                 "target": game.target if game else 0, "winner": (game.winner or "") if game else ""},
        "round": {"sector": rnd.sector if rnd else 0, "landed": rnd.landed if rnd else 0,
                  "kind": rnd.kind if rnd else "", "phase": rnd.phase if rnd else "",
                  "question": rnd.question + 1 if rnd else 0, "questions": rnd.questions if rnd else 0,
                  "player": (rnd.player or "") if rnd else ""},
        "timer": {"kind": timer.kind if timer else "", "running": bool(timer and timer.running),
                  "remaining_s": _seconds(remaining), "duration_s": _seconds(timer.duration_ms) if timer else 0},
    }


def _flatten(ctx: dict, prefix: str = "") -> list[str]:
    names = []
    for key, value in ctx.items():
        names += _flatten(value, f"{prefix}{key}.") if isinstance(value, dict) else [prefix + key]
    return names


STATE_NAMES = frozenset(_flatten(state_context(None, 0)))
