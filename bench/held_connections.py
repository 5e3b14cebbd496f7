"""Held connections: one server (or one edge) holds thousands of connections that do nothing
useful (slowloris heads, idle websockets, idle Socket.IO long polls) while new clients keep
connecting; how long does a newcomer wait for `/api/time` and for its first `state`?

    python bench/held_connections.py [--target serve|edge] [--held 5000] [--seconds 60]
                                     [--mix 2000,2000,1000] [--mode eventlet|gevent]

The held mix (slowloris, websockets, polls) is opened in one asyncio process, at most 200
connects at a time, on loopback:

* **slowloris**: a request line, then one header every 5 s, never the blank line. The server
  closes it HEADER_TIMEOUT (10 s) after it became idle; it reconnects at once, as an attacker
  would, so the count stays up;
* **websocket**: `/socket.io/?EIO=4&transport=websocket`, joins `/overlay` (gets the state),
  then only answers the server's pings;
* **poll**: Engine.IO long-polling: the handshake, joins `/overlay`, then one held GET after
  another, answering pings.

Then, twice a second for `--seconds`, a newcomer on a fresh connection: GET /api/time (connect
to answer), and a websocket that joins `/overlay` (connect to its first `state`). Printed: the
held count, how many slowloris heads the server closed, the newcomers' median / p99 / max and
how many took over 1 s or failed, and the server's RSS and CPU. Everything stops by itself.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing as mp
import os
import resource
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

import requests
import websocket
from _common import Server, cpu_s, machine, pct, rss_kb
from tests.support import Redis, wait_for

OPEN_AT_ONCE = 200
STATE_PREFIX = b'42/overlay,["state"'


class Counts:
    def __init__(self) -> None:
        self.open = {"slowloris": 0, "websocket": 0, "poll": 0}
        self.closed_heads = 0
        self.errors = 0
        self.why: dict[str, int] = {}


# websocket frames (RFC 6455): the client masks, the server does not ----------------------------------

def ws_frame(text: str) -> bytes:
    data, mask = text.encode(), os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def ws_read(reader: asyncio.StreamReader) -> bytes:
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", await reader.readexactly(8))[0]
    data = await reader.readexactly(n)
    if b0 & 0x0F == 0x8:
        raise ConnectionError("closed by the server")
    return data


async def ws_open(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket joined to /overlay, once its first `state` has come."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head[:40])
    await ws_read(reader)  # Engine.IO open
    writer.write(ws_frame("40/overlay,"))
    while not (await ws_read(reader)).startswith(STATE_PREFIX):
        pass
    return reader, writer


async def held_websocket(port: int, counts: Counts, stop: asyncio.Event, gate: asyncio.Semaphore) -> None:
    async with gate:
        reader, writer = await ws_open(port)
    counts.open["websocket"] += 1
    try:
        while not stop.is_set():
            msg = await ws_read(reader)
            if msg == b"2":
                writer.write(ws_frame("3"))
    finally:
        counts.open["websocket"] -= 1
        writer.close()


# Engine.IO long-polling over raw HTTP/1.1 (keep-alive) --------------------------------------------------

async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str, path: str,
               body: bytes = b"") -> bytes:
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    if not head.startswith("http/1.1 200"):
        raise ConnectionError(head[:40])
    if "transfer-encoding: chunked" in head:
        out = b""
        while (size := int((await reader.readuntil(b"\r\n")).strip(), 16)):
            out += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readexactly(2)
        return out
    length = int(head.split("content-length:")[1].split("\r\n")[0])
    return await reader.readexactly(length)


async def held_poll(port: int, counts: Counts, stop: asyncio.Event, gate: asyncio.Semaphore) -> None:
    async with gate:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sid = json.loads((await http(reader, writer, "GET", "/socket.io/?EIO=4&transport=polling"))[1:])["sid"]
        path = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
        await http(reader, writer, "POST", path, b"40/overlay,")
    counts.open["poll"] += 1
    try:
        while not stop.is_set():
            packets = (await http(reader, writer, "GET", path)).split(b"\x1e")
            if b"2" in packets:
                await http(reader, writer, "POST", path, b"3")
    finally:
        counts.open["poll"] -= 1
        writer.close()


# slowloris -------------------------------------------------------------------------------------------

async def held_slowloris(port: int, counts: Counts, stop: asyncio.Event, gate: asyncio.Semaphore) -> None:
    """Reopens as soon as the server closes it, as an attacker would."""
    while not stop.is_set():
        async with gate:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /api/time HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        counts.open["slowloris"] += 1
        try:
            while not stop.is_set():
                try:
                    if await asyncio.wait_for(reader.read(1), 5) == b"":
                        counts.closed_heads += 1
                        break
                except asyncio.TimeoutError:
                    writer.write(b"X-Slow: 1\r\n")
        except ConnectionError:
            counts.closed_heads += 1
        finally:
            counts.open["slowloris"] -= 1
            writer.close()


# the held side: worker processes, each an asyncio loop --------------------------------------------------

FIELDS = ("slowloris", "websocket", "poll", "closed_heads", "errors")


def hold(port: int, mix: dict[str, int], shared, stop_flag) -> None:  # type: ignore[no-untyped-def]
    """A worker process: holds its share of the mix until `stop_flag` is set; its figures in `shared`."""
    asyncio.run(_hold(port, mix, shared, stop_flag))


async def _hold(port: int, mix: dict[str, int], shared, stop_flag) -> None:  # type: ignore[no-untyped-def]
    counts, stop, gate = Counts(), asyncio.Event(), asyncio.Semaphore(OPEN_AT_ONCE)
    kinds = {"slowloris": held_slowloris, "websocket": held_websocket, "poll": held_poll}

    async def one(kind: str) -> None:
        try:
            await kinds[kind](port, counts, stop, gate)
        except (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:
            counts.errors += 1
            why = f"{kind}: {type(exc).__name__} {str(exc)[:60]}"
            counts.why[why] = counts.why.get(why, 0) + 1

    tasks = [asyncio.ensure_future(one(kind)) for kind, n in mix.items() for _ in range(n)]
    while not stop_flag.is_set():
        shared[:] = [*counts.open.values(), counts.closed_heads, counts.errors]
        await asyncio.sleep(0.2)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if counts.why:
        print(f"  a worker's held connections that failed: {counts.why}", file=sys.stderr, flush=True)


# newcomers, from the driver process: blocking sockets, nothing else on their thread ------------------------

def newcomer_time(url: str) -> float:
    t0 = time.perf_counter()
    with requests.Session() as s:  # a new connection each time
        s.get(url + "/api/time", timeout=10).raise_for_status()
    return (time.perf_counter() - t0) * 1000


def newcomer_state(url: str) -> float:
    t0 = time.perf_counter()
    ws = websocket.create_connection(url.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket", timeout=10)
    try:
        ws.recv()  # Engine.IO open
        ws.send("40/overlay,")
        while not ws.recv().startswith(STATE_PREFIX.decode()):
            pass
    finally:
        ws.close()
    return (time.perf_counter() - t0) * 1000


def hold_and_probe(url: str, pid: int, mix: dict[str, int], seconds: float, workers: int) -> dict:
    stop_flag = mp.Event()
    shares = [{k: n // workers + (i < n % workers) for k, n in mix.items()} for i in range(workers)]
    figures = [mp.Array("i", len(FIELDS), lock=False) for _ in shares]
    procs = [mp.Process(target=hold, args=(int(url.rsplit(":", 1)[1]), share, fig, stop_flag)) for share, fig in zip(shares, figures)]

    def total(i: int) -> int:
        return sum(f[i] for f in figures)

    def held() -> int:
        return total(0) + total(1) + total(2)

    rss0, t_open = rss_kb(pid), time.perf_counter()
    for proc in procs:
        proc.start()
    try:
        target = sum(mix.values())
        while held() < target and time.perf_counter() - t_open < 300:
            time.sleep(0.2)
        opened_s = time.perf_counter() - t_open
        print(f"  held {held()} ({total(0)} slowloris, {total(1)} websockets, {total(2)} polls) after "
              f"{opened_s:.1f} s", file=sys.stderr, flush=True)
        samples: dict[str, list[float]] = {"time": [], "state": []}
        failures = {"time": 0, "state": 0}
        held_seen: list[int] = []
        cpu0, t0 = cpu_s(pid), time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            held_seen.append(held())
            for name, fn in (("time", newcomer_time), ("state", newcomer_state)):
                try:
                    samples[name].append(fn(url))
                except (OSError, requests.RequestException, websocket.WebSocketException):
                    failures[name] += 1
            time.sleep(0.5)
        cpu = (cpu_s(pid) - cpu0) / (time.perf_counter() - t0)
        rss1 = rss_kb(pid)
    finally:
        stop_flag.set()
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()
    return {"held_target": target, "open_s": round(opened_s, 1), "held_min": min(held_seen),
            "held_median": statistics.median(held_seen), "heads_closed_by_server": total(3),
            "held_errors": total(4), "server_cores": round(cpu, 2), "rss_mb": [round(rss0 / 1024), round(rss1 / 1024)],
            **{f"{k}_ms": _figures(v) for k, v in samples.items()},
            "over_1s": {k: sum(x > 1000 for x in v) for k, v in samples.items()}, "failed": failures}


def _figures(v: list[float]) -> dict:
    return {"n": len(v), "median": round(statistics.median(v), 1), "p99": round(pct(v, 99), 1),
            "max": round(max(v), 1)} if v else {"n": 0}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", choices=("serve", "edge"), default="serve")
    p.add_argument("--mode", choices=("eventlet", "gevent"), default="eventlet")
    p.add_argument("--held", type=int, default=5000)
    p.add_argument("--mix", default="2,2,1", help="slowloris,websocket,poll shares (default 2,2,1)")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--workers", type=int, default=4, help="processes holding the connections (default 4)")
    args = p.parse_args()
    shares = [int(x) for x in args.mix.split(",")]
    mix = dict(zip(("slowloris", "websocket", "poll"), [args.held * s // sum(shares) for s in shares]))
    mix["slowloris"] += args.held - sum(mix.values())
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds them all
    print(machine(), file=sys.stderr)
    started: list = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.target == "edge":
                redis = Redis(Path(tmp) / "redis")
                started.append(redis)
                redis.start()
                writer = Server(Path(tmp) / "writer", redis=redis.url, mode=args.mode)
                started.append(writer)
                writer.start()
                srv = Server(Path(tmp) / "edge", kind="edge", redis=redis.url, mode=args.mode)
            else:
                srv = Server(Path(tmp) / "data", mode=args.mode)
            started.append(srv)
            srv.start()
            if args.target == "edge":
                wait_for(lambda: srv.http.get(srv.url + "/api/edge", timeout=5).json()["synced"], what="edge synced")
            print(f"  {args.target} ({args.mode}) pid {srv.proc.pid}: {srv.output().strip().splitlines()[0]}",
                  file=sys.stderr, flush=True)
            result = hold_and_probe(srv.url, srv.proc.pid, mix, args.seconds, args.workers)
        finally:
            for s in reversed(started):
                s.stop()
    print(json.dumps({"target": args.target, "mode": args.mode, "mix": mix, **result}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
