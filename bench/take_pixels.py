"""Take → pixels: from the operator's key press on the rundown desk to the first frame Chromium
paints with the new graphic on an overlay page.

    python bench/take_pixels.py [--takes 100] [--others 50] [--mode eventlet] [--max-wait 240 [--quiet 0.3]]

One server (`python -m overlay serve --demo`) in a temp folder, a rundown with one strap
(lower-third, layer `straps`, out manual), `--others` /overlay clients held by bench/clients.py
(`ts`, read every 20 ms), and the system Chromium (/usr/bin/chromium, headless, never a
downloaded browser) with two pages in one browser: the rundown desk (/control/rundown, logged
in, 1366×900) and the overlay (/overlays/lower-third, 1920×1080). Playwright presses Space on the
desk (the desk's `go`: take when the focused item is off air, out when it is on); only the takes
are measured, each from the strap off air, the next press a second after the strap is fully in
or out. Both pages stamp with `performance.timeOrigin + performance.now()` (one browser; the
offset between the two pages' clocks is measured over a BroadcastChannel and printed).

Stamps of one take:

* key: the desk's `keydown` event (`event.timeStamp`, when the browser received the key);
* fetch: the desk's POST /api/rundowns/<id>/actions starts; answer: its response has come;
* message: the overlay page's websocket delivers the `graphics` message (a listener that runs
  before the page's own);
* filled: the page's handler adds `.is-in` to the strap, its text filled and fitted (the call
  to `classList.toggle`, stamped as it is made);
* dom: the MutationObserver sees `.is-in` (the end of that task; the entrance starts);
* frame: the first `requestAnimationFrame` callback after that — the rendering update that
  draws the change; painted: a task posted from inside that callback runs, i.e. that frame's
  style, layout and paint are done and it is handed to the compositor ("painted" below);
* visible: the same for the first frame whose computed opacity of the strap is above 0 (the
  entrance is a transition from opacity 0: its first frame is drawn transparent).

Per take: key → painted and key → visible painted, median / p99 / max in ms and in 60 Hz frames,
and the stages' medians. At the end a screenshot of the overlay confirms the strap is drawn.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from _common import ClientPool, Server, machine, pct, wait_quiet
from tests.support import CHROMIUM, CHROMIUM_ARGS

STRAP = {"segment": "Эфир", "label": "Ведущий", "graphic": "lower-third", "layer": "straps", "out": "manual",
         "data": {"title": "Борис Крюк", "subtitle": "ведущий"}}

STAGES = ("fetch", "answer", "message", "filled", "dom", "frame", "painted", "visible", "visiblePainted")

# The desk: the key and the action's request, in absolute time.
DESK_JS = """(() => {
  if (window.top !== window) return;  // the desk's preview and program monitors are iframes
  const log = window.__take = {keys: [], fetches: [], answers: []};
  document.addEventListener("keydown", (e) => {
    if (e.key === " ") log.keys.push(performance.timeOrigin + e.timeStamp);
  }, true);
  const fetch0 = window.fetch;
  window.fetch = function (url, opts) {
    const isAction = String(url).endsWith("/actions");
    if (isAction) log.fetches.push(performance.timeOrigin + performance.now());
    const p = fetch0.apply(this, arguments);
    if (isAction) p.then(() => log.answers.push(performance.timeOrigin + performance.now()), () => {});
    return p;
  };
  const bc = new BroadcastChannel("take-pixels-clock");
  bc.onmessage = (e) => bc.postMessage({echo: e.data, at: performance.timeOrigin + performance.now()});
})();"""

# The overlay: every `graphics` message, and for each entrance the frames that draw it.
OVERLAY_JS = """(() => {
  const T = () => performance.timeOrigin + performance.now();
  const log = window.__take = {messages: [], takes: [], intervals: [], fills: []};
  // when the page's handler has filled and fitted the strap and adds .is-in (lib/dom.js show)
  const toggle = DOMTokenList.prototype.toggle;
  DOMTokenList.prototype.toggle = function (name, force) {
    if (name === "is-in" && force && !this.contains("is-in")) log.fills.push(T());
    return toggle.apply(this, arguments);
  };
  const WS = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new WS(...args);
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string" && e.data.includes('["graphics"')) log.messages.push(T());
    });
    return ws;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  let last = 0;  // the frame rate: every rAF interval
  const tick = (ts) => { if (last) log.intervals.push(ts - last); last = ts; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const after = (fn) => { const ch = new MessageChannel(); ch.port1.onmessage = fn; ch.port2.postMessage(0); };
  const watch = (el) => {
    let wasIn = el.classList.contains("is-in");
    new MutationObserver(() => {
      const isIn = el.classList.contains("is-in");
      if (isIn && !wasIn) {
        const take = {dom: T(), filled: log.fills[log.fills.length - 1] ?? null, frame: null, painted: null, visible: null, visiblePainted: null, frames: 0};
        log.takes.push(take);
        const step = () => {
          take.frames += 1;
          const now = T();
          const opacity = parseFloat(getComputedStyle(el).opacity);
          if (take.frame === null) { take.frame = now; after(() => { take.painted = T(); }); }
          if (opacity > 0) { take.visible = now; take.opacity = opacity; after(() => { take.visiblePainted = T(); }); return; }
          if (take.frames < 120) requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
      }
      wasIn = isIn;
    }).observe(el, {attributes: true, attributeFilter: ["class"]});
  };
  const find = () => { const el = document.querySelector(".lt"); if (el) watch(el); else setTimeout(find, 20); };
  find();
  const bc = new BroadcastChannel("take-pixels-clock");
  log.offsets = [];
  bc.onmessage = (e) => log.offsets.push({sent: e.data.echo, there: e.data.at, back: T()});
  window.__ping = () => bc.postMessage(T());
})();"""


def clock_offset(overlay: Page, rounds: int = 20) -> dict:
    """The desk's clock minus the overlay's, from BroadcastChannel round trips (NTP-style)."""
    for _ in range(rounds):
        overlay.evaluate("window.__ping()")
        overlay.wait_for_timeout(20)
    rows = overlay.evaluate("window.__take.offsets")
    best = min(rows, key=lambda r: r["back"] - r["sent"])  # the shortest round trip bounds the error best
    return {"offset_ms": round(best["there"] - (best["sent"] + best["back"]) / 2, 3),
            "round_trip_ms": round(best["back"] - best["sent"], 3), "n": len(rows)}


def stats(v: list[float]) -> dict:
    return {"median": round(statistics.median(v), 1), "p99": round(pct(v, 99), 1), "max": round(max(v), 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--takes", type=int, default=100)
    p.add_argument("--others", type=int, default=50, help="other /overlay clients held meanwhile")
    p.add_argument("--mode", choices=("eventlet", "gevent"), default="eventlet")
    p.add_argument("--max-wait", type=float, default=0,
                   help="first wait up to S seconds until other processes use under --quiet cores")
    p.add_argument("--quiet", type=float, default=0.3)
    p.add_argument("--json", help="also write every take's stamps to this file")
    p.add_argument("--screenshot", help="where to keep the final overlay screenshot (PNG)")
    args = p.parse_args()
    if args.max_wait:
        others = wait_quiet(args.quiet, args.max_wait)
        print(f"  others used {others:.2f} cores over 5 s before the start", file=sys.stderr, flush=True)
    print(f"# {machine()}  mode={args.mode}  takes={args.takes}  other overlays={args.others}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="chgk-take-pixels-") as tmp, sync_playwright() as pw:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        pool = None
        browser = None
        try:
            rid = srv.api("POST", "/api/rundowns", {"name": "Эфир"})["id"]
            item = srv.api("POST", f"/api/rundowns/{rid}/items", STRAP)["id"]
            srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "focus", "item": item})
            if args.others:
                pool = ClientPool(srv.url, args.others, per_worker=args.others, kind="ts", poll_ms=20,
                                  deadline=args.takes * 10 + 600)
                pool.wait_ready()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
            desk = ctx.new_page()
            desk.add_init_script(DESK_JS)
            desk.goto(srv.url + "/control/rundown")
            if desk.locator("input[name=password]").count():
                desk.fill("input[name=password]", srv.password)
                desk.click("button[type=submit]")
            desk.wait_for_selector("body[data-connection=connected]", timeout=60_000)
            desk.wait_for_selector(f'.rd-item[data-label="{STRAP["label"]}"].focused', timeout=60_000)
            overlay = ctx.new_page()
            overlay.set_viewport_size({"width": 1920, "height": 1080})
            overlay.add_init_script(OVERLAY_JS)
            overlay.goto(srv.url + "/overlays/lower-third")
            overlay.wait_for_selector("body.ready", timeout=60_000)
            offset = clock_offset(overlay)
            print(f"  clocks: desk − overlay {offset['offset_ms']} ms (round trip {offset['round_trip_ms']} ms)",
                  file=sys.stderr, flush=True)
            for i in range(args.takes):
                for taking in (True, False):
                    desk.keyboard.press(" ")
                    if taking:
                        overlay.wait_for_function(f"window.__take.takes.length >= {i + 1} && "
                                                  f"window.__take.takes[{i}].visiblePainted !== null", timeout=30_000)
                    else:
                        overlay.wait_for_function("!document.querySelector('.lt').classList.contains('is-in')",
                                                  timeout=30_000)
                    overlay.wait_for_timeout(1000)  # the entrance / exit runs to its end; past DOUBLE_MS
                if (i + 1) % 20 == 0:
                    print(f"  {i + 1} takes; load {machine().rsplit('load average ', 1)[1]}", file=sys.stderr, flush=True)
            desk.keyboard.press(" ")  # the strap on air for the screenshot
            overlay.wait_for_function(f"window.__take.takes.length > {args.takes}", timeout=30_000)
            overlay.wait_for_timeout(1500)
            shot = Path(args.screenshot or Path(tmp) / "overlay.png")
            overlay.screenshot(path=str(shot), omit_background=True)
            drawn = overlay.evaluate("""() => { const el = document.querySelector('.lt');
              const r = el.getBoundingClientRect(); return {opacity: getComputedStyle(el).opacity,
              title: el.querySelector('[data-ref=title]').textContent, box: [r.x, r.y, r.width, r.height]}; }""")
            d = desk.evaluate("window.__take")
            o = overlay.evaluate("window.__take")
        finally:
            if browser:
                browser.close()
            if pool:
                pool.close()
            srv.stop()
        shot_bytes = shot.stat().st_size if shot.exists() else 0
    rows = []
    for i in range(args.takes):
        key = d["keys"][2 * i]
        fetch, answer = d["fetches"][2 * i], d["answers"][2 * i]
        take = o["takes"][i]
        # the overlay's times on the desk's clock
        message = next(m for m in o["messages"] if m + offset["offset_ms"] > key) + offset["offset_ms"]
        on = {k: take[k] + offset["offset_ms"] for k in ("filled", "dom", "frame", "painted", "visible", "visiblePainted")
              if take.get(k) is not None}
        rows.append({"fetch": fetch - key, "answer": answer - key, "message": message - key, **{k: v - key for k, v in on.items()},
                     "frames_to_visible": take["frames"], "opacity": take.get("opacity")})
    frame_ms = statistics.median(o["intervals"])
    out = {
        "takes": args.takes, "others": args.others, "clock_offset": offset,
        "frame_interval_ms": {"median": round(frame_ms, 2), "p99": round(pct(o["intervals"], 99), 1)},
        "key_to_painted_ms": stats([r["painted"] for r in rows]),
        "key_to_visible_painted_ms": stats([r["visiblePainted"] for r in rows]),
        "stages_median_ms": {k: round(statistics.median(r[k] for r in rows), 1)
                             for k in STAGES if all(k in r for r in rows)},
        "stages_p99_ms": {k: round(pct([r[k] for r in rows], 99), 1)
                          for k in STAGES if all(k in r for r in rows)},
        "final_frame": {**drawn, "screenshot_bytes": shot_bytes},
        "load_at_end": machine().rsplit("load average ", 1)[1],
    }
    out["key_to_painted_frames"] = {k: round(v / (1000 / 60), 2) for k, v in out["key_to_painted_ms"].items()}
    out["key_to_visible_painted_frames"] = {k: round(v / (1000 / 60), 2) for k, v in out["key_to_visible_painted_ms"].items()}
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": out, "takes": rows}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
