// Lower-third: not game state but a cue — shown while `graphics` has "lower-third" on air with
// data {title, subtitle?, kind?, duration_ms?}; goes out by itself at `expires_at` (or
// shown_at + duration_ms) in server time, even if the server's own expiry message is late.
// `style: "photo"` (with `photo`: a media id or URL) is the second style: two lines and a photo;
// `accent` (#rrggbb) colours its bar and subtitle.

import { fitLines, part, setName, show } from "../lib/dom.js";
import { mediaUrl } from "../lib/cue.js";

const NAME = "lower-third";
const KINDS = new Set(["player", "host", "sponsor", "captain", "text"]);

export default function create(root, ctx) {
  const el = part(root, NAME);
  const { clock } = ctx;
  const title = el.querySelector('[data-ref="title"]');
  const subtitle = el.querySelector('[data-ref="subtitle"]');
  const photo = el.querySelector('[data-ref="photo"]');
  photo.addEventListener("load", () => photo.classList.add("loaded"));
  let currentKey = null;
  let outTimer = 0;
  let swapTimer = 0;

  /** Long names and titles shrink, then take two lines — never cut with an ellipsis. */
  function fit() {
    const text = el.classList.contains("kind-text");
    if (title.textContent) fitLines(title, text ? 46 : 54, 40, 2);
    if (subtitle.textContent) fitLines(subtitle, 32, 28, 2);
  }

  function fill(data, entry) {
    const photoUrl = data.style === "photo" ? mediaUrl(entry, data.photo) : null;
    el.classList.toggle("style-photo", data.style === "photo");
    if (photoUrl !== photo.getAttribute("src")) {
      photo.classList.remove("loaded"); // shown once decoded: never an empty frame or a stale face
      if (photoUrl) photo.src = photoUrl;
      else photo.removeAttribute("src");
    }
    setName(title, data.title || data.text || "");
    setName(subtitle, data.subtitle || "");
    for (const k of KINDS) el.classList.remove(`kind-${k}`);
    if (KINDS.has(data.kind)) el.classList.add(`kind-${data.kind}`);
    // `accent` (#rrggbb, checked by the server's schema): the strap's bar and subtitle in that colour
    const accent = /^#[0-9a-f]{6}$/.test(data.accent || "") ? data.accent : null;
    for (const v of ["--c-accent", "--c-accent-hi"]) {
      if (accent) el.style.setProperty(v, accent);
      else el.style.removeProperty(v);
    }
    fit();
    document.fonts?.ready.then(fit); // measured again in the real face
  }

  function takeOut() {
    clearTimeout(outTimer);
    clearTimeout(swapTimer);
    currentKey = null;
    show(el, false);
  }

  function expiry(entry) {
    if (Number.isFinite(entry.expires_at)) return entry.expires_at;
    const d = entry.data?.duration_ms;
    return Number.isFinite(d) && d > 0 && Number.isFinite(entry.shown_at) ? entry.shown_at + d : null;
  }

  return {
    update() {
      /* cue-driven: the game state does not move a lower-third */
    },
    cue(onAir) {
      const entry = onAir[NAME];
      const ends = entry ? expiry(entry) : null;
      if (!entry || (ends != null && clock.now() >= ends)) {
        takeOut();
        return;
      }
      const key = JSON.stringify([entry.data, entry.shown_at, entry.media]);
      if (key === currentKey) return;
      const wasIn = currentKey !== null;
      currentKey = key;
      clearTimeout(outTimer);
      clearTimeout(swapTimer);
      if (wasIn) {
        // A new strap over an old one: take the old one out first, then bring the new one in.
        show(el, false);
        swapTimer = setTimeout(() => {
          fill(entry.data || {}, entry);
          show(el, true);
        }, 420);
      } else {
        fill(entry.data || {}, entry);
        show(el, true);
      }
      if (ends != null) outTimer = setTimeout(takeOut, Math.max(0, ends - clock.now()));
    },
  };
}
