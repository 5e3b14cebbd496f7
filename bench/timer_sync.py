"""Timer agreement: several real Chromium pages showing `/overlays/timer` during a running minute.

    python bench/timer_sync.py [--pages 5] [--mode eventlet] [--seconds 62]

Opens `--pages` pages (each in its own browser context, like separate OBS browser sources) on a
demo server, waits until every page has measured its clock offset, starts the minute, and has
each page log, with `performance.timeOrigin + performance.now()`, every change of the digits it
shows ("0:59", …, "9,9", …, "0,0") and its frame rate.

Server and browser share this machine's wall clock (`time.time()` and `Date.now()` read the same
CLOCK_REALTIME), so server time is known in every page without any network: a label ought to
appear at the instant the server's countdown reaches it (`ends_at − 59 000` for "0:59",
`ends_at − 9 900` for "9,9"). Reported:

* per page: its clock offset (ideal 0 here) and the sync round trip, frames per second, and the
  lag of each displayed change behind server time (a change can only show on the next frame:
  0 – 16.7 ms at 60 Hz is perfect);
* across pages: for each label, the spread between the first and the last page to show it
  (target: within one frame).

Runs with `--disable-gpu` as the project's browser tests do; headless Chromium paces frames at
60 Hz by itself.
"""
from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from _common import Server, machine, pct

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]

INSTRUMENT = """() => {
  const digits = document.querySelector('[data-ref="digits"]');
  const log = [];
  let last = digits.textContent;
  new MutationObserver(() => {
    const text = digits.textContent;
    if (text !== last) { log.push([performance.timeOrigin + performance.now(), text]); last = text; }
  }).observe(digits, {childList: true, characterData: true, subtree: true});
  let frames = 0;
  const t0 = performance.now();
  const count = () => { frames++; requestAnimationFrame(count); };
  requestAnimationFrame(count);
  window.__bench = {log, fps: () => 1000 * frames / (performance.now() - t0)};
  const c = window.chgkOverlay.clock;
  return {offset: c.offset, rtt: c.rtt, skew: Date.now() - (performance.timeOrigin + performance.now())};
}"""


def ideal(label: str, ends_at: float) -> float | None:
    """Server time at which the countdown reaches `label` (formatRemaining in static/lib/timer.js)."""
    m = re.fullmatch(r"(\d+):(\d\d)", label)
    if m:
        return ends_at - (int(m[1]) * 60 + int(m[2])) * 1000
    m = re.fullmatch(r"(\d+)[,.](\d)", label)
    if m:
        return ends_at - (int(m[1]) * 10 + int(m[2])) * 100
    return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=5)
    p.add_argument("--mode", default="eventlet", choices=("eventlet", "threading", "gevent"))
    p.add_argument("--seconds", type=float, default=62, help="how long to watch (a minute is 60 s)")
    args = p.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="chgk-timer-") as tmp, sync_playwright() as pw:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            srv.command("g1", type="spin", landed=3)
            pages = []
            for _ in range(args.pages):
                page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
                page.goto(srv.url + "/overlays/timer")
                pages.append(page)
            for page in pages:
                page.wait_for_function("document.body.dataset.clock === 'synced'", timeout=20_000)
            clocks = [page.evaluate(INSTRUMENT) for page in pages]
            time.sleep(0.5)
            state = srv.command("g1", type="start_timer").json()["state"]
            ends_at = state["timer"]["ends_at"]
            time.sleep(max(0.0, ends_at / 1000 - time.time()) + 0.5 if args.seconds >= 60 else args.seconds)
            logs = [page.evaluate("window.__bench.log") for page in pages]
            fps = [page.evaluate("window.__bench.fps()") for page in pages]
        finally:
            browser.close()
            srv.stop()

    print(f"{args.pages} pages, {args.mode} server, minute ends_at {ends_at} (server epoch ms)\n")
    seen: dict[str, list[float]] = {}
    all_lags = []
    print(f"{'page':<5} {'offset ms':>9} {'sync rtt':>8} {'fps':>5} │ {'changes':>7} {'lag med':>7}"
          f" {'lag p99':>7} {'lag min':>7} {'lag max':>7}")
    for i, (clock, log, rate) in enumerate(zip(clocks, logs, fps)):
        lags = []
        for at, label in log:
            target = ideal(label, ends_at)
            if target is None or at < ends_at - 60_000:
                continue  # "1:00" drawn before the start, or not a countdown label
            seen.setdefault(label, []).append(at)
            lags.append(at - target)
        all_lags += lags
        print(f"{i + 1:<5} {clock['offset']:>9.2f} {clock['rtt']:>8.2f} {rate:>5.1f} │ {len(lags):>7}"
              f" {statistics.median(lags):>7.2f} {pct(lags, 99):>7.2f} {min(lags):>7.2f} {max(lags):>7.2f}")
    complete = {k: v for k, v in seen.items() if len(v) == args.pages}
    spreads = [max(v) - min(v) for v in complete.values()]
    same = sum(1 for s in spreads if s < 4)
    print(f"\nlag = when a page showed a label − when server time reached it (ms); offset = the page's"
          f" clock correction (ideal 0: one machine)")
    print(f"all pages, {len(all_lags)} changes: lag median {statistics.median(all_lags):.2f},"
          f" p99 {pct(all_lags, 99):.2f}, max {max(all_lags):.2f} ms")
    print(f"spread across pages per label ({len(spreads)} labels shown by every page): median"
          f" {statistics.median(spreads):.2f}, p99 {pct(spreads, 99):.2f}, max {max(spreads):.2f} ms;"
          f" same frame (< 4 ms apart) for {same}/{len(spreads)}")
    worst = sorted(complete.items(), key=lambda kv: max(kv[1]) - min(kv[1]))[-3:]
    print("widest: " + ", ".join(f"{k!r} {max(v) - min(v):.1f} ms" for k, v in worst))
    skews = ", ".join(f"{c['skew']:.2f}" for c in clocks)
    print(f"Date.now() − (timeOrigin + performance.now()) per page at the start: {skews} ms")
    print(f"load average at the end: {machine().rsplit('load average ', 1)[1]}")


if __name__ == "__main__":
    main()
