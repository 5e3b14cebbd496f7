"""Timer agreement: several real Chromium pages showing `/overlays/timer` during a running minute.

    python bench/timer_sync.py [--pages 5] [--mode eventlet] [--seconds 62] [--max-wait 0]
    python bench/timer_sync.py --countdowns 20 [--duration-ms 3000]

Opens `--pages` pages (each in its own browser context, like separate OBS browser sources) on a
demo server, waits until every page has measured its clock offset (and, where the client runs
one, its second sync round), starts the minute, and has each page log every change of the digits
it shows ("0:59", …, "9,9", …, "0,0"), its frame times and its frame rate.

Server and browser share this machine's wall clock (`time.time()` and `Date.now()` read the same
CLOCK_REALTIME), so server time is known in every page without any network: a label ought to
appear at the instant the server's countdown reaches it (`ends_at − 59 000` for "0:59",
`ends_at − 9 900` for "9,9"). Page times are read with `performance.now()` and mapped to the wall
clock to a fraction of a ms (the largest `Date.now() − performance.now()` over 30 ms: Date.now()
counts whole ms). For each change, two instants:

* changed: when the page changed the DOM (a MutationObserver, in the frame's script);
* shown: the timestamp of the first frame of the page that begins after that change, i.e. the
  vsync at which the frame carrying the change is put on screen (headless Chromium has no real
  display: this is the closest instant a page can observe; a frame's timestamp is its vsync even
  when a busy page runs its callbacks late, so "begins after" compares timestamps with the
  change's own instant, not with the timestamp of the frame that made it).

Reported: per page, its clock offset (ideal 0 here), the sync round trip and rounds, frames per
second and frame interval, and the lag of each change behind server time, as changed and as
shown. A label can only appear on a vsync, so a shown lag of 0 – 16.7 ms at 60 Hz is perfect
(a page that draws for "now" shows one frame later: 16.7 – 33.3 ms). Across pages: for each
label, the spread between the first and the last page to show it (target: within one frame).

Every label of one countdown falls at the same point of the frame grid (1 s and 100 ms are whole
numbers of 60 Hz frames), and the pages of one headless browser share that grid: one minute
samples a single phase between the countdown and the frames, and whether pages split over two
frames depends on it. `--countdowns N` runs N short countdowns instead (`--duration-ms`, 3 s:
labels "2,9" … "0,0"), each in a new game put on air and started at a random instant, to sample
N phases.

Runs with `--disable-gpu` as the project's browser tests do; headless Chromium paces frames at
60 Hz by itself.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from _common import Server, busy_s, machine, pct, wait_quiet

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]

INSTRUMENT = """() => {
  // performance.now() -> wall clock: Date.now() - performance.now() is largest just after
  // Date.now() ticks, where it is the true difference.
  let anchor = -Infinity;
  const t0 = performance.now();
  while (performance.now() - t0 < 30) anchor = Math.max(anchor, Date.now() - performance.now());
  const digits = document.querySelector('[data-ref="digits"]');
  const log = [];      // [changed, frame, shown, label], performance.now() ms
  const pending = [];  // changes whose frame has not been followed by the next one yet
  let last = digits.textContent;
  new MutationObserver(() => {
    const text = digits.textContent;
    if (text === last) return;
    const entry = [performance.now(), document.timeline.currentTime, null, text];
    log.push(entry);
    pending.push(entry);
    last = text;
  }).observe(digits, {childList: true, characterData: true, subtree: true});
  let frames = 0;
  let prev = null;
  const deltas = [];
  const count = (ts) => {
    frames++;
    if (prev !== null) deltas.push(ts - prev);
    prev = ts;
    // A change is put on screen at the first vsync after it was made: the first frame that
    // begins later (a frame's timestamp is its vsync; a busy page may start it late).
    while (pending.length && pending[0][0] < ts) pending.shift()[2] = ts;
    requestAnimationFrame(count);
  };
  requestAnimationFrame(count);
  window.__bench = {log, anchor, fps: () => 1000 * frames / (performance.now() - t0),
                    interval: () => [...deltas].sort((a, b) => a - b)[deltas.length >> 1]};
  const c = window.chgkOverlay.clock;
  return {offset: c.offset, rtt: c.rtt, rounds: c.rounds ?? 1, anchor,
          skew: anchor - performance.timeOrigin};
}"""


def tree_cpu_s() -> float:
    """CPU seconds used so far by this process and its descendants (the server, Playwright's
    driver, Chromium): what the machine spends that is ours."""
    procs: dict[int, tuple[int, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        procs[int(d.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    ours, todo = set(), [os.getpid()]
    while todo:
        pid = todo.pop()
        ours.add(pid)
        todo += [child for child, (parent, _) in procs.items() if parent == pid and child not in ours]
    return sum(procs[pid][1] for pid in ours if pid in procs)


def ideal(label: str, ends_at: float) -> float | None:
    """Server time at which the countdown reaches `label` (formatRemaining in static/lib/timer.js)."""
    m = re.fullmatch(r"(\d+):(\d\d)", label)
    if m:
        return ends_at - (int(m[1]) * 60 + int(m[2])) * 1000
    m = re.fullmatch(r"(\d+)[,.](\d)", label)
    if m:
        return ends_at - (int(m[1]) * 10 + int(m[2])) * 100
    return None


Countdown = tuple[float, int]  # (ends_at in server epoch ms, duration ms)


def lags_of(log: list, anchor: float, countdowns: list[Countdown]) -> list[tuple[tuple[int, str], float, float]]:
    """((countdown, label), changed lag, shown lag) of each countdown change in a page's log, ms."""
    out = []
    for changed, _frame, shown, label in log:
        at = changed + anchor
        # The countdown running then: the last one started (give or take a few frames) before.
        started = [k for k, (ends_at, duration) in enumerate(countdowns) if ends_at - duration - 200 <= at]
        if not started:
            continue
        k = started[-1]
        ends_at, duration = countdowns[k]
        target = ideal(label, ends_at)
        if target is None or target <= ends_at - duration or shown is None:
            continue  # not a countdown label, the full time (drawn before the start), or never shown
        out.append(((k, label), at - target, shown + anchor - target))
    return out


def stats(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.2f}, p99 {pct(xs, 99):.2f}, min {min(xs):.2f}, max {max(xs):.2f}"


def short_countdowns(srv: Server, n: int, duration: int) -> list[Countdown]:
    """`n` countdowns of `duration` ms, each in a new game put on air, each started at a random
    instant: every label of one countdown falls at the same point of the 60 Hz frame grid (100 ms
    is 6 frames), so one minute samples a single such phase; these sample `n`."""
    spec = {"rules": "tv", "timers": {"minute": duration}, "sectors": [
        {"number": 2, "kind": "regular", "questions": [{"text": "Вопрос", "answer": "Ответ"}]}]}
    out = []
    for _ in range(n):
        r = srv.call("POST", "/api/games", spec)
        assert r.status_code == 201, r.text
        game = r.json()["id"]
        srv.call("PUT", "/api/on-air", {"game": game}).raise_for_status()
        srv.command(game, type="spin", landed=2).raise_for_status()
        time.sleep(0.4 + random.uniform(0, 0.1))
        timer = srv.command(game, type="start_timer").json()["state"]["timer"]
        out.append((timer["ends_at"], duration))
        time.sleep(max(0.0, timer["ends_at"] / 1000 - time.time()) + 0.3)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=5)
    p.add_argument("--mode", default="eventlet", choices=("eventlet", "threading", "gevent"))
    p.add_argument("--seconds", type=float, default=62, help="how long to watch (a minute is 60 s)")
    p.add_argument("--countdowns", type=int, default=0,
                   help="instead of one minute, this many short countdowns at random frame phases")
    p.add_argument("--duration-ms", type=int, default=3000, help="length of each short countdown")
    p.add_argument("--quiet", type=float, default=0.3,
                   help="before starting, wait until other processes use fewer cores than this")
    p.add_argument("--max-wait", type=float, default=0, help="…for at most this many seconds (0: don't wait)")
    p.add_argument("--json", type=Path, default=None, help="also write every page's clock and log here")
    args = p.parse_args()
    print(f"machine: {machine()}")
    if args.max_wait:
        print(f"other load before the start: {wait_quiet(args.quiet, args.max_wait):.2f} cores")
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
            for page in pages:  # a client that runs a second round: on air, the minute starts later
                page.wait_for_function("!('rounds' in window.chgkOverlay.clock)"
                                       " || window.chgkOverlay.clock.rounds >= 2", timeout=20_000)
            clocks = [page.evaluate(INSTRUMENT) for page in pages]
            time.sleep(0.5)
            busy0, ours0, wall0 = busy_s(), tree_cpu_s(), time.monotonic()
            if args.countdowns:
                countdowns = short_countdowns(srv, args.countdowns, args.duration_ms)
            else:
                state = srv.command("g1", type="start_timer").json()["state"]
                countdowns = [(state["timer"]["ends_at"], 60_000)]
                ends_at = countdowns[0][0]
                time.sleep(max(0.0, ends_at / 1000 - time.time()) + 0.5 if args.seconds >= 60 else args.seconds)
            ours = tree_cpu_s() - ours0
            busy, elapsed = busy_s() - busy0, time.monotonic() - wall0
            logs = [page.evaluate("window.__bench.log") for page in pages]
            fps = [page.evaluate("window.__bench.fps()") for page in pages]
            intervals = [page.evaluate("window.__bench.interval()") for page in pages]
        finally:
            browser.close()
            srv.stop()

    if args.json:
        args.json.write_text(json.dumps({"countdowns": countdowns, "clocks": clocks, "logs": logs, "fps": fps,
                                         "intervals": intervals}))
    what = (f"{len(countdowns)} countdowns of {args.duration_ms} ms" if args.countdowns
            else f"one minute, ends_at {countdowns[0][0]} (server epoch ms)")
    print(f"{args.pages} pages, {args.mode} server, {what}; meanwhile: ours {ours / elapsed:.2f} cores,"
          f" others {max(0.0, busy - ours) / elapsed:.2f} cores\n")
    changed_at: dict[tuple[int, str], list[float]] = {}
    shown_at: dict[tuple[int, str], list[float]] = {}
    all_changed, all_shown = [], []
    print(f"{'page':<5} {'offset':>7} {'rtt':>6} {'rounds':>6} {'fps':>5} {'frame':>6} │ {'changes':>7}"
          f" {'chg med':>7} {'chg p99':>7} │ {'shown med':>9} {'p99':>6} {'min':>6} {'max':>6}")
    for i, (clock, log, rate, frame) in enumerate(zip(clocks, logs, fps, intervals)):
        rows = lags_of(log, clock["anchor"], countdowns)
        for key, changed, shown in rows:
            changed_at.setdefault(key, []).append(changed)
            shown_at.setdefault(key, []).append(shown)
        changed = [r[1] for r in rows]
        shown = [r[2] for r in rows]
        all_changed += changed
        all_shown += shown
        print(f"{i + 1:<5} {clock['offset']:>7.2f} {clock['rtt']:>6.2f} {clock['rounds']:>6} {rate:>5.1f}"
              f" {frame:>6.2f} │ {len(rows):>7} {statistics.median(changed):>7.2f} {pct(changed, 99):>7.2f} │"
              f" {statistics.median(shown):>9.2f} {pct(shown, 99):>6.2f} {min(shown):>6.2f} {max(shown):>6.2f}")
    print("\nms; offset = the page's clock correction (ideal 0: one machine), rtt = the round trip of its"
          " sample;\nlag = when a page changed (chg) or showed (shown: its next frame) a label − when server"
          " time reached it")
    print(f"all pages, {len(all_changed)} changes: changed lag {stats(all_changed)}")
    print(f"all pages, {len(all_shown)} changes: shown lag {stats(all_shown)}")
    for name, at in (("changed", changed_at), ("shown", shown_at)):
        # Lags against one due instant per label: their spread is the spread of the instants.
        complete = {k: v for k, v in at.items() if len(v) == args.pages}
        spreads = [max(v) - min(v) for v in complete.values()]
        same = sum(1 for s in spreads if s < 4)
        print(f"spread across pages per label, {name} ({len(spreads)} labels on every page):"
              f" median {statistics.median(spreads):.2f}, p99 {pct(spreads, 99):.2f}, max {max(spreads):.2f};"
              f" < 4 ms apart for {same}/{len(spreads)}")
        worst = sorted(complete.items(), key=lambda kv: max(kv[1]) - min(kv[1]))[-3:]
        print("  widest: " + ", ".join(f"{k[1]!r} {max(v) - min(v):.1f} ms" for k, v in worst))
    skews = ", ".join(f"{c['skew']:.2f}" for c in clocks)
    print(f"wall clock − (timeOrigin + performance.now()) per page: {skews} ms")
    print(f"load average at the end: {machine().rsplit('load average ', 1)[1]}")


if __name__ == "__main__":
    main()
