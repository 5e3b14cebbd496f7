"""What must be on air, in pure Python (no browser): for a PUBLIC state (what `/overlay` sends),
the `graphics` message and the server time, which parts of a page are visible and which texts
each must draw — score digits, the timer's text, the question card's fields and when they may
show, the blitz box, strap, ticker, slate and credits texts — and which layer is above which.

`compare(model, drawn)` then lists every difference with a drawn page (tests/browser/drawn.py):
a part visible that must not be, a text missing or wrong, a text drawn where the model has none,
a text covered by a lower layer.

The rules are the docs' (docs/API.md, static/overlays/README.md), not the page scripts': e.g. before
`round.reveal_at` (server ms; absent = revealed already) no graphic shows the sector, the card or
the blitz box.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[2]

# Stacking levels on `/overlays/show`, bottom → top, as documented (docs/API.md, "Layer order"):
# written out here, not imported from overlay/graphics/show.py, so that the oracle checks the product.
STACK: dict[str, int] = {"slate": 0, "credits": 0, "lower-third": 2, "ticker": 3, "bug": 3}
GAME_LEVEL = 1  # every game graphic (scoreboard, timer, table, question, blitz, result, full, club, league)

TV_PARTS = ("table", "scoreboard", "blitz", "question", "timer", "lower-third", "result")
SHOW_GRAPHICS = ("bug", "ticker", "slate", "credits")
MODELLED = frozenset({*TV_PARTS, "full", "show", *SHOW_GRAPHICS})  # pages page_model knows
# Parts whose design clips text on purpose (a crawl, a roll): cut text there is not a defect.
CLIPPING_PARTS = frozenset({"ticker", "credits"})


def level(graphic: str) -> int:
    return STACK.get(graphic, GAME_LEVEL)


# --- words -----------------------------------------------------------------------------------------

@cache
def catalog(lang: str = "ru") -> dict[str, str]:
    """The on-air words (`air.*` msgids without the prefix) of one language's catalog."""
    from babel.messages.pofile import read_po

    with open(ROOT / "overlay/i18n/locales" / lang / "LC_MESSAGES/messages.po", "rb") as f:
        cat = read_po(f)
    return {m.id[4:]: m.string for m in cat if isinstance(m.id, str) and m.id.startswith("air.") and m.string}


def t(key: str, **fields: Any) -> str:
    return catalog()[key].format(**fields)


def norm(text: str) -> str:
    """Whitespace as the eye reads it: no-break spaces are spaces, runs are one."""
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " ")).strip()


# --- the timer's text (static/lib/timer.js formatRemaining) ------------------------------------------

WARNING_MS = 10_000


def format_remaining(ms: int, decimal: str = ",") -> str:
    if ms < WARNING_MS:
        tenths = math.ceil(ms / 100)
        return f"{tenths // 10}{decimal}{tenths % 10}"
    s = math.ceil(ms / 1000)
    return f"{s // 60}:{s % 60:02d}"


def parse_remaining(text: str) -> int | None:
    """Milliseconds a drawn countdown stands for (the top of its step), None if it is no countdown."""
    if m := re.fullmatch(r"(\d+):(\d\d)", text):
        return (int(m[1]) * 60 + int(m[2])) * 1000
    if m := re.fullmatch(r"(\d)[,.](\d)", text):
        return int(m[1]) * 1000 + int(m[2]) * 100
    return None


def remaining(timer: dict, now: int) -> int:
    if timer.get("running") and isinstance(timer.get("ends_at"), (int, float)):
        return max(0, int(timer["ends_at"] - now))
    return max(0, int(timer.get("remaining_ms") or 0))


# --- the model -----------------------------------------------------------------------------------

@dataclass
class Part:
    """One part of a page: whether it is on air, and what it must draw when it is.

    `texts`: [data-ref] → the exact text drawn there ("" = nothing). `contains`: texts drawn
    somewhere in the part. `absent`: texts that must not be drawn in it. `one_of`: every text
    drawn in these refs is one of the values, and at least one is drawn (a crawl, a roll).
    `countdown`: the timer's remaining ms at the moment of the look (a running one moves)."""
    visible: bool
    texts: dict[str, str] = field(default_factory=dict)
    contains: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    one_of: dict[str, set[str]] = field(default_factory=dict)
    countdown: tuple[int, bool] | None = None  # (ms, running)
    picture: bool = False  # a picture must be drawn (pixels checked by the test)
    level: int = GAME_LEVEL
    may_be_empty: bool = False  # it may have left the air by itself (a roll that has passed)


Model = dict[str, Part]


def revealed(state: dict | None, now: int) -> bool:
    """The sector, the card and the blitz box may show: the top has stopped (docs/API.md: a
    missing `reveal_at` means revealed already)."""
    at = ((state or {}).get("round") or {}).get("reveal_at")
    return not isinstance(at, (int, float)) or now >= at


def playing(state: dict | None) -> bool:
    return bool(state) and state.get("status") == "playing"


def experts_name(state: dict) -> str:
    return ((state.get("experts") or {}).get("name") or "").strip()


def scoreboard(state: dict | None, now: int) -> Part:
    if not state:
        return Part(False)
    score = state.get("score") or {}
    banked = state.get("extra_minutes") or 0
    badges = {
        t("extra_minute_badge") + (f" ×{banked}" if banked > 1 else ""): playing(state) and banked > 0,
        t("club_help_badge"): playing(state) and state.get("rules") != "club"
        and not ((state.get("club_help") or {}).get("used", True)),
        t("decisive_badge"): bool((state.get("decisive") or {}).get("active")),
    }
    return Part(True, texts={"experts": str(score.get("experts", 0)), "viewers": str(score.get("viewers", 0))},
                contains=[b for b, on in badges.items() if on], absent=[b for b, on in badges.items() if not on])


SHOWN_PHASES = {"discussion", "answer", "club_help"}


def timer_visible(state: dict | None) -> bool:
    tm = (state or {}).get("timer")
    if not tm or not playing(state):
        return False
    if tm.get("running"):
        return True
    r = state.get("round") or {}
    if r.get("phase") not in SHOWN_PHASES:
        return False
    return not (r.get("early") and (tm.get("remaining_ms") or 0) >= tm.get("duration_ms", 0))


def timer(state: dict | None, now: int) -> Part:
    if not timer_visible(state):
        return Part(False)
    tm = state["timer"]
    rem = remaining(tm, now)
    return Part(True, texts={"kind": t(f"timer_{tm['kind']}"), "up": t("time_up") if rem == 0 else ""},
                countdown=(rem, bool(tm.get("running"))))


def kind_word(kind: str | None) -> str:
    return t(f"kind_{kind}") if kind and kind != "regular" else ""


def table(state: dict | None, now: int, *, caption: bool = True) -> Part:
    if not playing(state) or not state.get("sectors"):
        return Part(False)
    r = state.get("round") or None
    numbers = [str(s["number"]) for s in state["sectors"]]
    texts: dict[str, str] = {}
    if caption:
        active = bool(r) and r.get("phase") != "closed" and revealed(state, now)
        texts = {"cap-sector": t("sector_n", n=r["sector"]) if active else "",
                 "cap-kind": kind_word(r.get("kind")) if active else ""}
    return Part(True, texts=texts, contains=numbers)


def question(state: dict | None, now: int, step: str | None = None) -> Part:
    """The card. `step`: the rundown's step when a rundown took it (card → text → answer): a step
    only holds back what the public state allows, never reveals more."""
    r = (state or {}).get("round")
    if not r or not playing(state) or not revealed(state, now):
        return Part(False)
    results = r.get("results") or []
    i = r.get("question", 0)
    verdict = results[i] if i < len(results) else (results[-1] if r.get("phase") == "closed" and results else None)
    flag = t("decisive_badge") if (state.get("decisive") or {}).get("active") else t("early_badge") if r.get("early") else ""
    prize = r.get("prize") or {}
    author = r.get("author") or {}
    texts = {
        "sector": t("sector_n", n=r["sector"]),
        "kind": kind_word(r.get("kind")),
        "count": t("question_n_of", n=i + 1, total=r["questions"]) if (r.get("questions") or 0) > 1 else "",
        "flag": flag,
        "name": author.get("name") or t("viewers"),
        "city": author.get("city") or "",
        "text": norm(r.get("text") or ""),
        "answer": norm(r.get("answer") or ""),
        "verdict": {"correct": t("verdict_correct"), "incorrect": t("verdict_incorrect")}.get(verdict or "", ""),
    }
    if step == "card":
        texts["text"] = ""
    if step in ("card", "text"):
        texts["answer"] = texts["verdict"] = ""
    part = Part(True, texts=texts)
    if prize.get("amount") is None:
        part.texts["prize"] = ""
    else:
        part.contains.append(f"{prize['amount']:,}".replace(",", " "))
    return part


def blitz(state: dict | None, now: int) -> Part:
    r = (state or {}).get("round")
    if not r or not playing(state) or r.get("kind") not in ("blitz", "superblitz") or not revealed(state, now):
        return Part(False)
    player = (r.get("player") or "") if r["kind"] == "superblitz" else ""
    results = r.get("results") or []
    # a judged mark shows its verdict (a tick, a cross) in place of its number
    part = Part(True, texts={"title": t(f"kind_{r['kind']}"), "player": player},
                contains=[str(i + 1) for i in range(max(1, r.get("questions") or 3)) if i >= len(results)])
    if not player:
        part.absent.append(t("blitz_player"))
    return part


def on_air_entry(entries: dict, name: str, now: int) -> dict | None:
    """The entry of `name` if it is on air at server time `now` (static/lib/cue.js onAirEntry)."""
    e = entries.get(name)
    if not e:
        return None
    ends = e.get("expires_at")
    if not isinstance(ends, (int, float)):
        d = (e.get("data") or {}).get("duration_ms")
        ends = e["shown_at"] + d if isinstance(d, (int, float)) and isinstance(e.get("shown_at"), (int, float)) else None
    return None if ends is not None and now >= ends else e


def result(state: dict | None, now: int, entries: dict) -> Part:
    if not state or not (state.get("status") == "finished" or entries.get("result")):
        return Part(False)
    score = state.get("score") or {}
    return Part(True, texts={"experts": str(score.get("experts", 0)), "viewers": str(score.get("viewers", 0))})


def lower_third(entries: dict, now: int) -> Part:
    e = on_air_entry(entries, "lower-third", now)
    if not e:
        return Part(False, level=level("lower-third"))
    d = e.get("data") or {}
    return Part(True, texts={"title": norm(d.get("title") or ""), "subtitle": norm(d.get("subtitle") or "")},
                picture=d.get("style") == "photo" and bool(d.get("photo")), level=level("lower-third"))


SLATE_TITLES = {"break": "slate_break", "soon": "slate_soon"}


def show_graphic(name: str, entries: dict, now: int) -> Part:
    e = on_air_entry(entries, name, now)
    if not e:
        return Part(False, level=level(name))
    d = e.get("data") or {}
    part = Part(True, level=level(name))
    if name == "bug":
        part.picture = bool(d.get("media"))
    elif name == "ticker":
        items = {norm(i if isinstance(i, str) else (i or {}).get("text", "")) for i in d.get("items") or []}
        part.texts["label"] = norm(d["title"] if "title" in d else t("ticker_title"))
        part.one_of["track"] = items
    elif name == "slate":
        kind = SLATE_TITLES.get(d.get("kind", ""))
        part.texts.update(title=norm(d.get("title") or (t(kind) if kind else "")),
                          subtitle=norm(d.get("subtitle") or ""), kicker=norm(d.get("kicker") or ""))
    elif name == "credits":
        rows = [n if isinstance(n, dict) else {"name": n} for n in d.get("names") or []]
        # a roll without `loop` goes out by itself once it has passed, which only the page can tell
        part.may_be_empty = not d.get("loop")
        part.one_of["roll"] = ({norm(d.get("title") or t("credits_title"))} | {norm(r.get("name", "")) for r in rows}
                               | {norm(r.get("role", "")) for r in rows if r.get("role")})
    return part


def tv_parts(state: dict | None, entries: dict, now: int, *, full: bool) -> Model:
    model = {
        "table": table(state, now, caption=not full),  # `full` hides the caption: the card repeats it
        "scoreboard": scoreboard(state, now),
        "blitz": blitz(state, now),
        "question": question(state, now, ((entries.get("question") or {}).get("data") or {}).get("step")),
        "timer": timer(state, now),
        "lower-third": lower_third(entries, now),
        "result": result(state, now, entries),
    }
    if full and model["result"].visible:  # at the end the result takes the frame, the rest steps back
        model = {k: (v if k == "result" else Part(False)) for k, v in model.items()}
    return model


def page_model(page: str, state: dict | None, gfx: dict, now: int) -> Model:
    """What `/overlays/<page>` must draw. `gfx`: the last `graphics` message ({graphics, hidden,
    layers}); `now`: server epoch ms of the look."""
    entries = gfx.get("graphics") or {}
    hidden = set(gfx.get("hidden") or [])
    if page == "show":
        model = show_model(state, gfx, now)
    elif page == "full":
        model = tv_parts(state, entries, now, full=True)
    elif page in TV_PARTS:
        model = {page: tv_parts(state, entries, now, full=False)[page]}
    elif page in SHOW_GRAPHICS:
        model = {page: show_graphic(page, entries, now)}
    else:
        raise ValueError(f"no model of /overlays/{page}")
    if page != "show" and (page in hidden):
        return {k: Part(False, level=v.level) for k, v in model.items()}
    # `hide` takes a game graphic's part off air whatever the state says (cue-driven ones leave `graphics`)
    return {k: (Part(False, level=v.level) if k in hidden else v) for k, v in model.items()}


def show_model(state: dict | None, gfx: dict, now: int) -> Model:
    """`/overlays/show` (all layers): a part is on air while an item of its graphic is on a
    layer, and then draws what its own page draws."""
    on_layers = {e["graphic"]: {**e, "data": e.get("data") or {}} for e in (gfx.get("layers") or {}).values()}
    game = tv_parts(state, on_layers, now, full=False)
    model: Model = {}
    for name in (*TV_PARTS, *SHOW_GRAPHICS):
        if name in SHOW_GRAPHICS:
            part = show_graphic(name, on_layers, now)
        elif name in ("lower-third", "result"):
            part = game[name]
        else:
            part = game[name] if name in on_layers else Part(False)
        part.level = level(name)
        model[name] = part
    return model


# --- comparison with what is drawn ------------------------------------------------------------------

class DrawnText(Protocol):
    text: str
    part: str
    ref: str
    shown: bool
    covered_by: str


def compare(model: Model, texts: list[DrawnText], *, countdown_slack_ms: int = 1500) -> list[str]:
    """Every difference between the model and the drawn texts of one page."""
    out: list[str] = []
    def higher(x: DrawnText, name: str) -> bool:  # covered by a part of a higher layer: as it should be
        above = x.covered_by.split(" ", 1)[0]
        return above in model and model[above].visible and model[above].level > model[name].level

    for name, part in model.items():
        drawn = [x for x in texts if x.part == name and (x.shown or (x.covered_by and higher(x, name)))]
        if not part.visible:
            if drawn:
                out.append(f"{name}: must be off air, draws {[x.text for x in drawn][:6]}")
            continue
        # covered by a lower layer: the stacking is wrong
        for x in texts:
            if x.part == name and x.covered_by:
                above = x.covered_by.split(" ", 1)[0]
                if above in model and model[above].level < part.level:
                    out.append(f"{name}: «{x.text}» is under {x.covered_by}, a layer that must be below it")
        if not drawn and part.may_be_empty:
            continue
        if not drawn and (part.texts or part.contains or part.one_of or part.countdown):
            out.append(f"{name}: must be on air, draws nothing")
            continue
        in_ref = lambda ref: norm("".join(x.text for x in drawn if x.ref == ref))  # noqa: E731
        for ref, want in part.texts.items():
            got = in_ref(ref)
            if got != want:
                out.append(f"{name}/{ref}: draws «{got}», must be «{want}»")
        all_text = norm(" ".join(x.text for x in drawn))
        for want in part.contains:
            if not any(norm(x.text) == want for x in drawn) and want not in all_text:
                out.append(f"{name}: must draw «{want}»")
        for bad in part.absent:
            if any(norm(x.text) == bad for x in drawn):
                out.append(f"{name}: draws «{bad}», which must not show")
        for ref, allowed in part.one_of.items():
            got = [norm(x.text) for x in drawn if x.ref == ref]
            if not got:
                out.append(f"{name}/{ref}: draws nothing")
            elif stray := [g for g in got if g not in allowed]:
                out.append(f"{name}/{ref}: draws {stray[:4]}, not in the data")
        if part.countdown:
            out += _countdown(name, part.countdown, in_ref("digits"), countdown_slack_ms)
    return out


def _countdown(name: str, countdown: tuple[int, bool], got: str, slack: int) -> list[str]:
    ms, running = countdown
    if not running:
        return [] if got == format_remaining(ms) else [f"{name}/digits: draws «{got}», must be «{format_remaining(ms)}»"]
    drawn = parse_remaining(got)
    if drawn is None or abs(drawn - ms) > slack:
        return [f"{name}/digits: draws «{got}», the countdown is at {ms} ms"]
    return []
