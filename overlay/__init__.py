"""chgk-overlay: broadcast graphics server for «Что? Где? Когда?».

`create_app` is imported lazily so that `chgk-overlay serve` can monkey-patch for eventlet
before Flask and the standard library's sockets are loaded.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

__version__ = "0.1.0"


def create_app(test_config: dict | None = None) -> "Flask":
    from .web.app import create_app as _create_app
    return _create_app(test_config)
