"""Renders for the panel: each one is `chgk-overlay render` in a process of its own (never the
live server's: a render takes seconds of CPU a frame and must not delay a broadcast), writing into
`<data>/renders/` and its progress as JSON into a file beside it, which the server reads when asked.
One at a time (the machine that serves the show has few cores); a new server start forgets the
running ones (their processes are stopped with it) and lists the files that were finished."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..rules import InputError, RuleError
from .render import FORMATS, RENDERABLE

NAME = re.compile(r"^(?P<game>g\d+)-(?P<graphic>[a-z-]+)-(?P<n>\d+)\.(?P<ext>mov|webm)$")


class RenderBusy(InputError):
    status = 409


class UnknownRender(InputError):
    status = 404


@dataclass
class Job:
    id: str
    game: str
    graphic: str
    fmt: str
    fps: int
    path: Path
    started_at: int
    proc: subprocess.Popen | None = None
    status: str = "running"  # running | done | failed | stopped
    error: str | None = None
    log: Path | None = None
    extra: dict = field(default_factory=dict)

    @property
    def progress_path(self) -> Path:
        return self.path.with_name(self.path.name + ".progress")

    def view(self) -> dict[str, Any]:
        progress: dict[str, Any] = {}
        try:
            progress = json.loads(self.progress_path.read_text() or "{}")
        except (OSError, ValueError):
            pass
        out = {"id": self.id, "game": self.game, "graphic": self.graphic, "format": self.fmt, "fps": self.fps,
               "status": self.status, "started_at": self.started_at, "error": self.error,
               "done": progress.get("done", 0), "total": progress.get("total"), "frames_per_s": progress.get("fps"),
               "left_s": progress.get("left_s")}
        if self.status == "done":
            out["url"] = f"/api/renders/{self.id}/file"
            out["bytes"] = self.path.stat().st_size if self.path.exists() else None
        return out


class Renders:
    def __init__(self, data: Path | str, clock: Callable[[], int]) -> None:
        self.data = Path(data)
        self.folder = self.data / "renders"
        self.clock = clock
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()
        self.n = 0
        if self.folder.is_dir():  # what earlier runs finished
            for f in sorted(self.folder.iterdir()):
                m = NAME.match(f.name)
                if m:
                    self.n = max(self.n, int(m["n"]))
                    fmt = next(k for k, v in FORMATS.items() if v == "." + m["ext"])
                    self.jobs[f"r{m['n']}"] = Job(f"r{m['n']}", m["game"], m["graphic"], fmt, 0, f,
                                                  int(f.stat().st_mtime * 1000), status="done")
                elif f.name.endswith(".part") or f.name.endswith(".progress"):
                    f.unlink(missing_ok=True)  # a render the last server stop cut short

    def _poll(self, job: Job) -> None:
        if job.proc is None or job.extra.get("reaped"):
            return
        code = job.proc.poll()
        if code is None:
            return
        job.extra["reaped"] = True
        if code == 0 and job.path.exists():
            job.status = "done"
        elif job.extra.get("stopping") or code in (130, -signal.SIGTERM, -signal.SIGINT):
            job.status = "stopped"
        else:
            job.status = "failed"
            said = job.log.read_text(errors="replace").strip().splitlines() if job.log and job.log.exists() else []
            job.error = next((ln.removeprefix("chgk-overlay render: ") for ln in reversed(said)
                              if ln.startswith("chgk-overlay render: ")), said[-1] if said else f"exit code {code}")
        job.progress_path.unlink(missing_ok=True)
        if job.log:
            job.log.unlink(missing_ok=True)

    def list(self) -> list[dict]:
        with self.lock:
            for job in self.jobs.values():
                self._poll(job)
            return [j.view() for j in self.jobs.values()]

    def get(self, job_id: str) -> Job:
        with self.lock:
            job = self.jobs.get(job_id)
            if job is None:
                raise UnknownRender("unknown_render", f"There is no render {job_id!r}.")
            self._poll(job)
            return job

    def start(self, game: str, graphic: str, fmt: str, fps: int) -> Job:
        if graphic not in RENDERABLE:
            raise InputError("unknown_graphic", f"Unknown graphic {graphic!r}.", graphic=str(graphic))
        if fmt not in FORMATS:
            raise InputError("bad_field", "'format' must be prores or webm.", field="format")
        if fps not in (25, 50):
            raise InputError("bad_field", "'fps' must be 25 or 50.", field="fps")
        with self.lock:
            for job in self.jobs.values():
                self._poll(job)
            if any(j.status == "running" for j in self.jobs.values()):
                raise RenderBusy("render_busy", "A render is running already; wait for it or stop it.")
            self.folder.mkdir(mode=0o700, exist_ok=True)
            self.n += 1
            job_id = f"r{self.n}"
            path = self.folder / f"{game}-{graphic}-{self.n}{FORMATS[fmt]}"
            job = Job(job_id, game, graphic, fmt, fps, path, self.clock())
            job.log = path.with_name(path.name + ".log")
            cmd = [sys.executable, "-m", "overlay", "render", "--data", str(self.data), "--game", game,
                   "--graphic", graphic, "--format", fmt, "--fps", str(fps), "--out", str(path),
                   "--progress-file", str(job.progress_path), "--quiet"]
            with open(job.log, "wb") as log:
                job.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            cwd=str(Path(__file__).resolve().parent.parent.parent),
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
            self.jobs[job_id] = job
            return job

    def stop(self, job_id: str) -> dict:
        job = self.get(job_id)
        with self.lock:
            if job.status == "running" and job.proc is not None and not job.extra.get("reaped"):
                job.proc.send_signal(signal.SIGTERM)  # the render stops at its next frame, removes its file
                job.extra["stopping"] = True
                return job.view()
            job.path.unlink(missing_ok=True)
            del self.jobs[job_id]
            return {"deleted": job_id}

    def close(self) -> None:
        for job in self.jobs.values():
            if job.proc is not None and job.proc.poll() is None:
                job.proc.send_signal(signal.SIGTERM)


def check_finished(status: str) -> None:
    if status != "finished":
        raise RuleError("game_not_finished", "Only a finished game is rendered from the panel "
                                             "(a running one: chgk-overlay render on the command line).")
