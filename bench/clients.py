"""A pool of asyncio Socket.IO clients on `/overlay`, run as a child process by the benches.

    python bench/clients.py --url http://127.0.0.1:5000 --n 250 [--kind sio|raw] [--deadline 300]

`--kind sio` (default): python-socketio `AsyncClient`s (aiohttp), each a full Socket.IO client;
the receipt is stamped first thing in the `state` handler.
`--kind raw`: bare aiohttp websockets speaking just enough Engine.IO v4 / Socket.IO v5 (open,
namespace connect, pong, EVENT) and reading `rev` with a regular expression instead of decoding
the JSON: a quarter of the CPU per message; stamped when aiohttp hands over the message.
`--kind ts`: plain sockets with SO_TIMESTAMPNS, same minimal protocol: the receipt is the time
the kernel received the message's last TCP segment, i.e. when the server wrote it, however late
this process gets to read it. What it measures is the server alone; a read that finds several
messages stamps them all with the last one's arrival (late, never early). With `--poll-ms P`
they do not wait on their sockets at all: every P ms they read whatever has arrived. The stamps
stay the kernel's, but a message no longer wakes a process, so the server's send costs what it
would to a browser on another machine, and the clients take far less of the CPU they share
with the server here.

Talks to its parent over lines on stdout/stdin:

    out  ready <n>              every client is connected (and has its first `state`, if any)
    out  all <rev> <ns>         every client has seen `rev` (or a later one); ns = when the last did
    in   dump                   → out  dump <json>: {rev: [receipt ns of each client]}, then exit
    in   (end of input)         disconnect and exit

Receipt times are `time.perf_counter_ns()` (CLOCK_MONOTONIC on Linux: comparable across the
processes of one machine). The process exits by itself after --deadline seconds whatever happens.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import select
import socket
import struct
import sys
import time
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: the `ts` clients need neither (nor the bench extras)
    import aiohttp
    import socketio

REV = re.compile(r'"rev":\s*(\d+)')


class Pool:
    def __init__(self, n: int) -> None:
        self.n = n
        self.receipts: dict[int, list[int]] = defaultdict(list)  # rev → receipt ns, one per client
        self.newest: list[int] = [-1] * n  # newest rev each client holds
        self.joined: list[bool] = [False] * n  # the server has acknowledged the /overlay connect
        self.reported = -1

    def handler(self, i: int, key: str = "rev"):
        async def on_state(state: object) -> None:
            t = time.perf_counter_ns()  # first thing: the stamp should not include our own work
            rev = state.get(key) if isinstance(state, dict) else None
            if isinstance(rev, int):
                self.got(i, rev, t)
        return on_state

    def got(self, i: int, rev: int, t: int) -> None:
        if rev <= self.newest[i]:
            return
        self.newest[i] = rev
        self.receipts[rev].append(t)
        if len(self.receipts[rev]) == self.n and rev > self.reported:
            self.reported = rev
            emit_line(f"all {rev} {t}")


def emit_line(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def connect_all(url: str, pool: Pool, batch: int, event: str = "state") -> list[socketio.AsyncClient]:
    """`event` "graphics": the receipt of each `graphics` message, by its `seq` (a rundown take)."""
    import socketio

    clients: list[socketio.AsyncClient] = []
    for start in range(0, pool.n, batch):
        group = []
        for i in range(start, min(pool.n, start + batch)):
            c = socketio.AsyncClient(reconnection=False)
            c.on(event, pool.handler(i, "seq" if event == "graphics" else "rev"), namespace="/overlay")
            group.append(c)
        await asyncio.gather(*(c.connect(url, namespaces=["/overlay"], transports=["websocket"],
                                         wait_timeout=20) for c in group))
        clients += group
    return clients


class RawClient:
    """One websocket, Engine.IO v4 + Socket.IO v5 on `/overlay`, nothing else."""

    def __init__(self, pool: Pool, i: int, http: aiohttp.ClientSession) -> None:
        self.pool, self.i, self.http = pool, i, http
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.task: asyncio.Task | None = None

    async def connect(self, url: str) -> None:
        ws_url = url.replace("http", "ws", 1) + "/socket.io/?EIO=4&transport=websocket"
        self.ws = await self.http.ws_connect(ws_url, autoping=False, max_msg_size=0)
        opened = await self.ws.receive_str()
        if not opened.startswith("0"):
            raise RuntimeError(f"unexpected open packet {opened[:80]!r}")
        await self.ws.send_str("40/overlay,")
        # python-socketio sends what the connect handler emits before the acknowledgement, so
        # the reader starts now and takes every packet as it comes.
        self.task = asyncio.ensure_future(self.run())

    async def run(self) -> None:
        ws, pool, i = self.ws, self.pool, self.i
        import aiohttp

        async for msg in ws:
            t = time.perf_counter_ns()
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = msg.data
            if data == "2":
                await ws.send_str("3")
            elif data.startswith("40/overlay,"):
                pool.joined[i] = True
            elif data.startswith('42/overlay,["state"'):
                m = REV.search(data)
                if m:
                    pool.got(i, int(m.group(1)), t)

    async def disconnect(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)


async def connect_raw(url: str, pool: Pool, batch: int) -> list[RawClient]:
    import aiohttp

    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    clients = [RawClient(pool, i, http) for i in range(pool.n)]
    for start in range(0, pool.n, batch):
        await asyncio.gather(*(c.connect(url) for c in clients[start:start + batch]))
    return clients


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; Python names it on few builds


class TsClient:
    """One websocket over a plain socket whose receipts are the kernel's arrival timestamps."""

    def __init__(self, pool: Pool, i: int) -> None:
        self.pool, self.i = pool, i
        self.buf = b""
        self.eof = False
        self.sock: socket.socket | None = None
        # kernel stamps are CLOCK_REALTIME; receipts are compared with perf_counter_ns()
        self.shift = time.perf_counter_ns() - time.time_ns()

    def connect(self, url: str) -> None:
        host, port = url.split("//", 1)[1].split(":")
        sock = socket.create_connection((host, int(port)), timeout=20)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                      f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise RuntimeError("closed during the websocket handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"no websocket: {head[:80]!r}")
        sock.setblocking(False)
        self.sock = sock
        self.send("40/overlay,")

    def send(self, text: str) -> None:
        data = text.encode()  # a client frame must be masked: a zero mask leaves the bytes as they are
        self.sock.sendall(bytes([0x81, 0x80 | len(data)]) + b"\0\0\0\0" + data if len(data) < 126 else
                          bytes([0x81, 0xFE]) + struct.pack("!H", len(data)) + b"\0\0\0\0" + data)

    def readable(self) -> None:
        try:
            data, anc, _, _ = self.sock.recvmsg(1 << 18, socket.CMSG_SPACE(16))
        except BlockingIOError:
            return
        t = time.perf_counter_ns()
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", raw[:16])
                t = sec * 1_000_000_000 + nsec + self.shift
        if not data:
            self.eof = True
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            return
        self.buf += data
        while len(self.buf) >= 2:
            n, at = self.buf[1] & 0x7F, 2
            if n == 126:
                if len(self.buf) < 4:
                    return
                n, at = struct.unpack("!H", self.buf[2:4])[0], 4
            elif n == 127:
                if len(self.buf) < 10:
                    return
                n, at = struct.unpack("!Q", self.buf[2:10])[0], 10
            if len(self.buf) < at + n:
                return
            opcode, payload, self.buf = self.buf[0] & 0x0F, self.buf[at:at + n], self.buf[at + n:]
            if opcode != 1:
                continue
            if payload == b"2":
                self.send("3")
            elif payload.startswith(b"40/overlay,"):
                self.pool.joined[self.i] = True
            elif payload.startswith(b'42/overlay,["state"'):
                m = REV.search(payload.decode())
                if m:
                    self.pool.got(self.i, int(m.group(1)), t)

    async def disconnect(self) -> None:
        if self.sock is not None:
            try:
                asyncio.get_running_loop().remove_reader(self.sock.fileno())
            except (ValueError, OSError):
                pass
            self.sock.close()


async def connect_ts(url: str, pool: Pool, batch: int, poll_ms: float = 0) -> list[TsClient]:
    loop = asyncio.get_running_loop()
    clients = [TsClient(pool, i) for i in range(pool.n)]
    for c in clients:
        await loop.run_in_executor(None, c.connect, url)
        if not poll_ms:
            loop.add_reader(c.sock.fileno(), c.readable)
    if poll_ms:
        asyncio.ensure_future(poll_ts(clients, poll_ms / 1000))
    return clients


async def poll_ts(clients: list[TsClient], period: float) -> None:
    """Read every P ms what has arrived; nobody waits in epoll_wait, so no send wakes us."""
    ep = select.epoll()
    by_fd = {c.sock.fileno(): c for c in clients}
    for fd in by_fd:
        ep.register(fd, select.EPOLLIN)
    while True:
        await asyncio.sleep(period)
        for fd, _ in ep.poll(0):
            client = by_fd[fd]
            client.readable()
            if client.eof:
                ep.unregister(fd)


async def main_async(args: argparse.Namespace) -> None:
    pool = Pool(args.n)
    if args.kind == "ts":
        clients = await connect_ts(args.url, pool, args.batch, args.poll_ms)
    else:
        clients = (await connect_raw(args.url, pool, args.batch) if args.kind == "raw"
                   else await connect_all(args.url, pool, args.batch, args.event))
    if args.kind == "sio":
        pool.joined = [True] * pool.n  # AsyncClient.connect returns once the namespace is joined
    while not all(pool.joined):  # events sent before the server's acknowledgement would be missed
        await asyncio.sleep(0.02)
    if args.initial_state:  # our server sends `state` on connect: wait until every client has it
        while min(pool.newest) < 0:
            await asyncio.sleep(0.02)
    emit_line(f"ready {len(clients)}")
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).decode().strip()
        if line == "dump":
            emit_line("dump " + json.dumps({str(k): v for k, v in pool.receipts.items()}))
        if line in ("dump", ""):
            break
    await asyncio.gather(*(c.disconnect() for c in clients), return_exceptions=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--kind", choices=("sio", "raw", "ts"), default="sio")
    p.add_argument("--batch", type=int, default=50, help="clients connecting at once")
    p.add_argument("--initial-state", action="store_true", help="wait for a `state` on connect")
    p.add_argument("--poll-ms", type=float, default=0, help="ts: read every P ms instead of on arrival")
    p.add_argument("--event", choices=("state", "graphics"), default="state",
                   help="sio: stamp `state` by rev (default) or `graphics` by seq")
    p.add_argument("--deadline", type=float, default=600, help="exit after this many seconds")
    args = p.parse_args()
    loop = asyncio.new_event_loop()
    loop.call_later(args.deadline, lambda: os._exit(3))  # bounded whatever the parent does
    loop.run_until_complete(main_async(args))


if __name__ == "__main__":
    main()
