// Credits: a roll of names, shown while `graphics` has "credits" on air with data
// {title?, names: [name | {name, role?}], speed? (px/s, default 70), loop?}.
// The roll's place is a function of server time since the entry was shown, so every screen
// shows the same line and a reload or reconnect resumes where the roll is, not from the start.
// Without `loop` the roll passes once, then the credits go out by themselves, shade and all:
// nothing of them stays drawn (the end, too, is a function of server time, so a reload after it
// draws nothing).

import { bdi, h, part, show } from "../lib/dom.js";
import { expiry, onAirEntry } from "../lib/cue.js";

const NAME = "credits";
const SPEED = 70;

export default function create(root, ctx) {
  const el = part(root, NAME);
  const { clock, t } = ctx;
  const roll = el.querySelector('[data-ref="roll"]');
  const win = el.querySelector(".cr-window");
  let key = null;
  let shownAt = 0;
  let speed = SPEED;
  let loop = false;
  let raf = 0;
  let outTimer = 0;
  let ended = false; // the roll has passed once (no `loop`)

  // The roll runs through the whole window's height (`full`) even while the window is cut short
  // above a ticker (`--cr-clear`, set by the rundown's output): its names then leave the cut edge
  // rather than jump, and it ends when the server expects it to.
  let height = -1;
  let full = 0;

  function frame() {
    raf = requestAnimationFrame(frame);
    if (win.clientHeight !== height) {
      height = win.clientHeight;
      full = height + (parseFloat(getComputedStyle(win).getPropertyValue("--cr-clear")) || 0);
    }
    const travel = full + roll.offsetHeight;
    let y = ((clock.now() - shownAt) * speed) / 1000;
    if (loop) y %= travel;
    else if (y >= travel) {
      y = travel;
      cancelAnimationFrame(raf);
      raf = 0;
      ended = true;
      show(el, false); // the last name has left: the shade goes with it
    }
    roll.style.transform = `translate3d(0, ${full - y}px, 0)`;
  }

  function fill(data) {
    const rows = (Array.isArray(data.names) ? data.names : []).map((r) => {
      const row = typeof r === "string" ? { name: r } : r || {};
      return h("div", { class: "cr-row" }, h("span", { class: "cr-role", text: row.role || "" }),
        h("span", { class: "cr-name" }, bdi(row.name || "")));
    });
    roll.replaceChildren(h("div", { class: "cr-title", text: data.title ?? t("credits_title") }), ...rows);
  }

  function takeOut() {
    clearTimeout(outTimer);
    key = null;
    show(el, false);
    setTimeout(() => {
      if (key === null) {
        cancelAnimationFrame(raf);
        raf = 0;
      }
    }, 800);
  }

  return {
    update() {
      /* cue-driven */
    },
    cue(onAir) {
      const entry = onAirEntry(onAir, NAME, clock.now());
      if (!entry || !Array.isArray(entry.data?.names)) {
        takeOut();
        return;
      }
      const k = JSON.stringify([entry.data, entry.shown_at]);
      if (k !== key) {
        key = k;
        const data = entry.data;
        fill(data);
        shownAt = Number.isFinite(entry.shown_at) ? entry.shown_at : clock.now();
        speed = Number.isFinite(data.speed) ? data.speed : SPEED;
        loop = !!data.loop;
        ended = false;
        cancelAnimationFrame(raf);
        raf = 0;
        frame(); // place the roll before the first frame is shown
      }
      if (!ended) show(el, true);
      clearTimeout(outTimer);
      const ends = expiry(entry);
      if (ends != null) outTimer = setTimeout(takeOut, Math.max(0, ends - clock.now()));
    },
  };
}
