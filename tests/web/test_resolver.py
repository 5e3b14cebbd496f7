"""Host names under eventlet (overlay/web/resolver.py): the system's resolver, run in a real
thread, so a lookup that hangs never stalls the hub that drives every overlay. Each check runs in a
fresh interpreter patched as `chgk-overlay serve` patches itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import ROOT

SCRIPT = r"""
import json, socket, sys
from overlay.cli import _patch
_patch("eventlet")
import eventlet
from eventlet import patcher
from overlay.web import resolver

real_threading = patcher.original("threading")
hub_thread = real_threading.get_ident()
out = {"dnspython": any(m == "dns" or m.startswith("dns.") for m in sys.modules),
       "wrapped": [hasattr(getattr(socket, n), "blocking") for n in resolver.NAMED]}

# A resolver that answers only once the hub has run a green thread five times after the lookup
# began: with the lookup on the hub, it would never answer (the wait gives up after 20 s).
ran = real_threading.Event()
ticks = []
def ticker():
    while len(ticks) < 5:
        ticks.append(1)
        eventlet.sleep(0.001)
    ran.set()
threads = {}
def hanging(host, *args, **kwargs):
    threads[host] = real_threading.get_ident() != hub_thread
    if host != "127.0.0.1":
        out["hub_ran_during_lookup"] = ran.wait(20)
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 9))]
lookup = resolver._off_hub(hanging)
eventlet.spawn(ticker)
lookup("studio.example", 9)
lookup("127.0.0.1", 9)
out["named_in_a_thread"], out["literal_in_place"] = threads["studio.example"], not threads["127.0.0.1"]

# the real thing: a name the system resolves (/etc/hosts), connected through green create_connection
listener = eventlet.listen(("127.0.0.1", 0))
port = listener.getsockname()[1]
conn = socket.create_connection(("localhost", port), timeout=5)
out["connected"] = conn.getpeername()[1] == port
conn.close()
try:
    socket.getaddrinfo("no-such-host.invalid", 9)
    out["unknown"] = "resolved"
except socket.gaierror:
    out["unknown"] = "gaierror"
print(json.dumps(out))
"""


def run(env_extra: dict[str, str] | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "EVENTLET_NO_GREENDNS"}
    env.update(env_extra or {})
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_names_resolve_by_the_system_in_a_thread_and_the_hub_runs_meanwhile() -> None:
    out = run()
    assert out["dnspython"] is False  # eventlet's own resolver is never loaded
    assert out["wrapped"] == [True, True, True, True]
    assert out["hub_ran_during_lookup"] is True
    assert out["named_in_a_thread"] is True and out["literal_in_place"] is True
    assert out["connected"] is True
    assert out["unknown"] == "gaierror"


def test_an_operator_who_asks_for_eventlets_resolver_keeps_it() -> None:
    out = run({"EVENTLET_NO_GREENDNS": "no"})
    assert out["dnspython"] is True and out["wrapped"] == [False, False, False, False]
    assert out["connected"] is True and out["unknown"] == "gaierror"
