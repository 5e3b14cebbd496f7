"""Time from an HTTP command to the `state` event at a connected /overlay client.

    python bench/latency.py [--modes eventlet threading gevent] [--commands 400]

Starts a real server per async mode, connects one Socket.IO client over websocket, and sends
commands (spin, then undo, alternately) with keep-alive HTTP; prints median and p99 in ms.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import socketio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support import Server  # noqa: E402


def measure(mode: str, n: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "data", mode=mode).start()
        got: dict[int, float] = {}
        arrived = threading.Condition()

        def on_state(state: dict) -> None:
            with arrived:
                got[state["rev"]] = time.perf_counter()
                arrived.notify_all()

        client = socketio.Client(reconnection=False)
        client.on("state", on_state, namespace="/overlay")
        client.connect(srv.url, namespaces=["/overlay"], transports=["websocket"])
        time.sleep(0.3)
        samples = []
        try:
            for i in range(n):
                path = "/api/games/g1/commands" if i % 2 == 0 else "/api/games/g1/undo"
                body = {"type": "spin", "landed": 1 + i % 12} if i % 2 == 0 else {}
                t0 = time.perf_counter()
                rev = srv.call("POST", path, body).json()["state"]["rev"]
                with arrived:
                    arrived.wait_for(lambda: rev in got, timeout=5)
                samples.append((got[rev] - t0) * 1000)
        finally:
            client.disconnect()
            srv.stop()
        return samples


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--modes", nargs="+", default=["eventlet", "threading", "gevent"])
    p.add_argument("--commands", type=int, default=400)
    args = p.parse_args()
    print(f"HTTP command → `state` at one /overlay client, {args.commands} commands")
    print(f"{'mode':<10} {'median ms':>10} {'p99 ms':>8} {'max ms':>8}")
    for mode in args.modes:
        s = sorted(measure(mode, args.commands))
        p99 = s[min(len(s) - 1, int(len(s) * 0.99))]
        print(f"{mode:<10} {statistics.median(s):>10.2f} {p99:>8.2f} {s[-1]:>8.2f}")


if __name__ == "__main__":
    main()
