// The table seen from above: N sectors numbered clockwise from the top, each marked with its
// kind and, once played, with who won it. On a spin the top turns several times and lands on
// `round.landed`; when that sector was already played the arrow moves on, sector by sector,
// to `round.sector`. Rotation is a CSS transform on its own layer (composited, 60 fps).

import { part, setText, show } from "../lib/dom.js";
import { OWL, TV } from "../lib/icons.js";

const SVG = "http://www.w3.org/2000/svg";
const R_OUT = 485;
const R_IN = 262;
const R_NUM = 418;
const R_ICON = 345;
const R_WIN = 298;
const GAP_DEG = 0.9;

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

/** A spin that has just started: a new round in `reading`, after none or a closed one. */
export function isNewSpin(prev, state) {
  const r = state?.round;
  if (!prev || !r || prev.id !== state.id) return false;
  const p = prev.round;
  const fresh = !p || p.phase === "closed" || p.sector !== r.sector;
  return fresh && r.phase === "reading" && r.question === 0 && !(r.results || []).length;
}

export default function create(root, ctx) {
  const el = part(root, "table");
  const { t } = ctx;
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const board = ref("svg");
  const arrow = ref("arrow");
  const highlight = ref("highlight");
  const hlPath = ref("hl-path");
  const caption = ref("caption");
  const capSector = ref("cap-sector");
  const capKind = ref("cap-kind");

  let layoutKey = "";
  let step = 360 / 13;
  let index = new Map(); // sector number -> position 0..N-1 clockwise from the top
  let groups = new Map(); // sector number -> <g>
  let angle = 0; // the arrow's current rotation, cumulative degrees
  let spinning = null; // {sector, cancel()} while an animation runs

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
    hlPath.setAttribute("d", wedgePath(-step / 2 + GAP_DEG, step / 2 - GAP_DEG, R_IN - 6, R_OUT + 6));
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

  function spin(landed, sector) {
    finishSpin();
    highlight.classList.remove("on");
    caption.classList.remove("on");
    const from = angle;
    const landAt = from + 3 * 360 + mod(sectorAngle(landed) - from, 360);
    const skip = mod(sectorAngle(sector) - sectorAngle(landed), 360);
    const end = landAt + skip;
    const anims = [];
    let cancelled = false;
    spinning = {
      sector,
      cancel() {
        cancelled = true;
        anims.forEach((a) => a.cancel());
        rest(end);
        mark(sector);
        caption.classList.add("on");
      },
    };
    const first = arrow.animate([{ transform: rot(from) }, { transform: rot(landAt) }], {
      duration: 4200,
      easing: "cubic-bezier(0.12, 0.62, 0.18, 1)",
      fill: "forwards",
    });
    anims.push(first);
    first.finished
      .then(() => {
        if (cancelled) return null;
        rest(landAt);
        if (!skip) return null;
        // Landed on a played sector: step clockwise, one sector at a time, to the next free one.
        const steps = Math.round(skip / step);
        const frames = [];
        for (let i = 0; i <= steps; i++) frames.push({ transform: rot(landAt + i * step), easing: "ease-in-out" });
        const walk = arrow.animate(frames, { duration: 420 * steps, delay: 450, fill: "forwards" });
        anims.push(walk);
        return walk.finished;
      })
      .then(() => {
        if (cancelled) return;
        anims.forEach((a) => a.cancel());
        rest(end);
        spinning = null;
        mark(sector);
        caption.classList.add("on");
      })
      .catch(() => {
        /* cancelled: cancel() already put everything in place */
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
      if (r && ctx.live && isNewSpin(prev, state)) {
        spin(r.landed ?? r.sector, r.sector);
        return;
      }
      if (spinning && r && r.sector === spinning.sector && active) return; // same round: let it land
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
