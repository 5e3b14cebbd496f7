"""Host names under eventlet: the system's resolver, in eventlet's thread pool.

eventlet's own resolver (greendns, dnspython) reads only /etc/hosts and resolv.conf: it does not
follow nsswitch, so a vision mixer's `companion.local` (mDNS) or a name another NSS module knows
does not resolve, and importing it costs a quarter of a server start's CPU (dnspython is imported
twice, once green). `cli._patch` turns it off (EVENTLET_NO_GREENDNS) and `install` sends each
lookup of a name to a real thread instead, so a slow or failing DNS server delays only the green
thread that asked (an OSC cue's first send, a Redis reconnect), never the hub that drives every
overlay. An address given as digits needs no lookup and is answered in place.
"""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

NAMED = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "getnameinfo")


def _literal(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    try:
        ipaddress.ip_address(str(host).split("%", 1)[0])  # an IPv6 address may carry %scope
        return True
    except ValueError:
        return False


def _off_hub(blocking: Callable[..., Any]) -> Callable[..., Any]:
    from eventlet import tpool

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        # getnameinfo's first argument is a (host, port) address, the others' a host
        target = host[0] if isinstance(host, tuple) else host
        if _literal(target):
            return blocking(host, *args, **kwargs)
        return tpool.execute(blocking, host, *args, **kwargs)

    lookup.blocking = blocking  # type: ignore[attr-defined]
    return lookup


def install() -> None:
    """After eventlet.monkey_patch() with EVENTLET_NO_GREENDNS=yes: the lookups of `socket` and of
    eventlet's green socket (its create_connection calls its own getaddrinfo) go off the hub."""
    from eventlet.green import socket as green

    if green.getaddrinfo.__module__ != socket.getaddrinfo.__module__:
        return  # eventlet was imported before EVENTLET_NO_GREENDNS was set: its green lookups stay
    for name in NAMED:
        current = getattr(socket, name)
        if hasattr(current, "blocking"):
            continue  # installed already
        wrapped = _off_hub(current)
        setattr(socket, name, wrapped)
        setattr(green, name, wrapped)
