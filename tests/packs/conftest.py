from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "packs"


@pytest.fixture
def pack_bytes():
    def read(name: str) -> bytes:
        return (FIXTURES / name).read_bytes()
    return read
