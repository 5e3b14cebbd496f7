"""The rating's progress chart as plain geometry (the admin page draws it as inline SVG): one
line per player through the cumulative points after each game day."""
from __future__ import annotations

from dataclasses import dataclass

# Distinguishable line colours (no library: a fixed palette, repeated when there are more lines).
PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#393b79", "#637939")


@dataclass(frozen=True)
class Line:
    player: str
    colour: str
    points: tuple[tuple[float, float], ...]   # (x, y) in SVG units
    values: tuple[int, ...]                   # the cumulative points drawn

    @property
    def svg_points(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in self.points)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    x_ticks: tuple[tuple[float, int], ...]  # (x, game day)
    y_ticks: tuple[tuple[float, int], ...]  # (y, points)
    lines: tuple[Line, ...]


def _nice_step(span: int, ticks: int = 5) -> int:
    raw = max(1, span / ticks)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if step >= raw:
            return step
    return int(raw)


def progress_chart(rows: list[dict], days: int, *, played: int | None = None, width: int = 880,
                   height: int = 400) -> Chart:
    """`rows`: rating rows with `player` and `progression` (cumulative points per game day).
    The lines stop at day `played` (the last day played): an unplayed day scores nothing yet."""
    left, top, right, bottom = 56, 16, width - 16, height - 40
    days = max(days, 1)
    shown = days if played is None else max(0, min(played, days))
    values = [v for r in rows for v in r["progression"][:shown]] or [0]
    lo, hi = min(0, min(values)), max(1, max(values))
    step = _nice_step(hi - lo)
    hi = -(-hi // step) * step
    lo = (lo // step) * step

    def x(day: int) -> float:  # day 0 is the start (0 points), then days 1..N
        return left + (right - left) * day / days

    def y(v: float) -> float:
        return bottom - (bottom - top) * (v - lo) / (hi - lo)

    lines = []
    for i, r in enumerate(rows):
        vals = tuple(r["progression"][:shown])
        pts = ((x(0), y(0)),) + tuple((x(d + 1), y(v)) for d, v in enumerate(vals))
        lines.append(Line(r["player"], PALETTE[i % len(PALETTE)], pts, vals))
    return Chart(width, height, left, top, right, bottom,
                 tuple((x(d), d) for d in range(1, days + 1)),
                 tuple((y(v), v) for v in range(lo, hi + 1, step)), tuple(lines))
