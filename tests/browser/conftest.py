"""Shared by the browser tests: the system Chromium (never a downloaded browser) and real
server processes (`python -m overlay serve`) on free ports with their own data folders.

Fixtures: `chromium` (one browser per test module: the machine has two cores),
`panel_server` (one demo server per module), `server_factory` (servers a test may kill and
restart on the same port and data; all stopped at the end of the test).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
PASSWORD = "panel-test-password"
TOKEN = "panel-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """One server in a child process. `kill` is a crash (SIGKILL); `start` again reuses the
    port and the data folder, as an operator restarting the server would."""

    def __init__(self, data: Path, *, demo: bool = True, port: int | None = None) -> None:
        self.data = data
        self.demo = demo
        self.password = PASSWORD
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {TOKEN}"
        self.log_path = data.parent / f"server-{self.port}.log"

    def start(self, timeout: float = 30) -> "ServerProcess":
        env = {**os.environ, "CHGK_OVERLAY_PASSWORD": PASSWORD, "CHGK_OVERLAY_TOKEN": TOKEN,
               "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "overlay", "serve", "--port", str(self.port), "--data", str(self.data),
               "--async-mode", "threading", *(["--demo"] if self.demo else [])]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.output()}")
            try:
                if requests.get(self.url + "/api/time", timeout=0.5).ok:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server did not start within {timeout} s: {self.output()}")

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""

    def kill(self) -> None:
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

    # the HTTP API, as a script with the bearer token sees it ----------------------------------

    def call(self, method: str, path: str, body: Any = None) -> requests.Response:
        return self.http.request(method, self.url + path, json=body, timeout=10)

    def api(self, method: str, path: str, body: Any = None) -> Any:
        r = self.call(method, path, body)
        assert r.ok, f"{method} {path} -> {r.status_code} {r.text}"
        return r.json()

    def game(self, game_id: str) -> dict:
        return self.api("GET", f"/api/games/{game_id}")

    def command(self, game_id: str, type_: str, **fields: Any) -> dict:
        return self.api("POST", f"/api/games/{game_id}/commands", {"type": type_, **fields})["state"]

    def log_length(self, game_id: str) -> int:
        return len(self.api("GET", f"/api/games/{game_id}/log")["events"])

    def create(self, spec: dict, *, on_air: bool = True) -> str:
        game_id = self.api("POST", "/api/games", spec)["id"]
        if on_air:
            self.api("PUT", "/api/on-air", {"game": game_id})
        return game_id


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def panel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("panel") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    made: list[ServerProcess] = []

    def make(**kwargs: Any) -> ServerProcess:
        data = kwargs.pop("data", None) or tmp_path / f"data{len(made)}"
        srv = ServerProcess(data, **kwargs)
        made.append(srv)
        return srv

    yield make
    for srv in made:
        srv.stop()
