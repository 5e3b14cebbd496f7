"""Real peers on loopback UDP for the end-to-end tests: the server process, a python-osc
receiver that collects cues, liblo's oscdump (a receiver no one here wrote) and oscsend."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from pythonosc.dispatcher import Dispatcher
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.osc_server import BlockingOSCUDPServer

from tests.support import wait_until_up

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "testtoken"
HOST = "127.0.0.1"


def free_port(kind: int = socket.SOCK_DGRAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Cue:
    at: float  # time.perf_counter() on arrival
    address: str
    args: list[Any]


class Collector:
    """A python-osc UDP server on port 0 (one thread, so arrival order is kept); one catch-all
    handler that keeps what arrives."""

    def __init__(self) -> None:
        self.cues: list[Cue] = []
        self.lock = threading.Lock()
        dispatcher = Dispatcher()
        dispatcher.set_default_handler(self._keep)
        self.server = BlockingOSCUDPServer((HOST, 0), dispatcher)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _keep(self, address: str, *args: Any) -> None:  # returns nothing: python-osc would send a return value back
        with self.lock:
            self.cues.append(Cue(time.perf_counter(), address, list(args)))

    def clear(self) -> None:
        with self.lock:
            self.cues.clear()

    def seen(self, prefix: str = "") -> list[Cue]:
        with self.lock:
            return [c for c in self.cues if c.address.startswith(prefix)]

    def wait(self, address: str, args: list[Any] | None = None, timeout: float = 10.0,
             after: float = 0.0) -> Cue:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for cue in self.seen():
                if cue.address == address and cue.at >= after and (args is None or cue.args == args):
                    return cue
            time.sleep(0.002)
        raise AssertionError(f"no {address} {args or ''} within {timeout}s; got "
                             f"{[(c.address, c.args) for c in self.seen()][-15:]}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class OscDump:
    """liblo's oscdump as an independent receiver; its lines show the wire's type tags."""

    def __init__(self) -> None:
        self.port = free_port()
        self.lines: list[str] = []
        self.proc = subprocess.Popen(["oscdump", "-L", str(self.port)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait(self, needle: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if needle in line:
                    return line
            time.sleep(0.01)
        raise AssertionError(f"oscdump saw no {needle!r}; last lines: {self.lines[-10:]}")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(5)


def oscsend(port: int, address: str, types: str = "", *values: Any) -> None:
    subprocess.run(["oscsend", HOST, str(port), address, types, *map(str, values)] if types else
                   ["oscsend", HOST, str(port), address], check=True, timeout=5)


def osc_message(address: str, *typed: tuple[str, Any]) -> OscMessage:
    builder = OscMessageBuilder(address)
    for tag, value in typed:
        builder.add_arg(value, tag)
    return builder.build()


def message(address: str, *typed: tuple[str, Any]) -> bytes:
    return osc_message(address, *typed).dgram


class Surface:
    """A UDP socket that sends to the server and reads what comes back to it (pong, feedback)."""

    def __init__(self, server_port: int) -> None:
        self.to = (HOST, server_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((HOST, 0))
        self.port = self.sock.getsockname()[1]

    def send(self, data: bytes) -> None:
        self.sock.sendto(data, self.to)

    def recv(self, timeout: float = 10.0, want: Callable[[OscMessage], bool] = lambda m: True) -> OscMessage:
        deadline = time.monotonic() + timeout
        while True:
            self.sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                msg = OscMessage(self.sock.recv(65535))
            except socket.timeout:
                raise AssertionError("nothing came back") from None
            if want(msg):
                return msg

    def drain(self) -> None:
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(65535)
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)

    def close(self) -> None:
        self.sock.close()


class Server:
    """`python -m overlay serve` in its own process, with OSC in and two generic targets."""

    def __init__(self, data: Path, targets: list[int], mode: str | None = None) -> None:
        mode = mode or os.environ.get("CHGK_TEST_ASYNC_MODE", "eventlet")
        self.http_port, self.osc_port = free_port(socket.SOCK_STREAM), free_port()
        self.base = f"http://{HOST}:{self.http_port}"
        self.log = open(data / "server.log", "w+", encoding="utf-8")
        cmd = [sys.executable, "-m", "overlay", "serve", "--port", str(self.http_port), "--data", str(data / "data"),
               "--demo", "--osc-listen", f"{HOST}:{self.osc_port}", "--async-mode", mode]
        for port in targets:
            cmd += ["--osc-target", f"{HOST}:{port}"]
        env = {**os.environ, "CHGK_OVERLAY_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {TOKEN}"
        wait_until_up(self.proc, self.base + "/api/time", 120, output=self.output)

    def output(self, tail: int | None = 4000) -> str:
        """What the server wrote: the last `tail` characters (for failure messages), or all of it."""
        self.log.flush()
        self.log.seek(0)
        text = self.log.read()
        return text[-tail:] if tail else text

    def get(self, path: str) -> Any:
        r = self.http.get(self.base + path, timeout=5)
        assert r.ok, r.text
        return r.json()

    def new_game(self, **timers: int) -> str:
        from overlay.demo import DEMO_SPEC
        spec = {**DEMO_SPEC, **({"timers": timers} if timers else {})}
        r = self.http.post(self.base + "/api/games", json=spec, timeout=5)
        assert r.status_code == 201, r.text
        game = r.json()["id"]
        assert self.http.put(self.base + "/api/on-air", json={"game": game}, timeout=5).ok
        return game

    def state(self, game: str) -> dict:
        return self.get(f"/api/games/{game}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
