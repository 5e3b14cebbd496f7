"""What an overlay costs while it stays on air: Chromium's CPU per process kind, in a steady state.

    python bench/overlay_steady.py [--overlays table timer …] [--seconds 5] [--mode eventlet]

The demo game is put where each graphic has something to show and keeps moving (page_cost.py's
staging: a sector played, the minute running; the table's current sector glows), the page
`/overlays/<name>` is opened at 1920×1080 and left to finish its entrance, then the CPU time of
each of the browser's processes is read from /proc over `--seconds`: the renderer (the page's
scripts, style, layout, paint), the GPU process (with `--disable-gpu`, as in a headless test or an
OBS without hardware acceleration: the compositor drawing every frame in software, and raster),
and the rest (the browser process, the network service). Cores = CPU seconds per second.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from _common import Server, machine
from page_cost import setup
from timer_sync import ARGS, CHROMIUM

OVERLAYS = ["scoreboard", "timer", "table", "question", "blitz", "lower-third", "full"]
TICK = os.sysconf("SC_CLK_TCK")


def kinds(root: int) -> dict[int, tuple[str, float]]:
    """Every process under `root`: its kind and its CPU seconds so far."""
    children: dict[int, list[int]] = {}
    seen: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        children.setdefault(int(stat[1]), []).append(int(entry))
        kind = "gpu" if b"--type=gpu-process" in cmd else "renderer" if b"--type=renderer" in cmd else "other"
        seen[int(entry)] = (kind, (int(stat[11]) + int(stat[12])) / TICK)
    out, stack = {}, list(children.get(root, []))
    while stack:
        pid = stack.pop()
        if pid in seen:
            out[pid] = seen[pid]
        stack.extend(children.get(pid, []))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--overlays", nargs="+", default=OVERLAYS)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--mode", default="eventlet", choices=("eventlet", "threading", "gevent"))
    args = p.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.mode} server; cores over {args.seconds:g} s once the entrance is over\n")
    head = f"{'overlay':<12} {'renderer':>9} {'GPU':>7} {'other':>7} {'total':>7}"
    print(head + "\n" + "─" * len(head), flush=True)
    with tempfile.TemporaryDirectory(prefix="chgk-steady-") as tmp, sync_playwright() as pw:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for name in args.overlays:
                setup(srv, name)
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                page = context.new_page()
                page.goto(f"{srv.url}/overlays/{name}")
                page.wait_for_function("document.getElementById('stage')?.classList.contains('live')")
                page.wait_for_function("""() => document.getAnimations().every((a) => a.playState !== 'running'
                    || a.effect.getComputedTiming().iterations === Infinity)""", timeout=30_000)
                time.sleep(1)
                before = kinds(os.getpid())
                time.sleep(args.seconds)
                after = kinds(os.getpid())
                cores = {"renderer": 0.0, "gpu": 0.0, "other": 0.0}
                for pid, (kind, cpu) in after.items():
                    cores[kind] += (cpu - before.get(pid, (kind, 0.0))[1]) / args.seconds
                print(f"{name:<12} {cores['renderer']:>9.3f} {cores['gpu']:>7.3f} {cores['other']:>7.3f}"
                      f" {sum(cores.values()):>7.3f}", flush=True)
                context.close()
        finally:
            browser.close()
            srv.stop()


if __name__ == "__main__":
    main()
