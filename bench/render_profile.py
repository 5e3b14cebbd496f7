"""Where a render's time goes, frame by frame: `chgk-overlay render` of one graphic with its steps timed.

    python bench/render_profile.py [--graphic timer] [--format prores] [--runs 2] [--data DIR --game G]

Records the short tv game of bench/render_speed.py (or takes a recorded one), renders it in this
process and prints the wall time spent in each step of the render's loop — the page's step
(`page.evaluate`), `Page.captureScreenshot` (the kept frames' and the pre-roll's 2×2 draws apart),
base64, the writes to ffmpeg's pipe (in the writer thread: overlapped with the browser) — and the
CPU seconds of every process: this one, Playwright's driver (node), Chromium's and ffmpeg's. The
timers wrap Playwright's and the render's own calls, so what is measured is what the CLI runs.
"""
from __future__ import annotations

import argparse
import base64
import collections
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import cpu_s, load, machine, recorded_tv_game
from overlay.post import render as R

SPENT: dict[str, float] = collections.defaultdict(float)
COUNT: collections.Counter[str] = collections.Counter()


def timed(name: str | Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = name(*args, **kwargs) if callable(name) else name
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.perf_counter() - t
            COUNT[key] += 1
    return wrapper


def instrument() -> None:
    from playwright.sync_api import CDPSession, Page

    Page.evaluate = timed("page.evaluate (the step, probes)", Page.evaluate)  # type: ignore[method-assign]

    def cdp_name(_self: Any, method: str, params: dict | None = None) -> str:
        if method == "Page.captureScreenshot":
            small = (params or {}).get("clip", {}).get("width", 0) <= 2
            return "captureScreenshot " + ("2×2 (pre-roll draw)" if small else "frame")
        return "cdp " + method
    CDPSession.send = timed(cdp_name, CDPSession.send)  # type: ignore[method-assign]
    R.base64 = type("b64", (), {"b64decode": staticmethod(timed("base64 decode", base64.b64decode))})  # type: ignore[assignment]
    put = R.Writer._run

    def run(self: Any) -> None:
        self.pipe.write = timed("pipe write (writer thread)", self.pipe.write)
        put(self)
    R.Writer._run = run  # type: ignore[method-assign]


def descendants(root: int) -> list[int]:
    kids: dict[int, list[int]] = collections.defaultdict(list)
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                kids[int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])].append(int(d.name))
            except OSError:
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out += kids[pid]
        todo += kids[pid]
    return out


class CpuWatch:
    """The CPU seconds of this process's children, sampled until each ends (their last figure kept)."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[str, float]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for pid in descendants(os.getpid()):
                try:
                    name = Path(f"/proc/{pid}/comm").read_text().strip()
                    self.last[pid] = (name, cpu_s(pid))
                except (OSError, IndexError):
                    pass
            self.stop.wait(0.1)

    def totals(self) -> dict[str, float]:
        self.stop.set()
        self.thread.join()
        out: dict[str, float] = collections.defaultdict(float)
        for name, c in self.last.values():
            out["node (Playwright)" if name.startswith("node") else name] += c
        return dict(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphic", default="timer")
    ap.add_argument("--format", default="prores", choices=sorted(R.FORMATS))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--game")
    args = ap.parse_args()
    instrument()
    with tempfile.TemporaryDirectory() as tmp:
        data, game = recorded_tv_game(args.data, args.game, tmp)
        print(f"machine: {machine()}")
        for run in range(args.runs):
            SPENT.clear()
            COUNT.clear()
            p = R.plan(data, game, graphic=args.graphic, fmt=args.format,
                       out=Path(tmp) / f"out{R.FORMATS[args.format]}")
            watch, own0, t0 = CpuWatch(), os.times(), time.perf_counter()
            marks: dict[int, float] = {}
            done = R.render(p, progress=lambda pr: marks.setdefault(pr.done, time.perf_counter()))
            t1, own1 = time.perf_counter(), os.times()
            cpu = watch.totals()
            up = (done["frames"] - 1) / (t1 - marks[1])
            print(f"\n{args.graphic} {args.format}, run {run + 1}: {done['frames']} frames, {done['drawn']} drawn, "
                  f"{t1 - t0:.1f} s; {up:.1f} frames/s once up ({up / p.fps:.2f}× real time); "
                  f"load {' '.join(f'{x:.1f}' for x in load())}")
            for key in sorted(SPENT, key=lambda k: -SPENT[k]):
                print(f"  {key:<40}{SPENT[key]:7.2f} s {COUNT[key]:>5} × {1000 * SPENT[key] / COUNT[key]:6.1f} ms")
            own = own1.user - own0.user + own1.system - own0.system
            print(f"  CPU: this process {own:.2f} s, " + ", ".join(f"{k} {v:.2f} s" for k, v in
                                                                   sorted(cpu.items(), key=lambda x: -x[1])))


if __name__ == "__main__":
    main()
