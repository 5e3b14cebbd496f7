"""How fast a change shows on the Companion module's keys: `companion/test/module.test.js` run
`--rounds` times (a real server, the module in a child process as Companion runs it), and the
times it prints for each change — from the press (or the server's answer, or the timer's end) to
the message that set the key's variable — gathered: median and max per change and over all.

    npm ci --prefix companion
    python bench/companion_keys.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from _common import machine

MODULE = Path(__file__).resolve().parents[1] / "companion"
NODE = MODULE / "node_modules" / ".bin" / "node"
LINE = re.compile(r"^#\s+(?P<what>.+?): (?P<ms>\d+(?:\.\d+)?) ms$")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    if not NODE.exists():
        sys.exit("companion/node_modules is missing: run `npm ci --prefix companion`")
    print(f"machine: {machine()}\n")
    times: dict[str, list[float]] = defaultdict(list)
    for n in range(args.rounds):
        done = subprocess.run([str(NODE), "--test", "test/module.test.js"], cwd=MODULE, capture_output=True,
                              text=True, timeout=600,
                              env={**os.environ, "PYTHON": sys.executable})
        if done.returncode != 0:
            sys.exit(f"round {n + 1}: the module's tests failed:\n{done.stdout[-4000:]}{done.stderr[-2000:]}")
        for line in done.stdout.splitlines():
            m = LINE.match(line.strip())
            if m and not m["what"].startswith("median"):
                times[m["what"]].append(float(m["ms"]))
    head = f"{'change':<52} {'median ms':>9} {'max ms':>8}"
    print(head + "\n" + "─" * len(head))
    for what, ms in times.items():
        print(f"{what:<52} {statistics.median(ms):>9.1f} {max(ms):>8.1f}")
    every = [x for ms in times.values() for x in ms]
    print("─" * len(head) + f"\n{'every change, ' + str(args.rounds) + ' rounds':<52} "
          f"{statistics.median(every):>9.1f} {max(every):>8.1f}")


if __name__ == "__main__":
    main()
