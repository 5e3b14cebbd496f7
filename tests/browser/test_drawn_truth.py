"""The drawn-truth oracle: fast operation of a real server, and whenever the game rests, what the
system Chromium DRAWS on each open page equals what the public state says must be on air.

A Hypothesis state machine plays a tv game as a quick operator does — commands, undos (a verdict
corrected 30–600 ms later), graphics taken and taken out (`POST /api/graphics`, rundown takes and
outs), page reloads — with the operator's pacing (30–600 ms) between presses: the only pauses
here; everything else waits on a condition. At each look it waits until every page has the
server's latest rev and graphics (`body.dataset.rev`, `body.dataset.graphicsSeq`, written by the
shared client), the reveal time has passed and every animation has finished, then reads what is
drawn (tests/browser/drawn.py) and compares it with the model (tests/browser/oracle_model.py),
plus: no two drawn texts overlap, no text outside the title-safe area, no «…», no text cut by a
box, a picture where one must be, the sectors in their side's colour (as `/live` draws it), and
while the top still turns (in `full`) no sector, card or blitz box.

One run feeds every case below: each (page, check) is its own case, so a defect fails the case it
belongs to and no other. Figures: ORACLE_EXAMPLES × ORACLE_STEPS steps (CI: 1 × 15); a longer run
by hand: docs/TESTING.md.
"""
from __future__ import annotations

import io
import json
import os
import random
import time
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import drawn as dr
from tests.browser import oracle_model as om
from tests.browser.helpers import SETTLED_JS, WAIT_MS, wait_js, wait_live
from tests.support import Server, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = ("scoreboard", "full", "question", "table", "show")
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "1"))
STEPS = int(os.environ.get("ORACLE_STEPS", "15"))
LOOK_EVERY = int(os.environ.get("ORACLE_LOOK_EVERY", "3"))
PACE = st.integers(30, 600)  # ms between two presses of a quick operator


def example_seed() -> int | None:
    """The seed of a run's examples. Hypothesis's one example per run (see `oracle`) is always its
    simplest, so by hand each example draws its fields from a seed of its own instead (printed;
    ORACLE_SEED replays a run); under CI: None, the simplest example, everything in turn."""
    if os.environ.get("ORACLE_SEED"):
        return int(os.environ["ORACLE_SEED"])
    return None if os.environ.get("CI") == "true" else random.randrange(1_000_000)


def field_strategies(fields: dict[str, tuple[int, int] | list]) -> dict[str, Any]:
    """A rule's strategies from its fields: (lo, hi) integers, or a list to pick from."""
    return {k: st.integers(*v) if isinstance(v, tuple) else st.sampled_from(v) for k, v in fields.items()}


def redraw(rng: random.Random, fields: dict[str, tuple[int, int] | list]) -> dict[str, Any]:
    """The same fields drawn from a seeded generator (a run by hand, see example_seed)."""
    return {k: rng.randint(*v) if isinstance(v, tuple) else rng.choice(v) for k, v in fields.items()}

TIMERS = {"minute": 6000, "blitz": 4000, "extra_minute": 5000, "club_help": 4000}


def question(i: int, prize: int | None = 1000) -> dict:
    q = {"text": f"Вопрос {i}: что лежит в чёрном ящике?", "answer": f"Ответ {i}",
         "author": {"name": f"Ирина Зрителева {i}", "city": "Харьков"}}
    if prize:
        q["prize"] = {"amount": prize * i, "currency": "UAH"}
    return q


def spec() -> dict:
    kinds = {4: "blitz", 7: "superblitz", 13: "sponsor"}
    sectors = []
    for n in range(1, 14):
        kind = kinds.get(n, "regular")
        count = 3 if kind in ("blitz", "superblitz") else 1
        sectors.append({"number": n, "kind": kind, "questions": [question(n * 10 + k) for k in range(count)]})
    return {"rules": "tv", "title": "Оракул", "target": 6, "timers": TIMERS, "sectors": sectors,
            "experts": {"name": "Команда Иванова", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"],
                        "captain": "Анна"}}


def logo_png() -> bytes:
    from PIL import Image, ImageDraw

    im = Image.new("RGBA", (320, 140), (200, 40, 60, 255))
    ImageDraw.Draw(im).ellipse((20, 20, 120, 120), fill=(255, 255, 255, 255))
    out = io.BytesIO()
    im.save(out, "PNG")
    return out.getvalue()


# Rundown items for /overlays/show: label → (graphic, layer, data). The bug names its picture by
# media id (`{media}` is filled in), as a desk does.
ITEMS = {
    "Табло": ("scoreboard", "game", {}),
    "Карточка": ("question", "card", {}),
    "Стол": ("table", "table", {}),
    "Таймер": ("timer", "clock", {}),
    "Блиц": ("blitz", "blitzbox", {}),
    "Логотип": ("bug", "bug", {"media": "{media}", "corner": "top-right"}),
    "Бегущая строка": ("ticker", "ticker", {"items": ["Следующая игра в субботу", "Вход свободный"], "speed": 300}),
    "Скоро начнём": ("slate", "back", {"kind": "soon", "subtitle": "Финал весенней серии"}),
    "Титры": ("credits", "back", {"names": [{"name": "Борис Крюк", "role": "ведущий"}, "Анна Иванова"],
                                  "speed": 120, "loop": True}),
    "Титры коротко": ("credits", "back", {"names": ["Борис Крюк", "Анна Иванова"], "speed": 400}),
    "Капитан": ("lower-third", "strap", {"title": "Анна Иванова", "subtitle": "капитан"}),
}
STRAPS = [{"title": "Борис Крюк", "subtitle": "ведущий"}, {"title": "Глеб Петров", "subtitle": "знаток"}]


@dataclass
class World:
    """The server, the game on air, the open pages and what the looks found."""
    srv: Server
    browser: Browser
    game: str
    rundown: str
    pages: dict[str, Page] = field(default_factory=dict)
    findings: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    steps: list[str] = field(default_factory=list)  # since the last clean look
    log: list[str] = field(default_factory=list)  # every step of the run
    looks: int = 0
    presses: int = 0
    colours: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def open(self, name: str) -> Page:
        if name not in self.pages:
            self.pages[name] = self.browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            # a script error on air is a defect of its own: every look reports it
            self.pages[name].on("pageerror", lambda e, n=name: self.findings[(n, "model")].append(f"script error: {e}"))
        page = self.pages[name]
        page.goto(f"{self.srv.url}/overlays/{name}")
        wait_live(page)
        dr.prepare(page)
        return page

    def step(self, what: str) -> None:
        self.steps.append(what)
        self.log.append(what)

    def note(self, page: str, check: str, problems: list[str]) -> None:
        for p in problems:
            self.findings[(page, check)].append(f"{p}\n      after: {' → '.join(self.steps[-12:])}")

    # --- the server -------------------------------------------------------------------------

    def public(self) -> dict:
        return self.srv.api("GET", f"/api/games/{self.game}/public")

    def operator(self) -> dict:
        return self.srv.state(self.game)

    def gfx(self) -> dict:
        return self.srv.api("GET", "/api/graphics")

    def now(self) -> int:
        return self.srv.api("GET", "/api/time")["server_now"]


# --- waiting for rest ------------------------------------------------------------------------------

# the page has this rev and graphics, or newer ones (then the game moved on: `rest` sees it and starts again)
ARRIVED_JS = ("([rev, seq]) => Number(document.body.dataset.rev) >= rev"
              " && Number(document.body.dataset.graphicsSeq) >= seq")
RESTLESS_JS = ("() => ({rev: document.body.dataset.rev, seq: document.body.dataset.graphicsSeq,"
               " revealed: document.body.dataset.revealed, reveal_at: window.chgkOverlay?.state?.round?.reveal_at,"
               " clock: window.chgkOverlay?.clock.now(), running:"
               " document.getAnimations().filter(a => a.playState === 'running')"
               ".map(a => `${a.animationName || a.transitionProperty || 'script'} on ${a.effect?.target?.className}`)})")
REVEALED_JS = "at => document.body.dataset.revealed === String(at)"  # static/lib/client.js: the reveal is drawn
TURNING_JS = ("() => { const a = document.querySelector(\"[data-part='table'] [data-ref='arrow']\");"
              " return !!a && a.getAnimations().some(x => x.playState === 'running'); }")


def page_name(world: World, page: Page) -> str:
    return next(name for name, p in world.pages.items() if p is page)


def rest(world: World) -> tuple[dict, dict]:
    """Waits until the game rests and every page has drawn it: the latest rev and graphics
    received, the reveal time passed, a running timer not about to run out, every animation
    finished. Returns the public state and graphics the pages rest on."""
    for _ in range(20):
        state, gfx = world.public(), world.gfx()
        now = world.now()
        reveal = (state.get("round") or {}).get("reveal_at")
        timer = state.get("timer") or {}
        if isinstance(reveal, (int, float)) and reveal > now:
            wait_for(lambda: world.now() >= reveal, timeout=15, what="the reveal time")
            continue
        if timer.get("running") and om.remaining(timer, now) < 2500:  # its time-up is a change on the way
            wait_for(lambda: world.public()["rev"] != state["rev"], timeout=15, what="the time-up")
            continue
        if any(e.get("expires_at") and 0 < e["expires_at"] - now < 2500 for e in (gfx.get("graphics") or {}).values()):
            wait_for(lambda: world.gfx()["seq"] != gfx["seq"], timeout=15, what="an auto-out")
            continue
        try:
            for page in world.pages.values():
                wait_js(page, ARRIVED_JS, [state["rev"], gfx["seq"]])
                if isinstance(reveal, (int, float)):  # the page shows the round from its own timer, on its own clock
                    wait_js(page, REVEALED_JS, reveal)
                wait_js(page, SETTLED_JS, timeout_ms=15_000)
        except PlaywrightTimeout:
            if world.public()["rev"] != state["rev"] or world.gfx()["seq"] != gfx["seq"]:
                continue  # the game moved on by itself (a time-up, an auto-out): rest on the new one
            raise AssertionError(f"/overlays/{page_name(world, page)} never rested on rev {state['rev']}, graphics "
                                 f"{gfx['seq']}: {page.evaluate(RESTLESS_JS)}") from None
        if world.public()["rev"] == state["rev"] and world.gfx()["seq"] == gfx["seq"]:
            return state, gfx
    raise AssertionError("the game never rested")


# --- a look: drawn == model and the rules of the picture ----------------------------------------------

def checks(world: World, name: str, state: dict | None, gfx: dict, now: int) -> dict[str, list[str]]:
    """Every check of one page at rest: drawn == model, and the rules of the picture."""
    page = world.pages[name]
    d = dr.read(page)
    found = {
        "overlap": dr.overlaps(d),
        "safe": dr.outside_safe(d),
        "ellipsis": dr.ellipses(d) + dr.cut_texts(d, om.CLIPPING_PARTS),
    }
    if name in om.MODELLED:
        model = om.page_model(name, state, gfx, now)
        credits = model.get("credits")
        if credits and credits.visible and not credits.may_be_empty:
            credits.may_be_empty = roll_between_passes(page, om.credits_entry(name, gfx) or {}, now)
        found["model"] = om.compare(model, d.texts)
        found["picture"] = pictures(page, model)
    if name in ("table", "full") and state:
        found["colour"] = sector_colours(world, page, state)
    return found


def look(world: World) -> None:
    state, gfx = rest(world)
    now = world.now()
    world.looks += 1
    found = {name: checks(world, name, state, gfx, now) for name in world.pages}
    if state["rev"] != world.public()["rev"]:  # a time-up between the rest and the reads: not a finding
        return
    clean = True
    for name, by_check in found.items():
        for check, problems in by_check.items():
            if problems:
                clean = False
                world.note(name, check, problems)
    if clean:
        world.steps.clear()


ROLL_JS = """() => { const w = document.querySelector('[data-part=credits] .cr-window');
  const r = document.querySelector('[data-part=credits] [data-ref=roll]');
  return w && r ? [w.clientHeight, parseFloat(getComputedStyle(w).getPropertyValue('--cr-clear')) || 0,
                   r.offsetHeight] : null; }"""


def roll_between_passes(page: Page, entry: dict, now: int) -> bool:
    """A looping credits roll may rightly draw nothing for a moment between two passes: true
    when the server's time says it is there, by the page's own window and roll heights."""
    box = page.evaluate(ROLL_JS)
    return bool(box) and (entry.get("data") or {}).get("loop") is True and om.roll_between_passes(entry, now, *box)


def pictures(page: Page, model: om.Model) -> list[str]:
    """Where the model wants a picture, at least a fifth of its box is drawn opaque."""
    out = []
    boxes = {"bug": ".bug-box", "lower-third": ".lt-photo"}
    for name, part in model.items():
        if part.picture and name in boxes:
            seen: list[dict] = []

            def drawn(sel: str = f"[data-part='{name}'] {boxes[name]}") -> bool:
                box = page.eval_on_selector(sel, "e => { const r = e.getBoundingClientRect();"
                                                 " return {x: r.left, y: r.top, width: r.width, height: r.height}; }")
                seen.append(box)
                return box["width"] >= 4 and box["height"] >= 4 and dr.opaque_share(page, box) >= 0.2

            # A part comes in only once its picture is decoded (never an empty frame), which a
            # loaded machine may finish after the rest: the picture has WAIT_MS to be drawn.
            try:
                wait_for(drawn, timeout=WAIT_MS / 1000, what=f"{name}'s picture")
            except AssertionError:
                out.append(f"{name}: no picture drawn in {seen[-1]}")
    return out


def side_colours(world: World) -> dict[str, tuple[int, ...]]:
    """Each side's colour as the audience page `/live` draws it (the panel's colours)."""
    if not world.colours:
        page = world.browser.new_context().new_page()
        page.goto(f"{world.srv.url}/live")
        page.wait_for_load_state("load")
        for side in ("experts", "viewers"):
            rgb = page.evaluate("side => { const li = document.createElement('li'); li.className = `sector played ${side}`;"
                                " document.body.append(li); const c = getComputedStyle(li).backgroundColor; li.remove();"
                                " return c.match(/\\d+/g).slice(0, 3).map(Number); }", side)
            world.colours[side] = tuple(rgb)
        page.context.close()
    return world.colours


def sector_colours(world: World, page: Page, state: dict) -> list[str]:
    """Every played sector is drawn nearer its winner's colour than the other side's."""
    played = [s for s in state.get("sectors") or [] if s.get("played") and s.get("result")]
    if not played or state.get("status") != "playing":
        return []
    colours = side_colours(world)
    numbers = sorted(s["number"] for s in state["sectors"])
    disc = page.eval_on_selector("[data-part='table'] [data-ref='svg']", "e => { const r = e.getBoundingClientRect();"
                                 " return [r.left + r.width / 2, r.top + r.height / 2, r.width / 1000]; }")
    out = []
    step = 360 / len(numbers)
    import math
    points = []
    for s in played:
        a = math.radians(numbers.index(s["number"]) * step + 0.3 * step)
        points.append((disc[0] + 465 * disc[2] * math.sin(a), disc[1] - 465 * disc[2] * math.cos(a)))
    for s, rgba in zip(played, dr.colours_at(page, points, r=2)):
        got = rgba[:3]
        dist = {side: sum((g - c) ** 2 for g, c in zip(got, rgb)) for side, rgb in colours.items()}
        if min(dist, key=dist.get) != s["result"]:
            out.append(f"sector {s['number']} won by {s['result']} drawn {got}, nearer {min(dist, key=dist.get)}'s "
                       f"colour on /live ({colours})")
    return out


def round_secrets(state: dict | None) -> set[str]:
    """What of a round the top gives away: its sector, its kind when special, its viewer and question."""
    r = (state or {}).get("round") or {}
    if not r:
        return set()
    kind = om.t(f"kind_{r['kind']}") if r.get("kind") in ("blitz", "superblitz", "sponsor") else ""
    return {om.t("sector_n", n=r["sector"]), kind, (r.get("author") or {}).get("name") or "", om.norm(r.get("text") or "")} - {""}


def spin_secret(world: World, before: dict) -> None:
    """While the top turns (in `full`), nothing of the new round is drawn: not its sector, kind,
    viewer or question (the last round's card leaving is no secret)."""
    page = world.pages.get("full")
    if not page:
        return
    state = world.public()
    gfx = world.gfx()
    wait_js(page, ARRIVED_JS, [state["rev"], gfx["seq"]])
    if not page.evaluate(TURNING_JS):
        return
    secrets = round_secrets(state) - round_secrets(before)
    d = dr.read(page)
    leaked = [str(x) for x in d.shown if (x.part in ("question", "blitz") or x.ref in ("cap-sector", "cap-kind"))
              and om.norm(x.text) in secrets]
    if page.evaluate(TURNING_JS) and leaked:
        world.note("full", "spin", [f"drawn while the top still turns: {leaked[:5]}"])


# --- the operator ------------------------------------------------------------------------------------

# The operator's presses in the order a game moves on: Hypothesis's simplest example (its first,
# derandomized in CI) then plays a whole game, not a row of no-ops.
MOVES = ("spin", "choose_player", "start_timer", "judge", "early_answer", "extra_minute", "club_help",
         "pause_timer", "resume_timer", "request_decisive_round", "decide_decisive_round")
VERBS = ("take", "continue", "out")  # a rundown item's: `continue` steps the card (card → text → answer)
ACTIONS = ("command", "verdict_then_undo", "command", "rundown", "command", "undo", "lower_third", "hide_or_show",
           "command", "reload")


@dataclass(frozen=True)
class Pick:
    """The fields of one step, drawn whether its action uses them or not."""
    pick: int
    correct: bool
    landed: int
    player: str
    again: int
    item: str
    verb: int
    take: bool
    strap: dict | None
    graphic: str
    page: str


FIELDS: dict[str, tuple[int, int] | list] = {
    "turn": (0, len(ACTIONS) - 1), "pace": (30, 600), "pick": (0, len(MOVES) - 1), "correct": [False, True],
    "landed": (1, 13), "player": ["Анна", "Борис", "Вера"], "again": (30, 600), "item": (0, len(ITEMS) - 1),
    "verb": (0, len(VERBS) - 1), "take": [True, False], "strap": (0, len(STRAPS)),
    "graphic": ["scoreboard", "question", "timer"], "page": (0, len(PAGES) - 1)}


class Operator(RuleBasedStateMachine):
    """One rule, one press (or a reload) a step: the action is drawn with its fields, so the
    simplest example is a game played straight through."""
    world: World
    seed: int | None = None  # by hand: this example's fields come from this seed

    def __init__(self) -> None:
        super().__init__()
        self.w = type(self).world
        # every example starts from a new game on air: the same presses meet the same game
        self.w.game = self.w.srv.create(spec(), on_air=True)
        self.w.step("new game on air")
        self.since_look = 0
        self.turn = -1
        self.rng = random.Random(type(self).seed) if type(self).seed is not None else None
        # the show is on: the slate, the ticker over it, the channel's logo, the scoreboard
        take(self.w, "Скоро начнём", "Бегущая строка", "Логотип", "Табло")
        self.w.step("take «Скоро начнём», «Бегущая строка», «Логотип», «Табло»")

    def pace(self, ms: int) -> None:
        """The operator's own rhythm between two presses: the thing under test, not a wait."""
        time.sleep(ms / 1000)

    def moves(self) -> list[str]:
        ok = {k for k, v in self.w.operator().get("moves", {}).items() if v.get("ok")}
        return [m for m in MOVES if m in ok]

    def press(self, kind: str, **fields: Any) -> bool:
        r = self.w.srv.command(self.w.game, type=kind, **fields)
        self.w.presses += 1
        self.w.step(f"{kind}{json.dumps(fields, ensure_ascii=False) if fields else ''}"
                    f"{'' if r.status_code == 200 else f' ({r.status_code})'}")
        assert r.status_code in (200, 409, 422), r.text  # a refusal is the rules' answer, never a 500
        return r.status_code == 200

    @rule(**field_strategies(FIELDS))
    def act(self, **drawn: Any) -> None:
        """Every field is drawn whatever the action, so what Hypothesis draws never depends on
        the server's state (which differs between runs by timing). The action, the item and the
        page turn with the step: Hypothesis's simplest example (CI's, derandomized) is then an
        operator who does everything in turn, not one press over and over. By hand the fields
        come from the example's seed instead (example_seed)."""
        pick = redraw(self.rng, FIELDS) if self.rng else dict(drawn)
        turn, pace, item, strap, page = (pick.pop(k) for k in ("turn", "pace", "item", "strap", "page"))
        self.turn += 1
        if self.w.operator()["status"] == "finished":
            self.w.game = self.w.srv.create(spec(), on_air=True)
            self.w.step("next game on air")
            return
        action = ACTIONS[(self.turn + turn) % len(ACTIONS)]
        labels = sorted(ITEMS)
        getattr(self, action)(pace, Pick(item=labels[(self.turn + item) % len(labels)],
                                         strap=([*STRAPS, None])[(self.turn + strap) % (len(STRAPS) + 1)],
                                         page=PAGES[(self.turn + page) % len(PAGES)], **pick))

    def command(self, pace: int, p: "Pick") -> None:
        ok = self.moves()
        if not ok:
            return
        kind = ok[p.pick % len(ok)]
        fields: dict[str, Any] = {
            "judge": {"correct": p.correct}, "choose_player": {"player": p.player}, "spin": {"landed": p.landed},
            "decide_decisive_round": {"granted": p.correct, **({"players": ["Анна", "Борис", "Вера"]} if p.correct else {})},
        }.get(kind, {})
        before = self.w.public() if kind == "spin" else {}
        self.pace(pace)
        if self.press(kind, **fields) and kind == "spin":
            spin_secret(self.w, before)

    def verdict_then_undo(self, pace: int, p: "Pick") -> None:
        """A verdict and the operator's quick correction."""
        if "judge" not in self.moves():
            return self.command(pace, p)
        self.pace(pace)
        if self.press("judge", correct=p.correct):
            self.undo(p.again, p)

    def undo(self, pace: int, p: "Pick") -> None:
        self.pace(pace)
        r = self.w.srv.call("POST", f"/api/games/{self.w.game}/undo")
        self.w.step("undo" + ("" if r.ok else f" ({r.status_code})"))
        assert r.status_code in (200, 409, 422), r.text

    def rundown(self, pace: int, p: "Pick") -> None:
        action = VERBS[p.verb]
        self.pace(pace)
        r = self.w.srv.call("POST", f"/api/rundowns/{self.w.rundown}/actions", {"action": action, "item": p.item})
        self.w.step(f"{action} «{p.item}»" + ("" if r.ok else f" ({r.status_code})"))
        assert r.status_code in (200, 409, 422), r.text

    def lower_third(self, pace: int, p: "Pick") -> None:
        self.pace(pace)
        body = ({"action": "show", "graphic": "lower-third", "data": p.strap} if p.strap
                else {"action": "hide", "graphic": "lower-third"})
        self.w.srv.api("POST", "/api/graphics", body)
        self.w.step(f"lower-third {p.strap['title'] if p.strap else 'out'}")

    def hide_or_show(self, pace: int, p: "Pick") -> None:
        action = "show" if p.take else "hide"
        self.pace(pace)
        self.w.srv.api("POST", "/api/graphics", {"action": action, "graphic": p.graphic, "data": {}})
        self.w.step(f"{action} {p.graphic}")

    def reload(self, pace: int, p: "Pick") -> None:
        self.pace(pace)
        self.w.open(p.page)
        self.w.step(f"reload {p.page}")

    @invariant()
    def look_now_and_then(self) -> None:
        """Every LOOK_EVERY steps the operator stops and the game rests: a look."""
        self.since_look += 1
        if self.since_look > LOOK_EVERY:
            self.since_look = 0
            look(self.w)

    def teardown(self) -> None:
        look(self.w)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, chromium: Browser) -> Iterator[World]:
    """A real server with a tv game on air, a picture in its library and a rundown of every
    show graphic; the pages are opened by the tests."""
    srv = Server(tmp_path_factory.mktemp("oracle") / "data", mode=os.environ.get("CHGK_TEST_ASYNC_MODE", "eventlet"))
    srv.start()
    world = None
    try:
        game = srv.create(spec(), on_air=True)
        r = srv.http.post(srv.url + "/api/media", files={"file": ("logo.png", logo_png())}, timeout=30)
        assert r.status_code == 201, r.text
        media = r.json()["id"]
        rid = srv.api("POST", "/api/rundowns", {"name": "Оракул"})["id"]
        for label, (graphic, layer, data) in ITEMS.items():
            data = json.loads(json.dumps(data).replace("{media}", media))
            srv.api("POST", f"/api/rundowns/{rid}/items",
                    {"segment": "Эфир", "label": label, "graphic": graphic, "layer": layer, "out": "manual", "data": data})
        world = World(srv, chromium, game, rid)
        yield world
    finally:
        for page in (world.pages.values() if world else ()):
            page.context.close()
        srv.stop()


@pytest.fixture(scope="module")
def oracle(base: World) -> World:
    """One run of the operator over every page; its findings feed every case of test_drawn_equals_the_game."""
    world = base
    for name in PAGES:
        world.open(name)
    Operator.world = world
    started = time.monotonic()
    # One example per Hypothesis run: a real server's timing never replays exactly, so two examples
    # in one run can make different choices after the same prefix, which Hypothesis refuses as a
    # flaky strategy. Under CI=true the one example is derandomized; by hand each is new.
    seed = example_seed()
    for i in range(EXAMPLES):
        Operator.seed = None if seed is None else seed + i
        run_state_machine_as_test(Operator, settings=settings(max_examples=1, stateful_step_count=STEPS,
                                                              phases=[Phase.generate]))
    print(f"\noracle: {EXAMPLES} example(s) × ≤{STEPS} steps (seed {seed}), {world.presses} presses, {world.looks} looks, "
          f"{time.monotonic() - started:.0f} s, {sum(map(len, world.findings.values()))} mismatches")
    print("  steps: " + " → ".join(world.log))
    for (page, check), found in sorted(world.findings.items()):
        print(f"  {page}/{check}: {len(found)}\n    " + "\n    ".join(found[:3]))
        shapes = Counter(re.sub(r"\d+", "#", f.split("\n", 1)[0])[:110] for f in found)
        print("    kinds: " + "; ".join(f"{n}× {k}" for k, n in shapes.most_common()))
    return world


class Mismatch(AssertionError):
    """What is drawn differs from the game: the only failure a known defect's mark excuses."""


CHECKS = ("model", "overlap", "safe", "ellipsis", "picture", "colour", "spin")


def cases() -> Iterator[Any]:
    for page in PAGES:
        for check in CHECKS:
            if check == "colour" and page not in ("table", "full") or check == "spin" and page != "full":
                continue
            yield pytest.param(page, check, id=f"{page}-{check}")


@pytest.mark.parametrize(("page", "check"), list(cases()))
def test_drawn_equals_the_game(oracle: World, page: str, check: str) -> None:
    found = oracle.findings.get((page, check), [])
    if found:
        raise Mismatch(f"{len(found)} mismatch(es) on /overlays/{page} ({check}):\n" + "\n".join(found[:5]))


# --- scenes: the known defects, each played once, deterministically -----------------------------------

def take(world: World, *labels: str) -> None:
    for label in labels:
        world.srv.api("POST", f"/api/rundowns/{world.rundown}/actions", {"action": "take", "item": label})


def clean_air(world: World, game: dict | None = None) -> None:
    """A new game on air (or `game`), every layer out, nothing hidden, no strap."""
    world.game = world.srv.create(game or spec(), on_air=True)
    world.srv.api("POST", f"/api/rundowns/{world.rundown}/actions", {"action": "all_out"})
    world.srv.api("POST", "/api/graphics", {"action": "hide", "graphic": "lower-third"})
    for graphic in ("scoreboard", "question", "timer"):
        world.srv.api("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": {}})


def only(world: World, name: str) -> Page:
    """`name` open, fresh, and no other page: a scene waits for no page it does not look at."""
    for other in [n for n in world.pages if n != name]:
        world.pages.pop(other).context.close()
    return world.open(name)


def scene_look(world: World, name: str) -> dict[str, list[str]]:
    state, gfx = rest(world)
    return checks(world, name, state, gfx, world.now())


def assert_clean(found: dict[str, list[str]]) -> None:
    bad = {k: v for k, v in found.items() if v}
    if bad:
        raise Mismatch("\n".join(f"{k}: {v[:4]}" for k, v in bad.items()))


def long_name_club() -> dict:
    name = "Клуб интеллектуальных игр «Совиное гнездо» при городской библиотеке"  # 66 characters
    teams = [{"id": f"t{i}", "name": name if i == 1 else f"Команда {i}",
              "players": [f"Игрок {i}.{k}" for k in range(1, 7)]} for i in range(1, 7)]
    return {"rules": "club", "title": "Длинные имена", "target": 6, "game_day": "2026-05-01-fri-oracle", "teams": teams}


def credits_roll_passed(world: World, page: Page) -> bool:
    """The short roll has risen out of the window: no credits text drawn any more."""
    return not dr.read(page).part_texts("credits")


# Each defect of issue 22 that the operator run found, played once as its shortest sequence.
SCENES = {
    "show-bug-by-media-id": "item 3: /overlays/show drew no picture named by media id",
    "show-ticker-over-slate": "item 4: the ticker was drawn beneath the slate",
    "show-ticker-over-credits": "item 4: the ticker was drawn beneath the credits",
    "show-credits-ended": "item 4: an empty dark gradient stayed after the credits roll",
    "full-superblitz": "item 5: the timer (and at the time-up «Время!») covered the superblitz player",
    "club-tables-long-name": "item 7: club-tables ended a 66-character team name with «…»",
    "show-table-and-card": "the oracle's run of 2 December: «Стол» and «Карточка» both taken, the table's disc "
                           "under the card (sectors 7, 8 and the caption covered)",
}


@pytest.mark.parametrize("scene", list(SCENES))
def test_scene_draws_the_game(base: World, scene: str) -> None:
    """Each known defect's shortest sequence, looked at by the same oracle."""
    world = base
    if scene == "club-tables-long-name":
        clean_air(world, long_name_club())
        only(world, "club-tables")
        assert_clean(scene_look(world, "club-tables"))
        return
    clean_air(world)
    page_name = "full" if scene == "full-superblitz" else "show"
    page = only(world, page_name)
    if scene == "show-bug-by-media-id":
        take(world, "Логотип")
    elif scene == "show-ticker-over-slate":
        take(world, "Скоро начнём", "Бегущая строка")
    elif scene == "show-ticker-over-credits":
        take(world, "Титры", "Бегущая строка")
        # the roll's window ends above the ticker's bar: no name slides under it (CI once looked
        # as the title passed behind the bar)
        rest(world)
        gap = page.evaluate("""() => document.querySelector('[data-part=ticker] .tk-bar').getBoundingClientRect().top
            - document.querySelector('[data-part=credits] .cr-window').getBoundingClientRect().bottom""")
        assert gap >= 0, f"the credits' window reaches {gap:.0f} px under the ticker"
    elif scene == "show-credits-ended":
        take(world, "Титры коротко")
        rest(world)
        wait_for(lambda: credits_roll_passed(world, page), timeout=30, what="the end of the credits roll")
        # the shade leaves with its exit animation once the last name has gone: wait for that,
        # then nothing may stay drawn
        frame = {"x": 0, "y": 0, "width": 1920, "height": 1080}
        try:
            wait_for(lambda: dr.opaque_share(page, frame, alpha=16) <= 0.001, timeout=10, what="an empty frame")
        except AssertionError:
            share = dr.opaque_share(page, frame, alpha=16)
            assert_clean({"blank": [f"{share:.1%} of the frame still drawn after the roll"] if share > 0.001 else []})
        return
    elif scene == "show-table-and-card":
        world.srv.play(world.game, "spin", landed=8)
        take(world, "Стол", "Карточка")
    elif scene == "full-superblitz":
        world.srv.play(world.game, "spin", landed=7)
        world.srv.play(world.game, "choose_player", player="Борис")
        world.srv.play(world.game, "start_timer")
    assert_clean(scene_look(world, page_name))


CLUB_PAGES = ("club-tables", "game-rating", "central-table", "scoreboard", "full")


def club_game() -> dict:
    teams = [{"id": f"t{i}", "name": f"Команда {name}", "players": [f"Игрок {i}.{k}" for k in range(1, 7)]}
             for i, name in enumerate(["Сова", "Ёж", "Лиса", "Барсук", "Енот", "Бобр"], 1)]
    return {"rules": "club", "title": "Клубная игра", "target": 6, "game_day": "2026-05-02-sat-oracle",
            "timers": {"minute": 60_000}, "teams": teams}


def test_club_graphics_draw_within_the_rules(base: World) -> None:
    """A club round with the Central Table seated and two tables answering: every club graphic
    open at once, each drawn with no overlap, inside the title-safe area, nothing cut or «…»."""
    world = base
    clean_air(world, club_game())
    for name in CLUB_PAGES:
        world.open(name)
    for name in [n for n in world.pages if n not in CLUB_PAGES]:
        world.pages.pop(name).context.close()
    world.srv.play(world.game, "seat_team", team="t1")
    world.srv.play(world.game, "spin", landed=3)
    world.srv.play(world.game, "start_timer")
    world.srv.play(world.game, "club_answers", correct=["t2", "t4"])
    state, gfx = rest(world)
    found = {f"{name} {check}": problems for name in CLUB_PAGES
             for check, problems in checks(world, name, state, gfx, world.now()).items()}
    drawn_names = {x.text for x in dr.read(world.pages["club-tables"]).shown}
    found["club-tables model"] = [f"team «{t['name']}» not drawn" for t in state["teams"] if t["name"] not in drawn_names]
    assert_clean(found)
