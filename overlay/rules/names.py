"""Names of people and teams, wherever they are read: a game spec, a command, a question pack,
the league's members. Runs of whitespace inside a name fold to one space — a name typed with two
spaces, or pasted with a tab or a line break, is a typo, and must not make the same person two."""
from __future__ import annotations


def fold_name(name: str) -> str:
    """«  Анна   Иванова » → «Анна Иванова» (any Unicode whitespace, including no-break spaces)."""
    return " ".join(name.split())
