"""How much a big picture upload delays everything else: the longest answer to GET /api/time
(a stand-in for a broadcast, served by the same event loop) while a 36-megapixel PNG is checked,
decoded, thumbnailed and written. The decode runs in a worker process (overlay.media.library).

Then what big uploads cost the server's memory (issue 23: six parallel 6320 × 6320 PNGs once
kept 2.4 GB): the server process's resident memory (VmRSS in /proc/<pid>/status) before, at its
peak (sampled, and VmHWM) and after the uploads, and 10 s later.

    python -m bench.media_upload [--mode eventlet|threading|gevent] [--parallel 6]
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests
from PIL import Image

os.environ.setdefault("CHGK_TEST_FORK", "0")  # a server as operators start it (bench/_common.py)
from tests.support import Server  # noqa: E402


def big_png() -> bytes:
    im = Image.linear_gradient("L").resize((6000, 6000)).convert("RGB")
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=1)
    return out.getvalue()


def status(pid: int, field: str) -> int:
    """A /proc/<pid>/status memory figure in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) // 1024
    return -1


def memory(srv: Server, parallel: int) -> None:
    side = 6320
    pictures = []
    for i in range(parallel):  # one colour each: small to send, 120 MB each to decode
        out = io.BytesIO()
        Image.new("RGB", (side, side), (i * 40, 80, 160)).save(out, "PNG", compress_level=1)
        pictures.append(out.getvalue())
    pid = srv.proc.pid
    before = status(pid, "VmRSS")
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], status(pid, "VmRSS"))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    codes: list[int] = []
    t0 = time.perf_counter()
    senders = [threading.Thread(target=lambda d=d: codes.append(
        requests.post(srv.url + "/api/media", files={"file": ("big.png", d)}, headers=srv.http.headers, timeout=600).status_code))
        for d in pictures]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    took = time.perf_counter() - t0
    done.set()
    sampler.join()
    after = status(pid, "VmRSS")
    time.sleep(10)  # a figure, not a synchronisation: what the server still holds a while later
    print(f"{parallel} parallel {side}×{side} PNG uploads: {codes.count(201)}/{parallel} taken in {took:.1f} s")
    print(f"  server RSS: before {before} MB, peak {peak[0]} MB (VmHWM {status(pid, 'VmHWM')} MB),"
          f" after {after} MB, 10 s later {status(pid, 'VmRSS')} MB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="eventlet")
    ap.add_argument("--parallel", type=int, default=6)
    args = ap.parse_args()
    data = big_png()
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "data", mode=args.mode).start()
        try:
            lat: list[float] = []
            done = threading.Event()

            def poll() -> None:
                s = requests.Session()
                while not done.is_set():
                    t0 = time.perf_counter()
                    s.get(srv.url + "/api/time", timeout=30)
                    lat.append((time.perf_counter() - t0) * 1000)
                    time.sleep(0.005)

            quiet: list[float] = []
            s = requests.Session()
            for _ in range(100):
                t0 = time.perf_counter()
                s.get(srv.url + "/api/time", timeout=30)
                quiet.append((time.perf_counter() - t0) * 1000)
            th = threading.Thread(target=poll)
            th.start()
            t0 = time.perf_counter()
            r = srv.http.post(srv.url + "/api/media", files={"file": ("big.png", data)}, timeout=120)
            upload_ms = (time.perf_counter() - t0) * 1000
            done.set()
            th.join()
            assert r.status_code == 201, r.text
            print(f"mode {args.mode}: 6000×6000 PNG ({len(data) / 1e6:.1f} MB) uploaded in {upload_ms:.0f} ms")
            print(f"  /api/time quiet: median {statistics.median(quiet):.1f} ms, max {max(quiet):.1f} ms")
            print(f"  /api/time during the upload: {len(lat)} answers, median {statistics.median(lat):.1f} ms,"
                  f" max {max(lat):.1f} ms")
            memory(srv, args.parallel)
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
