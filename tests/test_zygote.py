"""The tests' servers are forked from a zygote (tests/zygote.py): each must be the server
`python -m overlay serve` starts — its own environment, folder, log, limits and exit codes."""
from __future__ import annotations

import resource
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from tests.faults.helpers import login
from tests.support import Forked, PortTaken, Server


@pytest.fixture(autouse=True)
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """The zygote on for these tests, even in a run that turned it off (CHGK_TEST_FORK=0)."""
    monkeypatch.setenv("CHGK_TEST_FORK", "1")


def test_a_forked_server_takes_its_own_environment_and_says_its_end(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", demo=False, env={"CHGK_OVERLAY_PASSWORD": "zygote-password-1"}).start()
    try:
        assert isinstance(srv.proc, Forked)
        assert Path(f"/proc/{srv.proc.pid}/cwd").resolve() == Path(__file__).resolve().parent.parent
        login(srv.url, "zygote-password-1")  # the password of its environment, not the tests' default
        with pytest.raises(AssertionError):
            login(srv.url)
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)
        limits = Path(f"/proc/{srv.proc.pid}/limits").read_text()
        assert f"{soft[1]}" in next(x for x in limits.splitlines() if x.startswith("Max open files"))
        assert "listening on" in srv.output()  # its log is its own file
        assert srv.proc.poll() is None
    finally:
        srv.stop()
    assert srv.proc.returncode == -signal.SIGTERM


def test_a_killed_forked_server_is_seen_dead_and_starts_again(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data").start()
    first = srv.proc
    srv.kill()
    assert first.returncode == -signal.SIGKILL
    srv.start()  # the same folder and port, as after a crash
    try:
        assert srv.proc is not first and srv.state("g1")["id"] == "g1"
    finally:
        srv.stop()


def test_sigint_ends_a_forked_server_cleanly(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", demo=False).start()
    srv.proc.send_signal(signal.SIGINT)
    assert srv.proc.wait(20) == 0, srv.output()


def test_a_forked_server_that_cannot_listen_says_so_and_exits_1(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        srv = Server(tmp_path / "data", demo=False, port=held.getsockname()[1])
        with pytest.raises(PortTaken):  # a port the test gave is not moved
            srv.start(timeout=60)
        assert srv.proc.returncode == 1
        assert "Address already in use" in srv.output()


def test_a_server_whose_interpreter_starts_differently_is_not_forked(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", demo=False, env={"PYTHONHASHSEED": "7"}).start()
    try:
        assert isinstance(srv.proc, subprocess.Popen)
    finally:
        srv.stop()
