"""Real OBS Studio for the tests and benches: Debian's `obs` (29, obs-websocket 5 built in) on a
private Xvfb screen with software rendering, in a throwaway HOME holding a profile, the scene
collections and the websocket settings (port, password). Debian's OBS has no browser source
plugin: it keeps our browser sources (URL, size) in the collection but renders nothing, which is
all these tests need.

`Obs.request` is a minimal obs-websocket client of its own (websocket-client and the
`expected_auth` of fake_obs.py), independent of overlay/obs/websocket.py, which is under test."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.obs.fake_obs import expected_auth
from tests.support import PortTaken, free_port, start_on_free_ports

PROFILE = "chgk-tests"
START_TIMEOUT_S = 180  # OBS starts in seconds; a loaded 2-core machine can take much longer


def require_obs() -> None:
    """Skip without OBS and Xvfb on a developer's machine; fail under CI, where .ci/run installs them."""
    missing = [tool for tool in ("obs", "Xvfb") if not shutil.which(tool)]
    if missing:
        message = f"{' and '.join(missing)} not installed: apt-get install obs-studio xvfb xauth"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


class Obs:
    """One OBS instance. `start` writes its configuration on first use; `quit` ends the process
    (cleanly, or as a crash) and `start` brings it back on the same port with the same
    collections, as an operator restarting OBS. `fps`: the canvas's frame rate (a studio's 30 by
    default). OBS draws its 1080p canvas in software that many times a second whatever it shows:
    a core taken for as long as it runs at 30, a third of one at 5."""

    def __init__(self, root: Path, collections: dict[str, str], *, current: str,
                 password: str = "obs-test-password", fps: int = 30) -> None:
        self.root, self.password, self.fps = Path(root), password, fps
        self.files = collections  # file stem → the collection's JSON text, written as is
        self.names = {stem: json.loads(text)["name"] for stem, text in collections.items()}
        self.current = current  # file stem of the collection OBS opens first
        self.port = free_port()
        self.home = self.root / "home"
        self.log_path = self.root / "obs.log"
        self.xvfb: subprocess.Popen | None = None
        self.proc: subprocess.Popen | None = None
        self.display: str | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    # configuration -------------------------------------------------------------------------------

    def _configure(self) -> None:
        base = self.home / ".config" / "obs-studio"
        (base / "basic" / "profiles" / PROFILE).mkdir(parents=True, exist_ok=True)
        (base / "basic" / "scenes").mkdir(parents=True, exist_ok=True)
        (base / "plugin_config" / "obs-websocket").mkdir(parents=True, exist_ok=True)
        for stem, text in self.files.items():
            (base / "basic" / "scenes" / f"{stem}.json").write_text(text, encoding="utf-8")
        name = self.names[self.current]
        # No first-run wizard, no update check, no exit confirmation. obs-websocket 5.0–5.4
        # (OBS 28–30) reads [OBSWebSocket] here; 5.5 (OBS 31) reads plugin_config's config.json.
        (base / "global.ini").write_text(
            "[General]\nFirstRun=false\nLastVersion=486539264\nEnableAutoUpdates=false\n"
            "ConfirmOnExit=false\nWarnBeforeStartingStream=false\nWarnBeforeStoppingStream=false\n\n"
            f"[Basic]\nProfile={PROFILE}\nProfileDir={PROFILE}\nSceneCollection={name}\n"
            f"SceneCollectionFile={self.current}\nConfigOnNewProfile=false\n\n"
            f"[OBSWebSocket]\nFirstLoad=false\nServerEnabled=true\nServerPort={self.port}\n"
            f"AlertsEnabled=false\nAuthRequired=true\nServerPassword={self.password}\n", encoding="utf-8")
        (base / "plugin_config" / "obs-websocket" / "config.json").write_text(json.dumps({
            "first_load": False, "server_enabled": True, "server_port": self.port, "alerts_enabled": False,
            "auth_required": True, "server_password": self.password}), encoding="utf-8")
        (base / "basic" / "profiles" / PROFILE / "basic.ini").write_text(
            f"[General]\nName={PROFILE}\n\n[Video]\nBaseCX=1920\nBaseCY=1080\nOutputCX=1920\nOutputCY=1080\n"
            f"FPSType=1\nFPSInt={self.fps}\n\n[Audio]\nSampleRate=48000\nChannelSetup=Stereo\n", encoding="utf-8")

    # processes ---------------------------------------------------------------------------------

    def _start_xvfb(self) -> None:
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        os.close(write)
        with os.fdopen(read) as pipe:  # Xvfb writes its display number once it accepts clients
            number = pipe.readline().strip()
        if not number:
            raise RuntimeError(f"Xvfb did not start (exit {self.xvfb.poll()})")
        self.display = f":{number}"

    def start(self, timeout: float = START_TIMEOUT_S) -> "Obs":
        def once() -> None:
            if not self.home.exists():
                self._configure()
            if self.xvfb is None or self.xvfb.poll() is not None:
                self._start_xvfb()
            env = {**os.environ, "HOME": str(self.home), "DISPLAY": self.display, "LIBGL_ALWAYS_SOFTWARE": "1",
                   "QT_QPA_PLATFORM": "xcb", "XDG_CONFIG_HOME": str(self.home / ".config")}
            env.pop("WAYLAND_DISPLAY", None)
            name = self.names[self.current]
            since = self.log_path.stat().st_size if self.log_path.exists() else 0
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(["obs", "--profile", PROFILE, "--collection", name, "--minimize-to-tray",
                                          "--disable-updater", "--multi", "--disable-shutdown-check"],
                                         cwd=self.home, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
            log.close()
            self.starts += 1
            self.wait_ready(timeout, since)

        def move() -> None:  # a fresh configuration on a new port
            self.quit(crash=True)
            shutil.rmtree(self.home)
            self.port, self.starts = free_port(), 0

        # on the first start only: a restart keeps its port, as an operator's OBS does
        start_on_free_ports(once, move, movable=self.starts == 0)
        return self

    def wait_ready(self, timeout: float, since: int = 0) -> None:
        """Until obs-websocket identifies us and answers a request: the collection is loaded.
        PortTaken at once when obs-websocket says, in the log written after `since`, that its port
        is taken (OBS itself runs on without it)."""
        deadline, last = time.monotonic() + timeout, ""
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"OBS exited with {self.proc and self.proc.returncode}: {self.output()}")
            try:
                self.request("GetVersion", timeout=5)
                return
            except Exception as exc:  # not listening yet, or still loading
                last = f"{type(exc).__name__}: {exc}"
            with open(self.log_path, "rb") as f:
                f.seek(since)
                if b"WebSocketServer::Start] Listen failed: Address already in use" in f.read():
                    raise PortTaken(f"OBS could not listen on {self.url}: {self.output()}")
            time.sleep(0.25)
        raise RuntimeError(f"OBS did not answer on {self.url} within {timeout} s ({last}): {self.output()}")

    def quit(self, *, crash: bool = False) -> None:
        """OBS goes away; the screen stays for the next start. SIGINT is OBS's own clean exit
        (obs-websocket closes its clients with 1001 «Server stopping.», the collection is
        saved); `crash` is SIGKILL: the sockets just drop."""
        if self.proc and self.proc.poll() is None:
            if not crash:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(60)
                except subprocess.TimeoutExpired:
                    crash = True
            if crash:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)
        self.proc = None

    def close(self) -> None:
        self.quit(crash=True)
        if self.xvfb and self.xvfb.poll() is None:
            os.killpg(self.xvfb.pid, signal.SIGTERM)
            try:
                self.xvfb.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.xvfb.pid, signal.SIGKILL)
                self.xvfb.wait(10)
        self.xvfb = None

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path.exists() else ""

    # a minimal client, independent of the one under test -------------------------------------------

    def request(self, request_type: str, data: dict | None = None, *, timeout: float = 30) -> dict:
        """One request on a fresh identified connection; its responseData. Raises AssertionError
        when OBS refuses the request."""
        import websocket

        ws = websocket.create_connection(self.url, timeout=timeout, subprotocols=["obswebsocket.json"],
                                         http_no_proxy=["*"])
        try:
            hello = json.loads(ws.recv())["d"]
            identify: dict[str, Any] = {"rpcVersion": 1, "eventSubscriptions": 0}
            if "authentication" in hello:
                auth = hello["authentication"]
                identify["authentication"] = expected_auth(self.password, auth["salt"], auth["challenge"])
            ws.send(json.dumps({"op": 1, "d": identify}))
            assert json.loads(ws.recv())["op"] == 2
            body: dict[str, Any] = {"requestType": request_type, "requestId": "t"}
            if data is not None:
                body["requestData"] = data
            ws.send(json.dumps({"op": 6, "d": body}))
            while True:
                message = json.loads(ws.recv())
                if message["op"] == 7:
                    break
            status = message["d"]["requestStatus"]
            assert status["result"], f"OBS refused {request_type} {data}: {status}"
            return message["d"].get("responseData") or {}
        finally:
            ws.close()

    def program_scene(self) -> str:
        return self.request("GetCurrentProgramScene")["currentProgramSceneName"]

    def wait_program(self, scene: str, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while True:
            now = self.program_scene()
            if now == scene or time.monotonic() > deadline:
                return now
            time.sleep(0.1)
