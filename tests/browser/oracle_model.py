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
CLUB_GRAPHICS = ("central-table", "club-tables", "draw", "game-rating", "best-player")
LEAGUE_TOP = 40  # static/lib/league.js: the most rows a season board draws (written out, not imported: the oracle checks the product)
LEAGUE_GRAPHICS = ("season-rating", "final-teams", "series")  # cues over the public league data
MODELLED = frozenset({*TV_PARTS, "full", "show", *SHOW_GRAPHICS, *CLUB_GRAPHICS, *LEAGUE_GRAPHICS})
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


@cache
def plurals(lang: str = "ru") -> dict[str, tuple[str, ...]]:
    """The on-air plural messages (`air.*`, without the prefix): key → its forms."""
    from babel.messages.pofile import read_po

    with open(ROOT / "overlay/i18n/locales" / lang / "LC_MESSAGES/messages.po", "rb") as f:
        cat = read_po(f)
    return {m.id[0][4:]: tuple(m.string) for m in cat if isinstance(m.id, tuple) and m.id[0].startswith("air.")}


def ru_form(n: int) -> int:
    """The Russian catalog's plural rule (its Plural-Forms header)."""
    if n % 10 == 1 and n % 100 != 11:
        return 0
    return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2


def tn(key: str, n: int) -> str:
    return plurals()[key][ru_form(n)].format(n=n)


def squash(text: str) -> str:
    """A text without its spaces: a ref drawn as several text nodes (a name isolated in <bdi>
    between separators) is read back node by node, each trimmed."""
    return re.sub(r"\s+", "", text.replace("\u00a0", "").replace("\u202f", ""))


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
    seq: dict[str, list[str]] = field(default_factory=dict)  # [data-ref] → its texts in document order (rows)


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
        and (state.get("round") or {}).get("phase") == "club_help",
        t("decisive_badge"): bool((state.get("decisive") or {}).get("active")),
    }
    part = Part(True, texts={"experts": str(score.get("experts", 0)), "viewers": str(score.get("viewers", 0))},
                contains=[b for b, on in badges.items() if on], absent=[b for b, on in badges.items() if not on])
    if state.get("rules") == "club":  # the experts are the team at the Central Table, when one sits
        part.texts["team"] = norm((central_team(state) or {}).get("name") or "")
    return part


SHOWN_PHASES = {"discussion", "answer", "club_help"}


def timer_visible(state: dict | None, now: int) -> bool:
    """Nothing of a round before its reveal: a timer started while the top turns waits too."""
    tm = (state or {}).get("timer")
    if not tm or not playing(state) or not revealed(state, now):
        return False
    if tm.get("running"):
        return True
    r = state.get("round") or {}
    if r.get("phase") not in SHOWN_PHASES:
        return False
    return not (r.get("early") and (tm.get("remaining_ms") or 0) >= tm.get("duration_ms", 0))


def timer(state: dict | None, now: int) -> Part:
    if not timer_visible(state, now):
        return Part(False)
    tm = state["timer"]
    rem = remaining(tm, now)
    kind = "superblitz" if tm["kind"] == "blitz" and (state.get("round") or {}).get("kind") == "superblitz" else tm["kind"]
    return Part(True, texts={"kind": t(f"timer_{kind}"), "up": t("time_up") if rem == 0 else ""},
                countdown=(rem, bool(tm.get("running"))))


def superseded(state: dict) -> bool:
    """The closed round from before a granted decisive round: history, not drawn (lib/reveal.js)."""
    return bool((state.get("decisive") or {}).get("active")) and (state.get("round") or {}).get("phase") == "closed"


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
    if not r or not playing(state) or not revealed(state, now) or superseded(state):
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
    if (not r or not playing(state) or r.get("kind") not in ("blitz", "superblitz") or not revealed(state, now)
            or superseded(state)):
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


def credits_entry(page: str, gfx: dict) -> dict | None:
    """The credits' entry a page draws: from the layers on the rundown's output, else `graphics`."""
    if page == "show":
        return next((e for e in (gfx.get("layers") or {}).values() if e.get("graphic") == "credits"), None)
    return (gfx.get("graphics") or {}).get("credits")


def roll_between_passes(entry: dict, now: int, window_px: float, clear_px: float, roll_px: float,
                        slack_ms: int = 600) -> bool:
    """A looping roll (static/overlays/credits.js) runs through the window's whole height plus
    its own, then starts again below the window's bottom; a window cut short above a ticker
    (`clear_px`) hides its first `clear_px` of travel. So each pass begins with a moment in which
    no name is drawn — true when `now` (± `slack_ms`, the look's own length) falls there."""
    d = entry.get("data") or {}
    speed = d.get("speed") if isinstance(d.get("speed"), (int, float)) else 70
    full = window_px + clear_px
    travel = full + roll_px
    if travel <= 0 or not isinstance(entry.get("shown_at"), (int, float)):
        return False
    slack = speed * slack_ms / 1000
    y = ((now - entry["shown_at"]) * speed / 1000) % travel
    return y <= clear_px + slack or y >= travel - slack


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


def page_model(page: str, state: dict | None, gfx: dict, now: int, league: dict | None = None) -> Model:
    """What `/overlays/<page>` must draw. `gfx`: the last `graphics` message ({graphics, hidden,
    layers}); `now`: server epoch ms of the look; `league`: the public league views the league
    graphics draw from ({"seasons": GET /api/public/seasons/<id>, "series": .../series/<id>})."""
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
    elif page in CLUB_GRAPHICS:
        model = {page: CLUB_MODELS[page](state, entries, now)}
    elif page in LEAGUE_GRAPHICS:
        model = {page: league_graphic(page, entries, now, (league or {}).get(LEAGUE_KIND[page]))}
    else:
        raise ValueError(f"no model of /overlays/{page}")
    if page != "show" and (page in hidden):
        return {k: Part(False, level=v.level) for k, v in model.items()}
    # `hide` takes a game graphic's part off air whatever the state says (cue-driven ones leave `graphics`)
    return {k: (Part(False, level=v.level) if k in hidden else v) for k, v in model.items()}


# --- club graphics (static/overlays/README.md: central-table, club-tables, draw, game-rating, best-player)

def club(state: dict | None) -> bool:
    return bool(state) and state.get("rules") == "club" and bool(state.get("teams"))


def central_team(state: dict | None) -> dict | None:
    if not state or state.get("rules") != "club":
        return None
    seat = (state.get("central") or {}).get("team")
    return next((x for x in state.get("teams") or [] if x["id"] == seat), None) if seat else None


def team_name(state: dict, team_id: str) -> str:
    return norm(next((x["name"] for x in state.get("teams") or [] if x["id"] == team_id), str(team_id)))


def central_table(state: dict | None, entries: dict, now: int) -> Part:
    """The seated team and its players, while the game is played (or while cued)."""
    team = central_team(state)
    if not team or not (playing(state) or on_air_entry(entries, "central-table", now)):
        return Part(False)
    return Part(True, texts={"name": norm(team["name"])}, seq={"players": [norm(p) for p in team.get("players") or []]},
                contains=[t("central_table")])


def club_tables(state: dict | None, entries: dict, now: int) -> Part:
    """Every team as a numbered table; the sector once revealed; how many tables answered."""
    if not club(state):
        return Part(False)
    r = state.get("round") or None
    teams = state["teams"]
    answered = (r or {}).get("club_correct")
    asked = (r or {}).get("central_team")
    if not r:
        count = ""
    elif answered is not None:
        count = t("answered_n_of", n=len(answered), total=len([x for x in teams if x["id"] != asked]))
    else:
        count = t("answers_pending")
    return Part(True, texts={"sector": t("sector_n", n=r["sector"]) if r and revealed(state, now) else "", "count": count},
                seq={"grid": [x for i, team in enumerate(teams) for x in (str(i + 1), norm(team["name"]))]},
                contains=[t("club_tables"), t("legend_correct"), t("legend_lost")])


def draw(state: dict | None, entries: dict, now: int) -> Part:
    """The candidates for the free seat; the team drawn, for a while after it sits (the page's
    own hold, which only the page can time: then it may have gone), or while cued."""
    c = (state or {}).get("central") if (state or {}).get("rules") == "club" else None
    if not c:
        return Part(False)
    seat, ids = c.get("team"), c.get("candidates") or []
    if seat is None and playing(state):
        known = c.get("left") is None or ((state.get("round") or {}).get("club_correct") is not None)
        if not (known and ids):
            return Part(False)
        names = [team_name(state, i) for i in ids]
        return Part(True, texts={"title": t("draw_title" if len(ids) > 1 else "draw_seated"),
                                 "reel": "?" if len(ids) > 1 else names[0]},
                    seq={"chips": names if len(ids) > 1 else []})  # a single candidate just sits: no chips
    if seat is None:
        return Part(False)
    everyone = {team_name(state, x["id"]) for x in state.get("teams") or []}
    # after a spin the reel stops on the team; its neighbours fade but may still be drawn
    return Part(True, texts={"title": t("draw_seated")}, contains=[team_name(state, seat)],
                one_of={"reel": everyone},
                may_be_empty=not on_air_entry(entries, "draw", now))


def rating_rows(teams: list[dict]) -> list[tuple[str, dict]]:
    """(place, team) in rating order: gain, then table order; equal gains share «2–3»."""
    gain = lambda x: x.get("gain", (x.get("correct") or 0) + (x.get("central_correct") or 0))  # noqa: E731
    order = sorted(enumerate(teams), key=lambda it: (-gain(it[1]), it[0]))
    out: list[tuple[str, dict]] = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and gain(order[j + 1][1]) == gain(order[i][1]):
            j += 1
        out += [(str(i + 1) if i == j else f"{i + 1}–{j + 1}", order[k][1]) for k in range(i, j + 1)]
        i = j + 1
    return out


def game_rating(state: dict | None, entries: dict, now: int) -> Part:
    """This game's table: place, team, correct, at the Central Table, points, in rating order."""
    if not club(state):
        return Part(False)
    rows = [x for place, team in rating_rows(state["teams"])
            for x in (place, norm(team["name"]), str(team.get("correct") or 0), str(team.get("central_correct") or 0),
                      str(team.get("gain", (team.get("correct") or 0) + (team.get("central_correct") or 0))))]
    return Part(True, seq={"list": rows}, contains=[t("game_rating"), t("col_points")])


def best_player(state: dict | None, entries: dict, now: int) -> Part:
    """Named after the experts' win: the player, the team they sat with, the final score."""
    player = (state or {}).get("best_player") if (state or {}).get("rules") == "club" else None
    if not player:
        return Part(False)
    teams = {x["id"]: x for x in state.get("teams") or []}
    seated = [teams[i] for i in (state.get("central") or {}).get("seated") or [] if i in teams]
    team = next((x for x in [*seated, *teams.values()] if player in (x.get("players") or [])), None)
    score = state.get("score") or {}
    won = f"{t('winner_experts')} · " if state.get("winner") == "experts" else ""
    return Part(True, texts={"name": norm(player), "team": norm((team or {}).get("name") or ""),
                             "score": f"{won}{score.get('experts', 0)} : {score.get('viewers', 0)}"})


CLUB_MODELS = {"central-table": central_table, "club-tables": club_tables, "draw": draw,
               "game-rating": game_rating, "best-player": best_player}


# --- league graphics: cues over GET /api/public/seasons/<id> and /series/<id> (static/lib/league.js)

LEAGUE_KIND = {"season-rating": "seasons", "final-teams": "seasons", "series": "series"}


def lt(key: str, **fields: Any) -> str:
    return t(f"league_{key}", **fields)


def league_graphic(name: str, entries: dict, now: int, data: dict | None) -> Part:
    e = on_air_entry(entries, name, now)
    if not e or not data:
        return Part(False)
    cue = e.get("data") or {}
    if name == "season-rating":
        top = cue.get("top", 10)
        top = min(top, LEAGUE_TOP) if isinstance(top, int) and top > 0 else 10
        rows = (data.get("rating") or [])[:top]
        return Part(True, texts={"title": norm(cue.get("title") or lt("title")), "sub": norm(data["season"]["name"]),
                                 "empty": "" if rows else lt("empty")},
                    seq={"list": [x for r in rows for x in (str(r["place"]), norm(r["player"]),
                                                              tn("league_games_n", r["games"]), str(r["points"]))]})
    if name == "final-teams":
        teams = data.get("final_teams")
        if not teams:
            return Part(False)
        games = (data.get("final") or {}).get("games") or []
        score = lambda side: next((f"{g['score']['experts']} : {g['score']['viewers']}"  # noqa: E731
                                   for g in games if g.get("final_team") == side), "")
        # once a Final game names its line-up (`players`), that is the team, not the proposal
        played = lambda side: next((g["players"] for g in games  # noqa: E731
                                    if g.get("final_team") == side and g.get("players")), None)
        lineup = {side: played(side) or teams[side] for side in ("club", "central_table")}
        proposal = not played("club") or not played("central_table")
        winner = (data.get("final") or {}).get("winner")
        sphinx = (data.get("awards") or {}).get("crystal_sphinx")
        foot = (f"{lt('winner')}: {lt(winner)}" + (f" · {lt('sphinx')}: {norm(sphinx)}" if sphinx else "") if winner
                else lt("provisional") if teams.get("provisional") and proposal else "")
        return Part(True, texts={"title": lt("final"), "sub": norm(data["season"]["name"]), "club-name": lt("club"),
                                 "central-name": lt("central_table"), "club-score": score("club"),
                                 "central-score": score("central_table"), "foot": foot},
                    seq={"club": [norm(p) for p in lineup["club"]], "central": [norm(p) for p in lineup["central_table"]]})
    # series: the duels (each team's score against the viewers), the final table by margin
    entry = lambda g: [norm(g["team"]), f"{g['score']['experts']}:{g['score']['viewers']}"]  # noqa: E731
    final = sorted((data.get("final") or {}).get("games") or [],
                   key=lambda g: (g["status"] != "finished", -(g["score"]["experts"] - g["score"]["viewers"])))
    return Part(True, texts={"title": norm(data.get("name") or lt("series")), "duels-label": lt("duels"),
                             "final-label": lt("final_series"), "none": "" if final else lt("to_play"),
                             "winner": f"{lt('winner')}: {norm(data['winner'])}" if data.get("winner") else ""},
                seq={"duels": [x for d in data.get("duels") or [] for g in d["games"] for x in entry(g)],
                     "final": [x for i, g in enumerate(final) for x in (str(i + 1), *entry(g))]})


def show_model(state: dict | None, gfx: dict, now: int) -> Model:
    """`/overlays/show` (all layers): a part is on air while an item of its graphic is on a
    layer, and then draws what its own page draws. The table beside the question card (both
    drawn: it takes its `full` place) keeps its caption and every number, none covered."""
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
        if not drawn and (part.texts or part.contains or part.one_of or part.countdown or part.seq):
            out.append(f"{name}: must be on air, draws nothing")
            continue
        in_ref = lambda ref: norm("".join(x.text for x in drawn if x.ref == ref))  # noqa: E731
        for ref, want in part.texts.items():
            got = in_ref(ref)
            if squash(got) != squash(want):
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
        for ref, want in part.seq.items():
            got = [norm(x.text) for x in drawn if x.ref == ref]
            if got != want:
                at = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
                out.append(f"{name}/{ref}: draws {got[max(0, at - 2):at + 4]}…, must be {want[max(0, at - 2):at + 4]}… "
                           f"(from item {at}; {len(got)} drawn, {len(want)} due)")
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
