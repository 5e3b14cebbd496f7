"""Validate a game spec (API.md, `POST /api/games`) into a normalized, JSON-safe dict."""
from __future__ import annotations

from typing import Any

from .errors import InputError
from .names import fold_name
from .table import KINDS, MULTI_KINDS, QUESTIONS_PER_KIND

RULE_SETS = ("tv", "club")
DEFAULT_TIMERS = {"minute": 60_000, "blitz": 20_000, "extra_minute": 60_000, "club_help": 20_000}
# The top's timings (ms): it turns until the arrow first stops; on a played sector it rests, then
# walks clockwise one sector at a time to the round's sector. A game may set its own (a studio's
# shorter turn for a stream, a rehearsal); the bounds keep the arrow's walk watchable.
DEFAULT_SPIN = {"turn": 4200, "rest": 450, "step": 420}
SPIN_BOUNDS = {"turn": (500, 20_000), "rest": (0, 5_000), "step": (50, 2_000)}
DEFAULT_SECTORS = 13
MAX_TEXT = 10_000
MAX_NAME = 200

_TOP_FIELDS = {
    "rules", "title", "target", "experts", "teams", "game_day", "sectors", "sector_count",
    "timers", "spin", "season", "stage", "final_team", "lost_before",
}
_QUESTION_FIELDS = {
    "text", "answer", "accepted", "rejected", "comment", "source", "author", "prize", "media",
}


def _fail(where: str, what: str) -> InputError:
    return InputError("bad_spec", f"{where}: {what}", field=where)


def _obj(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(where, "must be an object")
    return value


def _str(value: Any, where: str, *, limit: int = MAX_NAME, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, "must be a non-empty string")
    if len(value) > limit:
        raise _fail(where, f"is longer than {limit} characters")
    return value.strip()


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(where, f"must be a whole number from {lo} to {hi}")
    return value


def _name(value: Any, where: str, *, required: bool = True) -> str | None:
    name = _str(value, where, required=required)
    return None if name is None else fold_name(name)


def _names(value: Any, where: str, *, limit: int = 20) -> list[str]:
    if not isinstance(value, list) or len(value) > limit:
        raise _fail(where, f"must be a list of at most {limit} names")
    names = [_name(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if len(set(names)) != len(names):
        raise _fail(where, "has the same name twice")
    return names  # type: ignore[return-value]


def _members(value: Any, where: str, players: list[str]) -> list[int | None] | None:
    """The league's member id of each player, in the players' order (null: not a member).
    Fixed when the game is made, so renaming a member later moves no points."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != len(players):
        raise _fail(where, f"must list one member id (or null) per player ({len(players)})")
    for i, v in enumerate(value):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise _fail(f"{where}[{i}]", "must be a member id (a whole number ≥ 1) or null")
    given = [v for v in value if v is not None]
    if len(set(given)) != len(given):
        raise _fail(where, "names a member twice")
    return list(value)


def _person(value: Any, where: str) -> dict | None:
    if value is None:
        return None
    value = _obj(value, where)
    extra = set(value) - {"name", "city", "photo"}
    if extra:
        raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
    return {
        "name": _name(value.get("name"), f"{where}.name"),
        "city": _name(value.get("city"), f"{where}.city", required=False),
        "photo": _str(value.get("photo"), f"{where}.photo", limit=500, required=False),
    }


def _prize(value: Any, where: str) -> dict | None:
    if value is None:
        return None
    value = _obj(value, where)
    amount = value.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount < 0:
        raise _fail(f"{where}.amount", "must be a number ≥ 0")
    return {"amount": amount, "currency": _str(value.get("currency", "UAH"), f"{where}.currency", limit=10)}


def _text_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or len(value) > 50:
        raise _fail(where, "must be a list of strings")
    return [_str(v, f"{where}[{i}]", limit=MAX_TEXT) for i, v in enumerate(value)]  # type: ignore[misc]


def parse_question(value: Any, where: str) -> dict:
    value = _obj(value, where)
    extra = set(value) - _QUESTION_FIELDS
    if extra:
        raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
    return {
        "text": _str(value.get("text"), f"{where}.text", limit=MAX_TEXT, required=False),
        "answer": _str(value.get("answer"), f"{where}.answer", limit=MAX_TEXT, required=False),
        "accepted": _text_list(value.get("accepted"), f"{where}.accepted"),
        "rejected": _text_list(value.get("rejected"), f"{where}.rejected"),
        "comment": _str(value.get("comment"), f"{where}.comment", limit=MAX_TEXT, required=False),
        "source": _str(value.get("source"), f"{where}.source", limit=MAX_TEXT, required=False),
        "author": _person(value.get("author"), f"{where}.author"),
        "prize": _prize(value.get("prize"), f"{where}.prize"),
        "media": _text_list(value.get("media"), f"{where}.media"),
    }


def _sectors(spec: dict, rules: str, count: int) -> list[dict]:
    given = spec.get("sectors")
    if given is None:
        given = []
    if not isinstance(given, list):
        raise _fail("sectors", "must be a list")
    by_number: dict[int, dict] = {}
    for i, raw in enumerate(given):
        where = f"sectors[{i}]"
        raw = _obj(raw, where)
        extra = set(raw) - {"number", "kind", "questions"}
        if extra:
            raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
        number = _int(raw.get("number"), f"{where}.number", 1, count)
        if number in by_number:
            raise _fail(where, f"sector {number} is listed twice")
        kind = raw.get("kind", "regular")
        if kind not in KINDS:
            raise _fail(f"{where}.kind", f"must be one of {', '.join(KINDS)}")
        questions = raw.get("questions")
        if questions is None:
            questions = []
        if not isinstance(questions, list):
            raise _fail(f"{where}.questions", "must be a list")
        need = QUESTIONS_PER_KIND[kind]
        if questions and len(questions) != need:
            raise _fail(f"{where}.questions", f"a {kind} envelope holds {need} question(s), got {len(questions)}")
        by_number[number] = {
            "number": number,
            "kind": kind,
            "questions": [parse_question(q, f"{where}.questions[{j}]") for j, q in enumerate(questions)],
        }
    sectors = []
    for number in range(1, count + 1):
        default_kind = "sponsor" if rules == "tv" and number == 13 else "regular"
        sectors.append(by_number.get(number, {"number": number, "kind": default_kind, "questions": []}))
    for kind in MULTI_KINDS:
        if sum(s["kind"] == kind for s in sectors) > 1:
            raise _fail("sectors", f"at most one {kind} sector")
    if rules == "club" and any(s["kind"] == "sponsor" for s in sectors):
        raise _fail("sectors", "the club game has no sponsor sector")
    return sectors


def _durations(value: Any, where: str, what: str, defaults: dict[str, int],
               bounds: dict[str, tuple[int, int]]) -> dict:
    """A table of named durations (ms): the defaults, with those `value` gives, each in its bounds."""
    out = dict(defaults)
    if value is None:
        return out
    value = _obj(value, where)
    for key, ms in value.items():
        if key not in defaults:
            raise _fail(where, f"unknown {what} {key!r} (known: {', '.join(defaults)})")
        out[key] = _int(ms, f"{where}.{key}", *bounds[key])
    return out


def _timers(value: Any) -> dict:
    return _durations(value, "timers", "timer", DEFAULT_TIMERS, {k: (1_000, 3_600_000) for k in DEFAULT_TIMERS})


def _spin(value: Any) -> dict:
    return _durations(value, "spin", "timing", DEFAULT_SPIN, SPIN_BOUNDS)


def _teams(value: Any) -> list[dict]:
    if not isinstance(value, list) or not 2 <= len(value) <= 60:
        raise _fail("teams", "a club game needs a list of 2 to 60 teams")
    teams, ids = [], set()
    for i, raw in enumerate(value):
        raw = _obj(raw, f"teams[{i}]")
        team_id = _str(raw.get("id"), f"teams[{i}].id", limit=40)
        if team_id in ids:
            raise _fail(f"teams[{i}].id", f"team id {team_id!r} is used twice")
        ids.add(team_id)
        players = _names(raw.get("players", []), f"teams[{i}].players")
        team = {"id": team_id, "name": _name(raw.get("name"), f"teams[{i}].name"), "players": players}
        members = _members(raw.get("members"), f"teams[{i}].members", players)
        if members is not None:
            team["members"] = members
        teams.append(team)
    return teams


def parse_spec(spec: Any) -> dict:
    """Check a game spec and return it normalized; raise InputError naming the field."""
    spec = _obj(spec, "game spec")
    extra = set(spec) - _TOP_FIELDS
    if extra:
        raise _fail("game spec", f"unknown field {sorted(extra)[0]!r}")
    rules = spec.get("rules")
    if rules not in RULE_SETS:
        raise _fail("rules", f"must be one of {', '.join(RULE_SETS)}")
    count = _int(spec.get("sector_count", DEFAULT_SECTORS), "sector_count", 2, 24)
    out: dict[str, Any] = {
        "rules": rules,
        "title": _str(spec.get("title"), "title", required=False) or "",
        "target": _int(spec.get("target", 6), "target", 1, 20),
        "sector_count": count,
        "timers": _timers(spec.get("timers")),
        "spin": _spin(spec.get("spin")),
        "sectors": _sectors(spec, rules, count),
    }
    experts = spec.get("experts")
    if experts is not None:
        experts = _obj(experts, "experts")
        players = _names(experts.get("players", []), "experts.players")
        captain = _name(experts.get("captain"), "experts.captain", required=False)
        if captain and players and captain not in players:
            raise _fail("experts.captain", f"{captain!r} is not one of the players")
        out["experts"] = {"name": _name(experts.get("name"), "experts.name"), "players": players, "captain": captain}
        members = _members(experts.get("members"), "experts.members", players)
        if members is not None:
            out["experts"]["members"] = members
    elif rules == "tv":
        out["experts"] = {"name": "Знатоки", "players": [], "captain": None}
    if rules == "club":
        out["teams"] = _teams(spec.get("teams"))
        out["game_day"] = _str(spec.get("game_day"), "game_day", limit=60)
        lost = spec.get("lost_before", [])
        known = {t["id"] for t in out["teams"]}
        if not isinstance(lost, list) or any(t not in known for t in lost):
            raise _fail("lost_before", "must list ids of this game's teams")
        out["lost_before"] = list(dict.fromkeys(lost))
    elif "teams" in spec:
        raise _fail("teams", "only a club game has club-table teams")
    for key in ("season", "stage", "final_team"):
        if spec.get(key) is not None:
            out[key] = _str(spec[key], key, limit=60)
    return out
