// The table seen from above: N sectors numbered clockwise from the top, each marked with its
// kind and, once played, with who won it. On a spin the top turns several times and lands on
// `round.landed`; when that sector was already played the arrow moves on, sector by sector,
// to `round.sector`, stopping at `round.reveal_at` (server time): only then are the sector's
// outline and caption shown. Rotation is a CSS transform on its own layer (composited, 60 fps).

import { part, setText, show } from "../lib/dom.js";
import { OWL, TV } from "../lib/icons.js";
import { revealed } from "../lib/reveal.js";

const SVG = "http://www.w3.org/2000/svg";
const R_OUT = 485;
const R_IN = 262;
const R_NUM = 418;
const R_ICON = 345;
const R_WIN = 298;
const GAP_DEG = 0.9;
const HL_MARGIN = 40; // units around the highlight's wedge: its stroke and its glow (drop-shadow)

const ICONS = {
  // Drawn around (0, 0), about 44 units tall.
  blitz: "M 6 -24 L -14 4 L -2 4 L -8 24 L 14 -6 L 2 -6 Z",
  superblitz: "M -6 -24 L -24 4 L -13 4 L -18 24 L 1 -6 L -10 -6 Z M 18 -24 L 0 4 L 11 4 L 6 24 L 25 -6 L 14 -6 Z",
  sponsor: "M 0 -24 L 7 -8 L 24 -7 L 11 4 L 15 22 L 0 12 L -15 22 L -11 4 L -24 -7 L -7 -8 Z",
};

const polar = (r, deg) => {
  const a = (deg * Math.PI) / 180;
  return [r * Math.sin(a), -r * Math.cos(a)];
};

function wedgePath(a0, a1, rIn = R_IN, rOut = R_OUT) {
  const [x0, y0] = polar(rOut, a0);
  const [x1, y1] = polar(rOut, a1);
  const [x2, y2] = polar(rIn, a1);
  const [x3, y3] = polar(rIn, a0);
  const large = a1 - a0 > 180 ? 1 : 0;
  const f = (n) => n.toFixed(2);
  return `M ${f(x0)} ${f(y0)} A ${rOut} ${rOut} 0 ${large} 1 ${f(x1)} ${f(y1)} ` +
    `L ${f(x2)} ${f(y2)} A ${rIn} ${rIn} 0 ${large} 0 ${f(x3)} ${f(y3)} Z`;
}

function svg(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

const mod = (a, n) => ((a % n) + n) % n;

export default function create(root, ctx) {
  const el = part(root, "table");
  const { t } = ctx;
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const board = ref("svg");
  const arrow = ref("arrow");
  const highlight = ref("highlight");
  const hlPath = ref("hl-path");
  const hlSvg = hlPath.ownerSVGElement;
  const caption = ref("caption");
  const capSector = ref("cap-sector");
  const capKind = ref("cap-kind");

  let layoutKey = "";
  let step = 360 / 13;
  let index = new Map(); // sector number -> position 0..N-1 clockwise from the top
  let groups = new Map(); // sector number -> <g>
  let angle = 0; // the arrow's current rotation, cumulative degrees
  let spinning = null; // {key, cancel()} while the top turns

  function build(sectors) {
    const numbers = sectors.map((s) => s.number).sort((a, b) => a - b);
    const key = numbers.join(",");
    if (key === layoutKey) return;
    layoutKey = key;
    step = 360 / Math.max(1, numbers.length);
    index = new Map(numbers.map((n, i) => [n, i]));
    groups = new Map();
    board.replaceChildren();
    board.append(svg("circle", { class: "tb-rim", r: R_OUT + 10 }));
    board.append(svg("circle", { class: "tb-hub", r: R_IN - 10 }));
    for (const n of numbers) {
      const c = index.get(n) * step;
      const g = svg("g", { class: "tb-sector", "data-n": n });
      g.append(svg("path", { class: "tb-wedge", d: wedgePath(c - step / 2 + GAP_DEG, c + step / 2 - GAP_DEG) }));
      const [nx, ny] = polar(R_NUM, c);
      const num = svg("text", { class: "tb-num", x: nx.toFixed(1), y: ny.toFixed(1) });
      num.textContent = String(n);
      g.append(num);
      const [ix, iy] = polar(R_ICON, c);
      const icon = svg("path", { class: "tb-icon", transform: `translate(${ix.toFixed(1)} ${iy.toFixed(1)})` });
      g.append(icon);
      const [wx, wy] = polar(R_WIN, c);
      const win = svg("g", { class: "tb-win", transform: `translate(${wx.toFixed(1)} ${wy.toFixed(1)})` });
      win.append(svg("circle", { r: 30 }));
      win.append(svg("path", { transform: "translate(-22 -22) scale(0.44)", "fill-rule": "evenodd" }));
      g.append(win);
      board.append(g);
      groups.set(n, g);
    }
    const half = step / 2 - GAP_DEG;
    hlPath.setAttribute("d", wedgePath(-half, half, R_IN - 6, R_OUT + 6));
    fitHighlight(half);
  }

  // The highlight's layer is only as large as its wedge and glow, not the whole disc: its pulse
  // runs on the compositor, which draws the layer's whole box again every frame (a disc-sized
  // box cost a software compositor, as in OBS without a GPU, ~0.4 of a core).
  function fitHighlight(half) {
    const pts = [];
    for (let i = 0; i <= 32; i++) {
      const a = -half + (2 * half * i) / 32;
      pts.push(polar(R_OUT + 6, a), polar(R_IN - 6, a));
    }
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    // on whole pixels of the disc as laid out, so the wedge's edges fall where they did
    const unit = 1000 / (highlight.parentElement.offsetWidth || 1000);
    const down = (n) => Math.floor((n + 500) / unit) * unit - 500;
    const [x0, y0] = [down(Math.min(...xs) - HL_MARGIN), down(Math.min(...ys) - HL_MARGIN)];
    const [w, h] = [down(Math.max(...xs) + HL_MARGIN) + unit - x0, down(Math.max(...ys) + HL_MARGIN) + unit - y0];
    const pc = (n) => `${(n / 10).toFixed(3)}%`; // units of the 1000-unit disc
    Object.assign(highlight.style, {
      inset: "auto", left: pc(x0 + 500), top: pc(y0 + 500), width: pc(w), height: pc(h),
      // it turns about the disc's centre, as the disc-sized layer did
      transformOrigin: `${((-x0 / w) * 100).toFixed(3)}% ${((-y0 / h) * 100).toFixed(3)}%`,
    });
    hlSvg.setAttribute("viewBox", `${x0.toFixed(2)} ${y0.toFixed(2)} ${w.toFixed(2)} ${h.toFixed(2)}`);
  }

  function paintSectors(sectors) {
    for (const s of sectors) {
      const g = groups.get(s.number);
      if (!g) continue;
      g.setAttribute("class", `tb-sector kind-${s.kind}${s.played ? ` played won-${s.result || "none"}` : ""}`);
      const icon = g.querySelector(".tb-icon");
      icon.setAttribute("d", ICONS[s.kind] || "");
      const mark = s.result === "experts" ? OWL : s.result === "viewers" ? TV : "";
      const winPath = g.querySelector(".tb-win path");
      if (winPath.getAttribute("d") !== mark) winPath.setAttribute("d", mark);
    }
  }

  const sectorAngle = (n) => (index.get(n) ?? 0) * step;
  const rot = (deg) => `rotate(${deg}deg)`;

  function rest(deg) {
    angle = deg;
    arrow.style.transform = rot(angle);
  }

  function finishSpin() {
    if (!spinning) return;
    spinning.cancel();
    spinning = null;
  }

  function mark(sector) {
    highlight.style.transform = rot(sectorAngle(sector));
    highlight.classList.toggle("on", sector != null);
  }

  /** The spin of round `r` as one keyframe timeline: the top turns three times and more and
   * stops on `landed`; on a played sector it rests, then walks clockwise one sector at a time to
   * `sector`. The timings are the state's (`r.spin`, the rules' own), so it lasts exactly what
   * the server reckoned. Returns {frames, duration, end}. */
  function spinPath(r, from) {
    const { turn, rest: pause, step: stepMs } = r.spin;
    const landAt = from + 3 * 360 + mod(sectorAngle(r.landed) - from, 360);
    const steps = Math.round(mod(sectorAngle(r.sector) - sectorAngle(r.landed), 360) / step);
    const duration = turn + (steps ? pause + steps * stepMs : 0);
    const frames = [{ offset: 0, transform: rot(from), easing: "cubic-bezier(0.12, 0.62, 0.18, 1)" },
      { offset: turn / duration, transform: rot(landAt) }];
    for (let i = 0; i < steps; i++) {
      frames.push({ offset: (turn + pause + i * stepMs) / duration, transform: rot(landAt + i * step), easing: "ease-in-out" });
    }
    if (steps) frames.push({ offset: 1, transform: rot(landAt + steps * step) });
    return { frames, duration, end: landAt + steps * step };
  }

  /** Turns the top for round `r` so that the arrow stops at `r.reveal_at` in server time, from
   * wherever the spin is now (a page loaded mid-spin joins it); then marks the sector. */
  function spin(r, key) {
    finishSpin();
    highlight.classList.remove("on");
    caption.classList.remove("on");
    const { frames, duration, end } = spinPath(r, angle);
    const anim = arrow.animate(frames, { duration, fill: "both" });
    anim.currentTime = ctx.clock.now() - (r.reveal_at - duration);
    let cancelled = false;
    spinning = {
      key,
      cancel() {
        cancelled = true;
        anim.cancel();
        rest(end);
      },
    };
    anim.finished
      .then(() => {
        if (cancelled) return;
        anim.cancel();
        rest(end);
        spinning = null;
        mark(r.sector);
        caption.classList.add("on");
      })
      .catch(() => {
        /* cancelled: cancel() already put the arrow in place */
      });
  }

  return {
    update(state, prev) {
      const playing = !!state && Array.isArray(state.sectors) && state.sectors.length > 0;
      show(el, playing && state.status === "playing");
      if (!playing) return;
      build(state.sectors);
      paintSectors(state.sectors);

      const r = state.round;
      const active = r && r.phase !== "closed";
      if (r) {
        setText(capSector, t("sector_n", { n: r.sector }));
        setText(capKind, r.kind && r.kind !== "regular" ? t(`kind_${r.kind}`) : "");
      }
      // A round whose arrow has not stopped yet turns (or goes on turning) to land at reveal_at.
      const key = r ? `${state.id}|${r.spun_at}|${r.sector}` : "";
      if (r && r.spin && active && !revealed(state, ctx.clock)) {
        if (spinning?.key !== key) spin(r, key);
        return;
      }
      if (spinning && spinning.key === key && active) return; // landing this very frame
      finishSpin();
      if (r) {
        rest(angle + mod(sectorAngle(r.sector) - angle, 360));
        mark(active ? r.sector : null);
      } else {
        rest(0);
        mark(null);
      }
      caption.classList.toggle("on", !!active);
    },
  };
}
