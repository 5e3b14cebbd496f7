"""Uploaded OGraf graphics played by our renderer (issue 27 part 2), in the system Chromium: our
own example graphics (tests/fixtures/ograf-own/, written for these tests from the OGraf v1
Graphic interface) are uploaded as one package, and each in turn is taken from a rundown on one
`/overlays/show` page — load + playAction, continue through its steps, F5 (updateAction), its
custom actions, out (stopAction) — and checked as drawn (visible text in its frame, pixels of
the page's screenshot; transparent when nothing is on air). Then a hostile graphic
(tests/fixtures/ograf-hostile/) runs in the same renderer and shows that it can read neither
the cookies nor /api, nor reach the page around it. Screenshots: $CHGK_SCREENSHOT_DIR or tmp.

The EBU's own examples are not in this repository. `test_ebu_examples_play_from_the_rundown`
plays them when $CHGK_OGRAF_EXAMPLES names a folder outside it laid out as ebu/ograf's
`v1/examples/` (one folder per example); otherwise it is skipped.
"""
from __future__ import annotations

import io
import json
import os
import re
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import WAIT_MS, PanelPage, Tab, screenshot_dir
from tests.support import Server, static_url

pytestmark = [pytest.mark.browser, pytest.mark.slow]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OWN = ("hello", "name-strap", "steps", "scoreboard", "logo")  # tests/fixtures/ograf-own/<folder>


def package(*folders: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for folder in folders:
            for p in sorted(folder.rglob("*")):
                if p.is_file():
                    z.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
    return out.getvalue()


def count(img: Image.Image, box: tuple[int, int, int, int], rgb: tuple[int, int, int], tol: int = 40) -> int:
    """Opaque pixels in `box` (left, top, right, bottom) within `tol` of `rgb` on every channel."""
    region = img.crop(box).convert("RGBA")
    return sum(1 for px in region.get_flattened_data()
               if px[3] > 200 and all(abs(a - b) <= tol for a, b in zip(px, rgb)))


def drawn(img: Image.Image) -> int:
    """Pixels that are not fully transparent (the output is transparent where nothing is on air)."""
    return sum(1 for a in img.convert("RGBA").getchannel("A").get_flattened_data() if a)


class Show:
    """One rundown driven over HTTP and the output page that plays it."""

    def __init__(self, srv: Server, page: Page, shots: Path, errors: list[str]) -> None:
        self.srv, self.page, self.shots, self.errors = srv, page, shots, errors
        self.rid = srv.api("POST", "/api/rundowns", {"name": "OGraf"})["id"]

    def add(self, graphic: str, data: dict, layer: str = "main") -> str:
        return self.srv.api("POST", f"/api/rundowns/{self.rid}/items",
                            {"graphic": f"ograf:{graphic}", "layer": layer, "data": data})["id"]

    def edit(self, item: str, data: dict) -> None:
        self.srv.api("PATCH", f"/api/rundowns/{self.rid}/items/{item}", {"data": data})

    def act(self, action: str, item: str, status: int = 200, **extra: Any) -> dict:
        r = self.srv.call("POST", f"/api/rundowns/{self.rid}/actions", {"action": action, "item": item, **extra})
        assert r.status_code == status, r.text
        return r.json()

    def calls(self, item: str, *expected: str) -> None:
        """Waits until the item's frame has answered exactly these calls, in order (a refused
        call is marked with '!')."""
        want = ",".join(expected)
        try:
            self.page.wait_for_function(
                "([item, want]) => document.querySelector(`iframe.ograf-frame[data-item='${item}']`)?.dataset.calls === want",
                arg=[item, want], timeout=WAIT_MS)
        except Exception:
            seen = self.page.evaluate("() => [...document.querySelectorAll('iframe.ograf-frame')].map(f => ({...f.dataset}))")
            raise AssertionError(f"{item}: wanted calls {want}; frames: {seen}; page errors: {self.errors}") from None

    def frame(self, item: str) -> Any:
        return self.page.frame_locator(f"iframe.ograf-frame[data-item='{item}']")

    def gone(self, item: str) -> None:
        self.page.wait_for_function("(item) => !document.querySelector(`iframe.ograf-frame[data-item='${item}']`)",
                                    arg=item, timeout=WAIT_MS)

    def shot(self, name: str) -> Image.Image:
        path = self.shots / f"ograf-{name}.png"
        self.page.screenshot(path=str(path), omit_background=True)
        return Image.open(path)

    def out(self, item: str, name: str) -> None:
        """Takes the item out: its frame goes, and nothing is drawn where it was."""
        self.act("out", item)
        self.gone(item)
        assert drawn(self.shot(f"{name}-out")) == 0, f"{name}: drawn after out"


class Desk(PanelPage):
    home = "/control/rundown"

    def expected(self, message: Any) -> bool:
        """The monitors are overlay pages in iframes (tested on their own), and the hostile
        graphic's refusals there are the point."""
        return "/overlays/" in (message.location or {}).get("url", "") or "/ograf/" in (message.location or {}).get("url", "")


def test_own_graphics_play_from_the_rundown_and_a_hostile_graphic_is_contained(
        server_factory: Callable[..., Server], chromium: Browser, tmp_path: Path) -> None:
    srv = server_factory().start()
    r = srv.http.post(srv.url + "/api/ograf", timeout=60, files={"file": ("examples.zip", package(
        *(FIXTURES / "ograf-own" / name for name in OWN), FIXTURES / "ograf-hostile"))})
    assert r.status_code == 201, r.text
    assert {g["id"]: g["stepCount"] for g in r.json()["graphics"]} == {
        "own-hello": 1, "own-name-strap": 1, "own-steps": 3, "own-scoreboard": -1, "own-logo": 1, "hostile": 1}
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as z:  # a graphic that fails to load (as one needing a newer browser does)
        z.writestr("broken/b.ograf.json", json.dumps({
            "$schema": "https://ograf.ebu.io/v1/specification/json-schemas/graphics/schema.json", "id": "broken",
            "name": "Broken", "main": "g.mjs", "supportsRealTime": True, "supportsNonRealTime": False}))
        z.writestr("broken/g.mjs", "export default class B extends HTMLElement {"
                                   " async load() { throw new Error('needs a newer browser'); } }")
    assert srv.http.post(srv.url + "/api/ograf", files={"file": ("b.zip", broken.getvalue())}).status_code == 201

    tab = Tab(chromium)
    # an operator's session cookie in this browser: the graphic must not read it
    host = srv.url.split("//", 1)[1].split(":")[0]
    tab.context.add_cookies([{"name": "chgk_session", "value": "secret-session-cookie", "domain": host, "path": "/"}])
    # what the graphics' frames asked for: answered (requestfinished) or stopped in the browser
    answered: list[str] = []
    stopped: dict[str, str | None] = {}
    in_frame = lambda req: "/ograf/frame/" in (req.frame.url or "")  # noqa: E731
    tab.page.on("requestfinished", lambda req: in_frame(req) and answered.append(req.url))
    tab.page.on("requestfailed", lambda req: in_frame(req) and stopped.__setitem__(req.url, req.failure))
    page = tab.open(f"{srv.url}/overlays/show")
    show = Show(srv, page, screenshot_dir(tmp_path), tab.errors)
    blank = show.shot("blank")
    assert drawn(blank) == 0

    # hello (one step): its text in a white box top left, and nothing else; F5 with new data
    # redraws the text; out: stopAction, dispose, transparent again
    item = show.add("own-hello", {"text": "Привет!"})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Привет!")).to_be_visible()
    img = show.shot("hello")
    assert count(img, (40, 40, 360, 120), (255, 255, 255), 5) > 10_000  # the white box
    assert count(img, (40, 40, 360, 120), (0, 0, 0), 60) > 2_000  # its border and text
    assert drawn(img) == drawn(img.crop((40, 40, 360, 120))) == 320 * 80  # the box and nothing else
    show.act("continue", item, status=422)  # one step: nothing further
    show.edit(item, {"text": "Пока!"})
    show.act("update", item)
    show.calls(item, "load", "playAction", "updateAction")
    expect(show.frame(item).get_by_text("Пока!")).to_be_visible()
    show.act("update", item)  # F5 with the data unchanged reaches the graphic too
    show.calls(item, "load", "playAction", "updateAction", "updateAction")
    show.shot("hello-updated")
    show.out(item, "hello")

    # name-strap: the name and title on their red and dark-red bars, faded in; F5 with a new
    # name; the custom action "highlight" (no payload) turns the name bar gold; out fades away
    item = show.add("own-name-strap", {"name": "Анна Иванова", "title": "Ведущая"}, layer="straps")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Анна Иванова")).to_be_visible()
    expect(show.frame(item).get_by_text("Ведущая")).to_be_visible()
    img = show.shot("name-strap")
    assert count(img, (160, 820, 860, 900), (0xd0, 0x10, 0x10), 30) > 30_000, "the red name bar is not drawn"
    assert count(img, (160, 900, 860, 950), (0x50, 0x10, 0x10), 30) > 20_000, "the dark title bar is not drawn"
    assert drawn(img) == drawn(img.crop((160, 820, 860, 950))), "drawn outside the strap"
    show.edit(item, {"name": "Борис Петров", "title": "Знаток"})
    show.act("update", item)
    show.calls(item, "load", "playAction", "updateAction")
    expect(show.frame(item).get_by_text("Борис Петров")).to_be_visible()
    expect(show.frame(item).get_by_text("Анна Иванова")).to_have_count(0)
    show.act("custom", item, id="highlight")
    show.calls(item, "load", "playAction", "updateAction", "customAction")
    img = show.shot("name-strap-highlight")
    assert count(img, (160, 820, 860, 900), (0xff, 0xc8, 0x00), 30) > 30_000, "the name bar is not gold"
    assert count(img, (160, 820, 860, 900), (0xd0, 0x10, 0x10), 30) == 0
    # OBS restarted mid-item: a new page loads it, plays it and replays its custom action
    tab.open(f"{srv.url}/overlays/show")
    show.calls(item, "load", "playAction", "customAction")
    expect(show.frame(item).get_by_text("Борис Петров")).to_be_visible()
    assert count(show.shot("name-strap-reloaded"), (160, 820, 860, 900), (0xff, 0xc8, 0x00), 30) > 30_000
    show.out(item, "name-strap")

    # the desk: an item made with the form generated from the manifest's schema, taken with
    # Space, its custom action run from its button, then out
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    desk = Desk(ctx.new_page(), srv).open()
    desk.page.select_option("#rd-select", show.rid)
    desk.page.click("#f-new")
    desk.page.select_option("#f-graphic", "ograf:own-name-strap")
    expect(desk.page.locator("#f-data #og-title")).to_be_visible()  # the form from the manifest's schema
    expect(desk.page.locator("#og-name")).to_have_value("Имя Фамилия")  # the schema's default
    desk.page.fill("#og-name", "Вера Сергеевна")
    desk.page.fill("#og-title", "Знаток года")
    desk.page.fill("#f-label", "Вера")
    desk.page.fill("#f-layer", "straps")
    desk.page.click("#f-save")
    row = desk.page.locator('.rd-item[data-label="Вера"]')
    row.click()
    expect(row).to_have_class(re.compile("focused"))
    # the desk's preview monitor plays the focused item in its own sandboxed frame
    preview = desk.page.frame_locator("#rd-preview").frame_locator("iframe.ograf-frame")
    expect(preview.get_by_text("Вера Сергеевна")).to_be_visible()
    button = desk.page.locator('#rd-ograf-actions [data-action="highlight"] button')
    expect(button).to_have_text("Highlight")
    desk.page.screenshot(path=str(show.shots / "ograf-desk.png"), full_page=True)
    vera = srv.api("GET", f"/api/rundowns/{show.rid}")["focus"]
    assert srv.api("GET", f"/api/rundowns/{show.rid}")["segments"][-1]["items"][-1]["data"] == {
        "name": "Вера Сергеевна", "title": "Знаток года"}
    desk.page.keyboard.press("Space")
    show.calls(vera, "load", "playAction")
    expect(show.frame(vera).get_by_text("Вера Сергеевна")).to_be_visible()
    button.click()
    show.calls(vera, "load", "playAction", "customAction")
    desk.page.keyboard.press("Space")  # one step: Space takes it out
    show.gone(vera)
    # a graphic that fails in the program monitor is told on the desk, in the operator's language
    broken = show.add("broken", {})
    show.act("take", broken)
    show.calls(broken, "load!", "playAction!")
    told = desk.page.locator('.notice[data-code="ograf_failed"]')
    expect(told).to_contain_text("не работает в эфире")
    expect(told).to_contain_text("needs a newer browser")
    show.act("out", broken)
    show.gone(broken)
    assert desk.errors == [], desk.errors
    ctx.close()

    # steps (stepCount 3): take draws the red block, each continue one more (green, blue) and
    # the label counts; a fourth is refused; F5 renames the label on the step it is at
    blocks = {"red": ((100, 400, 500, 700), (0xe0, 0, 0)), "green": ((700, 400, 1100, 700), (0, 0xc0, 0)),
              "blue": ((1300, 400, 1700, 700), (0, 0, 0xe0))}

    def shown(img: Image.Image) -> list[str]:
        return [name for name, (box, rgb) in blocks.items() if count(img, box, rgb, 30) > 400 * 300 * 0.95]

    item = show.add("own-steps", {"title": "Шаг"}, layer="cards")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Шаг 1/3")).to_be_visible()
    assert shown(show.shot("steps-1")) == ["red"]
    show.act("continue", item)
    show.calls(item, "load", "playAction", "playAction")
    expect(show.frame(item).get_by_text("Шаг 2/3")).to_be_visible()
    assert shown(show.shot("steps-2")) == ["red", "green"]
    show.act("continue", item)
    show.calls(item, "load", "playAction", "playAction", "playAction")
    expect(show.frame(item).get_by_text("Шаг 3/3")).to_be_visible()
    img = show.shot("steps-3")
    assert shown(img) == ["red", "green", "blue"]
    assert drawn(img) == drawn(img.crop((100, 300, 1700, 700)))
    show.act("continue", item, status=422)  # the last step: nothing further
    show.edit(item, {"title": "Этап"})
    show.act("update", item)
    show.calls(item, "load", "playAction", "playAction", "playAction", "updateAction")
    expect(show.frame(item).get_by_text("Этап 3/3")).to_be_visible()
    show.out(item, "steps")

    # scoreboard (stepCount -1: as many steps as the operator wants): round 1 on take, 0 : 0;
    # "point" (no payload) gives the home team one; "set-score" (a payload, checked against the
    # action's schema) sets both; continue: round 2, then 3; F5 renames the teams and keeps the score
    item = show.add("own-scoreboard", {"home": "Знатоки", "away": "Телезрители"}, layer="extra")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    board = show.frame(item)
    expect(board.get_by_text("Round 1")).to_be_visible()
    expect(board.locator(".score-home")).to_have_text("0")
    expect(board.locator(".score-away")).to_have_text("0")
    show.act("custom", item, id="point")
    show.calls(item, "load", "playAction", "customAction")
    expect(board.locator(".score-home")).to_have_text("1")
    show.act("custom", item, status=400, id="set-score", payload={"home": "three"})  # refused before air
    show.act("custom", item, id="set-score", payload={"home": 3, "away": 5})
    show.calls(item, "load", "playAction", "customAction", "customAction")
    expect(board.locator(".score-home")).to_have_text("3")
    expect(board.locator(".score-away")).to_have_text("5")
    for n in (2, 3):
        show.act("continue", item)
        expect(board.get_by_text(f"Round {n}")).to_be_visible()
    show.edit(item, {"home": "Магистры", "away": "Зрители"})
    show.act("update", item)
    show.calls(item, "load", "playAction", "customAction", "customAction", "playAction", "playAction", "updateAction")
    expect(board.get_by_text("Магистры")).to_be_visible()
    expect(board.locator(".score-home")).to_have_text("3")
    img = show.shot("scoreboard")
    assert count(img, (1400, 40, 1880, 200), (0x10, 0x18, 0x28), 12) > 40_000, "the dark board is not drawn top right"
    assert count(img, (1400, 40, 1880, 200), (0xff, 0xd2, 0x00), 40) > 100, "the scores are not drawn"
    assert drawn(img) == drawn(img.crop((1400, 40, 1880, 200)))
    show.out(item, "scoreboard")

    # logo: a picture of its own package (its URL resolved against the module's) fades in top
    # left on play and out on stop
    item = show.add("own-logo", {})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    logo = show.frame(item).locator("img")
    expect(logo).to_have_css("opacity", "1")
    assert logo.evaluate("img => [img.naturalWidth, new URL(img.src).pathname.endsWith('/logo/logo.svg')]") == [200, True]
    img = show.shot("logo")
    assert count(img, (40, 40, 240, 240), (0xff, 0x88, 0x00), 20) > 20_000  # its orange
    assert count(img, (40, 40, 240, 240), (255, 255, 255), 10) > 3_000  # its white ring
    assert drawn(img) == drawn(img.crop((40, 40, 240, 240)))
    show.out(item, "logo")

    errors_before_hostile = list(tab.errors)
    assert errors_before_hostile == [], errors_before_hostile

    # the hostile graphic: every attempt blocked, the page where it was
    item = show.add("hostile", {"target": "/api/rundowns"})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    report = show.frame(item).locator("#report")
    expect(report).to_be_visible()
    lines = report.inner_text().splitlines()
    assert len(lines) == 13, lines
    assert all(": blocked" in line for line in lines), lines
    assert "secret-session-cookie" not in report.inner_text()
    show.shot("hostile")
    assert page.url == f"{srv.url}/overlays/show"
    assert page.evaluate("() => !!window.chgkOverlay && document.body.classList.contains('ready')")
    ours = ("/ograf/pkg/", static_url("ograf/frame.js"), "/ograf/frame/")
    assert [u for u in answered if not any(p in u for p in ours)] == []  # nothing reached /api or another origin
    assert {u: why for u, why in stopped.items() if not any(p in u for p in ours)} == {
        f"{srv.url}/api/rundowns": "csp", "https://example.org/evil.mjs": "csp"}  # the CSP stopped them in the browser
    show.act("out", item)
    show.gone(item)
    tab.close()


# The EBU's examples (ebu/ograf, v1/examples/) are not in this repository. Given a folder laid
# out as that one is — $CHGK_OGRAF_EXAMPLES, outside the repository — this test uploads the ones
# it finds as one package and plays each from the rundown on one page, in sequence, driven by its
# manifest alone: take with data made from its schema, continue through its steps, F5, each of
# its custom actions (a payload made from the action's schema), out. Checked as drawn: something
# while on air, nothing once it is out, and no call refused.
EBU_EXAMPLES = ("minimal", "l3rd-name", "renderer-test", "tennis-scoreboard", "bar-chart", "weather",
                "responsive-lower-third")
EBU_DIR = Path(os.environ["CHGK_OGRAF_EXAMPLES"]) if os.environ.get("CHGK_OGRAF_EXAMPLES") else None


def example_of(schema: Any) -> Any:
    """A value `schema` accepts: its default when valid, else its const or first enum value, else
    one made from its type (an object: its properties that have one, and every required one)."""
    if not isinstance(schema, dict):
        return {}
    valid = lambda v: jsonschema.Draft202012Validator(schema).is_valid(v)  # noqa: E731
    if "default" in schema and valid(schema["default"]):
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        out = {}
        for name, sub in (schema.get("properties") or {}).items():
            if name in schema.get("required", ()) or (isinstance(sub, dict) and ("default" in sub or sub.get("type") == "object")):
                value = example_of(sub)
                if isinstance(sub, dict) and jsonschema.Draft202012Validator(sub).is_valid(value):
                    out[name] = value
        return out
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return [example_of(schema.get("items"))] * schema.get("minItems", 0)
    if kind == "null":
        return None
    return "Проверка"[: schema.get("maxLength", 8)].ljust(schema.get("minLength", 0), "!")


def examples_package(folders: list[Path]) -> tuple[bytes, dict[str, dict]]:
    """The folders as one upload, and {folder: manifest as uploaded}. The files are never changed;
    in the copy that is uploaded, two things are set aside when our validator needs it: a
    manifest property our schema (overlay/ograf/manifest_schema.py) refuses becomes a vendor
    property (`v_<name>`; our renderer does not use it), and a thumbnail the folder lacks (a
    binary file left out of a copy) is a plain grey picture of the size the manifest gives."""
    from overlay.ograf.manifests import problems
    out, manifests = io.BytesIO(), {}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for folder in folders:
            manifest_path = next(folder.glob("*.ograf.json"))
            for p in sorted(folder.rglob("*")):
                if p.is_file() and p != manifest_path:
                    z.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
            m = json.loads(manifest_path.read_text())
            if "actionDurations" in m and any("actionDurations" in why for why in problems(m)):
                m["v_actionDurations"] = m.pop("actionDurations")
            for t in m.get("thumbnails", []):
                if not (folder / t["file"]).is_file():
                    buf = io.BytesIO()
                    size = (t.get("resolution", {}).get("width", 384), t.get("resolution", {}).get("height", 216))
                    fmt = {"jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP"}.get(t["file"].rsplit(".", 1)[-1].lower(), "PNG")
                    Image.new("RGB", size, (64, 64, 64)).save(buf, fmt)
                    z.writestr(f"{folder.name}/{t['file']}", buf.getvalue())
            z.writestr(f"{folder.name}/{manifest_path.name}", json.dumps(m))
            manifests[folder.name] = m
    return out.getvalue(), manifests


def ebu_examples_play_from_the_rundown(server_factory: Callable[..., Server], chromium: Browser,
                                       tmp_path: Path) -> None:
    assert EBU_DIR is not None
    folders = [EBU_DIR / name for name in EBU_EXAMPLES if any((EBU_DIR / name).glob("*.ograf.json"))]
    assert folders, f"none of {EBU_EXAMPLES} in {EBU_DIR}"
    srv = server_factory().start()
    body, manifests = examples_package(folders)
    r = srv.http.post(srv.url + "/api/ograf", timeout=60, files={"file": ("examples.zip", body)})
    assert r.status_code == 201, r.text
    tab = Tab(chromium)
    page = tab.open(f"{srv.url}/overlays/show")
    show = Show(srv, page, screenshot_dir(tmp_path), tab.errors)
    played = []

    def on_air(name: str, what: str) -> None:
        """Something is drawn (an entrance may take a few seconds)."""
        deadline = time.monotonic() + 8
        while drawn(img := show.shot(f"ebu-{name}-{what}")) == 0:
            assert time.monotonic() < deadline, f"{name}: nothing drawn after {what}"
            page.wait_for_timeout(250)
        assert drawn(img) > 0

    for folder in folders:
        m, name = manifests[folder.name], folder.name
        item = show.add(m["id"], example_of(m.get("schema") or {}))
        calls = ["load", "playAction"]
        show.act("take", item)
        show.calls(item, *calls)
        on_air(name, "take")
        steps = m.get("stepCount", 1)
        for _ in range(steps - 1 if steps > 0 else 2):  # -1: as many as wanted; two of them
            show.act("continue", item)
            calls.append("playAction")
            show.calls(item, *calls)
        on_air(name, "steps")
        show.act("update", item)
        calls.append("updateAction")
        show.calls(item, *calls)
        for action in m.get("customActions", []):
            payload = example_of(action.get("schema")) if action.get("schema") else None
            show.act("custom", item, id=action["id"], **({"payload": payload} if payload is not None else {}))
            calls.append("customAction")
            show.calls(item, *calls)
        on_air(name, "actions")
        show.out(item, f"ebu-{name}")
        played.append(name)

    assert played == [f.name for f in folders]
    assert tab.errors == [], tab.errors
    tab.close()


# A run by hand, not a test of the suite: the EBU's examples may not be committed here and cannot be
# downloaded in CI (tests/fixtures/ograf-own/README.md). With CHGK_OGRAF_EXAMPLES naming a copy of
# ebu/ograf's v1/examples/ it is collected and run; without it there is nothing to collect.
if EBU_DIR is not None:
    test_ebu_examples_play_from_the_rundown = ebu_examples_play_from_the_rundown
