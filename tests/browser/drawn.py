"""What Chromium DRAWS on an overlay page, read from the page as the viewer would see it: not the
page's data, not its DOM alone.

A text is drawn when its glyph boxes (the client rects of a Range over the text node) are
- not inside `display: none` (no rects) and not under `visibility: hidden`;
- not faded out: the product of the computed opacities along its ancestors, read at rest (an
  animation in flight is whatever it is on this frame; callers wait for rest first);
- inside the 1920×1080 frame and inside every ancestor that clips (`overflow` other than
  `visible`): the part clipped away is not drawn;
- not covered: at the centre of each remaining rect, going down the stack of boxes there
  (`elementsFromPoint`), the text's own element is met before any box that paints there at 60 %
  opacity or more (a background, a picture, an SVG shape's fill) — a transparent wrapper or a
  tinted glass (the table's highlight) lets it through.

Also here: overlap between drawn texts, the title-safe area, «…» (an ellipsis that truncates, or
a literal one), text cut by a clipping box, and pixel sampling where a picture must be.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page

FRAME = {"left": 0, "top": 0, "right": 1920, "bottom": 1080}
# 90 % of the frame, as tests/browser/helpers.py SAFE
SAFE = {"left": 96, "top": 54, "right": 1824, "bottom": 1026}
MIN_OPACITY = 0.1  # below this a text is not on air (a fade at rest is 0 or 1; "dimmed to nothing" is < 0.1)

# Hit testing must see every box: overlays set `pointer-events: none` on their parts (they are
# not clicked), which elementsFromPoint would skip. Drawing is not changed by this.
HIT_TESTABLE_CSS = "*, *::before, *::after { pointer-events: auto !important; }"

_READ_JS = r"""(frame) => {
  const opacityOf = (el) => {
    let o = 1;
    for (let a = el; a && a.nodeType === 1; a = a.parentElement) o *= parseFloat(getComputedStyle(a).opacity);
    return o;
  };
  const cut = (r, c) => ({left: Math.max(r.left, c.left), top: Math.max(r.top, c.top),
                          right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom)});
  const empty = (r) => r.right - r.left < 0.5 || r.bottom - r.top < 0.5;
  const area = (r) => empty(r) ? 0 : (r.right - r.left) * (r.bottom - r.top);
  // The clip of every ancestor whose overflow is not visible (its padding box ~ border box).
  const clipOf = (el) => {
    let c = {...frame};
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible' || (cs.clipPath && cs.clipPath !== 'none')) {
        const b = a.getBoundingClientRect();
        c = cut(c, {left: cs.overflowX === 'visible' ? -1e9 : b.left, right: cs.overflowX === 'visible' ? 1e9 : b.right,
                    top: cs.overflowY === 'visible' ? -1e9 : b.top, bottom: cs.overflowY === 'visible' ? 1e9 : b.bottom});
      }
    }
    return c;
  };
  const alphaOf = (c) => {
    if (!c || c === 'transparent' || c === 'none') return 0;
    const m = c.match(/rgba?\(([^)]*)\)/);
    if (!m) return 1;  // a paint server (url(#gradient)) or a keyword: opaque enough
    const v = m[1].split(/[\s,\/]+/).filter(Boolean);
    return v.length > 3 ? parseFloat(v[3]) : 1;
  };
  const SHAPES = new Set(['path', 'circle', 'rect', 'ellipse', 'polygon', 'polyline', 'line', 'text', 'image', 'use']);
  // How opaque a box is where it is hit: a wrapper without background is 0, a tinted glass
  // (a highlight at 22 %) lets the text through, a panel or a picture hides it.
  const paints = (e) => {
    const cs = getComputedStyle(e);
    if (cs.visibility !== 'visible') return 0;
    let a = 0;
    if (e instanceof HTMLImageElement || e instanceof HTMLCanvasElement || e instanceof HTMLVideoElement) a = 1;
    else if (e instanceof SVGElement) {
      if (SHAPES.has(e.localName)) a = alphaOf(cs.fill) * parseFloat(cs.fillOpacity || '1');
    } else {
      a = Math.max(alphaOf(cs.backgroundColor), cs.backgroundImage && cs.backgroundImage !== 'none' ? 1 : 0);
    }
    return a * opacityOf(e);
  };
  const COVERING = 0.6;
  const coveredAt = (el, x, y) => {
    for (const e of document.elementsFromPoint(x, y)) {
      if (e === el || el.contains(e)) return null;
      if (e.contains(el)) return null;  // an ancestor is behind its own content
      if (paints(e) >= COVERING) return e;
    }
    return null;
  };
  const describe = (e) => {
    const p = e.closest('[data-part]');
    const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '';
    return `${p ? p.dataset.part + ' ' : ''}${e.localName}${cls}`;
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const el = n.parentElement;
    if (!el || el.closest('script, style, template, noscript')) continue;
    const part = el.closest('[data-part]');
    const ref = el.closest('[data-ref]');
    const item = {text, part: part ? part.dataset.part : '', ref: ref ? ref.dataset.ref : '',
                  cls: typeof el.className === 'string' ? el.className : '', rects: [], shown: false, why: '',
                  opacity: 0, clipped: 0, ellipsis: text.includes('\u2026'), covered_by: ''};
    out.push(item);
    const range = document.createRange();
    range.selectNodeContents(n);
    const raw = [...range.getClientRects()].filter((r) => r.width >= 0.5 && r.height >= 0.5);
    if (!raw.length) { item.why = 'no box'; continue; }
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible') { item.why = 'visibility'; continue; }
    item.opacity = opacityOf(el);
    if (item.opacity < frame.minOpacity) { item.why = 'opacity'; continue; }
    const clip = clipOf(el);
    // Cut across (letters lost) counts in full; cut along the line only beyond the em box's
    // empty margins above and below the glyphs (a tight line box clips those, drawing nothing less).
    const kept = raw.map((r) => cut(r, clip)).filter((r) => !empty(r));
    const sum = (rs, f) => rs.reduce((s, r) => s + f(r), 0);
    const across = 1 - sum(kept, (r) => r.right - r.left) / sum(raw, (r) => r.right - r.left);
    const height = (r) => r.bottom - r.top;
    const along = kept.length ? 1 - sum(kept, height) / sum(raw.slice(0, kept.length), height) : 1;
    item.clipped = Math.max(across, along > 0.3 ? along : 0);
    if (!kept.length) { item.why = 'clipped'; continue; }
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const as = getComputedStyle(a);
      const truncates = as.textOverflow === 'ellipsis' && as.overflowX !== 'visible';
      if (truncates && a.scrollWidth > a.clientWidth + 1) item.ellipsis = true;
    }
    const visibleRects = [];
    for (const r of kept) {
      const hit = coveredAt(el, (r.left + r.right) / 2, (r.top + r.bottom) / 2);
      if (hit) item.covered_by = describe(hit);
      else visibleRects.push(r);
    }
    item.rects = visibleRects.map((r) => [r.left, r.top, r.right, r.bottom].map((v) => Math.round(v * 10) / 10));
    if (!visibleRects.length) { item.why = `covered by ${item.covered_by}`; continue; }
    item.shown = true;
  }
  return out;
}"""


@dataclass(frozen=True)
class Text:
    """One text node as drawn: `shown` says whether any of it reaches the screen."""
    text: str
    part: str
    ref: str
    cls: str
    rects: tuple[tuple[float, float, float, float], ...]
    shown: bool
    why: str
    opacity: float
    clipped: float
    ellipsis: bool
    covered_by: str

    @classmethod
    def of(cls, raw: dict[str, Any]) -> "Text":
        return cls(**{**raw, "rects": tuple(tuple(r) for r in raw["rects"])})

    def __str__(self) -> str:
        where = f"{self.part}/{self.ref}" if self.ref else self.part or "-"
        return f"«{self.text}» ({where})"


@dataclass
class Drawn:
    """Every text node of a page and what of it is drawn."""
    texts: list[Text] = field(default_factory=list)

    @property
    def shown(self) -> list[Text]:
        return [t for t in self.texts if t.shown]

    def part_texts(self, part: str) -> list[Text]:
        return [t for t in self.shown if t.part == part]

    def ref_text(self, part: str, ref: str) -> str:
        """The drawn text of one `[data-ref]` element of a part: its visible text nodes joined."""
        return "".join(t.text for t in self.shown if t.part == part and t.ref == ref)

    def visible_parts(self) -> set[str]:
        return {t.part for t in self.shown if t.part}


def prepare(page: Page) -> None:
    """Makes every box hit-testable (see HIT_TESTABLE_CSS); call once after the page loads."""
    page.add_style_tag(content=HIT_TESTABLE_CSS)


def read(page: Page) -> Drawn:
    return Drawn([Text.of(t) for t in page.evaluate(_READ_JS, {**FRAME, "minOpacity": MIN_OPACITY})])


# --- checks over what is drawn ---------------------------------------------------------------------

def _intersection(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float]:
    return min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])


def overlaps(drawn: Drawn) -> list[str]:
    """Pairs of drawn texts of different elements whose glyph boxes cross: more than 3 px across
    and a third of the shorter line's height (tight line spacing inside one block is not an overlap)."""
    found = []
    shown = drawn.shown
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            for ra in a.rects:
                hit = next((rb for rb in b.rects
                            if (lambda w, h: w > 3 and h > min(ra[3] - ra[1], rb[3] - rb[1]) / 3)(*_intersection(ra, rb))),
                           None)
                if hit:
                    found.append(f"{a} at {ra} overlaps {b} at {hit}")
                    break
    return found


def outside_safe(drawn: Drawn, safe: dict[str, float] = SAFE, slack: float = 0.5) -> list[str]:
    return [f"{t} at {r}" for t in drawn.shown for r in t.rects
            if r[0] < safe["left"] - slack or r[1] < safe["top"] - slack
            or r[2] > safe["right"] + slack or r[3] > safe["bottom"] + slack]


def ellipses(drawn: Drawn) -> list[str]:
    return [str(t) for t in drawn.shown if t.ellipsis]


def cut_texts(drawn: Drawn, allowed_parts: frozenset[str] = frozenset()) -> list[str]:
    """Drawn texts partly cut away by a clipping box (a name cut at both ends), outside the parts
    whose design is to clip (a crawl, a roll)."""
    return [f"{t} {t.clipped:.0%} cut" for t in drawn.shown if t.clipped > 0.02 and t.part not in allowed_parts]


# --- pixels ------------------------------------------------------------------------------------------

def pixels(page: Page, box: dict[str, float]) -> Any:
    """The page's pixels in `box` (x, y, width, height) as an RGBA PIL image, transparent where
    nothing is drawn."""
    from PIL import Image

    png = page.screenshot(clip=box, omit_background=True, animations="allow")
    return Image.open(io.BytesIO(png)).convert("RGBA")


def opaque_share(page: Page, box: dict[str, float], alpha: int = 128) -> float:
    """The share of pixels in `box` drawn at least half opaque."""
    img = pixels(page, box)
    alphas = list(img.getchannel("A").tobytes())
    return sum(1 for a in alphas if a >= alpha) / max(1, len(alphas))


def colours_at(page: Page, points: list[tuple[float, float]], r: int = 3) -> list[tuple[int, int, int, int]]:
    """The mean RGBA of a small square around each point, from one picture of the box around them
    all (a screenshot costs Chromium ~50 ms of CPU however small: one per look, not one per point)."""
    left, top = min(x for x, _ in points) - r, min(y for _, y in points) - r
    box = {"x": left, "y": top, "width": max(x for x, _ in points) + r - left,
           "height": max(y for _, y in points) + r - top}
    img = pixels(page, box)
    scale = img.width / box["width"]  # 1 on these pages; kept exact if a test zooms
    out = []
    for x, y in points:
        square = img.crop(tuple(round(v * scale) for v in (x - r - left, y - r - top, x + r - left, y + r - top)))
        data = list(square.get_flattened_data()) if hasattr(square, "get_flattened_data") else list(square.getdata())
        out.append(tuple(round(sum(p[i] for p in data) / len(data)) for i in range(4)))
    return out  # type: ignore[return-value]
