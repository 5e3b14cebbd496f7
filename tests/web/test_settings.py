"""Numeric settings of the server (overlay/web/server.py): a wrong one stops the start with words
that name it, before anything listens."""
from __future__ import annotations

import pytest
from flask import Flask

from overlay.web.server import ping_settings, positive_setting


def app(**config: object) -> Flask:
    a = Flask(__name__)
    a.config.update(config)
    return a


def test_the_ping_defaults_are_engineios_and_whole_seconds_are_taken():
    assert ping_settings(app()) == {"ping_interval": 25, "ping_timeout": 20}
    assert ping_settings(app(PING_INTERVAL=5, PING_TIMEOUT=2.0)) == {"ping_interval": 5, "ping_timeout": 2}


@pytest.mark.parametrize("value", [0, -3, 0.5, 2.5, True, "10", float("inf"), float("nan"), [25]])
def test_a_wrong_whole_number_stops_the_start_and_names_the_setting(value: object):
    with pytest.raises(SystemExit, match="PING_INTERVAL must be a positive whole number, got"):
        ping_settings(app(PING_INTERVAL=value))


@pytest.mark.parametrize("value", [0, -1.5, float("inf"), float("nan"), "soon"])
def test_a_wrong_number_of_seconds_stops_the_start_too(value: object):
    with pytest.raises(SystemExit, match="HEADER_TIMEOUT must be a positive number, got"):
        positive_setting(app(HEADER_TIMEOUT=value), "HEADER_TIMEOUT", 10.0, float)
    assert positive_setting(app(HEADER_TIMEOUT=0.25), "HEADER_TIMEOUT", 10.0, float) == 0.25
