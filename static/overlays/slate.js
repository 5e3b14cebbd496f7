// Slate: a full-screen card, shown while `graphics` has "slate" on air with data
// {kind?: break|soon|round|text, title?, subtitle?, kicker?, clock_label?, background? (a media id
// or URL), qr?, qr_caption? (the audience page's QR code at the right: static/lib/qr.js)} and at
// most one clock,
// which the server has put in server time when the slate was taken: `ends_at` (a countdown to a
// time of day or for a duration) or `starts_at` with `limit_ms` (a count-up that stops at the
// limit). The clock counts on the shared server clock, like the timer: every screen shows the
// same second, and a reconnect loses nothing.

import { part, setText, show } from "../lib/dom.js";
import { expiry, mediaUrl, onAirEntry } from "../lib/cue.js";
import { fillQr } from "../lib/qr.js";

const NAME = "slate";
const TITLES = { break: "slate_break", soon: "slate_soon" };

/** "4:05", "1:02:09". */
export function clockText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

export default function create(root, ctx) {
  const el = part(root, NAME);
  const { clock, t } = ctx;
  const ref = (name) => el.querySelector(`[data-ref="${name}"]`);
  const f = { kicker: ref("kicker"), title: ref("title"), subtitle: ref("subtitle"), label: ref("clock-label"), time: ref("time") };
  const bg = el.querySelector('[data-ref="bg"]');
  const qr = el.querySelector('[data-ref="qr"]');
  bg.addEventListener("load", () => bg.classList.add("loaded"));
  let data = null;
  let raf = 0;
  let outTimer = 0;

  function tick() {
    raf = 0;
    if (!data) return;
    const now = clock.now();
    let ms;
    let done;
    if (Number.isFinite(data.ends_at)) {
      // count down whole seconds: "0:01" until the last second is over
      const left = Math.max(0, data.ends_at - now);
      ms = Math.ceil(left / 1000) * 1000;
      done = left <= 0;
    } else {
      const limit = Number.isFinite(data.limit_ms) ? data.limit_ms : Infinity;
      const gone = Math.max(0, now - data.starts_at);
      ms = Math.min(gone, limit);
      done = gone >= limit;
    }
    setText(f.time, clockText(ms));
    el.classList.toggle("at-end", done);
    if (!done) raf = requestAnimationFrame(tick);
  }

  function fill(d, entry) {
    data = d;
    const bgUrl = mediaUrl(entry, d.background);
    if (bgUrl !== bg.getAttribute("src")) {
      bg.classList.remove("loaded");
      if (bgUrl) bg.src = bgUrl;
      else bg.removeAttribute("src");
    }
    el.classList.toggle("with-qr", fillQr(qr, d));
    const kind = TITLES[d.kind] ? d.kind : null;
    setText(f.kicker, d.kicker || "");
    setText(f.title, d.title || (kind ? t(TITLES[kind]) : ""));
    setText(f.subtitle, d.subtitle || "");
    const counting = Number.isFinite(d.ends_at) || Number.isFinite(d.starts_at);
    el.classList.toggle("no-clock", !counting);
    setText(f.label, d.clock_label ?? (counting ? t(Number.isFinite(d.ends_at) ? "slate_starts_in" : "slate_elapsed") : ""));
    cancelAnimationFrame(raf);
    raf = 0;
    if (counting) tick();
  }

  function takeOut() {
    clearTimeout(outTimer);
    show(el, false);
    // the clock keeps its last text during the exit; nothing more to count
    cancelAnimationFrame(raf);
    raf = 0;
    data = null;
  }

  return {
    update() {
      /* cue-driven */
    },
    cue(onAir) {
      const entry = onAirEntry(onAir, NAME, clock.now());
      if (!entry) {
        takeOut();
        return;
      }
      fill(entry.data || {}, entry);
      show(el, true);
      clearTimeout(outTimer);
      const ends = expiry(entry);
      if (ends != null) outTimer = setTimeout(takeOut, Math.max(0, ends - clock.now()));
    },
  };
}
