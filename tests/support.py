"""Helpers shared by the tests: a real server process on a free port, and a small API client."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token-1"
PASSWORD = "test-password-1"


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`python -m overlay serve` in a child process, with its own data folder."""

    def __init__(self, data: Path, *, mode: str = "eventlet", demo: bool = True,
                 port: int | None = None, args: tuple[str, ...] = (), env: dict | None = None) -> None:
        self.data, self.mode, self.demo, self.args = Path(data), mode, demo, args
        self.port = port or free_port()
        self.env = {**os.environ, "CHGK_OVERLAY_TOKEN": TOKEN, "CHGK_OVERLAY_PASSWORD": PASSWORD,
                    "PYTHONUNBUFFERED": "1",
                    # tests send wrong credentials on purpose; the throttle has tests of its own
                    "CHGK_OVERLAY_LOGIN_ATTEMPTS": "1000", **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {TOKEN}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> "Server":
        cmd = [sys.executable, "-m", "overlay", "serve", "--port", str(self.port), "--data", str(self.data),
               "--async-mode", self.mode, *(["--demo"] if self.demo else []), *self.args]
        self.log = open(self.data.parent / f"server-{self.port}.log", "ab")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.output()}")
            try:
                if requests.get(self.url + "/api/time", timeout=0.5).ok:
                    return self
            except requests.RequestException:
                time.sleep(0.05)
        raise RuntimeError(f"server did not start in {timeout} s: {self.output()}")

    def output(self) -> str:
        self.log.flush()
        return (self.data.parent / f"server-{self.port}.log").read_text(errors="replace")[-3000:]

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, exactly like a crash."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.http.close()

    # API ---------------------------------------------------------------------------------------

    def call(self, method: str, path: str, json: Any = None, **kw: Any) -> requests.Response:
        return self.http.request(method, self.url + path, json=json, timeout=10, **kw)

    def command(self, game: str, **body: Any) -> requests.Response:
        return self.call("POST", f"/api/games/{game}/commands", body)

    def state(self, game: str) -> dict:
        r = self.call("GET", f"/api/games/{game}")
        assert r.status_code == 200, r.text
        return r.json()

    def log_length(self, game: str) -> int:
        return len(self.call("GET", f"/api/games/{game}/log").json()["events"])

    def create(self, spec: dict) -> str:
        r = self.call("POST", "/api/games", spec)
        assert r.status_code == 201, r.text
        return r.json()["id"]
