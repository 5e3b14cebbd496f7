"""Our obs-websocket client (overlay/obs/websocket.py) beside obsws-python (the maintained client
OBS lists), against real OBS Studio under Xvfb (tests/obs/real_obs.py; apt-get install
obs-studio xvfb xauth; pip install obsws-python).

    python bench/obs_client.py [--connects 30] [--switches 300]

Times connect + identify (password challenge) + close, and on an open connection one
SetCurrentProgramScene round trip (alternating two scenes; OBS answers once its UI thread has
switched, so this is mostly OBS) and one GetVersion round trip (mostly the client and the socket). Then what each says when things go wrong —
the words the panel would show: a wrong password, OBS not running, a scene OBS lacks — and
whether it logs the password. Medians and p95 in ms; the machine line says how loaded it was.
"""
from __future__ import annotations

import argparse
import io
import json
import logging
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from _common import ROOT, free_port, machine, pct

from overlay.obs.websocket import ObsError, ObsSocket
from tests.obs.real_obs import Obs

SCENES = ("ЧГК · Игра", "ЧГК · Стол")


class Ours:
    name = "overlay/obs/websocket.py"

    def __init__(self, url: str, password: str) -> None:
        self.sock = ObsSocket(url, password, timeout=5)
        self.sock.connect()

    def switch(self, scene: str) -> None:
        self.sock.request("SetCurrentProgramScene", {"sceneName": scene})

    def version(self) -> None:
        self.sock.request("GetVersion")

    def close(self) -> None:
        self.sock.close()


class Theirs:
    name = "obsws-python"

    def __init__(self, url: str, password: str) -> None:
        import obsws_python

        parts = urlsplit(url)
        self.client = obsws_python.ReqClient(host=parts.hostname, port=parts.port, password=password, timeout=5)

    def switch(self, scene: str) -> None:
        self.client.set_current_program_scene(scene)

    def version(self) -> None:
        self.client.get_version()

    def close(self) -> None:
        self.client.disconnect()


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:6.2f} ms, p95 {pct(samples, 95) * 1000:6.2f} ms (n={len(samples)})"


def timings(client_cls, obs: Obs, connects: int, switches: int) -> None:
    connect = []
    for _ in range(connects):
        t = time.perf_counter()
        client_cls(obs.url, obs.password).close()
        connect.append(time.perf_counter() - t)
    client = client_cls(obs.url, obs.password)
    switch, version = [], []
    for i in range(switches):
        t = time.perf_counter()
        client.switch(SCENES[i % 2])
        switch.append(time.perf_counter() - t)
        t = time.perf_counter()
        client.version()
        version.append(time.perf_counter() - t)
    client.close()
    print(f"{client_cls.name:26} connect+identify+close {ms(connect)}")
    print(f"{'':26} SetCurrentProgramScene {ms(switch)}")
    print(f"{'':26} GetVersion             {ms(version)}")


def failures(client_cls, obs: Obs) -> None:
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.DEBUG)
    cases = [("wrong password", obs.url, "not-the-password", None),
             ("OBS not running", f"ws://127.0.0.1:{free_port()}", obs.password, None),
             ("scene OBS lacks", obs.url, obs.password, "Нет такой сцены")]
    for label, url, password, scene in cases:
        try:
            client = client_cls(url, password)
            try:
                client.switch(scene)
                said = "(no error)"
            finally:
                client.close()
        except ObsError as exc:
            said = exc.message
        except Exception as exc:  # whatever obsws-python raises
            said = f"{type(exc).__name__}: {exc}"
        print(f"{client_cls.name:26} {label:16} → {said}")
    logging.getLogger().removeHandler(handler)
    leaked = obs.password in log.getvalue() or "not-the-password" in log.getvalue()
    print(f"{client_cls.name:26} password in its log lines: {'YES' if leaked else 'no'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connects", type=int, default=30)
    parser.add_argument("--switches", type=int, default=300)
    args = parser.parse_args()
    files = {"chgk-tv": (ROOT / "obs_scenes" / "chgk-tv.json").read_text(encoding="utf-8")}
    obs = Obs(Path(tempfile.mkdtemp(prefix="obs-bench-")), files, current="chgk-tv")
    t = time.monotonic()
    obs.start()
    version = obs.request("GetVersion")
    print(f"OBS {version['obsVersion']}, obs-websocket {version['obsWebSocketVersion']}, "
          f"started in {time.monotonic() - t:.1f} s; {machine()}")
    try:
        for client_cls in (Ours, Theirs, Ours, Theirs):  # twice, interleaved: the load drifts
            timings(client_cls, obs, args.connects, args.switches)
        for client_cls in (Ours, Theirs):
            failures(client_cls, obs)
    finally:
        obs.close()
    print(json.dumps({"machine": machine()}))


if __name__ == "__main__":
    main()
