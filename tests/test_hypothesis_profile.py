"""The properties run the same examples under CI=true, and keep exploring elsewhere."""
import os

from hypothesis import settings


def test_ci_runs_are_derandomized():
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    assert settings.default.derandomize is in_ci
    assert settings.default.database is None or not in_ci
