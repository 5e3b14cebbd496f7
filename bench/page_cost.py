"""Overlay page cost: bytes transferred and time to first correct render, in Chromium.

    python bench/page_cost.py [--overlays scoreboard timer …] [--runs 3] [--mode eventlet]

For each graphic the game is put in a state where it has something to show (a running minute;
a blitz round for `blitz`; a lower-third taken to air; the result screen shown), then the page
`/overlays/<name>` is opened in a fresh browser context (empty cache, like an OBS browser source
starting), `--runs` times, then once more in the same context (warm cache: a refresh).

Reported (median over the runs; times from navigation start, `performance.now()`):

* HTTP: requests and bytes over the wire (Resource Timing `transferSize`, document included)
  and decoded bytes; socket: bytes of the websocket frames received until the first render;
* `doc`: the HTML response ends; `ready`: the stage is revealed — fonts loaded and the first
  `state` applied (the client keeps it hidden until then, so nothing stale is ever drawn);
* `live`: the entrance starts (two frames after `ready`); `settled`: every CSS transition and
  animation of the entrance has finished (`document.getAnimations()`): the final frame;
* correct: the page's `data-rev` is the server's rev and a part of the graphic is `.is-in`.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from _common import Server, machine
from timer_sync import ARGS, CHROMIUM

OVERLAYS = ["scoreboard", "timer", "table", "question", "blitz", "lower-third", "result", "full"]

# Installed before any page script: stamps the moments the client marks on <body> and #stage.
MARKS = """(() => {
  const marks = {};
  window.__marks = marks;
  const stamp = (name) => { if (!(name in marks)) marks[name] = performance.now(); };
  // The entrance: the finite transitions/animations running one frame after `live` (a timer's
  // hand or an endless pulse are not part of it).
  let entrance = null;
  const settle = () => {
    entrance ??= document.getAnimations().filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime));
    if (entrance.some((a) => a.playState === "running" || a.playState === "pending")) requestAnimationFrame(settle);
    else stamp("settled");
  };
  new MutationObserver(() => {
    const body = document.body, stage = document.getElementById("stage");
    if (body && body.classList.contains("ready")) { stamp("ready"); marks.rev = body.dataset.rev; }
    if (stage && stage.classList.contains("live") && !("live" in marks)) {
      stamp("live");
      requestAnimationFrame(() => requestAnimationFrame(settle));
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["class", "data-rev"], childList: true});
})();"""

MEASURE = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const res = performance.getEntriesByType("resource");
  const all = [nav, ...res];
  return {
    requests: all.length,
    wire: all.reduce((s, e) => s + (e.transferSize || 0), 0),
    decoded: all.reduce((s, e) => s + (e.decodedBodySize || 0), 0),
    doc: nav.responseEnd,
    kinds: all.reduce((k, e) => {
      const ext = e === nav ? "html" : (new URL(e.name).pathname.match(/\.(\w+)$/)?.[1] || "socket.io");
      k[ext] = (k[ext] || 0) + (e.transferSize || 0);
      return k;
    }, {}),
    ...window.__marks,
    shown: document.querySelectorAll("#stage .is-in").length,
  };
}"""


def setup(srv: Server, name: str) -> None:
    """Puts the demo game in a state where `name` has content."""
    srv.call("POST", "/api/graphics", {"action": "clear", "graphic": "result"})
    srv.call("POST", "/api/graphics", {"action": "hide", "graphic": "lower-third"})
    while srv.state("g1")["undo"]:
        srv.call("POST", "/api/games/g1/undo", {})
    if name == "blitz":
        srv.command("g1", type="spin", landed=5)
        srv.command("g1", type="start_timer")
    else:
        srv.command("g1", type="spin", landed=3)
        srv.command("g1", type="start_timer")
    if name in ("lower-third", "full"):
        srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                           "data": {"title": "Анна Иванова", "subtitle": "капитан"}})
    if name == "result":
        srv.call("POST", "/api/graphics", {"action": "show", "graphic": "result"})
    # the question, its minute and a blitz are drawn once the top has stopped (`reveal_at`):
    # a page opened before that would rightly show nothing yet
    state = srv.state("g1")
    reveal_at = (state.get("round") or {}).get("reveal_at")
    if reveal_at:
        time.sleep(max(0.0, (reveal_at - state["server_now"]) / 1000) + 0.1)


def load(context, url: str, rev: int) -> dict:
    page = context.new_page()
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(len(payload))))
    page.goto(url)
    page.wait_for_function("window.__marks && 'settled' in window.__marks", timeout=30_000)
    m = page.evaluate(MEASURE)
    m["socket"] = sum(frames)
    m["correct"] = str(m.get("rev")) == str(rev) and m["shown"] > 0
    page.close()
    return m


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--overlays", nargs="+", default=OVERLAYS)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--mode", default="eventlet", choices=("eventlet", "threading", "gevent"))
    args = p.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.mode} server; cold = fresh context, median of {args.runs}; warm = reload with cache\n")
    head = (f"{'overlay':<12} {'req':>4} {'wire kB':>8} {'decoded kB':>10} {'socket B':>8} │"
            f" {'doc':>6} {'ready':>6} {'live':>6} {'settled':>7} │ {'warm kB':>7} {'warm ready':>10} │ ok")
    print(head + "\n" + "─" * len(head), flush=True)
    with tempfile.TemporaryDirectory(prefix="chgk-pages-") as tmp, sync_playwright() as pw:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        kinds: dict[str, dict] = {}
        try:
            for name in args.overlays:
                setup(srv, name)
                rev = srv.state("g1")["rev"]
                url = f"{srv.url}/overlays/{name}"
                cold = []
                for _ in range(args.runs):
                    context = browser.new_context(viewport={"width": 1920, "height": 1080})
                    context.add_init_script(MARKS)
                    cold.append(load(context, url, rev))
                    warm = load(context, url, rev)
                    context.close()
                med = {k: statistics.median(r[k] for r in cold) for k in
                       ("requests", "wire", "decoded", "socket", "doc", "ready", "live", "settled")}
                ok = all(r["correct"] for r in cold) and warm["correct"]
                kinds[name] = cold[0]["kinds"]
                print(f"{name:<12} {med['requests']:>4.0f} {med['wire'] / 1024:>8.1f} {med['decoded'] / 1024:>10.1f}"
                      f" {med['socket']:>8.0f} │ {med['doc']:>6.0f} {med['ready']:>6.0f} {med['live']:>6.0f}"
                      f" {med['settled']:>7.0f} │ {warm['wire'] / 1024:>7.1f} {warm['ready']:>10.0f} │"
                      f" {'yes' if ok else 'NO'}", flush=True)
        finally:
            browser.close()
            srv.stop()
    print("\ntimes in ms from navigation start; kB = 1024 bytes\n\ncold wire kB by kind of file:")
    names = sorted({k for v in kinds.values() for k in v})
    print(f"{'overlay':<12} " + " ".join(f"{n:>9}" for n in names))
    for overlay, v in kinds.items():
        print(f"{overlay:<12} " + " ".join(f"{v.get(n, 0) / 1024:>9.1f}" for n in names))
    print(f"load average at the end: {machine().rsplit('load average ', 1)[1]}")


if __name__ == "__main__":
    main()
