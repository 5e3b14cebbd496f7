"""Big raster uploads against a real server process: decoding is bounded and its memory is given
back. Six parallel 6320 × 6320 PNGs once kept 2.4 GB in the server half an hour later (Pillow's
buffers freed into the allocator of the thread that decoded them, never returned to the system);
the decode now runs in a short-lived worker process (overlay/media/library.py, docs/SECURITY.md).
bench/media_upload.py measures the same with six."""
from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support import Server, wait_for

SIDE = 6320  # 39.9 megapixels: just inside the library's 40-megapixel limit
PARALLEL = 4
MB = 1024 * 1024


def memory(srv: Server, field: str = "VmRSS") -> int:
    """The server process's resident memory in bytes, now (VmRSS) or at its peak (VmHWM): the
    real process's /proc status, not ours."""
    for line in Path(f"/proc/{srv.proc.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field}")


def big_png(color: tuple[int, int, int]) -> bytes:
    """Cheap to make and send (one colour compresses to ~100 kB), 120 MB once decoded."""
    out = io.BytesIO()
    Image.new("RGB", (SIDE, SIDE), color).save(out, "PNG", compress_level=1)
    return out.getvalue()


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data", demo=False).start()
    yield srv
    srv.stop()


def test_parallel_big_uploads_give_their_memory_back(srv: Server):
    small = io.BytesIO()
    Image.new("RGB", (64, 64), "red").save(small, "PNG")
    assert srv.http.post(srv.url + "/api/media", files={"file": ("s.png", small.getvalue())}, timeout=60).status_code == 201
    baseline, peak_before = memory(srv), memory(srv, "VmHWM")
    pictures = [big_png((i * 40, 80, 160)) for i in range(PARALLEL)]
    answers: list[int] = []

    def send(data: bytes) -> None:
        answers.append(srv.http.post(srv.url + "/api/media", files={"file": ("big.png", data)}, timeout=300).status_code)

    threads = [threading.Thread(target=send, args=(p,)) for p in pictures]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [201] * PARALLEL
    # each picture is 120 MB decoded: the server itself never held one (its peak grew by less than
    # half of one), and what it holds afterwards is back near where it started
    margin = 60 * MB
    assert memory(srv, "VmHWM") < max(peak_before, baseline) + margin, (
        f"the server's peak grew from {peak_before // MB} to {memory(srv, 'VmHWM') // MB} MB")
    wait_for(lambda: memory(srv) < baseline + margin, timeout=20,
             what=f"the server's memory back near {baseline // MB} MB (it is {memory(srv) // MB} MB)")
    assert srv.http.get(srv.url + "/api/time", timeout=10).status_code == 200


def test_a_picture_over_the_pixel_limit_is_refused_with_the_limit(srv: Server):
    """Refused from its header, before anything is decoded: the message says the limit."""
    out = io.BytesIO()
    Image.new("1", (8000, 6000)).save(out, "PNG")  # 48 megapixels, 6 kB
    r = srv.http.post(srv.url + "/api/media", files={"file": ("huge.png", out.getvalue())}, timeout=60)
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert "8000 × 6000" in message and "40 megapixels" in message, message
    assert srv.http.get(srv.url + "/api/media", timeout=10).json()["media"] == []
