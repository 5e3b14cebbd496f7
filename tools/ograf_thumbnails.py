"""Makes the OGraf thumbnails (static/ograf/chgk/thumbnails/<graphic>.png, 384×216) from the
screenshots tests/browser/test_ograf_export.py takes of each exported graphic playing in the
spec-only test renderer: each over a dark studio background, scaled down.

    CI=true python -m pytest tests/browser/test_ograf_export.py -k every --basetemp=/tmp/ograf-shots
    python tools/ograf_thumbnails.py /tmp/ograf-shots/test_every_exported_graphic_pl0
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from overlay.graphics.game import GRAPHICS

OUT = Path(__file__).resolve().parent.parent / "static" / "ograf" / "chgk" / "thumbnails"
SIZE = (384, 216)
BACKGROUND = (22, 28, 44, 255)


def main(shots: Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for graphic in GRAPHICS:
        shot = Image.open(shots / f"{graphic}.png").convert("RGBA")
        card = Image.new("RGBA", shot.size, BACKGROUND)
        card.alpha_composite(shot)
        card.convert("RGB").resize(SIZE, Image.LANCZOS).quantize(256).save(OUT / f"{graphic}.png", optimize=True)
        print(OUT / f"{graphic}.png")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
