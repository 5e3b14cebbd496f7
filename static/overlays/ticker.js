// Ticker: a crawl of short items, shown while `graphics` has "ticker" on air with data
// {items: [text | {text}], title?, speed? (px/s, default 110)}.
//
// The track moves by one transform per frame: `offset` grows by speed × frame time, so it
// advances every frame and never goes back. Each item is placed once, at the track's end when
// room opens up, and stays there until it has left on the left; the list of items only decides
// what is placed next. So an edit while the crawl runs moves nothing on screen: new texts come
// in after the ones already crawling.

import { h, part, setText, show } from "../lib/dom.js";
import { expiry, onAirEntry } from "../lib/cue.js";

const NAME = "ticker";
const SPEED = 110;
const MAX_STEP_MS = 100;       // a stalled page resumes, it does not leap
const REBASE_PX = 1_000_000;   // keep the numbers small on a crawl that runs for hours

export default function create(root, ctx) {
  const el = part(root, NAME);
  const { clock, t } = ctx;
  const label = el.querySelector('[data-ref="label"]');
  const track = el.querySelector('[data-ref="track"]');
  const win = el.querySelector(".tk-window");
  let items = [];
  let next = 0;            // index in `items` of the next text to place
  let lastText = null;     // the text placed last (an edit continues after it)
  let placed = [];         // {el, start, width} on the track, left to right
  let offset = 0;
  let speed = SPEED;
  let raf = 0;
  let last = null;
  let on = false;
  let outTimer = 0;
  let stopTimer = 0;
  let seq = 0;

  const text = (item) => (typeof item === "string" ? item : item?.text || "");

  function end() {
    const tail = placed[placed.length - 1];
    return tail ? tail.start + tail.width : offset + win.clientWidth;
  }

  function fill() {
    const reach = offset + win.clientWidth + 200;
    while (items.length && end() < reach) {
      const s = text(items[next % items.length]);
      next = (next + 1) % items.length;
      lastText = s;
      const node = h("div", { class: "tk-item", "data-seq": String(++seq) }, s);
      const start = end();
      node.style.transform = `translate3d(${start}px, 0, 0)`;
      track.append(node);
      placed.push({ el: node, start, width: node.offsetWidth });
    }
    while (placed.length && placed[0].start + placed[0].width < offset) placed.shift().el.remove();
  }

  function frame(ts) {
    raf = requestAnimationFrame(frame);
    const dt = last === null ? 0 : Math.min(MAX_STEP_MS, Math.max(0, ts - last));
    last = ts;
    offset += (speed * dt) / 1000;
    if (offset > REBASE_PX) {
      // shift the track and every item by the same amount: nothing moves on screen
      offset -= REBASE_PX;
      for (const p of placed) {
        p.start -= REBASE_PX;
        p.el.style.transform = `translate3d(${p.start}px, 0, 0)`;
      }
    }
    fill();
    track.style.transform = `translate3d(${-offset}px, 0, 0)`;
  }

  function start() {
    clearTimeout(stopTimer);
    if (!raf) {
      last = null;
      raf = requestAnimationFrame(frame);
    }
  }

  function stopSoon() {
    // after the exit transition: stop the loop and clear the track for the next time
    clearTimeout(stopTimer);
    stopTimer = setTimeout(() => {
      cancelAnimationFrame(raf);
      raf = 0;
      for (const p of placed) p.el.remove();
      placed = [];
      offset = 0;
      track.style.transform = "";
    }, 800);
  }

  function setItems(list) {
    const texts = list.map(text);
    const same = texts.length === items.length && texts.every((s, i) => s === text(items[i]));
    if (same) return;
    items = list.filter((x) => text(x));
    const after = lastText === null ? -1 : texts.indexOf(lastText);
    next = items.length ? (after >= 0 ? after + 1 : next) % items.length : 0;
  }

  function takeOut() {
    clearTimeout(outTimer);
    if (!on) return;
    on = false;
    show(el, false);
    stopSoon();
  }

  return {
    update() {
      /* cue-driven */
    },
    cue(onAir) {
      const entry = onAirEntry(onAir, NAME, clock.now());
      const list = Array.isArray(entry?.data?.items) ? entry.data.items : [];
      if (!entry || !list.length) {
        takeOut();
        return;
      }
      const data = entry.data;
      setText(label, data.title ?? t("ticker_title"));
      speed = Number.isFinite(data.speed) ? data.speed : SPEED;
      setItems(list);
      on = true;
      start();
      show(el, true);
      clearTimeout(outTimer);
      const ends = expiry(entry);
      if (ends != null) outTimer = setTimeout(takeOut, Math.max(0, ends - clock.now()));
    },
  };
}
