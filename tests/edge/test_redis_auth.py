"""Redis with a password, ACL users and TLS (`rediss://`), and the signing key writer and edges
share: Debian's redis-server started here with `requirepass`, `--user` and `--tls-port` (certs
made by openssl in a temp folder), a real writer and real edges."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis as redis_py
import requests

from tests.edge.test_edge import Overlay
from tests.support import ROOT, Redis, Server, edge_status, free_port, stop_process, wait_for

pytestmark = pytest.mark.slow
WRITER_PW, EDGE_PW, REQUIRE_PW = "writer-pw-9f3k", "edge-pw-2m7q", "require-pw-5x8z"
# the ACL docs/SECURITY.md gives: the writer writes and publishes chgk:*, an edge only reads and subscribes
ACL = ["--user", "default", "off",
       "--user", "chgk-writer", "on", f">{WRITER_PW}", "~chgk:*", "&chgk:*", "-@all", "+@read", "+@write",
       "+@transaction", "+@connection", "+publish", "+subscribe", "-@dangerous",
       "--user", "chgk-edge", "on", f">{EDGE_PW}", "~chgk:*", "&chgk:*", "-@all", "+@read",
       "+@transaction", "+@connection", "+subscribe", "-@dangerous"]


def redis_server(folder: Path, url: str, *args: str) -> subprocess.Popen:
    """redis-server with `args`, up once `url` answers PING."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "redis.log", "ab") as log:
        proc = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                                 "--dir", str(folder), *args], stdout=log, stderr=subprocess.STDOUT)
    client = redis_py.Redis.from_url(url, socket_connect_timeout=0.5)

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError((folder / "redis.log").read_text(errors="replace")[-2000:])
        try:
            return bool(client.ping())
        except redis_py.RedisError:
            return False
    try:
        wait_for(up, 20, "redis-server")
    finally:
        client.close()
    return proc


@pytest.fixture
def started() -> Iterator[list]:
    procs: list = []
    yield procs
    for p in reversed(procs):
        if isinstance(p, subprocess.Popen):
            stop_process(p)
        else:
            p.stop()


def writer_and_edge(tmp: Path, started: list, writer_url: str, edge_url: str) -> tuple[Server, Server]:
    """The URLs (with their passwords) from the environment, not the command line: `ps` shows
    every argument to anyone on the host."""
    writer = Server(tmp / "writer", env={"CHGK_OVERLAY_REDIS": writer_url})
    started.append(writer)
    writer.start(timeout=120)
    edge = Server(tmp / "edge", kind="edge", env={"CHGK_OVERLAY_REDIS": edge_url})
    started.append(edge)
    edge.start(timeout=120)
    wait_for(lambda: edge_status(edge)["synced"], what="the edge to read the writer's state")
    return writer, edge


def serves_the_writers_game(writer: Server, edge: Server) -> None:
    o = Overlay(edge.url)
    try:
        assert o.wait_rev(0)["id"] == "g1"
        writer.play("g1", "spin", landed=4)
        assert o.wait_rev(1)["round"]["sector"] == 4
    finally:
        o.close()


def test_acl_users_a_writer_that_writes_and_an_edge_that_only_reads(tmp_path: Path, started: list):
    port = free_port()
    base = f"127.0.0.1:{port}/0"
    started.append(redis_server(tmp_path / "redis", f"redis://chgk-writer:{WRITER_PW}@{base}", "--port", str(port),
                                *ACL))
    writer, edge = writer_and_edge(tmp_path, started, f"redis://chgk-writer:{WRITER_PW}@{base}",
                                   f"redis://chgk-edge:{EDGE_PW}@{base}")
    serves_the_writers_game(writer, edge)
    as_edge = redis_py.Redis.from_url(f"redis://chgk-edge:{EDGE_PW}@{base}")
    with pytest.raises(redis_py.exceptions.NoPermissionError):  # a stolen edge password writes nothing
        as_edge.set("chgk:meta", "{}")
    as_edge.close()
    with pytest.raises(redis_py.exceptions.AuthenticationError):
        redis_py.Redis(port=port).ping()  # no anonymous user
    for server in (writer, edge):  # the passwords never reach a log
        out = server.output()
        assert WRITER_PW not in out and EDGE_PW not in out, out


def test_requirepass_over_tls(tmp_path: Path, started: list):
    """`rediss://` with the CA that signed redis-server's certificate, and a password."""
    certs = tmp_path / "certs"
    certs.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=certs, check=True, capture_output=True)
    # ECDSA P-256 keys: made in milliseconds (RSA-2048: about half a second of CPU each)
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")
    openssl("req", "-x509", *ec, "-nodes", "-days", "2", "-subj", "/CN=test CA",
            "-keyout", "ca.key", "-out", "ca.crt")
    openssl("req", *ec, "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "redis.key",
            "-out", "redis.csr")
    (certs / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "redis.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "redis.crt")
    port = free_port()
    url = f"rediss://:{REQUIRE_PW}@127.0.0.1:{port}/0?ssl_ca_certs={certs / 'ca.crt'}"
    try:
        proc = redis_server(tmp_path / "redis", url, "--port", "0", "--tls-port", str(port),
                            "--tls-cert-file", str(certs / "redis.crt"), "--tls-key-file", str(certs / "redis.key"),
                            "--tls-ca-cert-file", str(certs / "ca.crt"), "--tls-auth-clients", "no",
                            "--requirepass", REQUIRE_PW)
    except RuntimeError as exc:
        if "tls" in str(exc).lower():
            if os.environ.get("CI") == "true":  # CI installs and runs everything: a missing part is a failure
                pytest.fail(f"this redis-server has no TLS: {exc}")
            pytest.skip(f"this redis-server has no TLS: {exc}")
        raise
    started.append(proc)
    writer, edge = writer_and_edge(tmp_path, started, url, url)
    serves_the_writers_game(writer, edge)
    with pytest.raises(redis_py.exceptions.ConnectionError):  # plain text is not spoken there
        redis_py.Redis(port=port, password=REQUIRE_PW, socket_timeout=2).ping()
    for server in (writer, edge):
        assert REQUIRE_PW not in server.output()


def test_the_signing_key_made_by_the_writer_and_given_to_edges(tmp_path: Path, started: list):
    """No key configured: the writer makes one (0600) in its data folder; an edge given that
    file serves; an edge with another key believes nothing; an edge with none refuses to start."""
    redis = Redis(tmp_path / "redis")
    started.append(redis)
    redis.start()
    no_key = {"CHGK_OVERLAY_REDIS_KEY": ""}
    writer = Server(tmp_path / "writer", redis=redis.url, env=no_key)
    started.append(writer)
    writer.start(timeout=120)
    key_file = tmp_path / "writer" / "redis_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and len(key_file.read_text().strip()) >= 40
    assert str(key_file) in writer.output() and key_file.read_text().strip() not in writer.output()

    good = Server(tmp_path / "good-edge", kind="edge", redis=redis.url, env=no_key,
                  args=("--redis-key-file", str(key_file)))
    started.append(good)
    good.start(timeout=120)
    wait_for(lambda: edge_status(good)["synced"], what="the edge with the writer's key to sync")
    serves_the_writers_game(writer, good)

    wrong = Server(tmp_path / "wrong-edge", kind="edge", redis=redis.url, env={"CHGK_OVERLAY_REDIS_KEY": "other"})
    started.append(wrong)
    wrong.start(timeout=120)
    wait_for(lambda: edge_status(wrong).get("dropped", 0) >= 3, what="the edge with another key to drop values")
    status = edge_status(wrong)
    assert not status["synced"] and status["revs"] == {}
    assert requests.get(wrong.url + "/api/games", timeout=10).status_code == 503
    assert "bad signature" in wrong.output()

    env = {**os.environ, "CHGK_OVERLAY_REDIS_KEY": ""}
    done = subprocess.run([sys.executable, "-m", "overlay", "edge", "--redis", redis.url, "--port", str(free_port()),
                           "--data", str(tmp_path / "keyless-edge")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "no Redis key" in done.stderr and "--redis-key-file" in done.stderr

