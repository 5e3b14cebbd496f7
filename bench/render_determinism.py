"""Determinism of `chgk-overlay render`, over many runs: the same game's graphic rendered N times,
the hashes of every decoded frame of each render compared with the first's.

    python bench/render_determinism.py [--graphic timer] [--runs 13] [--data DIR --game G] [--beyond-viewport]

Records the short tv game of bench/render_speed.py (the spin, a 2.5 s minute whose digits beat
from its first second, a verdict), or takes a recorded one. Prints, per render, the frames whose
decoded RGBA differs from the first render's (none is the verdict wanted), its time and the load.
A rare difference needs many runs to show: tests/post/test_render.py compares two whole renders,
this compares as many as asked, by hand (minutes, not for the suite). `--beyond-viewport` captures
as the render did before (`captureBeyondViewport`: the view's size overridden around each capture),
to see the difference that setting made.
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from _common import load, machine, recorded_tv_game
from overlay.post import render as R


def frame_hashes(path: Path) -> list[str]:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-pix_fmt", "rgba", "-f", "framemd5", "-"],
                         capture_output=True, text=True, check=True).stdout
    return [ln.split(",")[-1].strip() for ln in out.splitlines() if ln and not ln.startswith("#")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphic", default="timer")
    ap.add_argument("--runs", type=int, default=13)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--game")
    ap.add_argument("--beyond-viewport", action="store_true")
    args = ap.parse_args()
    if args.beyond_viewport:
        R.SHOT["captureBeyondViewport"] = True
    with tempfile.TemporaryDirectory() as tmp:
        data, game = recorded_tv_game(args.data, args.game, tmp)
        print(f"machine: {machine()}")
        first: list[str] = []
        differed = 0
        for run in range(args.runs):
            out = Path(tmp) / f"run{run}.mov"
            t0 = time.monotonic()
            R.render(R.plan(data, game, graphic=args.graphic, fmt="prores", out=out))
            hashes = frame_hashes(out)
            if run:
                out.unlink()
            first = first or hashes
            diff = [n for n, (a, b) in enumerate(zip(first, hashes)) if a != b]
            if len(hashes) != len(first):
                diff.append(f"{len(hashes)} frames, not {len(first)}")
            differed += bool(diff)
            print(f"render {run + 1}: {len(hashes)} frames ({len(set(hashes))} different), {time.monotonic() - t0:.1f} s, "
                  f"load {load()[0]:.1f}; frames unlike the first render's: {diff or 'none'}", flush=True)
        print(f"{args.graphic}: {differed} of {args.runs - 1} renders differed from the first")


if __name__ == "__main__":
    main()
