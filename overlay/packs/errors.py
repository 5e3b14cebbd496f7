"""The one exception a pack import raises."""
from __future__ import annotations


class PackError(Exception):
    """A pack that cannot be read.

    `line` is the 1-based line the problem is on, or None when it concerns the whole file
    (empty, too big, undecodable, no questions). `message` is what an operator sees: it starts
    with "line N: " when there is a line, and says what was expected.
    """

    def __init__(self, line: int | None, detail: str) -> None:
        self.line = line
        self.detail = detail
        self.message = f"line {line}: {detail}" if line is not None else detail
        super().__init__(self.message)
