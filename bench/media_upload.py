"""How much a big picture upload delays everything else: the longest answer to GET /api/time
(a stand-in for a broadcast, served by the same event loop) while a 36-megapixel PNG is checked,
decoded, thumbnailed and written. The decode runs in an OS thread (overlay.media.off_loop).

    python -m bench.media_upload [--mode eventlet|threading|gevent]
"""
from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests
from PIL import Image

from tests.support import Server


def big_png() -> bytes:
    im = Image.linear_gradient("L").resize((6000, 6000)).convert("RGB")
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=1)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="eventlet")
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
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
