from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hostile.common import SEEDED, Seeded, seeded_server


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """One seeded server for the module: the fuzzing runs against the same data throughout."""
    with seeded_server(tmp_path_factory.mktemp("fuzz")) as s:
        yield s


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every test looks at the state itself before its first input: an earlier test of the module
    may have changed it (before_input)."""
    for seeded in SEEDED:
        seeded.known = None
