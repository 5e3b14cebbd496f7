"""Render speed: `chgk-overlay render` of a recorded game's graphic at 1920×1080, 25 fps.

    python bench/render_speed.py [--graphics scoreboard timer] [--formats prores webm] [--quiet-wait 60]

A real server records a short tv game (the top's spin, a 2.5 s minute to its time-up, a verdict:
~7 s of game), then each graphic is rendered from the data folder in this process (as the CLI
does: headless Chromium under the renderer's clock, ffmpeg encoding), once per format. Printed
per render: frames, frames the browser drew (an unchanged frame is repeated, not drawn again),
wall seconds, frames a second, and the speed against real time (25 fps = 1.0×), beside the
machine's load: other engineers' suites share this 2-core machine, so the bench first waits (at
most --quiet-wait s) for the machine to be quiet, and says how busy it was.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import Server, busy_s, machine, wait_quiet
from overlay.post.render import plan, render
from tests.post.games import play_tv


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphics", nargs="+", default=["scoreboard", "timer"])
    ap.add_argument("--formats", nargs="+", default=["prores", "webm"])
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--quiet-wait", type=float, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "data", mode="threading", demo=False).start()
        try:
            game = play_tv(srv)
        finally:
            srv.stop()
        other = wait_quiet(0.3, args.quiet_wait)
        print(f"machine: {machine()}; busy before: {other:.2f} cores of other work")
        print(f"{'graphic':<12}{'format':<8}{'frames':>7}{'drawn':>7}{'seconds':>9}{'fps':>7}{'× real time':>13}"
              f"{'frames/s up':>12}{'cores busy':>12}")
        for graphic in args.graphics:
            for fmt in args.formats:
                p = plan(Path(tmp) / "data", game, graphic=graphic, fmt=fmt, fps=args.fps,
                         out=Path(tmp) / f"{graphic}.{'mov' if fmt == 'prores' else 'webm'}")
                b0, t0 = busy_s(), time.monotonic()
                marks: dict[int, float] = {}
                done = render(p, progress=lambda pr: marks.setdefault(pr.done, time.monotonic()))
                t1 = time.monotonic()
                busy = (busy_s() - b0) / (t1 - t0)
                # from the first frame to the file complete (the browser's start, ~2–3 s on this
                # machine, is paid once a render: a long game's speed tends to this)
                steady = (done["frames"] - 1) / max(1e-9, t1 - marks[1])
                print(f"{graphic:<12}{fmt:<8}{done['frames']:>7}{done['drawn']:>7}{done['seconds']:>9.1f}"
                      f"{done['fps']:>7.1f}{done['fps'] / args.fps:>12.2f}×{steady:>10.1f}{busy:>12.2f}")


if __name__ == "__main__":
    main()
