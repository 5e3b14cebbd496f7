"""Fill a game's envelopes from a pack: the `sectors` of a game spec (API.md, `POST /api/games`).

Pure: a `Pack` and a request in, the sectors out, or an InputError naming the field. The panel
sends the result on to `POST /api/games`; nothing here creates a game.

Request (all optional but `sectors` or `random`):

    {"rules": "tv", "sector_count": 13,
     "sectors": [{"number": 1, "questions": ["1.4"]},                    # by hand: refs "T.Q"
                 {"number": 7, "kind": "blitz", "questions": ["2.3"]},   # one three-part question
                 {"number": 9, "kind": "superblitz", "questions": ["3.1", "3.2", "3.3"]},
                 {"number": 5, "questions": [], "viewer": {"name": "…"}},   # a paper envelope
                 {"number": 2, "viewer": {"name": "Анна Ли", "city": "Киев", "photo": "…"},
                  "prize": {"amount": 1000, "currency": "UAH"}}],
     "random": true, "seed": 7, "tours": [1, 2], "exclude": ["1.1"]}

A ref "T.Q" is the Q-th question of the T-th tour, both counted from 1 (`GET /api/packs/<id>`
gives each question its `ref`). With `random`, every sector not given questions is drawn
(`"questions": []` keeps a paper envelope): blitz and superblitz take a three-part question
when the pack has one left, else three questions; the others take single questions. The same
seed, pack and request always draw the same envelopes. `viewer` and `prize` go into every
question of their sector: a `viewer` with a name replaces the pack's author, one without a
name adds city/photo to it.
"""
from __future__ import annotations

import random
import re
from typing import Any

from ..rules.errors import InputError, RuleError
from ..rules.names import fold_name
from ..rules.spec import DEFAULT_SECTORS, parse_spec
from ..rules.table import KINDS, MULTI_KINDS, QUESTIONS_PER_KIND
from .model import Pack, PackQuestion
from .spec import parts_to_specs, question_to_spec

_REF = re.compile(r"^(\d{1,4})\.(\d{1,4})$")
_FIELDS = {"rules", "sector_count", "sectors", "random", "seed", "tours", "exclude"}
_SECTOR_FIELDS = {"number", "kind", "questions", "viewer", "prize"}
MAX_SEED = 2**53  # exact in JavaScript too: the panel can show and resend it


def _fail(where: str, what: str) -> InputError:
    return InputError("bad_fill", f"{where}: {what}")


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(where, f"must be a whole number from {lo} to {hi}")
    return value


class _Refs:
    """The pack's questions by ref."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.by_ref: dict[str, PackQuestion] = {}
        self.tour_of: dict[str, int] = {}
        for t, tour in enumerate(pack.tours, 1):
            for q, question in enumerate(tour.questions, 1):
                self.by_ref[f"{t}.{q}"] = question
                self.tour_of[f"{t}.{q}"] = t

    def get(self, ref: Any, where: str) -> tuple[str, PackQuestion]:
        m = _REF.match(ref) if isinstance(ref, str) else None
        if not m:
            raise _fail(where, f"expected a question ref \"tour.question\" such as \"1.4\", got {ref!r}")
        key = f"{int(m.group(1))}.{int(m.group(2))}"
        if key not in self.by_ref:
            tours = len(self.pack.tours)
            t = int(m.group(1))
            if not 1 <= t <= tours:
                raise _fail(where, f"no question {ref}: the pack has {tours} tour(s)")
            raise _fail(where, f"no question {ref}: tour {t} has {len(self.pack.tours[t - 1].questions)} question(s)")
        return key, self.by_ref[key]


def _blitz_ready(q: PackQuestion, need: int) -> bool:
    return len(q.parts) == need


def _questions_for(kind: str, picked: list[tuple[str, PackQuestion]], where: str) -> list[dict]:
    need = QUESTIONS_PER_KIND[kind]
    if len(picked) == need:
        return [question_to_spec(q) for _, q in picked]
    if len(picked) == 1 and need > 1:
        ref, q = picked[0]
        if not _blitz_ready(q, need):
            parts = f"{len(q.parts)} parts" if q.parts else "no parts"
            raise _fail(where, f"a {kind} takes a {need}-part question or {need} questions; {ref} has {parts}")
        return parts_to_specs(q, with_preamble=True)
    wanted = f"{need} question(s)" if need == 1 else f"one {need}-part question or {need} questions"
    raise _fail(where, f"a {kind} envelope takes {wanted}, got {len(picked)}")


def _person(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _fail(where, "must be an object {name, city, photo}")
    extra = set(value) - {"name", "city", "photo"}
    if extra:
        raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
    out = {}
    for key in ("name", "city", "photo"):
        if key in value and value[key] is not None:
            if not isinstance(value[key], str) or not value[key].strip():
                raise _fail(f"{where}.{key}", "must be a non-empty string")
            out[key] = value[key].strip() if key == "photo" else fold_name(value[key])
    return out


def _prize(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) - {"amount", "currency"}:
        raise _fail(where, "must be an object {amount, currency}")
    amount = value.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount < 0:
        raise _fail(f"{where}.amount", "must be a number ≥ 0")
    out: dict[str, Any] = {"amount": amount}
    if value.get("currency") is not None:
        out["currency"] = value["currency"]
    return out


def _override(questions: list[dict], viewer: dict | None, prize: dict | None, where: str) -> None:
    for q in questions:
        if viewer:
            author = dict(viewer) if "name" in viewer else {**(q.get("author") or {}), **viewer}
            if "name" not in author:
                raise _fail(f"{where}.viewer", "the pack names no author here: give the viewer's name")
            q["author"] = author
        if prize:
            q["prize"] = dict(prize)


def fill_sectors(pack: Pack, body: Any) -> dict[str, Any]:
    """→ {"sectors": [...], "sector_count": N, "seed": int | None, "refs": {"<sector>": [refs]}}."""
    if not isinstance(body, dict):
        raise _fail("fill", "send a JSON object with \"sectors\" and/or \"random\": true")
    extra = set(body) - _FIELDS
    if extra:
        raise _fail("fill", f"unknown field {sorted(extra)[0]!r}")
    rules = body.get("rules", "tv")
    if rules not in ("tv", "club"):
        raise _fail("rules", "must be \"tv\" or \"club\"")
    count = _int(body.get("sector_count", DEFAULT_SECTORS), "sector_count", 2, 24)
    drawing = body.get("random", False)
    if not isinstance(drawing, bool):
        raise _fail("random", "must be true or false")
    listed = body.get("sectors", [])
    if not isinstance(listed, list):
        raise _fail("sectors", "must be a list")
    if not listed and not drawing:
        raise _fail("fill", "give \"sectors\" (by hand) or \"random\": true")
    refs = _Refs(pack)

    used: dict[str, int] = {}  # ref → sector number
    plan: dict[int, dict[str, Any]] = {}
    for i, raw in enumerate(listed):
        where = f"sectors[{i}]"
        if not isinstance(raw, dict):
            raise _fail(where, "must be an object {number, kind, questions, viewer, prize}")
        unknown = set(raw) - _SECTOR_FIELDS
        if unknown:
            raise _fail(where, f"unknown field {sorted(unknown)[0]!r}")
        number = _int(raw.get("number"), f"{where}.number", 1, count)
        if number in plan:
            raise _fail(where, f"sector {number} is listed twice")
        kind = raw.get("kind", _default_kind(rules, number))
        if kind not in KINDS:
            raise _fail(f"{where}.kind", f"must be one of {', '.join(KINDS)}")
        entry: dict[str, Any] = {"kind": kind, "where": where,
                                 "viewer": _person(raw["viewer"], f"{where}.viewer") if raw.get("viewer") else None,
                                 "prize": _prize(raw["prize"], f"{where}.prize") if raw.get("prize") else None}
        if "questions" in raw:
            given = raw["questions"]
            if not isinstance(given, list):
                raise _fail(f"{where}.questions", "must be a list of question refs")
            picked = []
            for j, ref in enumerate(given):
                key, q = refs.get(ref, f"{where}.questions[{j}]")
                if key in used:
                    raise _fail(f"{where}.questions[{j}]", f"question {key} is already in sector {used[key]}")
                used[key] = number
                picked.append((key, q))
            entry["picked"] = picked
            entry["questions"] = _questions_for(kind, picked, f"{where}.questions") if picked else []
        plan[number] = entry

    seed = None
    if drawing:
        seed = body.get("seed")
        seed = random.SystemRandom().randrange(MAX_SEED) if seed is None else _int(seed, "seed", 0, MAX_SEED)
        for number in range(1, count + 1):
            plan.setdefault(number, {"kind": _default_kind(rules, number), "where": f"sector {number}",
                                     "viewer": None, "prize": None})
        _draw(plan, refs, used, body, random.Random(seed))
    elif "tours" in body or "exclude" in body or "seed" in body:
        raise _fail("fill", "\"tours\", \"exclude\" and \"seed\" only apply with \"random\": true")

    sectors, chosen = [], {}
    for number in sorted(plan):
        entry = plan[number]
        questions = entry.get("questions") or []
        if not questions and (entry["viewer"] or entry["prize"]):
            # A paper envelope still carries the viewer and the prize for the graphics.
            questions = [{} for _ in range(QUESTIONS_PER_KIND[entry["kind"]])]
        _override(questions, entry["viewer"], entry["prize"], entry["where"])
        sector: dict[str, Any] = {"number": number, "kind": entry["kind"]}
        if questions:
            sector["questions"] = questions
        sectors.append(sector)
        if entry.get("picked"):
            chosen[str(number)] = [ref for ref, _ in entry["picked"]]
    _check(rules, count, sectors)
    return {"sectors": sectors, "sector_count": count, "seed": seed, "refs": chosen}


def _default_kind(rules: str, number: int) -> str:
    return "sponsor" if rules == "tv" and number == 13 else "regular"


def _draw(plan: dict[int, dict], refs: _Refs, used: dict[str, int], body: dict, rng: random.Random) -> None:
    tours = body.get("tours")
    if tours is not None:
        if not isinstance(tours, list) or not tours:
            raise _fail("tours", "must be a non-empty list of tour numbers")
        tours = {_int(t, f"tours[{i}]", 1, len(refs.pack.tours)) for i, t in enumerate(tours)}
    exclude = body.get("exclude", [])
    if not isinstance(exclude, list):
        raise _fail("exclude", "must be a list of question refs")
    excluded = {refs.get(ref, f"exclude[{i}]")[0] for i, ref in enumerate(exclude)}
    pool = [(ref, q) for ref, q in refs.by_ref.items()
            if ref not in used and ref not in excluded and (tours is None or refs.tour_of[ref] in tours)]
    three_part = [p for p in pool if _blitz_ready(p[1], 3)]
    single = [p for p in pool if not _blitz_ready(p[1], 3)]
    rng.shuffle(three_part)
    rng.shuffle(single)
    todo = [n for n in sorted(plan) if "questions" not in plan[n]]
    # Blitz envelopes first: they are the ones that can use a three-part question.
    for number in sorted(todo, key=lambda n: plan[n]["kind"] not in MULTI_KINDS):
        entry = plan[number]
        kind, need = entry["kind"], QUESTIONS_PER_KIND[entry["kind"]]
        if need > 1 and three_part:
            picked = [three_part.pop()]
        elif len(single) >= need:
            picked = [single.pop() for _ in range(need)]
        elif need == 1 and three_part:
            picked = [three_part.pop()]  # no single question left: a three-part one read whole
        else:
            left = len(single) + len(three_part)
            raise RuleError("pack_too_small",
                            f"Not enough questions left in the pack to fill sector {number} ({kind}): "
                            f"{left} left after the other envelopes. Choose more tours, exclude fewer "
                            f"questions or fill fewer sectors.")
        for ref, _ in picked:
            used[ref] = number
        entry["picked"] = picked
        entry["questions"] = _questions_for(kind, picked, entry["where"])


def _check(rules: str, count: int, sectors: list[dict]) -> None:
    """What we return must be accepted by `POST /api/games`: check it with the same validator
    (a club spec also needs teams and a game day, which the panel adds; stand-ins here)."""
    spec: dict[str, Any] = {"rules": rules, "sector_count": count, "sectors": sectors}
    if rules == "club":
        spec.update(teams=[{"id": "a", "name": "a"}, {"id": "b", "name": "b"}], game_day="check")
    try:
        parse_spec(spec)
    except InputError as exc:
        raise InputError("bad_fill", f"the envelopes would not make a game: {exc.message}") from None
