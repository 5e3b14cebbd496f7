from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hostile.common import Seeded, seeded_server


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """One seeded server for the module: the fuzzing runs against the same data throughout."""
    with seeded_server(tmp_path_factory.mktemp("fuzz")) as s:
        yield s
