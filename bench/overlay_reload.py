"""An overlay reloaded (what OBS does on "Refresh" or a scene's reactivation): time until it is live
again, and how many of its static files went to the server, in Chromium.

    python bench/overlay_reload.py [--overlays scoreboard full] [--reloads 30] [--mode eventlet]

Each page is opened once, then reloaded `--reloads` times; per reload: ms from `reload()` until
the page is ready with its stage live (`tests/browser/helpers.LIVE_JS`, polled every 2 ms), and
the static requests that the browser's cache did not answer (DevTools' Network domain:
`requestServedFromCache`, `fromDiskCache`). Prints the median and p90 of the times and the
median count. Run it on two trees (e.g. a `git worktree` of an older commit) to compare.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from _common import Server, machine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.browser.helpers import LIVE_JS, StaticFetches  # noqa: E402
from tests.support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def reloads(page, n: int) -> tuple[list[float], list[int]]:
    fetches = StaticFetches(page)
    times, fetched = [], []
    for _ in range(n):
        fetches.reset()
        t0 = time.perf_counter()
        page.reload(wait_until="commit")
        page.wait_for_function(LIVE_JS, polling=2)
        times.append((time.perf_counter() - t0) * 1000)
        fetched.append(len(fetches.fetched()))
    return times, fetched


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--overlays", nargs="+", default=["scoreboard", "full"])
    p.add_argument("--reloads", type=int, default=30)
    p.add_argument("--mode", default="eventlet")
    args = p.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            print(f"{'overlay':<12} {'reload→live p50':>16} {'p90':>7} │ {'static files fetched':>20}")
            for name in args.overlays:
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                page.goto(f"{srv.url}/overlays/{name}")
                page.wait_for_function(LIVE_JS, polling=2)
                times, fetched = reloads(page, args.reloads)
                p90 = statistics.quantiles(times, n=10)[-1]
                print(f"{name:<12} {statistics.median(times):>13.1f} ms {p90:>7.1f} │ {statistics.median(fetched):>20g}")
                page.close()
        finally:
            browser.close()
            srv.stop()
    print(f"load average at the end: {machine().rsplit('load average ', 1)[-1]}")


if __name__ == "__main__":
    main()
