// The render's page clock (overlay/post/render.py installs this before any script of the page):
// Date, performance.now, timers and requestAnimationFrame run on a virtual clock the renderer
// moves frame by frame, and every animation of the document is seeked to it (the document's
// timeline itself is stopped over CDP). So frame N shows exactly the page at start + N / fps,
// the same on every run, however long a frame takes to draw. Socket.IO is replaced by
// `window.__render.socket` (static/render/socket.js): the renderer hands the page the game's
// public state as the server sent it, at the instant it was recorded.
(() => {
  const T0 = 1_000_000; // performance.now() === virtual epoch ms - (START - T0): a constant offset
  let now = 0;
  let origin = 0;
  const RealDate = Date;
  const realTimeout = window.setTimeout.bind(window);
  class VirtualDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(Math.floor(now));
      else super(...args);
    }
    static now() {
      return Math.floor(now);
    }
  }
  window.Date = VirtualDate;
  const perfNow = () => now - origin;
  Object.defineProperty(performance, "now", { value: perfNow, configurable: true, writable: true });

  let seq = 0;
  const timers = new Map(); // id → {due, fn, args, every}
  window.setTimeout = (fn, ms = 0, ...args) => {
    const id = ++seq;
    timers.set(id, { due: now + Math.max(0, Number(ms) || 0), fn, args, every: 0 });
    return id;
  };
  window.setInterval = (fn, ms = 0, ...args) => {
    const id = ++seq;
    const every = Math.max(1, Number(ms) || 0);
    timers.set(id, { due: now + every, fn, args, every });
    return id;
  };
  window.clearTimeout = window.clearInterval = (id) => timers.delete(id);
  let rafSeq = 0;
  const rafs = new Map();
  window.requestAnimationFrame = (fn) => {
    const id = ++rafSeq;
    rafs.set(id, fn);
    return id;
  };
  window.cancelAnimationFrame = (id) => rafs.delete(id);

  // Lets the promise chains a callback started run to their end, within the same task: no
  // frame is rendered in between, so the compositor only ever sees a frame's finished state (a
  // macrotask boundary here would let Chromium draw half-stepped states at real-time moments,
  // and its raster-scale choices for scaled text would then differ from run to run).
  const drain = async () => {
    for (let i = 0; i < 32; i++) await null;
  };

  const seen = new WeakMap(); // animation → {t0, c0}: when it was first seen and its own time then
  function observe() {
    for (const a of document.getAnimations()) {
      if (!seen.has(a)) seen.set(a, { t0: now, c0: Number(a.currentTime) || 0 });
    }
  }
  function seek() {
    for (const a of document.getAnimations()) {
      const s = seen.get(a) ?? { t0: now, c0: Number(a.currentTime) || 0 };
      seen.set(a, s);
      if (a.playState === "paused") continue; // a page's own pause stays
      a.currentTime = s.c0 + (now - s.t0) * (a.playbackRate || 1);
    }
  }
  function call(fn, args) {
    try {
      if (typeof fn === "function") fn(...args);
    } catch (err) {
      console.error(err);
    }
  }
  async function settle() {
    await drain();
    observe();
  }
  async function runTimers(until) {
    for (;;) {
      let best = null;
      for (const [id, t] of timers) {
        if (t.due <= until && (!best || t.due < best[1].due)) best = [id, t];
      }
      if (!best) break;
      const [id, t] = best;
      now = Math.max(now, t.due);
      if (t.every) t.due += t.every;
      else timers.delete(id);
      call(t.fn, t.args);
      await settle();
    }
    now = Math.max(now, until);
  }

  let lastSig = null;
  window.__render = {
    socket: null, // set by static/render/socket.js
    start(t) {
      now = t;
      origin = t - T0;
    },
    now: () => now,
    /** Moves the page to `t`: the deliveries due in between, each at its instant and in order
     * with the page's timers; then one animation frame (its timestamp one frame before `t`: the
     * frame a live page begins then is the one shown at `t`); the animations seeked to `t`.
     * Resolves to whether anything drawn may differ from the previous frame. */
    async step(t, deliveries, frameMs) {
      for (const d of deliveries) {
        await runTimers(d.at);
        now = Math.max(now, d.at);
        if (d.ev === "connect") this.socket.connect();
        else this.socket.fire(d.ev, d.payload);
        await settle();
      }
      const frameAt = t - frameMs;
      await runTimers(frameAt);
      now = Math.max(now, frameAt);
      void document.body.offsetHeight; // layout: the fonts it needs start loading
      await document.fonts.ready;
      await settle();
      const callbacks = [...rafs.values()];
      rafs.clear();
      for (const cb of callbacks) call(cb, [now - origin]);
      await settle();
      await runTimers(t);
      now = t;
      void document.body.offsetHeight;
      await document.fonts.ready;
      await settle();
      seek();
      const running = document.getAnimations().filter((a) => a.playState !== "finished" && a.playState !== "idle")
        .map((a) => `${a.playState}:${a.currentTime}`);
      const images = [...document.images].map((i) => `${i.currentSrc}:${i.complete}`);
      const sig = `${document.body.outerHTML}\u0000${running.join()}\u0000${images.join()}`;
      const changed = sig !== lastSig || running.length > 0;
      lastSig = sig;
      return { changed };
    },
  };
  void realTimeout;
})();
