// The audience page's QR code on a slate or a bug (`qr: true`). The server writes the code into
// the graphic's data (overlay/graphics/show.py): `qr_url`, the public address it names, and
// `qr_modules`, its rows as hex (a dark module is a 1 bit, the row's first module the highest of
// its bits). Here they become one SVG path on a white plate that keeps the standard's quiet zone
// of 4 modules: dark on light, as every phone's camera reads it, whatever the theme.

import { setText } from "./dom.js";

export const QUIET = 4;

/** The modules' path ("M x y h1 v1 h-1 z" per run of dark modules) and the code's size. */
export function qrPath(rows) {
  const n = rows.length;
  let d = "";
  rows.forEach((hex, y) => {
    const bits = [...hex].map((c) => parseInt(c, 16).toString(2).padStart(4, "0")).join("").slice(-n);
    for (let x = 0; x < n; x += 1) {
      if (bits[x] !== "1") continue;
      let run = 1;
      while (x + run < n && bits[x + run] === "1") run += 1;
      d += `M${x + QUIET} ${y + QUIET}h${run}v1h-${run}z`;
      x += run;
    }
  });
  return { n, d };
}

/** "https://live.example.org/live" → "live.example.org/live": what a viewer would type. */
export function shortAddress(url) {
  return String(url || "").replace(/^https?:\/\//i, "").replace(/\/$/, "");
}

/** Fills a `.qr-card` (templates/overlays/parts/qr.html) from a graphic's data; false (and the
 * card emptied) when the data asks for no code or carries none. */
export function fillQr(card, data) {
  const rows = data?.qr ? data.qr_modules : null;
  const ok = Array.isArray(rows) && rows.length >= 21 && rows.every((r) => typeof r === "string" && /^[0-9a-f]+$/i.test(r));
  const svg = card.querySelector(".qr-code");
  const path = card.querySelector(".qr-dark");
  if (!ok) {
    path.removeAttribute("d");
    delete card.dataset.url;
    return false;
  }
  const { n, d } = qrPath(rows);
  const size = n + 2 * QUIET;
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  card.style.setProperty("--qr-n", String(size));
  if (path.getAttribute("d") !== d) path.setAttribute("d", d);
  card.dataset.url = data.qr_url || "";
  setText(card.querySelector(".qr-caption"), data.qr_caption || "");
  setText(card.querySelector(".qr-address"), shortAddress(data.qr_url));
  return true;
}
