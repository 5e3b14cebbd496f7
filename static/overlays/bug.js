// Bug: a logo in a corner, shown while `graphics` has "bug" on air with data
// {media (a media id or a URL), corner?: top-right|top-left|bottom-right|bottom-left, height?,
// qr?, qr_caption?} — with `qr`, the audience page's QR code (static/lib/qr.js) at the corner's
// outer edge, beside the logo or, without `media`, alone.
// A media id resolves through the entry's `media` map, which the server sends again with a new
// URL when the picture is re-uploaded: the new picture is decoded in the hidden image and only
// then swapped in, in one frame. It comes in only once its picture is ready.

import { part, show } from "../lib/dom.js";
import { expiry, mediaUrl, onAirEntry } from "../lib/cue.js";
import { fillQr } from "../lib/qr.js";

const NAME = "bug";
const CORNERS = ["top-right", "top-left", "bottom-right", "bottom-left"];

export default function create(root, ctx) {
  const el = part(root, NAME);
  const { clock } = ctx;
  const imgs = [...el.querySelectorAll('[data-ref="img"]')];
  const qrCard = el.querySelector('[data-ref="qr"]');
  let front = 0;
  let shownUrl = null;
  let wanted = null; // the URL the current cue asks for
  let outTimer = 0;

  async function bring(url) {
    wanted = url;
    if (url !== shownUrl) {
      const back = imgs[1 - front];
      back.src = url;
      try {
        await back.decode();
      } catch {
        if (wanted === url) el.dataset.error = url; // keep what is on air; the panel shows the error
        return;
      }
      if (wanted !== url) return; // a newer cue came while this one loaded
      back.classList.add("front");
      imgs[front].classList.remove("front");
      front = 1 - front;
      shownUrl = url;
      el.dataset.src = url;
      delete el.dataset.error;
    }
    show(el, true);
  }

  function takeOut() {
    clearTimeout(outTimer);
    wanted = null;
    show(el, false);
  }

  return {
    update() {
      /* cue-driven */
    },
    cue(onAir) {
      const entry = onAirEntry(onAir, NAME, clock.now());
      const url = entry && mediaUrl(entry, entry.data?.media);
      const qr = !!entry && fillQr(qrCard, entry.data);
      if (!url && !qr) {
        takeOut();
        return;
      }
      const data = entry.data;
      el.classList.toggle("with-qr", qr);
      el.classList.toggle("no-logo", !url);
      const corner = CORNERS.includes(data.corner) ? data.corner : "top-right";
      for (const c of CORNERS) el.classList.toggle(`corner-${c}`, c === corner);
      if (Number.isFinite(data.height)) el.style.setProperty("--bug-h", `${data.height}px`);
      else el.style.removeProperty("--bug-h");
      clearTimeout(outTimer);
      const ends = expiry(entry);
      if (ends != null) outTimer = setTimeout(takeOut, Math.max(0, ends - clock.now()));
      if (url) bring(url);
      else {
        wanted = null; // a picture still loading for an earlier cue stays off
        show(el, true);
      }
    },
  };
}
